#!/usr/bin/env bash
# Issue 34 row 3: monorepo scale. A 100,000-file, ~2 GB tree
# (/work/shared/bench/make-corpus.py --files 100000 --mb 2000, plus four small
# files defining `monorepo_needle` in Rust, Python, Go and TypeScript and one
# calling it), each aitools call beside the rg call it replaces. Every row first
# checks both sides give the same result, then times them interleaved
# (benches/perf/ab.py: A, B, A, B, ..., median wall and CPU), then takes each
# side's peak RSS (median of 3 runs of /usr/bin/time -f %M). Then the journal
# part: benches/perf/journal_ops.py (history, undo, gc at 100,000 ops).
#
#   benches/perf_monorepo.sh BIN [rows...]
#   rows: search-rare search-all find overview defs journal (default all)
#   CORPUS=/tmp/mono RUNS=5 KEEP=1 benches/perf_monorepo.sh target/release/aitools find
#
# The corpus is made under $TMPDIR (or reused from CORPUS) and deleted at the end
# unless KEEP=1 or CORPUS was given; it needs ~3 GB, and the script refuses to
# start with less than 23 GB free (20 GB must stay free). Making it takes ~15
# minutes on one core. The tree is what make-corpus.py leaves: a git repository
# with nothing committed (every file untracked; build/ and *.log ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
HERE="$PWD"
BIN="$(realpath "${1:?usage: benches/perf_monorepo.sh BIN [rows...]}")"
shift
RUNS="${RUNS:-5}"
ROWS="${*:-search-rare search-all find overview defs journal}"
TMP="$(mktemp -d)"
OWN_CORPUS=0
if [ -z "${CORPUS:-}" ]; then CORPUS="$TMP/corpus"; OWN_CORPUS=1; fi
cleanup() {
  if [ "$OWN_CORPUS" = 1 ] && [ -n "${KEEP:-}" ]; then rm -rf "$TMP/state"; echo "corpus kept: $CORPUS"
  else rm -rf "$TMP"; fi
}
trap cleanup EXIT
export XDG_STATE_HOME="$TMP/state"; mkdir -p -m 700 "$XDG_STATE_HOME"
AB() { python3 "$HERE/benches/perf/ab.py" "$@"; }
same() { if [ "$1" != "$2" ]; then echo "RESULTS DIFFER: $3" >&2; diff <(echo "$1") <(echo "$2") | head -5 >&2; exit 1; fi; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); $1"; }
rss() { # median peak RSS (KiB) of 3 runs of a command
  for _ in 1 2 3; do { /usr/bin/time -f %M "$@" 2>&1 >/dev/null || true; } | tail -1; done | sort -n | sed -n 2p
}
rss_row() { # NAME, then the aitools command, --, the reference command
  local name="$1" a=() b=(); shift
  while [ "$1" != "--" ]; do a+=("$1"); shift; done; shift; b=("$@")
  local ra rb
  ra=$(rss "${a[@]}"); rb=$(rss "${b[@]}")
  printf '%-36s aitools %9s KiB  ref %9s KiB  ratio %s\n' "$name peak RSS" "$ra" "$rb" \
    "$(python3 -c "print('%.2f' % ($ra / $rb))")"
}

corpus() {
  if [ ! -d "$CORPUS/src" ]; then
    local free
    free=$(df --output=avail -k "$(dirname "$CORPUS")" | tail -1)
    if [ "$free" -lt $((23 * 1024 * 1024)) ]; then echo "less than 23 GB free: not making the corpus" >&2; exit 1; fi
    echo "making the corpus in $CORPUS (~15 min)"
    python3 /work/shared/bench/make-corpus.py "$CORPUS" --files 100000 --mb 2000 >/dev/null
  fi
  mkdir -p "$CORPUS/src/needle"
  printf 'pub fn monorepo_needle() -> u32 {\n    7\n}\n' > "$CORPUS/src/needle/a.rs"
  printf 'def monorepo_needle():\n    return 7\n' > "$CORPUS/src/needle/b.py"
  printf 'package needle\n\nfunc monorepo_needle() int {\n\treturn 7\n}\n' > "$CORPUS/src/needle/c.go"
  printf 'export function monorepo_needle(): number {\n  return 7;\n}\n' > "$CORPUS/src/needle/d.ts"
  printf 'fn caller() -> u32 {\n    monorepo_needle()\n}\n' > "$CORPUS/src/needle/use.rs"
  echo "corpus: $(find "$CORPUS" -path "$CORPUS/.git" -prune -o -type f -print | wc -l) files," \
    "$(du -sm --exclude=.git "$CORPUS" | cut -f1) MB; load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# The files both list, sorted, one per line.
rg_files() { rg --files --hidden -g '!.git' | LC_ALL=C sort; }
find_files() {
  # items are paths (schema 9; objects before it)
  "$BIN" find --type file --limit 1000000 | json 'print("\n".join(i if isinstance(i, str) else i["path"] for i in d["items"]))' | LC_ALL=C sort
}
# path:count of every file with a match (ours: --output count; rg -c).
our_counts() { "$BIN" search "$1" --output count --limit 1000000 --scan-timeout 120s | json 'print("\n".join("%s:%d" % (c["path"], c["count"]) for c in d["counts"]))' | LC_ALL=C sort; }
rg_counts() { rg -c "$1" | LC_ALL=C sort; }

row_search-rare() { # a needle in a handful of lines: the whole tree is read, the answer is small
  cd "$CORPUS"
  same "$(our_counts zebra-quasar)" "$(rg_counts zebra-quasar)" "search zebra-quasar counts"
  # 351 lines here: the default --limit cuts the blocks shown (exit 3), after a
  # scan of the whole tree (no scan budget cut it), as an agent's call does.
  same "$("$BIN" search zebra-quasar | json 'print(d.get("scan_cut"), d["total_matches"])')" \
       "None $(rg -c zebra-quasar | awk -F: '{s+=$NF} END {print s}')" "search zebra-quasar scans the whole tree"
  AB "search rare / rg" "$BIN search zebra-quasar" "rg zebra-quasar" --runs "$RUNS" --warmup 1 --allow-exit 3
  rss_row "search rare" "$BIN" search zebra-quasar -- rg zebra-quasar
  cd "$HERE"
}

row_search-all() { # ~1 line in 2,000: every block, with context (issue 12 row 9 at this scale)
  cd "$CORPUS"
  same "$(our_counts ERR_TIMEOUT)" "$(rg_counts ERR_TIMEOUT)" "search ERR_TIMEOUT counts"
  AB "search all blocks / rg --json -C2" "$BIN search ERR_TIMEOUT --limit 1000000" "rg --json -C2 ERR_TIMEOUT" \
    --runs "$RUNS" --warmup 1
  rss_row "search all blocks" "$BIN" search ERR_TIMEOUT --limit 1000000 -- rg --json -C2 ERR_TIMEOUT
  cd "$HERE"
}

row_find() {
  cd "$CORPUS"
  same "$(find_files)" "$(rg_files)" "find --type file file list"
  # find's default --limit 50 answers partial (exit 3), as an agent's call does.
  AB "find --type file / rg --files" "$BIN find --type file" "rg --files --hidden -g !.git" \
    --runs "$RUNS" --warmup 1 --allow-exit 3
  rss_row "find --type file" "$BIN" find --type file -- rg --files --hidden -g '!.git'
  cd "$HERE"
}

row_overview() {
  cd "$CORPUS"
  same "$(find_files)" "$(rg_files)" "find --type file file list"
  local l n
  "$BIN" overview --limit 1000 | json '[print(l["lang"], l["files"]) for l in d["languages"]]' |
    while read -r l n; do
      same "$n" "$("$BIN" find --type file --lang "$l" --limit 0 | json 'print(d["total"])')" "overview files of $l"
    done
  AB "overview / rg --files" "$BIN overview" "rg --files --hidden -g !.git" --runs "$RUNS" --warmup 1
  rss_row "overview" "$BIN" overview -- rg --files --hidden -g '!.git'
  cd "$HERE"
}

row_defs() {
  cd "$CORPUS"
  # The definitions code defs finds are rg -w's lines that define the name.
  same "$("$BIN" code defs monorepo_needle | json 'assert d["status"] == "ok", d; print("\n".join("%s:%d" % (x["path"], x["line"]) for x in d["defs"]))' | LC_ALL=C sort)" \
       "$(rg -w -n monorepo_needle | grep -E ':(pub fn|def|func|export function) monorepo_needle' | cut -d: -f1,2 | LC_ALL=C sort)" \
       "code defs monorepo_needle"
  AB "code defs / rg -w" "$BIN code defs monorepo_needle" "rg -w monorepo_needle" --runs "$RUNS" --warmup 1
  rss_row "code defs" "$BIN" code defs monorepo_needle -- rg -w monorepo_needle
  cd "$HERE"
}

row_journal() {
  python3 "$HERE/benches/perf/journal_ops.py" "$BIN" --ops 100000 --small 1000 --rounds "${JOURNAL_ROUNDS:-11}"
}

for r in $ROWS; do
  case "$r" in
    journal) ;;
    *) [ -n "${CORPUS_SHOWN:-}" ] || { corpus; CORPUS_SHOWN=1; }
       # Untimed: bring the tree back into the page cache (this VM reclaims cold
       # pages). Cold, a search of it takes rg 5-10 s and ours hits its 10 s
       # --scan-timeout (a partial answer).
       (cd "$CORPUS" && rg -c no-such-needle-warms-the-cache >/dev/null || true) ;;
  esac
  "row_$r"
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
