//! A console SIGKILLed in the middle of a write it runs for the operator
//! (`tx_commit`, `undo` over the OUI socket) leaves the store as the crash
//! harness guarantees for the CLI: after `aitools recover` every file is wholly
//! as before the action or wholly as after it, no temp file is left, nothing is
//! pending, and the next writes (commit again, `undo`) work. The kills are
//! timed (right after the request is sent, a few ms later, then spread over the
//! time the action takes uninterrupted); every other recovery is done by a
//! second console (its `recover` action). The action runs on a thread of the console
//! process, so the kill takes it wherever it is.

use super::console::{Server, send, socket, start, surface_count, wait_for};
use crate::support::TestEnv;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// The workspace without `.git`: relative path → contents.
type Tree = BTreeMap<String, Vec<u8>>;

fn tree(root: &Path) -> Tree {
    fn walk(root: &Path, dir: &Path, out: &mut Tree) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("read_dir")
            .flatten()
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().to_string();
            if rel == ".git" {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(rel, std::fs::read(&p).expect("read"));
            }
        }
    }
    let mut t = Tree::new();
    walk(root, root, &mut t);
    t
}

const FILES: usize = 24;

/// A workspace with one earlier op, and a tx that overwrites every file,
/// creates as many and deletes one: (tx id, tree before, tree after).
fn staged(env: &TestEnv) -> (String, Tree, Tree) {
    for i in 0..FILES {
        env.write(&format!("src/f{i:02}.txt"), format!("before {i}\n"));
    }
    env.write("gone.txt", "deleted by the tx\n");
    env.run(&["write", "seed.txt", "--content", "seed\n"])
        .op_id();
    let before = tree(env.root());
    let t = env.tx_begin();
    for i in 0..FILES {
        let f = format!("src/f{i:02}.txt");
        let h = env.run(&["info", &f]).json["hash"]
            .as_str()
            .unwrap()
            .to_string();
        let r = env.run(&[
            "write",
            &f,
            "--overwrite",
            "--expect-hash",
            &h,
            "--content",
            &format!("after {i}\n"),
            "--tx",
            &t,
        ]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        let n = format!("new/n{i:02}.txt");
        let r = env.run(&["write", &n, "--content", &format!("new {i}\n"), "--tx", &t]);
        assert_eq!(r.code, 0, "{}", r.stdout);
    }
    let r = env.run(&["delete", "gone.txt", "--tx", &t]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let mut after = before.clone();
    after.remove("gone.txt");
    for i in 0..FILES {
        after.insert(format!("src/f{i:02}.txt"), format!("after {i}\n").into());
        after.insert(format!("new/n{i:02}.txt"), format!("new {i}\n").into());
    }
    (t, before, after)
}

/// Copies the contents of `from` into `to` (emptied first): the workspace and
/// state directories saved and restored at the same paths, as the crash
/// harness does.
fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::create_dir_all(to);
    for e in std::fs::read_dir(to).expect("read_dir").flatten() {
        let p = e.path();
        let gone = if p.is_dir() && !p.is_symlink() {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        };
        gone.expect("empty the directory");
    }
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(from.join("."))
        .arg(to)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "cp -a {from:?} {to:?}");
}

/// A workspace and its state saved once, restored before each kill.
struct Saved {
    env: TestEnv,
    tmpl: tempfile::TempDir,
}

impl Saved {
    fn save(env: TestEnv) -> Saved {
        let tmpl = tempfile::tempdir().expect("tempdir");
        copy_dir(env.root(), &tmpl.path().join("ws"));
        copy_dir(env.state.path(), &tmpl.path().join("state"));
        Saved { env, tmpl }
    }
    fn restore(&self) {
        copy_dir(&self.tmpl.path().join("ws"), self.env.root());
        copy_dir(&self.tmpl.path().join("state"), self.env.state.path());
    }
}

/// Starts a console, registers a socket and sends `action`; then SIGKILLs the
/// console `kill_after` the send, or (None) waits for the result and returns
/// how long it took.
fn console_action(
    env: &TestEnv,
    surface: &str,
    action: &str,
    params: &Value,
    kill_after: Option<Duration>,
) -> Duration {
    let mut s: Server = start(env, &["console", "--port", "0"]);
    let mut ws = socket(&s);
    for _ in 0..surface_count(env) {
        wait_for(&mut ws, Duration::from_secs(10), |e| {
            e["type"] == "surface:register"
        });
    }
    send(
        &mut ws,
        json!({"type": "action:request", "payload": {"requestId": "k", "surfaceId": surface,
            "actionId": action, "params": params, "timestamp": 1}}),
    );
    let sent = Instant::now();
    let Some(delay) = kill_after else {
        let r = wait_for(&mut ws, Duration::from_secs(35), |e| {
            e["type"] == "action:result"
        });
        assert_eq!(r["payload"]["success"], true, "{r}");
        return sent.elapsed();
    };
    std::thread::sleep(delay);
    s.child.kill().expect("SIGKILL the console");
    let st = s.child.wait().expect("wait");
    assert!(!st.success(), "the console was killed: {st:?}");
    delay
}

/// The kill delays: right after the send, a few ms, then spread over (and
/// past) `clean`, the time the action took uninterrupted.
fn delays(clean: Duration) -> Vec<Duration> {
    let mut d: Vec<Duration> = [0, 1, 3].map(Duration::from_millis).to_vec();
    d.extend((1..=14).map(|k| clean * k / 12));
    d
}

/// `aitools recover` finishes or clears whatever the kill left (true when it
/// found something), run from the CLI or (`console`) through a new console:
/// its first observation reads run the recovery pass, as any command does, and
/// the value that did says so (`recovered`); its `recover` action then finds
/// nothing left. Then nothing is pending.
fn recover(env: &TestEnv, label: &str, console: bool) -> bool {
    if console {
        let s = start(env, &["console", "--port", "0"]);
        let mut ws = socket(&s);
        send(
            &mut ws,
            json!({"type": "action:request", "payload": {"requestId": "rec",
                "surfaceId": "recovery", "actionId": "recover", "params": {}, "timestamp": 1}}),
        );
        let told = std::cell::Cell::new(false);
        let r = wait_for(&mut ws, Duration::from_secs(35), |e| {
            let value = &e["payload"]["value"];
            if e["type"] == "observation:update"
                && value["recovered"].as_array().is_some_and(|a| !a.is_empty())
            {
                told.set(true);
            }
            e["type"] == "action:result" && e["payload"]["requestId"] == "rec"
        });
        assert_eq!(
            r["payload"]["success"], true,
            "{label}: recover action: {r}"
        );
        let data = &r["payload"]["data"];
        assert_eq!(data["pending_recovery"], json!([]), "{label}: {data}");
        assert_eq!(data["recovered"], json!([]), "{label}: {data}");
        settled(env, label);
        return told.get();
    }
    let r = env.run(&["recover"]);
    assert_eq!(r.code, 0, "{label}: recover: {}", r.stdout);
    assert_eq!(
        r.json["pending_recovery"],
        json!([]),
        "{label}: {}",
        r.stdout
    );
    let found = r.json["recovered"]
        .as_array()
        .is_some_and(|a| !a.is_empty());
    settled(env, label);
    found
}

/// Nothing left to recover.
fn settled(env: &TestEnv, label: &str) {
    let again = env.run(&["recover", "--dry-run"]);
    assert_eq!(
        again.json["recovered"],
        json!([]),
        "{label}: {}",
        again.stdout
    );
    assert_eq!(
        again.json["pending_recovery"],
        json!([]),
        "{label}: {}",
        again.stdout
    );
}

/// The newest op in the journal.
fn newest_op(env: &TestEnv) -> String {
    let h = env.run(&["history"]);
    assert_eq!(h.code, 0, "{}", h.stdout);
    h.json["items"][0]["op_id"]
        .as_str()
        .expect("an op")
        .to_string()
}

/// Counts of kills that left the tree (before, mid-action with a record
/// recovered, after).
#[derive(Default, Debug)]
struct Tally {
    before: usize,
    recovered_by_cli: usize,
    recovered_by_console: usize,
    after: usize,
}

#[test]
fn a_console_killed_mid_tx_commit_leaves_before_or_after_and_undo_works() {
    let env = TestEnv::new();
    let (t, before, after) = staged(&env);
    let saved = Saved::save(env);
    let env = &saved.env;
    let params = json!({"tx": t});
    let clean = console_action(env, "transactions", "tx_commit", &params, None);
    assert_eq!(tree(env.root()), after, "the clean commit");
    let mut n = Tally::default();
    for (i, delay) in delays(clean).into_iter().enumerate() {
        saved.restore();
        let label = format!("tx_commit killed after {delay:?}");
        console_action(env, "transactions", "tx_commit", &params, Some(delay));
        if recover(env, &label, i % 2 == 1) {
            *[&mut n.recovered_by_cli, &mut n.recovered_by_console][i % 2] += 1;
        }
        let now = tree(env.root());
        let commit = if now == after {
            n.after += 1;
            let status = env.run(&["tx", "status", &t]);
            assert_eq!(
                status.error_code(),
                "input.not-found",
                "{label}: the tx survived"
            );
            newest_op(env)
        } else {
            assert!(
                now == before,
                "{label}: neither before nor after: {:?}",
                diff(&before, &after, &now)
            );
            n.before += 1;
            let again = env.run(&["tx", "commit", &t]);
            assert_eq!(again.code, 0, "{label}: commit again: {}", again.stdout);
            assert_eq!(
                tree(env.root()),
                after,
                "{label}: the second commit differs"
            );
            again.op_id()
        };
        let undo = env.run(&["undo", &commit]);
        assert_eq!(undo.code, 0, "{label}: undo: {}", undo.stdout);
        assert_eq!(tree(env.root()), before, "{label}: undo did not restore");
    }
    eprintln!("tx_commit (clean {clean:?}): {n:?}");
}

#[test]
fn a_console_killed_mid_undo_leaves_before_or_after_and_undo_works() {
    let env = TestEnv::new();
    let (t, before, after) = staged(&env);
    let commit = env.run(&["tx", "commit", &t]).op_id();
    let saved = Saved::save(env);
    let env = &saved.env;
    let params = json!({"op_id": commit});
    let clean = console_action(env, "journal", "undo", &params, None);
    assert_eq!(tree(env.root()), before, "the clean undo");
    let mut n = Tally::default();
    for (i, delay) in delays(clean).into_iter().enumerate() {
        saved.restore();
        let label = format!("undo killed after {delay:?}");
        console_action(env, "journal", "undo", &params, Some(delay));
        if recover(env, &label, i % 2 == 1) {
            *[&mut n.recovered_by_cli, &mut n.recovered_by_console][i % 2] += 1;
        }
        let now = tree(env.root());
        if now == before {
            n.after += 1;
            // The undo is journaled: undoing it brings the commit back.
            let op = newest_op(env);
            assert_ne!(op, commit, "{label}: the undo is not journaled");
            let redo = env.run(&["undo", &op]);
            assert_eq!(redo.code, 0, "{label}: undo the undo: {}", redo.stdout);
            assert_eq!(tree(env.root()), after, "{label}");
        } else {
            assert!(
                now == after,
                "{label}: neither before nor after: {:?}",
                diff(&after, &before, &now)
            );
            n.before += 1;
            let undo = env.run(&["undo", &commit]);
            assert_eq!(undo.code, 0, "{label}: undo again: {}", undo.stdout);
            assert_eq!(tree(env.root()), before, "{label}");
        }
    }
    eprintln!("undo (clean {clean:?}): {n:?}");
}

/// The paths where `now` is neither as in `a` nor as in `b`, or mixes them.
fn diff(a: &Tree, b: &Tree, now: &Tree) -> Vec<String> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).chain(now.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| now.get(*k) != a.get(*k))
        .map(|k| {
            let tag = if now.get(k) == b.get(k) {
                "=b"
            } else {
                "neither"
            };
            format!("{k} {tag}")
        })
        .collect()
}
