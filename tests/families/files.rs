//! The file handle handlers read through (`ctx.files()`), black-box: every view
//! of `read` (tail's short path too), `info` and `diff` inside a tx see the staged
//! bytes, and outside it the disk's; a symlink leaving the root is described as
//! before (reads are not confined; git blame refuses it); bg's and feedback's own
//! records are written whole, under plain names that cannot leave their directory.
//! Oracles: sha256sum, the bytes written, the tree on disk.

use crate::support::{TestEnv, sha256sum};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn begin(env: &TestEnv) -> String {
    let r = env.run(&["tx", "begin"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    r.json["tx"].as_str().unwrap().to_string()
}

/// `rows` numbered lines `prefix<n>`: over 1 MiB at 200,000, so `--tail`
/// takes its short path (the hash cache, positional reads from the end).
fn numbered(prefix: &str, rows: usize) -> String {
    (1..=rows).map(|i| format!("{prefix}{i:07}\n")).collect()
}

#[test]
fn read_views_inside_a_tx_see_the_staged_file() {
    let env = TestEnv::new();
    let disk = numbered("disk-", 200_000);
    env.write("big.log", &disk);
    env.write("m.py", "def old():\n    return 1\n");
    let t = begin(&env);
    let staged = numbered("tx-", 210_000);
    let w = env.run_stdin(
        &[
            "write",
            "big.log",
            "--overwrite",
            "--stdin",
            "--expect-hash",
            &sha256sum(&env.path("big.log")),
            "--tx",
            &t,
        ],
        staged.as_bytes(),
    );
    assert_eq!(w.code, 0, "{}", w.stdout);
    let py = "def new():\n    return 2\n\n\ndef other():\n    pass\n";
    let py_hash = sha256sum(&env.path("m.py"));
    let w = env.run(&[
        "write",
        "m.py",
        "--overwrite",
        "--expect-hash",
        &py_hash,
        "--content",
        py,
        "--tx",
        &t,
    ]);
    assert_eq!(w.code, 0, "{}", w.stdout);
    let oracle = env.path("staged.log");
    std::fs::write(&oracle, &staged).unwrap();

    // The tail, twice (the second may answer from the hash cache).
    for _ in 0..2 {
        let r = env.run(&["read", "big.log", "--tail", "2", "--tx", &t]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(r.lines(), vec!["tx-0209999", "tx-0210000"], "{}", r.stdout);
        assert_eq!(r.json["total_lines"], 210_000);
        assert_eq!(r.json["path"], "big.log");
        if let Some(h) = r.json["hash"].as_str() {
            assert_eq!(h, &sha256sum(&oracle)[..12]);
        }
    }
    // Outside the tx, the disk.
    let r = env.run(&["read", "big.log", "--tail", "1"]);
    assert_eq!(r.lines(), vec!["disk-0200000"]);
    assert_eq!(r.json["total_lines"], 200_000);
    // Range, hex and strings views open the staged blob too.
    let r = env.run(&["read", "big.log", "--range", "2:2", "--tx", &t]);
    assert_eq!(r.lines(), vec!["tx-0000002"], "{}", r.stdout);
    let h = env.run(&[
        "read", "big.log", "--as", "hex", "--bytes", "0:3", "--tx", &t,
    ]);
    assert!(h.stdout.contains("74 78 2d"), "{}", h.stdout);
    let s = env.run(&[
        "read",
        "big.log",
        "--as",
        "strings",
        "--max-lines",
        "1",
        "--tx",
        &t,
    ]);
    assert!(s.stdout.contains("tx-0000001"), "{}", s.stdout);
    // --symbol reads the whole staged text.
    let d = env.run(&["read", "m.py", "--symbol", "other", "--tx", &t]);
    assert_eq!(d.code, 0, "{}", d.stdout);
    assert_eq!(d.json["start_line"], 5, "{}", d.stdout);
    let gone = env.run(&["read", "m.py", "--symbol", "other"]);
    assert_ne!(gone.code, 0, "{}", gone.stdout);
    // info counts the staged bytes.
    let i = env.run(&["info", "big.log", "--tx", &t]);
    assert_eq!(i.json["lines"], 210_000);
    assert_eq!(i.json["hash"], sha256sum(&oracle).as_str());
    let i = env.run(&["info", "big.log"]);
    assert_eq!(i.json["hash"], sha256sum(&env.path("big.log")).as_str());
}

#[test]
fn directory_diff_compares_files_and_links_on_disk_and_through_a_tx() {
    let env = TestEnv::new();
    for d in ["a", "b"] {
        env.write(&format!("{d}/same.txt"), "same\n");
        env.write(&format!("{d}/sub/f.txt"), "f\n");
    }
    env.write("a/only_a.txt", "x\n");
    std::os::unix::fs::symlink("same.txt", env.path("a/l")).unwrap();
    std::os::unix::fs::symlink("sub/f.txt", env.path("b/l")).unwrap();
    std::os::unix::fs::symlink("same.txt", env.path("a/l2")).unwrap();
    std::os::unix::fs::symlink("same.txt", env.path("b/l2")).unwrap();
    let r = env.run(&["diff", "a", "b"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["modified"], serde_json::json!(["l"]));
    assert_eq!(r.json["removed"], serde_json::json!(["only_a.txt"]));
    assert_eq!(r.json["identical_count"], 3);
    let t = begin(&env);
    let w = env.run(&[
        "write",
        "b/sub/f.txt",
        "--overwrite",
        "--expect-hash",
        &sha256sum(&env.path("b/sub/f.txt")),
        "--content",
        "g\n",
        "--tx",
        &t,
    ]);
    assert_eq!(w.code, 0, "{}", w.stdout);
    let r = env.run(&["diff", "a", "b", "--tx", &t]);
    assert_eq!(r.json["modified"], serde_json::json!(["l", "sub/f.txt"]));
    assert_eq!(r.json["identical_count"], 2);
    // Two files: the staged bytes against the disk's.
    let r = env.run(&["diff", "a/sub/f.txt", "b/sub/f.txt", "--tx", &t]);
    assert_eq!(r.json["identical"], false, "{}", r.stdout);
    assert!(
        r.json["diff"].as_str().unwrap().contains("+g"),
        "{}",
        r.stdout
    );
    let r = env.run(&["diff", "a/sub/f.txt", "b/sub/f.txt"]);
    assert_eq!(r.json["identical"], true, "{}", r.stdout);
}

#[test]
fn a_symlink_leaving_the_root_is_described_as_before() {
    let env = TestEnv::new();
    env.write("in.txt", "in\n");
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), "secret\n").unwrap();
    let real = std::fs::canonicalize(outside.path()).unwrap();
    std::os::unix::fs::symlink(outside.path(), env.path("leaves")).unwrap();
    // Reads are not confined: read names the real file, info says it is outside.
    let r = env.run(&["read", "leaves"]);
    assert_eq!(r.json["path"], real.to_str().unwrap(), "{}", r.stdout);
    let i = env.run(&["info", "leaves"]);
    assert_eq!(i.json["inside_workspace"], false);
    assert_eq!(i.json["real"], real.to_str().unwrap());
    // git knows no such path; the file is not read.
    let b = env.run(&["git", "blame", "leaves"]);
    assert_eq!(b.error_code(), "input.not-found", "{}", b.stdout);
    // Writes through it stay refused.
    let w = env.run(&["write", "leaves", "--content", "x\n"]);
    assert_eq!(w.error_code(), "refusal.outside-workspace", "{}", w.stdout);
    assert_eq!(std::fs::read(outside.path()).unwrap(), b"secret\n");
}

/// The directory under the state home that holds `name`.
fn find_dir(top: &Path, name: &str) -> Option<PathBuf> {
    for e in std::fs::read_dir(top).ok()?.flatten() {
        let p = e.path();
        if !e.file_type().ok()?.is_dir() {
            continue;
        }
        if e.file_name() == name {
            return Some(p);
        }
        if let Some(f) = find_dir(&p, name) {
            return Some(f);
        }
    }
    None
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn bg_records_are_whole_and_ids_cannot_leave_the_bg_dir() {
    let env = TestEnv::new();
    let s = env.run(&["bg", "start", "--", "sleep", "30"]);
    assert_eq!(s.code, 0, "{}", s.stdout);
    let job = find_dir(env.state.path(), "bg-1").expect("bg-1 under the state home");
    assert_eq!(names(&job), ["log", "meta.json"]);
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(job.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["id"], "bg-1");
    assert_eq!(s.json["log"], job.join("log").to_str().unwrap());
    let stop = env.run(&["bg", "stop", "bg-1", "--grace", "2s"]);
    assert_eq!(stop.json["signal"], 15, "{}", stop.stdout);
    // The stop's status record replaced in one rename: no temp file is left.
    assert_eq!(names(&job), ["exit", "log", "meta.json"]);
    assert_eq!(std::fs::read(job.join("exit")).unwrap(), b"signal 15\n");
    let st = env.run(&["bg", "status", "bg-1"]);
    assert_eq!(st.json["items"][0]["signal"], 15, "{}", st.stdout);
    for bad in ["bg-1/../bg-1", "../bg-1", "bg-1/log"] {
        let r = env.run(&["bg", "logs", bad]);
        assert_eq!(r.error_code(), "input.not-found", "{bad}: {}", r.stdout);
    }
}

#[test]
fn feedback_entries_are_private_and_written_whole() {
    let env = TestEnv::new();
    let c = env.run(&[
        "feedback",
        "create",
        "--type",
        "bug",
        "--message",
        "read; lines; none",
    ]);
    assert_eq!(c.code, 0, "{}", c.stdout);
    let dir = env.state.path().join("feedback");
    assert_eq!(names(&dir), ["001.json"]);
    let mode = std::fs::metadata(dir.join("001.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let t = env.run(&["feedback", "transition", "1", "--status", "resolved"]);
    assert_eq!(t.code, 0, "{}", t.stdout);
    assert_eq!(names(&dir), ["001.json"]);
    let e: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("001.json")).unwrap()).unwrap();
    assert_eq!(e["status"], "resolved");
    let s = env.run(&["feedback", "show", "001"]);
    assert_eq!(s.json["entry"]["status"], "resolved", "{}", s.stdout);
    // A file that is not UTF-8 is an I/O error naming the directory, as before.
    std::fs::write(dir.join("002.json"), b"\xff\xfe").unwrap();
    let bad = env.run(&["feedback", "show", "2"]);
    assert_eq!(bad.error_code(), "environment.io", "{}", bad.stdout);
}
