#!/usr/bin/env bash
# Issue 12 row 4: `write` ~9 MB vs `cp` + `sync`.
# Times both sides interleaved (ab.py), each round on a fresh copy of the fixture,
# and checks every round that both left the same bytes (SHA-256 per file).
# Env: BIN (default: a release build), RUNS, BASE (another aitools as side B); see benches/perf_write.sh for the rest.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -n "${BIN:-}" ] || { cargo build --release -q; BIN=target/release/aitools; }
exec benches/perf_write.sh "$BIN" write
