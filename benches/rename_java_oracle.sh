#!/bin/bash
# javac as the oracle of `code rename` on a real Java repository (a git clone
# whose sources compile with javac alone, e.g. square/javapoet's src/main/java;
# its work tree is restored after each name).
# usage: AITOOLS=/abs/aitools XDG_STATE_HOME=/0700/dir rename_java_oracle.sh SRC_DIR [MAX]
# (MAX: an even sample of at most that many names, default all; ONLY="a b"
# renames only those names; QUALIFIED=1 names each by its qualified name and --kind, e.g.
# CodeBlock.Builder.add, instead of --in FILE --kind KIND)
# Takes every method, field and nested type `code outline` lists under SRC_DIR
# (not a top-level type: its file would have to move; not a method named after
# one of java.lang.Object's or a JDK interface's, which an override would tie to
# the JDK), renames it (NAME -> NAMERn, `--in` its file and `--kind`), compiles
# every file with javac and compares `javap -c -p` of every class (the new name
# mapped back) with the original's: the same bytecode means every use was
# renamed and nothing else was.
set -u
src=$1; max=${2:-1000}
A=${AITOOLS:?set AITOOLS to the aitools binary}
: "${XDG_STATE_HOME:?set XDG_STATE_HOME to a private 0700 directory}"
T=$(mktemp -d)
cd "$src"
files=$(git ls-files '*.java')
build() { # $1 out dir: compile and disassemble every class into $1.txt
  rm -rf "$1"; mkdir -p "$1"
  javac -nowarn -encoding UTF-8 -d "$1" $files 2>"$1.err" || return 1
  # constant-pool indices dropped: a name shared with a string literal is one
  # entry before the rename and two after; runs of spaces squeezed: javap
  # pads its comments after the indices, so their width shifts them
  (cd "$1" && find . -name '*.class' | sort | xargs javap -c -p) 2>&1 | sed -E 's/#[0-9]+(:#[0-9]+)?//g; s/ +/ /g' > "$1.txt"
}
build $T/orig || { echo "orig build fails: $(head -3 $T/orig.err)"; exit 1; }
skip=' toString equals hashCode clone compareTo finalize append iterator close flush write get apply accept run call '
targets=$(for f in $files; do $A code outline "$f" | F=$f python3 -c '
import json,os,sys
f=os.environ["F"]; stem=os.path.basename(f)[:-5]
for line in sys.stdin:
    d=json.loads(line)
    for x in d.get("symbols",[]):
        k=x.get("kind")
        if k in ("method","field") or (k in ("class","interface","enum","record") and x.get("container")):
            print(x["name"], k, f, x.get("container") or "-", x.get("qualified") or x["name"])
'; done | sort -u -k1,2 | awk -v s="$skip" 'index(s, " "$1" ")==0')
if [ -n "${ONLY:-}" ]; then
  targets=$(echo "$targets" | awk -v o=" $ONLY " 'index(o, " "$1" ")>0')
fi
total=$(echo "$targets" | grep -c .)
targets=$(echo "$targets" | awk -v t="$total" -v m="$max" 'm >= t || int((NR-1)*m/t) != int(NR*m/t)')
ok=0; bad=0; refused=0
while read -r n kind f cont q; do
  [ -z "$n" ] && continue
  git checkout -q -- .
  new="${n}Rn"
  if [ -n "${QUALIFIED:-}" ] && [ "$cont" != "-" ]; then
    out=$($A code rename "$q" "$new" --kind "$kind" 2>&1)
  else
    out=$($A code rename "$n" "$new" --in "$f" --kind "$kind" 2>&1)
  fi
  if ! echo "$out" | grep -q '"status":"ok"'; then
    refused=$((refused+1)); echo "REFUSED $kind $n: $(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["error"]["code"], d["error"]["message"][:120])' 2>/dev/null)"; continue
  fi
  counts=$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d.get("changes",[])), sum(c.get("count",0) for c in d.get("changes",[])), json.dumps(d.get("left",{}),separators=(",",":")))')
  if ! build $T/new; then echo "BUILD FAIL $kind $n ($counts): $(grep error: $T/new.err | head -2)"; bad=$((bad+1)); continue; fi
  if sed "s/\b${new}\b/${n}/g" $T/new.txt | cmp -s - $T/orig.txt; then
    ok=$((ok+1)); echo "ok $kind $n ($counts)"
  else
    bad=$((bad+1)); echo "DIFFERENT CODE $kind $n ($counts)"
    sed "s/\b${new}\b/${n}/g" $T/new.txt | diff $T/orig.txt - | head -6
  fi
done <<< "$targets"
git checkout -q -- .
echo "names=$(echo "$targets" | grep -c .) same_bytecode=$ok wrong=$bad refused=$refused"
