//! AOI JSONL streaming (issue 15): a search's first event goes out before its scan
//! ends, the streamed results equal the envelope's, and files the scan passes over
//! are reported as `aoi:warning` events.

use super::aoi::{check_stream, jsonl, validator};
use crate::support::TestEnv;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Writes `data` into the named pipe once a reader has it open; false when none
/// opens it within 20 s (the search never reached it, or has ended).
fn feed(fifo: &Path, data: &[u8]) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        // Non-blocking: with no reader the open fails (ENXIO) instead of hanging.
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(fifo)
        {
            Ok(mut f) => return f.write_all(data).is_ok(),
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => return false,
        }
    }
}

/// The search is given a named pipe as its last PATH: until the test writes into
/// it, the scan cannot end. The first block (from a file before the pipe in path
/// order) must arrive in that window, while the process is still running; then the
/// pipe's text is searched too. The old whole-scan-first stream never printed a
/// block before the scan ended (and ignored the pipe), so this fails on it.
#[test]
fn aoi_search_streams_its_first_block_before_the_scan_ends() {
    let env = TestEnv::new();
    env.write("a/one.txt", "needle one\n");
    for i in 0..20 {
        env.write(&format!("a/m{i:02}.txt"), "no match here\n");
    }
    let fifo = env.path("z.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let mut child = env
        .command(&["search", "needle", "a", "z.fifo", "--output", "jsonl"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn aitools");
    let out = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    let mut first = None;
    while first.is_none() {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(l) => {
                let v: Value = serde_json::from_str(&l).expect("a JSON line");
                lines.push(l);
                if !v["type"].as_str().unwrap_or("aoi:").starts_with("aoi:") {
                    first = Some(v);
                }
            }
            Err(_) => break,
        }
    }
    // Nothing has been written into the pipe yet: the scan is still waiting on it.
    let running = child.try_wait().expect("try_wait").is_none();
    let fed = feed(&fifo, b"a needle in the pipe\n");
    lines.extend(rx.iter());
    let status = child.wait().expect("wait");
    reader.join().expect("reader");
    let first = first.expect("a domain event before the scan ended");
    assert_eq!(first["type"], "block", "{first}");
    assert_eq!(first["path"], "a/one.txt");
    assert!(running, "the first block came before the scan ended");
    assert!(fed, "the search read the named pipe after its first block");
    assert_eq!(status.code(), Some(0), "{lines:?}");
    let s = super::aoi::Stream {
        code: 0,
        raw: lines.iter().map(|l| format!("{l}\n")).collect(),
        events: lines
            .iter()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect(),
        stderr: String::new(),
    };
    check_stream(&validator(&env), &s, "search with a named pipe");
    let paths: Vec<&Value> = s.of_type("block").iter().map(|b| &b["path"]).collect();
    assert_eq!(paths, ["a/one.txt", "z.fifo"]);
    // Every match was streamed and something was found: nothing is left for
    // a result event (no total_matches, no files_scanned).
    assert!(s.of_type("result").is_empty(), "{}", s.raw);
    let shown: usize = s
        .of_type("block")
        .iter()
        .map(|b| b["match_lines"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(shown, 2);
}

/// The streamed matches and blocks of a paged search over several starts are the
/// envelope's, in the same order, and the cursor is the envelope's continuation.
#[test]
fn aoi_search_stream_pages_equal_the_envelope() {
    let env = TestEnv::new();
    for d in ["b", "a/x", "a", "c/d/e"] {
        for i in 0..7 {
            env.write(
                &format!("{d}/f{i}.txt"),
                format!("hit {i}\nx\nhit again {d}\n\n\n\nhit\n"),
            );
        }
    }
    env.write("a.txt", "hit top\n");
    let cases: [&[&str]; 4] = [
        &["search", "hit", "--limit", "9", "--offset", "5"],
        &[
            "search", "hit", "c", "a", "b", "--limit", "40", "--offset", "3",
        ],
        &[
            "search", "hit", "--output", "matches", "--limit", "11", "--offset", "17",
        ],
        &["search", "hit", "a.txt", "a", "--limit", "500", "-C", "1"],
    ];
    let v = validator(&env);
    for args in cases {
        let s = jsonl(&env, args);
        check_stream(&v, &s, &args.join(" "));
        let r = env.run(args);
        let kind = if args.contains(&"matches") {
            "match"
        } else {
            "block"
        };
        let list = if kind == "match" { "matches" } else { "blocks" };
        let streamed: Vec<Value> = s
            .of_type(kind)
            .iter()
            .map(|b| {
                let mut b = (*b).clone();
                let o = b.as_object_mut().expect("object");
                o.remove("aoi");
                o.remove("type");
                b
            })
            .collect();
        assert!(!streamed.is_empty(), "{args:?}");
        assert_eq!(
            Value::Array(streamed),
            crate::support::expand_search(&r.json)[list],
            "{args:?}"
        );
        if let Some(next) = r.json["next_commands"].get(0) {
            assert_eq!(&s.summary()["next_cursor"], next, "{args:?}");
        }
    }
}

/// Files a search passes over are recoverable issues: one `aoi:warning` per
/// reason (code `skipped.<reason>`, the count and the first paths), counted in the
/// summary's warning_count, each valid against the schema's `aoi:warning` $def.
#[test]
fn aoi_skipped_files_are_warnings() {
    let env = TestEnv::new();
    env.write("a.txt", "hit\n");
    env.write("bin1.dat", b"\x00\x01hit\x00".as_slice());
    env.write("bin2.dat", b"\x00\x02\x00".as_slice());
    env.write("big.txt", "hit ".repeat(2000));
    let args = ["search", "hit", "--skip-larger-than", "1KiB"];
    let s = jsonl(&env, &args);
    check_stream(&validator(&env), &s, "search with skipped files");
    let warnings = s.of_type("aoi:warning");
    let codes: Vec<&Value> = warnings.iter().map(|w| &w["code"]).collect();
    assert_eq!(codes, ["skipped.binary", "skipped.too-large"], "{}", s.raw);
    assert_eq!(warnings[0]["count"], 2);
    // a.txt matched: the binary files are counted, not named (rg names none).
    assert_eq!(warnings[0]["examples"], serde_json::json!([]));
    assert_eq!(warnings[0]["message"], "2 paths passed over (binary).");
    assert_eq!(warnings[1]["target"], "big.txt");
    assert!(warnings[1]["message"].as_str().unwrap().contains("big.txt"));
    assert_eq!(s.summary()["warning_count"], 2);
    // The envelope's skipped list is the same facts.
    let r = env.run(&args);
    assert_eq!(r.json["skipped"][0]["count"], 2);
    // A clean search has no warning.
    let clean = jsonl(&env, &["search", "hit", "a.txt"]);
    assert!(clean.of_type("aoi:warning").is_empty());
    assert_eq!(clean.summary()["warning_count"], 0);
}

/// A named pipe given as a PATH is read into memory up to a cap (256 MiB);
/// `AITOOLS_PIPE_CAP` lowers it. A pipe holding more than the cap is not searched
/// and is listed in `skipped` as too-large; one within it is searched whole.
#[test]
fn a_named_pipe_over_the_cap_is_listed_as_too_large() {
    let env = TestEnv::new();
    env.write("a.txt", "needle in a file\n");
    let fifo = env.path("p.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    for (body, over) in [(vec![b'x'; 2048], true), (b"needle\n".to_vec(), false)] {
        let mut body = body;
        body.extend_from_slice(b"\nneedle\n");
        let child = env
            .command(&["search", "needle", "a.txt", "p.fifo"])
            .env("AITOOLS_PIPE_CAP", "1KiB")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn aitools");
        let fed = feed(&fifo, &body);
        let r = crate::support::parse(child.wait_with_output().expect("output"));
        assert!(fed, "the search opened the pipe");
        assert_eq!(r.code, 0, "{}", r.stderr);
        let skipped = &r.json["skipped"];
        if over {
            assert_eq!(crate::support::total_matches(&r.json), 1, "{}", r.json);
            assert_eq!(skipped[0]["reason"], "too-large", "{}", r.json);
            assert_eq!(skipped[0]["examples"][0], "p.fifo", "{}", r.json);
        } else {
            assert_eq!(crate::support::total_matches(&r.json), 3, "{}", r.json);
            assert!(skipped.is_null(), "{}", r.json);
        }
    }
}

/// The ordered walk visits its first files on the command thread (until one has
/// something to list, or 64 files) and hands the rest to the workers. Across that
/// boundary (a first match past the 64th file, a binary file and a match first)
/// the streamed blocks and matches are the envelope's, on one worker thread and
/// on several, and the counts are the same.
#[test]
fn aoi_search_across_the_first_files_equals_the_envelope() {
    let env = TestEnv::new();
    env.write("a/bin.dat", b"hit\x00\x01\x02 binary\n");
    env.write("a/first.txt", "hit first\n");
    for i in 0..150 {
        let body = if [70, 71, 140].contains(&i) {
            format!("x\nhit {i}\ny\n")
        } else {
            "nothing here\n".repeat(3)
        };
        env.write(&format!("b/f{i:03}.txt"), body);
    }
    env.write("c/last.txt", "hit c\n");
    let cases: [&[&str]; 5] = [
        &["search", "hit"],
        &["search", "hit", "b"],
        &["search", "hit", "b", "--limit", "1", "--offset", "1"],
        &["search", "hit", "--output", "matches", "--offset", "1"],
        &["search", "hit", "b", "c", "-C", "1"],
    ];
    for threads in ["1", "3"] {
        for args in cases {
            let mut a: Vec<&str> = args.to_vec();
            a.extend(["--output", "jsonl"]);
            let out = env
                .command(&a)
                .env("AITOOLS_THREADS", threads)
                .output()
                .expect("spawn");
            let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect();
            assert_eq!(events[0]["type"], "aoi:meta", "{args:?}");
            let r = env.run(args);
            let (kind, list) = if args.contains(&"matches") {
                ("match", "matches")
            } else {
                ("block", "blocks")
            };
            let streamed: Vec<Value> = events
                .iter()
                .filter(|e| e["type"] == kind)
                .map(|e| {
                    let mut e = e.clone();
                    let o = e.as_object_mut().expect("object");
                    o.remove("aoi");
                    o.remove("type");
                    e
                })
                .collect();
            assert!(!streamed.is_empty(), "{args:?}");
            assert_eq!(
                Value::Array(streamed),
                crate::support::expand_search(&r.json)[list],
                "{args:?} on {threads}"
            );
            // No result event when nothing is left to say.
            let result = events
                .iter()
                .find(|e| e["type"] == "result")
                .cloned()
                .unwrap_or(Value::Null);
            for key in ["total_matches", "files_scanned"] {
                assert_eq!(result[key], r.json[key], "{key} of {args:?} on {threads}");
            }
        }
    }
}
