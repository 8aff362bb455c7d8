#!/usr/bin/env python3
"""Adversarial output-path matrix (issue 29): secrets of real formats (AWS, GitHub,
Slack, Stripe, JWT, npm, GCP service-account JSON, PEM, .env, kubeconfig, docker
config.json, .npmrc, .netrc, connection strings, secret file names) placed in a temp
git repo and driven through read/search/find/info/json/table/archive/git/run/bg/wait/
edit/write/replace/batch/feedback/diff/--output jsonl/mcp; counts leaks (a secret's
whole text in the output). Usage: secret_adversary.py AITOOLS_BIN  (SHOW=1: echo some
answers). A partial leak (`[REDACTED_SECRET]&3xyz`) is not counted: read the output."""
import json, os, subprocess, sys, tempfile, base64, shutil

BIN = os.path.abspath(sys.argv[1])
# (name, secret, file content builder)
AWS_ID = "AKIAQWERTYUIOPASDFGH"
AWS_SECRET = "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"
GH = "ghp_" + "Zq8v2LmP0xA1Wk3n9RtY7uB2Hf6d1SaQ4zC3"
SLACK = "xoxb-" + "123456789012-1234567890123-" + "Zq8v2LmP0xA1Wk3n9RtY7uB2"
STRIPE = "sk_live_" + "Zq8v2LmP0xA1Wk3n9RtY7uB2"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
       "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
       "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
PW = "Tr0ub4dor&3xyzQ"
NPM = "npm_" + "Zq8v2LmP0xA1Wk3n9RtY7uB2Hf6d1SaQ4zC3"
GCP_KEY_BODY = base64.b64encode(bytes(range(256)) * 3).decode()
PEM_LINES = [GCP_KEY_BODY[i:i+64] for i in range(0, 64*12, 64)]
PEM = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(PEM_LINES) + "\n-----END PRIVATE KEY-----\n"
DOCKER_AUTH = base64.b64encode(b"user:" + PW.encode()).decode()
K8S_TOKEN = "Zq8v2LmP0xA1Wk3n9RtY7uB2Hf6d1SaQ4zC3Tn2h6J"
CONN_PW = "Hj5Tk8Lm2Qp9Xz4W"
SECRETS = {
 "aws_id": AWS_ID, "aws_secret": AWS_SECRET, "github": GH, "slack": SLACK, "stripe": STRIPE,
 "jwt": JWT, "pw": PW, "npm": NPM, "pem": PEM_LINES[3], "docker": DOCKER_AUTH,
 "k8s": K8S_TOKEN, "conn": CONN_PW,
}
FILES = {
 ".env": f"AWS_ACCESS_KEY_ID={AWS_ID}\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\nDB_PASSWORD={PW}\n",
 "config/app.yaml": f"github:\n  token: {GH}\nslack:\n  bot: {SLACK}\nstripe_key: {STRIPE}\n",
 "sa.json": json.dumps({"type": "service_account", "project_id": "p", "private_key_id": "0123456789abcdef0123456789abcdef01234567",
                        "private_key": PEM, "client_email": "a@p.iam.gserviceaccount.com"}, indent=2) + "\n",
 "key.pem": PEM,
 "jwt.txt": f"Authorization: Bearer {JWT}\n",
 ".npmrc": f"//registry.npmjs.org/:_authToken={NPM}\n",
 ".netrc": f"machine api.example.com login bob password {PW}\n",
 "docker/config.json": json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": DOCKER_AUTH}}}, indent=2) + "\n",
 "kube/config": f"apiVersion: v1\nusers:\n- name: admin\n  user:\n    token: {K8S_TOKEN}\n",
 "db.txt": f"postgres://app:{CONN_PW}@db.example.com:5432/app\nServer=x;Database=y;User Id=u;Password={CONN_PW};\n",
 "data.csv": f"name,token\nprod,{GH}\n",
}

def run(args, cwd, stdin=None, env=None):
    p = subprocess.run([BIN] + args, cwd=cwd, input=stdin, capture_output=True, env=env, timeout=60)
    return p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")

def main():
    w = tempfile.mkdtemp(prefix="adv")
    st = os.path.join(w, ".state"); os.mkdir(st, 0o700)
    env = dict(os.environ, XDG_STATE_HOME=st, AITOOLS_FEEDBACK_DIR=os.path.join(w, "fb"))
    repo = os.path.join(w, "r"); os.mkdir(repo)
    g = lambda *a: subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a"] + list(a), cwd=repo, capture_output=True)
    g("init", "-q")
    for rel, text in FILES.items():
        p = os.path.join(repo, rel); os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "w").write(text)
    # a secret as a file name
    open(os.path.join(repo, f"api_key={PW}.txt"), "w").write("x\n")
    open(os.path.join(repo, f"{GH}.txt"), "w").write("x\n")
    g("add", "-A"); g("commit", "-qm", "secrets")
    # change each file a little for diffs
    with open(os.path.join(repo, ".env"), "a") as f: f.write("X=1\n")
    calls = []
    for rel in FILES:
        calls += [["read", rel], ["read", rel, "--range", "2:"], ["info", rel], ["search", ".", rel, "-C", "0"],
                  ["git", "show", "HEAD:" + rel], ["git", "blame", rel], ["git", "log", "-p", rel] ]
    for name, s in SECRETS.items():
        calls += [["search", s[:12] + "[", "."], ["search", s[:10], "."]]
    calls += [["find", "."], ["find", ".", "--name", "*.txt"], ["git", "show", "HEAD"], ["git", "diff"], ["git", "log", "-p"],
              ["git", "status"], ["overview"],
              ["json", "get", "sa.json", "/private_key"], ["json", "get", "docker/config.json", "/auths"],
              ["json", "get", "docker/config.json", "/auths/https:~1~1index.docker.io~1v1~1/auth"],
              ["json", "select", "docker/config.json", "--pick", "auth"],
              ["table", "read", "data.csv"],
              ["diff", ".env", "db.txt"],
              ["run", "cat", ".env"], ["run", "cat", "sa.json"], ["run", "printenv", "TOKX"],
              ["edit", ".env", "--old", PW, "--new", "x", "--dry-run"],
              ["edit", ".env", "--old", PW + "zz", "--new", "x"],
              ["replace", PW, "y", ".env", "--dry-run"],
              ]
    leaks = []
    total = 0
    envx = dict(env, TOKX=GH)
    for c in calls:
        out = run(c, repo, env=envx)
        total += 1
        for name, s in SECRETS.items():
            if s in out:
                leaks.append((c, name, out[:300]))
    # archive
    run(["archive", "create", "a.zip", ".env", "sa.json"], repo, env=env)
    for c in [["archive", "list", "a.zip"], ["archive", "read", "a.zip", ".env"], ["archive", "read", "a.zip", "sa.json"]]:
        out = run(c, repo, env=env); total += 1
        for name, s in SECRETS.items():
            if s in out: leaks.append((c, name, out[:300]))
    # batch
    bat = json.dumps([{"command": "read", "args": [".env"]}, {"command": "edit", "args": [".env", "--old", GH, "--new", "q"]}])
    for c, stdin in [(["batch"], bat.encode()), (["--output", "jsonl", "read", ".env"], None)]:
        out = run(c, repo, stdin=stdin, env=env); total += 1
        for name, s in SECRETS.items():
            if s in out: leaks.append((c, name, out[:300]))
    # feedback, bg, wait, json patch, info/find on secret names
    more = [
        (["feedback", "create", "--type", "bug", "--message", f"read leaked password={PW} and {GH}"], None),
        (["feedback", "list"], None),
        (["info", f"api_key={PW}.txt"], None), (["info", f"{GH}.txt"], None),
        (["read", f"{GH}.txt"], None), (["find", ".", "--name", "ghp_*"], None),
        (["json", "set", "docker/config.json", "/auths/x", json.dumps({"auth": DOCKER_AUTH}), "--dry-run"], None),
        (["wait", "--file", ".env", "--pattern", "AWS_SECRET", "--timeout", "2s"], None),
        (["write", "new.env", "--content", f"TOKEN={GH}\n", "--dry-run"], None),
        (["edit", ".env", "--old", f"DB_PASSWORD={PW}", "--new", f"DB_PASSWORD={PW}x", "--dry-run"], None),
        (["diff", ".env", ".env"], None),
        (["batch", "--stdin-data"], json.dumps([{"command": "edit", "args": [".env", "--old", f"DB_PASSWORD={PW}", "--new", "DB_PASSWORD=y", "--dry-run"]}]).encode()),
    ]
    for c, stdin in more:
        out = run(c, repo, stdin=stdin, env=env); total += 1
        if os.environ.get("SHOW"): print(c[:3], out[:160].replace("\n", " "))
        for name, s in SECRETS.items():
            if s in out: leaks.append((c, name, out[:300]))
    out = run(["bg", "start", "--name", "t", "cat", ".env"], repo, env=env); total += 1
    import re, time
    m = re.search(r'"id":"([^"]+)"', out)
    time.sleep(0.5)
    if m:
        for c in [["bg", "logs", m.group(1)], ["wait", "--bg", m.group(1), "--exit", "--timeout", "3s"]]:
            out = run(c, repo, env=env); total += 1
            for name, s in SECRETS.items():
                if s in out: leaks.append((c, name, out[:300]))
    else:
        print("bg start:", out[:300])
    # bad regex echo
    out = run(["search", PW + "(", "."], repo, env=env); total += 1
    for name, s in SECRETS.items():
        if s in out: leaks.append((["search bad regex"], name, out[:300]))
    # mcp
    reqs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    i = 2
    for rel in FILES:
        reqs.append({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "read", "arguments": {"path": rel}}}); i += 1
    out = run(["mcp"], repo, stdin="\n".join(json.dumps(r) for r in reqs).encode() + b"\n", env=env); total += 1
    for name, s in SECRETS.items():
        if s in out: leaks.append((["mcp"], name, out[:300]))
    print(json.dumps({"calls": total, "leaks": len(leaks)}))
    for l in leaks:
        print(json.dumps(l)[:600])
    shutil.rmtree(w, ignore_errors=True)

main()
