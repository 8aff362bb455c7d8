#!/usr/bin/env python3
"""Issue 34 row 3, the journal part: `history`, `undo` and `gc` at 100,000
journaled ops against the same at SMALL ops (flat: the ratio stays near 1).

    benches/perf/journal_ops.py BIN [--ops 100000] [--small 1000] [--rounds 15]

The ops are synthesized, since 100,000 real edits would take most of an hour:
two real `edit`s of small.txt by BIN give the journal's line format (the
template), then lines for seq 2..OPS-1 are appended as `append` writes them
(the same keys, a 20-digit op id with a unique 8-hex tail, an id file
`seq offset length` per op and its line in the tail index when the binary keeps one, a blob per before-state, the `usage` counter), each
op changing small.txt from "value K" to "value K+1"; small.txt is left holding
the last op's after-state. `history` and `undo` (of the newest op) must then
answer as on a real journal: every round checks history lists --limit ops, and
that undo left small.txt holding the undone op's before-state (its blob).

Interleaved rounds (side order flipped every round), median wall and CPU
(wait4) of: history; history small.txt (every op touches it: the count reads
every line); history other.txt (no op touches it: a whole scan); undo of the
newest op. Then once on each side: gc --dry-run and gc --budget 64KiB.

With --base BASE, each round also runs BASE's three history calls on the same
journals (interleaved with BIN's, order flipped every round), checks both list
the same op ids, and prints BIN/BASE per call and journal size.
"""
import argparse, hashlib, json, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import spawn  # noqa: E402


def sha(b):
    return hashlib.sha256(b).hexdigest()


def build(binary, root, ops):
    """A workspace and its state with OPS journaled ops; returns (ws, env, state dir)."""
    ws = os.path.join(root, "ws")
    os.makedirs(ws)
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(root, "state"))
    env.pop("AITOOLS_FIXED_TIME", None)
    os.makedirs(env["XDG_STATE_HOME"], mode=0o700)
    subprocess.run(["git", "init", "-q", ws], check=True)
    with open(os.path.join(ws, "small.txt"), "w") as f:
        f.write("value 0\n")
    with open(os.path.join(ws, "other.txt"), "w") as f:
        f.write("untouched\n")
    for k in (0, 1):
        _, _, out, rc, _ = spawn(binary, ["edit", "small.txt", "--old", f"value {k}", "--new", f"value {k + 1}"], env, ws)
        if rc != 0:
            sys.exit(f"journal_ops.py: edit exited {rc}: {out[:300]}")
    (state,) = [os.path.join(env["XDG_STATE_HOME"], "aitools", d)
                for d in os.listdir(os.path.join(env["XDG_STATE_HOME"], "aitools"))]
    jpath = os.path.join(state, "journal", "journal.jsonl")
    with open(jpath, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    tmpl = json.loads(lines[-1])
    base = time.time() - ops  # one op a second, ending now
    offset = sum(len(l) for l in lines)
    blob_bytes = 0
    with open(jpath, "ab") as jf:
        for k in range(2, ops):
            before, after = f"value {k}\n".encode(), f"value {k + 1}\n".encode()
            t = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(base + k))
            e = dict(tmpl, seq=k, op_id=f"op-{t}-{sha(str(k).encode())[:8]}",
                     time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(base + k)),
                     argv=["edit", "small.txt", "--old", f"value {k}", "--new", f"value {k + 1}"])
            ch = dict(tmpl["changes"][0])
            ch["before"] = dict(ch["before"], hash=sha(before))
            ch["after"] = dict(ch["after"], hash=sha(after))
            e["changes"] = [ch]
            line = (json.dumps(e, separators=(",", ":")) + "\n").encode()
            jf.write(line)
            tails = os.path.join(state, "journal", "ids", "by-tail")
            if os.path.isdir(tails):  # the tail index, noted before the id file as append does
                with open(os.path.join(tails, e["op_id"][-8:]), "a") as f:
                    f.write(e["op_id"] + "\n")
            with open(os.path.join(state, "journal", "ids", e["op_id"]), "w") as f:
                f.write(f"{k} {offset} {len(line)}")
            bp = os.path.join(state, "blobs", sha(before))
            if not os.path.exists(bp):
                with open(bp, "wb") as f:
                    f.write(before)
                os.chmod(bp, 0o600)
                blob_bytes += len(before)
            offset += len(line)
    with open(os.path.join(state, "usage")) as f:
        now, last = (int(x) for x in f.read().split())
    with open(os.path.join(state, "usage"), "w") as f:
        f.write(f"{now + blob_bytes} {last}")
    with open(os.path.join(ws, "small.txt"), "w") as f:
        f.write(f"value {ops}\n")
    time.sleep(0.01)
    return ws, env, state


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--ops", type=int, default=100_000)
    ap.add_argument("--small", type=int, default=1_000)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--base", help="a second binary whose history calls run interleaved")
    o = ap.parse_args()
    base_bin = os.path.abspath(o.base) if o.base else None
    binary = os.path.abspath(o.bin)
    tmp = tempfile.mkdtemp(prefix="journal_ops.")
    try:
        t0 = time.time()
        sides = {}
        for name, n in (("small", o.small), ("big", o.ops)):
            sides[name] = build(binary, os.path.join(tmp, name), n)
        print(f"synthesized {o.small:,} and {o.ops:,} ops in {time.time() - t0:.1f} s; "
              f"load {' '.join('%.2f' % x for x in os.getloadavg())}")
        calls = {"history": ["history"], "history small.txt": ["history", "small.txt"],
                 "history other.txt": ["history", "other.txt"], "undo newest": None}
        res = {n: {k: ([], []) for k in calls} for n in sides}
        bres = {n: {k: ([], []) for k in calls if calls[k]} for n in sides}
        newest = {}
        for n, (ws, env, state) in sides.items():
            _, _, out, rc, _ = spawn(binary, ["history", "--limit", "1"], env, ws)
            newest[n] = json.loads(out)["items"][0]["op_id"]
        for i in range(o.rounds + 1):
            order = list(sides) if i % 2 == 0 else list(sides)[::-1]
            for n in order:
                ws, env, state = sides[n]
                for k, args in calls.items():
                    if base_bin and args:
                        pair = [(binary, None), (base_bin, bres[n][k])]
                        mine = None
                        for b, into in (pair if i % 2 == 0 else pair[::-1]):
                            wall, cpu, out, rc, _ = spawn(b, args, env, ws)
                            ids = [it["op_id"] for it in json.loads(out)["items"]]
                            if mine is not None and ids != mine:
                                sys.exit(f"journal_ops.py: {n} {k}: BIN and BASE list other ops")
                            mine = ids
                            if into is not None and i > 0:
                                into[0].append(wall)
                                into[1].append(cpu)
                    if args is None:
                        before = open(os.path.join(ws, "small.txt"), "rb").read()
                        args = ["undo", newest[n]]
                    wall, cpu, out, rc, _ = spawn(binary, args, env, ws)
                    ans = json.loads(out)
                    if k == "undo newest":
                        if rc != 0:
                            sys.exit(f"journal_ops.py: {n} undo exited {rc}: {out[:300]}")
                        newest[n] = ans["op_id"]
                        now = open(os.path.join(ws, "small.txt"), "rb").read()
                        if now == before:
                            sys.exit(f"journal_ops.py: {n} undo left small.txt as it was")
                    elif k != "history other.txt" and len(ans["items"]) != 50:
                        sys.exit(f"journal_ops.py: {n} {k} listed {len(ans['items'])} ops")
                    elif k == "history other.txt" and ans["items"]:
                        sys.exit(f"journal_ops.py: {n} {k} listed {ans['items'][:1]}")
                    if i > 0:  # round 0 warms the page cache
                        res[n][k][0].append(wall)
                        res[n][k][1].append(cpu)
        print(f"{o.rounds} rounds interleaved; load {' '.join('%.2f' % x for x in os.getloadavg())}")
        med = lambda xs: statistics.median(xs) * 1e3
        for k in calls:
            s, b = res["small"][k], res["big"][k]
            print(f"{k:20} {o.small:>7,} ops {med(s[0]):8.2f} ms (cpu {med(s[1]):7.2f})  "
                  f"{o.ops:>7,} ops {med(b[0]):8.2f} ms (cpu {med(b[1]):7.2f})  "
                  f"big/small wall {med(b[0]) / med(s[0]):.2f} cpu {med(b[1]) / max(med(s[1]), 1e-9):.2f}")
        for k in (k for k in calls if base_bin and calls[k]):
            for n in sides:
                a, b = res[n][k], bres[n][k]
                print(f"{k:20} {n:5} BIN {med(a[0]):8.2f} ms (cpu {med(a[1]):7.2f})  BASE {med(b[0]):8.2f} ms "
                      f"(cpu {med(b[1]):7.2f})  BIN/BASE wall {med(a[0]) / med(b[0]):.3f} cpu {med(a[1]) / max(med(b[1]), 1e-9):.3f}")
        for n, (ws, env, state) in sides.items():
            for args in (["gc", "--dry-run"], ["gc", "--budget", "64KiB"]):
                wall, cpu, out, rc, _ = spawn(binary, args, env, ws)
                ans = json.loads(out)
                brief = {k: v for k, v in ans.items() if k not in ("schema_version", "command")}
                print(f"{' '.join(args):20} {n:5} {wall * 1e3:9.1f} ms (cpu {cpu * 1e3:8.1f}) exit {rc} "
                      f"{json.dumps(brief)[:200]}")
            print(f"{'':20} {n:5} blobs left {len(os.listdir(os.path.join(state, 'blobs')))}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
