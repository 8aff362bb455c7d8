#!/bin/bash
# gcc and nm as the oracle of `code rename` of C functions on a real repository (a git
# clone whose .c files compile one by one with `gcc -c`, e.g. lua/lua; its work
# tree is restored after each name).
# usage: AITOOLS=/abs/aitools XDG_STATE_HOME=/0700/dir rename_c_functions_oracle.sh SRC_DIR [MAX]
# (MAX: an even sample of at most that many names, default all; ONLY="a b"
# renames only those names; EXCLUDE="onelua.c x.c" leaves files out of the
# build, e.g. one that #includes the others)
# Takes every function `code outline` lists in a .c file, renames it (NAME ->
# NAMERn, `--in` its file, `--kind function`), compiles every .c file with
# gcc -c and compares each object's symbol table (`nm`) and its disassembly
# with relocations (`objdump -dr`), the new name mapped back, with the
# original's: the same means every use was renamed (declarations in headers
# too) and nothing else was.
set -u
src=$1; max=${2:-1000}
A=${AITOOLS:?set AITOOLS to the aitools binary}
: "${XDG_STATE_HOME:?set XDG_STATE_HOME to a private 0700 directory}"
T=$(mktemp -d)
cd "$src"
files=$(git ls-files '*.c' | awk -v x=" ${EXCLUDE:-} " 'index(x, " "$0" ")==0')
build() { # $1 out dir: compile every file and dump symbols + code into $1.txt
  rm -rf "$1"; mkdir -p "$1"
  for f in $files; do
    gcc -c -w -O0 -I. -o "$1/$(echo "$f" | tr / _).o" "$f" 2>>"$1.err" || return 1
  done
  (cd "$1" && for o in $(ls | sort); do echo "== $o"; nm -P "$o"; objdump -dr --no-show-raw-insn "$o" | tail -n +4; done) > "$1.txt"
}
build $T/orig || { echo "orig build fails: $(head -3 $T/orig.err)"; exit 1; }
targets=$(for f in $files; do $A code outline "$f" | F=$f python3 -c '
import json,os,sys
f=os.environ["F"]
for line in sys.stdin:
    d=json.loads(line)
    for x in d.get("symbols",[]):
        if x.get("kind")=="function":
            print(x["name"], f)
'; done | sort -u -k1,1)
if [ -n "${ONLY:-}" ]; then
  targets=$(echo "$targets" | awk -v o=" $ONLY " 'index(o, " "$1" ")>0')
fi
total=$(echo "$targets" | grep -c .)
targets=$(echo "$targets" | awk -v t="$total" -v m="$max" 'm >= t || int((NR-1)*m/t) != int(NR*m/t)')
ok=0; bad=0; refused=0
while read -r n f; do
  [ -z "$n" ] && continue
  git checkout -q -- .
  new="${n}Rn"
  out=$($A code rename "$n" "$new" --in "$f" --kind function 2>&1)
  if ! echo "$out" | grep -q '"status":"ok"'; then
    refused=$((refused+1)); echo "REFUSED $n: $(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["error"]["code"], d["error"]["message"][:120])' 2>/dev/null)"; continue
  fi
  counts=$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["changes"]), sum(c.get("count",0) for c in d["changes"]), json.dumps(d.get("left",{})))')
  if ! build $T/new; then
    bad=$((bad+1)); echo "WRONG $n ($counts): does not compile: $(grep -m1 error $T/new.err)"; continue
  fi
  sed "s/\b${new}\b/${n}/g" $T/new.txt > $T/new.mapped
  if cmp -s $T/orig.txt $T/new.mapped; then
    ok=$((ok+1)); echo "ok $n ($counts)"
  else
    bad=$((bad+1)); echo "WRONG $n ($counts): different code: $(diff $T/orig.txt $T/new.mapped | grep -m1 '^[<>]')"
  fi
done <<< "$targets"
git checkout -q -- .
rm -rf "$T"
echo "names=$((ok+bad+refused)) same=$ok wrong=$bad refused=$refused"
