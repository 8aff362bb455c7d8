#!/bin/bash
# find_same.sh BIN BASE DIR: BIN and BASE answer `find` byte for byte alike in DIR
# (read only): the --sort orders, --limit below and above the entry count, the
# filters, --long, and the paths that keep the full walk (--sizes, --empty, tree).
# h-perf8 (issue 34). A 100k-file DIR that fits the disk: make-corpus.py, then
# h-perf8's sparse rewrite (sizes kept, no blocks) and random mtimes (see RESULTS.md).
HERE=$(cd "$(dirname "$0")" && pwd) || exit 2
cd "${3:?DIR}" || exit 2
XDG_STATE_HOME=$(mktemp -d) || exit 2
trap 'rm -rf "$XDG_STATE_HOME"' EXIT
export XDG_STATE_HOME
. "$HERE/same_answers.sh"
same_answers "$1" "$2" "find" <<CASES

--limit 0
--limit 10
--limit 200000
--sort size --limit 10
--sort size --limit 200000
--sort mtime --limit 10
--sort mtime --limit 200000
--type dir
--type file --limit 300
--type symlink
--long --limit 100
--long --limit 200000
'*7.*' --sort size --limit 50
--executable --sort size --limit 3
--min-size 1KiB --max-size 4KiB --sort size --limit 40
--depth 2 --sort mtime --limit 10
--fields size,mtime --sort mtime --limit 25
--output tree --limit 30
--empty --limit 10
--sizes --limit 10
CASES
