#!/usr/bin/env bash
# Issue 12 row 1: `read --tail 20` (165 MB / 1 GB; first read vs sha256sum, repeat vs tail -n 20).
# Checks both sides give identical results, then times them interleaved.
# Env: BIN (default: a release build), RUNS; see benches/perf_read.sh for the rest.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec benches/perf_read.sh tail
