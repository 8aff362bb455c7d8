#!/bin/bash
# g++ and nm as the oracle of `code rename` of C++ functions and methods on a real
# repository (a git clone whose .cc/.cpp files compile one by one with `g++ -c`,
# e.g. google/leveldb with CXXFLAGS="-std=c++17 -Iinclude -DLEVELDB_PLATFORM_POSIX";
# its work tree is restored after each name).
# usage: AITOOLS=/abs/aitools XDG_STATE_HOME=/0700/dir rename_cpp_oracle.sh SRC_DIR [MAX]
# (MAX: an even sample of at most that many names, default all; ONLY="a b" renames
# only those names; EXCLUDE="x.cc y.cc" leaves files out of the build; CXXFLAGS
# extra flags for g++)
# Takes every function and method `code outline` lists in a source file, renames
# it (NAME -> NAMERn, `--in` its file, `--kind` its kind), compiles again every
# source file that includes a changed file (dependencies from `g++ -MM`) and
# compares each object's demangled symbol table (`nm -C`), its disassembly with
# relocations and its data relocations (vtables; `objdump -dr -C`, `objdump -r -C`),
# the new name mapped back, with the original's (lines sorted: nm orders by name). The same means every use was
# renamed (declarations in headers, overrides) and nothing else was. The mapping
# back would hide a second symbol renamed along (another class's NAME), so the
# classes and namespaces of the renamed symbols are listed (`in=`) and a name
# renamed in more than one is marked CHECK, to be judged by hand (an override
# hierarchy is right, a rival class is wrong).
set -u
src=$1; max=${2:-1000}
A=${AITOOLS:?set AITOOLS to the aitools binary}
: "${XDG_STATE_HOME:?set XDG_STATE_HOME to a private 0700 directory}"
FLAGS="-w -O0 -g0 -DNDEBUG -I. ${CXXFLAGS:-}"  # NDEBUG: assert() would embed the function's name
T=$(mktemp -d)
cd "$src"
files=$(git ls-files '*.cc' '*.cpp' '*.cxx' | awk -v x=" ${EXCLUDE:-} " 'index(x, " "$0" ")==0')
obj() { echo "$1" | tr / _; }
dump() { # $1 object: symbols, code and relocations, demangled
  nm -C "$1"; objdump -dr -C --no-show-raw-insn "$1" | tail -n +4; objdump -r -C "$1" | tail -n +4
}
for f in $files; do # dependencies, one line per source: "src dep dep ..."
  echo "$f $(g++ $FLAGS -MM "$f" 2>/dev/null | tr -d '\\\n' | cut -d: -f2-)"
done > $T/deps
mkdir -p $T/orig
for f in $files; do
  g++ -c $FLAGS -o $T/orig/$(obj $f).o "$f" 2>>$T/orig.err || { echo "orig build fails: $f"; exit 1; }
  dump $T/orig/$(obj $f).o | sort > $T/orig/$(obj $f).txt
done
targets=$(for f in $files; do $A code outline "$f" | F=$f python3 -c '
import json,os,re,sys
f=os.environ["F"]
for line in sys.stdin:
    d=json.loads(line)
    for x in d.get("symbols",[]):
        if x.get("kind") in ("function","method") and re.fullmatch(r"[A-Za-z_]\w*", x["name"]):
            print(x["name"], f, x["kind"])
'; done | sort -u -k1,1)
if [ -n "${ONLY:-}" ]; then
  targets=$(echo "$targets" | awk -v o=" $ONLY " 'index(o, " "$1" ")>0')
fi
total=$(echo "$targets" | grep -c .)
targets=$(echo "$targets" | awk -v t="$total" -v m="$max" 'm >= t || int((NR-1)*m/t) != int(NR*m/t)')
ok=0; bad=0; refused=0
while read -r n f k; do
  [ -z "$n" ] && continue
  git checkout -q -- .
  new="${n}Rn"
  out=$($A code rename "$n" "$new" --in "$f" --kind "$k" 2>&1)
  if ! echo "$out" | grep -q '"status":"ok"'; then
    refused=$((refused+1)); echo "REFUSED $n: $(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["error"]["code"], d["error"]["message"][:120])' 2>/dev/null)"; continue
  fi
  counts=$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["changes"]), sum(c.get("count",0) for c in d["changes"]), json.dumps(d.get("left",{})))')
  changed=$(git diff --name-only)
  rebuild=$(awk -v c=" $(echo $changed) " '{for(i=1;i<=NF;i++) if(index(c," "$i" ")>0){print $1; break}}' $T/deps)
  why=""; quals=""
  for s in $rebuild; do
    o=$T/$(obj $s).o
    if ! g++ -c $FLAGS -o $o "$s" 2>$T/err; then why="does not compile: $(grep -m1 error $T/err)"; break; fi
    dump $o > $T/new.txt
    quals="$quals $(nm -C --defined-only $o | grep -o "[A-Za-z_:<>]*\b${new}\b" | sed "s/${new}\$//")"
    # demangled names, and mangled ones (<length><name>) in section names
    sed -e "s/${#new}${new}/${#n}${n}/g" -e "s/\b${new}\b/${n}/g" $T/new.txt | sort > $T/new.mapped
    if ! cmp -s $T/orig/$(obj $s).txt $T/new.mapped; then
      why="different code in $s: $(diff $T/orig/$(obj $s).txt $T/new.mapped | grep -m1 '^[<>]')"; break
    fi
  done
  quals=$(echo $quals | tr ' ' '\n' | sort -u | tr '\n' ' ')
  mark=ok; [ "$(echo $quals | wc -w)" -gt 1 ] && mark=CHECK
  if [ -n "$why" ]; then
    bad=$((bad+1)); echo "WRONG $n ($counts): $why"
  else
    ok=$((ok+1)); echo "$mark $n ($counts) in=$quals"
  fi
done <<< "$targets"
git checkout -q -- .
rm -rf "$T"
echo "names=$((ok+bad+refused)) same=$ok wrong=$bad refused=$refused"
