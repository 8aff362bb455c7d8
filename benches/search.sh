#!/usr/bin/env bash
# search and find side by side with ripgrep: match counts and median wall time.
#
#   benches/search.sh            # corpus + /usr/lib/python3.11
#   PYLIB=/some/tree RUNS=20 benches/search.sh
#
# Builds --release, makes the deterministic corpus of /work/shared/bench in a temp
# dir, and for each tree and pattern compares `aitools search PAT --output count
# --limit 1000000` (total_matches = selected lines, what rg -c counts) with
# `rg -c PAT` (summed). Then peak RSS of aitools searches, and find vs rg --files.
# Needs rg, hyperfine, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
BIN="$PWD/target/release/aitools"
CORPUS_SCRIPT="${CORPUS_SCRIPT:-/work/shared/bench/make-corpus.py}"
PYLIB="${PYLIB:-/usr/lib/python3.11}"
RUNS="${RUNS:-10}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
python3 "$CORPUS_SCRIPT" "$TMP/corpus" --files 1000 --mb 40

ai_count() { # dir, args...
  local dir="$1"; shift
  (cd "$dir" && "$BIN" search "$@" --output count --limit 1000000 || true) |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["total_matches"])'
}
rg_count() { # dir, args...
  local dir="$1"; shift
  (cd "$dir" && rg -c "$@" || true) | awk -F: '{s+=$NF} END {print s+0}'
}
median_ms() { # json file, index
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print("%.1f" % (r["median"]*1000))' "$1" "$2"
}
peak_rss_kb() { # dir, cmd...  (GNU time's %M: the exec'd program's own peak)
  local dir="$1"; shift
  (cd "$dir" && /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1)
}

printf '%-8s %-28s %10s %10s %9s %9s %6s\n' tree pattern rg_count ai_count rg_ms ai_ms ratio
run_case() { # tree-label, dir, pattern-label, args...
  local label="$1" dir="$2" plabel="$3"; shift 3
  local rc ac
  rc=$(rg_count "$dir" "$@")
  ac=$(ai_count "$dir" "$@")
  local q=() a
  for a in "$@"; do q+=("$(printf '%q' "$a")"); done
  local rgargs="${q[*]}"
  rgargs="${rgargs//--ignore-case/-i}"
  hyperfine -N --warmup 2 --runs "$RUNS" --export-json "$TMP/h.json" \
    --command-name rg "rg -c $rgargs $dir" \
    --command-name ai "$BIN --root $dir search ${q[*]} $dir --output count --limit 1000000" \
    >/dev/null 2>&1
  local r a_ms
  r=$(median_ms "$TMP/h.json" 0); a_ms=$(median_ms "$TMP/h.json" 1)
  local mark=""; [ "$rc" = "$ac" ] || mark=" COUNT-MISMATCH"
  printf '%-8s %-28s %10s %10s %9s %9s %6s%s\n' "$label" "$plabel" "$rc" "$ac" "$r" "$a_ms" \
    "$(python3 -c "print('%.2f' % ($a_ms/$r))")" "$mark"
}

for tree in corpus pylib; do
  if [ "$tree" = corpus ]; then dir="$TMP/corpus"; lit=ERR_TIMEOUT; word='\bfoo_[0-9]+\b'; ci=err_timeout
  else dir="$PYLIB"; lit=import; word='\bself\.[a-z_]+\b'; ci=valueerror; fi
  [ -d "$dir" ] || { echo "skip $tree: $dir missing"; continue; }
  run_case "$tree" "$dir" "literal $lit" "$lit"
  run_case "$tree" "$dir" "word $word" "$word"
  run_case "$tree" "$dir" "-i $ci" --ignore-case "$ci"
  run_case "$tree" "$dir" "no-literal [0-9]{4,}" '[0-9]{4,}'
done

echo
echo "peak RSS (KiB) of aitools search over the corpus:"
for p in ERR_TIMEOUT '[0-9]{4,}'; do
  for mode in count blocks; do
    printf '  %-14s %-7s %s\n' "$p" "$mode" "$(peak_rss_kb "$TMP/corpus" "$BIN" search "$p" --output "$mode" --limit 1000000)"
  done
done
printf '  %-22s %s\n' "rg -c ERR_TIMEOUT" "$(peak_rss_kb "$TMP/corpus" rg -c ERR_TIMEOUT)"

echo
echo "find vs rg --files over the corpus:"
rgf=$(cd "$TMP/corpus" && rg --files | wc -l)
aif=$(cd "$TMP/corpus" && "$BIN" find --type file --limit 1000000 | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
hyperfine -N --warmup 2 --runs "$RUNS" --export-json "$TMP/f.json" \
  --command-name rg "rg --files $TMP/corpus" \
  --command-name ai-files "$BIN --root $TMP/corpus find --type file $TMP/corpus --limit 1000000" \
  --command-name ai-all "$BIN --root $TMP/corpus find $TMP/corpus --limit 1000000" >/dev/null 2>&1
r=$(median_ms "$TMP/f.json" 0); f=$(median_ms "$TMP/f.json" 1); al=$(median_ms "$TMP/f.json" 2)
echo "  rg --files: $rgf files, ${r} ms"
echo "  find --type file: $aif files, ${f} ms (ratio $(python3 -c "print('%.2f' % ($f/$r))"))"
echo "  find (files and dirs): ${al} ms (ratio $(python3 -c "print('%.2f' % ($al/$r))"))"
