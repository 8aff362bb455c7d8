#!/usr/bin/env bash
# Issue 12, read/scan rows: aitools beside the shell tool it replaces. Each row
# first checks that both sides give the same result, then times them in one
# interleaved run (benches/perf/ab.py: A, B, A, B, ...; median wall and CPU).
# One entry point per row is in benches/perf/ (they call this script with a row).
#
#   benches/perf_read.sh [rows...]       rows: tail find overview search version small (default all)
#   BIN=/other/aitools BIG=/tmp/big CORPUS=/tmp/c BIG_FILES=f165.log RUNS=10 benches/perf_read.sh find
#
# Rows: tail: read --tail 20 on a 165 MB and a ~1 GB file (first read: a fresh
# state dir, vs sha256sum; repeat read: warm hash cache, vs tail -n 20); find:
# find --type file vs rg --files (16k-file corpus); overview: overview vs rg
# --files; search: search listing every block vs rg --json -C2 (+ peak RSS);
# version: --version vs rg --version (RUNS x 30, and hyperfine -N when present);
# small: read of a 60-line file vs cat (RUNS x 30, and hyperfine -N when present).
# Needs rg, python3, sha256sum (hyperfine optional). The big files and the corpus
# are generated (never committed); set BIG/CORPUS to reuse ones made before.
set -euo pipefail
cd "$(dirname "$0")/.."
HERE="$PWD"
if [ -z "${BIN:-}" ]; then cargo build --release -q; BIN="$PWD/target/release/aitools"; fi
RUNS="${RUNS:-10}"
ROWS="${*:-tail find overview search version small}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export XDG_STATE_HOME="$TMP/state"; mkdir -p -m 700 "$XDG_STATE_HOME"
AB() { python3 "$HERE/benches/perf/ab.py" "$@"; }
same() { if [ "$1" != "$2" ]; then echo "RESULTS DIFFER: $3" >&2; exit 1; fi; }

corpus() {
  CORPUS="${CORPUS:-$TMP/corpus}"
  [ -d "$CORPUS" ] || python3 /work/shared/bench/make-corpus.py "$CORPUS" --files 16000 --mb 40 >/dev/null
}

big() {
  BIG="${BIG:-$TMP/big}"
  [ -f "$BIG/f1g.log" ] && return
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
}

row_tail() { # issue 12 row 1
  big
  for f in ${BIG_FILES:-f165.log f1g.log}; do
    local p="$BIG/$f" got h
    got=$(cd "$BIG" && "$BIN" read "$f" --tail 20 | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["lines"]))')
    same "$got" "$(tail -n 20 "$p")" "read --tail 20 $f"
    AB "read --tail 20 $f first/sha256sum" "sh -c 'cd $BIG && $BIN read $f --tail 20'" "sha256sum $p" \
      --runs "$RUNS" --prepare "rm -rf $XDG_STATE_HOME/aitools"
    (cd "$BIG" && "$BIN" info "$f" >/dev/null)   # the continuation a hash-null answer names
    h=$(cd "$BIG" && "$BIN" read "$f" --tail 20 | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
    # read's hash is a prefix of the SHA-256 (12 hex digits, as read's schema says).
    same "${#h}" 12 "cached hash length $f"
    same "$h" "$(sha256sum "$p" | cut -c1-12)" "cached hash $f"
    AB "read --tail 20 $f repeat/tail" "$BIN read $p --tail 20" "tail -n 20 $p" --runs "$RUNS"
  done
}

# The files both list, sorted, one per line.
rg_files() { rg --files --hidden -g '!.git' | LC_ALL=C sort; }
find_files() {
  "$BIN" find --type file --limit 1000000 |
    python3 -c 'import json,sys; print("\n".join(sorted(i if isinstance(i, str) else i["path"] for i in json.load(sys.stdin)["items"])))' |
    LC_ALL=C sort
}

row_find() { # issue 12 row 6
  corpus; cd "$CORPUS"
  same "$(find_files)" "$(rg_files)" "find --type file file list"
  # find's default --limit 50 answers partial (exit 3), as an agent's call does.
  AB "find --type file / rg --files" "$BIN find --type file" "rg --files --hidden -g !.git" --runs "$RUNS" --allow-exit 3
  cd "$HERE"
}

row_overview() { # issue 12 row 7
  corpus; cd "$CORPUS"
  # overview sees the files rg lists: find's list is rg's, and each language's
  # file count is what find --lang lists.
  same "$(find_files)" "$(rg_files)" "find --type file file list"
  local l n
  "$BIN" overview --limit 1000 | python3 -c 'import json,sys; [print(l["lang"], l["files"]) for l in json.load(sys.stdin)["languages"]]' |
    while read -r l n; do
      same "$n" "$("$BIN" find --type file --lang "$l" --limit 0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')" "overview files of $l"
    done
  AB "overview / rg --files" "$BIN overview" "rg --files --hidden -g !.git" --runs "$RUNS"
  cd "$HERE"
}

row_search() { # issue 12 row 9
  corpus; cd "$CORPUS"
  same "$("$BIN" search ERR_TIMEOUT --limit 1000000 | python3 -c 'import json,sys; print(json.load(sys.stdin)["total_matches"])')" \
       "$(rg -c ERR_TIMEOUT | awk -F: '{s+=$NF} END {print s}')" "search count"
  AB "search all blocks / rg --json -C2" "$BIN search ERR_TIMEOUT --limit 1000000" "rg --json -C2 ERR_TIMEOUT" --runs "$RUNS"
  local ra rb
  ra=$(/usr/bin/time -f %M "$BIN" search ERR_TIMEOUT --limit 1000000 2>&1 >/dev/null | tail -1)
  rb=$(/usr/bin/time -f %M rg --json -C2 ERR_TIMEOUT 2>&1 >/dev/null | tail -1)
  printf '%-36s aitools %9s KiB ref %9s KiB ratio %s\n' "search all blocks peak RSS" "$ra" "$rb" \
    "$(python3 -c "print('%.2f' % ($ra / $rb))")"
  cd "$HERE"
}

row_version() { # issue 12 row 10
  # Each side prints its own version: aitools the one in Cargo.toml.
  same "$("$BIN" --version | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["version"])')" \
       "ok $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)" "--version answers"
  rg --version >/dev/null
  AB "--version / rg --version" "$BIN --version" "rg --version" --runs $((RUNS * 30)) --warmup 20
  if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 20 --runs $((RUNS * 30)) --export-json "$TMP/v.json" "$BIN --version" "rg --version" >/dev/null
    python3 - "$TMP/v.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
a, b = r[0]["median"], r[1]["median"]
print(f"{'--version (hyperfine -N, not interleaved)':36} aitools {a*1e3:9.2f} ms  ref {b*1e3:9.2f} ms  ratio {a/b:.2f}")
PY
  fi
}

row_small() { # start-up of a workspace command: read a 60-line file vs cat
  local ws="$TMP/small"
  mkdir -p "$ws"; git -C "$ws" init -q
  python3 -c 'import sys; sys.stdout.write("".join("line %02d of a small file, some words to read\n" % i for i in range(60)))' > "$ws/small.txt"
  same "$(cd "$ws" && "$BIN" read small.txt | python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["lines"]))')" \
       "$(cat "$ws/small.txt")" "read small.txt lines"
  cd "$ws"
  AB "read small.txt / cat" "$BIN read small.txt" "cat small.txt" --runs $((RUNS * 30)) --warmup 20
  if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 20 --runs $((RUNS * 30)) --export-json "$TMP/s.json" \
      "$BIN read small.txt" "cat small.txt" >/dev/null
    python3 - "$TMP/s.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
a, b = r[0]["median"], r[1]["median"]
print(f"{'read small.txt (hyperfine -N)':36} aitools {a*1e3:9.2f} ms  ref {b*1e3:9.2f} ms  ratio {a/b:.2f}")
PY
  fi
  cd "$HERE"
}

for r in $ROWS; do "row_$r"; done
