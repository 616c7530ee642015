#!/usr/bin/env bash
# Side by side: numasim's memory controller (`numasim bench dram`) and Ramulator 2 on the same
# requests to one DDR4-2400 channel (16-16-16, 8 Gb x8 parts, one rank, RoBaRaCoCh, open page,
# refresh on, FR-FCFS in Ramulator): unloaded read latency, saturated random-read and
# sequential-read bandwidth, a 2:1 read:write mix, and each simulator's speed.
#
#   benches/ramulator-peer.sh [WORKDIR]            (default WORKDIR: ./target/ramulator-peer)
#
# The peer is never part of this repository. Give either
#   RAMULATOR2=/path/to/ramulator2   a checkout of CMU-SAFARI/ramulator2 from before its Python
#       front end replaced the `ramulator2` executable (tag v2.0a, or commit be93be7 of
#       2026-03-25); it is built in WORKDIR with CMake (Release). Its CMake file fetches
#       yaml-cpp 0.7.0, spdlog 1.11.0 and argparse 2.9 from GitHub unless they are already in
#       its ext/ directory (ext/yaml-cpp, ext/spdlog, ext/argparse), which this script passes
#       to CMake so no network is needed;
#   or RAMULATOR2_BIN=/path/to/ramulator2   an already built executable.
# Without either the script says so and exits 0 (nothing to compare against).
#
# Both simulators see the same trace files (written by `numasim bench dram --emit-trace`):
# Ramulator 2 reads them with its LoadStoreTrace front end, which sends one request per memory
# cycle while the controller's 32-entry queues accept them (saturation); for unloaded latency
# its front end is clocked 1000× slower than the memory (one request per 1000 memory cycles).
# numasim replays them behind its 32-read FR-FCFS queue (`bench dram`'s default, the timing
# engine's `dram_read_queue`; a read presented when the queue has room, as Ramulator's front
# end does), and for unloaded latency closed loop with one request in flight, no queue.
# Ramulator's bandwidth is requests × 64 B over its memory cycles × tCK (its run ends when the
# last request is sent, at most 32 requests before they complete: < 0.02 % of 200 000).
# Read latency is compared unloaded only: Ramulator's `avg_read_latency` divides by
# `num_read_reqs`, which its controller counts before the queue accepts a request, so under
# saturation every rejected retry is counted too and the figure is not a latency.
# Speed is requests per CPU-second of the whole process (user + system, from getrusage),
# trace parsing included for both, the median of RUNS (default 3) runs of each taken in
# turn, the ratio numasim / Ramulator 2, and numasim's model alone (requests already in
# memory, host wall time, so it reads low on a loaded machine) beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${1:-$ROOT/target/ramulator-peer}
N=${REQUESTS:-200000}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

PEER=${RAMULATOR2_BIN:-}
if [ -z "$PEER" ] && [ -n "${RAMULATOR2:-}" ] && [ -f "$RAMULATOR2/src/main.cpp" ]; then
    command -v cmake >/dev/null && command -v g++ >/dev/null || { echo "skip: building Ramulator 2 needs cmake and g++"; exit 0; }
    ext=()
    [ -d "$RAMULATOR2/ext/yaml-cpp" ] && ext+=(-DFETCHCONTENT_SOURCE_DIR_YAML-CPP="$RAMULATOR2/ext/yaml-cpp")
    [ -d "$RAMULATOR2/ext/spdlog" ] && ext+=(-DFETCHCONTENT_SOURCE_DIR_SPDLOG="$RAMULATOR2/ext/spdlog")
    [ -d "$RAMULATOR2/ext/argparse" ] && ext+=(-DFETCHCONTENT_SOURCE_DIR_ARGPARSE="$RAMULATOR2/ext/argparse")
    cmake -S "$RAMULATOR2" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release "${ext[@]}" >/dev/null
    cmake --build "$WORK/build" -j "$(nproc)" >/dev/null
    PEER="$WORK/build/ramulator2"
fi
if [ -z "$PEER" ] || [ ! -x "$PEER" ]; then
    echo "skip: Ramulator 2 not found (set RAMULATOR2 to a checkout of CMU-SAFARI/ramulator2 at v2.0a, or RAMULATOR2_BIN to a built ramulator2)"
    exit 0
fi

# NUMASIM_BIN: another numasim build to compare (e.g. an older one), instead of this tree's.
if [ -n "${NUMASIM_BIN:-}" ]; then
    NUMASIM=$NUMASIM_BIN
else
    cargo build --release -q -p numasim-cli
    NUMASIM="$ROOT/target/release/numasim"
fi
TCK_NS=0.833333333

# Ramulator 2 configuration: the numasim side's `ddr4-2400-cl16` with one rank.
config() { # trace frontend_ratio memory_ratio
    cat <<EOF
Frontend:
  impl: LoadStoreTrace
  path: $1
  clock_ratio: $2
MemorySystem:
  impl: GenericDRAM
  clock_ratio: $3
  DRAM:
    impl: DDR4
    org:
      preset: DDR4_8Gb_x8
      channel: 1
      rank: 1
    timing:
      preset: DDR4_2400R
  Controller:
    impl: Generic
    Scheduler:
      impl: FRFCFS
    RefreshManager:
      impl: AllBank
    RowPolicy:
      impl: OpenRowPolicy
    plugins:
  AddrMapper:
    impl: RoBaRaCoCh
EOF
}

cpu_s() { # command...: runs it (stdout to last.out), prints its user + system CPU seconds
    # The child's own rusage from wait4, to the microsecond (GNU time prints hundredths, too
    # coarse for numasim's tens of milliseconds); posix_spawn, so nothing of the Python
    # parent's is counted (subprocess's forked child costs tens of ms before its exec).
    python3 - "$WORK" "$@" <<'PY'
import os, sys
work, argv = sys.argv[1], sys.argv[2:]
acts = [(os.POSIX_SPAWN_OPEN, 1, work + "/last.out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, work + "/last.err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=acts)
_, status, ru = os.wait4(pid, 0)
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit("failed: " + " ".join(argv) + " (see " + work + "/last.err)")
print(ru.ru_utime + ru.ru_stime)
PY
}

median() { printf "%s\n" "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }

printf "%-34s %12s %12s %9s\n" "quantity (DDR4-2400 16-16-16, 1 ch)" "Ramulator 2" "numasim" "diff"
row() { awk -v q="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%-34s %12.2f %12.2f %+8.1f%%\n", q, a, b, 100 * (b - a) / a }'; }

for p in unloaded random stream mix; do
    case $p in
        unloaded) pat=random; n=20000; fr=1; mr=1000; front=(--read-queue 0 --in-flight 1) ;;
        *) pat=$p; n=$N; fr=1; mr=1; front=(--read-queue 32) ;;
    esac
    trace="$WORK/$p.trace"
    "$NUMASIM" bench dram --pattern "$pat" --requests "$n" --emit-trace "$trace" 2>/dev/null
    config "$trace" "$fr" "$mr" > "$WORK/$p.yaml"
    # Speed: RUNS runs of each, alternating (the CPU time one run gets depends on what else
    # the machine runs at that moment, so both sides share the moments), medians.
    peer_runs=(); ns_runs=()
    for _ in $(seq "${RUNS:-3}"); do
        peer_runs+=("$(cpu_s "$PEER" -f "$WORK/$p.yaml")")
        cp "$WORK/last.out" "$WORK/$p.ramulator.txt"
        ns_runs+=("$(cpu_s "$NUMASIM" bench dram --trace "$trace" "${front[@]}" --json)")
        cp "$WORK/last.out" "$WORK/$p.numasim.json"
        [ "$p" = unloaded ] && break
    done
    peer_cpu=$(median "${peer_runs[@]}")
    ns_cpu=$(median "${ns_runs[@]}")
    cycles=$(grep -E "^\s*memory_system_cycles:" "$WORK/$p.ramulator.txt" | head -1 | awk '{print $2}')
    lat=$(grep -E "^\s*avg_read_latency_0:" "$WORK/$p.ramulator.txt" | head -1 | awk '{print $2}')
    nbw=$(python3 -c "import json;print(json.load(open('$WORK/$p.numasim.json'))['bandwidth_gbps'])")
    nlat=$(python3 -c "import json;print(json.load(open('$WORK/$p.numasim.json'))['mean_read_latency_ns'])")
    nspeed=$(python3 -c "import json;print(json.load(open('$WORK/$p.numasim.json'))['requests_per_host_s'])")
    if [ "$p" = unloaded ]; then
        row "unloaded read latency (ns)" "$(awk -v c="$lat" -v t=$TCK_NS 'BEGIN{print c*t}')" "$nlat"
    else
        row "$p bandwidth (GB/s)" "$(awk -v n="$n" -v c="$cycles" -v t=$TCK_NS 'BEGIN{print n*64/(c*t)}')" "$nbw"
        row "$p speed (M requests/CPU-s)" "$(awk -v n="$n" -v s="$peer_cpu" 'BEGIN{print n/s/1e6}')" "$(awk -v n="$n" -v s="$ns_cpu" 'BEGIN{print n/s/1e6}')"
        awk -v q="$p speed ratio (numasim / peer)" -v a="$peer_cpu" -v b="$ns_cpu" 'BEGIN { printf "%-34s %12s %11.1fx\n", q, "", a/b }'
        awk -v q="$p model alone (M requests/s)" -v b="$nspeed" 'BEGIN { printf "%-34s %12s %12.2f\n", q, "", b/1e6 }'
    fi
done
echo "outputs: $WORK/*.ramulator.txt, $WORK/*.numasim.json"
