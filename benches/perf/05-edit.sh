#!/usr/bin/env bash
# Issue 12 row 5: one-line `edit` of a 44 MB file vs `sed -i` (+ peak RSS).
# Checks both sides leave identical files, then times them (perf_write.sh row).
# Env: BIN (default: a release build), RUNS; see benches/perf_write.sh for the rest.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -n "${BIN:-}" ] || { cargo build --release -q; BIN=target/release/aitools; }
exec benches/perf_write.sh "$BIN" edit
