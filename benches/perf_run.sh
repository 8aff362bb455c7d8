#!/usr/bin/env bash
# Issue 34 row 5, `run -- true` against the program alone (goal: <= +2 ms), and
# against another build (BASE). Both sides must exit 0 (ab.py refuses a failing
# side); the answer is checked to say exit_code 0 first. Interleaved A/B medians of
# wall and CPU (user+sys of the process and what it waited for) through
# benches/perf/ab.py.
#
#   benches/perf_run.sh                           BIN: target/release/aitools
#   BIN=target/debug/aitools BASE=/tmp/aitools-main RUNS=200 benches/perf_run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then cargo build --release -q; BIN="$PWD/target/release/aitools"; fi
RUNS="${RUNS:-200}"
WARMUP="${WARMUP:-20}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export XDG_STATE_HOME="$TMP/state"; mkdir -p -m 700 "$XDG_STATE_HOME"
for b in "$BIN" ${BASE:-}; do
  "$b" run -- true | python3 -c 'import json,sys; a=json.load(sys.stdin); assert a["exit_code"]==0, a'
done
python3 benches/perf/ab.py "run -- true vs true" "$BIN run -- true" "true" --runs "$RUNS" --warmup "$WARMUP"
if [ -n "${BASE:-}" ]; then
  python3 benches/perf/ab.py "run -- true vs BASE" "$BIN run -- true" "$BASE run -- true" \
    --runs "$RUNS" --warmup "$WARMUP"
fi
