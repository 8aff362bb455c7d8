#!/bin/sh
# Side-by-side timings of the edit family against the shell tools it replaces.
# Usage: benches/edit.sh [path/to/aitools]   (default: target/release/aitools)
# Needs hyperfine, sed, perl, diff, patch. Works in a temporary git repository.
set -eu
BIN=$(realpath "${1:-target/release/aitools}")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
git init -q
export XDG_STATE_HOME="$W/.state"

# One 100k-line file; the edited line is near the end.
seq 1 100000 | sed 's/^/line number /' > base.txt
# A tree of 400 files x 250 lines, 10 matches each.
mkdir -p tree0
i=0
while [ $i -lt 400 ]; do
  mkdir -p tree0/d$((i % 20))
  seq 1 250 | awk '{ if ($1 % 25 == 0) print "let old_name_" $1 " = value;"; else print "plain text " $1 }' > tree0/d$((i % 20))/f$i.rs
  i=$((i + 1))
done
# A 50-hunk diff against base.txt.
awk '{ if (NR % 2000 == 0) print "changed " NR; else print }' base.txt > changed.txt
diff -u base.txt changed.txt > p.diff || true
sed -i '1s|.*|--- a/f.txt|; 2s|.*|+++ b/f.txt|' p.diff

hyperfine -N --warmup 3 --export-markdown edit.md \
  --prepare 'cp base.txt f.txt' \
  -n 'aitools edit --old' "$BIN edit f.txt --old 'line number 99999' --new 'line 99999'" \
  -n 'sed -i' "sed -i 's/line number 99999\$/line 99999/' f.txt"

hyperfine --warmup 2 --export-markdown replace.md \
  --prepare 'rm -rf tree && cp -r tree0 tree' \
  -n 'aitools replace (tree)' "$BIN replace 'old_(\\w+)' 'new_\$1' tree --expect-count 4000" \
  -n 'perl -pi (tree)' "find tree -type f -print0 | xargs -0 perl -pi -e 's/old_(\\w+)/new_\$1/g'" \
  -n 'sed -i -E (tree)' "find tree -type f -print0 | xargs -0 sed -i -E 's/old_(\\w+)/new_\\1/g'"

hyperfine --warmup 3 --export-markdown apply.md \
  --prepare 'cp base.txt f.txt' \
  -n 'aitools apply (50 hunks)' "$BIN apply --stdin < p.diff" \
  -n 'patch (50 hunks)' "patch -s -p1 < p.diff"
cat edit.md replace.md apply.md
