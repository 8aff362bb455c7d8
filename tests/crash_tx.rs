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
//! - the recovery after a killed `tx commit` (one that left an incomplete or a
//!   complete intent record), itself killed at every syscall from its first look
//!   into `commit/`: the same before-or-after as a killed commit.
//! - `tx rebase`: the tree untouched, the tx exactly as before the rebase (which
//!   can then be run again) or as after it; no scratch tx listed.
//! - `batch --stdin --atomic`: nothing written (any tx it left aborts cleanly) or
//!   all of it, journaled once, its tx gone, `undo` restoring the tree.
//!
//! `AITOOLS_CRASH_POINTS` sets the kill points per scenario (default 90; the
//! recovery scenario takes `max(2, N/45)` first kills of each kind and up to
//! `max(40, N)` recovery kill points after each).

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Write;
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
        self.strace_in(opts, args, None)
    }
    /// `strace` with `stdin` fed to the traced command.
    fn strace_in(&self, opts: &[String], args: &[String], stdin: Option<&[u8]>) -> (i32, String) {
        let mut child = Command::new("strace")
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
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("strace (install it: apt-get install strace)");
        if let Some(bytes) = stdin {
            // A kill before the command reads its input breaks the pipe: not an error.
            let _ = child.stdin.take().unwrap().write_all(bytes);
        }
        let out = child.wait_with_output().unwrap();
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
    /// The workspace's state directory (`<state>/aitools/ws-*`), once it exists.
    fn ws_state(&self) -> Option<PathBuf> {
        let dir = self.state().join("aitools");
        std::fs::read_dir(&dir)
            .ok()
            .and_then(|mut r| r.next())
            .map(|e| e.unwrap().path())
    }
    fn journal(&self) -> String {
        let Some(ws) = self.ws_state() else {
            return String::new();
        };
        std::fs::read_to_string(ws.join("journal/journal.jsonl")).unwrap_or_default()
    }
    /// The intent records in `commit/`: for each, whether it is complete (its
    /// second line is the SHA-256 of its first).
    fn intent_records(&self) -> Vec<bool> {
        let Some(rd) = self
            .ws_state()
            .and_then(|ws| std::fs::read_dir(ws.join("commit")).ok())
        else {
            return Vec::new();
        };
        rd.flatten()
            .map(|e| {
                let bytes = std::fs::read(e.path()).unwrap();
                let mut parts = bytes.splitn(3, |b| *b == b'\n');
                let first = parts.next().unwrap_or_default();
                let want = format!("{:x}", Sha256::digest(first));
                parts.next() == Some(want.as_bytes())
            })
            .collect()
    }
    /// Whether some tx has a `committing` marker (a killed `tx commit` left it).
    fn commit_marker(&self) -> bool {
        let Some(rd) = self
            .ws_state()
            .and_then(|ws| std::fs::read_dir(ws.join("tx")).ok())
        else {
            return false;
        };
        rd.flatten().any(|e| e.path().join("committing").exists())
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

/// Every traced syscall in order: its name, which invocation of that name it is
/// (the `when=` of an injection), and its log line.
fn sequence(log: &Path) -> Vec<(String, usize, String)> {
    let text = std::fs::read_to_string(log).unwrap();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
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
                let n = seen.entry(name.to_string()).or_insert(0);
                *n += 1;
                out.push((name.to_string(), *n, rest.to_string()));
            }
        }
    }
    out
}

/// An even sample of `max` items (all of them when there are fewer), keeping
/// the first and the last.
fn sample<T: Clone>(all: &[T], max: usize) -> Vec<T> {
    if all.len() <= max {
        return all.to_vec();
    }
    if max <= 1 {
        return all.last().cloned().into_iter().collect();
    }
    (0..max)
        .map(|k| all[k * (all.len() - 1) / (max - 1)].clone())
        .collect()
}

/// A traced run: exit code, stdout and the syscall sequence.
fn trace_seq(
    c: &Case,
    argv: &[String],
    stdin: Option<&[u8]>,
) -> (i32, String, Vec<(String, usize, String)>) {
    let log = c.tmpl.path().join("trace.log");
    let (code, out) = c.strace_in(
        &[
            "-o".into(),
            log.display().to_string(),
            "-e".into(),
            format!("trace={SYSCALLS}"),
        ],
        argv,
        stdin,
    );
    (code, out, sequence(&log))
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

/// A clean `tx commit` of `staged_tx`, and what it did.
struct Commit {
    t: String,
    argv: Vec<String>,
    op: String,
    before: Tree,
    after: Tree,
    status_before: Value,
    seq: Vec<(String, usize, String)>,
}

/// Stages the tx, saves the case, commits cleanly under strace, and restores.
fn commit_baseline(c: &Case) -> Commit {
    let t = staged_tx(c);
    c.save();
    let before = c.tree();
    let status_before = c.status(&t);
    let argv = args(&["tx", "commit", &t]);
    let (code, out, seq) = trace_seq(c, &argv, None);
    assert_eq!(code, 0, "clean commit failed: {out}");
    let op: String = serde_json::from_str::<Value>(&out).unwrap()["op_id"]
        .as_str()
        .unwrap()
        .to_string();
    let after = c.tree();
    assert_ne!(before, after);
    c.restore();
    Commit {
        t,
        argv,
        op,
        before,
        after,
        status_before,
        seq,
    }
}

/// The commit invariant once a command has run after the disturbance (`st` is
/// what `tx status` said then): true when the commit ended up applied (it was
/// then undone), false when it did not (it was then committed again).
fn check_commit(c: &Case, b: &Commit, st: &Value, label: &str) -> bool {
    no_temps(c, label);
    assert!(
        c.intent_records().is_empty(),
        "{label}: an intent record survived recovery"
    );
    let journaled = c
        .journal()
        .matches(&format!("\"op_id\":\"{}\"", b.op))
        .count();
    let now = c.tree();
    if now == b.after {
        assert_eq!(
            journaled, 1,
            "{label}: the journal has the op {journaled} times"
        );
        assert_eq!(
            *st,
            Value::from("input.not-found"),
            "{label}: the tx survived its commit"
        );
        let u = c.run(&["undo", &b.op]);
        assert_eq!(u.code, 0, "{label}: undo failed: {}", u.stderr);
        assert_eq!(c.tree(), b.before, "{label}: undo did not restore the tree");
        true
    } else {
        assert_eq!(
            now, b.before,
            "{label}: neither wholly before nor wholly after"
        );
        assert_eq!(
            journaled, 0,
            "{label}: the journal has an op the files do not show"
        );
        assert_eq!(*st, b.status_before, "{label}: the tx is not as it was");
        let again = c.run(&["tx", "commit", &b.t]);
        assert_eq!(
            again.code, 0,
            "{label}: commit after the kill failed: {}",
            again.stderr
        );
        assert_eq!(c.tree(), b.after, "{label}: the second commit differs");
        false
    }
}

#[test]
fn sigkill_during_tx_commit_leaves_before_or_after() {
    let c = Case::new();
    let b = commit_baseline(&c);
    let pts: Vec<(String, usize)> = b.seq.iter().map(|(s, n, _)| (s.clone(), *n)).collect();
    let pts = sample(&pts, max_points());
    let (mut n_before, mut n_after) = (0, 0);
    for (sys, n) in &pts {
        c.restore();
        let (code, _) = c.strace(&inject_kill(sys, *n), &b.argv);
        let label = format!("tx commit / kill at {sys} #{n} (exit {code})");
        // The next command runs recovery (and settles a half-done commit).
        let st = c.status(&b.t);
        if check_commit(&c, &b, &st, &label) {
            n_after += 1;
        } else {
            n_before += 1;
        }
    }
    eprintln!(
        "tx commit: {} syscalls, {} kill points ({n_before} before, {n_after} after)",
        b.seq.len(),
        pts.len()
    );
    assert!(
        n_before > 0 && n_after > 0,
        "{n_before} before, {n_after} after"
    );
}

/// The points of a clean `tx commit` at which a kill leaves an intent record:
/// (incomplete, complete), in order. The record exists from its creating
/// `openat` (a kill there runs nothing) through its `unlink` (a kill there
/// leaves it, complete); it is complete from just after the write of its
/// 65-byte checksum line.
fn record_points(b: &Commit) -> (Vec<(String, usize)>, Vec<(String, usize)>) {
    let seq = &b.seq;
    let open = seq
        .iter()
        .position(|(s, _, l)| s == "openat" && l.contains(".intent\"") && l.contains("O_CREAT"))
        .expect("the commit creates an intent record");
    let fd = seq[open].2.rsplit("= ").next().unwrap().trim().to_string();
    let sum = open
        + seq[open..]
            .iter()
            .position(|(s, _, l)| {
                s == "write" && l.starts_with(&format!("write({fd}, ")) && l.ends_with("= 65")
            })
            .expect("the checksum line is written");
    let gone = open
        + seq[open..]
            .iter()
            .position(|(s, _, l)| s.starts_with("unlink") && l.contains(".intent\""))
            .expect("the record is removed");
    let pt = |(s, n, _): &(String, usize, String)| (s.clone(), *n);
    (
        seq[open + 1..=sum].iter().map(pt).collect(),
        seq[sum + 1..=gone].iter().map(pt).collect(),
    )
}

#[test]
fn a_kill_inside_the_recovery_after_a_killed_tx_commit_is_recovered_too() {
    let c = Case::new();
    let b = commit_baseline(&c);
    let (incomplete, complete) = record_points(&b);
    // Two first kills of each kind by default (the first and last of each
    // range among them); every one with AITOOLS_CRASH_POINTS high enough.
    let per_kind = (max_points() / 45).max(2);
    let firsts: Vec<((String, usize), bool)> = sample(&incomplete, per_kind)
        .into_iter()
        .map(|p| (p, false))
        .chain(sample(&complete, per_kind).into_iter().map(|p| (p, true)))
        .collect();
    // The next command: `tx status` runs recovery, then settles the commit marker.
    let next = args(&["tx", "status", &b.t]);
    let per_first = max_points().max(40);
    let mut report = Vec::new();
    let (mut n_before, mut n_after, mut kills) = (0, 0, 0);
    for ((sys, n), complete) in &firsts {
        c.restore();
        c.strace(&inject_kill(sys, *n), &b.argv);
        assert_eq!(
            c.intent_records(),
            vec![*complete],
            "tx commit killed at {sys} #{n}: not the intent record expected"
        );
        let (_, _, rec) = trace_seq(&c, &next, None);
        // Its recovery: from the first look into commit/ to the end.
        let start = rec
            .iter()
            .position(|(_, _, l)| l.contains("/commit\"") || l.contains("/commit/"))
            .expect("the next command looks into commit/");
        let rec_pts: Vec<(String, usize)> = rec[start..]
            .iter()
            .map(|(s, k, _)| (s.clone(), *k))
            .collect();
        let rec_pts = sample(&rec_pts, per_first);
        for (rs, rn) in &rec_pts {
            // The first kill again rather than a copy of its result: the record's
            // steps name files by inode, which a copy would not keep.
            c.restore();
            c.strace(&inject_kill(sys, *n), &b.argv);
            let (code, _) = c.strace(&inject_kill(rs, *rn), &next);
            let label = format!(
                "tx commit killed at {sys} #{n} ({}), then its recovery at {rs} #{rn} (exit {code})",
                if *complete {
                    "complete record"
                } else {
                    "incomplete record"
                }
            );
            let st = c.status(&b.t);
            kills += 1;
            if check_commit(&c, &b, &st, &label) {
                n_after += 1;
                assert!(
                    *complete,
                    "{label}: an incomplete record was rolled forward"
                );
            } else {
                n_before += 1;
                assert!(!*complete, "{label}: a complete record was lost");
            }
        }
        report.push(format!(
            "{sys}#{n} ({}): {} recovery syscalls, {} kill points",
            if *complete { "complete" } else { "incomplete" },
            rec.len() - start,
            rec_pts.len()
        ));
    }
    eprintln!(
        "recovery after a killed tx commit: {} first kills ({} incomplete-record points, {} complete), {kills} recovery kills ({n_before} before, {n_after} after)\n  {}",
        firsts.len(),
        incomplete.len(),
        complete.len(),
        report.join("\n  ")
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

#[test]
fn sigkill_during_tx_rebase_leaves_the_tx_as_before_or_after_the_rebase() {
    let c = Case::new();
    c.env.write("a.txt", "one\ntwo\nthree\n");
    c.env.write("b.txt", "b1\n");
    let t = c.ok(&["tx", "begin"])["tx"].as_str().unwrap().to_string();
    // Re-run on rebase (its path drifts), copied as is, copied as is.
    c.ok(&["edit", "a.txt", "--old", "two", "--new", "TWO", "--tx", &t]);
    c.ok(&["write", "n.txt", "--content", "new\n", "--tx", &t]);
    c.ok(&["edit", "b.txt", "--old", "b1", "--new", "B1", "--tx", &t]);
    c.env.write("a.txt", "zero\none\ntwo\nthree\n");
    c.save();
    let tree = c.tree();
    let status_before = c.status(&t);
    let argv = args(&["tx", "rebase", &t]);
    let (code, out, seq) = trace_seq(&c, &argv, None);
    assert_eq!(code, 0, "clean rebase failed: {out}");
    let status_after = c.status(&t);
    assert_ne!(status_before, status_after);
    assert_eq!(c.tree(), tree, "a rebase touched the tree");
    let r = c.run(&["tx", "commit", &t]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let committed = c.tree();
    assert_eq!(
        std::fs::read_to_string(c.ws().join("a.txt")).unwrap(),
        "zero\none\nTWO\nthree\n"
    );
    // Before the rebase the drift blocks the commit.
    c.restore();
    let r = c.run(&["tx", "commit", &t]);
    assert_eq!(r.error_code(), "refusal.target-changed", "{}", r.stderr);
    assert_eq!(c.tree(), tree);
    let pts: Vec<(String, usize)> = seq.iter().map(|(s, n, _)| (s.clone(), *n)).collect();
    let pts = sample(&pts, max_points());
    let (mut n_before, mut n_after) = (0, 0);
    for (sys, n) in &pts {
        c.restore();
        let (code, _) = c.strace(&inject_kill(sys, *n), &argv);
        let label = format!("tx rebase / kill at {sys} #{n} (exit {code})");
        let st = c.status(&t);
        assert_eq!(c.tree(), tree, "{label}: the tree changed");
        no_temps(&c, &label);
        if st == status_after {
            n_after += 1;
        } else {
            assert_eq!(
                st, status_before,
                "{label}: the tx is neither as before nor as after the rebase"
            );
            n_before += 1;
            let r = c.run(&["tx", "rebase", &t]);
            assert_eq!(
                r.code, 0,
                "{label}: rebase after the kill failed: {}",
                r.stderr
            );
            assert_eq!(
                c.status(&t),
                status_after,
                "{label}: the second rebase differs"
            );
        }
        // Only the tx itself is listed (not a rebase's scratch tx).
        let list = c.ok(&["tx", "status"]);
        assert_eq!(list["total"], 1, "{label}: {list}");
        let r = c.run(&["tx", "commit", &t]);
        assert_eq!(r.code, 0, "{label}: commit failed: {}", r.stderr);
        assert_eq!(c.tree(), committed, "{label}: the commit differs");
    }
    eprintln!(
        "tx rebase: {} syscalls, {} kill points ({n_before} before, {n_after} after)",
        seq.len(),
        pts.len()
    );
    assert!(
        n_before > 0 && n_after > 0,
        "{n_before} before, {n_after} after"
    );
}

#[test]
fn sigkill_during_an_atomic_batch_writes_all_or_nothing() {
    let c = Case::new();
    c.env.write("a.txt", "alpha\nbeta\n");
    c.env.write("c.txt", "gone\n");
    c.env.write("keep.txt", "keep\n");
    let input: &[u8] = br#"[["write","new/dir/d.txt","--content","new\n"],["edit","a.txt","--old","beta","--new","BETA"],["delete","c.txt"]]"#;
    c.save();
    let before = c.tree();
    let argv = args(&["batch", "--stdin", "--atomic"]);
    let (code, out, seq) = trace_seq(&c, &argv, Some(input));
    assert_eq!(code, 0, "clean batch failed: {out}");
    let op = serde_json::from_str::<Value>(&out).unwrap()["op_id"]
        .as_str()
        .unwrap()
        .to_string();
    let after = c.tree();
    assert_ne!(before, after);
    let pts: Vec<(String, usize)> = seq.iter().map(|(s, n, _)| (s.clone(), *n)).collect();
    let pts = sample(&pts, max_points());
    let (mut n_before, mut n_after, mut n_settled) = (0, 0, 0);
    for (sys, n) in &pts {
        c.restore();
        let (code, _) = c.strace_in(&inject_kill(sys, *n), &argv, Some(input));
        let label = format!("batch --atomic / kill at {sys} #{n} (exit {code})");
        let marker = c.commit_marker();
        // The next command runs recovery and settles every tx it lists.
        let list = c.ok(&["tx", "status"]);
        no_temps(&c, &label);
        assert!(
            c.intent_records().is_empty(),
            "{label}: an intent record survived recovery"
        );
        let journaled = c.journal().matches(&format!("\"op_id\":\"{op}\"")).count();
        let now = c.tree();
        if now == after {
            n_after += 1;
            n_settled += usize::from(marker);
            assert_eq!(
                journaled, 1,
                "{label}: the journal has the op {journaled} times"
            );
            assert_eq!(
                list["total"], 0,
                "{label}: the batch's tx survived its commit: {list}"
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
            // A batch killed before its commit leaves its tx behind (nothing
            // can tell it from a batch still running); it aborts cleanly.
            for item in list["items"].as_array().unwrap() {
                let id = item["tx"].as_str().unwrap();
                let r = c.run(&["tx", "abort", id]);
                assert_eq!(r.code, 0, "{label}: abort failed: {}", r.stderr);
            }
            assert_eq!(c.tree(), before, "{label}: abort changed the tree");
        }
    }
    eprintln!(
        "batch --atomic: {} syscalls, {} kill points ({n_before} before, {n_after} after, {n_settled} of them with the commit marker left)",
        seq.len(),
        pts.len()
    );
    assert!(
        n_before > 0 && n_settled > 0,
        "{n_before} before, {n_after} after, {n_settled} with the marker"
    );
}
