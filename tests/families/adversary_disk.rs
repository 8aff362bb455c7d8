//! Adversarial black-box tests of a full or failing disk under a multi-file
//! apply and a one-file edit: ENOSPC on every `write` (the intent record, the
//! temps, the journal append), ENOSPC on every file and directory creation and
//! every before-image link, EIO on every rename, link and data sync (strace
//! fault injection). Each faulted run must print exactly one envelope (an error's
//! repairs naming an aitools command); after the next command's recovery
//! (and `recover` when a record stays pending) the tree is wholly before or
//! wholly after, no temp or intent record is left, an error that left the
//! files changed says the write is pending, and an op that answered ok undoes.

#[path = "../support/crash.rs"]
mod harness;

use crate::support::{self, Run};
use harness::{Baseline, Case, argv, counts};

/// `aitools argv` under strace with one fault injected, parsed by the
/// one-envelope check.
fn faulted(c: &Case, spec: &str, argv: &[String], stdin: Option<&[u8]>) -> Run {
    let opts = [
        "-o".to_string(),
        "/dev/null".to_string(),
        "-e".to_string(),
        format!("trace={}", harness::SYSCALLS),
        "-e".to_string(),
        format!("inject={spec}"),
    ];
    support::parse(c.strace_output(&opts, argv, stdin))
}

/// Runs every fault of `faults` (syscall, errno) at each of its invocations
/// in the clean run (the last `write`, the envelope itself, excepted).
fn sweep(c: &Case, b: &Baseline, stdin: Option<&[u8]>, faults: &[(&str, &str)]) -> usize {
    let n = counts(&b.seq);
    let mut runs = 0;
    for (sys, errno) in faults {
        let mut k = n.get(*sys).copied().unwrap_or(0);
        if *sys == "write" {
            k = k.saturating_sub(1);
        }
        for i in 1..=k {
            c.restore();
            let label = format!("{errno} on {sys} #{i}");
            let r = faulted(c, &format!("{sys}:error={errno}:when={i}"), &b.argv, stdin);
            runs += 1;
            let next = c.run(&["history"]);
            assert_eq!(next.code, 0, "{label}: history failed: {}", next.stderr);
            if next.json["pending_recovery"].is_array() {
                let rec = c.run(&["recover"]);
                assert_eq!(rec.code, 0, "{label}: recover failed: {}", rec.stderr);
            }
            let applied = c.before_or_after(b, &label);
            if r.code == 0 {
                assert!(
                    applied,
                    "{label}: answered ok, files unchanged: {}",
                    r.stdout
                );
                let op = r.json["op_id"].as_str().expect("op_id");
                let u = c.run(&["undo", op]);
                assert_eq!(u.code, 0, "{label}: undo failed: {}", u.stderr);
                assert_eq!(c.tree(), b.before, "{label}: undo did not restore");
            } else if applied {
                // Failed, yet applied: only a committed write that is pending
                // may say so (recover finished it).
                assert_eq!(
                    r.error_code(),
                    "environment.recovery-pending",
                    "{label}: an error envelope, and the files changed: {}",
                    r.stderr
                );
            }
        }
    }
    runs
}

const FAULTS: &[(&str, &str)] = &[
    ("write", "ENOSPC"),
    ("openat", "ENOSPC"),
    ("mkdir", "ENOSPC"),
    ("rename", "EIO"),
    ("renameat", "EIO"),
    ("fdatasync", "EIO"),
    ("unlink", "EIO"),
    ("linkat", "ENOSPC"),
    ("linkat", "EIO"),
];

#[test]
fn a_full_or_failing_disk_under_a_multi_file_apply_leaves_before_or_after() {
    let c = Case::new();
    let mut diff = String::new();
    for i in 0..3 {
        let f = format!("d{i}/f{i}.txt");
        c.put(&f, &format!("file {i}\nline two\nline three\n"));
        diff.push_str(&format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1,3 +1,3 @@\n file {i}\n-line two\n+line 2 of {i}\n line three\n"
        ));
    }
    // The state directory is fresh: the apply makes it (and links the
    // before-images into `blobs/`).
    let args = argv(&["apply", "--stdin", "--strip", "1"]);
    c.save();
    let b = c.baseline(args, Some(diff.as_bytes()), "apply");
    c.restore();
    let packs = c.ws_state().map(|s| s.join("blobs").join("packs"));
    assert!(packs.is_none(), "the state directory must start fresh");
    let runs = sweep(&c, &b, Some(diff.as_bytes()), FAULTS);
    assert!(runs >= 20, "only {runs} faulted runs");
}

#[test]
fn a_full_or_failing_disk_under_an_edit_leaves_before_or_after() {
    let c = Case::new();
    c.put("a.txt", "alpha\nbeta\n");
    // An earlier op: the state directory exists, the edit appends to a journal.
    c.ok(&["write", "b.txt", "--content", "b\n"]);
    let args = argv(&["edit", "a.txt", "--old", "beta", "--new", "BETA"]);
    c.save();
    let b = c.baseline(args, None, "edit");
    c.restore();
    let runs = sweep(&c, &b, None, FAULTS);
    assert!(runs >= 8, "only {runs} faulted runs");
}
