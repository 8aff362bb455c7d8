#!/bin/bash
# Issue 12, write rows: each aitools write beside the shell tool it replaces, timed
# in one interleaved run per row (benches/perf/ab.py: A, B, B, A, A, B, ...; median
# wall time and median CPU time of each side). Every round first restores each
# side's own copy of the fixture (untimed, then `sync` so no side pays for the
# copy's writeback), runs both sides, and checks that both left the same bytes
# (SHA-256 of every file; a tree's .git skipped). One entry point per row is in
# benches/perf/ (02-replace, 03-apply, 04-write, 05-edit, 08-tx).
#
#   benches/perf_write.sh [path/to/aitools] [rows...]   rows: replace apply write edit tx
#
# Env: RUNS (rounds, default 10), WARMUP (default 2), STATE=fresh|warm (rows write,
# replace, apply, tx: fresh, the default and the headline figure, removes the
# workspace's state directory every round so each aitools run also creates it —
# journal, blobs/, commit/: a few fsyncs once per workspace; warm keeps it across
# rounds, as in everyday use, while each round still gets a fresh copy of the tree
# (its journal grows by one op a round, and blobs of before-images an earlier
# round kept are found, not stored again); row edit always starts fresh), BASE=/other/aitools (rows
# replace apply write edit tx: side B is that aitools build doing the same call instead
# of the shell tool, or for tx the same tx: a before/after in one interleaved run), JSON=DIR (ab.py's
# result per row). Needs perl, git, sed, python3.
set -euo pipefail
BIN=$(realpath "${1:-target/release/aitools}")
shift || true
BASE=${BASE:+$(realpath "$BASE")}
HERE=$(cd "$(dirname "$0")/.." && pwd)
ROWS="${*:-replace apply write edit tx}"
W=$(mktemp -d /tmp/perf_write.XXXXXX)
trap 'rm -rf "$W"' EXIT
export XDG_STATE_HOME="$W/state"
mkdir -p "$W/state"
chmod 700 "$W/state"
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-2}
STATE=${STATE:-fresh}
fresh() { [ "$STATE" = warm ] || echo "$W/state/aitools"; }
warm() { [ "$STATE" != warm ] || echo " (warm state)"; } # a tree row's label

# One interleaved run: AB NAME 'CMD A' 'CMD B' --round 'SH' --same A B ...
AB() {
  local name=$1
  shift
  python3 "$HERE/benches/perf/ab.py" "$name" "$@" --runs "$RUNS" --warmup "$WARMUP" \
    ${JSON:+--json "$JSON/$name.json"}
}

# Side B: the shell tool, or with BASE the other aitools build doing side A's call
# in B's copy ($1 = the shell tool's command, $2 = A's command with @BIN@ and @DIR@).
side_b() { # $1 ref command, $2 aitools template, $3 B's directory
  if [ -n "$BASE" ]; then
    local t=${2//@BIN@/$BASE}
    echo "${t//@DIR@/$3}"
  else echo "$1"; fi
}
side_a() { # $1 aitools template, $2 A's directory
  local t=${1//@BIN@/$BIN}
  echo "${t//@DIR@/$2}"
}
vs() { [ -n "$BASE" ] && echo "base" || echo "$1"; }

# A git repository (the workspace root) with 1,000 files of 40 lines, 20 dirs.
mk_tree() {
  [ -d "$1" ] && return
  mkdir -p "$1"
  (cd "$1" && git init -q && python3 - <<'PY'
import os
for i in range(1000):
    d = f"d{i % 20}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i}.txt", "w") as f:
        for j in range(40):
            f.write(f"line {j} of file {i} with oldword here\n" if j == 7 else f"plain text {j} of {i}\n")
PY
  git add -A && git -c user.name=b -c user.email=b@b commit -qm tree)
}

# The round set-up of the tree rows: fresh copies a (side A) and b (side B), no
# state (kept with STATE=warm). The last round's copies are moved aside, not deleted: ext4 skips inodes
# freed in the last ~30 s when it allocates new ones, and thousands freed just
# before the timed part made every file creation pay a scan (TRASH=rm deletes).
mkdir -p "$W/trash"
aside() { # the shell words that move $@ out of the way
  if [ "${TRASH:-keep}" = rm ]; then echo "rm -rf $*"; else echo "t=\$(mktemp -d $W/trash/r.XXXXXX) && for x in $*; do [ ! -e \$x ] || mv \$x \$t/; done"; fi
}
TREE_ROUND="$(aside "$W/a" "$W/b" $(fresh)) && cp -r $W/t0 $W/a && cp -r $W/t0 $W/b && sync"

row_replace() { # issue 12 row 2
  mk_tree "$W/t0"
  local a="sh -c 'cd @DIR@ && @BIN@ replace oldword newword . --expect-count 1000 >/dev/null'"
  AB "replace 1000 files$(warm) / $(vs 'perl -pi')" "$(side_a "$a" "$W/a")" \
    "$(side_b "sh -c 'cd $W/b && find . -path ./.git -prune -o -type f -print0 | xargs -0 perl -pi -e s/oldword/newword/g'" "$a" "$W/b")" \
    --round "$TREE_ROUND" --same "$W/a" "$W/b"
}

row_apply() { # issue 12 row 3
  mk_tree "$W/t0"
  if [ ! -f "$W/p.diff" ]; then
    rm -rf "$W/c"
    cp -r "$W/t0" "$W/c"
    (cd "$W/c" && for i in $(seq 0 10 990); do sed -i 's/^plain text 20 of .*/changed twenty/' "d$((i % 20))/f$i.txt"; done && git diff >"$W/p.diff")
  fi
  local a="sh -c 'cd @DIR@ && @BIN@ apply --stdin < $W/p.diff >/dev/null'"
  AB "apply 100-file patch$(warm) / $(vs 'git apply')" "$(side_a "$a" "$W/a")" \
    "$(side_b "sh -c 'cd $W/b && git apply $W/p.diff'" "$a" "$W/b")" \
    --round "$TREE_ROUND" --same "$W/a" "$W/b"
}

row_write() { # issue 12 row 4
  rm -rf "$W/w"
  mkdir -p "$W/w" && (cd "$W/w" && git init -q)
  [ -f "$W/big.txt" ] || python3 -c "
with open('$W/big.txt','w') as f:
    for i in range(187000): f.write(f'{i:08d} some text to make the line long enough\n')"
  local a="sh -c 'cd $W/w && @BIN@ write @DIR@ --content-file $W/big.txt >/dev/null'"
  AB "write 9 MB ($STATE state) / $(vs 'cp+sync')" "$(side_a "$a" x.txt)" \
    "$(side_b "sh -c 'cp $W/big.txt $W/w/y.txt && sync $W/w/y.txt $W/w'" "$a" y.txt)" \
    --round "rm -rf $W/w/x.txt $W/w/y.txt $(fresh) && sync" --same "$W/w/x.txt" "$W/w/y.txt"
}

row_edit() { # issue 12 row 5 (the harness; the edit itself is the splice work's)
  rm -rf "$W/e"
  mkdir -p "$W/e" && (cd "$W/e" && git init -q)
  [ -f "$W/e44.txt" ] || python3 -c "
with open('$W/e44.txt','w') as f:
    for i in range(800000): f.write(f'{i:08d} a line of text in a big file, long enough\n')"
  local a="sh -c 'cd $W/e && @BIN@ edit @DIR@ --old \"00400000 a line\" --new \"00400000 an edited line\" >/dev/null'"
  AB "edit 1 line of 44 MB / $(vs 'sed -i')" "$(side_a "$a" a.txt)" \
    "$(side_b "sed -i 's/^00400000 a line/00400000 an edited line/' $W/e/b.txt" "$a" b.txt)" \
    --round "cp $W/e44.txt $W/e/a.txt && cp $W/e44.txt $W/e/b.txt && rm -rf $W/state/aitools && sync" \
    --same "$W/e/a.txt" "$W/e/b.txt"
  cp "$W/e44.txt" "$W/e/a.txt"
  rm -rf "$W/state/aitools"
  (cd "$W/e" && /usr/bin/time -f "edit RSS %M KiB (file $(($(stat -c %s "$W/e44.txt") / 1024)) KiB)" \
    "$BIN" edit a.txt --old '00400000 a line' --new '00400000 an edited line' >/dev/null)
}

row_tx() { # issue 12 row 8 (the harness; the tx logic is the txblobs work's)
  mk_tree "$W/t0"
  cat > "$W/tx.sh" <<SH
cd "\$1"
id=\$($BIN tx begin | sed -n 's/.*"tx":"\([^"]*\)".*/\1/p')
for i in \$(seq 0 99); do $BIN edit d\$((i % 20))/f\$i.txt --old 'plain text 3 ' --new 'txt 3 ' --tx "\$id" >/dev/null; done
$BIN tx commit "\$id" >/dev/null
SH
  cat > "$W/plain.sh" <<SH
cd "\$1"
for i in \$(seq 0 99); do $BIN edit d\$((i % 20))/f\$i.txt --old 'plain text 3 ' --new 'txt 3 ' >/dev/null; done
SH
  if [ -n "$BASE" ]; then # before/after: side B is BASE staging and committing the same
    sed "s#$BIN#$BASE#g" "$W/tx.sh" >"$W/txb.sh"
    AB "tx: 100 edits+commit$(warm) / base" "bash $W/tx.sh $W/a" "bash $W/txb.sh $W/b" \
      --round "$TREE_ROUND" --same "$W/a" "$W/b"
    return
  fi
  AB "tx: 100 edits+commit$(warm) / 100 plain edits" "bash $W/tx.sh $W/a" "bash $W/plain.sh $W/b" \
    --round "$TREE_ROUND" --same "$W/a" "$W/b"
}

for r in $ROWS; do "row_$r"; done
