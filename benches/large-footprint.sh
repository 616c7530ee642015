#!/usr/bin/env bash
# Functional-mode speed at a large footprint: 64 threads touching pages at random (uniform) or
# skewed (Zipf) over a region of gigabytes, one 64 B line per page visit, in StarNUMA-format
# files; LLC filter off, first touch, then StarNUMA migration (T16 trackers, Algorithm 1).
# Prints CPU-seconds (user + system), accesses per CPU-second, wall time and peak RSS, at
# --threads 1 and 2, and checks the two give identical results.
#
#   benches/large-footprint.sh [WORKDIR]        (default WORKDIR: ./target/large-footprint)
#
# Sizes: ACCESSES_PER_THREAD (default 1250000: 80 M accesses) and FOOTPRINT_BYTES (default
# 4 GiB: 1 M pages). The traces take 2.4 GB of disk at the defaults.
# The peer: with STARNUMA_PROFILER (and optionally STARNUMA_PROFILER_MIGRATION) pointing at the
# StarNUMA artifact's built trace profilers (see benches/starnuma-peer.sh for building them),
# they run on the same files; without them their rows are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${1:-$ROOT/target/large-footprint}
APT=${ACCESSES_PER_THREAD:-1250000}
FOOT=${FOOTPRINT_BYTES:-4294967296}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
command -v /usr/bin/time >/dev/null || { echo "skip: needs /usr/bin/time"; exit 0; }
command -v jq >/dev/null || { echo "skip: needs jq"; exit 0; }
if [ -z "${NUMASIM:-}" ]; then
    cargo build --release -q -p numasim-cli
    NUMASIM=$ROOT/target/release/numasim
fi
cd "$WORK"

measure() { # name command... -> "cpu_s wall_s peak_rss_kb"
    local name=$1; shift
    /usr/bin/time -f "%U %S %e %M" -o "$name.time" "$@" >"$name.out" 2>"$name.err" || true
    awk '{printf "%.3f %.3f %d\n", $1 + $2, $3, $4}' "$name.time" | tail -1
}
row() { # label cpu wall rss accesses
    awk -v n="$1" -v c="$2" -v w="$3" -v m="$4" -v a="$5" \
        'BEGIN { printf "%-52s %8.2f %8.2f %11.1f %8.0f\n", n, c, w, a / c / 1e6, m / 1024 }'
}
same() { # dir dir -> identical results (results.json without its perf block, and every other file)
    diff <(jq -S 'del(.perf)' "$1/results.json") <(jq -S 'del(.perf)' "$2/results.json") >/dev/null &&
        diff -r -x results.json -x .numasim-results "$1" "$2" >/dev/null
}

printf "%-52s %8s %8s %11s %8s\n" "what" "cpu_s" "wall_s" "M acc/cpu-s" "rss_MiB"
for pattern in uniform zipf; do
    sn="sn-$pattern-$APT-$FOOT"
    if [ ! -f "$sn/memtrace_t63.out" ]; then
        cat > "gen-$pattern.toml" <<TOML
machine = "starnuma16-pool"
seed = 1
[workload]
kind = "synthetic"
threads = 64
pattern = "$pattern"
footprint_bytes = $FOOT
accesses_per_thread = $APT
instructions_per_access = 40
lines_per_visit = 1
TOML
        "$NUMASIM" trace record "gen-$pattern.toml" -o "$pattern.trace" >/dev/null
        rm -rf "$sn"
        "$NUMASIM" trace convert --from native --to starnuma "$pattern.trace" -o "$sn" >/dev/null
        rm -f "$pattern.trace"
    fi
    files=$(for t in $(seq 0 63); do printf '"%s/memtrace_t%d.out", ' "$WORK/$sn" "$t"; done)
    accesses=$((APT * 64))
    read -r c w m < <(measure "decode-$pattern" "$NUMASIM" trace info --decode-only "$sn"/memtrace_t*.out)
    row "$pattern: decode only" "$c" "$w" "$m" "$accesses"
    for e in ft mig; do
        mig=""
        [ "$e" = mig ] && mig=$'[migration]\npolicy = "starnuma"'
        cat > "$e-$pattern.toml" <<TOML
machine = "starnuma16-pool"
seed = 1
[workload]
trace = [$files]
format = "starnuma"
[placement]
policy = "first-touch"
[llc]
enabled = false
$mig
TOML
        label="first touch, LLC off"
        [ "$e" = mig ] && label="LLC off, StarNUMA migration (T16)"
        for n in 1 2; do
            rm -rf "res-$e-$pattern-$n"
            read -r c w m < <(measure "run-$e-$pattern-$n" "$NUMASIM" run "$e-$pattern.toml" -o "res-$e-$pattern-$n" --threads "$n" -q)
            row "$pattern: $label, --threads $n" "$c" "$w" "$m" "$accesses"
            eval "WALL_${n}=$w"
        done
        if same "res-$e-$pattern-1" "res-$e-$pattern-2"; then verdict=identical; else verdict=DIFFERENT; fi
        awk -v a="$WALL_1" -v b="$WALL_2" -v v="$verdict" -v n="$pattern: $label" \
            'BEGIN { printf "%-52s wall --threads 1 / --threads 2 = %.2fx, results %s\n", n, a / b, v }'
    done
    peer() { # label binary
        [ -n "$2" ] && [ -x "$2" ] || return 0
        rm -rf "peer-$pattern" && mkdir "peer-$pattern"
        for f in "$WORK/$sn"/memtrace_t*.out; do ln -s "$f" "peer-$pattern/"; done
        read -r c w m < <(cd "peer-$pattern" && measure peer "$2")
        row "$pattern: peer, $1" "$c" "$w" "$m" "$accesses"
    }
    peer "4 KiB pages, first touch" "${STARNUMA_PROFILER:-}"
    peer "512 KiB regions, migration" "${STARNUMA_PROFILER_MIGRATION:-}"
done
[ -n "${STARNUMA_PROFILER:-}" ] || echo "(peer rows skipped: STARNUMA_PROFILER not set)"
