//! `read --tail` of a file over the 16 MiB inline-hash cap (issue 34 row 1): the
//! lines are read backwards from the end, as `tail` does, without reading the
//! whole file; what that does not learn (the line count, the hash) is answered
//! null with the `info` command that computes it. The lines equal `tail -n`'s,
//! CRLF and a missing final newline included, and a secret block that opens
//! before the window is masked in it.

use crate::support::{Run, TestEnv};
use serde_json::Value;
use std::process::Command;

/// Bytes over the 16 MiB cap: `count` numbered lines with `eol`, the last one
/// without it unless `trailing`.
fn big(count: usize, eol: &str, trailing: bool) -> Vec<u8> {
    let pad = "p".repeat(40);
    let mut out = String::with_capacity(count * 60);
    for i in 0..count {
        out.push_str(&format!("row {i:08} {pad}"));
        if trailing || i + 1 < count {
            out.push_str(eol);
        }
    }
    assert!(out.len() > 17 << 20);
    out.into_bytes()
}

/// `tail -n N` of the file, as lines without terminators (CR included, as the
/// file has it; the caller strips what read strips).
fn tail_n(env: &TestEnv, rel: &str, n: u64) -> Vec<String> {
    let out = Command::new("tail")
        .args(["-n", &n.to_string()])
        .arg(env.path(rel))
        .output()
        .expect("tail");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
        .collect()
}

fn not_counted(r: &Run, rel: &str) {
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["total_lines"], Value::Null, "{}", r.stdout);
    assert_eq!(r.json["start_line"], Value::Null, "{}", r.stdout);
    assert_eq!(r.json["hash"], Value::Null, "{}", r.stdout);
    let info = format!("aitools info {rel}");
    assert!(
        r.json["next_commands"]
            .as_array()
            .is_some_and(|a| a.iter().any(|c| c == info.as_str())),
        "{}",
        r.stdout
    );
}

#[test]
fn a_big_files_tail_equals_tail_n_and_says_the_count_was_not_computed() {
    let env = TestEnv::new();
    env.write("big.txt", big(380_000, "\n", true));
    for n in [1u64, 20, 80] {
        let r = env.run(&["read", "big.txt", "--tail", &n.to_string()]);
        not_counted(&r, "big.txt");
        assert_eq!(r.lines(), tail_n(&env, "big.txt", n), "--tail {n}");
    }
    // `--output jsonl`: one line event per line, unnumbered (never numbered from 1).
    let s = crate::families::aoi::jsonl(&env, &["read", "big.txt", "--tail", "2"]);
    let lines = s.of_type("line");
    assert_eq!(lines.len(), 2, "{}", s.raw);
    assert!(
        lines.iter().all(|l| l.get("line_number").is_none()),
        "{}",
        s.raw
    );
    assert_eq!(lines[1]["text"], tail_n(&env, "big.txt", 1)[0].as_str());
    // The continuation counts (and caches: read_cache.rs has the next tail).
    let info = env.run_line("aitools info big.txt");
    assert_eq!(info.json["lines"], 380_000);
}

#[test]
fn crlf_and_a_missing_final_newline_come_back_as_tail_n_shows_them() {
    let env = TestEnv::new();
    env.write("crlf.txt", big(370_000, "\r\n", true));
    env.write("open.txt", big(380_000, "\n", false));
    env.write("both.txt", big(370_000, "\r\n", false));
    for rel in ["crlf.txt", "open.txt", "both.txt"] {
        let r = env.run(&["read", rel, "--tail", "20"]);
        not_counted(&r, rel);
        let lines = r.lines();
        assert_eq!(lines, tail_n(&env, rel, 20), "{rel}");
        assert!(lines.iter().all(|l| !l.contains('\r')), "{rel}");
    }
}

/// A file over the cap with fewer lines than asked: every line, numbered from 1
/// (each longer than the 16384-byte display cap, so the answer fits an envelope).
#[test]
fn a_file_shorter_than_the_tail_gives_every_line() {
    let env = TestEnv::new();
    let line = "lorem ipsum ".repeat(3_400);
    let body: String = (0..450).map(|i| format!("{i:05} {line}\n")).collect();
    env.write("few.txt", &body);
    let r = env.run(&["read", "few.txt", "--tail", "1000", "--max-lines", "1000"]);
    assert_eq!(r.code, 3, "{}", &r.stdout[..300]);
    assert_eq!(r.json["start_line"], 1);
    assert_eq!(r.json["total_lines"], 450);
    assert_eq!(r.json["cut_lines"].as_array().map(Vec::len), Some(450));
    let lines = r.lines();
    assert_eq!(lines.len(), 450);
    assert!(lines[0].starts_with("00000 lorem"));
    assert!(lines[449].starts_with("00449 lorem"));
}

/// A YAML block scalar under `password: |` that opens before the tail's first
/// line: the value's lines the tail shows are masked, in a small file (forward
/// pass) and in one over the cap (read backwards).
#[test]
fn a_secret_block_opening_before_the_tail_is_masked() {
    let env = TestEnv::new();
    let block = "db:\n  password: |\n    correct horse battery\n    staple Tr0ub4dor\n    one more line\n  user: app\n";
    env.write("small.yaml", block);
    let mut large = big(380_000, "\n", true);
    large.extend_from_slice(block.as_bytes());
    env.write("large.yaml", &large);
    for rel in ["small.yaml", "large.yaml"] {
        let r = env.run(&["read", rel, "--tail", "3"]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        for s in ["Tr0ub4dor", "one more line"] {
            assert!(!r.stdout.contains(s), "{rel}: {s} leaked: {}", r.stdout);
        }
        assert!(
            r.json["redactions"].as_u64().unwrap_or(0) >= 1,
            "{}",
            r.stdout
        );
        assert_eq!(r.lines().last().map(String::as_str), Some("  user: app"));
    }
}

/// The bytes the process read from files (read/pread64 results under strace);
/// None where strace is missing or not permitted.
fn bytes_read(env: &TestEnv, args: &[&str]) -> Option<u64> {
    let log = env.path("strace.log");
    let mut c = Command::new("strace");
    c.args(["-f", "-qq", "-e", "trace=read,pread64", "-o"])
        .arg(&log)
        .arg(crate::support::bin())
        .args(args);
    let ok = env.isolate(c).output().ok()?.status.success();
    let text = std::fs::read_to_string(&log).ok()?;
    if !ok || text.is_empty() {
        return None;
    }
    let result = |l: &str| {
        l.rsplit_once(") = ")?
            .1
            .split(' ')
            .next()?
            .parse::<u64>()
            .ok()
    };
    Some(text.lines().filter_map(result).sum())
}

#[test]
fn a_big_files_tail_reads_a_few_blocks_not_the_file() {
    let env = TestEnv::new();
    let body = big(380_000, "\n", true);
    let size = body.len() as u64;
    env.write("big.txt", &body);
    let Some(read) = bytes_read(&env, &["read", "big.txt", "--tail", "20"]) else {
        eprintln!("strace unavailable here: skipped");
        return;
    };
    assert!(read < 4 << 20, "{read} of {size} bytes read");
}
