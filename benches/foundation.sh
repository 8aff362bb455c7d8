#!/usr/bin/env bash
# Foundation performance, side by side in one run:
#   1. start-up: `aitools --version` vs `rg --version`          (target <= 1.5x)
#   2. `read --range` in the middle of a 150 MB file vs `sha256sum` on it (target <= 0.5x)
#   3. peak RSS of streaming reads of that file               (target < 64 MB)
#   4. the secret mask on a 10 MB envelope vs writing it      (target <= 25%)
# Needs hyperfine, rg, python3 and GNU time (/usr/bin/time). Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN="$PWD/target/release/aitools"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
git init -q .
python3 - <<'PY'
import random
random.seed(1)
with open("big.txt", "w") as f:
    size, i = 0, 0
    while size < 150 * 1024 * 1024:
        i += 1
        line = f"line {i} " + "x" * random.randint(20, 120) + "\n"
        f.write(line)
        size += len(line)
PY
LINES=$(wc -l < big.txt)
MID=$((LINES / 2))

ratio() { # ratio <json> : mean of command 1 / mean of command 2
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print("%.2f ms vs %.2f ms = %.2fx" % (r[0]["mean"]*1e3, r[1]["mean"]*1e3, r[0]["mean"]/r[1]["mean"]))' "$1"
}

hyperfine -N --warmup 20 --export-json start.json "$BIN --version" "rg --version" >/dev/null 2>&1
hyperfine -N --warmup 3 --runs 15 --export-json range.json \
    "$BIN read big.txt --range $MID:$((MID + 20))" "sha256sum big.txt" >/dev/null 2>&1

rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk '/Maximum resident/ {print $6}'; }

printf '%-46s %s\n' "measure" "result"
printf '%-46s %s\n' "start-up: --version vs rg --version" "$(ratio start.json)  (target <= 1.5x)"
printf '%-46s %s\n' "read --range mid of $(du -m big.txt | cut -f1) MB vs sha256sum" "$(ratio range.json)  (target <= 0.5x)"
for args in "read big.txt --range $MID:$((MID + 20))" "read big.txt --tail 50" \
            "read big.txt --match ^line.$MID\$" "read big.txt --as strings --bytes $((MID * 80)):" \
            "info big.txt --digest md5"; do
    printf '%-46s %s KB peak RSS  (target < 65536)\n' "$args" "$(rss $BIN $args)"
done
cd - >/dev/null
printf '%-46s %s\n' "mask vs write, 10 MB envelope" "$(cargo bench --quiet --bench redact 2>/dev/null | tail -1)"
