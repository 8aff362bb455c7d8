//! The crash harness shared by `tests/crash.rs` and `tests/crash_tx.rs`: a
//! workspace restorable from a template, the binary run under strace (traced to
//! count its file syscalls, or killed / faulted at one of them), kill-point
//! sampling, tree snapshots, and the state-directory readers (journal, intent
//! records) the before-or-after invariant is judged by.

#![allow(dead_code)]

use crate::support::{self, TestEnv, bin};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The syscalls a kill or fault is injected into.
pub const SYSCALLS: &str = "openat,open,creat,write,pwrite64,writev,fsync,fdatasync,syncfs,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat,fchmod,fchmodat,chmod,utimensat,ftruncate,flock,close";

/// Kill points per scenario (an even sample when the op has more syscalls);
/// `AITOOLS_CRASH_POINTS` overrides each binary's `default`, e.g. lower for a
/// quick local run.
pub fn max_points(default: usize) -> usize {
    std::env::var("AITOOLS_CRASH_POINTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    File(Vec<u8>, u32),
    Dir(u32),
    Link(PathBuf),
}

/// The workspace without `.git`: relative path → contents and mode.
pub type Tree = BTreeMap<String, Node>;

/// One traced syscall: its name, which invocation of that name it is (the
/// `when=` of an injection), and its log line.
pub type Call = (String, usize, String);

/// A workspace at a fixed path, restorable from its template.
pub struct Case {
    pub env: TestEnv,
    pub tmpl: tempfile::TempDir,
}

/// What an op looks like when run cleanly.
pub struct Baseline {
    pub argv: Vec<String>,
    pub before: Tree,
    pub after: Tree,
    pub op: String,
    pub seq: Vec<Call>,
}

impl Case {
    pub fn new() -> Case {
        Case {
            env: TestEnv::new(),
            tmpl: tempfile::tempdir().unwrap(),
        }
    }
    pub fn ws(&self) -> &Path {
        self.env.root()
    }
    pub fn state(&self) -> &Path {
        self.env.state.path()
    }
    pub fn put(&self, rel: &str, body: &str) {
        self.env.write(rel, body);
    }
    pub fn run(&self, args: &[&str]) -> support::Run {
        self.env.run(args)
    }
    pub fn ok(&self, args: &[&str]) -> Value {
        let r = self.run(args);
        assert_eq!(r.code, 0, "{args:?}: {} {}", r.stdout, r.stderr);
        r.json
    }
    /// Saves the workspace and state as the template every kill point starts from.
    pub fn save(&self) {
        self.save_as("");
    }
    pub fn restore(&self) {
        self.restore_from("");
    }
    /// Saves the workspace and state as a second template, named by `tag`.
    pub fn save_as(&self, tag: &str) {
        cp(self.ws(), &self.tmpl.path().join(format!("ws{tag}")));
        cp(self.state(), &self.tmpl.path().join(format!("state{tag}")));
    }
    pub fn restore_from(&self, tag: &str) {
        cp(&self.tmpl.path().join(format!("ws{tag}")), self.ws());
        cp(&self.tmpl.path().join(format!("state{tag}")), self.state());
    }
    /// Runs `aitools args` under strace with extra options, `stdin` fed to it;
    /// returns (exit code, stdout).
    pub fn strace(&self, opts: &[String], args: &[String], stdin: Option<&[u8]>) -> (i32, String) {
        let out = self.strace_output(opts, args, stdin);
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }

    /// `strace`, whole: the run's status, stdout and stderr.
    pub fn strace_output(
        &self,
        opts: &[String],
        args: &[String],
        stdin: Option<&[u8]>,
    ) -> std::process::Output {
        let mut child = self.strace_spawn(opts, args, stdin.is_some());
        if let (Some(bytes), Some(mut si)) = (stdin, child.stdin.take()) {
            use std::io::Write;
            // A kill before the command reads its input breaks the pipe: not an error.
            let _ = si.write_all(bytes);
        }
        child.wait_with_output().expect("wait for strace")
    }

    /// `aitools args` started under strace with `opts` (stdout and stderr
    /// piped; stdin piped when `piped`, else null), not waited for.
    pub fn strace_spawn(
        &self,
        opts: &[String],
        args: &[String],
        piped: bool,
    ) -> std::process::Child {
        Command::new("strace")
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
            // One syncfs for many files whatever the machine's dirty pages: the
            // sweeps count the syncs of a clean run and fault each of them.
            .env("AITOOLS_SYNCFS_DIRTY_MAX", "18446744073709551615")
            .env_remove("AITOOLS_INLINE_CONTEXT")
            .stdin(if piped { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("strace (install it: apt-get install strace)")
    }

    /// A run traced for `syscalls`: exit code, stdout and the strace log.
    pub fn trace_log(
        &self,
        syscalls: &str,
        argv: &[String],
        stdin: Option<&[u8]>,
    ) -> (i32, String, String) {
        let log = self.tmpl.path().join("trace.log");
        let (code, out) = self.strace(
            &[
                "-o".into(),
                log.display().to_string(),
                "-e".into(),
                format!("trace={syscalls}"),
            ],
            argv,
            stdin,
        );
        (code, out, std::fs::read_to_string(&log).unwrap())
    }
    /// A run traced for `SYSCALLS`: exit code, stdout and the syscall sequence.
    pub fn trace(&self, argv: &[String], stdin: Option<&[u8]>) -> (i32, String, Vec<Call>) {
        let (code, out, log) = self.trace_log(SYSCALLS, argv, stdin);
        (code, out, sequence(&log))
    }
    /// A run killed with SIGKILL at invocation `n` of `sys`; its exit code.
    pub fn kill_at(&self, sys: &str, n: usize, argv: &[String], stdin: Option<&[u8]>) -> i32 {
        self.strace(&inject(&format!("{sys}:signal=KILL:when={n}")), argv, stdin)
            .0
    }
    /// Runs the op cleanly under trace from the current state (which the caller
    /// saved and restores): it must succeed with an `op_id` and change the tree.
    pub fn baseline(&self, argv: Vec<String>, stdin: Option<&[u8]>, label: &str) -> Baseline {
        let before = self.tree();
        let (code, out, seq) = self.trace(&argv, stdin);
        assert_eq!(code, 0, "{label}: the clean run failed: {out}");
        let v: Value = serde_json::from_str(&out).unwrap();
        // `run --stdout-to` answers its write's op under `stdout`.
        let op = v["op_id"]
            .as_str()
            .or_else(|| v["stdout"]["op_id"].as_str())
            .expect("op_id")
            .to_string();
        let after = self.tree();
        assert_ne!(before, after, "{label}: the op changed nothing");
        Baseline {
            argv,
            before,
            after,
            op,
            seq,
        }
    }
    pub fn tree(&self) -> Tree {
        let mut t = Tree::new();
        walk(self.ws(), self.ws(), &mut t);
        t
    }
    /// The workspace's state directory (`<state>/aitools/ws-*`), once it exists.
    pub fn ws_state(&self) -> Option<PathBuf> {
        let dir = self.state().join("aitools");
        std::fs::read_dir(&dir)
            .ok()
            .and_then(|mut r| r.next())
            .map(|e| e.unwrap().path())
    }
    pub fn journal(&self) -> String {
        let Some(ws) = self.ws_state() else {
            return String::new();
        };
        std::fs::read_to_string(ws.join("journal/journal.jsonl")).unwrap_or_default()
    }
    /// How many times the journal holds `op`.
    pub fn journaled(&self, op: &str) -> usize {
        let journal = self.journal();
        // Answers show `op-<8 hex>`; the journal keeps `op-<time>-<8 hex>`: both
        // end in `-<8 hex>`.
        let tail = format!("{}\"", &op[op.len().saturating_sub(9)..]);
        journal
            .match_indices("\"op_id\":\"op-")
            .filter(|(i, m)| {
                journal[i + m.len()..]
                    .get(16..)
                    .is_some_and(|r| r.starts_with(&tail))
            })
            .count()
    }
    /// The intent records in `commit/`: for each, whether it is complete (its
    /// second line is the SHA-256 of its first).
    pub fn intent_records(&self) -> Vec<bool> {
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
    pub fn no_temps(&self, label: &str) {
        let temps: Vec<String> = self
            .tree()
            .keys()
            .filter(|k| k.contains(".aitools-"))
            .cloned()
            .collect();
        assert!(temps.is_empty(), "{label}: temp files left: {temps:?}");
    }
    /// The invariant once a command has run after a disturbed op: no temp file,
    /// no intent record, and the tree wholly after with the op journaled once
    /// (true) or wholly before with the op not journaled (false).
    pub fn before_or_after(&self, b: &Baseline, label: &str) -> bool {
        self.no_temps(label);
        assert!(
            self.intent_records().is_empty(),
            "{label}: an intent record survived recovery"
        );
        let journaled = self.journaled(&b.op);
        let now = self.tree();
        if now == b.after {
            assert_eq!(
                journaled, 1,
                "{label}: files show the op, the journal has it {journaled} times"
            );
            true
        } else {
            assert_eq!(
                now, b.before,
                "{label}: the tree is neither wholly before nor wholly after"
            );
            assert_eq!(
                journaled, 0,
                "{label}: files do not show the op, the journal has it"
            );
            false
        }
    }
    /// `undo` of the op succeeds and gives back the before-tree.
    pub fn undo_restores(&self, b: &Baseline, label: &str) {
        let u = self.run(&["undo", &b.op]);
        assert_eq!(u.code, 0, "{label}: undo failed: {}", u.stderr);
        assert_eq!(
            self.tree(),
            b.before,
            "{label}: undo did not restore the before-state"
        );
    }
}

pub fn cp(from: &Path, to: &Path) {
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

/// Every traced syscall of a strace log, in order.
pub fn sequence(log: &str) -> Vec<Call> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for line in log.lines() {
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

/// Per-syscall invocation counts of a sequence.
pub fn counts(seq: &[Call]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (s, _, _) in seq {
        *out.entry(s.clone()).or_insert(0) += 1;
    }
    out
}

/// A sequence as kill points, in the order they ran.
pub fn in_order(seq: &[Call]) -> Vec<(String, usize)> {
    seq.iter().map(|(s, n, _)| (s.clone(), *n)).collect()
}

/// Every (syscall, invocation) point grouped by syscall, or an even sample of
/// `max` of them.
pub fn points(counts: &BTreeMap<String, usize>, max: usize) -> Vec<(String, usize)> {
    let all: Vec<(String, usize)> = counts
        .iter()
        .flat_map(|(s, n)| (1..=*n).map(move |i| (s.clone(), i)))
        .collect();
    if all.len() <= max {
        return all;
    }
    (0..max).map(|k| all[k * all.len() / max].clone()).collect()
}

/// An even sample of `max` items (all of them when there are fewer), keeping
/// the first and the last.
pub fn sample<T: Clone>(all: &[T], max: usize) -> Vec<T> {
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

/// strace options tracing `SYSCALLS` to nowhere with one injection, e.g.
/// `fsync:error=EIO:when=2`.
pub fn inject(spec: &str) -> Vec<String> {
    vec![
        "-o".into(),
        "/dev/null".into(),
        "-e".into(),
        format!("trace={SYSCALLS}"),
        "-e".into(),
        format!("inject={spec}"),
    ]
}

pub fn argv(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}
