#!/bin/bash
# Issue 34 row 2: a one-line `edit --old/--new` of a big file (default 1 GB)
# beside `sed -i` + `sync`, then `undo` of that edit beside `sed -i` putting the
# line back + `sync`, each in one interleaved run (benches/perf/ab.py: A, B, B,
# A, ...; median wall and CPU time of each side). Every round first restores each
# side's own copy of the file and removes aitools' state (untimed, then `sync`),
# runs both sides, and checks both left the same bytes (SHA-256). Then one run of
# each side under `/usr/bin/time -f %M` gives its peak RSS. An undo round first
# makes the edit (untimed) on A's copy and gives B the edited bytes. Then
# `insert --at end` and `--at start` beside `sed -i '$a …'` / `sed -i '1i …'` +
# `sync`, and `write --overwrite --content-file` beside `cp` + `sync`, the same way.
#
#   benches/perf_bigedit.sh [path/to/aitools]
#
# Env: MB (file size, default 1024), RUNS (rounds, default 3), WARMUP (default 1),
# DIR (where the files go, default a temp dir under /tmp), JSON=FILE (ab.py's result),
# ROWS (default "edit undo insert write": the rows to run), BASE=/other/aitools (row
# write: side B is that build's same write, a before/after in one interleaved run).
set -euo pipefail
BIN=$(realpath "${1:-target/release/aitools}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
MB=${MB:-1024}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-1}
W=$(mktemp -d "${DIR:-/tmp}/perf_bigedit.XXXXXX")
trap 'rm -rf "$W"' EXIT
export XDG_STATE_HOME="$W/state"
mkdir -p "$W/state" "$W/a" "$W/b"
chmod 700 "$W/state"
(cd "$W/a" && git init -q)
# Lines of 56 bytes; the edit is in the middle.
LINES=$((MB * 1024 * 1024 / 56))
MID=$(printf '%09d' $((LINES / 2)))
python3 - "$W/orig.txt" "$LINES" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    step = 100_000
    for s in range(0, n, step):
        f.write("".join("line %09d some filler text to make the line longer\n" % i
                        for i in range(s, min(n, s + step))))
PY
echo "file: $(stat -c %s "$W/orig.txt") bytes, edit of line $MID"
ROWS=${ROWS:-edit undo insert write}
has() { case " $ROWS " in *" $1 "*) return 0 ;; esac; return 1; }
if has edit; then
ROUND="cp $W/orig.txt $W/a/big.txt && cp $W/orig.txt $W/b/big.txt && rm -rf $W/state/aitools && sync"
A="sh -c 'cd $W/a && exec $BIN edit big.txt --old \"line $MID some\" --new \"line $MID EDITED\"'"
B="sh -c 'sed -i \"s/line $MID some/line $MID EDITED/\" $W/b/big.txt && sync'"
python3 "$HERE/benches/perf/ab.py" "bigedit ${MB}MB: aitools edit vs sed -i + sync" "$A" "$B" \
  --runs "$RUNS" --warmup "$WARMUP" --round "$ROUND" --same "$W/a/big.txt" "$W/b/big.txt" \
  ${JSON:+--json "$JSON"}
# Peak RSS of each side, one run each on a fresh copy.
sh -c "$ROUND"
(cd "$W/a" && /usr/bin/time -f "aitools edit peak RSS: %M KiB (%e s)" \
  "$BIN" edit big.txt --old "line $MID some" --new "line $MID EDITED" >/dev/null)
/usr/bin/time -f "sed -i peak RSS: %M KiB (%e s)" \
  sed -i "s/line $MID some/line $MID EDITED/" "$W/b/big.txt"
cmp "$W/a/big.txt" "$W/b/big.txt" && echo "identical result"
fi

# Undo of that edit beside `sed -i` putting the line back + `sync`.
sed "s/line $MID some/line $MID EDITED/" "$W/orig.txt" >"$W/edited.txt"
if has undo; then
OP="s/.*\"op_id\":\"\([^\"]*\)\".*/\1/p"
EDIT="$BIN edit big.txt --old 'line $MID some' --new 'line $MID EDITED'"
ROUND_U="cp $W/orig.txt $W/a/big.txt && rm -rf $W/state/aitools && (cd $W/a && $EDIT | sed -n '$OP' >$W/op) && cp $W/edited.txt $W/b/big.txt && sync"
A="sh -c 'cd $W/a && exec $BIN undo \$(cat $W/op)'"
B="sh -c 'sed -i \"s/line $MID EDITED/line $MID some/\" $W/b/big.txt && sync'"
python3 "$HERE/benches/perf/ab.py" "bigundo ${MB}MB: aitools undo vs sed -i + sync" "$A" "$B" \
  --runs "$RUNS" --warmup "$WARMUP" --round "$ROUND_U" --same "$W/a/big.txt" "$W/b/big.txt" \
  ${JSON:+--json "${JSON%.json}-undo.json"}
sh -c "$ROUND_U"
(cd "$W/a" && /usr/bin/time -f "aitools undo peak RSS: %M KiB (%e s)" \
  "$BIN" undo "$(cat "$W/op")" >/dev/null)
/usr/bin/time -f "sed -i (undo) peak RSS: %M KiB (%e s)" \
  sed -i "s/line $MID EDITED/line $MID some/" "$W/b/big.txt"
cmp "$W/a/big.txt" "$W/b/big.txt" && cmp "$W/a/big.txt" "$W/orig.txt" && echo "identical result"
fi

# insert --at end / --at start beside sed's a / i + sync (same result checked).
ROUND="cp $W/orig.txt $W/a/big.txt && cp $W/orig.txt $W/b/big.txt && rm -rf $W/state/aitools && sync"
for AT in end start; do
  has insert || continue
  if [ "$AT" = end ]; then SED='$a appended line'; else SED='1i inserted line'; fi
  TEXT=${SED#* }
  A="sh -c 'cd $W/a && exec $BIN insert big.txt --at $AT --content \"$TEXT\"'"
  # sh -c must not expand sed's $ (the last line).
  B="sh -c 'sed -i \"${SED/\$/\\\$}\" $W/b/big.txt && sync'"
  python3 "$HERE/benches/perf/ab.py" "biginsert ${MB}MB: aitools insert --at $AT vs sed -i + sync" "$A" "$B" \
    --runs "$RUNS" --warmup "$WARMUP" --round "$ROUND" --same "$W/a/big.txt" "$W/b/big.txt" \
    ${JSON:+--json "${JSON%.json}-insert-$AT.json"}
  sh -c "$ROUND"
  (cd "$W/a" && /usr/bin/time -f "aitools insert --at $AT peak RSS: %M KiB (%e s)" \
    "$BIN" insert big.txt --at "$AT" --content "$TEXT" >/dev/null)
  /usr/bin/time -f "sed -i (insert) peak RSS: %M KiB (%e s)" sed -i "$SED" "$W/b/big.txt"
  cmp "$W/a/big.txt" "$W/b/big.txt" && echo "identical result"
done

# write --overwrite --content-file (the edited bytes over the original) beside cp + sync.
if has write; then
  H=$(sha256sum "$W/orig.txt" | cut -c1-64)
  A="sh -c 'cd $W/a && exec $BIN write big.txt --overwrite --expect-hash $H --content-file $W/edited.txt --max-input 4GiB'"
  B="sh -c 'cp $W/edited.txt $W/b/big.txt && sync'"
  VS="cp + sync"
  if [ -n "${BASE:-}" ]; then # before/after: BASE's write of the same bytes in b/
    (cd "$W/b" && [ -d .git ] || git init -q)
    B="sh -c 'cd $W/b && exec $(realpath "$BASE") write big.txt --overwrite --expect-hash $H --content-file $W/edited.txt --max-input 4GiB'"
    VS="BASE"
  fi
  python3 "$HERE/benches/perf/ab.py" "bigwrite ${MB}MB: aitools write --content-file vs $VS" "$A" "$B" \
    --runs "$RUNS" --warmup "$WARMUP" --round "$ROUND" --same "$W/a/big.txt" "$W/b/big.txt" \
    ${JSON:+--json "${JSON%.json}-write.json"}
  sh -c "$ROUND"
  (cd "$W/a" && /usr/bin/time -f "aitools write peak RSS: %M KiB (%e s)" \
    "$BIN" write big.txt --overwrite --expect-hash "$H" --content-file "$W/edited.txt" \
    --max-input 4GiB >/dev/null)
  /usr/bin/time -f "cp peak RSS: %M KiB (%e s)" cp "$W/edited.txt" "$W/b/big.txt"
  cmp "$W/a/big.txt" "$W/b/big.txt" && cmp "$W/a/big.txt" "$W/edited.txt" && echo "identical result"
fi
