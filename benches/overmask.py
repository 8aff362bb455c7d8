#!/usr/bin/env python3
"""Over-masking on real code: `read` every tracked text file of a git checkout and
count the answers' `redactions`; prints each masked line next to its original.
Usage: overmask.py AITOOLS_BIN REPO_DIR"""
import json, os, subprocess, sys, tempfile
BIN, REPO = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
st = tempfile.mkdtemp(); os.chmod(st, 0o700)
env = dict(os.environ, XDG_STATE_HOME=st)
files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True).stdout.split()
total, hit = 0, 0
for f in files:
    p = subprocess.run([BIN, "read", f, "--max-lines", "100000"], cwd=REPO, capture_output=True, env=env)
    try:
        a = json.loads(p.stdout)
    except ValueError:
        continue
    n = a.get("redactions", 0)
    if not n:
        continue
    total += n; hit += 1
    raw = open(os.path.join(REPO, f), errors="replace").read().split("\n")
    for i, l in enumerate(a.get("lines", [])):
        if "[REDACTED_SECRET]" in l:
            o = raw[a.get("start_line", 1) - 1 + i] if a.get("start_line", 1) - 1 + i < len(raw) else "?"
            print(f"{f}:{a.get('start_line',1)+i}: {o.strip()[:140]}")
print(json.dumps({"files": len(files), "files_masked": hit, "redactions": total}))
