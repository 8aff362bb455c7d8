//! `search` over named pipes given as PATHs: a FIFO no process writes to (one a
//! shell glob picked up) is passed over as `no-writer` within a bound instead of
//! waiting forever; a pipe with a writer (`<(cmd)`, a FIFO a process opens) is
//! read whole. And the count of files with nothing selected (no longer kept
//! until the end) is the count of files searched, on nested starts too.

use super::adversary_state::{mkfifo, run_bounded};
use crate::support::{self, TestEnv};
use std::io::Write;
use std::time::{Duration, Instant};

#[test]
fn a_fifo_without_a_writer_is_skipped_within_two_seconds() {
    let env = TestEnv::new();
    env.write("a.txt", "hello needle\n");
    mkfifo(&env.path("pipe"));
    for args in [
        &["search", "needle", "pipe"][..],
        &["search", "needle", "a.txt", "pipe"],
    ] {
        let t = Instant::now();
        let r = run_bounded(&env, args, 10);
        let took = t.elapsed();
        assert!(took < Duration::from_secs(2), "{args:?} took {took:?}");
        assert_eq!(r.code, 0, "{}", r.stdout);
        let skipped = &r.json["skipped"];
        assert_eq!(skipped[0]["reason"], "no-writer", "{}", r.stdout);
        assert_eq!(skipped[0]["examples"][0], "pipe", "{}", r.stdout);
        let want = if args.len() == 4 { 1 } else { 0 };
        assert_eq!(crate::support::total_matches(&r.json), want, "{}", r.stdout);
    }
}

#[test]
fn a_fifo_whose_writer_comes_later_is_read() {
    let env = TestEnv::new();
    let fifo = env.path("pipe");
    mkfifo(&fifo);
    let writer = std::thread::spawn(move || {
        // Blocks until the search opens the pipe for reading.
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&fifo)
            .expect("open the FIFO for writing");
        std::thread::sleep(Duration::from_millis(300));
        f.write_all(b"one\nlate needle\n").expect("write");
    });
    let r = run_bounded(&env, &["search", "needle", "pipe"], 20);
    writer.join().expect("writer");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(crate::support::total_matches(&r.json), 1, "{}", r.stdout);
    assert_eq!(r.json["blocks"][0]["path"], "pipe", "{}", r.stdout);
    assert_eq!(
        r.json["blocks"][0]["lines"][0], "2:late needle",
        "{}",
        r.stdout
    );
    assert!(r.json.get("skipped").is_none(), "{}", r.stdout);
}

/// `<(cmd)` is /dev/fd/N, a link to a pipe with no path of its own: it was
/// refused as a dangling link before.
#[test]
fn process_substitution_is_searched() {
    let env = TestEnv::new();
    env.write("a.txt", "needle in a file\n");
    for (script, total) in [
        (
            "exec \"$AITOOLS\" search needle <(printf 'x\\na needle\\n')",
            1,
        ),
        (
            "exec \"$AITOOLS\" search needle a.txt <(sleep 0.5; printf 'slow needle\\n')",
            2,
        ),
    ] {
        let mut c = std::process::Command::new("bash");
        c.args(["-c", script]).env("AITOOLS", support::bin());
        let r = support::parse(env.isolate(c).output().expect("spawn bash"));
        assert_eq!(r.code, 0, "{script}: {}", r.stdout);
        assert_eq!(
            crate::support::total_matches(&r.json),
            total,
            "{script}: {}",
            r.stdout
        );
        let blocks = r.json["blocks"].as_array().expect("blocks");
        assert!(
            blocks.iter().any(|b| b["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("/dev/fd/"))),
            "{script}: {}",
            r.stdout
        );
        assert!(r.json.get("skipped").is_none(), "{script}: {}", r.stdout);
    }
}

#[test]
fn files_scanned_is_said_only_when_nothing_was_selected() {
    let env = TestEnv::new();
    env.write("a/hit.txt", "needle\n");
    for i in 0..5 {
        env.write(&format!("a/miss{i}.txt"), "hay\n");
    }
    env.write("b/miss.txt", "hay\n");
    // Something selected: how many files were searched says nothing new.
    // Nothing selected: every file searched counts, each once.
    for (args, scanned) in [
        (&["search", "needle"][..], -1),
        (&["search", "needle", "a/miss0.txt", "a/hit.txt"], -1),
        (&["search", "needle", "--output", "count"], -1),
        (&["search", "needle", "--output", "files-without-match"], -1),
        (&["search", "nowhere"], 7),
        (&["search", "nowhere", "a"], 6),
        // Nested and repeated starts: each file once.
        (&["search", "nowhere", ".", "a", "a/miss0.txt"], 7),
        (&["search", "nowhere", "a/miss0.txt"], 1),
        (&["search", "nowhere", "--output", "count"], 7),
        (&["search", "nowhere", "--output", "files-without-match"], 7),
    ] {
        let r = env.run(args);
        let want = if scanned < 0 {
            serde_json::Value::Null
        } else {
            scanned.into()
        };
        assert_eq!(r.json["files_scanned"], want, "{args:?}: {}", r.stdout);
    }
    let r = env.run(&["search", "needle", "--output", "files-without-match"]);
    assert_eq!(r.json["total"], 6, "{}", r.stdout);
}

/// A `<(cmd)` whose command wrote nothing and exited before aitools opened it
/// (`<(true)`, a grep that found nothing): the pipe's writer is gone for good,
/// so it is searched at once (0 matches), not passed over as `no-writer` after
/// a wait. Here the pipe is stdin with its write end closed, named `/dev/stdin`.
#[test]
fn a_pipe_whose_writer_already_exited_reads_as_empty_at_once() {
    use std::os::fd::FromRawFd;
    let env = TestEnv::new();
    env.write("a.txt", "needle\n");
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe() writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    // SAFETY: fresh descriptors this test owns; the write end closes unused.
    let read_end = unsafe {
        libc::close(fds[1]);
        std::process::Stdio::from(std::os::fd::OwnedFd::from_raw_fd(fds[0]))
    };
    let t = Instant::now();
    let out = env
        .command(&["search", "needle", "a.txt", "/dev/stdin"])
        .stdin(read_end)
        .output()
        .expect("spawn aitools");
    let took = t.elapsed();
    let r = support::parse(out);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(crate::support::total_matches(&r.json), 1, "{}", r.stdout);
    assert!(r.json.get("skipped").is_none(), "{}", r.stdout);
    assert!(took < Duration::from_millis(900), "took {took:?}");
}
