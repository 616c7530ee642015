#!/usr/bin/env bash
# Prove refactors leave results byte-identical.
#
#   scripts/check-identical.sh [--all] > hashes.txt     # --all adds the 100 M-access speed*.toml
#   diff baseline.txt hashes.txt
#
# Builds the release CLI, runs every shipped experiment (configs/experiments/*.toml) plus a set
# of small generated scenarios (every migration policy in both modes, every profiler,
# `analyze sharing`, `analyze profile`) into a temporary directory,
# and prints one hash per output file. results.json is hashed with its `perf` block (wall-clock
# figures) removed; every other output is hashed as written. Errors are hashed too, so a
# scenario that is refused must keep being refused with the same message.
set -euo pipefail
cd "$(dirname "$0")/.."
ALL=0
[[ "${1:-}" == "--all" ]] && ALL=1
cargo build --release -q -p numasim-cli
BIN="$PWD/target/release/numasim"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

hash_dir() { # name dir
    local name="$1" dir="$2"
    # The .numasim-results marker holds a run id (pid and time), and .numasim-dir lists files in
    # the order parallel runs wrote them: neither is a result.
    (cd "$dir" && find . -type f ! -name .numasim-results ! -name .numasim-dir | LC_ALL=C sort) | while read -r f; do
        if [[ "$(basename "$f")" == results.json ]]; then
            h=$(jq -S 'del(.perf)' "$dir/$f" | sha256sum | cut -c1-16)
        else
            h=$(sha256sum "$dir/$f" | cut -c1-16)
        fi
        echo "$name ${f#./} $h"
    done
}

run_exp() { # name toml
    local name="$1" toml="$2" out="$TMP/out-$1"
    if "$BIN" run "$toml" -o "$out" --json >/dev/null 2>"$TMP/err"; then
        hash_dir "$name" "$out"
    else
        echo "$name ERROR $(sed "s|$TMP|TMP|g" "$TMP/err" | sha256sum | cut -c1-16)"
    fi
}

# Shipped experiments.
for t in configs/experiments/*.toml; do
    n=$(basename "$t" .toml)
    if [[ $ALL == 0 && $n == speed* ]]; then continue; fi
    run_exp "$n" "$t"
done

# Generated scenarios: small runs that exercise every policy, mode and profiler.
scenario() { # name machine mode extra-toml migration-toml
    cat >"$TMP/$1.toml" <<T
machine = "$2"
seed = 3
mode = "$3"
phase_instructions = 200000
[workload]
kind = "synthetic"
threads = 16
pattern = "shared-hot"
accesses_per_thread = 40000
footprint_bytes = 16777216
$4
[migration]
$5
T
    run_exp "$1" "$TMP/$1.toml"
}
for mode in functional timing; do
    for p in none starnuma starnuma-t0 perfect-baseline tikir autonuma oracle-static; do
        scenario "$mode-$p" starnuma16-pool-scaled "$mode" "" "policy = \"$p\""
    done
    scenario "$mode-hydm" knl-flat "$mode" "" "policy = \"hydm\""
    scenario "$mode-starnuma-sw" starnuma16-pool-scaled "$mode" "" "policy = \"starnuma\"
shootdown = \"software\""
    scenario "$mode-cg-oracle" sunfire6800 "$mode" "[mapping]
policy = \"scatter\"" "policy = \"oracle-static\""
done
for prof in perfect full tracker-t16 tracker-t0 interconnect cache-miss tlb-miss tlb-content atc hydm-sampling hinting-faults; do
    scenario "functional-tikir-$prof" starnuma16-pool-scaled functional "" "policy = \"tikir\"
profiler = \"$prof\""
done

# CG with serial init under tikir and autonuma (pages move between boards).
for p in tikir autonuma; do
    cat >"$TMP/cg-$p.toml" <<T
machine = "sunfire6800"
seed = 3
phase_instructions = 2000000
[workload]
kind = "cg"
threads = 12
init = "serial"
rows = 8000
iterations = 6
[mapping]
policy = "scatter"
[llc]
enabled = false
[migration]
policy = "$p"
T
    run_exp "cg-$p" "$TMP/cg-$p.toml"
done

# Node controllers and proxies (talbot64, Table 1.2's occupancies): basic proxies with
# infinite buffers, reactive proxies with 8-read buffers.
for nc in "basic" "reactive"; do
    buffers=""
    [[ $nc == reactive ]] && buffers="input_buffer_reads = 8"
    cat >"$TMP/ge-$nc.toml" <<T
machine = "talbot64"
seed = 1
mode = "timing"
phase_instructions = 500000
[workload]
kind = "ge"
threads = 64
n = 64
init = "parallel"
pivoting = false
[placement]
policy = "first-touch"
page_bytes = 8192
[timing]
node_controller_cycle_ns = 10.0
proxies = "$nc"
$buffers
T
    run_exp "ge-$nc" "$TMP/ge-$nc.toml"
done

# The mesh engine (only `repro zaourar` drives it): the quick study's table and every run.
"$BIN" repro zaourar --quick -o "$TMP/zaourar" >/dev/null 2>&1 || echo "zaourar ERROR"
hash_dir zaourar "$TMP/zaourar"

# analyze sharing and analyze profile on the quickstart workload.
"$BIN" analyze sharing configs/experiments/quickstart.toml -o "$TMP/sharing.json" --json >/dev/null
echo "analyze-sharing quickstart $(sha256sum <"$TMP/sharing.json" | cut -c1-16)"
"$BIN" analyze sharing configs/experiments/quickstart.toml --llc -o "$TMP/sharing-llc.json" --json >/dev/null
echo "analyze-sharing-llc quickstart $(sha256sum <"$TMP/sharing-llc.json" | cut -c1-16)"
"$BIN" analyze profile "$TMP/cg-tikir.toml" --json | sha256sum | cut -c1-16 | sed 's/^/analyze-profile cg-tikir /'
