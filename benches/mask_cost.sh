#!/bin/sh
# What the secret mask costs on content dense with hashes and base64 (issue 10):
# a full `read` of 10 MB of hashes, commit ids, base64 lines and integrity strings
# against the same read of 10 MB of neutral text (this crate's own sources), and a
# read of 200k MIME base64 lines (shown in full since issue 29: 300k would pass the 16 MiB envelope cap). Prints hyperfine's table; the figure is the ratio
# dense / neutral (goal <= 1.25).
# With BASE (an earlier release's binary, e.g. built from a `git worktree` of the
# 0.2.0 commit), also times the neutral read with it and prints the ratio
# neutral(BIN) / neutral(BASE), wall and CPU (goal: neutral text no slower, <= 1.0
# within noise).
# Usage: benches/mask_cost.sh [path/to/aitools [path/to/base/aitools]]
#   (default: target/release/aitools, no base)
# Needs hyperfine and python3. Works in a temporary git repository.
set -eu
BIN=$(realpath "${1:-target/release/aitools}")
BASE=${2:+$(realpath "$2")}
SRC=$(realpath "$(dirname "$0")/../src")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
git init -q
export XDG_STATE_HOME="$W/.state"
python3 - "$SRC" <<'PY'
import base64, hashlib, os, random, sys
rnd = random.Random(7)
def rb(n):
    return bytes(rnd.getrandbits(8) for _ in range(n))
lines, size, i = [], 0, 0
while size < 10 * 1024 * 1024:
    k = i % 5
    if k == 0:
        l = hashlib.sha256(str(i).encode()).hexdigest()
    elif k == 1:
        l = "commit " + hashlib.sha1(str(i).encode()).hexdigest()
    elif k == 2:
        l = base64.b64encode(rb(48)).decode()
    elif k == 3:
        l = '"integrity": "sha512-' + base64.b64encode(hashlib.sha512(str(i).encode()).digest()).decode() + '",'
    else:
        l = base64.b64encode(rb(57)).decode()
    lines.append(l); size += len(l) + 1; i += 1
open("dense.txt", "w").write("\n".join(lines) + "\n")
open("b64.txt", "w").write("\n".join(base64.b64encode(rb(57)).decode() for _ in range(200000)) + "\n")
src = []
for root, _, files in sorted(os.walk(sys.argv[1])):
    for f in sorted(files):
        src += open(os.path.join(root, f), errors="replace").read().splitlines()
out, size, j = [], 0, 0
while size < 10 * 1024 * 1024:
    l = src[j % len(src)]; out.append(l); size += len(l) + 1; j += 1
open("neutral.txt", "w").write("\n".join(out) + "\n")
PY
N=$(wc -l < neutral.txt); D=$(wc -l < dense.txt); B=$(wc -l < b64.txt)
hyperfine -N --warmup 2 --runs 10 --export-markdown mask_cost.md \
  -n 'read neutral 10 MB' "$BIN read neutral.txt --max-lines $N" \
  -n 'read dense 10 MB' "$BIN read dense.txt --max-lines $D" \
  -n 'read 200k base64 lines' "$BIN read b64.txt --max-lines $B"
cat mask_cost.md
if [ -n "$BASE" ]; then
  hyperfine -N --warmup 2 --runs 15 --export-json neutral.json \
    -n 'base: read neutral 10 MB' "$BASE read neutral.txt --max-lines $N" \
    -n 'this: read neutral 10 MB' "$BIN read neutral.txt --max-lines $N"
  python3 - <<'PY'
import json
r = json.load(open("neutral.json"))["results"]
base, this = r[0], r[1]
cpu = lambda x: x["user"] + x["system"]
print(f"neutral 10 MB: base {base['median']:.3f} s wall, {cpu(base):.3f} s CPU; "
      f"this {this['median']:.3f} s wall, {cpu(this):.3f} s CPU")
print(f"ratio this/base: wall {this['median'] / base['median']:.3f}x, CPU {cpu(this) / cpu(base):.3f}x")
PY
fi
