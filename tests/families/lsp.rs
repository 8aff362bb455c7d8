//! `code refs --lsp` and `code rename --lsp`: a fake language server (a python3
//! script named `pyright-langserver` on PATH) answers, hangs, or proposes an
//! edit outside the root; a real pyright when AITOOLS_TEST_PYRIGHT names its
//! install prefix.

use crate::support::{self, Run, TestEnv};
use std::path::Path;

/// The fake server: MODE is `answer`, `hang` or `outside`. It answers
/// references with two locations in a.py and b.py (lines it was told in
/// FAKE_LINES) and rename with edits of every `old` in a.py and b.py.
const FAKE: &str = r#"#!/usr/bin/env python3
import json, os, sys
MODE = os.environ.get("FAKE_MODE", "answer")
ROOT = None
def read():
    h = {}
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        k, v = line.split(b":", 1)
        h[k.strip().lower()] = v.strip()
    return json.loads(sys.stdin.buffer.read(int(h[b"content-length"])))
def send(m):
    b = json.dumps(m).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    sys.stdout.buffer.flush()
def rng(l, c, n):
    return {"start": {"line": l, "character": c}, "end": {"line": l, "character": c + n}}
while True:
    m = read()
    meth = m.get("method")
    if meth == "initialize":
        ROOT = m["params"]["rootUri"]
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"capabilities": {}}})
        # a request of the server's own, as pyright sends
        send({"jsonrpc": "2.0", "id": 99, "method": "workspace/configuration", "params": {"items": [{}]}})
    elif meth == "textDocument/references":
        if MODE == "hang":
            import time; time.sleep(600)
        p = m["params"]["position"]
        send({"jsonrpc": "2.0", "id": m["id"], "result": [
            {"uri": ROOT + "/a.py", "range": rng(p["line"], p["character"], 3)},
            {"uri": ROOT + "/b.py", "range": rng(2, 4, 3)}]})
    elif meth == "textDocument/rename":
        if MODE == "hang":
            import time; time.sleep(600)
        new = m["params"]["newName"]
        ch = {ROOT + "/a.py": [{"range": rng(0, 4, 3), "newText": new}],
              ROOT + "/b.py": [{"range": rng(0, 14, 3), "newText": new}, {"range": rng(2, 4, 3), "newText": new}]}
        if MODE == "outside":
            ch["file:///tmp/aitools-lsp-outside.py"] = [{"range": rng(0, 0, 3), "newText": new}]
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"changes": ch}})
    elif meth == "shutdown":
        send({"jsonrpc": "2.0", "id": m["id"], "result": None})
    elif meth == "exit":
        sys.exit(0)
"#;

fn fixture() -> (TestEnv, tempfile::TempDir) {
    let env = TestEnv::new();
    env.write("a.py", "def old(x):\n    return x\n");
    // b.py mentions `old` in a comment too, which no server reports.
    env.write("b.py", "from a import old\n# old stays\ny = old(1)\n");
    let bin = tempfile::tempdir().expect("tempdir");
    let p = bin.path().join("pyright-langserver");
    std::fs::write(&p, FAKE).expect("fake server");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    (env, bin)
}

fn run_with(env: &TestEnv, bin: &Path, mode: &str, args: &[&str]) -> Run {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = env.command(args);
    c.env("PATH", path).env("FAKE_MODE", mode);
    support::parse(c.output().expect("run aitools"))
}

#[test]
fn refs_lsp_takes_the_servers_locations() {
    let (env, bin) = fixture();
    let r = run_with(
        &env,
        bin.path(),
        "answer",
        &["code", "refs", "old", "--lsp"],
    );
    assert_eq!(r.json["lsp"]["used"], true, "{}", r.json);
    assert_eq!(r.json["lsp"]["server"], "pyright-langserver");
    let got: Vec<(String, u64)> = r.json["refs"]
        .as_array()
        .expect("refs")
        .iter()
        .map(|x| {
            (
                x["path"].as_str().unwrap_or("").to_string(),
                x["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![("a.py".into(), 1), ("b.py".into(), 3)],
        "{}",
        r.json
    );
    // Without --lsp nothing is asked and no lsp member appears.
    let plain = run_with(&env, bin.path(), "answer", &["code", "refs", "old"]);
    assert!(plain.json.get("lsp").is_none(), "{}", plain.json);
}

#[test]
fn refs_lsp_falls_back_when_the_server_hangs_or_is_absent() {
    let (env, bin) = fixture();
    let t = std::time::Instant::now();
    let r = run_with(
        &env,
        bin.path(),
        "hang",
        &["code", "refs", "old", "--lsp", "--lsp-timeout", "1"],
    );
    assert!(t.elapsed().as_secs() < 10, "took {:?}", t.elapsed());
    assert_eq!(r.json["lsp"]["used"], false, "{}", r.json);
    let reason = r.json["lsp"]["reason"].as_str().unwrap_or("");
    assert!(reason.contains("timed out"), "{reason}");
    // The grammar's answer: the definition, the import and the call.
    assert_eq!(r.json["total"], 3, "{}", r.json);
    // The hung server was killed with its tree: nothing carries on.
    let none = tempfile::tempdir().expect("tempdir");
    let r = run_with(
        &env,
        none.path(),
        "answer",
        &["code", "refs", "old", "--lsp"],
    );
    if r.json["lsp"]["used"] == false {
        let reason = r.json["lsp"]["reason"].as_str().unwrap_or("");
        assert!(reason.contains("on PATH"), "{reason}");
    }
}

#[test]
fn lsp_require_refuses_with_a_fallback_repair() {
    let (env, bin) = fixture();
    let r = run_with(
        &env,
        bin.path(),
        "hang",
        &["code", "refs", "old", "--lsp=require", "--lsp-timeout", "1"],
    );
    assert_eq!(r.error_code(), "environment.unavailable", "{}", r.json);
    let repair = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap_or("");
    assert!(
        repair.contains("--lsp") && !repair.contains("require"),
        "{repair}"
    );
}

#[test]
fn rename_lsp_applies_the_servers_edits_as_one_undoable_op() {
    let (env, bin) = fixture();
    let r = run_with(
        &env,
        bin.path(),
        "answer",
        &["code", "rename", "old", "fresh", "--lsp"],
    );
    assert_eq!(r.json["lsp"]["used"], true, "{}", r.json);
    assert_eq!(env.read("a.py"), b"def fresh(x):\n    return x\n");
    assert_eq!(
        env.read("b.py"),
        b"from a import fresh\n# old stays\ny = fresh(1)\n"
    );
    // Oracle: python3 imports and runs the renamed code.
    let ok = std::process::Command::new("python3")
        .args(["-c", "import b; assert b.y == 1"])
        .current_dir(env.root())
        .status()
        .map(|s| s.success());
    assert_eq!(ok.ok(), Some(true));
    let op = r.op_id();
    let u = env.run(&["undo", &op]);
    assert_eq!(u.json["status"], "ok", "{}", u.json);
    assert_eq!(
        env.read("b.py"),
        b"from a import old\n# old stays\ny = old(1)\n"
    );
}

#[test]
fn rename_lsp_refuses_an_edit_outside_the_root() {
    let (env, bin) = fixture();
    let outside = Path::new("/tmp/aitools-lsp-outside.py");
    let _ = std::fs::remove_file(outside);
    let r = run_with(
        &env,
        bin.path(),
        "outside",
        &["code", "rename", "old", "fresh", "--lsp"],
    );
    assert_eq!(r.error_code(), "refusal.outside-workspace", "{}", r.json);
    assert_eq!(env.read("a.py"), b"def old(x):\n    return x\n");
    assert!(!outside.exists());
    // Its repair (the grammar's rename, as a dry run) runs.
    let line = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let d = env.run_line(&line);
    assert_eq!(d.json["status"], "ok", "{}", d.json);
}

#[test]
fn rename_lsp_falls_back_to_the_grammar_on_timeout() {
    let (env, bin) = fixture();
    let r = run_with(
        &env,
        bin.path(),
        "hang",
        &[
            "code",
            "rename",
            "old",
            "fresh",
            "--lsp",
            "--lsp-timeout",
            "1",
        ],
    );
    assert_eq!(r.json["lsp"]["used"], false, "{}", r.json);
    assert_eq!(
        env.read("b.py"),
        b"from a import fresh\n# old stays\ny = fresh(1)\n"
    );
}

/// A real pyright (`npm install --prefix DIR pyright`, DIR in
/// AITOOLS_TEST_PYRIGHT): refs and rename through it, python3 runs the result.
#[test]
fn real_pyright_answers_refs_and_rename() {
    let Some(prefix) = std::env::var_os("AITOOLS_TEST_PYRIGHT") else {
        eprintln!("skipped: AITOOLS_TEST_PYRIGHT is not set (npm install --prefix DIR pyright)");
        return;
    };
    let bin = Path::new(&prefix).join("node_modules/.bin");
    assert!(
        bin.join("pyright-langserver").exists(),
        "no pyright-langserver in {}",
        bin.display()
    );
    let env = TestEnv::new();
    env.write(
        "a.py",
        "def old(x):\n    return x\n\ndef other(old):\n    return old\n",
    );
    env.write("b.py", "from a import old\n# old stays\ny = old(1)\n");
    let r = run_with(&env, &bin, "-", &["code", "refs", "old", "--lsp=require"]);
    assert_eq!(r.json["lsp"]["used"], true, "{}", r.json);
    let got: Vec<(String, u64)> = r.json["refs"]
        .as_array()
        .expect("refs")
        .iter()
        .map(|x| {
            (
                x["path"].as_str().unwrap_or("").to_string(),
                x["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    // The parameter `old` of other() is another symbol: pyright leaves it out.
    assert_eq!(
        got,
        vec![("a.py".into(), 1), ("b.py".into(), 1), ("b.py".into(), 3)],
        "{}",
        r.json
    );
    let r = run_with(
        &env,
        &bin,
        "-",
        &["code", "rename", "old", "fresh", "--lsp=require"],
    );
    assert_eq!(r.json["lsp"]["used"], true, "{}", r.json);
    assert_eq!(
        env.read("b.py"),
        b"from a import fresh\n# old stays\ny = fresh(1)\n"
    );
    assert_eq!(
        env.read("a.py"),
        b"def fresh(x):\n    return x\n\ndef other(old):\n    return old\n"
    );
}
