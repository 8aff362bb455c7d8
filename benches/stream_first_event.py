#!/usr/bin/env python3
"""When `--output jsonl search` shows its first domain event, and when it ends
(medians of N runs), for each binary given, on the tree in the current directory.
Usage: cd TREE && stream_first_event.py BIN [BIN...]  (N=12; XDG_STATE_HOME a 0700 dir)
Example: a copy of the Python stdlib, git-initialised; base vs branch."""
import os, statistics, subprocess, sys, time

N = int(os.environ.get("N", "12"))
CASES = (["password", ".", "--limit", "1"], ["def", ".", "--limit", "20"], ["def", ".", "--limit", "2000"])
for args in CASES:
    for b in sys.argv[1:]:
        firsts, ends = [], []
        for _ in range(N):
            t = time.monotonic()
            p = subprocess.Popen([b, "--output", "jsonl", "search"] + args, stdout=subprocess.PIPE)
            first = None
            for line in p.stdout:
                if first is None and not line.startswith(b'{"type":"aoi:'):
                    first = time.monotonic() - t
            p.wait()
            ends.append(time.monotonic() - t)
            firsts.append(first if first is not None else ends[-1])
        print("%-28s %-40s first event %4.0f ms, end %4.0f ms" % (
            " ".join(args), b[-40:], statistics.median(firsts) * 1000, statistics.median(ends) * 1000))
