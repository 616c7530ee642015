#!/usr/bin/env bash
# Side by side: numasim and the StarNUMA artifact's trace profiler (mem_profile/, the program
# that turns memtrace_t<N>.out files into page placements) on the same StarNUMA-format trace,
# in accesses per CPU-second (user + system time, so the figure does not depend on how many
# cores either side used or on other jobs sharing the machine).
#
#   benches/starnuma-peer.sh [WORKDIR]            (default WORKDIR: ./target/starnuma-peer)
#
# The peer is never part of this repository. Give either
#   STARNUMA_ARTIFACT=/path/to/StarNUMA_Artifact   a checkout of albertycho/StarNUMA_Artifact;
#       its mem_profile/ is copied into WORKDIR and built there with the artifact's own
#       setup_package.py settings (--ps 4 --ml 0: 4 KiB pages, first touch; and --ps 512
#       --ml 256: 512 KiB regions with migration), g++ -O3 -fopenmp as its scripts do, plus
#       `-include array` (newer GCC needs it for these sources) and -DNDEBUG: with assertions
#       on, the profiler aborts at the end of the first thread file it exhausts (it asserts
#       that every read returns 8 bytes), so it can only finish a trace with them off;
#   or STARNUMA_PROFILER=/path/to/omp_pp_trace_pp_4_0_ca_5 (and optionally
#       STARNUMA_PROFILER_MIGRATION=/path/to/omp_pp_trace_pp_512_256_ca_5), already built.
# Without either the script says so and exits 0 (nothing to compare against).
#
# The trace: GAP BFS on a Kronecker graph, 64 threads (the peer is compiled for 64), recorded by
# `numasim trace record` and exported with `numasim trace convert --to starnuma` (a phase
# marker every 100 M instructions, as the artifact's tracer writes). SCALE (default 21) and
# TRIALS (default 6) set its size: about 210 M accesses, 3.4 GB of StarNUMA files.
# numasim runs it first-touch with the LLC filter on, without and with StarNUMA migration
# (Algorithm 1, T16 trackers), at --threads 1 and at the default (all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${1:-$ROOT/target/starnuma-peer}
SCALE=${SCALE:-21}
TRIALS=${TRIALS:-6}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# --- the peer -------------------------------------------------------------------------------
PEER=${STARNUMA_PROFILER:-}
PEER_MIG=${STARNUMA_PROFILER_MIGRATION:-}
if [ -z "$PEER" ] && [ -n "${STARNUMA_ARTIFACT:-}" ] && [ -d "$STARNUMA_ARTIFACT/mem_profile" ]; then
    if ! command -v g++ >/dev/null || ! command -v python3 >/dev/null; then
        echo "skip: building the StarNUMA profiler needs g++ and python3"; exit 0
    fi
    rm -rf "$WORK/mem_profile" && cp -r "$STARNUMA_ARTIFACT/mem_profile" "$WORK/"
    pkg="$WORK/mem_profile/scripts_packaged"
    for args in "4 0" "512 256"; do
        set -- $args
        # setup_package.py writes the configured sources; its own compile step fails on new
        # GCC (missing <array>), so compile them here with its flags plus -include array.
        (cd "$pkg" && python3 setup_package.py --ps "$1" --ml "$2" >/dev/null 2>&1 || true)
        d="pp_$1_$2_ca_5"
        [ -f "$pkg/$d/omp_pp_trace.cpp" ] || { echo "skip: setup_package.py did not produce $d"; exit 0; }
        g++ -Wall -include array -DNDEBUG "$pkg/$d/omp_pp_trace.cpp" -O3 -fopenmp -o "$pkg/$d/omp_pp_trace_$d" 2>/dev/null
    done
    PEER="$pkg/pp_4_0_ca_5/omp_pp_trace_pp_4_0_ca_5"
    PEER_MIG="$pkg/pp_512_256_ca_5/omp_pp_trace_pp_512_256_ca_5"
fi
if [ -z "$PEER" ] || [ ! -x "$PEER" ]; then
    echo "skip: StarNUMA profiler not found (set STARNUMA_ARTIFACT to a checkout of albertycho/StarNUMA_Artifact, or STARNUMA_PROFILER to a built binary)"
    exit 0
fi
command -v /usr/bin/time >/dev/null || { echo "skip: needs /usr/bin/time"; exit 0; }

# --- numasim and the trace ------------------------------------------------------------------
if [ -z "${NUMASIM:-}" ]; then
    cargo build --release -q -p numasim-cli
    NUMASIM=$ROOT/target/release/numasim
fi
cd "$WORK"
cat > bfs64.toml <<TOML
machine = "starnuma16-pool"
seed = 1
[workload]
kind = "bfs"
graph = "kronecker"
scale = $SCALE
degree = 16
threads = 64
trials = $TRIALS
TOML
if [ ! -f "sn-$SCALE-$TRIALS/memtrace_t63.out" ]; then
    echo "generating the trace (BFS scale $SCALE, $TRIALS trials, 64 threads)..."
    /usr/bin/time -f "%U %S %e" -o gen.time "$NUMASIM" trace record bfs64.toml -o bfs64.trace >/dev/null
    rm -rf "sn-$SCALE-$TRIALS"
    "$NUMASIM" trace convert --from native --to starnuma bfs64.trace -o "sn-$SCALE-$TRIALS" >/dev/null
fi
SN="$WORK/sn-$SCALE-$TRIALS"
FILES=$(for t in $(seq 0 63); do printf '"%s/memtrace_t%d.out", ' "$SN" "$t"; done)

# Prints "cpu_s wall_s peak_rss_kb" of a command (its output goes to $1.out).
measure() {
    local name=$1; shift
    /usr/bin/time -f "%U %S %e %M" -o "$name.time" "$@" >"$name.out" 2>"$name.err" || true
    awk '{printf "%.3f %.3f %d\n", $1 + $2, $3, $4}' "$name.time" | tail -1
}

ACCESSES=$("$NUMASIM" trace info --decode-only --json "$SN"/memtrace_t*.out | sed -n 's/.*"records": \([0-9]*\).*/\1/p')
echo "trace: $ACCESSES accesses in 64 StarNUMA files ($(du -sh "$SN" | cut -f1))"

row() { # name cpu wall rss
    awk -v n="$1" -v c="$2" -v w="$3" -v m="$4" -v a="$ACCESSES" \
        'BEGIN { printf "%-58s %8.2f %8.2f %10.1f %9.0f\n", n, c, w, a / c / 1e6, m / 1024 }'
}
printf "%-58s %8s %8s %10s %9s\n" "what" "cpu_s" "wall_s" "M acc/cpu-s" "rss_MiB"

read -r c w m < <(measure decode "$NUMASIM" trace info --decode-only "$SN"/memtrace_t*.out)
row "numasim: decode only (StarNUMA files)" "$c" "$w" "$m"; DECODE_CPU=$c

exp() { # name llc migration
    cat > "$1.toml" <<TOML
machine = "starnuma16-pool"
seed = 1
phase_instructions = 1000000000
[workload]
trace = [$FILES]
format = "starnuma"
[placement]
policy = "first-touch"
[llc]
enabled = true
$2
TOML
}
exp ft ""
exp mig $'[migration]\npolicy = "starnuma"'
for e in ft mig; do
    for n in 1 default; do
        args=(run "$e.toml" -o "res-$e-$n")
        [ "$n" = 1 ] && args+=(--threads 1)
        read -r c w m < <(measure "run-$e-$n" "$NUMASIM" "${args[@]}")
        label="first-touch, LLC on"; [ "$e" = mig ] && label="first-touch, LLC on, StarNUMA migration (T16)"
        row "numasim run: $label, --threads $n" "$c" "$w" "$m"
        eval "CPU_${e}_$n=$c"
    done
done

peer() { # name binary
    rm -rf "$1" && mkdir "$1"
    for f in "$SN"/memtrace_t*.out; do ln -s "$f" "$1/"; done
    (cd "$1" && measure peer "$2")
}
read -r c w m < <(peer peer-ft "$PEER")
row "peer: StarNUMA profiler, 4 KiB pages, first touch" "$c" "$w" "$m"; PEER_FT=$c
if [ -n "$PEER_MIG" ] && [ -x "$PEER_MIG" ]; then
    read -r c w m < <(peer peer-mig "$PEER_MIG")
    row "peer: StarNUMA profiler, 512 KiB regions, migration" "$c" "$w" "$m"; PEER_MIGC=$c
fi
echo
awk -v p="$PEER_FT" -v a="$CPU_ft_1" -v d="$DECODE_CPU" -v b="$CPU_mig_1" 'BEGIN {
    printf "first touch, per CPU-second: numasim (--threads 1) / peer (4 KiB, first touch) = %.1fx\n", p / a
    printf "numasim run / decode only, per CPU-second: %.2f (first touch), %.2f (with migration)\n", d / a, d / b }'
if [ -n "${PEER_MIGC:-}" ]; then
    awk -v p="$PEER_MIGC" -v b="$CPU_mig_1" 'BEGIN {
        printf "migration, per CPU-second: numasim (T16, --threads 1) / peer (512 KiB, migration) = %.1fx\n", p / b }'
fi
