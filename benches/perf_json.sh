#!/usr/bin/env bash
# Issue 34 row 5: `json get` / `json select` on a ~25 MB JSON (benches/perf/gen_json.py:
# nesting, escapes, unicode, numbers as written, a secret member) against jq
# (goal: wall <= 1.0x jq, peak RSS <= 2x the file), and against another build (BASE).
# Every query is first checked to answer what jq answers (numbers compared by value:
# jq 1.6 prints doubles), then timed by benches/perf/ab.py (interleaved A/B, medians).
# Peak RSS: /usr/bin/time -f %M, median of 5.
#
#   benches/perf_json.sh                              BIN: target/release/aitools
#   BASE=/tmp/aitools-main MB=25 RUNS=15 benches/perf_json.sh
set -euo pipefail
cd "$(dirname "$0")/.."
HERE="$PWD"
if [ -z "${BIN:-}" ]; then cargo build --release -q; BIN="$PWD/target/release/aitools"; fi
RUNS="${RUNS:-15}"
MB="${MB:-25}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export XDG_STATE_HOME="$TMP/state"; mkdir -p -m 700 "$XDG_STATE_HOME"
AB() { python3 "$HERE/benches/perf/ab.py" "$@"; }
WS="$TMP/ws"; F=big.json
mkdir -p "$WS"; git -C "$WS" init -q
python3 "$HERE/benches/perf/gen_json.py" "$MB" "$WS/$F"
N=$(jq '.items | length' "$WS/$F")
MID=$((N / 2))
echo "file: $(stat -c %s "$WS/$F") bytes, $N items"
# name | aitools args | jq filter (jq's answer; for select the items' values)
ROWS=(
  "get mid|json get $F /items/$MID/name|.items[$MID].name"
  "get end|json get $F /tail/last|.tail.last"
  "get object|json get $F /meta|.meta"
  "select 50|json select $F /items --where /kind=red --limit 50|[.items[] | select(.kind == \"red\")][:50]"
  "select count|json select $F /items --where /kind=red --output count|[.items[] | select(.kind == \"red\")] | length"
)
same() { # BIN ARGS FILTER: the answer equals jq's
  (cd "$WS" && set +e; "$1" $2; true) > "$TMP/a.json"
  (cd "$WS" && jq -c "$3" "$F") > "$TMP/b.json"
  python3 - "$TMP/a.json" "$TMP/b.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]), parse_float=float, parse_int=float)
b = json.load(open(sys.argv[2]), parse_float=float, parse_int=float)
if a.get("mode") == "items":
    got = [i["value"] for i in a["items"]]
elif a.get("mode") == "count":
    got = a["count"]
else:
    got = a.get("value")
if a["command"] == "json get" and "password" in json.dumps(b):
    b = dict(b, password="[REDACTED_SECRET]")  # the masked member
if got != b:
    sys.exit("RESULTS DIFFER: %s vs jq %s" % (json.dumps(got)[:200], json.dumps(b)[:200]))
PY
}
rss() { # median peak RSS (KB) of 5 runs of a command in the workspace
  for _ in 1 2 3 4 5; do (cd "$WS" && /usr/bin/time -f %M -o "$TMP/rss" "$@" >/dev/null 2>&1 || true; tail -1 "$TMP/rss"); done |
    sort -n | sed -n 3p
}
for row in "${ROWS[@]}"; do
  IFS='|' read -r name args filter <<<"$row"
  for b in "$BIN" ${BASE:+"$BASE"}; do same "$b" "$args" "$filter"; done
  AB "$name: aitools / jq" "sh -c 'cd $WS && exec $BIN $args'" "sh -c 'cd $WS && exec jq -c '\''$filter'\'' $F'" \
    --runs "$RUNS" --allow-exit 3
  if [ -n "${BASE:-}" ]; then
    AB "$name: this build / base" "sh -c 'cd $WS && exec $BIN $args'" "sh -c 'cd $WS && exec $BASE $args'" \
      --runs "$RUNS" --allow-exit 3 --allow-exit 1
  fi
  echo "  peak RSS KB: aitools $(rss $BIN $args)${BASE:+, base $(rss $BASE $args)}, jq $(rss jq -c "$filter" $F), file $(( $(stat -c %s "$WS/$F") / 1024 ))"
done
