#!/usr/bin/env bash
# Does the progress printer slow a run down? Runs the same short experiment PAIRS times with and
# without `--quiet`, interleaved (so load changes hit both alike), and prints the wall times'
# medians, the largest difference of a pair, and how many pairs the printing run lost by more
# than a second (a lost wake-up in the printer would cost a whole poll interval, ~10 s).
#
#   benches/quiet-twin.sh [PAIRS]        # NUMASIM=path/to/numasim to use a given build
#
# Exits 1 when a printing run is more than a second slower than its quiet twin.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${1:-50}
BIN=${NUMASIM:-$PWD/target/release/numasim}
if [[ ! -x "$BIN" ]]; then
    cargo build -q --release -p numasim-cli
fi
BIN=$(realpath "$BIN")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
EXP=configs/experiments/quickstart.toml
run() { # $1: output dir, then flags; prints wall seconds
    local t0 t1
    t0=$(date +%s.%N)
    "$BIN" run "$EXP" -o "$W/$1" --force --set workload.accesses_per_thread=20000 "${@:2}" >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
: >"$W/times"
for i in $(seq "$PAIRS"); do
    # Alternate which twin goes first, so neither always runs on a warmer cache.
    if ((i % 2)); then
        p=$(run printing) q=$(run quiet --quiet)
    else
        q=$(run quiet --quiet) p=$(run printing)
    fi
    echo "$p $q" >>"$W/times"
done
python3 - "$W/times" <<'EOF'
import statistics, sys
pairs = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
p = [a for a, _ in pairs]; q = [b for _, b in pairs]
d = [a - b for a, b in pairs]
slow = sum(1 for x in d if x > 1.0)
print(f"{len(pairs)} pairs: printing median {statistics.median(p):.3f} s, quiet median {statistics.median(q):.3f} s, "
      f"largest (printing - quiet) {max(d):+.3f} s, pairs printing lost by > 1 s: {slow}")
sys.exit(1 if slow else 0)
EOF
