#!/usr/bin/env bash
# numasim's `starnuma` policy with `rules = "artifact"` against the StarNUMA artifact's trace
# profiler, decision by decision (crates/numasim-cli/tests/starnuma_artifact.rs).
#
#   STARNUMA_ARTIFACT=/path/to/StarNUMA_Artifact benches/starnuma-decisions.sh [--write-fixture]
#
# Builds the artifact's migration profiler (mem_profile/, `setup_package.py --ps 512 --ml 32`:
# 512 KiB regions, `512KBpage_pp_TH_eviction.cpp`) out of tree with three constants scaled to
# the test's small traces, its rules untouched:
#   MIGRATION_LIMIT 256 -> 6 regions, MIGRATION_THRESHOLD 20000 -> 2000, eviction_threshold 1000 -> 100
# (the test runs numasim with migration_limit_pages = 768, hi_start = 2000, lo_start = 100), then
# runs the test with the built profiler: both on the same two traces, phase by phase.
# --write-fixture also rewrites the recorded decisions in
# crates/numasim-cli/tests/fixtures/starnuma-artifact/ from the artifact's output.
# Without the artifact the script says so and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${WORK:-$ROOT/target/starnuma-decisions}
if [ -z "${STARNUMA_ARTIFACT:-}" ] || [ ! -d "$STARNUMA_ARTIFACT/mem_profile" ]; then
    echo "skip: set STARNUMA_ARTIFACT to a checkout of albertycho/StarNUMA_Artifact"; exit 0
fi
command -v g++ >/dev/null && command -v python3 >/dev/null || { echo "skip: needs g++ and python3"; exit 0; }
mkdir -p "$WORK" && rm -rf "$WORK/mem_profile" && cp -r "$STARNUMA_ARTIFACT/mem_profile" "$WORK/"
pkg="$WORK/mem_profile/scripts_packaged"
# setup_package.py writes the configured sources; its own compile step fails on new GCC.
(cd "$pkg" && python3 setup_package.py --ps 512 --ml 32 >/dev/null 2>&1 || true)
d="$pkg/pp_512_32_ca_5"
[ -f "$d/omp_pp_trace.cpp" ] || { echo "skip: setup_package.py did not produce pp_512_32_ca_5"; exit 0; }
sed -i 's/^#define MIGRATION_LIMIT .*/#define MIGRATION_LIMIT 6/; s/^#define MIGRATION_THRESHOLD .*/#define MIGRATION_THRESHOLD 2000/' "$d/omp_pp_trace.hpp"
sed -i 's/^uint64_t eviction_threshold =1000;/uint64_t eviction_threshold =100;/' "$d/omp_pp_trace.cpp"
grep -q '^uint64_t eviction_threshold =100;' "$d/omp_pp_trace.cpp" || { echo "the profiler's source changed: eviction_threshold not found"; exit 1; }
# -include array: newer GCC needs it for these sources; -DNDEBUG: the profiler asserts on the
# read past the end of each file (see benches/starnuma-peer.sh).
g++ -Wall -include array -DNDEBUG "$d/omp_pp_trace.cpp" -O2 -fopenmp -o "$WORK/omp_pp_decisions" 2>/dev/null
export STARNUMA_DECISIONS_PROFILER="$WORK/omp_pp_decisions"
if [ "${1:-}" = --write-fixture ]; then
    NUMASIM_WRITE_FIXTURE=1 cargo test -p numasim-cli --test starnuma_artifact live -- --nocapture
fi
cargo test -p numasim-cli --test starnuma_artifact -- --nocapture
