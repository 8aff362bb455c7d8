#!/usr/bin/env python3
"""`search --output matches` masked once (issue 29): an adversary built for what a
second envelope pass over the matches could add. Secrets whose revealing key is in
one member and the value in another (a match vs its path, vs the next match, `key =`
at the end of one line and the value on the next, YAML/JSON/TOML values under a key
line, multi-line private keys split across matches, twins in other files, groups,
multiline matches), searched with many patterns through the CLI, `--output jsonl`
and `aitools mcp`, with BIN and BASE side by side. Counts leaks (a secret's whole
text, or a 12-character piece of its middle, in the output) per build and lists
those BIN has and BASE has not, then how many answers differ.
Usage: matches_mask_once.py BIN BASE"""
import json, os, re, subprocess, sys, tempfile, shutil, base64

BIN, BASE = (os.path.abspath(a) for a in sys.argv[1:3])
K = "Zq8v2LmP0xA1Wk3n9RtY7uB2"          # random, keyless unless a key names it
PW = "Tr0ub4dor&3xyzQ"                    # password-like
GH = "ghp_Zq8v2LmP0xA1Wk3n9RtY7uB2Hf6d1SaQ4zC3"
K2 = "Hj5Tk8Lm2Qp9Xz4WbN7cR1sV"
K3 = "pL4mN8qR2sT6vW0xY3zA7bC1"
K4 = "Wq3eR5tY7uI9oP1aS3dF5gH7"
BODY = base64.b64encode(bytes((i * 37 + 11) % 256 for i in range(48 * 10))).decode()
PEM_LINES = [BODY[i:i + 64] for i in range(0, len(BODY), 64)]
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_LINES) + "\n-----END RSA PRIVATE KEY-----\n"
SECRETS = {"K": K, "PW": PW, "GH": GH, "K2": K2, "K3": K3, "K4": K4}
SECRETS.update({f"pem{i}": l for i, l in enumerate(PEM_LINES[:-1])})

FILES = {
    # key at the end of one line, the value on the next
    "a/cont.py": f"password = \\\n    \"{K}\"\nx = 1\n",
    "a/next.yaml": f"db:\n  password:\n    {K2}\n  user: app\n",
    "a/block.yaml": f"api_token: |\n  {K3}\n  {K4}\nname: x\n",
    "a/seq.yaml": f"api_keys:\n  - {K}\n  - {K2}\nother: 1\n",
    "a/arr.toml": f"tokens = [\n  \"{K3}\",\n  \"{K4}\",\n]\nname = \"x\"\n",
    "a/obj.json": json.dumps({"secret": {"value": K2}, "list": ["x"]}, indent=2) + "\n",
    "a/keyline.json": f"{{\n  \"password\":\n    \"{PW}\"\n}}\n",
    "a/tf.tf": f"resource \"x\" \"y\" {{\n  password = var.p\n  token =\n    \"{K4}\"\n}}\n",
    # a closed list then bare lines; a list whose `]` a masked value hides
    "a/closed.py": f"secrets = [l for l in x]\nkeys = [\"{K3}\"]\nname = token\nsize = 30\nv = \"{K}\"\n",
    "a/open.py": f"secret = [\n    \"{K2}\"]\ntoken=token,\nhash = \"0f3a9c\"\n",
    # multi-line private keys, whole and without their BEGIN/END lines
    "k/id_rsa": PEM,
    "k/body_only.txt": "\n".join(PEM_LINES[2:7]) + "\n",
    "k/no_begin.pem": "\n".join(PEM_LINES[1:]) + "\n-----END RSA PRIVATE KEY-----\n",
    "k/in.yaml": "key: |\n  " + PEM.replace("\n", "\n  ").rstrip() + "\nname: x\n",
    "k/in.json": json.dumps({"private_key": PEM}) + "\n",
    # the path names the key, the file holds the value alone
    "p/password.txt": f"{K}\n",
    "p/api_key": f"{K2}\n",
    f"p/token={K3}.txt": "x\n",
    ".env.secret": f"{K4}\n",
    # twins: keyed in one file, bare in others
    "t/keyed.env": f"DB_PASSWORD={PW}\nGITHUB={GH}\nAPI_SECRET={K}\n",
    "t/bare.csv": f"name,v\nprod,{PW}\nci,{K}\n",
    "t/log.txt": f"connecting with {K} as user\nlogin ok {PW}\n",
    # two matches on one line: the key one, the value the next
    "m/flags.sh": f"deploy --password {PW} --token {K2} --user app\ncurl -H \"Authorization: Bearer {K3}\" x\n",
    "m/pairs.ini": f"[db]\nuser=app password={K4} host=x\n",
    # a notebook
    "n/nb.ipynb": json.dumps({"cells": [{"cell_type": "code", "source": [f"token = \"{K}\"\n", f"pw = \"{PW}\"\n"],
                                          "metadata": {}, "outputs": [], "execution_count": None}],
                              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n",
}

PATTERNS = [
    (".", {}), (r"\S+", {}), ("^.*$", {}), (r"[A-Za-z0-9+/]{16,}", {}), ("[=:]", {}),
    ("password|token|key|secret", {}), (r"(\w+)\s*[=:]\s*(\S*)", {}),
    (r"(?P<k>\w+)[=:](?P<v>.*)", {}), (r"^\s*\S", {}), (r"[A-Za-z0-9]{20,}", {}),
    ("Zq8v", {"fixed": True}), ("END|BEGIN|^[A-Za-z0-9+/]{64}$", {}), (r"\"", {}),
    (r"(?s)BEGIN.{0,200}", {"multiline": True}), (r"\w+:\s*\n\s*\S+", {"multiline": True}),
    (r"=\s*\\?\n\s*\S+", {"multiline": True}), (r"\[\s*\n[^\]]*", {"multiline": True}),
    (r"[-]\s", {}), (r",$", {}), (r"\w+$", {}),
]


def argv_of(pat, opts):
    a = ["search", pat, ".", "--output", "matches", "--limit", "5000"]
    if opts.get("fixed"): a.append("--fixed")
    if opts.get("multiline"): a.append("--multiline")
    return a


def mcp_args(pat, opts):
    d = {"pattern": pat, "paths": ["."], "output": "matches", "limit": 5000}
    d.update(opts)
    return d


def run(binary, argv, cwd, env, stdin=None):
    p = subprocess.run([binary] + argv, cwd=cwd, input=stdin, capture_output=True, env=env, timeout=120)
    return p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")


def leaks(text):
    out = []
    for name, s in SECRETS.items():
        mid = s[len(s) // 2 - 6:len(s) // 2 + 6]
        if s in text or mid in text:
            out.append(name)
    return out


def mcp_line(pat, opts):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    req = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "search", "arguments": mcp_args(pat, opts), "_meta": meta}}
    return (json.dumps(req) + "\n").encode()


def main():
    w = tempfile.mkdtemp(prefix="mmo")
    st = os.path.join(w, ".state"); os.mkdir(st, 0o700)
    env = dict(os.environ, XDG_STATE_HOME=st, AITOOLS_FIXED_TIME="2026-01-01T00:00:00Z", AITOOLS_SEED="1")
    repo = os.path.join(w, "r"); os.mkdir(repo)
    subprocess.run(["git", "init", "-q"], cwd=repo)
    for rel, text in FILES.items():
        p = os.path.join(repo, rel); os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "w").write(text)
    calls, differ, new_leaks = 0, 0, []
    found = {"BIN": 0, "BASE": 0}
    for pat, opts in PATTERNS:
        for mode in ("cli", "jsonl", "mcp"):
            if mode == "mcp":
                argv, stdin = ["mcp", "--root", "."], mcp_line(pat, opts)
            else:
                argv, stdin = (["--output", "jsonl"] if mode == "jsonl" else []) + argv_of(pat, opts), None
            a = run(BIN, argv, repo, env, stdin)
            b = run(BASE, argv, repo, env, stdin)
            calls += 1
            la, lb = leaks(a), leaks(b)
            found["BIN"] += len(la); found["BASE"] += len(lb)
            if mode == "jsonl":
                # the run id and the times differ from call to call
                a_cmp, b_cmp = (re.sub(r'"(run|t|duration_ms|elapsed_ms)":("[^"]*"|[0-9]+)', "", t) for t in (a, b))
            else:
                a_cmp, b_cmp = a, b
            if a_cmp != b_cmp:
                differ += 1
                if os.environ.get("SHOW"):
                    print("DIFF", mode, pat, len(b), "->", len(a))
            extra = sorted(set(la) - set(lb))
            if extra:
                new_leaks.append((mode, pat, extra, a[:400]))
    print(json.dumps({"calls": calls, "leaks_BIN": found["BIN"], "leaks_BASE": found["BASE"],
                      "leaks_only_BIN": len(new_leaks), "answers_differ": differ}))
    for l in new_leaks:
        print(json.dumps(l)[:700])
    if os.environ.get("KEEP"):
        print("kept", repo)
    else:
        shutil.rmtree(w, ignore_errors=True)


main()
