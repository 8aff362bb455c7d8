#!/usr/bin/env bash
# AOI JSONL mode: the two figures of issue 15 on the shared corpus.
#
#   benches/aoi.sh                 # PATTERN=ERR_TIMEOUT RUNS=20
#
# 1. Whole search, `--output jsonl` against the envelope (hyperfine, release build).
# 2. Time to the first domain event (a search block) against the whole search,
#    in the same runs: median over RUNS, read from the pipe as the lines arrive.
# The corpus is made with /work/shared/bench/make-corpus.py under a temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${SKIP_BUILD:-}" ] || cargo build --release -q
BIN="$PWD/target/release/aitools"
CORPUS_SCRIPT="${CORPUS_SCRIPT:-/work/shared/bench/make-corpus.py}"
PATTERN="${PATTERN:-ERR_TIMEOUT}"
RUNS="${RUNS:-20}"
TMP="${CORPUS_DIR:-}"
if [ -z "$TMP" ]; then
  TMP="$(mktemp -d)"
  trap 'rm -rf "$TMP"' EXIT
fi
[ -d "$TMP/corpus" ] || python3 "$CORPUS_SCRIPT" "$TMP/corpus" --files 1000 --mb 40 >/dev/null
cd "$TMP/corpus"
"$BIN" search "$PATTERN" . >/dev/null || true # warm the page cache

echo "== whole search: envelope vs --output jsonl"
hyperfine -N -i -w 3 -r "$RUNS" --export-json "$TMP/h.json" \
  "$BIN search $PATTERN ." "$BIN search $PATTERN . --output jsonl" | grep -E 'Benchmark|Time'
python3 - "$TMP/h.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
env, jl = r[0]["median"], r[1]["median"]
print(f"median envelope {env*1000:.1f} ms, jsonl {jl*1000:.1f} ms, ratio {jl/env:.3f} (target <= 1.1)")
PY

echo "== time to first event vs whole search (--output jsonl)"
python3 - "$BIN" "$PATTERN" "$RUNS" <<'PY'
import subprocess, sys, time, statistics, json
binary, pattern, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
firsts, wholes = [], []
for _ in range(runs):
    t0 = time.perf_counter()
    p = subprocess.Popen([binary, "search", pattern, ".", "--output", "jsonl"],
                         stdout=subprocess.PIPE, bufsize=0)
    first = None
    buf = b""
    while True:
        chunk = p.stdout.read1(65536) if hasattr(p.stdout, "read1") else p.stdout.read(65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            kind = json.loads(line)["type"]
            if first is None and not kind.startswith("aoi:"):
                first = time.perf_counter() - t0
    p.wait()
    whole = time.perf_counter() - t0
    if first is not None:
        firsts.append(first)
        wholes.append(whole)
f, w = statistics.median(firsts), statistics.median(wholes)
print(f"median first event {f*1000:.1f} ms, whole {w*1000:.1f} ms, ratio {f/w:.3f} (target <= 0.2)")
PY
