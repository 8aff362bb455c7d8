//! Adversarial black-box tests of where the answer goes: a stdout that cannot
//! take the envelope (a full disk, an I/O error; here `/dev/full`) must never
//! hide what the call did. stderr gets `environment.output-lost` (exit 1) with
//! the op a write landed as, and its repairs work as given.

use crate::support::{self, Run, TestEnv};
use std::fs::File;

/// `aitools args > /dev/full`, parsed by the one-envelope rule (exit 1: the
/// envelope is on stderr).
fn run_to_full(env: &TestEnv, args: &[&str]) -> Run {
    let full = File::options()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    let out = env
        .command(args)
        .stdout(full)
        .output()
        .expect("spawn aitools");
    support::parse(out)
}

fn repair_commands(r: &Run) -> Vec<String> {
    r.json["error"]["repairs"]
        .as_array()
        .expect("repairs")
        .iter()
        .filter_map(|x| x["command"].as_str().map(str::to_string))
        .collect()
}

/// A read whose answer stdout refuses: exit 1, the lost-answer error on stderr,
/// and the repair is the same read (it changed nothing).
#[test]
fn a_read_to_a_full_stdout_says_so_on_stderr() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\n");
    let r = run_to_full(&env, &["read", "a.txt"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.error_code(), "environment.output-lost", "{}", r.stderr);
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(
        msg.contains("stdout") && msg.contains("changed nothing"),
        "{msg}"
    );
    assert_eq!(repair_commands(&r), ["aitools read a.txt"]);
    // The repair, run as given (with a stdout that works), answers the read.
    let again = env.run_line("aitools read a.txt");
    assert_eq!(again.code, 0, "{}", again.stderr);
}

/// A write whose answer stdout refuses still lands; stderr names its op, and
/// the repairs (see it, undo it) work as given.
#[test]
fn a_write_to_a_full_stdout_lands_and_names_its_op() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\n");
    let r = run_to_full(&env, &["edit", "a.txt", "--old", "two", "--new", "TWO"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.error_code(), "environment.output-lost", "{}", r.stderr);
    assert_eq!(env.read("a.txt"), b"one\nTWO\n");
    let history = env.run(&["history"]);
    let op = history.json["items"][0]["op_id"]
        .as_str()
        .expect("the edit is journaled")
        .to_string();
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains(&format!("landed as {op}")), "{msg}");
    let repairs = repair_commands(&r);
    assert_eq!(
        repairs,
        [
            format!("aitools diff --op {op}"),
            format!("aitools undo {op}")
        ]
    );
    let diff = env.run_line(&repairs[0]);
    assert_eq!(diff.code, 0, "{}", diff.stderr);
    assert!(diff.stdout.contains("TWO"), "{}", diff.stdout);
    let undo = env.run_line(&repairs[1]);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert_eq!(env.read("a.txt"), b"one\ntwo\n");
}

/// Called with `--root` from elsewhere, the repairs keep `--root`: run as
/// given from that same directory, they reach the same workspace.
#[test]
fn the_repairs_of_a_lost_answer_keep_the_root() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let elsewhere = tempfile::tempdir().unwrap();
    let root = env.root().to_string_lossy().to_string();
    let file = env.path("a.txt").to_string_lossy().to_string();
    let full = File::options()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    let out = env
        .command(&[
            "--root", &root, "edit", &file, "--old", "one", "--new", "ONE",
        ])
        .current_dir(elsewhere.path())
        .stdout(full)
        .output()
        .expect("spawn aitools");
    let r = support::parse(out);
    assert_eq!(r.error_code(), "environment.output-lost", "{}", r.stderr);
    assert_eq!(env.read("a.txt"), b"ONE\n");
    let repairs = repair_commands(&r);
    let undo = &repairs[1];
    assert!(undo.starts_with("aitools --root "), "{repairs:?}");
    let words = undo.strip_prefix("aitools ").unwrap_or("");
    let out = env
        .isolate(std::process::Command::new("sh"))
        .args(["-c", &format!("exec \"$AITOOLS\" {words}")])
        .env("AITOOLS", support::bin())
        .current_dir(elsewhere.path())
        .output()
        .expect("spawn sh");
    let u = support::parse(out);
    assert_eq!(u.code, 0, "{}", u.stderr);
    assert_eq!(env.read("a.txt"), b"one\n");
}

/// A write staged in a tx: stderr names the tx, whose status shows the write.
#[test]
fn a_staged_write_to_a_full_stdout_names_its_tx() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let tx = env.tx_begin();
    let r = run_to_full(
        &env,
        &["edit", "a.txt", "--old", "one", "--new", "ONE", "--tx", &tx],
    );
    assert_eq!(r.error_code(), "environment.output-lost", "{}", r.stderr);
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains(&format!("staged in tx {tx}")), "{msg}");
    assert_eq!(repair_commands(&r), [format!("aitools tx status {tx}")]);
    assert_eq!(env.read("a.txt"), b"one\n");
    let status = env.run_line(&format!("aitools tx status {tx}"));
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert!(status.stdout.contains("a.txt"), "{}", status.stdout);
}

/// A closed pipe is not a failure to report: the reader left on purpose
/// (`aitools read x | head -c0`); the call ends with its own exit code and
/// nothing on stderr.
#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    let env = TestEnv::new();
    env.write("a.txt", "x\n".repeat(100_000));
    let mut child = env
        .command(&["read", "a.txt"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // ok, or partial when read's own limit cut the answer.
    assert!(matches!(out.status.code(), Some(0 | 3)), "{:?}", out.status);
}
