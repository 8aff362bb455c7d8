//! Crash safety of transactions, proven from outside the process: the real binary
//! is killed with SIGKILL (strace fault injection) at every file syscall — or an
//! even sample of them — of a `tx commit` and of a `--tx` write, then the next
//! commands must find:
//! - `tx commit`: the tree wholly before (journal without the op, the tx intact
//!   exactly as before, and committing it again works) or wholly after (journal
//!   with the op once, the tx gone, `undo` restoring the before-tree); no temp
//!   file in the tree.
//! - a `--tx` write: the tree untouched, and the tx exactly as after the previous
//!   op or exactly as after this one; committing it then gives the matching tree.
//!
//! `AITOOLS_CRASH_POINTS` sets the kill points per scenario (default 90).

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use support::{TestEnv, bin};

const SYSCALLS: &str = "openat,open,creat,write,pwrite64,writev,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat,fchmod,fchmodat,chmod,utimensat,ftruncate,flock,close";

fn max_points() -> usize {
    std::env::var("AITOOLS_CRASH_POINTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(90)
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    File(Vec<u8>, u32),
    Dir(u32),
    Link(PathBuf),
}

type Tree = BTreeMap<String, Node>;

struct Case {
    env: TestEnv,
    tmpl: tempfile::TempDir,
}

impl Case {
    fn new() -> Case {
        Case {
            env: TestEnv::new(),
            tmpl: tempfile::tempdir().unwrap(),
        }
    }
    fn ws(&self) -> &Path {
        self.env.root()
    }
    fn state(&self) -> &Path {
        self.env.state.path()
    }
    fn run(&self, args: &[&str]) -> support::Run {
        self.env.run(args)
    }
    fn ok(&self, args: &[&str]) -> Value {
        let r = self.run(args);
        assert_eq!(r.code, 0, "{args:?}: {} {}", r.stdout, r.stderr);
        r.json
    }
    fn save(&self) {
        cp(self.ws(), &self.tmpl.path().join("ws"));
        cp(self.state(), &self.tmpl.path().join("state"));
    }
    fn restore(&self) {
        cp(&self.tmpl.path().join("ws"), self.ws());
        cp(&self.tmpl.path().join("state"), self.state());
    }
    fn strace(&self, opts: &[String], args: &[String]) -> (i32, String) {
        let out = Command::new("strace")
            .args(["-f", "-qq"])
            .args(opts)
            .arg("--")
            .arg(bin())
            .args(args)
            .current_dir(self.ws())
            .env("XDG_STATE_HOME", self.state())
            .env("AITOOLS_FIXED_TIME", "1796000000")
            .env("AITOOLS_SEED", "42")
            .env("AITOOLS_FEEDBACK_DIR", self.state().join("feedback"))
            .stdin(Stdio::null())
            .output()
            .expect("strace (install it: apt-get install strace)");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }
    fn tree(&self) -> Tree {
        let mut t = Tree::new();
        walk(self.ws(), self.ws(), &mut t);
        t
    }
    fn journal(&self) -> String {
        let dir = self.state().join("aitools");
        let Some(ws) = std::fs::read_dir(&dir).ok().and_then(|mut r| r.next()) else {
            return String::new();
        };
        std::fs::read_to_string(ws.unwrap().path().join("journal/journal.jsonl"))
            .unwrap_or_default()
    }
    /// `tx status <tx>` (or its error code).
    fn status(&self, tx: &str) -> Value {
        let r = self.run(&["tx", "status", tx]);
        if r.code == 0 {
            // What recovery reported is not part of the tx.
            let mut v = r.json;
            if let Some(o) = v.as_object_mut() {
                o.remove("recovered");
            }
            v
        } else {
            Value::String(r.error_code().to_string())
        }
    }
}

fn cp(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let ok = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp -a {} {}", from.display(), to.display());
}

fn walk(root: &Path, dir: &Path, out: &mut Tree) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if e.file_name() == ".git" {
            continue;
        }
        let p = e.path();
        let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        let m = std::fs::symlink_metadata(&p).unwrap();
        let mode = m.permissions().mode() & 0o7777;
        if m.file_type().is_symlink() {
            out.insert(rel, Node::Link(std::fs::read_link(&p).unwrap()));
        } else if m.is_dir() {
            out.insert(rel, Node::Dir(mode));
            walk(root, &p, out);
        } else {
            out.insert(rel, Node::File(std::fs::read(&p).unwrap(), mode));
        }
    }
}

fn counts(log: &Path) -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(log).unwrap();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let rest = line
            .split_once(' ')
            .map(|x| x.1)
            .unwrap_or(line)
            .trim_start();
        if rest.starts_with("<...") || rest.starts_with("+++") || rest.starts_with("---") {
            continue;
        }
        if let Some(i) = rest.find('(') {
            let name = &rest[..i];
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                *out.entry(name.to_string()).or_insert(0) += 1;
            }
        }
    }
    out
}

fn points(counts: &BTreeMap<String, usize>, max: usize) -> Vec<(String, usize)> {
    let all: Vec<(String, usize)> = counts
        .iter()
        .flat_map(|(s, n)| (1..=*n).map(move |i| (s.clone(), i)))
        .collect();
    if all.len() <= max {
        return all;
    }
    (0..max).map(|k| all[k * all.len() / max].clone()).collect()
}

fn trace(c: &Case, argv: &[String]) -> (i32, String, BTreeMap<String, usize>) {
    let log = c.tmpl.path().join("trace.log");
    let (code, out) = c.strace(
        &[
            "-o".into(),
            log.display().to_string(),
            "-e".into(),
            format!("trace={SYSCALLS}"),
        ],
        argv,
    );
    (code, out, counts(&log))
}

fn inject_kill(sys: &str, n: usize) -> Vec<String> {
    vec![
        "-o".into(),
        "/dev/null".into(),
        "-e".into(),
        format!("trace={SYSCALLS}"),
        "-e".into(),
        format!("inject={sys}:signal=KILL:when={n}"),
    ]
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn no_temps(c: &Case, label: &str) {
    let temps: Vec<String> = c
        .tree()
        .keys()
        .filter(|k| k.contains(".aitools-"))
        .cloned()
        .collect();
    assert!(temps.is_empty(), "{label}: temp files left: {temps:?}");
}

/// A tx with three staged ops over several files: modify, create in a new
/// directory, delete.
fn staged_tx(c: &Case) -> String {
    c.env.write("a.txt", "alpha\nbeta\n");
    c.env.write("c.txt", "gone\n");
    c.env.write("keep.txt", "keep\n");
    let t = c.ok(&["tx", "begin"])["tx"].as_str().unwrap().to_string();
    let h = c.ok(&["info", "a.txt"])["hash"]
        .as_str()
        .unwrap()
        .to_string();
    c.ok(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &h,
        "--content",
        "alpha\nBETA\n",
        "--tx",
        &t,
    ]);
    c.ok(&["write", "new/dir/d.txt", "--content", "new\n", "--tx", &t]);
    c.ok(&["delete", "c.txt", "--tx", &t]);
    t
}

#[test]
fn sigkill_during_tx_commit_leaves_before_or_after() {
    let c = Case::new();
    let t = staged_tx(&c);
    c.save();
    let before = c.tree();
    let status_before = c.status(&t);
    let argv = args(&["tx", "commit", &t]);
    let (code, out, cnt) = trace(&c, &argv);
    assert_eq!(code, 0, "clean commit failed: {out}");
    let op: String = serde_json::from_str::<Value>(&out).unwrap()["op_id"]
        .as_str()
        .unwrap()
        .to_string();
    let after = c.tree();
    assert_ne!(before, after);
    let pts = points(&cnt, max_points());
    let (mut n_before, mut n_after) = (0, 0);
    for (sys, n) in &pts {
        c.restore();
        let (code, _) = c.strace(&inject_kill(sys, *n), &argv);
        let label = format!("tx commit / kill at {sys} #{n} (exit {code})");
        // The next command runs recovery (and settles a half-done commit).
        let st = c.status(&t);
        no_temps(&c, &label);
        let journaled = c.journal().matches(&format!("\"op_id\":\"{op}\"")).count();
        let now = c.tree();
        if now == after {
            n_after += 1;
            assert_eq!(
                journaled, 1,
                "{label}: the journal has the op {journaled} times"
            );
            assert_eq!(
                st,
                Value::from("input.not-found"),
                "{label}: the tx survived its commit"
            );
            let u = c.run(&["undo", &op]);
            assert_eq!(u.code, 0, "{label}: undo failed: {}", u.stderr);
            assert_eq!(c.tree(), before, "{label}: undo did not restore the tree");
        } else {
            n_before += 1;
            assert_eq!(
                now, before,
                "{label}: neither wholly before nor wholly after"
            );
            assert_eq!(
                journaled, 0,
                "{label}: the journal has an op the files do not show"
            );
            assert_eq!(st, status_before, "{label}: the tx is not as it was");
            let again = c.run(&["tx", "commit", &t]);
            assert_eq!(
                again.code, 0,
                "{label}: commit after the kill failed: {}",
                again.stderr
            );
            assert_eq!(c.tree(), after, "{label}: the second commit differs");
        }
    }
    let total: usize = cnt.values().sum();
    eprintln!(
        "tx commit: {total} syscalls, {} kill points ({n_before} before, {n_after} after)",
        pts.len()
    );
    assert!(
        n_before > 0 && n_after > 0,
        "{n_before} before, {n_after} after"
    );
}

#[test]
fn sigkill_during_a_tx_write_leaves_the_tx_as_after_the_previous_op_or_this_one() {
    let c = Case::new();
    let t = staged_tx(&c);
    c.save();
    let tree = c.tree();
    let status_before = c.status(&t);
    let argv = args(&["copy", "new/dir/d.txt", "other/e.txt", "--tx", &t]);
    let (code, out, cnt) = trace(&c, &argv);
    assert_eq!(code, 0, "clean staged write failed: {out}");
    let status_after = c.status(&t);
    assert_ne!(status_before, status_after);
    assert_eq!(c.tree(), tree, "a staged write touched the tree");
    // What each outcome commits to.
    let commit_tree = |c: &Case| {
        let r = c.run(&["tx", "commit", &t]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        c.tree()
    };
    let after_commit = commit_tree(&c);
    c.restore();
    let before_commit = commit_tree(&c);
    assert_ne!(after_commit, before_commit);
    let pts = points(&cnt, max_points());
    let (mut n_before, mut n_after) = (0, 0);
    for (sys, n) in &pts {
        c.restore();
        let (code, _) = c.strace(&inject_kill(sys, *n), &argv);
        let label = format!("--tx write / kill at {sys} #{n} (exit {code})");
        let st = c.status(&t);
        assert_eq!(c.tree(), tree, "{label}: the tree changed");
        no_temps(&c, &label);
        let want = if st == status_after {
            n_after += 1;
            &after_commit
        } else {
            assert_eq!(
                st, status_before,
                "{label}: the tx is neither before nor after the op"
            );
            n_before += 1;
            &before_commit
        };
        assert_eq!(&commit_tree(&c), want, "{label}: the commit differs");
    }
    let total: usize = cnt.values().sum();
    eprintln!(
        "--tx write: {total} syscalls, {} kill points ({n_before} before, {n_after} after)",
        pts.len()
    );
    assert!(
        n_before > 0 && n_after > 0,
        "{n_before} before, {n_after} after"
    );
}
