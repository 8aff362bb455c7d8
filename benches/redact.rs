//! How much the secret mask adds to writing a large envelope: a 10 MB `read`-shaped
//! envelope is serialized and written to /dev/null with and without masking, in
//! alternating rounds; prints both times (best and median of 15) and the ratio.
//!
//! `cargo bench --bench redact` takes its lines from this crate's own sources (full
//! of `token`, `secret`, `password` as code uses them, private-key markers in tests,
//! and a few real secrets added); `cargo bench --bench redact -- PATH...` takes them
//! from the given files or directories instead (e.g. a crate's `src/`, a big `.py`
//! file, the tree `/work/shared/bench/make-corpus.py` makes).

use aitools::protocol::{Json, redact};
use std::io::Write;
use std::time::{Duration, Instant};

/// The text the envelope's lines come from: the files or directories named on the
/// command line (walked in name order), or by default this crate's own sources.
fn source_text() -> String {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let roots: Vec<std::path::PathBuf> = if args.is_empty() {
        [
            "src/protocol",
            "src/commands/inspect",
            "src/text",
            "src/workspace",
            "src/store",
        ]
        .iter()
        .map(Into::into)
        .collect()
    } else {
        args.iter().map(Into::into).collect()
    };
    let mut src = String::new();
    let mut stack: Vec<std::path::PathBuf> = roots.into_iter().rev().collect();
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            let mut entries: Vec<_> = std::fs::read_dir(&p)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            entries.sort();
            stack.extend(entries.into_iter().rev());
        } else if let Ok(bytes) = std::fs::read(&p) {
            src.push_str(&String::from_utf8_lossy(&bytes));
            if src.len() > 12 * 1024 * 1024 {
                break;
            }
        }
    }
    src
}

fn corpus(synthetic_secrets: bool) -> Vec<String> {
    let src = source_text();
    let mut lines = Vec::new();
    let mut size = 0usize;
    let mut i = 0usize;
    let base: Vec<&str> = src.lines().collect();
    while size < 10 * 1024 * 1024 {
        let mut l = base[i % base.len()].to_string();
        if synthetic_secrets && i.is_multiple_of(5000) {
            l.push_str(" api_key=abcdef123456 ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5");
        }
        size += l.len() + 3;
        lines.push(l);
        i += 1;
    }
    lines
}

fn envelope(lines: &[String]) -> Json {
    let mut env = Json::obj();
    env.push("schema_version", Json::Int(1));
    env.push("status", Json::str("ok"));
    env.push("command", Json::str("read"));
    env.push(
        "lines",
        Json::Arr(lines.iter().map(|l| Json::str(l.clone())).collect()),
    );
    env
}

fn best(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    (0..runs).map(|_| f()).min().unwrap_or_default()
}

#[derive(serde::Serialize)]
struct Out<'a> {
    mode: &'static str,
    path: &'static str,
    start_line: u64,
    lines: &'a [String],
}

fn main() {
    let files_given = std::env::args().skip(1).any(|a| !a.starts_with("--"));
    let lines = corpus(!files_given);
    let mut sink = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap();
    // Writing: the handler's output struct to the ordered tree, to text, to a file;
    // once plainly and once through the mask (as the envelope writer does). Both
    // runs of a round start from a fresh copy of the tree (made and dropped outside
    // the timing) so the allocator is in the same state for both.
    let out = Out {
        mode: "text",
        path: "big.rs",
        start_line: 1,
        lines: &lines,
    };
    let build = best(9, || {
        let t = Instant::now();
        let tree = Json::from_serialize(&out);
        let e = t.elapsed();
        drop(tree);
        e
    });
    let tree = Json::from_serialize(&out);
    let mut bytes = 0;
    let mut masked_count = 0;
    let (mut plain, mut masked) = (Vec::new(), Vec::new());
    for _ in 0..15 {
        let copy = tree.clone();
        let t = Instant::now();
        let text = copy.to_string_compact();
        sink.write_all(text.as_bytes()).unwrap();
        plain.push(t.elapsed());
        bytes = text.len();
        drop(text);
        drop(copy);
        let mut copy = tree.clone();
        let t = Instant::now();
        let (text, n) = redact::write_masked(&mut copy);
        sink.write_all(text.as_bytes()).unwrap();
        masked.push(t.elapsed());
        masked_count = n;
        drop(text);
        drop(copy);
    }
    plain.sort();
    masked.sort();
    let (write, with_mask) = (plain[0], masked[0]);
    let (write_med, with_mask_med) = (plain[plain.len() / 2], masked[masked.len() / 2]);
    let mask = with_mask.saturating_sub(write);
    let mask_med = with_mask_med.saturating_sub(write_med);
    // The per-tree mask (what `mask_tree` costs on its own), for comparison.
    let base = envelope(&lines);
    let mut tree_count = 0;
    let tree_mask = best(5, || {
        let mut tree = base.clone();
        let t = Instant::now();
        tree_count = redact::mask_tree(&mut tree);
        t.elapsed()
    });
    assert_eq!(tree_count, masked_count, "the two mask paths disagree");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "envelope {:.1} MB, {} lines, {} masked; build tree {:.1} ms; best of 15: serialize+write {:.2} ms, with mask {:.2} ms, mask adds {:.1}% (target <= 25%), {:.1}% of build+serialize+write; median: {:.2} vs {:.2} ms, {:.1}%; mask_tree alone {:.1} ms",
        bytes as f64 / 1e6,
        lines.len(),
        masked_count,
        ms(build),
        ms(write),
        ms(with_mask),
        100.0 * mask.as_secs_f64() / write.as_secs_f64(),
        100.0 * mask.as_secs_f64() / (write + build).as_secs_f64(),
        ms(write_med),
        ms(with_mask_med),
        100.0 * mask_med.as_secs_f64() / write_med.as_secs_f64(),
        ms(tree_mask),
    );
}
