#!/bin/sh
# Sensitivity map of Zaourar et al.'s Fig. 3 on numasim's mesh (see docs/validation/zaourar.md):
# bandwidth, REQ queueing and home-node tracker wait against tracker entries, CHI retry,
# misses in flight per core and inter-quadrant link latency. Pass --full for the paper's sizes.
set -eu
cd "$(dirname "$0")/.."
exec nice cargo run --release --quiet -p numasim-repro --example zaourar_fig3_map -- "$@"
