#!/usr/bin/env bash
# Short fuzz run for CI: each target for $FUZZ_RUNS executions (default 100000) starting from its
# committed seeds, with debug assertions on (so integer overflow is a crash, as in debug builds).
# New inputs go to a temporary corpus, never into the repository; a crash is kept in
# fuzz/artifacts/<target>/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")"
runs=${FUZZ_RUNS:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo +nightly fuzz build --debug-assertions
for t in $(cargo +nightly fuzz list); do
    mkdir -p "$work/$t" "artifacts/$t"
    start=$(date +%s)
    if ! cargo +nightly fuzz run --debug-assertions "$t" "$work/$t" "seeds/$t" -- \
        -runs="$runs" -rss_limit_mb=4096 -timeout=20 -max_len=65536 \
        -artifact_prefix="artifacts/$t/" >"$work/$t.log" 2>&1; then
        tail -n 60 "$work/$t.log"
        echo "fuzz target $t failed; the input is in fuzz/artifacts/$t/" >&2
        exit 1
    fi
    echo "fuzz $t: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$work/$t.log" | tail -1) (wall $(( $(date +%s) - start )) s)"
done
