#!/usr/bin/env bash
# Short fuzz run for CI: each target for $FUZZ_RUNS executions (default 100000) starting from its
# committed seeds, with debug assertions on (so integer overflow is a crash, as in debug builds)
# and a 2 GiB memory limit (an input that makes a reader allocate more is a crash).
# No sanitizer: the targets are safe Rust, and what we look for (panics, overflow, hangs,
# unbounded allocation) needs none; without ASan the build takes half as long and runs ~3x
# faster. Temporary files go to /dev/shm when it exists: the readers take paths, and directory
# operations on an overlay /tmp made one target 50x slower.
# New inputs go to a temporary corpus, never into the repository; a crash is kept in
# fuzz/artifacts/<target>/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")"
runs=${FUZZ_RUNS:-100000}
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo +nightly fuzz build -s none --debug-assertions
# One target per core at a time (each is single-threaded); the summaries print in list order.
jobs=$(nproc 2>/dev/null || echo 1)
run_target() {
    local t=$1 start
    start=$(date +%s)
    if ! cargo +nightly fuzz run -s none --debug-assertions "$t" "$work/$t" "seeds/$t" -- \
        -runs="$runs" -rss_limit_mb=2048 -timeout=20 -max_len=65536 \
        -artifact_prefix="artifacts/$t/" >"$work/$t.log" 2>&1; then
        echo failed >"$work/$t.status"
    else
        echo "fuzz $t: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$work/$t.log" | tail -1) (wall $(( $(date +%s) - start )) s)" >"$work/$t.status"
    fi
}
targets=$(cargo +nightly fuzz list)
for t in $targets; do
    mkdir -p "$work/$t" "artifacts/$t"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n || true
    done
    run_target "$t" &
done
wait
failed=0
for t in $targets; do
    if [ "$(cat "$work/$t.status" 2>/dev/null)" = failed ] || [ ! -s "$work/$t.status" ]; then
        tail -n 60 "$work/$t.log"
        echo "fuzz target $t failed; the input is in fuzz/artifacts/$t/" >&2
        failed=1
    else
        cat "$work/$t.status"
    fi
done
exit "$failed"
