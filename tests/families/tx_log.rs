//! The tx's ops log, black-box: a staged op appends one record to it (the index
//! is not rewritten op by op), a torn last record (a kill mid-append) is ignored
//! and cut off by the next op, `drop` writes a new generation that later ops
//! append to, and a tx whose log was written whole per op (index and log
//! rewritten by every op, a leftover record past the index) still loads.
//! Oracles: `tx status` before and after, the log's bytes, and the committed tree.

use crate::support::TestEnv;
use serde_json::Value;
use std::path::PathBuf;

fn ok(env: &TestEnv, args: &[&str]) -> Value {
    let r = env.run(args);
    assert_eq!(r.code, 0, "{args:?}: {} {}", r.stdout, r.stderr);
    r.json
}

fn status(env: &TestEnv, t: &str) -> Value {
    let mut v = ok(env, &["tx", "status", t]);
    v.as_object_mut().unwrap().remove("recovered");
    v
}

fn edit(env: &TestEnv, t: &str, path: &str, old: &str, new: &str) -> Value {
    ok(env, &["edit", path, "--old", old, "--new", new, "--tx", t])
}

/// A tx over `a.txt`, `b.txt`, `c.txt` (`a1`, `b1`, `c1`) with two ops staged
/// (a1 → A1, b1 → B1): the workspace, the tx and its directory.
fn two_ops_staged() -> (TestEnv, String, PathBuf) {
    let env = TestEnv::new();
    for (p, s) in [("a.txt", "a1\n"), ("b.txt", "b1\n"), ("c.txt", "c1\n")] {
        env.write(p, s);
    }
    let t = env.tx_begin();
    let dir = env.tx_dir(&t);
    edit(&env, &t, "a.txt", "a1", "A1");
    edit(&env, &t, "b.txt", "b1", "B1");
    (env, t, dir)
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    assert_eq!(bytes.last(), Some(&b'\n'), "the log ends inside a record");
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

fn inode(p: &std::path::Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).unwrap().ino()
}

#[test]
fn a_staged_op_appends_its_record_and_a_torn_one_is_cut_by_the_next() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.write("b.txt", "beta\n");
    env.write("c.txt", "gamma\n");
    let t = env.tx_begin();
    let dir = env.tx_dir(&t);
    let index = inode(&dir.join("index.json"));
    assert_eq!(edit(&env, &t, "a.txt", "alpha", "ALPHA")["tx_op"], 1);
    let one = std::fs::read(dir.join("ops.0.jsonl")).unwrap();
    assert_eq!(edit(&env, &t, "b.txt", "beta", "BETA")["tx_op"], 2);
    let two = std::fs::read(dir.join("ops.0.jsonl")).unwrap();
    // Appended: the first record's bytes stay; the index is not rewritten.
    assert!(
        two.starts_with(&one),
        "the log was rewritten, not appended to"
    );
    assert_eq!(lines(&two).len(), 2);
    assert_eq!(lines(&two)[1]["tx_op"], 2);
    assert_eq!(
        inode(&dir.join("index.json")),
        index,
        "index.json was rewritten"
    );
    let after_two = status(&env, &t);
    // A kill inside the append of a third record: any cut of it is no op.
    let third = &two[one.len()..];
    for cut in [1, third.len() / 2, third.len() - 1] {
        let mut torn = two.clone();
        torn.extend_from_slice(&third[..cut]);
        std::fs::write(dir.join("ops.0.jsonl"), &torn).unwrap();
        assert_eq!(status(&env, &t), after_two, "torn at {cut}");
    }
    // The next op cuts the torn bytes off and appends after the last whole record.
    assert_eq!(edit(&env, &t, "c.txt", "gamma", "GAMMA")["tx_op"], 3);
    let three = lines(&std::fs::read(dir.join("ops.0.jsonl")).unwrap());
    let ops: Vec<&Value> = three.iter().map(|r| &r["tx_op"]).collect();
    assert_eq!(ops, [1, 2, 3]);
    assert_eq!(status(&env, &t)["ops"].as_array().unwrap().len(), 3);
    ok(&env, &["tx", "commit", &t]);
    assert_eq!(env.read("a.txt"), b"ALPHA\n");
    assert_eq!(env.read("b.txt"), b"BETA\n");
    assert_eq!(env.read("c.txt"), b"GAMMA\n");
}

#[test]
fn after_a_drop_later_ops_append_to_the_new_generation() {
    let (env, t, dir) = two_ops_staged();
    edit(&env, &t, "a.txt", "A1", "AA");
    let d = ok(&env, &["tx", "drop", &t, "2"]);
    assert_eq!(d["dropped"], serde_json::json!([2, 3]));
    assert!(
        !dir.join("ops.0.jsonl").exists(),
        "the old generation stayed"
    );
    assert_eq!(
        lines(&std::fs::read(dir.join("ops.1.jsonl")).unwrap()).len(),
        1
    );
    assert_eq!(edit(&env, &t, "c.txt", "c1", "C1")["tx_op"], 2);
    let st = status(&env, &t);
    let paths: Vec<&Value> = st["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| &o["paths"])
        .collect();
    assert_eq!(
        paths,
        [&serde_json::json!(["a.txt"]), &serde_json::json!(["c.txt"])]
    );
    ok(&env, &["tx", "commit", &t]);
    assert_eq!(env.read("a.txt"), b"A1\n");
    assert_eq!(env.read("b.txt"), b"b1\n");
    assert_eq!(env.read("c.txt"), b"C1\n");
}

/// The log as the previous build wrote it: every op rewrote the index (its
/// `last_op` the op) and the whole log, records without `after`, and a killed op
/// could leave its record past the index's `last_op`.
#[test]
fn a_tx_whose_log_was_rewritten_whole_per_op_still_loads_and_stages() {
    let env = TestEnv::new();
    env.write("a.txt", "a1\n");
    env.write("b.txt", "b1\n");
    let t = env.tx_begin();
    let dir = env.tx_dir(&t);
    edit(&env, &t, "a.txt", "a1", "A1");
    let before = status(&env, &t);
    let mut rec = lines(&std::fs::read(dir.join("ops.0.jsonl")).unwrap()).remove(0);
    let after = rec.as_object_mut().unwrap().remove("after").unwrap();
    let mut paths = serde_json::Map::new();
    for a in after.as_array().unwrap() {
        paths.insert(a["path"].as_str().unwrap().into(), a["entry"].clone());
    }
    let index = serde_json::json!({"last_op": 1, "generation": 0, "paths": paths});
    std::fs::write(dir.join("index.json"), index.to_string()).unwrap();
    let mut leftover = rec.clone();
    leftover["tx_op"] = 2.into();
    leftover["paths"] = serde_json::json!(["b.txt"]);
    std::fs::write(dir.join("ops.0.jsonl"), format!("{rec}\n{leftover}\n")).unwrap();
    assert_eq!(status(&env, &t), before);
    assert_eq!(edit(&env, &t, "b.txt", "b1", "B1")["tx_op"], 2);
    let log = lines(&std::fs::read(dir.join("ops.0.jsonl")).unwrap());
    assert_eq!(log.len(), 2, "the leftover record stayed");
    assert!(log[1]["after"].is_array());
    ok(&env, &["tx", "commit", &t]);
    assert_eq!(env.read("a.txt"), b"A1\n");
    assert_eq!(env.read("b.txt"), b"B1\n");
}

/// A whole line of the log that is not a record (no kill leaves one: a kill
/// leaves a torn last line) is not skipped: the ops from there on are not taken,
/// staging and commit refuse with repairs naming `tx status`, `tx drop` (from
/// that op) and `tx abort`, and the drop they name mends the tx.
#[test]
fn a_whole_line_that_is_not_a_record_refuses_until_dropped() {
    let (env, t, dir) = two_ops_staged();
    let log = dir.join("ops.0.jsonl");
    let text = String::from_utf8(std::fs::read(&log).unwrap()).unwrap();
    let (first, second) = text.trim_end().split_once('\n').unwrap();
    // The second record, its closing brace gone: still a whole line.
    let broken = format!("{first}\n{}\n", &second[..second.len() - 1]);
    std::fs::write(&log, &broken).unwrap();

    let st = status(&env, &t);
    assert_eq!(st["ops"].as_array().unwrap().len(), 1, "{st}");
    let want = [
        format!("aitools tx status {t}"),
        format!("aitools tx drop {t} 2"),
        format!("aitools tx abort {t}"),
    ];
    for args in [
        vec!["edit", "c.txt", "--old", "c1", "--new", "C1", "--tx", &t],
        vec!["tx", "commit", &t],
    ] {
        let r = env.run(&args);
        assert_eq!(r.error_code(), "environment.io", "{args:?}: {}", r.stdout);
        let repairs: Vec<&str> = r.json["error"]["repairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["command"].as_str().unwrap())
            .collect();
        assert_eq!(repairs, want, "{args:?}");
        assert!(
            r.json["error"]["message"]
                .as_str()
                .unwrap()
                .contains("Line 2")
        );
    }
    // Nothing was cut or appended, nothing written to the tree.
    assert_eq!(std::fs::read(&log).unwrap(), broken.as_bytes());
    assert_eq!(env.read("a.txt"), b"a1\n");
    // The named drop mends it: staging and commit work again.
    let d = ok(&env, &["tx", "drop", &t, "2"]);
    assert_eq!(d["dropped"], serde_json::json!([]));
    assert_eq!(edit(&env, &t, "c.txt", "c1", "C1")["tx_op"], 2);
    ok(&env, &["tx", "commit", &t]);
    assert_eq!(env.read("a.txt"), b"A1\n");
    assert_eq!(env.read("b.txt"), b"b1\n");
    assert_eq!(env.read("c.txt"), b"C1\n");
}
