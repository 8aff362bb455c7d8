//! How much the secret mask adds to writing a large envelope: a 10 MB `read`-shaped
//! envelope (source lines, with the trigger words `token`, `secret`, `password`
//! appearing as code does, and a few real secrets) is serialized and written to
//! /dev/null with and without masking. Run: `cargo bench --bench redact`.

use aitools::protocol::{Json, redact};
use std::io::Write;
use std::time::{Duration, Instant};

fn corpus() -> Vec<String> {
    let mut src = String::new();
    for dir in [
        "src/protocol",
        "src/commands/inspect",
        "src/text",
        "src/workspace",
        "src/store",
    ] {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            src.push_str(&std::fs::read_to_string(p).unwrap_or_default());
        }
    }
    let mut lines = Vec::new();
    let mut size = 0usize;
    let mut i = 0usize;
    let base: Vec<&str> = src.lines().collect();
    while size < 10 * 1024 * 1024 {
        let mut l = base[i % base.len()].to_string();
        if i % 5000 == 0 {
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
    let lines = corpus();
    let mut sink = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap();
    // Writing: the handler's output struct to the ordered tree, to text, to a file;
    // once plainly and once through the mask (as the envelope writer does).
    let out = Out {
        mode: "text",
        path: "big.rs",
        start_line: 1,
        lines: &lines,
    };
    let mut bytes = 0;
    let build = best(9, || {
        let t = Instant::now();
        let tree = Json::from_serialize(&out);
        let e = t.elapsed();
        drop(tree);
        e
    });
    let tree = Json::from_serialize(&out);
    let write = best(9, || {
        let t = Instant::now();
        let text = tree.to_string_compact();
        sink.write_all(text.as_bytes()).unwrap();
        bytes = text.len();
        t.elapsed()
    });
    let mut masked_count = 0;
    let masked = best(9, || {
        let mut copy = tree.clone();
        let t = Instant::now();
        let (text, n) = redact::write_masked(&mut copy);
        sink.write_all(text.as_bytes()).unwrap();
        masked_count = n;
        t.elapsed()
    });
    let mask = masked.saturating_sub(write);
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
    println!(
        "envelope {:.1} MB, {} lines, {} masked: build tree {:.1} ms, serialize+write {:.1} ms, with mask {:.1} ms: mask adds {:.0}% to serialize+write, {:.0}% to build+serialize+write (target <= 25%; mask_tree alone {:.1} ms)",
        bytes as f64 / 1e6,
        lines.len(),
        masked_count,
        build.as_secs_f64() * 1e3,
        write.as_secs_f64() * 1e3,
        masked.as_secs_f64() * 1e3,
        100.0 * mask.as_secs_f64() / write.as_secs_f64(),
        100.0 * mask.as_secs_f64() / (write + build).as_secs_f64(),
        tree_mask.as_secs_f64() * 1e3,
    );
}
