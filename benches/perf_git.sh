#!/usr/bin/env bash
# Issue 34 row 5, the git family: `aitools git status` / `git log --limit 5` against
# git itself (goal: wrapper overhead <= 1.2x), and against another build (BASE).
# Each row first checks that both sides answer the same (status: branch, changed and
# untracked paths; log: the commits' shas), then times them through benches/perf/ab.py
# (interleaved A/B, median wall and CPU).
#
# REPO: a git work tree to copy (default: the ripgrep mirror when fetched, else this
# repository). The copy gets one modified and one untracked file, and one plain
# `git status` first: aitools runs git with GIT_OPTIONAL_LOCKS=0 (it never takes the
# index lock), so it never refreshes a stale index itself; measured on a fresh clone
# both sides would pay git's re-hash of racily clean entries, ours on every run.
#
#   benches/perf_git.sh                          BIN: target/release/aitools
#   BASE=/tmp/aitools-main RUNS=40 REPO=/path/to/repo benches/perf_git.sh
set -euo pipefail
cd "$(dirname "$0")/.."
HERE="$PWD"
if [ -z "${BIN:-}" ]; then cargo build --release -q; BIN="$PWD/target/release/aitools"; fi
RUNS="${RUNS:-40}"
WARMUP="${WARMUP:-5}"
MIRROR=/work/.mirror/BurntSushi+ripgrep/repo
REPO="${REPO:-$([ -d "$MIRROR" ] && echo "$MIRROR" || echo "$HERE")}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export XDG_STATE_HOME="$TMP/state"; mkdir -p -m 700 "$XDG_STATE_HOME"
WS="$TMP/repo"
git clone -q "$REPO" "$WS"
cd "$WS"
first=$(git ls-files | head -1)
printf 'changed\n' >> "$first"
printf 'new\n' > untracked-bench.txt
git status >/dev/null
echo "repo: $REPO ($(git rev-list --count HEAD) commits, $(git ls-files | wc -l) files)"

same_status() { # BIN: branch, changed paths and untracked paths as git says
  "$1" git status > "$TMP/a.json" || true
  git status --porcelain=v2 --branch -z > "$TMP/b.txt"
  python3 - "$TMP/a.json" "$TMP/b.txt" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
recs = open(sys.argv[2], "rb").read().decode().split("\0")
branch = next(r.split(" ", 2)[2] for r in recs if r.startswith("# branch.head "))
untracked = sorted(r[2:] for r in recs if r.startswith("? "))
changed = sorted(r.split(" ", 8)[8] for r in recs if r.startswith("1 "))
got_changed = sorted({e["path"] for e in a["staged"] + a["unstaged"]})
if (a["branch"], sorted(a["untracked"]), got_changed) != (branch, untracked, changed):
    sys.exit("RESULTS DIFFER (status): %s vs %s" % ((a["branch"], a["untracked"], got_changed), (branch, untracked, changed)))
PY
}
same_log() { # BIN: the five newest commits' shas
  # items are rows of the values `fields` names (schema 6), the short sha by default
  "$1" git log --limit 5 --full | python3 -c 'import json,sys; a=json.load(sys.stdin); k=a["fields"].index("sha"); print("\n".join(i[k] for i in a["items"]))' > "$TMP/a.txt"
  git log -5 --format=%H > "$TMP/b.txt"
  cmp -s "$TMP/a.txt" "$TMP/b.txt" || { echo "RESULTS DIFFER (log)"; exit 1; }
}
for b in "$BIN" ${BASE:+"$BASE"}; do same_status "$b"; same_log "$b"; done
echo "results: identical to git's"
AB() { python3 "$HERE/benches/perf/ab.py" "$@" --runs "$RUNS" --warmup "$WARMUP"; }
AB "git status vs git" "$BIN git status" "git status --porcelain=v2 --branch -z"
AB "git log --limit 5 vs git" "$BIN git log --limit 5" "git log -5 --format=%H%x00%an%x00%aI%x00%s"
AB "--version vs git --version" "$BIN --version" "git --version"
if [ -n "${BASE:-}" ]; then
  AB "git status: this vs BASE" "$BIN git status" "$BASE git status"
  AB "git log --limit 5: this vs BASE" "$BIN git log --limit 5" "$BASE git log --limit 5"
fi
