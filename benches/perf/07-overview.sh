#!/usr/bin/env bash
# Issue 12 row 7: `overview` vs `rg --files`, same corpus.
# Checks both sides give identical results, then times them interleaved.
# Env: BIN (default: a release build), RUNS; see benches/perf_read.sh for the rest.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec benches/perf_read.sh overview
