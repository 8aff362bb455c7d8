#!/bin/bash
# Issue 12, write rows: each aitools write beside the shell tool it replaces, in one
# interleaved hyperfine run per row (release build, temp trees under /tmp), after a
# check that both sides leave identical trees. Prints the median ratio per row.
# Usage: benches/perf_write.sh [path/to/aitools] [rows...]   rows: replace apply write edit tx
# Needs hyperfine, perl, git, sed, python3.
set -eu
BIN=$(realpath "${1:-target/release/aitools}")
shift || true
ROWS="${*:-replace apply write edit tx}"
W=$(mktemp -d /tmp/perf_write.XXXXXX)
trap 'rm -rf "$W"' EXIT
export XDG_STATE_HOME="$W/state"
mkdir -p "$W/state"
chmod 700 "$W/state"
RUNS=${RUNS:-10}
# Row write: STATE=fresh (default) removes the workspace's state directory
# before every run, so each aitools run also creates it (journal, blobs/, commit/:
# a few fsyncs once per workspace); STATE=warm keeps it, as in everyday use. (The
# other rows always start fresh: kept blobs of the same before-images would be reused.)
STATE=${STATE:-fresh}
fresh() { [ "$STATE" = warm ] || echo "$W/state/aitools"; }

ratio() { # $1 = hyperfine json: median of command 0 / median of command 1
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
a, b = r[0]["median"], r[1]["median"]
print(f"{sys.argv[2]:8} aitools {a*1000:9.1f} ms   other {b*1000:9.1f} ms   ratio {a/b:5.2f}x")
PY
}

same() { # $1 $2 directories that must hold the same files
  if ! diff -r -x .git "$1" "$2" >/dev/null; then echo "results differ: $1 $2" >&2; exit 1; fi
}

# A git repository (the workspace root) with 1,000 files of 40 lines, 20 dirs.
mk_tree() {
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

row_replace() {
  mk_tree "$W/t0"
  rm -rf "$W/a" "$W/b"; cp -r "$W/t0" "$W/a"; cp -r "$W/t0" "$W/b"
  (cd "$W/a" && "$BIN" replace oldword newword . --expect-count 1000 >/dev/null)
  (cd "$W/b" && find . -path ./.git -prune -o -type f -print0 | xargs -0 perl -pi -e 's/oldword/newword/g')
  same "$W/a" "$W/b"
  hyperfine -N --runs "$RUNS" --export-json "$W/replace.json" \
    --prepare "sh -c 'rm -rf $W/a $W/state/aitools && cp -r $W/t0 $W/a'" \
    -n aitools "sh -c 'cd $W/a && $BIN replace oldword newword . --expect-count 1000 >/dev/null'" \
    -n perl "sh -c 'cd $W/a && find . -path ./.git -prune -o -type f -print0 | xargs -0 perl -pi -e s/oldword/newword/g'" >/dev/null
  ratio "$W/replace.json" replace
}

row_apply() {
  mk_tree "$W/t0"
  rm -rf "$W/c"; cp -r "$W/t0" "$W/c"
  (cd "$W/c" && for i in $(seq 0 10 990); do sed -i 's/^plain text 20 of .*/changed twenty/' "d$((i % 20))/f$i.txt"; done && git diff > "$W/p.diff")
  rm -rf "$W/a" "$W/b"; cp -r "$W/t0" "$W/a"; cp -r "$W/t0" "$W/b"
  (cd "$W/a" && "$BIN" apply --stdin < "$W/p.diff" >/dev/null)
  (cd "$W/b" && git apply "$W/p.diff")
  same "$W/a" "$W/b"
  hyperfine -N --runs "$RUNS" --export-json "$W/apply.json" \
    --prepare "sh -c 'rm -rf $W/a $W/state/aitools && cp -r $W/t0 $W/a'" \
    -n aitools "sh -c 'cd $W/a && $BIN apply --stdin < $W/p.diff >/dev/null'" \
    -n 'git apply' "sh -c 'cd $W/a && git apply $W/p.diff'" >/dev/null
  ratio "$W/apply.json" apply
}

row_write() {
  mkdir -p "$W/w" && (cd "$W/w" && git init -q)
  python3 -c "
import sys
with open('$W/big.txt','w') as f:
    for i in range(187000): f.write(f'{i:08d} some text to make the line long enough\n')"
  rm -f "$W/w/x.txt" "$W/w/y.txt"
  (cd "$W/w" && "$BIN" write x.txt --content-file "$W/big.txt" >/dev/null)
  cp "$W/big.txt" "$W/w/y.txt"
  cmp "$W/w/x.txt" "$W/w/y.txt"
  hyperfine -N --runs "$RUNS" --export-json "$W/write.json" \
    --prepare "sh -c 'rm -rf $W/w/x.txt $(fresh)'" \
    -n aitools "sh -c 'cd $W/w && $BIN write x.txt --content-file $W/big.txt >/dev/null'" \
    -n 'cp+sync' "sh -c 'cp $W/big.txt $W/w/x.txt && sync $W/w/x.txt $W/w'" >/dev/null
  ratio "$W/write.json" write
}

row_edit() {
  mkdir -p "$W/e" && (cd "$W/e" && git init -q)
  python3 -c "
with open('$W/e44.txt','w') as f:
    for i in range(800000): f.write(f'{i:08d} a line of text in a big file, long enough\n')"
  rm -f "$W/e/a.txt" "$W/e/b.txt"
  cp "$W/e44.txt" "$W/e/a.txt"; cp "$W/e44.txt" "$W/e/b.txt"
  (cd "$W/e" && "$BIN" edit a.txt --old '00400000 a line' --new '00400000 an edited line' >/dev/null)
  sed -i 's/^00400000 a line/00400000 an edited line/' "$W/e/b.txt"
  cmp "$W/e/a.txt" "$W/e/b.txt"
  rm -f "$W/e/b.txt"
  hyperfine -N --runs "$RUNS" --export-json "$W/edit.json" \
    --prepare "sh -c 'cp $W/e44.txt $W/e/a.txt && rm -rf $W/state/aitools'" \
    -n aitools "sh -c 'cd $W/e && $BIN edit a.txt --old \"00400000 a line\" --new \"00400000 an edited line\" >/dev/null'" \
    -n 'sed -i' "sed -i 's/^00400000 a line/00400000 an edited line/' $W/e/a.txt" >/dev/null
  ratio "$W/edit.json" edit
  cp "$W/e44.txt" "$W/e/a.txt"; rm -rf "$W/state/aitools"
  (cd "$W/e" && /usr/bin/time -f "edit RSS %M KiB (file $(($(stat -c %s "$W/e44.txt") / 1024)) KiB)" \
    "$BIN" edit a.txt --old '00400000 a line' --new '00400000 an edited line' >/dev/null)
}

row_tx() {
  mk_tree "$W/t0"
  cat > "$W/tx.sh" <<SH
cd "\$1"
id=\$($BIN tx begin | python3 -c 'import json,sys; print(json.load(sys.stdin)["tx"])')
for i in \$(seq 0 99); do $BIN edit d\$((i % 20))/f\$i.txt --old 'plain text 3 ' --new 'txt 3 ' --tx "\$id" >/dev/null; done
$BIN tx commit "\$id" >/dev/null
SH
  cat > "$W/plain.sh" <<SH
cd "\$1"
for i in \$(seq 0 99); do $BIN edit d\$((i % 20))/f\$i.txt --old 'plain text 3 ' --new 'txt 3 ' >/dev/null; done
SH
  rm -rf "$W/a" "$W/b"; cp -r "$W/t0" "$W/a"; cp -r "$W/t0" "$W/b"
  bash "$W/tx.sh" "$W/a"; bash "$W/plain.sh" "$W/b"
  same "$W/a" "$W/b"
  hyperfine -N --runs "$RUNS" --export-json "$W/tx.json" \
    --prepare "sh -c 'rm -rf $W/a $W/state/aitools && cp -r $W/t0 $W/a'" \
    -n 'tx+commit' "bash $W/tx.sh $W/a" \
    -n 'plain' "bash $W/plain.sh $W/a" >/dev/null
  ratio "$W/tx.json" tx
}

for r in $ROWS; do "row_$r"; done
