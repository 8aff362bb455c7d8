#!/usr/bin/env bash
# Issue 12, read/scan rows: aitools side by side with the shell tool in one
# hyperfine run per row (interleaved by hyperfine's order, medians), results
# checked identical first. Prints one ratio per row (aitools / reference).
#
#   benches/perf_read.sh                 # builds --release, corpus under $TMPDIR
#   BIN=/other/aitools BIG=/tmp/big CORPUS=/tmp/c BIG_FILES=f165.log RUNS=10 benches/perf_read.sh
#
# Rows: read --tail 20 on a 165 MB and a ~1 GB file (first read: a fresh state
# dir, vs sha256sum; repeat read: warm hash cache, vs tail -n 20 and in ms);
# find --type file and overview vs rg --files (16k-file corpus); search
# listing every block vs rg --json -C2 (+ peak RSS); --version vs rg --version.
# Needs rg, hyperfine, python3, sha256sum. The big files and the corpus are
# generated (never committed); set BIG/CORPUS to reuse ones made before.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then cargo build --release -q; BIN="$PWD/target/release/aitools"; fi
RUNS="${RUNS:-10}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
CORPUS="${CORPUS:-$TMP/corpus}"
[ -d "$CORPUS" ] || python3 /work/shared/bench/make-corpus.py "$CORPUS" --files 16000 --mb 40 >/dev/null
BIG="${BIG:-$TMP/big}"
if [ ! -f "$BIG/f1g.log" ]; then
  mkdir -p "$BIG"; git -C "$BIG" init -q
  python3 - "$BIG" <<'PY'
import random, sys
r = random.Random(1)
ws = "let fn struct impl match return self value result error config path".split()
with open(sys.argv[1] + "/f165.log", "w") as f:
    n = 0
    while n < 165_000_000:
        l = " ".join(r.choice(ws) for _ in range(r.randint(1, 14))) + "\n"
        f.write(l); n += len(l)
PY
  for _ in 1 2 3 4 5 6; do cat "$BIG/f165.log"; done | head -c 990000000 > "$BIG/f1g.log"
  echo >> "$BIG/f1g.log"
  sleep 4 # older than the hash cache's racy-clean window
fi
export XDG_STATE_HOME="$TMP/state"; mkdir -p -m 700 "$XDG_STATE_HOME"

median() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"])' "$1" "$2"; }
ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }
ms() { python3 -c 'import sys; print("%.1f" % (float(sys.argv[1]) * 1000))' "$1"; }
row() { # name, aitools command, reference command [, extra hyperfine args]
  local name="$1" a="$2" b="$3"; shift 3
  hyperfine -N -i -w 2 -r "$RUNS" "$@" --export-json "$TMP/h.json" "$a" "$b" >/dev/null 2>&1 ||
    hyperfine -i -w 2 -r "$RUNS" "$@" --export-json "$TMP/h.json" "$a" "$b" >/dev/null
  local ta tb; ta=$(median "$TMP/h.json" 0); tb=$(median "$TMP/h.json" 1)
  printf '%-34s aitools %9s ms  ref %9s ms  ratio %s\n' "$name" "$(ms "$ta")" "$(ms "$tb")" "$(ratio "$ta" "$tb")"
}
same() { if [ "$1" != "$2" ]; then echo "RESULTS DIFFER: $3" >&2; exit 1; fi; }

# 1. read --tail 20
for f in ${BIG_FILES:-f165.log f1g.log}; do
  p="$BIG/$f"
  got=$(cd "$BIG" && "$BIN" read "$f" --tail 20 | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["lines"]))')
  same "$got" "$(tail -n 20 "$p")" "read --tail 20 $f"
  rm -rf "$XDG_STATE_HOME/aitools"
  row "read --tail 20 $f first/sha256sum" "sh -c 'rm -rf $XDG_STATE_HOME/aitools; cd $BIG && $BIN read $f --tail 20 >/dev/null'" "sh -c 'sha256sum $p >/dev/null'"
  (cd "$BIG" && "$BIN" info "$f" >/dev/null)   # the continuation a hash-null answer names
  h=$(cd "$BIG" && "$BIN" read "$f" --tail 20 | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
  same "$h" "$(sha256sum "$p" | cut -d' ' -f1)" "cached hash $f"
  row "read --tail 20 $f repeat/tail" "$BIN read $p --tail 20" "tail -n 20 $p"
done

# 2-3. find and overview vs rg --files
cd "$CORPUS"
same "$("$BIN" find --type file --limit 1000000 | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')" \
     "$(rg --files --hidden -g '!.git' | wc -l)" "find --type file count"
row "find --type file / rg --files" "$BIN find --type file" "rg --files --hidden -g !.git"
row "overview / rg --files" "$BIN overview" "rg --files --hidden -g !.git"

# 4. search listing every block vs rg --json -C2
same "$("$BIN" search ERR_TIMEOUT --limit 1000000 | python3 -c 'import json,sys; print(json.load(sys.stdin)["total_matches"])')" \
     "$(rg -c ERR_TIMEOUT | awk -F: '{s+=$NF} END {print s}')" "search count"
row "search all blocks / rg --json -C2" "$BIN search ERR_TIMEOUT --limit 1000000" "rg --json -C2 ERR_TIMEOUT"
ra=$(/usr/bin/time -f %M "$BIN" search ERR_TIMEOUT --limit 1000000 2>&1 >/dev/null | tail -1)
rb=$(/usr/bin/time -f %M rg --json -C2 ERR_TIMEOUT 2>&1 >/dev/null | tail -1)
printf '%-34s aitools %9s KiB ref %9s KiB ratio %s\n' "search all blocks peak RSS" "$ra" "$rb" "$(ratio "$ra" "$rb")"

# 5. --version
RUNS=$((RUNS * 10)) row "--version / rg --version" "$BIN --version" "rg --version"
