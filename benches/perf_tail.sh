#!/usr/bin/env bash
# Issue 34 row 1: `read F --tail 20` of a 165 MB, ~2M-line file in a fresh
# workspace, against `tail -n 20 F` (goal: <= 2x, first and repeated, with or
# without a cache) and against another build (BASE, e.g. main's binary).
# Rows, each interleaved A/B by benches/perf/ab.py after an identical-lines check:
#   cold:   a fresh state dir before every run (no cache at all)
#   repeat: the state dir kept, nothing cached for the file (no `info` yet)
#   warm:   after `aitools info F` (the continuation a null total_lines names),
#           which caches the line count and hash
#
#   benches/perf_tail.sh                          BIN: target/release/aitools
#   BASE=/tmp/aitools-main RUNS=20 benches/perf_tail.sh
set -euo pipefail
cd "$(dirname "$0")/.."
HERE="$PWD"
if [ -z "${BIN:-}" ]; then cargo build --release -q; BIN="$PWD/target/release/aitools"; fi
RUNS="${RUNS:-20}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export XDG_STATE_HOME="$TMP/state"; mkdir -p -m 700 "$XDG_STATE_HOME"
AB() { python3 "$HERE/benches/perf/ab.py" "$@"; }
WS="$TMP/ws"; F=big.txt
mkdir -p "$WS"; git -C "$WS" init -q
python3 - "$WS/$F" <<'PY'
import random, sys
r = random.Random(1)
ws = "let fn struct impl match return self value result error config path".split()
with open(sys.argv[1], "w") as f:
    for i in range(2_000_000):
        f.write("%07d " % i + " ".join(r.choice(ws) for _ in range(r.randint(8, 18))) + "\n")
PY
sleep 4 # older than the hash cache's racy-clean window
echo "file: $(stat -c %s "$WS/$F") bytes, $(wc -l < "$WS/$F") lines"
lines() { (cd "$WS" && "$1" read "$F" --tail 20) | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["lines"]))'; }
check() {
  if [ "$(lines "$1")" != "$(tail -n 20 "$WS/$F")" ]; then echo "RESULTS DIFFER: $1" >&2; exit 1; fi
}
READ() { echo "sh -c 'cd $WS && exec $1 read $F --tail 20'"; }
TAIL="sh -c 'cd $WS && exec tail -n 20 $F'"
COLD="rm -rf $XDG_STATE_HOME/aitools"
for b in "$BIN" ${BASE:+"$BASE"}; do check "$b"; done
AB "cold: read --tail 20 / tail -n 20" "$(READ "$BIN")" "$TAIL" --runs "$RUNS" --prepare "$COLD"
AB "repeat: read --tail 20 / tail -n 20" "$(READ "$BIN")" "$TAIL" --runs "$RUNS"
if [ -n "${BASE:-}" ]; then
  AB "cold: base / this build" "$(READ "$BASE")" "$(READ "$BIN")" --runs "$RUNS" --prepare "$COLD"
  AB "repeat: base / this build" "$(READ "$BASE")" "$(READ "$BIN")" --runs "$RUNS"
fi
(cd "$WS" && "$BIN" info "$F" >/dev/null)
check "$BIN"
total=$( (cd "$WS" && "$BIN" read "$F" --tail 20) | python3 -c 'import json,sys; print(json.load(sys.stdin)["total_lines"])')
if [ "$total" != 2000000 ]; then echo "warm total_lines: $total" >&2; exit 1; fi
AB "warm: read --tail 20 / tail -n 20" "$(READ "$BIN")" "$TAIL" --runs "$RUNS"
if command -v hyperfine >/dev/null; then
  # The same three sides by hyperfine (-N: no shell), cold then warm.
  cd "$WS"
  cmds=("tail -n 20 $F" "$BIN read $F --tail 20")
  [ -n "${BASE:-}" ] && cmds+=("$BASE read $F --tail 20")
  rm -rf "$XDG_STATE_HOME/aitools"
  hyperfine -N --warmup 3 --runs "$RUNS" --prepare "$COLD" "${cmds[@]}"
  "$BIN" info "$F" >/dev/null
  [ -n "${BASE:-}" ] && "$BASE" read "$F" --tail 20 >/dev/null
  hyperfine -N --warmup 3 --runs "$RUNS" "${cmds[@]}"
fi
