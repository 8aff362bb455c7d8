#!/bin/sh
# What masking costs a search answer (issue 34): a huge blocks answer (every line of
# this crate's src/ and tests/, `search ^ --limit 100000 -C 0`, ~4 MB) and a normal
# one (`search 'fn\s+mask' src`), with BIN and, when given, BASE (an earlier build)
# side by side. Checks first that both print the same bytes (answers and
# `redactions` must not change), then prints hyperfine's table (wall and user CPU).
# Usage: benches/search_mask_once.sh [BIN [BASE]]   (default: target/release/aitools)
# Needs hyperfine (-i: a search whose answer is cut exits 3). Works on a copy of the sources at HEAD in a temporary git repository.
set -eu
BIN=$(realpath "${1:-target/release/aitools}")
BASE=${2:+$(realpath "$2")}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
git -C "$(dirname "$0")/.." archive HEAD src tests | tar -x -C "$W"
cd "$W"
git init -q
mkdir -m 700 .state
export XDG_STATE_HOME="$W/.state"
BIG="search ^ src tests --limit 100000 -C 0"
NORMAL="search fn\\s+mask_ src"
if [ -n "$BASE" ]; then
  for q in "$BIG" "$NORMAL"; do
    # shellcheck disable=SC2086
    "$BIN" $q > new.json || true; "$BASE" $q > base.json || true
    cmp -s new.json base.json || { echo "answers differ: $q"; exit 1; }
  done
  # shellcheck disable=SC2086
  echo "same answers (big $("$BIN" $BIG | wc -c) bytes, normal $(wc -c < new.json) bytes)"
  hyperfine -N -i --warmup 2 --runs "${RUNS:-15}" \
    -n 'big BASE' "$BASE $BIG" -n 'big BIN' "$BIN $BIG" \
    -n 'normal BASE' "$BASE $NORMAL" -n 'normal BIN' "$BIN $NORMAL"
else
  hyperfine -N -i --warmup 2 --runs "${RUNS:-15}" -n big "$BIN $BIG" -n normal "$BIN $NORMAL"
fi
