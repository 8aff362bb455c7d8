//! `--output jsonl` with a stdout that cannot take the stream: a full disk
//! (`/dev/full`, ENOSPC) must not hide what the call did. stderr gets one
//! `environment.output-lost` envelope naming the op a write landed as (repairs
//! `diff --op`, `undo`), or saying a read changed nothing; the exit code is the
//! mode's category code for it (74). A closed pipe (EPIPE) stays quiet.

use crate::support::TestEnv;
use serde_json::Value;
use std::fs::File;
use std::process::{Output, Stdio};

/// `aitools --output jsonl args` with stdout on `/dev/full`.
pub fn to_full(env: &TestEnv, args: &[&str]) -> Output {
    let full = File::options()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    env.command(args)
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .expect("spawn aitools")
}

/// A stdout whose reader is gone: the write end of a pipe whose read end is closed.
pub fn closed_pipe() -> Stdio {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe() writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    // SAFETY: both are fresh descriptors this test owns.
    unsafe {
        libc::close(fds[0]);
        Stdio::from(std::os::fd::OwnedFd::from_raw_fd(fds[1]))
    }
}

/// The one stderr line, an `environment.output-lost` envelope.
pub fn lost(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(text.lines().count(), 1, "one stderr line: {text}");
    let v: Value = serde_json::from_str(text.trim_end()).expect("stderr is one JSON envelope");
    assert_eq!(v["error"]["code"], "environment.output-lost", "{v}");
    v
}

pub fn repairs(v: &Value) -> Vec<String> {
    v["error"]["repairs"]
        .as_array()
        .expect("repairs")
        .iter()
        .filter_map(|r| r["command"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_jsonl_write_to_a_full_stdout_names_its_op_on_stderr() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\n");
    let out = to_full(
        &env,
        &[
            "--output", "jsonl", "edit", "a.txt", "--old", "two", "--new", "TWO",
        ],
    );
    assert_eq!(out.status.code(), Some(74), "{out:?}");
    assert_eq!(env.read("a.txt"), b"one\nTWO\n");
    let v = lost(&out);
    let op = env.run(&["history"]).json["items"][0]["op_id"]
        .as_str()
        .expect("the edit is journaled")
        .to_string();
    let msg = v["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains(&format!("landed as {op}")), "{msg}");
    let r = repairs(&v);
    assert_eq!(
        r,
        [
            format!("aitools diff --op {op}"),
            format!("aitools undo {op}")
        ]
    );
    let undo = env.run_line(&r[1]);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert_eq!(env.read("a.txt"), b"one\ntwo\n");
}

#[test]
fn a_jsonl_read_to_a_full_stdout_says_it_changed_nothing() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\n");
    let out = to_full(&env, &["--output", "jsonl", "search", "--pattern", "one"]);
    assert_eq!(out.status.code(), Some(74), "{out:?}");
    let v = lost(&out);
    let msg = v["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("changed nothing"), "{msg}");
    assert_eq!(repairs(&v), ["aitools --output jsonl search --pattern one"]);
}

/// A tx begun with the stream lost: stderr names the tx (the call acted).
#[test]
fn a_jsonl_tx_begin_to_a_full_stdout_names_its_tx() {
    let env = TestEnv::new();
    let out = to_full(&env, &["--output", "jsonl", "tx", "begin"]);
    assert_eq!(out.status.code(), Some(74), "{out:?}");
    let v = lost(&out);
    let r = repairs(&v);
    assert!(
        r.len() == 1 && r[0].starts_with("aitools tx status tx-"),
        "{r:?}"
    );
    let status = env.run_line(&r[0]);
    assert_eq!(status.code, 0, "{}", status.stderr);
}

#[test]
fn a_jsonl_write_to_a_closed_pipe_lands_quietly() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let out = env
        .command(&[
            "--output", "jsonl", "edit", "a.txt", "--old", "one", "--new", "ONE",
        ])
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .output()
        .expect("spawn aitools");
    assert_eq!(env.read("a.txt"), b"ONE\n");
    assert!(out.stderr.is_empty(), "{out:?}");
    assert_eq!(out.status.code(), Some(141), "{out:?}");
}
