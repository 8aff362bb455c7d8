#!/bin/bash
# The compiler as the oracle of `code rename` on a real C repository (a git
# clone; its work tree is restored after each name).
# usage: AITOOLS=/abs/aitools XDG_STATE_HOME=/0700/dir rename_c_oracle.sh REPO_DIR CC "cflags" file.c...
# Renames every file-scope variable `code outline` lists (NAME -> NAME_rn), rebuilds
# each file, and compares its disassembly (the new name mapped back) with the
# original's: same code means every use was renamed and no shadowing local was.
set -u
repo=$1; cc=$2; flags=$3; shift 3
A=${AITOOLS:?set AITOOLS to the aitools binary}
: "${XDG_STATE_HOME:?set XDG_STATE_HOME to a private 0700 directory}"
T=$(mktemp -d)
cd "$repo"
for f in "$@"; do $cc $flags -c -o $T/orig.o "$f" 2>/dev/null || { echo "orig build fails: $f"; exit 1; }; done
names=$(for f in "$@"; do $A code outline "$f"; done | python3 -c '
import json,sys
for line in sys.stdin:
    d=json.loads(line)
    for x in d.get("symbols",[]):
        if x.get("kind")=="variable": print(x["name"])
' | sort -u)
ok=0; bad=0
for n in $names; do
  git checkout -q -- . 
  out=$($A code rename "$n" "${n}_rn" 2>&1)
  if ! echo "$out" | grep -q '"status":"ok"'; then echo "REFUSED $n: $(echo "$out" | head -c 200)"; bad=$((bad+1)); continue; fi
  same=1
  for f in "$@"; do
    if ! $cc $flags -c -o $T/new.o "$f" 2>$T/err; then echo "BUILD FAIL $n $f: $(head -3 $T/err)"; same=0; break; fi
    git stash -q; $cc $flags -c -o $T/orig.o "$f"; git stash pop -q
    objdump -d --no-show-raw-insn $T/orig.o | tail -n +3 > $T/a
    objdump -d --no-show-raw-insn $T/new.o | tail -n +3 | sed "s/\b${n}_rn\b/${n}/g" > $T/b
    cmp -s $T/a $T/b || { echo "DIFFERENT CODE $n $f"; same=0; }
  done
  left=$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("renamed"), d.get("left"))')
  if [ $same = 1 ]; then ok=$((ok+1)); echo "ok $n $left"; else bad=$((bad+1)); fi
done
git checkout -q -- .
echo "names=$(echo $names | wc -w) same_code=$ok wrong=$bad"
