//! The first write of a workspace: its state directory is made by that write
//! (missing, missing in part, or under a state home that does not exist yet), and
//! the op is journaled and undoable as any later one.

use crate::support::{Run, TestEnv, parse};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The one workspace state directory under `home/aitools/`.
fn ws_state(home: &Path) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(home.join("aitools"))
        .expect("the state home holds aitools/")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(dirs.len(), 1, "one workspace state directory: {dirs:?}");
    dirs.pop().expect("one")
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .permissions()
        .mode()
        & 0o7777
}

/// The file's hash now (`info`), for `--expect-hash`.
fn hash(env: &TestEnv, rel: &str) -> String {
    let r = env.run(&["info", rel]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.json["hash"].as_str().expect("hash").to_string()
}

/// `write REL --content CONTENT --overwrite --expect-hash <its hash now>`: the
/// guarded overwrite these tests make as a workspace's first (or next) write.
fn overwrite(env: &TestEnv, rel: &str, content: &str) -> Run {
    let h = hash(env, rel);
    env.run(&[
        "write",
        rel,
        "--content",
        content,
        "--overwrite",
        "--expect-hash",
        &h,
    ])
}

/// The op is in `history` and `undo` of it gives back the file as it was.
fn journaled_and_undoable(env: &TestEnv, op: &str, rel: &str, before: Option<&[u8]>) {
    let h = env.run(&["history"]);
    assert_eq!(h.code, 0, "{}", h.stderr);
    assert!(
        h.stdout.contains(&op[3..]),
        "history lacks {op}: {}",
        h.stdout
    );
    let u = env.run(&["undo", op]);
    assert_eq!(u.code, 0, "undo {op}: {} {}", u.stdout, u.stderr);
    match before {
        Some(bytes) => assert_eq!(env.read(rel), bytes),
        None => assert!(!env.path(rel).exists(), "{rel} is still there after undo"),
    }
}

#[test]
fn first_write_makes_the_state_directory_private() {
    let env = TestEnv::new();
    assert!(!env.state.path().join("aitools").exists());
    let r = env.run(&["write", "a.txt", "--content", "hello\n"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    assert_eq!(env.read("a.txt"), b"hello\n");
    let state = ws_state(env.state.path());
    for d in [
        env.state.path().join("aitools"),
        state.clone(),
        state.join("commit"),
        state.join("journal"),
        state.join("blobs"),
    ] {
        assert_eq!(mode(&d), 0o700, "{}", d.display());
    }
    assert_eq!(
        std::fs::read_dir(state.join("commit"))
            .expect("commit/")
            .count(),
        0,
        "no intent record is left"
    );
    journaled_and_undoable(&env, &op, "a.txt", None);
}

#[test]
fn first_write_under_a_state_home_that_does_not_exist_yet() {
    let env = TestEnv::new();
    let home = env.state.path().join("not/yet");
    let out = env
        .command(&["write", "a.txt", "--content", "one\n"])
        .env("XDG_STATE_HOME", &home)
        .output()
        .expect("spawn");
    let r = parse(out);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for d in [home.clone(), home.join("aitools"), ws_state(&home)] {
        assert_eq!(mode(&d), 0o700, "{}", d.display());
    }
    let h = hash(&env, "a.txt");
    let out = env
        .command(&[
            "write",
            "a.txt",
            "--content",
            "two\n",
            "--overwrite",
            "--expect-hash",
            &h,
        ])
        .env("XDG_STATE_HOME", &home)
        .output()
        .expect("spawn");
    let r = parse(out);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(env.read("a.txt"), b"two\n");
}

/// A first call that writes nothing (a dry run) leaves a state directory a
/// real write then uses.
#[test]
fn a_dry_run_first_then_a_write() {
    let env = TestEnv::new();
    env.write("a.txt", "old\n");
    let h = hash(&env, "a.txt");
    let write = [
        "write",
        "a.txt",
        "--content",
        "new\n",
        "--overwrite",
        "--expect-hash",
        &h,
    ];
    let r = env.run(&[&write[..], &["--dry-run"]].concat());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json["dry_run"], true);
    assert_eq!(env.read("a.txt"), b"old\n");
    let r = env.run(&write);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    journaled_and_undoable(&env, &op, "a.txt", Some(b"old\n"));
}

/// An old or partly removed state directory: each missing part is made again
/// and the ops before stay in the history.
#[test]
fn a_state_directory_missing_some_parts() {
    for missing in [
        &["blobs"][..],
        &["journal/ids"],
        &["blobs", "journal/ids", "usage"],
        &["commit"],
        &["commit", "blobs"],
    ] {
        let env = TestEnv::new();
        env.write("a.txt", "first\n");
        let r = env.run(&["write", "b.txt", "--content", "b\n"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let first = r.json["op_id"].as_str().expect("op_id").to_string();
        let state = ws_state(env.state.path());
        for m in missing {
            let p = state.join(m);
            if p.is_dir() {
                std::fs::remove_dir_all(&p).expect("rm -r");
            } else {
                let _ = std::fs::remove_file(&p);
            }
        }
        let r = overwrite(&env, "a.txt", "second\n");
        assert_eq!(r.code, 0, "{missing:?}: {}", r.stderr);
        let op = r.json["op_id"].as_str().expect("op_id").to_string();
        for d in ["commit", "journal", "blobs"] {
            assert_eq!(mode(&state.join(d)), 0o700, "{missing:?}: {d}");
        }
        let h = env.run(&["history"]);
        assert!(
            h.stdout.contains(&first[3..]),
            "{missing:?}: the earlier op left the history: {}",
            h.stdout
        );
        journaled_and_undoable(&env, &op, "a.txt", Some(b"first\n"));
    }
}

/// The blob usage counter of a state directory made by the write is the bytes
/// that write stored (nothing was stored before it: no recount), and the next
/// write adds to it; a removed `blobs/` (with its counter) starts again from
/// what the write then stores.
#[test]
fn the_first_write_counts_the_blobs_it_stored() {
    let env = TestEnv::new();
    env.write("a.txt", "old content\n");
    env.write("b.txt", "bb\n");
    let usage = |env: &TestEnv| {
        std::fs::read_to_string(ws_state(env.state.path()).join("usage")).unwrap_or_default()
    };
    let r = overwrite(&env, "a.txt", "new\n");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(usage(&env), "12 0\n");
    let r = overwrite(&env, "b.txt", "b\n");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(usage(&env), "15 0\n");
    // A first write that stores no blob leaves no counter.
    let fresh = TestEnv::new();
    let r = fresh.run(&["write", "c.txt", "--content", "c\n"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(usage(&fresh), "");
}
