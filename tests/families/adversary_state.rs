//! Adversarial black-box tests of the state directory (packs, loose blobs,
//! intent records, the journal and its id index, the usage counter): what a
//! flaky disk, a stray tool or a hostile user leaves there must give one
//! envelope within a bounded time (never a hang holding the workspace lock),
//! and never change a workspace file.

use crate::support::{self, Run, TestEnv};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `aitools args` and fails the test when it has not answered within
/// `secs` (the child is killed first): a command must never block.
pub fn run_bounded(env: &TestEnv, args: &[&str], secs: u64) -> Run {
    let mut child = env
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn aitools");
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if child.try_wait().expect("wait").is_some() {
            return support::parse(child.wait_with_output().expect("output"));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("aitools {args:?} did not answer within {secs} s (blocked)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    let ok = Command::new("mkfifo")
        .args(["-m", "600"])
        .arg(p)
        .status()
        .expect("mkfifo")
        .success();
    assert!(ok, "mkfifo {}", p.display());
}

const FILES: [&str; 3] = ["a.txt", "d/b.txt", "d/c.txt"];

fn before(i: usize) -> String {
    format!("file {i}\nline two\nline three\n")
}

/// Three files and one packed apply over them; its op id.
fn packed_op(env: &TestEnv) -> String {
    let mut diff = String::new();
    for (i, f) in FILES.iter().enumerate() {
        env.write(f, before(i));
        diff.push_str(&format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1,3 +1,3 @@\n file {i}\n-line two\n+line 2 of {i}\n line three\n"
        ));
    }
    env.run_stdin(&["apply", "--stdin", "--strip", "1"], diff.as_bytes())
        .op_id()
}

fn workspace(env: &TestEnv) -> Vec<Vec<u8>> {
    FILES.iter().map(|f| env.read(f)).collect()
}

/// A FIFO where the store keeps a regular file (a pack, a loose blob, an
/// intent record): `undo`, `diff --op`, `history`, `gc` and a new write each
/// answer one envelope in bounded time, and no workspace file changes unless
/// the command said ok.
#[test]
fn a_fifo_in_the_state_directory_never_blocks_a_command() {
    for place in [
        "pack",
        "loose blob",
        "intent record",
        "journal",
        "journal id index",
        "usage counter",
    ] {
        let env = TestEnv::new();
        let mut op = packed_op(&env);
        let state = env.ws_state();
        match place {
            "pack" => {
                let dir = state.join("blobs").join("packs");
                let name = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap();
                mkfifo(&name.path());
            }
            "loose blob" => {
                // A one-file op keeps its before-image loose.
                op = env
                    .run(&["edit", "a.txt", "--old", "file 0", "--new", "FILE 0"])
                    .op_id();
                let blob = std::fs::read_dir(state.join("blobs"))
                    .unwrap()
                    .flatten()
                    .find(|e| e.path().is_file())
                    .expect("a loose blob");
                mkfifo(&blob.path());
            }
            "intent record" => {
                let name = "op-20261201T000000Z-0badf1f0.intent";
                mkfifo(&state.join("commit").join(name));
            }
            "journal" => mkfifo(&state.join("journal").join("journal.jsonl")),
            "journal id index" => {
                let ids = state.join("journal").join("ids");
                let name = std::fs::read_dir(&ids).unwrap().next().unwrap().unwrap();
                mkfifo(&name.path());
            }
            _ => mkfifo(&state.join("usage")),
        }
        let calls: [&[&str]; 5] = [
            &["undo", &op],
            &["diff", "--op", &op],
            &["history"],
            &["gc"],
            &["edit", "d/c.txt", "--old", "three", "--new", "3"],
        ];
        for args in calls {
            let was = workspace(&env);
            let r = run_bounded(&env, args, 20);
            eprintln!("{place}: {args:?}: {}{}", r.stdout, r.stderr);
            if r.code != 0 {
                assert_eq!(workspace(&env), was, "{place}: {args:?} failed and wrote");
            } else if place == "loose blob" && args[0] == "diff" {
                // The before-image cannot be read: never shown as empty.
                assert!(!r.stdout.contains("@@ -0,0 "), "{place}: {}", r.stdout);
            } else if place == "journal" && args[0] != "history" {
                panic!(
                    "{place}: {args:?} answered ok with no journal to record it: {}",
                    r.stdout
                );
            }
        }
    }
}
