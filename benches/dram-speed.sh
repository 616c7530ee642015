#!/usr/bin/env bash
# Speed of numasim's memory controller alone (`numasim bench dram`, one DDR4-2400 channel,
# RoBaRaCoCh, open page, refresh on), in requests per CPU-second of the whole process: random
# reads, a sequential stream and a 2:1 read:write mix behind the 32-read FR-FCFS queue, and
# unloaded random reads (one in flight, no queue). With NUMASIM_BASE set to another numasim
# build (e.g. one of an earlier commit), both run on the same requests, taken in turn, and the
# script checks that they give the same results (every figure of `--json` but host times).
#
#   benches/dram-speed.sh                      (REQUESTS, default 1000000; RUNS, default 3)
#   NUMASIM_BASE=/path/to/numasim benches/dram-speed.sh
#
# The figure of merit is CPU-seconds (user + system, from getrusage), the median of RUNS runs;
# on a shared machine wall time mostly measures the scheduler. Ramulator 2 on the same
# requests: benches/ramulator-peer.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${REQUESTS:-1000000}
RUNS=${RUNS:-3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ -n "${NUMASIM:-}" ]; then
    NEW=$NUMASIM
else
    cargo build --release -q -p numasim-cli
    NEW="$ROOT/target/release/numasim"
fi
BASE=${NUMASIM_BASE:-}

cpu_s() { # out command...: runs it (stdout to out), prints its user + system CPU seconds
    python3 - "$@" <<'PY'
import os, sys
out, argv = sys.argv[1], sys.argv[2:]
acts = [(os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=acts)
_, status, ru = os.wait4(pid, 0)
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit("failed: " + " ".join(argv))
print(ru.ru_utime + ru.ru_stime)
PY
}
median() { printf "%s\n" "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }

if [ -n "$BASE" ]; then
    printf "%-28s %18s %18s %8s %s\n" "pattern ($N requests)" "base M req/CPU-s" "this M req/CPU-s" "ratio" "results"
else
    printf "%-28s %14s %10s\n" "pattern ($N requests)" "M req/CPU-s" "CPU-s"
fi
for p in random stream mix unloaded; do
    case $p in
        unloaded) args=(--pattern random --read-queue 0 --in-flight 1) ;;
        *) args=(--pattern "$p") ;;
    esac
    new_runs=(); base_runs=()
    for _ in $(seq "$RUNS"); do
        [ -n "$BASE" ] && base_runs+=("$(cpu_s "$WORK/base.json" "$BASE" bench dram "${args[@]}" --requests "$N" --json)")
        new_runs+=("$(cpu_s "$WORK/new.json" "$NEW" bench dram "${args[@]}" --requests "$N" --json)")
    done
    new_cpu=$(median "${new_runs[@]}")
    if [ -n "$BASE" ]; then
        base_cpu=$(median "${base_runs[@]}")
        if diff <(grep -v host "$WORK/base.json") <(grep -v host "$WORK/new.json") >/dev/null; then
            verdict=identical
        else
            verdict=DIFFERENT
        fi
        awk -v p="$p" -v n="$N" -v a="$base_cpu" -v b="$new_cpu" -v v="$verdict" \
            'BEGIN { printf "%-28s %18.2f %18.2f %7.2fx %s\n", p, n / a / 1e6, n / b / 1e6, a / b, v }'
    else
        awk -v p="$p" -v n="$N" -v b="$new_cpu" 'BEGIN { printf "%-28s %14.2f %10.3f\n", p, n / b / 1e6, b }'
    fi
done
