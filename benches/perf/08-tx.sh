#!/usr/bin/env bash
# Issue 12 row 8: 100 edits in a tx + commit vs 100 plain edits.
# Times both sides interleaved (ab.py), each round on a fresh copy of the fixture,
# and checks every round that both left the same bytes (SHA-256 per file).
# Env: BIN (default: a release build), RUNS; see benches/perf_write.sh for the rest.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -n "${BIN:-}" ] || { cargo build --release -q; BIN=target/release/aitools; }
exec benches/perf_write.sh "$BIN" tx
