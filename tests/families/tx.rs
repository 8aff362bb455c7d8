//! Transactions, black-box: staging across files (creates, deletes, moves), reads
//! and scans through the tx, commit as one op and its undo, write conflicts and
//! rebase, stale reads, drop, abort, two transactions on one file, and `batch`.
//! Oracles: sha256sum for every hash, the tree itself before and after, and the
//! scans of the committed tree for the scans through the tx.

use crate::support::{Run, TestEnv, sha256sum};
use serde_json::Value;
use std::collections::BTreeMap;

fn begin(env: &TestEnv) -> String {
    let r = env.run(&["tx", "begin", "--name", "t"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = r.json["tx"].as_str().unwrap().to_string();
    assert!(id.starts_with("tx-") && id.len() == 28, "{id}");
    assert_eq!(r.json["name"], "t");
    id
}

fn ok(r: Run) -> Run {
    assert!(r.code == 0 || r.code == 3, "{} {}", r.stdout, r.stderr);
    r
}

/// Every file under the root (not .git) with its bytes.
fn tree(env: &TestEnv) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let mut es: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        es.sort_by_key(|e| e.file_name());
        for e in es {
            if e.file_name() == ".git" {
                continue;
            }
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(root, &p, out);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut t = BTreeMap::new();
    walk(env.root(), env.root(), &mut t);
    t
}

fn hash_of(env: &TestEnv, rel: &str) -> String {
    sha256sum(&env.path(rel))
}

fn paths_of(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn stage_read_scan_commit_and_undo_across_files() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\nbeta\n");
    env.write("b.txt", "one\n");
    env.write("c.txt", "gone\n");
    env.write("src/lib.rs", "fn keep() {}\n");
    let before = tree(&env);
    let t = begin(&env);
    let ha = hash_of(&env, "a.txt");
    let w = ok(env.run(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &ha,
        "--content",
        "alpha\nBETA\n",
        "--tx",
        &t,
    ]));
    assert_eq!(w.json["tx"], t.as_str());
    assert_eq!(w.json["tx_op"], 1);
    assert!(w.json.get("op_id").is_none(), "a staged write has no op_id");
    ok(env.run(&[
        "write",
        "new/d.rs",
        "--content",
        "fn added() {}\n",
        "--tx",
        &t,
    ]));
    ok(env.run(&["delete", "c.txt", "--tx", &t]));
    ok(env.run(&["move", "b.txt", "moved/b.txt", "--tx", &t]));
    let cp = ok(env.run(&["copy", "moved/b.txt", "copy.txt", "--tx", &t]));
    assert_eq!(cp.json["tx_op"], 5);
    // Nothing reached the tree.
    assert_eq!(tree(&env), before);

    // Reads see the tx; its hash is the staged content's (sha256 of the bytes).
    let r = ok(env.run(&["read", "a.txt", "--tx", &t]));
    assert_eq!(r.lines(), vec!["alpha", "BETA"]);
    env.write("oracle", "alpha\nBETA\n");
    assert_eq!(r.json["hash"], hash_of(&env, "oracle")[..12]);
    std::fs::remove_file(env.path("oracle")).unwrap();
    let i = ok(env.run(&["info", "copy.txt", "--tx", &t]));
    assert_eq!(i.json["hash"], ha_of_text(&env, "one\n"));
    assert_eq!(
        env.run(&["read", "c.txt", "--tx", &t]).error_code(),
        "input.not-found"
    );
    assert_eq!(
        env.run(&["read", "b.txt", "--tx", &t]).error_code(),
        "input.not-found"
    );
    // Without --tx the disk is unchanged.
    assert_eq!(
        ok(env.run(&["read", "a.txt"])).lines(),
        vec!["alpha", "beta"]
    );

    // Scans through the tx, kept to compare with the committed tree's.
    let find_tx = ok(env.run(&["find", ".", "--type", "file", "--tx", &t]));
    let search_tx = ok(env.run(&["search", "BETA|one|fn", "--tx", &t]));
    let defs_tx = ok(env.run(&["code", "defs", "added", "--tx", &t]));
    assert_eq!(defs_tx.json["total"], 1, "{}", defs_tx.stdout);

    let st = ok(env.run(&["tx", "status", &t]));
    assert_eq!(st.json["ops"].as_array().unwrap().len(), 5);
    assert_eq!(st.json["drift"], serde_json::json!([]));
    let d = ok(env.run(&["tx", "diff", &t]));
    assert!(d.stdout.contains("-beta\\n+BETA"), "{}", d.stdout);

    let c = ok(env.run(&["tx", "commit", &t]));
    let op = c.json["op_id"].as_str().unwrap().to_string();
    assert_eq!(env.read("a.txt"), b"alpha\nBETA\n");
    assert_eq!(env.read("moved/b.txt"), b"one\n");
    assert_eq!(env.read("copy.txt"), b"one\n");
    assert_eq!(env.read("new/d.rs"), b"fn added() {}\n");
    assert!(!env.path("c.txt").exists() && !env.path("b.txt").exists());
    // One journal op for the whole tx; the tx is gone.
    let h = ok(env.run(&["history"]));
    assert_eq!(h.json["total"], 1);
    assert_eq!(h.json["items"][0]["op_id"], op.as_str());
    assert_eq!(
        env.run(&["tx", "status", &t]).error_code(),
        "input.not-found"
    );

    // The scans through the tx saw exactly what the committed tree holds.
    let find_now = ok(env.run(&["find", ".", "--type", "file"]));
    assert_eq!(find_tx.json["items"], find_now.json["items"]);
    let search_now = ok(env.run(&["search", "BETA|one|fn"]));
    assert_eq!(search_tx.json["blocks"], search_now.json["blocks"]);
    assert_eq!(
        crate::support::total_matches(&search_tx.json),
        crate::support::total_matches(&search_now.json)
    );

    let u = ok(env.run(&["undo", &op]));
    assert!(
        u.json.get("undoes").is_none(),
        "the caller named the op it undoes"
    );
    assert_eq!(tree(&env), before);
}

fn ha_of_text(env: &TestEnv, text: &str) -> String {
    env.write("oracle.tmp", text);
    let h = hash_of(env, "oracle.tmp");
    std::fs::remove_file(env.path("oracle.tmp")).unwrap();
    h
}

#[test]
fn expect_hash_compares_with_the_tx_view() {
    let env = TestEnv::new();
    env.write("a.txt", "v1\n");
    let disk = hash_of(&env, "a.txt");
    let t = begin(&env);
    ok(env.run(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &disk,
        "--content",
        "v2\n",
        "--tx",
        &t,
    ]));
    // The disk's hash no longer guards a write in the tx; the tx view's does.
    let stale = env.run(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &disk,
        "--content",
        "v3\n",
        "--tx",
        &t,
    ]);
    assert_eq!(stale.error_code(), "refusal.target-changed");
    let staged = ok(env.run(&["read", "a.txt", "--tx", &t])).json["hash"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(staged, ha_of_text(&env, "v2\n")[..12]);
    ok(env.run(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &staged,
        "--content",
        "v3\n",
        "--tx",
        &t,
    ]));
    // A write that fails in the tx stages nothing.
    assert_eq!(
        ok(env.run(&["tx", "status", &t])).json["ops"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    ok(env.run(&["tx", "commit", &t]));
    assert_eq!(env.read("a.txt"), b"v3\n");
}

#[test]
fn write_conflict_then_rebase_then_commit() {
    let env = TestEnv::new();
    env.write("a.txt", "old\n");
    env.write("c.txt", "to delete\n");
    let t = begin(&env);
    ok(env.run(&["move", "a.txt", "m.txt", "--tx", &t]));
    ok(env.run(&["copy", "m.txt", "m2.txt", "--tx", &t]));
    ok(env.run(&["delete", "c.txt", "--tx", &t]));
    // Someone changes a moved and a deleted file outside the tx.
    env.write("a.txt", "new\n");
    env.write("c.txt", "changed\n");
    let before = tree(&env);
    let c = env.run(&["tx", "commit", &t]);
    assert_eq!(c.code, 2);
    assert_eq!(c.error_code(), "refusal.target-changed");
    assert_eq!(tree(&env), before, "a conflicting commit writes nothing");
    let conflicts = c.json["error"]["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 2);
    assert_eq!(conflicts[0]["path"], "a.txt");
    assert_eq!(conflicts[0]["kind"], "write");
    assert_eq!(conflicts[0]["current"], hash_of(&env, "a.txt"));
    assert_eq!(
        c.json["error"]["repairs"][0]["command"],
        format!("aitools tx rebase {t}")
    );
    let st = ok(env.run(&["tx", "status", &t]));
    assert_eq!(st.json["drift"], serde_json::json!(["a.txt", "c.txt"]));

    let r = ok(env.run(&["tx", "rebase", &t]));
    assert_eq!(r.json["rebased"], serde_json::json!(["a.txt", "c.txt"]));
    // The copy read the moved file: it was re-run too, with the new content.
    assert_eq!(
        ok(env.run(&["read", "m2.txt", "--tx", &t])).lines(),
        vec!["new"]
    );
    assert_eq!(
        ok(env.run(&["tx", "status", &t])).json["drift"],
        serde_json::json!([])
    );
    ok(env.run(&["tx", "commit", &t]));
    assert_eq!(env.read("m.txt"), b"new\n");
    assert_eq!(env.read("m2.txt"), b"new\n");
    assert!(!env.path("a.txt").exists() && !env.path("c.txt").exists());
}

#[test]
fn a_hash_guarded_op_on_a_drifted_path_makes_rebase_a_conflict() {
    let env = TestEnv::new();
    env.write("a.txt", "v1\n");
    let h = hash_of(&env, "a.txt");
    let t = begin(&env);
    ok(env.run(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &h,
        "--content",
        "mine\n",
        "--tx",
        &t,
    ]));
    env.write("a.txt", "theirs\n");
    let status_before = ok(env.run(&["tx", "status", &t])).stdout;
    let r = env.run(&["tx", "rebase", &t]);
    assert_eq!(r.code, 2);
    assert_eq!(r.error_code(), "refusal.target-changed");
    assert_eq!(r.json["error"]["diagnostics"][0]["tx_op"], 1);
    let cmds: Vec<&str> = r.json["error"]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["command"].as_str().unwrap())
        .collect();
    assert!(
        cmds.contains(&format!("aitools tx abort {t}").as_str()),
        "{cmds:?}"
    );
    assert_eq!(
        ok(env.run(&["tx", "status", &t])).stdout,
        status_before,
        "tx unchanged"
    );
    assert_eq!(env.read("a.txt"), b"theirs\n");
}

#[test]
fn a_stale_read_refuses_until_reread_or_ignored() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    env.write("b.txt", "b\n");
    let t = begin(&env);
    ok(env.run(&["read", "b.txt", "--tx", &t]));
    ok(env.run(&["write", "new.txt", "--content", "n\n", "--tx", &t]));
    env.write("b.txt", "b changed\n");
    let st = ok(env.run(&["tx", "status", &t]));
    assert_eq!(st.json["stale_reads"], serde_json::json!(["b.txt"]));
    let c = env.run(&["tx", "commit", &t]);
    assert_eq!(c.code, 2);
    assert_eq!(c.error_code(), "refusal.target-changed");
    let conflict = &c.json["error"]["conflicts"][0];
    assert_eq!(conflict["kind"], "read");
    assert_eq!(conflict["path"], "b.txt");
    assert_eq!(conflict["current"], hash_of(&env, "b.txt"));
    let cmds: Vec<&str> = c.json["error"]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["command"].as_str().unwrap())
        .collect();
    assert!(cmds.contains(&format!("aitools read b.txt --tx {t}").as_str()));
    assert!(cmds.contains(&format!("aitools tx commit {t} --ignore-stale-reads").as_str()));
    assert!(!env.path("new.txt").exists());
    let done = ok(env.run(&["tx", "commit", &t, "--ignore-stale-reads"]));
    assert!(done.json["op_id"].is_string());
    assert_eq!(env.read("new.txt"), b"n\n");

    // A re-read refreshes the read set instead.
    let t2 = begin(&env);
    ok(env.run(&["info", "a.txt", "--tx", &t2]));
    ok(env.run(&["write", "n2.txt", "--content", "x", "--tx", &t2]));
    env.write("a.txt", "a2\n");
    assert_eq!(env.run(&["tx", "commit", &t2]).code, 2);
    ok(env.run(&["read", "a.txt", "--tx", &t2]));
    ok(env.run(&["tx", "commit", &t2]));
    assert_eq!(env.read("n2.txt"), b"x");
}

#[test]
fn drop_restores_the_state_before_an_op_and_abort_discards() {
    let env = TestEnv::new();
    env.write("a.txt", "1\n");
    let before = tree(&env);
    let t = begin(&env);
    let h1 = hash_of(&env, "a.txt");
    ok(env.run(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &h1,
        "--content",
        "2\n",
        "--tx",
        &t,
    ]));
    let h2 = ha_of_text(&env, "2\n");
    ok(env.run(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &h2,
        "--content",
        "3\n",
        "--tx",
        &t,
    ]));
    ok(env.run(&["write", "b.txt", "--content", "b\n", "--tx", &t]));
    let bad = env.run(&["tx", "drop", &t, "9"]);
    assert_eq!(bad.error_code(), "argument.invalid");
    let d = ok(env.run(&["tx", "drop", &t, "2"]));
    assert_eq!(d.json["dropped"], serde_json::json!([2, 3]));
    assert_eq!(
        ok(env.run(&["read", "a.txt", "--tx", &t])).lines(),
        vec!["2"]
    );
    assert_eq!(
        env.run(&["read", "b.txt", "--tx", &t]).error_code(),
        "input.not-found"
    );
    let st = ok(env.run(&["tx", "status", &t]));
    assert_eq!(st.json["ops"].as_array().unwrap().len(), 1);
    assert_eq!(paths_of(&st.json, "paths"), vec!["a.txt"]);
    // The next op takes number 2 again.
    let w = ok(env.run(&["write", "c.txt", "--content", "c", "--tx", &t]));
    assert_eq!(w.json["tx_op"], 2);
    let a = ok(env.run(&["tx", "abort", &t]));
    assert_eq!(a.json["discarded"], serde_json::json!(["a.txt", "c.txt"]));
    assert_eq!(tree(&env), before);
    assert_eq!(
        env.run(&["tx", "commit", &t]).error_code(),
        "input.not-found"
    );
    assert_eq!(ok(env.run(&["tx", "status"])).json["total"], 0);
    assert_eq!(ok(env.run(&["history"])).json["total"], 0);
}

#[test]
fn two_transactions_on_one_file_the_later_commit_conflicts() {
    let env = TestEnv::new();
    env.write("a.txt", "base\n");
    let h = hash_of(&env, "a.txt");
    let t1 = begin(&env);
    let t2 = begin(&env);
    assert_ne!(t1, t2);
    ok(env.run(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &h,
        "--content",
        "one\n",
        "--tx",
        &t1,
    ]));
    ok(env.run(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &h,
        "--content",
        "two\n",
        "--tx",
        &t2,
    ]));
    assert_eq!(ok(env.run(&["tx", "status"])).json["total"], 2);
    let dry = ok(env.run(&["tx", "commit", &t2, "--dry-run"]));
    assert_eq!(dry.json["dry_run"], true);
    assert_eq!(dry.json["op_id"], Value::Null);
    assert_eq!(dry.json["changes"][0]["path"], "a.txt");
    assert_eq!(env.read("a.txt"), b"base\n");
    ok(env.run(&["tx", "commit", &t1]));
    let c = env.run(&["tx", "commit", &t2]);
    assert_eq!(c.code, 2);
    assert_eq!(c.json["error"]["conflicts"][0]["path"], "a.txt");
    assert_eq!(c.json["error"]["conflicts"][0]["base"], h.as_str());
    assert_eq!(env.read("a.txt"), b"one\n");
}

#[test]
fn an_empty_commit_has_a_null_op_id() {
    let env = TestEnv::new();
    let t = begin(&env);
    let c = ok(env.run(&["tx", "commit", &t]));
    assert_eq!(c.json["op_id"], Value::Null);
    assert_eq!(c.json["changes"], serde_json::json!([]));
}

#[test]
fn a_staged_gitignore_applies_to_scans_through_the_tx() {
    let env = TestEnv::new();
    env.write("keep.txt", "needle\n");
    env.write("logs/x.log", "needle\n");
    let t = begin(&env);
    ok(env.run(&["write", ".gitignore", "--content", "*.log\n", "--tx", &t]));
    let s = ok(env.run(&["search", "needle", "--output", "files", "--tx", &t]));
    let plain = ok(env.run(&["search", "needle", "--output", "files"]));
    assert_ne!(s.json, plain.json);
    ok(env.run(&["tx", "commit", &t]));
    let after = ok(env.run(&["search", "needle", "--output", "files"]));
    assert_eq!(s.json["files"], after.json["files"], "{}", s.stdout);
}

#[test]
fn every_write_and_read_command_takes_tx() {
    let env = TestEnv::new();
    for cmd in [
        "write", "delete", "move", "copy", "mkdir", "chmod", "link", "touch", "read", "info",
        "diff", "search", "find", "overview",
    ] {
        let s = ok(env.run(&["schema", cmd]));
        let args = s.json["commands"][0]["args"].as_array().unwrap();
        let shared = s.json["commands"][0]["write_options"].as_array();
        assert!(
            args.iter().any(|a| a["name"] == "--tx")
                || shared.is_some_and(|w| w.iter().any(|o| o == "--tx")),
            "{cmd} lacks --tx"
        );
    }
    let s = ok(env.run(&["schema", "undo"]));
    let args = s.json["commands"][0]["args"].as_array().unwrap();
    assert!(!args.iter().any(|a| a["name"] == "--tx"));
    let shared = s.json["commands"][0]["write_options"].as_array();
    assert!(!shared.is_some_and(|w| w.iter().any(|o| o == "--tx")));
    let r = env.run(&["read", "x", "--tx", "tx-nope"]);
    assert_eq!(r.error_code(), "input.not-found");
}

#[test]
fn batch_atomic_writes_everything_as_one_op_or_nothing() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    let before = tree(&env);
    let input = br#"[["write","x.txt","--content","1"],["read","x.txt"],["write","x.txt","--content","2"],["write","y.txt","--content","3"]]"#;
    let r = env.run_stdin(&["batch", "--stdin", "--atomic"], input);
    assert_eq!(r.error_code(), "refusal.exists");
    assert_eq!(r.code, 1);
    let diag = r.json["error"]["diagnostics"].as_array().unwrap();
    assert_eq!(diag.len(), 4);
    assert_eq!(diag[0]["status"], "ok");
    assert_eq!(diag[2]["error"]["code"], "refusal.exists");
    assert_eq!(diag[3]["status"], "skipped");
    assert_eq!(tree(&env), before, "a failing atomic batch writes nothing");
    assert_eq!(ok(env.run(&["tx", "status"])).json["total"], 0);
    assert_eq!(ok(env.run(&["history"])).json["total"], 0);

    let good = br#"[["write","x.txt","--content","1"],["read","x.txt"],["delete","a.txt"]]"#;
    let r = ok(env.run_stdin(&["batch", "--stdin", "--atomic"], good));
    assert_eq!(r.json["results"].as_array().unwrap().len(), 3);
    assert_eq!(r.json["results"][1]["lines"], serde_json::json!(["1"]));
    let op = r.json["op_id"].as_str().unwrap().to_string();
    assert!(r.json["tx"].as_str().unwrap().starts_with("tx-"));
    assert_eq!(r.json["changes"].as_array().unwrap().len(), 2);
    assert_eq!(env.read("x.txt"), b"1");
    assert_eq!(ok(env.run(&["history"])).json["total"], 1);
    ok(env.run(&["undo", &op]));
    assert_eq!(tree(&env), before);

    let bad = env.run_stdin(
        &["batch", "--stdin", "--atomic", "--continue-on-error"],
        good,
    );
    assert_eq!(bad.error_code(), "argument.invalid");
    let no_json = env.run_stdin(&["batch", "--stdin"], b"[oops");
    assert_eq!(no_json.error_code(), "input.syntax-error");
    let nested = env.run_stdin(
        &["batch", "--stdin", "--atomic"],
        br#"[["write","q","--content","1","--tx","tx-x"]]"#,
    );
    assert_eq!(nested.error_code(), "argument.invalid");
}

#[test]
fn batch_without_atomic_commits_each_and_can_continue() {
    let env = TestEnv::new();
    let input = br#"[["write","p.txt","--content","1"],["write","p.txt","--content","2"],["write","q.txt","--content","3"]]"#;
    let r = env.run_stdin(&["batch", "--stdin"], input);
    assert_eq!(r.error_code(), "refusal.exists");
    let diag = r.json["error"]["diagnostics"].as_array().unwrap();
    assert!(diag[0]["op_id"].is_string());
    assert_eq!(diag[2]["status"], "skipped");
    assert_eq!(
        diag[2]["argv"],
        serde_json::json!(["write", "q.txt", "--content", "3"])
    );
    assert!(env.path("p.txt").exists() && !env.path("q.txt").exists());
    std::fs::remove_file(env.path("p.txt")).unwrap();
    let r = env.run_stdin(&["batch", "--stdin", "--continue-on-error"], input);
    assert_eq!(r.error_code(), "refusal.exists");
    assert!(env.path("q.txt").exists());
    let all_ok = ok(env.run_stdin(
        &["batch", "--stdin"],
        br#"[["read","q.txt"],["info","q.txt"]]"#,
    ));
    assert_eq!(all_ok.json["results"][0]["lines"], serde_json::json!(["3"]));
}

#[test]
fn rebase_re_runs_a_content_based_edit_on_the_current_file() {
    let env = TestEnv::new();
    env.write("app.py", "def greet():\n    return 1\n\nx = 2\n");
    let t = begin(&env);
    ok(env.run(&[
        "edit",
        "app.py",
        "--old",
        "def greet",
        "--new",
        "def welcome",
        "--tx",
        &t,
    ]));
    assert_eq!(
        ok(env.run(&["read", "app.py", "--tx", &t])).lines()[0],
        "def welcome():"
    );
    // Someone else changes another line of the same file.
    env.write("app.py", "def greet():\n    return 1\n\nx = 3\n");
    assert_eq!(env.run(&["tx", "commit", &t]).code, 2);
    let r = ok(env.run(&["tx", "rebase", &t]));
    assert_eq!(r.json["rebased"], serde_json::json!(["app.py"]));
    // Rebase resolves write conflicts only: the earlier read is still stale.
    let c = env.run(&["tx", "commit", &t]);
    assert_eq!(c.json["error"]["conflicts"][0]["kind"], "read");
    let again = ok(env.run(&["read", "app.py", "--tx", &t]));
    assert_eq!(
        again.lines(),
        vec!["def welcome():", "    return 1", "", "x = 3"]
    );
    ok(env.run(&["tx", "commit", &t]));
    assert_eq!(
        env.read("app.py"),
        b"def welcome():\n    return 1\n\nx = 3\n"
    );
}

/// Runs an `aitools ...` command line we were handed (its words are all plain).
fn follow(env: &TestEnv, line: &str) -> Run {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[0], "aitools", "{line}");
    env.run(&words[1..])
}

#[test]
fn commands_handed_back_inside_a_tx_stay_in_it() {
    let env = TestEnv::new();
    env.write("k.txt", "keep\n");
    env.write("b.txt", "one\ntwo\nthree\n");
    let t = begin(&env);
    ok(env.run(&[
        "insert",
        "k.txt",
        "--at",
        "end",
        "--content",
        "x",
        "--tx",
        &t,
    ]));
    // The continuation of a cut read reads the tx's file, not the tree's.
    let r = env.run(&["read", "k.txt", "--tx", &t, "--max-lines", "1"]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    let next = r.json["next_commands"][0].as_str().unwrap().to_string();
    assert!(next.ends_with(&format!("--tx {t}")), "{next}");
    assert_eq!(ok(follow(&env, &next)).lines(), vec!["x"]);
    // A hash-mismatch repair reads the hash the tx compares against.
    ok(env.run(&["edit", "b.txt", "--old", "one", "--new", "1", "--tx", &t]));
    let stale = sha256sum(&env.path("b.txt"));
    let e = env.run(&[
        "edit",
        "b.txt",
        "--old",
        "two",
        "--new",
        "2",
        "--expect-hash",
        &stale,
        "--tx",
        &t,
    ]);
    assert_eq!(e.error_code(), "refusal.target-changed");
    let fix = e.json["error"]["repairs"][0]["command"].as_str().unwrap();
    let reread = ok(follow(&env, fix));
    assert_eq!(reread.lines()[0], "1");
    assert_ne!(reread.json["hash"].as_str().unwrap(), stale);
    // A not-found repair searches the tx's files, and a `--` stays last.
    ok(env.run(&["write", "new.txt", "--content", "n\n", "--tx", &t]));
    let nf = env.run(&["read", "nosuch", "--tx", &t]);
    let cmds: Vec<String> = nf.json["error"]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["command"].as_str().unwrap().to_string())
        .collect();
    let find = cmds.iter().find(|c| c.starts_with("aitools find")).unwrap();
    let found = ok(follow(&env, find));
    assert!(found.stdout.contains("new.txt"), "{}", found.stdout);
}

/// Every `aitools` command an envelope hands back, nested envelopes included.
fn handed_back(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, val) in m {
                match val {
                    Value::String(s) if k == "command" && s.starts_with("aitools") => {
                        out.push(s.clone())
                    }
                    Value::Array(a) if k == "next_commands" => {
                        out.extend(a.iter().filter_map(|s| s.as_str().map(String::from)))
                    }
                    _ => handed_back(val, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|i| handed_back(i, out)),
        _ => {}
    }
}

#[test]
fn repairs_never_name_a_tx_that_is_gone() {
    let env = TestEnv::new();
    env.write("k.txt", "keep\nmore\n");
    env.write("b.txt", "one\ntwo\nthree\n");
    // An atomic batch's tx is aborted when its failure is reported.
    let r = env.run_stdin(
        &["batch", "--stdin", "--atomic"],
        br#"[["read","k.txt","--max-lines","1"],["edit","b.txt","--old","nomatch","--new","y"]]"#,
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    let mut cmds = Vec::new();
    handed_back(&r.json, &mut cmds);
    assert!(
        cmds.iter().any(|c| c.starts_with("aitools read b.txt")),
        "{cmds:?}"
    );
    assert!(cmds.iter().all(|c| !c.contains("--tx")), "{cmds:?}");
    // A rebase's failing re-run names the tx being rebased, not its scratch copy.
    let t = begin(&env);
    ok(env.run(&["edit", "b.txt", "--old", "two", "--new", "2", "--tx", &t]));
    env.write("b.txt", "one\nTWO\nthree\n");
    let rb = env.run(&["tx", "rebase", &t]);
    assert_eq!(rb.error_code(), "refusal.target-changed");
    let ids: std::collections::BTreeSet<&str> = rb
        .stderr
        .match_indices("tx-")
        .map(|(i, _)| &rb.stderr[i..(i + 28).min(rb.stderr.len())])
        .collect();
    assert_eq!(ids.into_iter().collect::<Vec<_>>(), vec![t.as_str()]);
}

#[test]
fn batch_is_partial_when_an_element_was_cut_and_says_what_ran() {
    let env = TestEnv::new();
    env.write("k.txt", "keep\nmore\n");
    let r = env.run_stdin(
        &["batch", "--stdin"],
        br#"[["read","k.txt","--max-lines","1"],["info","k.txt"]]"#,
    );
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["status"], "partial");
    assert_eq!(r.json["results"][0]["status"], "partial");
    // The first element fails, the later ones run and keep their effects.
    let r = env.run_stdin(
        &["batch", "--stdin", "--continue-on-error"],
        br#"[["edit","k.txt","--old","nomatch","--new","y"],["write","p.txt","--content","1"]]"#,
    );
    assert!(env.path("p.txt").exists());
    let msg = r.json["error"]["message"].as_str().unwrap();
    assert!(!msg.contains("before it"), "{msg}");
    assert!(msg.contains("element 2 succeeded"), "{msg}");
    let r = env.run_stdin(
        &["batch", "--stdin"],
        br#"[["edit","k.txt","--old","nomatch","--new","y"],["write","q.txt","--content","1"]]"#,
    );
    assert!(!env.path("q.txt").exists());
    let msg = r.json["error"]["message"].as_str().unwrap();
    assert!(msg.contains("no other element succeeded"), "{msg}");
}

#[test]
fn info_through_a_tx_reports_the_tx_view() {
    let env = TestEnv::new();
    env.write("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(
        env.path("run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    env.write("k.txt", "keep\n");
    env.write(".gitignore", "*.log\n");
    let t = begin(&env);
    ok(env.run(&["chmod", "run.sh", "--mode", "644", "--tx", &t]));
    ok(env.run(&["move", "k.txt", "k2.txt", "--tx", &t]));
    ok(env.run(&["write", "x.log", "--content", "y\n", "--tx", &t]));
    let found = ok(env.run(&["find", ".", "--long", "--tx", &t]));
    let listed = found.stdout.clone();
    for (path, mode, ignored) in [
        ("run.sh", "0644", false),
        ("k2.txt", "0644", false),
        ("x.log", "0644", true),
    ] {
        let i = ok(env.run(&["info", path, "--tx", &t]));
        assert_eq!(i.json["mode"], mode, "{path}: {}", i.stdout);
        assert_eq!(i.json["ignored"], ignored, "{path}: {}", i.stdout);
        if !ignored {
            // The same mode and mtime as the scan through the tx reports.
            let row = format!(
                "[\"{path}\",\"file\",{},\"{mode}\",{}]",
                i.json["size"], i.json["mtime"]
            );
            assert!(listed.contains(&row), "{row} in {listed}");
        }
    }
}

#[test]
fn paths_removed_moved_or_linked_in_a_tx() {
    let env = TestEnv::new();
    env.write("bin.dat", b"\x00\x01");
    env.write("k.txt", "keep\n");
    env.write("crlf.txt", "a\r\nb\r\n");
    let t = begin(&env);
    ok(env.run(&["delete", "bin.dat", "--tx", &t]));
    ok(env.run(&["move", "k.txt", "k2.txt", "--tx", &t]));
    ok(env.run(&["link", "crlf.txt", "lnk2", "--tx", &t]));
    let r = env.run(&["read", "bin.dat", "--tx", &t]);
    assert_eq!(r.error_code(), "input.not-found");
    let msg = r.json["error"]["message"].as_str().unwrap();
    assert!(msg.contains("removed in tx"), "{msg}");
    let cmds: Vec<&str> = r.json["error"]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["command"].as_str().unwrap())
        .collect();
    assert_eq!(cmds, vec![format!("aitools tx diff {t}").as_str()]);
    // A moved path answers its new name, and the retry works.
    let m = env.run(&["read", "k.txt", "--tx", &t]);
    assert_eq!(m.json["error"]["candidates"], serde_json::json!(["k2.txt"]));
    let retry = m.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(ok(follow(&env, retry)).lines(), vec!["keep"]);
    // A link made in the tx is followed as it will be on disk.
    let l = ok(env.run(&["read", "lnk2", "--tx", &t]));
    assert_eq!(l.lines(), vec!["a", "b"]);
    let i = ok(env.run(&["info", "lnk2", "--tx", &t]));
    assert_eq!(i.json["hash"].as_str().unwrap(), hash_of(&env, "crlf.txt"));
    ok(env.run(&["tx", "commit", &t]));
    let after = ok(env.run(&["read", "lnk2"]));
    assert_eq!(after.lines(), l.lines());
}

#[test]
fn a_path_under_a_directory_the_tx_moved_answers_its_new_name() {
    // The tx's ops record that they moved paths (not which command ran), and a
    // read of an old path pairs the op's removed and added directories.
    let env = TestEnv::new();
    env.write("d/a.txt", "a\n");
    let t = begin(&env);
    ok(env.run(&["move", "d", "d2", "--tx", &t]));
    let r = env.run(&["read", "d/a.txt", "--tx", &t]);
    assert_eq!(r.error_code(), "input.not-found", "{}", r.stderr);
    let msg = r.json["error"]["message"].as_str().unwrap();
    assert!(msg.contains("was moved to d2/a.txt"), "{msg}");
    assert_eq!(
        r.json["error"]["candidates"],
        serde_json::json!(["d2/a.txt"])
    );
    let retry = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(ok(follow(&env, retry)).lines(), vec!["a"]);
    // A delete in the tx is no move: the answer names the op that removed it.
    env.write("e.txt", "e\n");
    ok(env.run(&["delete", "e.txt", "--tx", &t]));
    let g = env.run(&["read", "e.txt", "--tx", &t]);
    let msg = g.json["error"]["message"].as_str().unwrap();
    assert!(msg.contains("was removed in tx"), "{msg}");
}

#[test]
fn a_directory_the_tx_moves_that_gains_entries_outside_it_is_drift() {
    let env = TestEnv::new();
    env.write("dir/a.txt", "a\n");
    let t = begin(&env);
    ok(env.run(&["move", "dir", "dir2", "--tx", &t]));
    env.write("dir/new.txt", "new\n");
    let s = ok(env.run(&["tx", "status", &t]));
    assert_eq!(s.json["drift"], serde_json::json!(["dir"]), "{}", s.stdout);
    let c = env.run(&["tx", "commit", &t]);
    assert_eq!(c.error_code(), "refusal.target-changed", "{}", c.stderr);
    assert_eq!(c.code, 2);
    assert_eq!(
        c.json["error"]["conflicts"][0]["unknown_entries"],
        serde_json::json!(["dir/new.txt"])
    );
    assert_eq!(env.read("dir/new.txt"), b"new\n");
    // The first repair (rebase) re-runs the move over the current directory.
    let fix = c.json["error"]["repairs"][0]["command"].as_str().unwrap();
    ok(follow(&env, fix));
    ok(env.run(&["tx", "commit", &t]));
    assert!(!env.path("dir").exists());
    assert_eq!(env.read("dir2/new.txt"), b"new\n");
    assert_eq!(env.read("dir2/a.txt"), b"a\n");
}

/// batch takes its input inline too (--stdin-data), and a malformed input names
/// the element that is wrong.
#[test]
fn batch_takes_stdin_data_and_names_a_bad_element() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let r = env.run(&["batch", "--stdin-data", r#"[["read","a.txt"]]"#]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json["results"][0]["lines"][0], "one");
    for (input, says) in [
        (r#"[["read","a.txt"],["read",1]]"#, "element 2 holds 1"),
        (r#"[["read","a.txt"],[]]"#, "element 2 is empty"),
        (r#"[["read","a.txt"],"read"]"#, "element 2 is not an array"),
        ("[]", "it is empty"),
    ] {
        let bad = env.run(&["batch", "--stdin-data", input]);
        assert_eq!(bad.error_code(), "argument.invalid", "{input}");
        let msg = bad.json["error"]["message"].as_str().unwrap_or("");
        assert!(msg.contains(says), "{input}: {msg}");
    }
}

/// A path both read and written through a tx and changed outside it is one
/// changed path (listed once per conflict kind), and tx drop's operand is named
/// as the schema names it.
#[test]
fn a_conflicting_path_is_counted_once() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let t = begin(&env);
    env.run(&["read", "a.txt", "--tx", &t]);
    let e = env.run(&["edit", "a.txt", "--old", "one", "--new", "two", "--tx", &t]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    env.write("a.txt", "changed\n");
    let c = env.run(&["tx", "commit", &t]);
    assert_eq!(c.error_code(), "refusal.target-changed");
    let msg = c.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.starts_with("1 path(s) changed"), "{msg}");
    assert_eq!(
        c.json["error"]["conflicts"].as_array().map(Vec::len),
        Some(2)
    );
    let d = env.run(&["tx", "drop", &t]);
    let msg = d.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("TX_OP"), "{msg}");
    env.run(&["tx", "abort", &t]);
}

/// A tx id used from another workspace is not found there, and the message says
/// which workspace was looked in and that a tx belongs to the one it began in.
#[test]
fn a_tx_from_another_workspace_is_named_as_such() {
    let a = TestEnv::new();
    let b = TestEnv::new();
    b.write("x.txt", "x\n");
    let t = begin(&a);
    let r = b.run(&["read", "x.txt", "--tx", &t]);
    assert_eq!(r.error_code(), "input.not-found");
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("workspace it began in"), "{msg}");
    a.run(&["tx", "abort", &t]);
}

/// `code outline --tx` outlines the staged file, as `read --tx` and `code defs
/// --tx` see it: a file only the tx created, a staged edit of a file on disk, and
/// a file the tx removed. Oracle: the staged text's definitions as `read --tx`
/// shows them, and the disk still holding the old definition.
#[test]
fn code_outline_sees_the_staged_file() {
    let env = TestEnv::new();
    env.write("a.py", "def old_name():\n    pass\n");
    env.write("gone.py", "def bye():\n    pass\n");
    let t = begin(&env);
    let ha = hash_of(&env, "a.py");
    ok(env.run(&[
        "write",
        "a.py",
        "--overwrite",
        "--expect-hash",
        &ha,
        "--content",
        "def new_name():\n    pass\n",
        "--tx",
        &t,
    ]));
    ok(env.run(&[
        "write",
        "b.py",
        "--content",
        "class Fresh:\n    pass\n",
        "--tx",
        &t,
    ]));
    ok(env.run(&["delete", "gone.py", "--tx", &t]));
    let names = |r: &Run| -> Vec<String> {
        r.json["symbols"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s["name"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let staged = ok(env.run(&["read", "a.py", "--tx", &t]));
    assert!(staged.stdout.contains("new_name"), "{}", staged.stdout);
    let a = ok(env.run(&["code", "outline", "a.py", "--tx", &t]));
    assert_eq!(names(&a), ["new_name"], "{}", a.stdout);
    let b = ok(env.run(&["code", "outline", "b.py", "--tx", &t]));
    assert_eq!(names(&b), ["Fresh"], "{}", b.stdout);
    let gone = env.run(&["code", "outline", "gone.py", "--tx", &t]);
    assert_eq!(gone.error_code(), "input.not-found", "{}", gone.stdout);
    // Without --tx the disk is what it was.
    let disk = ok(env.run(&["code", "outline", "a.py"]));
    assert_eq!(names(&disk), ["old_name"], "{}", disk.stdout);
    // code defs --tx finds the staged definition too.
    let defs = ok(env.run(&["code", "defs", "new_name", "--tx", &t]));
    assert!(defs.stdout.contains("a.py"), "{}", defs.stdout);
}

/// Staging is not synced op by op; a tx staged so in an earlier boot (its
/// `unsynced` marker names another boot id: a power loss may have lost its last
/// ops) is refused, for commit and for staging, until `tx drop` rewrites it durably.
#[test]
fn a_tx_staged_unsynced_before_a_restart_is_refused_until_dropped() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    env.write("b.txt", "bee\n");
    let before = tree(&env);
    let t = begin(&env);
    ok(env.run(&["edit", "a.txt", "--old", "one", "--new", "two", "--tx", &t]));
    ok(env.run(&["edit", "b.txt", "--old", "bee", "--new", "be", "--tx", &t]));
    let marker = env.tx_dir(&t).join("unsynced");
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), boot.trim());
    std::fs::write(&marker, "00000000-0000-0000-0000-000000000000").unwrap();
    let r = env.run(&["tx", "commit", &t]);
    assert_eq!(r.error_code(), "environment.io", "{}", r.json);
    assert!(r.json.to_string().contains("restarted"), "{}", r.json);
    assert!(
        r.json
            .to_string()
            .contains(&format!("aitools tx drop {t} 2")),
        "{}",
        r.json
    );
    let r = env.run(&[
        "edit", "a.txt", "--old", "two", "--new", "three", "--tx", &t,
    ]);
    assert_eq!(r.error_code(), "environment.io", "{}", r.json);
    assert_eq!(tree(&env), before);
    // The repair: drop the last op (the rest is rewritten durably), stage it again.
    ok(env.run(&["tx", "drop", &t, "2"]));
    assert!(!marker.exists());
    ok(env.run(&["edit", "b.txt", "--old", "bee", "--new", "be", "--tx", &t]));
    ok(env.run(&["tx", "commit", &t]));
    assert_eq!(env.read("a.txt"), b"two\n");
    assert_eq!(env.read("b.txt"), b"be\n");
}

/// A staged blob whose bytes no longer hash to its name (damaged outside the
/// process) is refused by the commit, which leaves the tree alone.
#[test]
fn a_commit_refuses_a_staged_blob_that_does_not_hash_to_its_name() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let before = tree(&env);
    let t = begin(&env);
    ok(env.run(&["write", "new.txt", "--content", "staged text\n", "--tx", &t]));
    let scratch = tempfile::tempdir().unwrap();
    std::fs::write(scratch.path().join("x"), "staged text\n").unwrap();
    let h = sha256sum(&scratch.path().join("x"));
    // The tx keeps its staged blobs in its own directory until it commits.
    let blob = env.tx_dir(&t).join("blobs").join(&h);
    std::fs::write(&blob, "garbage\n").unwrap();
    let r = env.run(&["tx", "commit", &t]);
    assert_eq!(r.error_code(), "environment.io", "{}", r.json);
    assert_eq!(tree(&env), before);
}

/// The hash of `text` as a blob name.
fn text_hash(text: &str) -> String {
    let scratch = tempfile::tempdir().unwrap();
    std::fs::write(scratch.path().join("x"), text).unwrap();
    sha256sum(&scratch.path().join("x"))
}

/// Staged bytes are the tx's own blobs (`<tx>/blobs/`, unsynced like the rest of
/// staging) until the commit moves them into the shared `blobs/`: the op's diff
/// and undo then work as for a plain write, after the file changed again too.
#[test]
fn staged_blobs_stay_in_the_tx_until_its_commit_moves_them_to_the_journal() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let t = begin(&env);
    ok(env.run(&["edit", "a.txt", "--old", "one", "--new", "two", "--tx", &t]));
    ok(env.run(&["write", "n.txt", "--content", "new\n", "--tx", &t]));
    let own = env.tx_dir(&t).join("blobs");
    let shared = env
        .tx_dir(&t)
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("blobs");
    let (two, new) = (text_hash("two\n"), text_hash("new\n"));
    for h in [&two, &new] {
        assert!(own.join(h).is_file(), "{h} not in the tx");
        assert!(!shared.join(h).exists(), "{h} shared before the commit");
    }
    // The staged view reads them (read, stat through info, tx diff).
    assert!(
        ok(env.run(&["read", "a.txt", "--tx", &t]))
            .stdout
            .contains("two")
    );
    let d = ok(env.run(&["tx", "diff", &t]));
    assert!(d.stdout.contains("+two"), "{}", d.stdout);
    let c = ok(env.run(&["tx", "commit", &t]));
    let op = c.json["op_id"].as_str().unwrap().to_string();
    for h in [&two, &new] {
        assert!(shared.join(h).is_file(), "{h} not shared after the commit");
    }
    env.write("a.txt", "three\n");
    let d = ok(env.run(&["diff", "--op", &op]));
    assert!(d.stdout.contains("+two"), "{}", d.stdout);
    env.write("a.txt", "two\n");
    ok(env.run(&["undo", &op]));
    assert_eq!(env.read("a.txt"), b"one\n");
    assert!(!env.path("n.txt").exists());
}

/// After a restart `tx drop` keeps only ops whose staged blobs (written without
/// syncs) still hold their bytes: one a power loss damaged makes it name an
/// earlier op to drop from.
#[test]
fn a_drop_after_a_restart_refuses_to_keep_an_op_whose_blob_was_damaged() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    env.write("b.txt", "bee\n");
    env.write("c.txt", "sea\n");
    let t = begin(&env);
    ok(env.run(&["edit", "a.txt", "--old", "one", "--new", "two", "--tx", &t]));
    ok(env.run(&["edit", "b.txt", "--old", "bee", "--new", "be", "--tx", &t]));
    ok(env.run(&["edit", "c.txt", "--old", "sea", "--new", "see", "--tx", &t]));
    let dir = env.tx_dir(&t);
    std::fs::write(dir.join("unsynced"), "00000000-0000-0000-0000-000000000000").unwrap();
    // A power loss left op 2's blob empty.
    std::fs::write(dir.join("blobs").join(text_hash("be\n")), "").unwrap();
    let r = env.run(&["tx", "drop", &t, "3"]);
    assert_eq!(r.error_code(), "environment.io", "{}", r.json);
    assert!(
        r.json
            .to_string()
            .contains(&format!("aitools tx drop {t} 2")),
        "{}",
        r.json
    );
    ok(env.run(&["tx", "drop", &t, "2"]));
    assert!(!dir.join("unsynced").exists());
    ok(env.run(&["tx", "commit", &t]));
    assert_eq!(env.read("a.txt"), b"two\n");
    assert_eq!(env.read("b.txt"), b"bee\n");
}

/// The state directory as `find` and `sha256sum` see it: every entry's path and
/// kind, and every file's hash.
fn state_listing(env: &TestEnv) -> String {
    let state = env.state.path();
    let sh = |script: &str| {
        let out = std::process::Command::new("sh")
            .args(["-c", script, "sh"])
            .arg(state)
            .output()
            .expect("sh");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let list = sh("cd \"$1\" && find . -printf '%P %y\\n' | sort");
    let hashes = sh("cd \"$1\" && find . -type f -exec sha256sum {} + | sort -k2");
    format!("{list}--\n{hashes}")
}

/// `batch --dry-run` stages nowhere in the state directory: the directory is left
/// byte-identical (no tx, no counter, no blob), and no element's answer names a tx
/// that never existed for anyone to use.
#[test]
fn batch_dry_run_writes_nothing_to_the_state_directory() {
    let env = TestEnv::new();
    ok(env.run(&["write", "a.txt", "--content", "alpha\n"]));
    ok(env.run(&["tx", "status"]));
    let before = state_listing(&env);
    let input = br#"[["write","b.txt","--content","x\n"],["read","b.txt"],["edit","a.txt","--old","alpha","--new","beta"],["read","a.txt"]]"#;
    let r = ok(env.run_stdin(&["batch", "--stdin", "--dry-run"], input));
    assert_eq!(r.json["dry_run"], true, "{}", r.stdout);
    let results = r.json["results"].as_array().unwrap();
    // The elements still see each other's staged writes.
    assert_eq!(
        results[1]["lines"],
        serde_json::json!(["x"]),
        "{}",
        r.stdout
    );
    assert_eq!(
        results[3]["lines"],
        serde_json::json!(["beta"]),
        "{}",
        r.stdout
    );
    for el in results {
        assert!(el.get("tx").is_none() && el.get("tx_op").is_none(), "{el}");
        assert!(
            !el.to_string().contains("tx-"),
            "an element names a tx: {el}"
        );
    }
    let paths: Vec<&str> = r.json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["path"].as_str())
        .collect();
    assert_eq!(paths, ["a.txt", "b.txt"], "{}", r.stdout);
    assert_eq!(env.read("a.txt"), b"alpha\n");
    assert!(!env.path("b.txt").exists());
    assert_eq!(state_listing(&env), before, "the dry run wrote state");
    assert_eq!(ok(env.run(&["tx", "status"])).json["total"], 0);
}
