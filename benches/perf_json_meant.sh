#!/usr/bin/env bash
# Issue 32: `json select FILE --where ...` without the array's pointer, on a ~50 MB
# JSON of 150k elements (750k values, under the whole parse's budget): wall
# (hyperfine) and peak RSS (/usr/bin/time -f %M) of BIN against BASE, answers
# compared byte for byte first.
#
#   BIN=target/debug/aitools BASE=/tmp/aitools-main benches/perf_json_meant.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="$(realpath "${BIN:-target/release/aitools}")"
BASE="$(realpath "${BASE:?BASE=path of the aitools build to compare with}")"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export XDG_STATE_HOME="$TMP/state"; mkdir -p -m 700 "$XDG_STATE_HOME"
cd "$TMP"; git init -q
python3 - <<'PY'
import json, random
rnd = random.Random(5)
users = [{"id": i, "name": f"user{i}", "admin": rnd.random() < 0.1, "bio": "x" * 290} for i in range(150000)]
json.dump({"version": 2, "regions": ["eu", "us"], "users": users}, open("big.json", "w"))
PY
echo "file: $(stat -c %s big.json) bytes"
ARGS="json select big.json --where /admin==true --pick /id --limit 3"
# The answers' shapes may differ between versions: the chosen array and total must not.
for b in "$BASE" "$BIN"; do
  $b $ARGS | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("took"), d.get("total"))' || true
done
hyperfine -N -i -w 1 -r "${RUNS:-5}" "$BASE $ARGS" "$BIN $ARGS"
for b in "$BASE" "$BIN"; do
  for _ in 1 2 3; do /usr/bin/time -f %M "$b" $ARGS 2>&1 >/dev/null | tail -1; done | sort -n | sed -n 2p | sed "s|^|$b peak RSS KB (median of 3): |"
done
