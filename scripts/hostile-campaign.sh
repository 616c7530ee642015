#!/usr/bin/env bash
# A compact hostile-user campaign against numasim's output policy: every writing command aimed at
# every kind of file a user owns (inputs, a directory of their own files, FIFOs standing in for
# devices, symbolic links, another run's results, a sweep root's manifest, `./d/../d` paths),
# then signals at random moments and concurrent writers. Afterwards every protected object must be
# unchanged: same type, same inode, same bytes (or same link target), and no temporary or partial
# file may be left behind.
#
#   scripts/hostile-campaign.sh [ROUNDS]      # NUMASIM=path/to/numasim to use a given build
#
# Prints one line of figures and exits 1 if anything was replaced, panicked or left behind.
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-10}
BIN=${NUMASIM:-$PWD/target/debug/numasim}
if [[ ! -x "$BIN" ]]; then
    cargo build -q -p numasim-cli || exit 1
fi
BIN=$(realpath "$BIN")
W=$(mktemp -d)
readers=()
cleanup() {
    for p in "${readers[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$W"
}
trap cleanup EXIT
cd "$W"

# --- The user's things -------------------------------------------------------------------------
mkdir -p in mine fifo link
cat > in/e.toml <<'EOF'
machine = "two-socket"
seed = 1
phase_instructions = 20000
[workload]
kind = "synthetic"
threads = 2
pattern = "uniform"
accesses_per_thread = 3000
EOF
sed 's/accesses_per_thread = 3000/accesses_per_thread = 400000/' in/e.toml > in/long.toml
printf 'base = "e.toml"\n[grid]\nseed = [1, 2]\n' > in/s.toml
"$BIN" trace record in/e.toml -o in/t.nsim >/dev/null 2>&1 || { echo "setup: trace record failed"; exit 1; }
"$BIN" trace convert --from native in/t.nsim --to starnuma -o in/sn >/dev/null 2>&1 || { echo "setup: export failed"; exit 1; }
"$BIN" run in/e.toml -o runA -q >/dev/null 2>&1 || { echo "setup: run failed"; exit 1; }
"$BIN" sweep in/s.toml -o root >/dev/null 2>&1 || { echo "setup: sweep failed"; exit 1; }
echo "my notes" > mine/notes.txt
echo '{"schema_version": 1}' > mine/results.json
echo '{"axes": [], "runs": {}}' > mine/sweep.json
mkdir mine/configs && echo "x = 1" > mine/configs/a.toml
echo "mine" > mine/comparison.csv
echo "target" > link/target.txt
mkfifo fifo/dev fifo/pipe.csv fifo/pipe.html
ln -s target.txt link/to-file
ln -s ../mine link/to-dir
ln -s nothing-here link/dangling
ln -s ../in/e.toml link/to-input
# Readers keep the FIFOs open, as a device would be, so a direct write never blocks.
for f in fifo/dev fifo/pipe.csv fifo/pipe.html; do
    (while :; do cat "$f" >/dev/null; done) &
    readers+=($!)
done

snapshot() {
    find in mine fifo link runA root -mindepth 0 \( -name '.numasim-*' -o -name '*.log' \) -prune -o -print 2>/dev/null |
        LC_ALL=C sort | while read -r p; do
        if [[ -L "$p" ]]; then
            echo "$p link $(readlink "$p")"
        elif [[ -p "$p" ]]; then
            echo "$p fifo $(stat -c %i "$p")"
        elif [[ "$p" == link/target.txt ]]; then
            echo "$p file (written through link/to-file)"
        elif [[ -d "$p" ]]; then
            echo "$p dir $(stat -c %i "$p")"
        else
            echo "$p file $(stat -c %i "$p") $(sha256sum < "$p" | cut -c1-16)"
        fi
    done
}
# runA's and root's contents are numasim's own, but no command below may replace them.
snapshot > "$W/before.txt"

# --- Every writer at every target ---------------------------------------------------------------
# Never to be replaced by any writer: the user's directories (also reached through `..` and a
# link), FIFOs, links (a followed link's target file may be written, the link must stay), other
# runs' results and a sweep root's files.
everywhere=(mine ./mine/../mine mine/configs fifo/dev fifo/pipe.csv link/to-file link/to-dir link/dangling
    runA/results.json ./runA/../runA/results.json runA/phases.csv root/sweep.json "root/$(ls root | head -1)/results.json"
    in/sn/memtrace_t0.out)
invocations=0 refused=0 panics=0
try() { # args...: one bounded invocation
    invocations=$((invocations + 1))
    local err rc
    err=$(timeout 60 "$BIN" "$@" 2>&1 >/dev/null)
    rc=$?
    [[ $rc -ne 0 ]] && refused=$((refused + 1))
    if [[ "$err" == *panicked* || $rc -eq 101 ]]; then
        panics=$((panics + 1))
        echo "PANIC ($rc): numasim $*: $err" >&2
    fi
}
sn=(in/sn/memtrace_t*.out)
for t in "${everywhere[@]}"; do
    try report runA -o "$t"
    try plot runA --figure amat -o "$t"
    try sweep collect root -o "$t"
    try trace convert --from native in/t.nsim -o "$t"
    try trace convert --from native in/t.nsim --to starnuma -o "$t"
    try trace convert --from starnuma "${sn[@]}" -o "$t"
    try trace record in/e.toml -o "$t"
    try run in/e.toml -q -o "$t"
    try run in/e.toml -q --force -o "$t"
    try sweep in/s.toml -o "$t"
    try sweep in/s.toml -o "$t" --dry-run
done
# Directories numasim made, by the writers that must not take them over.
for t in runA ./runA/../runA root; do
    try trace convert --from native in/t.nsim --to starnuma -o "$t"
    try run in/e.toml -q -o "$t"
done
try run in/e.toml -q --force -o root
try sweep in/s.toml -o runA
# Each command's own inputs, and directories holding them.
for t in in/t.nsim ./in/../in/t.nsim; do
    try trace convert --from native in/t.nsim -o "$t"
done
try trace convert --from native in/t.nsim --to starnuma -o in
try trace convert --from native in/t.nsim --to starnuma -o ./in/../in
try trace convert --from starnuma "${sn[@]}" --to starnuma -o in/sn
try trace convert --from starnuma "${sn[@]}" -o "${sn[1]}"
try trace record in/e.toml -o in/e.toml
try trace record link/to-input -o in/e.toml
try trace record in/e.toml -o link/to-input
try run in/e.toml -q --force -o in
try run link/to-input -q --force -o ./in/../in
try sweep in/s.toml -o in
try sweep in/s.toml -o in/s.toml
try report runA -o runA/results.json
try sweep collect root -o root/sweep.json

# --- Signals at random moments: nothing partial or temporary stays ------------------------------
mkdir -p sig conc
signals=0
for ((i = 0; i < ROUNDS; i++)); do
    for sig in INT TERM HUP; do
        "$BIN" run in/long.toml -q --force -o "sig/run" >/dev/null 2>&1 &
        pid=$!
        sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
        kill -s "$sig" "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        "$BIN" report runA -o "sig/report.html" >/dev/null 2>&1 &
        pid=$!
        sleep "0.0$((RANDOM % 10))"
        kill -s "$sig" "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        signals=$((signals + 2))
    done
done 2>/dev/null

# --- Concurrent writers: three runs into one directory, three reports onto one file -------------
for ((i = 0; i < ROUNDS; i++)); do
    pids=()
    for k in 1 2 3; do
        "$BIN" run in/e.toml -q --force -o conc/run >/dev/null 2>&1 &
        pids+=($!)
        "$BIN" report runA -o conc/report.html >/dev/null 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}" 2>/dev/null
done
concurrent_ok=1
[[ -f conc/run/results.json ]] && jq -e .schema_version conc/run/results.json >/dev/null 2>&1 || concurrent_ok=0
grep -q '</html>' conc/report.html 2>/dev/null || concurrent_ok=0

# --- Verdict ------------------------------------------------------------------------------------
snapshot > "$W/after.txt"
changed=$(diff "$W/before.txt" "$W/after.txt" | grep -c '^[<>]')
left=$(find . \( -name '*.partial-*' -o -name '.*.tmp-*' -o -name '*.old-*' \) -print | wc -l)
protected=$(wc -l < "$W/before.txt")
echo "hostile campaign: $invocations writer invocations ($refused refused), $signals signals, $((ROUNDS * 6)) concurrent writers; $protected protected objects, $changed lines changed, $panics panics, $left temporary or partial files left, concurrent results complete: $([[ $concurrent_ok == 1 ]] && echo yes || echo no)"
if [[ $changed -ne 0 ]]; then
    diff "$W/before.txt" "$W/after.txt" | grep '^[<>]' | head -40
fi
[[ $changed -eq 0 && $panics -eq 0 && $left -eq 0 && $concurrent_ok -eq 1 ]]
