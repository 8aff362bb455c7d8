//! The intent record's two shapes of first line: the one written now (`"v":2`,
//! paths relative to the root and the blob store, temp names by number) and the
//! older one (absolute paths, the temp list written out), which records left
//! pending by an older aitools still have. Both are rolled forward, discarded
//! and refused by the same rules.

use crate::support::TestEnv;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

const OP: &str = "op-20261201T000000Z-0000c0de";

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A workspace with `a.txt` ("old\n"), its state directory made by a first write.
fn setup() -> (TestEnv, PathBuf) {
    let env = TestEnv::new();
    env.write("a.txt", "old\n");
    let r = env.run(&["write", ".seed", "--content", "x"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let root = std::fs::canonicalize(env.root()).expect("root");
    (env, root)
}

/// The journal entry of a write of `a.txt` from "old\n" to "new\n".
fn entry(seq: u64) -> Value {
    let state = |h: String| json!({"kind": "file", "hash": h, "mode": 0o644});
    json!({"seq": seq, "op_id": OP, "time": "2026-12-01T00:00:00Z", "command": "write",
           "argv": ["write", "a.txt"],
           "changes": [{"path": "a.txt", "action": "modified",
                        "before": state(hex(b"old\n")), "after": state(hex(b"new\n"))}]})
}

/// Plants the temp file (new bytes) and `commit/<OP>.intent` with `first` as its
/// first line, then its checksum line when `complete`.
fn plant(env: &TestEnv, root: &std::path::Path, first: &Value, complete: bool) -> PathBuf {
    let tmp = root.join(format!(".aitools-{OP}-0.tmp"));
    std::fs::write(&tmp, "new\n").expect("temp");
    let first = first.to_string();
    let mut text = format!("{first}\n");
    if complete {
        text.push_str(&format!("{}\n", hex(first.as_bytes())));
    }
    let rec = env.ws_state().join("commit").join(format!("{OP}.intent"));
    std::fs::write(&rec, text).expect("record");
    std::fs::set_permissions(&rec, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    tmp
}

fn old_shape(root: &std::path::Path) -> Value {
    let tmp = root.join(format!(".aitools-{OP}-0.tmp"));
    json!({"op_id": OP, "temps": [tmp], "blob_tmps": [], "links": [],
           "steps": [{"op": "rename", "tmp": tmp, "to": root.join("a.txt")}],
           "sync_dirs": [root], "entry": entry(1)})
}

fn new_shape(steps: Value) -> Value {
    json!({"v": 2, "op_id": OP, "steps": steps, "sync_dirs": [""], "entry": entry(1)})
}

fn recovered(r: &crate::support::Run) -> Vec<(String, String)> {
    r.json["recovered"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| {
                    let s = |k: &str| x[k].as_str().unwrap_or("").to_string();
                    (s("op_id"), s("action"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A record of `shape` planted (with its commit line when `committed`), then a
/// read: recovery reports `action` for it, a.txt holds `content`, and its temp
/// file is gone.
fn planted_then_read(shape: &str, committed: bool, action: &str, content: &[u8]) -> TestEnv {
    let (env, root) = setup();
    let first = match shape {
        "old" => old_shape(&root),
        _ => new_shape(json!([{"op": "rename", "n": 0, "to": "a.txt"}])),
    };
    let tmp = plant(&env, &root, &first, committed);
    let r = env.run(&["read", "a.txt"]);
    assert_eq!(r.code, 0, "{shape}: {}", r.stderr);
    assert_eq!(
        recovered(&r),
        vec![(OP.to_string(), action.to_string())],
        "{shape}: {}",
        r.stdout
    );
    assert_eq!(env.read("a.txt"), content, "{shape}");
    assert!(!tmp.exists(), "{shape}: the temp file is left");
    env
}

#[test]
fn a_committed_record_of_either_shape_is_rolled_forward_and_journaled() {
    for shape in ["old", "new"] {
        let env = planted_then_read(shape, true, "rolled-forward", b"new\n");
        let h = env.run(&["history"]);
        assert!(h.stdout.contains("op-0000c0de"), "{shape}: {}", h.stdout);
        // Nothing pending: writes run again.
        let w = env.run(&["write", "b.txt", "--content", "b"]);
        assert_eq!(w.code, 0, "{shape}: {}", w.stderr);
    }
}

#[test]
fn an_uncommitted_record_of_either_shape_is_discarded_with_its_temp() {
    for shape in ["old", "new"] {
        planted_then_read(shape, false, "discarded", b"old\n");
    }
}

/// A relative path that leaves the root, an absolute one elsewhere, or a temp
/// that is not the op's own: refused, never run, reported.
#[test]
fn a_new_shape_record_naming_a_path_out_of_the_workspace_is_not_run() {
    let outside = tempfile::tempdir().expect("tempdir");
    let victim = std::fs::canonicalize(outside.path())
        .expect("outside")
        .join("victim");
    std::fs::write(&victim, "keep\n").expect("victim");
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let cases = [
        json!([{"op": "chmod", "path": "../victim", "mode": 0o777}]),
        json!([{"op": "chmod", "path": victim, "mode": 0o777}]),
        json!([{"op": "rename", "tmp": victim, "to": "a.txt"}]),
        json!([{"op": "rename", "n": 0, "to": "../victim"}]),
    ];
    for steps in cases {
        let (env, root) = setup();
        plant(&env, &root, &new_shape(steps.clone()), true);
        let r = env.run(&["read", "a.txt"]);
        assert_eq!(r.code, 0, "{steps}: {}", r.stderr);
        let pending = r.json["pending_recovery"][0]["error"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert!(pending.contains("not trusted"), "{steps}: {}", r.stdout);
        assert_eq!(std::fs::read(&victim).expect("victim"), b"keep\n");
        let mode = std::fs::metadata(&victim)
            .expect("stat")
            .permissions()
            .mode()
            & 0o7777;
        assert_eq!(mode, 0o644, "{steps}");
        assert_eq!(env.read("a.txt"), b"old\n", "{steps}");
    }
}
