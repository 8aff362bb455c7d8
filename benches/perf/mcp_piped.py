#!/usr/bin/env python3
"""Server CPU per MCP tool call, BIN against BASE: CALLS `tools/call`s written at
once to one `mcp --root WS` (no waiting between calls), so what is timed is the
server's own work per call (parse, argv, state directory checks, the command,
the reply), not a client's round trips.

    benches/perf/mcp_piped.py BIN BASE [--calls 3000] [--rounds 7] [--tool read|search|history]

Each side gets its own copy of one workspace (a git repo, small.txt and 50
source files) and state dir; one `write` first makes the state directory exist
(so its checks are the ones every call pays; from the second round on it
fails, the file being there, on both sides alike). Rounds alternate the side order;
every round checks both sides' replies are equal (op ids aside). Prints the
median wall and CPU (wait4: user+sys) per call of each side and BIN/BASE.
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, time


def workspace(root):
    os.makedirs(os.path.join(root, "src"))
    with open(os.path.join(root, "small.txt"), "w") as f:
        f.writelines(f"row {i:03d} alpha: value {i * 7 % 13}\n" for i in range(60))
    for i in range(50):
        with open(os.path.join(root, "src", f"f{i:02d}.rs"), "w") as f:
            f.writelines(f"    let v{j} = {i * j}; // ERR_TIMEOUT\n" if j == i % 40 else f"    let v{j} = {j};\n"
                         for j in range(40))
    subprocess.run(["git", "init", "-q", root], check=True)


def requests(calls, tool):
    args = {"read": {"path": "small.txt"}, "search": {"pattern": "ERR_TIMEOUT"}, "history": {}}[tool]
    msgs = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "mcp_piped", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "write", "arguments": {"path": "made.txt", "content": "x"}}}]
    msgs += [{"jsonrpc": "2.0", "id": 2 + i, "method": "tools/call",
              "params": {"name": tool, "arguments": args}} for i in range(calls)]
    return "".join(json.dumps(m) + "\n" for m in msgs).encode()


def run(binary, ws, env, data):
    t0 = time.perf_counter()
    p = subprocess.Popen([binary, "mcp", "--root", ws], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out, _ = p.communicate(data)
    wall = time.perf_counter() - t0
    return wall, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("base")
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--tool", default="read")
    o = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="mcp_piped.")
    try:
        sides = {}
        for name, b in (("bin", o.bin), ("base", o.base)):
            ws = os.path.join(tmp, name, "ws")
            workspace(ws)
            env = dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, name, "state"))
            env.pop("AITOOLS_FIXED_TIME", None)
            os.makedirs(env["XDG_STATE_HOME"], mode=0o700)
            sides[name] = (os.path.abspath(b), ws, env)
        data = requests(o.calls, o.tool)
        res = {n: ([], []) for n in sides}
        print(f"load at start: {' '.join('%.2f' % x for x in os.getloadavg())}")
        for i in range(o.rounds):
            order = list(sides) if i % 2 == 0 else list(sides)[::-1]
            got = {}
            for n in order:
                b, ws, env = sides[n]
                r0 = os.times()
                wall, out = run(b, ws, env, data)
                r1 = os.times()
                cpu = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
                res[n][0].append(wall)
                res[n][1].append(cpu)
                replies = [json.loads(l) for l in out.splitlines()]
                if len(replies) != o.calls + 2 or any(r.get("result", {}).get("isError") for r in replies if r.get("id") != 1):
                    sys.exit(f"mcp_piped.py: {n}: {len(replies)} replies or an error: {out[-400:]!r}")
                got[n] = re.sub(rb'op-[0-9a-f]{8}', b"op-", out)
            if got["bin"] != got["base"]:
                sys.exit(f"mcp_piped.py: round {i}: bin and base replies differ")
        print(f"load at end: {' '.join('%.2f' % x for x in os.getloadavg())}; {o.rounds} rounds of "
              f"{o.calls} `{o.tool}` calls a side, replies identical")
        med = lambda xs: statistics.median(xs) / o.calls * 1e3
        for n in sides:
            print(f"{n:4} wall/call {med(res[n][0]):.3f} ms  cpu/call {med(res[n][1]):.3f} ms")
        print(f"bin/base wall {med(res['bin'][0]) / med(res['base'][0]):.3f} "
              f"cpu {med(res['bin'][1]) / med(res['base'][1]):.3f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
