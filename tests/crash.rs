//! Crash safety proven from outside the process: the real binary is killed with
//! SIGKILL (strace fault injection) at every file syscall of a write — or an even
//! sample of at least 200 of them — and the next command must leave every touched
//! file wholly before or wholly after (all the same way), no temp file in the tree,
//! the journal holding the op exactly when the files show it, and `undo` working.
//! Also: kills inside the recovery that follows a kill, EIO on every fsync, 16
//! concurrent writers, and a held lock.
//!
//! Scenarios are rows of a table: add one by adding a row to `scenarios()`.

#[path = "support/mod.rs"]
mod support;

use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use support::{TestEnv, bin};

/// The syscalls a kill or fault is injected into.
const SYSCALLS: &str = "openat,open,creat,write,pwrite64,writev,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat,fchmod,fchmodat,chmod,utimensat,ftruncate,flock,close";

/// Kill points per scenario when the op has more syscalls than this (an even
/// sample); `AITOOLS_CRASH_POINTS` lowers it for a quick local run.
fn max_points() -> usize {
    std::env::var("AITOOLS_CRASH_POINTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(240)
}

/// One crash scenario: prepares the workspace (files, earlier ops) and returns the
/// argv to crash, and the stdin it gets.
struct Scenario {
    name: &'static str,
    setup: fn(&Case) -> Vec<String>,
    stdin: Option<&'static [u8]>,
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "write a new file in new directories",
            setup: |c| {
                c.put("keep.txt", "keep\n");
                argv(&["write", "new/dir/a.txt", "--content", "hello\nworld\n"])
            },
            stdin: None,
        },
        Scenario {
            name: "overwrite one file from stdin",
            setup: |c| {
                let body: String = (1..=300).map(|i| format!("line {i}\r\n")).collect();
                c.put("a.txt", &body);
                std::fs::set_permissions(
                    c.ws().join("a.txt"),
                    std::fs::Permissions::from_mode(0o640),
                )
                .unwrap();
                let h = c.run(&["info", "a.txt"]).json["hash"]
                    .as_str()
                    .unwrap()
                    .to_string();
                argv(&[
                    "write",
                    "a.txt",
                    "--overwrite",
                    "--expect-hash",
                    &h,
                    "--stdin",
                ])
            },
            stdin: Some(b"replaced\r\nin full\r\n"),
        },
        Scenario {
            name: "copy a tree (multi-file)",
            setup: |c| {
                c.put("src/one.txt", "1\n");
                c.put("src/two.txt", "2\n");
                c.put("src/deep/three.txt", "3\n");
                argv(&["copy", "src", "dst", "--recursive"])
            },
            stdin: None,
        },
        Scenario {
            name: "move over an existing file (multi-file)",
            setup: |c| {
                c.put("from.txt", "moving\n");
                c.put("to.txt", "replaced\n");
                let h = c.run(&["info", "to.txt"]).json["hash"]
                    .as_str()
                    .unwrap()
                    .to_string();
                argv(&[
                    "move",
                    "from.txt",
                    "to.txt",
                    "--overwrite",
                    "--expect-hash",
                    &format!("to.txt={h}"),
                ])
            },
            stdin: None,
        },
        Scenario {
            name: "undo of a multi-file op",
            setup: |c| {
                c.put("src/one.txt", "1\n");
                c.put("src/two.txt", "2\n");
                c.put("old.txt", "old\n");
                let r = c.run(&["copy", "src", "dst", "--recursive"]);
                assert_eq!(r.code, 0, "{}", r.stdout);
                let del = c.run(&["delete", "old.txt"]);
                assert_eq!(del.code, 0);
                let op = r.json["op_id"].as_str().unwrap().to_string();
                argv(&["undo", &op])
            },
            stdin: None,
        },
    ]
}

fn argv(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// A scenario's workspace at a fixed path, restorable from its template.
struct Case {
    env: TestEnv,
    tmpl: tempfile::TempDir,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    File(Vec<u8>, u32),
    Dir(u32),
    Link(PathBuf),
}

type Tree = BTreeMap<String, Node>;

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
    fn put(&self, rel: &str, body: &str) {
        self.env.write(rel, body);
    }
    fn run(&self, args: &[&str]) -> support::Run {
        self.env.run(args)
    }
    /// Saves the workspace and state as the template every kill point starts from.
    fn save(&self) {
        cp(self.ws(), &self.tmpl.path().join("ws"));
        cp(self.state(), &self.tmpl.path().join("state"));
    }
    fn restore(&self) {
        cp(&self.tmpl.path().join("ws"), self.ws());
        cp(&self.tmpl.path().join("state"), self.state());
    }
    /// Runs `aitools args` under strace with extra options; returns (exit code, stdout).
    fn strace(&self, opts: &[String], args: &[String], stdin: Option<&[u8]>) -> (i32, String) {
        let mut c = Command::new("strace");
        c.args(["-f", "-qq"])
            .args(opts)
            .arg("--")
            .arg(bin())
            .args(args);
        c.current_dir(self.ws())
            .env("XDG_STATE_HOME", self.state())
            .env("AITOOLS_FIXED_TIME", "1796000000")
            .env("AITOOLS_SEED", "42")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        let mut child = c
            .spawn()
            .expect("strace (install it: apt-get install strace)");
        if let (Some(data), Some(mut si)) = (stdin, child.stdin.take()) {
            use std::io::Write;
            let _ = si.write_all(data);
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
    fn journal(&self) -> String {
        let dir = self.state().join("aitools");
        let Some(ws) = std::fs::read_dir(&dir).ok().and_then(|mut r| r.next()) else {
            return String::new();
        };
        std::fs::read_to_string(ws.unwrap().path().join("journal/journal.jsonl"))
            .unwrap_or_default()
    }
    fn pending_records(&self) -> usize {
        let dir = self.state().join("aitools");
        std::fs::read_dir(&dir)
            .ok()
            .and_then(|mut r| r.next())
            .and_then(|ws| std::fs::read_dir(ws.unwrap().path().join("commit")).ok())
            .map(|r| r.count())
            .unwrap_or(0)
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

/// Per-syscall invocation counts of a strace log.
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
            if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.is_empty() {
                *out.entry(name.to_string()).or_insert(0) += 1;
            }
        }
    }
    out
}

/// Every (syscall, invocation) point, or an even sample of `max` of them.
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

/// What a scenario looks like when run cleanly.
struct Baseline {
    argv: Vec<String>,
    before: Tree,
    after: Tree,
    op_id: String,
    counts: BTreeMap<String, usize>,
}

fn baseline(c: &Case, s: &Scenario) -> Baseline {
    let argv = (s.setup)(c);
    c.save();
    let before = c.tree();
    let log = c.tmpl.path().join("trace.log");
    let (code, out) = c.strace(
        &[
            "-o".into(),
            log.display().to_string(),
            "-e".into(),
            format!("trace={SYSCALLS}"),
        ],
        &argv,
        s.stdin,
    );
    assert_eq!(code, 0, "{}: the clean run failed: {out}", s.name);
    let v: Value = serde_json::from_str(&out).unwrap();
    let op_id = v["op_id"].as_str().expect("op_id").to_string();
    let after = c.tree();
    assert_ne!(before, after, "{}: the op changed nothing", s.name);
    let counts = counts(&log);
    c.restore();
    Baseline {
        argv,
        before,
        after,
        op_id,
        counts,
    }
}

/// The invariant after a disturbed run and one recovering command; true when the
/// op ended up applied (and was then undone).
fn check(c: &Case, b: &Baseline, label: &str) -> bool {
    let r = c.run(&["info", "."]);
    assert_eq!(r.code, 0, "{label}: the next command failed: {}", r.stderr);
    assert_eq!(
        c.pending_records(),
        0,
        "{label}: an intent record survived recovery"
    );
    let now = c.tree();
    let temps: Vec<&String> = now.keys().filter(|k| k.contains(".aitools-")).collect();
    assert!(temps.is_empty(), "{label}: temp files left: {temps:?}");
    let journaled = c
        .journal()
        .matches(&format!("\"op_id\":\"{}\"", b.op_id))
        .count();
    if now == b.after {
        assert_eq!(
            journaled, 1,
            "{label}: files show the op, the journal has it {journaled} times"
        );
        let u = c.run(&["undo", &b.op_id]);
        assert_eq!(u.code, 0, "{label}: undo failed: {}", u.stderr);
        assert_eq!(
            c.tree(),
            b.before,
            "{label}: undo did not restore the before-state"
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

#[test]
fn sigkill_at_every_syscall_leaves_before_or_after() {
    let mut report = Vec::new();
    for s in scenarios() {
        let c = Case::new();
        let b = baseline(&c, &s);
        let pts = points(&b.counts, max_points());
        let (mut saw_before, mut saw_after) = (0, 0);
        for (sys, n) in &pts {
            c.restore();
            let (code, _) = c.strace(&inject_kill(sys, *n), &b.argv, s.stdin);
            let label = format!("{} / kill at {sys} #{n} (exit {code})", s.name);
            if check(&c, &b, &label) {
                saw_after += 1;
            } else {
                saw_before += 1;
            }
        }
        let total: usize = b.counts.values().sum();
        report.push(format!(
            "{}: {total} syscalls, {} kill points ({saw_before} ended before, {saw_after} ended after)",
            s.name,
            pts.len()
        ));
        assert!(saw_before > 0 && saw_after > 0, "{}: {report:?}", s.name);
    }
    // Shown with --nocapture: the kill-point counts the report quotes.
    eprintln!("{}", report.join("\n"));
}

#[test]
fn a_kill_inside_recovery_is_recovered_too() {
    let all = scenarios();
    let s = &all[2];
    let c = Case::new();
    let b = baseline(&c, s);
    let pts = points(&b.counts, usize::MAX);
    // Kill points that leave an intent record behind (some before, some after the commit point).
    let mut pending = Vec::new();
    for (sys, n) in &pts {
        c.restore();
        c.strace(&inject_kill(sys, *n), &b.argv, s.stdin);
        if c.pending_records() > 0 {
            pending.push((sys.clone(), *n, c.tree() != b.before));
        }
    }
    assert!(!pending.is_empty());
    let mut chosen: Vec<_> = pending
        .iter()
        .step_by((pending.len() / 6).max(1))
        .cloned()
        .collect();
    // Always include the last one (a committed record: roll-forward is exercised).
    if let Some(last) = pending.last() {
        chosen.push(last.clone());
    }
    let mut kills = 0;
    for (sys, n, _) in chosen {
        c.restore();
        c.strace(&inject_kill(&sys, n), &b.argv, s.stdin);
        let log = c.tmpl.path().join("recovery.log");
        cp(c.ws(), &c.tmpl.path().join("ws2"));
        cp(c.state(), &c.tmpl.path().join("state2"));
        let info = argv(&["info", "."]);
        c.strace(
            &[
                "-o".into(),
                log.display().to_string(),
                "-e".into(),
                format!("trace={SYSCALLS}"),
            ],
            &info,
            None,
        );
        let rec_points = points(&counts(&log), 40);
        for (rs, rn) in rec_points {
            cp(&c.tmpl.path().join("ws2"), c.ws());
            cp(&c.tmpl.path().join("state2"), c.state());
            c.strace(&inject_kill(&rs, rn), &info, None);
            kills += 1;
            let _ = check(
                &c,
                &b,
                &format!("kill at {sys} #{n}, then in recovery at {rs} #{rn}"),
            );
        }
    }
    assert!(kills > 20, "only {kills} recovery kill points");
}

#[test]
fn eio_on_any_fsync_is_never_success() {
    let all = scenarios();
    for s in [&all[1], &all[2], &all[4]] {
        let c = Case::new();
        let b = baseline(&c, s);
        for sys in ["fsync", "fdatasync"] {
            let n = b.counts.get(sys).copied().unwrap_or(0);
            for k in 1..=n {
                c.restore();
                let (code, out) = c.strace(
                    &[
                        "-o".into(),
                        "/dev/null".into(),
                        "-e".into(),
                        format!("trace={SYSCALLS}"),
                        "-e".into(),
                        format!("inject={sys}:error=EIO:when={k}"),
                    ],
                    &b.argv,
                    s.stdin,
                );
                assert_ne!(
                    code, 0,
                    "{}: EIO on {sys} #{k} was reported as success: {out}",
                    s.name
                );
                let _ = check(&c, &b, &format!("{}: EIO on {sys} #{k}", s.name));
            }
        }
        assert!(
            b.counts.get("fsync").copied().unwrap_or(0)
                + b.counts.get("fdatasync").copied().unwrap_or(0)
                >= 3,
            "{}: {:?}",
            s.name,
            b.counts
        );
    }
}

#[test]
fn sixteen_concurrent_writers_lose_no_update() {
    let env = TestEnv::new();
    env.write("log.txt", "");
    let root = env.root().to_path_buf();
    let state = env.state.path().to_path_buf();
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let (root, state) = (root.clone(), state.clone());
            std::thread::spawn(move || {
                let run = |args: &[&str]| {
                    let out = Command::new(bin())
                        .args(args)
                        .current_dir(&root)
                        .env("XDG_STATE_HOME", &state)
                        .stdin(Stdio::null())
                        .output()
                        .unwrap();
                    support::parse(out)
                };
                for _attempt in 0..500 {
                    let r = run(&["read", "log.txt", "--max-lines", "1000"]);
                    let hash = r.json["hash"].as_str().unwrap_or("").to_string();
                    let mut body: String = r.lines().iter().map(|l| format!("{l}\n")).collect();
                    body.push_str(&format!("writer {i}\n"));
                    let w = run(&[
                        "write",
                        "log.txt",
                        "--overwrite",
                        "--expect-hash",
                        &hash,
                        "--content",
                        &body,
                        "--lock-timeout",
                        "30s",
                    ]);
                    match w.code {
                        0 => return,
                        _ if w.error_code() == "refusal.target-changed"
                            || w.error_code() == "environment.busy" => {}
                        _ => panic!("writer {i}: {}", w.stderr),
                    }
                }
                panic!("writer {i} never got its write in");
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let text = String::from_utf8(env.read("log.txt")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 16, "{text}");
    lines.sort();
    lines.dedup();
    assert_eq!(lines.len(), 16, "{text}");
    let h = env.run(&["history", "--limit", "100"]);
    assert_eq!(h.json["total"], 16);
}

#[test]
fn a_held_lock_gives_busy_within_the_timeout() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    // Create the state directory and its lock file.
    assert_eq!(env.run(&["touch", "b.txt"]).code, 0);
    let ws_state = std::fs::read_dir(env.state.path().join("aitools"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let lock = ws_state.join("lock");
    // --no-fork: the process we kill is the one holding the lock.
    let mut holder = Command::new("flock")
        .args(["-x", "--no-fork"])
        .arg(&lock)
        .args(["sleep", "20"])
        .spawn()
        .expect("flock");
    // Wait until the holder has it.
    let start = std::time::Instant::now();
    loop {
        let probe = Command::new("flock")
            .args(["-n", "-x"])
            .arg(&lock)
            .arg("true")
            .status()
            .unwrap();
        if !probe.success() || start.elapsed().as_secs() > 10 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let t = std::time::Instant::now();
    let r = env.run(&[
        "write",
        "c.txt",
        "--content",
        "c",
        "--lock-timeout",
        "300ms",
    ]);
    let took = t.elapsed();
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(r.error_code(), "environment.busy", "{}", r.stderr);
    assert!(
        took.as_millis() >= 300 && took.as_millis() < 3000,
        "{took:?}"
    );
    let repair = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(
        repair,
        "aitools write c.txt --content c --lock-timeout 300ms"
    );
    assert!(!env.path("c.txt").exists());
    // Free again: the same command succeeds.
    assert_eq!(env.run(&["write", "c.txt", "--content", "c"]).code, 0);
}
