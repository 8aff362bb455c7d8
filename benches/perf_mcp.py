#!/usr/bin/env python3
"""Issue 34 row 4: the MCP server as agents use it.

    benches/perf_mcp.py BIN [--calls 1000] [--fs-server PATH|none] [--files 300] [--base BASE]

One persistent `BIN mcp` (stdio, JSON-RPC: initialize, then tools/call) serves
CALLS sequential calls, a loop of four: read a small file, search, a one-line
edit, undo that edit. The same calls are timed on two other sides:

  cli  BIN spawned once per call (read, search, edit, undo OP_ID): what a host
       without MCP pays;
  fs   the official filesystem server (npm @modelcontextprotocol/server-filesystem,
       Node), when --fs-server names its dist/index.js (default: looked up under
       /tmp/fsmcp and ./node_modules, where `npm install --prefix /tmp/fsmcp
       @modelcontextprotocol/server-filesystem` puts it; `none` skips it). Its equivalents:
       read_text_file; search_files (it has no content search: a name glob over
       the same tree, a lighter job, timed in search's place); edit_file; undo is
       edit_file with the texts swapped (it keeps no journal);
  base a persistent `BASE mcp` (another build), when --base names one: its
       answers must equal BIN's server's (op ids aside), and `mcp / base` is
       printed.

Each side has its own copy of the same workspace (a git repo: small.txt of 60
lines, FILES source files of ~1.5 KB, ERR_TIMEOUT in every 50th) and its own
state dir. Rounds are interleaved (side order rotates every round) so load hits
all sides alike. Checked every round, or the run stops: read answers the file's
lines; the MCP answer of read and search is the CLI's envelope; after each edit
and each undo every side's small.txt holds the same bytes; fs's search_files
names the files a Python glob names.

Per side and call kind: p50/p99 latency (request written to reply read; for cli,
spawn to exit with the output read), CPU per call (servers: utime+stime+cutime+
cstime from /proc/PID/stat, summed over the kind's calls, / calls, so the 10 ms
tick averages out; cli: wait4's rusage), RSS at call 1, CALLS/2 and CALLS (servers:
VmRSS; cli: median peak RSS of one call). Load average at start and end.
"""
import argparse, glob, hashlib, json, os, select, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "perf"))
from common import spawn  # noqa: E402

KINDS = ("read", "search", "edit", "undo")
TICK = os.sysconf("SC_CLK_TCK")
PROTO = "2025-06-18"


def make_workspace(root, files):
    os.makedirs(os.path.join(root, "src"))
    with open(os.path.join(root, "small.txt"), "w") as f:
        for i in range(60):
            f.write(f"row {i:03d} alpha: value {i * 7 % 13} of the small file\n")
    words = "let fn struct impl match return self value result error config path".split()
    for i in range(files):
        d = os.path.join(root, "src", f"d{i % 10}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i:04d}.rs"), "w") as f:
            for j in range(40):
                if i % 50 == 0 and j == 20:
                    f.write('    log::warn!("ERR_TIMEOUT after 30ms");\n')
                else:
                    f.write("    " + " ".join(words[(i * 7 + j * 3 + k) % len(words)] for k in range(6)) + "\n")
    subprocess.run(["git", "init", "-q", root], check=True)
    subprocess.run(["git", "-C", root, "add", "."], check=True)
    subprocess.run(["git", "-C", root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init"], check=True)


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def proc_cpu(pid):
    """utime+stime+cutime+cstime of a process, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in rest[11:15]) / TICK


def proc_rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for l in f:
            if l.startswith("VmRSS:"):
                return int(l.split()[1])
    return 0


class Server:
    """A stdio MCP server: one JSON-RPC message a line each way."""

    def __init__(self, argv, env, cwd):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        self.buf = b""
        self.next_id = 1
        self.request("initialize", {"protocolVersion": PROTO, "capabilities": {},
                                    "clientInfo": {"name": "perf_mcp", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()

    def line(self):
        fd = self.p.stdout.fileno()
        while b"\n" not in self.buf:
            select.select([fd], [], [], 30)
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                sys.exit("perf_mcp.py: a server closed its output")
            self.buf += chunk
        l, self.buf = self.buf.split(b"\n", 1)
        return json.loads(l)

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            m = self.line()
            if m.get("id") == i and "method" not in m:
                if "error" in m:
                    sys.exit(f"perf_mcp.py: {method} answered {m['error']}")
                return m["result"]
            if "method" in m and "id" in m:  # a request of the server's: refuse it
                self.send({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}})

    def call(self, name, args):
        r = self.request("tools/call", {"name": name, "arguments": args})
        if r.get("isError"):
            sys.exit(f"perf_mcp.py: {name} {args} failed: {json.dumps(r)[:400]}")
        return r

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


class Side:
    def __init__(self, name, ws):
        self.name, self.ws = name, ws
        self.lat = {k: [] for k in KINDS}
        self.cpu = {k: 0.0 for k in KINDS}
        self.rss = {}
        self.calls = 0


class McpSide(Side):
    def __init__(self, name, ws, server):
        super().__init__(name, ws)
        self.s = server

    def timed(self, kind, tool, args):
        pid = self.s.p.pid
        c0 = proc_cpu(pid)
        t0 = time.perf_counter()
        r = self.s.call(tool, args)
        wall = time.perf_counter() - t0
        self.cpu[kind] += proc_cpu(pid) - c0
        self.lat[kind].append(wall)
        self.calls += 1
        self.rss.setdefault(self.calls, proc_rss(pid))
        return r


class Ours(McpSide):
    def read(self):
        return self.timed("read", "read", {"path": "small.txt"})["structuredContent"]

    def search(self):
        return self.timed("search", "search", {"pattern": "ERR_TIMEOUT"})["structuredContent"]

    def edit(self, old, new):
        return self.timed("edit", "edit", {"path": "small.txt", "old": old, "new": new})["structuredContent"]

    def undo(self, op, old, new):
        return self.timed("undo", "undo", {"op_id": op})["structuredContent"]


class Fs(McpSide):
    def read(self):
        r = self.timed("read", "read_text_file", {"path": os.path.join(self.ws, "small.txt")})
        return r["content"][0]["text"]

    def search(self):
        r = self.timed("search", "search_files", {"path": self.ws, "pattern": "**/f*0.rs",
                                                  "excludePatterns": [".git"]})
        return r["content"][0]["text"]

    def edit(self, old, new, kind="edit"):
        return self.timed(kind, "edit_file", {"path": os.path.join(self.ws, "small.txt"),
                                              "edits": [{"oldText": old, "newText": new}]})

    def undo(self, op, old, new):
        return self.edit(new, old, "undo")


class Cli(Side):
    def __init__(self, name, ws, binary, env):
        super().__init__(name, ws)
        self.binary, self.env = binary, env
        self.maxrss = []

    def timed(self, kind, args):
        wall, cpu, out, rc, maxrss = spawn(self.binary, args, self.env)
        if rc != 0:
            sys.exit(f"perf_mcp.py: cli {args} exited {rc}: {out[:300]}")
        self.lat[kind].append(wall)
        self.cpu[kind] += cpu
        self.maxrss.append(maxrss)
        self.calls += 1
        return json.loads(out)

    def read(self):
        return self.timed("read", ["read", "small.txt"])

    def search(self):
        return self.timed("search", ["search", "ERR_TIMEOUT"])

    def edit(self, old, new):
        return self.timed("edit", ["edit", "small.txt", "--old", old, "--new", new])

    def undo(self, op, old, new):
        return self.timed("undo", ["undo", op])


def strip(env):
    """An envelope without what differs between two sides' stores (op ids)."""
    return {k: v for k, v in env.items() if k != "op_id"}


def round_(sides, i, expect_text, expect_search, expect_blocks):
    line = i % 60
    old = f"row {line:03d} alpha"
    new = f"row {line:03d} beta {i}"
    got = {}
    order = sides[i % len(sides):] + sides[:i % len(sides)]
    for s in order:
        g = got[s.name] = {}
        g["read"] = s.read()
        g["search"] = s.search()
        e = s.edit(old, new)
        g["edit"] = e
        g["edited"] = sha(os.path.join(s.ws, "small.txt"))
        op = e.get("op_id") if isinstance(e, dict) else None
        g["undo"] = s.undo(op, old, new)
        g["undone"] = sha(os.path.join(s.ws, "small.txt"))
    for name, g in got.items():
        text = g["read"] if name == "fs" else "".join(l + "\n" for l in g["read"]["lines"])
        if text != expect_text:
            sys.exit(f"perf_mcp.py: round {i}: {name} read differs from the file")
        if name == "fs":
            listed = sorted(g["search"].splitlines())
            if listed != expect_search:
                sys.exit(f"perf_mcp.py: round {i}: fs search_files {listed[:3]} != glob {expect_search[:3]}")
        elif g["search"]["status"] != "ok" or len(g["search"]["blocks"]) != expect_blocks:
            sys.exit(f"perf_mcp.py: round {i}: {name} search answered {g['search']}")
    for other in ("cli", "base"):
        if "mcp" not in got or other not in got:
            continue
        for k in ("read", "search", "edit", "undo"):
            if strip(got["mcp"][k]) != strip(got[other][k]):
                sys.exit(f"perf_mcp.py: round {i}: mcp {k} {strip(got['mcp'][k])} != {other} {strip(got[other][k])}")
    for k in ("edited", "undone"):
        if len({g[k] for g in got.values()}) != 1:
            sys.exit(f"perf_mcp.py: round {i}: small.txt differs between sides after {k}")


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def report(sides, calls):
    rows = {}
    for s in sides:
        allat = [x for k in KINDS for x in s.lat[k]]
        n = {k: len(s.lat[k]) for k in KINDS}
        r = {k: (statistics.median(s.lat[k]), pct(s.lat[k], 99), s.cpu[k] / n[k]) for k in KINDS}
        r["all"] = (statistics.median(allat), pct(allat, 99), sum(s.cpu.values()) / len(allat))
        rows[s.name] = r
        for k in (*KINDS, "all"):
            p50, p99, cpu = r[k]
            print(f"{s.name:4} {k:6} p50 {p50 * 1e3:7.2f} ms  p99 {p99 * 1e3:7.2f} ms  cpu/call {cpu * 1e3:6.2f} ms")
        if isinstance(s, Cli):
            print(f"{s.name:4} rss    median peak of one call {statistics.median(s.maxrss)} KiB")
        else:
            pts = [1, calls // 2, calls]
            print(f"{s.name:4} rss    " + "  ".join(f"call {c}: {s.rss.get(c, 0)} KiB" for c in pts))
    for ref in ("fs", "cli", "base"):
        if ref in rows and "mcp" in rows:
            a, b = rows["mcp"], rows[ref]
            q = lambda x, y: f"{x / y:.2f}" if y else "-"
            print(f"mcp / {ref}: " + "  ".join(
                f"{k} p50 {q(a[k][0], b[k][0])} p99 {q(a[k][1], b[k][1])} cpu {q(a[k][2], b[k][2])}"
                for k in (*KINDS, "all")))
    return rows


def find_fs(arg):
    if arg == "none":
        return None
    cands = [arg] if arg else [
        "/tmp/fsmcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
        "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"]
    for c in cands:
        if c and os.path.isfile(c) and shutil.which("node"):
            return os.path.abspath(c)
    print("fs server: not found (npm install --prefix /tmp/fsmcp @modelcontextprotocol/server-filesystem,"
          " or --fs-server PATH); measuring mcp and cli only")
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--fs-server")
    ap.add_argument("--json")
    ap.add_argument("--base", help="another build's binary, served as side `base`")
    o = ap.parse_args()
    binary = os.path.abspath(o.bin)
    fs = find_fs(o.fs_server)
    tmp = tempfile.mkdtemp(prefix="perf_mcp.")
    try:
        print(f"load at start: {' '.join('%.2f' % x for x in os.getloadavg())}")
        sides = []
        base = dict(os.environ)
        base.pop("AITOOLS_FIXED_TIME", None)
        for name in ("mcp", "cli") + (("fs",) if fs else ()) + (("base",) if o.base else ()):
            ws = os.path.join(tmp, name, "ws")
            make_workspace(ws, o.files)
            env = dict(base, XDG_STATE_HOME=os.path.join(tmp, name, "state"))
            os.makedirs(env["XDG_STATE_HOME"], mode=0o700)
            if name in ("mcp", "base"):
                b = binary if name == "mcp" else os.path.abspath(o.base)
                sides.append(Ours(name, ws, Server([b, "mcp", "--root", ws], env, ws)))
            elif name == "cli":
                os.chdir(ws)  # the spawned CLI's working directory (the servers have their root)
                sides.append(Cli(name, ws, binary, env))
            else:
                sides.append(Fs(name, ws, Server(["node", fs, ws], env, ws)))
        expect_text = open(os.path.join(sides[0].ws, "small.txt")).read()
        rounds = o.calls // len(KINDS)
        fsws = os.path.join(tmp, "fs", "ws")
        expect_search = sorted(glob.glob(os.path.join(fsws, "**", "f*0.rs"), recursive=True))
        for i in range(rounds):
            round_(sides, i, expect_text, expect_search, (o.files + 49) // 50)
        print(f"load at end: {' '.join('%.2f' % x for x in os.getloadavg())}; "
              f"{rounds} rounds, {rounds * len(KINDS)} calls a side, every round checked identical")
        rows = report(sides, rounds * len(KINDS))
        if o.json:
            with open(o.json, "w") as f:
                json.dump({"rows": rows, "rss": {s.name: s.rss for s in sides if not isinstance(s, Cli)},
                           "load": os.getloadavg()}, f)
        for s in sides:
            if isinstance(s, McpSide):
                s.s.close()
    finally:
        os.chdir("/")
        shutil.rmtree(tmp, ignore_errors=True)


main()
