#!/bin/bash
# git_log_p_same.sh BIN BASE [REPO]: BIN and BASE answer `git log -p` byte for byte
# alike (a page, a path, a merge, a root commit, a rename, a budget-cut page) in
# REPO (default /tmp/tk5-flask, a flask clone; read only). h-perf7 (issue 34).
HERE=$(cd "$(dirname "$0")" && pwd) || exit 2
cd "${3:-/tmp/tk5-flask}" || exit 2
XDG_STATE_HOME=$(mktemp -d) || exit 2
trap 'rm -rf "$XDG_STATE_HOME"' EXIT
export XDG_STATE_HOME AITOOLS_FIXED_TIME=1796472000 AITOOLS_SEED=1
M=$(git rev-list --merges -n1 HEAD); R=$(git rev-list --max-parents=0 HEAD | tail -1)
REN=$(git log -M --diff-filter=R --format=%H -n1)
. "$HERE/same_answers.sh"
same_answers "$1" "$2" "git log -p" <<CASES
--limit 1
--limit 20
--limit 20 src/flask/app.py
--limit 1 --rev $M
--limit 3 --rev $M
--limit 1 --rev $R
--limit 20 --rev $R~0
--limit 5 --rev $R
--limit 5 --skip 3
--limit 100 docs
--limit 40 --skip 200 --full
--limit 3 --rev $REN
--limit 10 --rev $REN~2 tests
--limit 30 nothing-here.txt
--limit 200 CHANGES.rst
--limit 60 --skip 2000 src
CASES
