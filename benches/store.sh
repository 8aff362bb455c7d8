#!/usr/bin/env bash
# Store benchmarks: a one-line overwrite of a 44 MB file against sed -i (with and
# without fsync), undo of the first op after 1 vs 1,000 later ops, and the fsync
# count of a small write. Needs hyperfine and strace; builds --release.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
A="$PWD/target/release/aitools"
W=$(mktemp -d /tmp/aitools-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
export XDG_STATE_HOME="$W/state"

echo "## 44 MB file, one line changed"
mkdir -p "$W/big" && cd "$W/big" && git init -q
seq -f 'line %08g of the big file, padded to 44 bytes' 1 1000000 | cut -c1-43 > orig.txt
sed 's/^line 00500000 .*/line 00500000 CHANGED/' orig.txt > new.txt
ls -l orig.txt | awk '{print "size:", $5}'
H=$(sha256sum orig.txt | cut -c1-64)
hyperfine -N --warmup 1 --runs 20 \
  --prepare "cp orig.txt big.txt" \
  "$A write big.txt --overwrite --expect-hash $H --content-file new.txt" \
  --prepare "cp orig.txt copy.txt" \
  "sed -i 's/^line 00500000 .*/line 00500000 CHANGED/' copy.txt" \
  --prepare "cp orig.txt copy.txt" \
  "sh -c \"sed -i 's/^line 00500000 .*/line 00500000 CHANGED/' copy.txt && sync copy.txt\""

echo "## undo of the first op: after 1 later op vs after 1000"
for n in 1 1000; do
  mkdir -p "$W/u$n" && cd "$W/u$n" && git init -q
  "$A" write first.txt --content "first" > first.json
  for i in $(seq 1 $n); do "$A" write "f$i.txt" --content "$i" > /dev/null; done
done
OP1=$(cd "$W/u1" && python3 -c 'import json;print(json.load(open("first.json"))["op_id"])')
OP1000=$(cd "$W/u1000" && python3 -c 'import json;print(json.load(open("first.json"))["op_id"])')
hyperfine -N -i --warmup 3 --runs 30 \
  "$A --root $W/u1 undo $OP1 --dry-run" \
  "$A --root $W/u1000 undo $OP1000 --dry-run" \
  "$A --root $W/u1 history --limit 10" \
  "$A --root $W/u1000 history --limit 10"
# A real undo writes: undo and redo (undo of the undo) alternate, 20 of each.
for n in 1 1000; do
  OP=$([ $n = 1 ] && echo $OP1 || echo $OP1000)
  t0=$(date +%s%N)
  for i in $(seq 1 20); do
    U=$("$A" --root "$W/u$n" undo "$OP" | python3 -c 'import json,sys;print(json.load(sys.stdin)["op_id"])')
    OP=$U
  done
  t1=$(date +%s%N)
  echo "real undo after $n later ops: $(( (t1 - t0) / 20000 )) us per undo (20 alternating undo/redo)"
done

echo "## fsync count of a small write"
mkdir -p "$W/small" && cd "$W/small" && git init -q
"$A" write warm.txt --content w > /dev/null
echo "new file:"; strace -f -c -e trace=fsync,fdatasync,sync_file_range "$A" write a.txt --content "hello" 2>&1 >/dev/null | grep -E "fsync|fdatasync|total"
H=$(sha256sum a.txt | cut -c1-64)
echo "overwrite:"; strace -f -c -e trace=fsync,fdatasync,sync_file_range "$A" write a.txt --overwrite --expect-hash "$H" --content "bye" 2>&1 >/dev/null | grep -E "fsync|fdatasync|total"
