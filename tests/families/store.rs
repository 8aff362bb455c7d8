//! The write commands, history, undo and diff, black-box: sha256sum, `diff -u`
//! and the file system itself are the oracles.

use crate::support::{TestEnv, sha256sum};
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

fn mode(env: &TestEnv, rel: &str) -> u32 {
    std::fs::metadata(env.path(rel))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

fn op(r: &crate::support::Run) -> String {
    r.json["op_id"].as_str().expect("op_id").to_string()
}

#[test]
fn write_creates_guards_and_undoes() {
    let env = TestEnv::new();
    let r = env.run(&[
        "write",
        "d/e/a.txt",
        "--content",
        "one\n",
        "--content",
        "two\n",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(env.read("d/e/a.txt"), b"one\ntwo\n");
    let id = op(&r);
    // Answers show the op id's random part; the journal keeps the whole id.
    assert!(id.starts_with("op-") && id.len() == 11, "{id}");
    let history = env.run(&["history"]);
    assert_eq!(history.json["items"][0]["op_id"], id.as_str());
    let changes = r.json["changes"].as_array().unwrap();
    let file = changes.last().unwrap();
    assert_eq!(file["path"], "d/e/a.txt");
    assert_eq!(file["action"], "created");
    assert_eq!(file["hash"], sha256sum(&env.path("d/e/a.txt"))[..12]);
    assert_eq!(file["diff"], "@@ -0,0 +1,2 @@\n+one\n+two\n");
    // The whole diff counts its lines.
    assert!(file.get("added").is_none() && file.get("deleted").is_none());

    // Existing file: refused without --overwrite; the repair carries the hash.
    let again = env.run(&["write", "d/e/a.txt", "--content", "x"]);
    assert_eq!(again.error_code(), "refusal.exists");
    let repair = again.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap();
    assert!(
        repair.contains(&sha256sum(&env.path("d/e/a.txt"))),
        "{repair}"
    );
    let nohash = env.run(&["write", "d/e/a.txt", "--content", "x", "--overwrite"]);
    assert_eq!(nohash.error_code(), "argument.invalid");
    let wrong = env.run(&[
        "write",
        "d/e/a.txt",
        "--content",
        "x",
        "--overwrite",
        "--expect-hash",
        &"0".repeat(64),
    ]);
    assert_eq!(
        (wrong.code, wrong.error_code()),
        (2, "refusal.target-changed")
    );
    assert_eq!(env.read("d/e/a.txt"), b"one\ntwo\n");

    // Mode survives an overwrite; the same bytes are no change at all.
    std::fs::set_permissions(
        env.path("d/e/a.txt"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    let h = sha256sum(&env.path("d/e/a.txt"));
    let w = env.run_stdin(
        &[
            "write",
            "d/e/a.txt",
            "--stdin",
            "--overwrite",
            "--expect-hash",
            &h,
        ],
        b"three\n",
    );
    assert_eq!(w.code, 0, "{}", w.stderr);
    assert_eq!(mode(&env, "d/e/a.txt"), 0o750);
    let h2 = sha256sum(&env.path("d/e/a.txt"));
    let same = env.run(&[
        "write",
        "d/e/a.txt",
        "--content",
        "three\n",
        "--overwrite",
        "--expect-hash",
        &h2,
    ]);
    assert_eq!(same.json["changes"], serde_json::json!([]));
    assert_eq!(same.json["op_id"], serde_json::Value::Null);

    // Undo the overwrite, then undo the undo (a redo).
    let u = env.run(&["undo", &op(&w)]);
    assert_eq!(u.code, 0, "{}", u.stderr);
    // The answer does not echo the op the caller named; history keeps the link.
    assert!(u.json.get("undoes").is_none());
    let h = env.run(&["history"]);
    assert!(
        h.stdout.contains(&format!("\"undoes\":\"{}\"", op(&w))),
        "{}",
        h.stdout
    );
    assert_eq!(env.read("d/e/a.txt"), b"one\ntwo\n");
    assert_eq!(mode(&env, "d/e/a.txt"), 0o750);
    let redo = env.run(&["undo", &op(&u)]);
    assert_eq!(redo.code, 0, "{}", redo.stderr);
    assert_eq!(env.read("d/e/a.txt"), b"three\n");

    // A conflict: the file changed since the op; nothing is written.
    std::fs::write(env.path("d/e/a.txt"), "edited elsewhere\n").unwrap();
    let c = env.run(&["undo", &op(&redo)]);
    assert_eq!((c.code, c.error_code()), (2, "refusal.target-changed"));
    assert_eq!(c.json["error"]["conflicts"][0]["path"], "d/e/a.txt");
    assert_eq!(c.json["error"]["conflicts"][0]["kind"], "modified");
    assert_eq!(env.read("d/e/a.txt"), b"edited elsewhere\n");

    // Undo of the very first op removes the file and the directories it created.
    std::fs::write(env.path("d/e/a.txt"), "one\ntwo\n").unwrap();
    std::fs::set_permissions(
        env.path("d/e/a.txt"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let first = env.run(&["undo", &id]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(!env.path("d").exists());
}

#[test]
fn dry_run_redaction_and_the_boundary_write_nothing() {
    let env = TestEnv::new();
    let d = env.run(&["write", "a.txt", "--content", "x\n", "--dry-run"]);
    assert_eq!(d.code, 0);
    assert_eq!(d.json["dry_run"], true);
    assert_eq!(d.json["op_id"], serde_json::Value::Null);
    assert_eq!(d.json["changes"][0]["action"], "created");
    assert!(!env.path("a.txt").exists());
    let s = env.run(&[
        "write",
        "a.txt",
        "--content",
        "password = [REDACTED_SECRET]\n",
    ]);
    assert_eq!(s.error_code(), "refusal.redacted-input");
    assert!(!env.path("a.txt").exists());
    std::os::unix::fs::symlink("/tmp", env.path("out")).unwrap();
    for target in ["../x.txt", ".git/x", "out/aitools-escape.txt", "/etc/x"] {
        let r = env.run(&["write", target, "--content", "x"]);
        assert_eq!(r.error_code(), "refusal.outside-workspace", "{target}");
    }
    assert!(!std::path::Path::new("/tmp/aitools-escape.txt").exists());
    let h = env.run(&["history"]);
    assert_eq!(h.json["total"], 0);
}

#[test]
fn file_operations_and_their_undo() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    env.write("tree/x.txt", "x\n");
    env.write("tree/sub/y.txt", "y\n");
    std::fs::set_permissions(
        env.path("tree/x.txt"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();

    let mv = env.run(&["move", "a.txt", "b/c.txt"]);
    assert_eq!(mv.code, 0, "{}", mv.stderr);
    assert!(!env.path("a.txt").exists());
    assert_eq!(env.read("b/c.txt"), b"a\n");
    let moved = mv.json["changes"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (moved["action"].as_str(), moved["from"].as_str()),
        (Some("moved"), Some("a.txt"))
    );

    let cp = env.run(&["copy", "tree", "copy", "--recursive"]);
    assert_eq!(cp.code, 0, "{}", cp.stderr);
    assert_eq!(cp.json["files"], 2);
    assert_eq!(env.read("copy/sub/y.txt"), b"y\n");
    assert_eq!(mode(&env, "copy/x.txt"), 0o755);
    let nodir = env.run(&["copy", "tree", "copy2"]);
    assert_eq!(nodir.error_code(), "refusal.not-a-file");

    let ch = env.run(&["chmod", "b/c.txt", "--exec"]);
    assert_eq!(ch.json["previous_mode"], "0644");
    assert_eq!(mode(&env, "b/c.txt"), 0o755);

    let ln = env.run(&["link", "c.txt", "b/l.txt"]);
    assert_eq!(ln.code, 0, "{}", ln.stderr);
    assert_eq!(
        std::fs::read_link(env.path("b/l.txt")).unwrap().to_str(),
        Some("c.txt")
    );
    let esc = env.run(&["link", "/etc/passwd", "b/p"]);
    assert_eq!(esc.error_code(), "refusal.outside-workspace");

    let t = env.run(&["touch", "b/c.txt", "--mtime", "2001-02-03T04:05:06Z"]);
    assert_eq!(t.json["mtime"], "2001-02-03T04:05:06Z");
    let mt = std::fs::metadata(env.path("b/c.txt"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(
        mt.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs(),
        981_173_106
    );

    let del = env.run(&["delete", "tree/sub/y.txt"]);
    assert_eq!(del.code, 0);
    assert!(!env.path("tree/sub/y.txt").exists());
    let full = env.run(&["delete", "tree"]);
    assert_eq!(full.error_code(), "refusal.not-a-file");
    let mk = env.run(&["mkdir", "m/n"]);
    assert_eq!(mk.json["changes"].as_array().unwrap().len(), 2);
    assert_eq!(
        env.run(&["mkdir", "m/n"]).json["op_id"],
        serde_json::Value::Null
    );

    // Undo everything, newest first: the tree is as it started.
    let h = env.run(&["history"]);
    let ids: Vec<String> = h.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["op_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 7);
    for id in &ids {
        let u = env.run(&["undo", id]);
        assert_eq!(u.code, 0, "undo {id}: {}", u.stderr);
    }
    assert_eq!(env.read("a.txt"), b"a\n");
    assert_eq!(env.read("tree/sub/y.txt"), b"y\n");
    for gone in ["b", "copy", "m"] {
        assert!(!env.path(gone).exists(), "{gone}");
    }
    assert_eq!(mode(&env, "tree/x.txt"), 0o755);
}

#[test]
fn history_filters_and_pages() {
    let env = TestEnv::new();
    for i in 0..5 {
        env.run(&["write", &format!("f{i}.txt"), "--content", "x"]);
    }
    env.run(&["move", "f0.txt", "dir/g.txt"]);
    let h = env.run(&["history", "--limit", "2"]);
    assert_eq!(h.code, 3);
    assert_eq!(h.json["total"], 6);
    assert_eq!(h.json["items"][0]["command"], "move");
    assert_eq!(h.json["next_commands"][0], "aitools history --limit 6");
    let f0 = env.run(&["history", "f0.txt"]);
    assert_eq!(f0.json["total"], 2);
    let dir = env.run(&["history", "dir"]);
    assert_eq!(dir.json["total"], 1);
    // Every op id is unique, even with a fixed seed and clock.
    let all = env.run(&["history"]);
    let mut ids: Vec<&str> = all.json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["op_id"].as_str().unwrap())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 6);
}

/// `history PATH` stops reading the journal once its page and one more match are
/// found: the count of them all (a read of the whole journal) only with --total.
#[test]
fn history_of_a_path_counts_only_on_request() {
    let env = TestEnv::new();
    for i in 0..4 {
        env.run(&["write", &format!("d/f{i}.txt"), "--content", "x"]);
    }
    env.run(&["write", "g.txt", "--content", "g"]);
    let h = env.run(&["history", "d", "--limit", "2"]);
    assert_eq!(h.code, 3, "{}", h.stdout);
    assert_eq!(h.json.get("total"), None, "{}", h.stdout);
    assert_eq!(h.json["truncated"], true);
    assert_eq!(h.json["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(h.json["next_commands"][0], "aitools history d --limit 5");
    let counted = env.run(&["history", "d", "--limit", "2", "--total"]);
    assert_eq!(counted.code, 3);
    assert_eq!(counted.json["total"], 4);
    assert_eq!(
        counted.json["next_commands"][0],
        "aitools history d --limit 4"
    );
    let whole = env.run(&["history", "d", "--limit", "4"]);
    assert_eq!(whole.code, 0);
    assert_eq!(whole.json["total"], 4);
}

#[test]
fn diffs_match_gnu_diff_and_long_ones_are_cut() {
    let env = TestEnv::new();
    let old: String = (1..=500).map(|i| format!("line {i}\n")).collect();
    let new = old
        .replace("line 7\n", "seven\n")
        .replace("line 300\n", "")
        .replace("line 499\n", "line 499\nextra\n");
    env.write("old.txt", &old);
    env.write("new.txt", &new);
    let ours = env.run(&["diff", "old.txt", "new.txt"]);
    assert_eq!(ours.json["identical"], false);
    let gnu = Command::new("diff")
        .args(["-u", "old.txt", "new.txt"])
        .current_dir(env.root())
        .output()
        .unwrap();
    let gnu = String::from_utf8(gnu.stdout).unwrap();
    let body = |t: &str| {
        t.lines()
            .skip(2)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    assert_eq!(body(ours.json["diff"].as_str().unwrap()), body(&gnu));
    let stat = env.run(&["diff", "old.txt", "new.txt", "--output", "stat"]);
    assert_eq!(
        (stat.json["added"].as_u64(), stat.json["deleted"].as_u64()),
        (Some(2), Some(2))
    );

    // A write whose diff is over --max-diff-lines 200: cut, and the op's full diff
    // is one command away.
    let h = sha256sum(&env.path("old.txt"));
    let big: String = (1..=500).map(|i| format!("changed {i}\n")).collect();
    let w = env.run(&[
        "write",
        "old.txt",
        "--overwrite",
        "--expect-hash",
        &h,
        "--content",
        &big,
        "--max-diff-lines",
        "200",
    ]);
    let c = &w.json["changes"][0];
    assert_eq!(w.json["diff_truncated"], true);
    assert_eq!(
        (c["added"].as_u64(), c["deleted"].as_u64()),
        (Some(500), Some(500))
    );
    assert_eq!(c["diff"].as_str().unwrap().lines().count(), 200);
    let next = w.json["next_commands"][0].as_str().unwrap();
    assert_eq!(next, format!("aitools diff --op {}", op(&w)));
    let full = env.run(&["diff", "--op", &op(&w)]);
    assert_eq!(full.json["mode"], "op");
    assert_eq!(
        full.json["changes"][0]["diff"]
            .as_str()
            .unwrap()
            .lines()
            .count(),
        1003
    );

    let dirs = env.run(&["diff", ".", "."]);
    assert_eq!(dirs.json["mode"], "directory");
}

#[test]
fn output_is_reproducible() {
    let run = || {
        let env = TestEnv::new();
        env.write("a.txt", "a\n");
        let w = env.run(&["write", "b.txt", "--content", "b\n"]);
        let m = env.run(&["move", "a.txt", "c.txt"]);
        let u = env.run(&["undo", &op(&m)]);
        (w.stdout, m.stdout, u.stdout)
    };
    assert_eq!(run(), run());
}

/// Every file command refuses a path in .git (or outside) first, before any
/// other check could send the agent elsewhere: an existing `.git/config` is not
/// "exists, add --overwrite", it is outside what aitools writes. Nothing changes.
#[test]
fn file_commands_refuse_git_paths_before_anything_else() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    let config = std::fs::read(env.path(".git/config")).expect("config");
    for args in [
        &["write", ".git/config", "--content", "x"][..],
        &["touch", ".git/config"],
        &["chmod", ".git/config", "--mode", "600"],
        &["copy", "a.txt", ".git/config"],
        &["move", "a.txt", ".git/config"],
        &["move", ".git/config", "b.txt"],
        &["mkdir", ".git/hooks"],
        &["delete", ".git/config"],
        &["link", "a.txt", ".git/config"],
        &["write", "../outside.txt", "--content", "x"],
    ] {
        let r = env.run(args);
        assert_eq!(
            r.error_code(),
            "refusal.outside-workspace",
            "{args:?}: {}",
            r.stderr
        );
    }
    assert_eq!(
        std::fs::read(env.path(".git/config")).expect("config"),
        config
    );
    assert!(env.path("a.txt").exists());
}

/// Undoing an op twice names the undo that already reverted it and repairs to
/// undoing that undo (a redo); after a redo the op can be undone again.
#[test]
fn undoing_twice_names_the_first_undo() {
    let env = TestEnv::new();
    env.write("u.txt", "one\n");
    let e = env.run(&["edit", "u.txt", "--old", "one", "--new", "two"]);
    let a = op(&e);
    let b = env.run(&["undo", &a]);
    let b_id = op(&b);
    let again = env.run(&["undo", &a]);
    assert_eq!(again.error_code(), "refusal.target-changed");
    let msg = again.json["error"]["message"].as_str().unwrap_or("");
    assert!(
        msg.contains("already undone") && msg.contains(&b_id),
        "{msg}"
    );
    let redo = again.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    assert_eq!(redo, format!("aitools undo {b_id}"));
    let r = env.run(&["undo", &b_id]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(env.path("u.txt")).expect("read"),
        "two\n"
    );
    let third = env.run(&["undo", &a]);
    assert_eq!(
        third.code, 0,
        "after a redo the op undoes again: {}",
        third.stderr
    );
    assert_eq!(
        std::fs::read_to_string(env.path("u.txt")).expect("read"),
        "one\n"
    );
}
