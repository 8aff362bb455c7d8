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
    if std::env::var_os("MASK_ONLY").is_some() {
        // For profiling: the mask alone, many times.
        let base = envelope(&lines);
        let mut trees: Vec<Json> = (0..10).map(|_| base.clone()).collect();
        let t = Instant::now();
        for tree in &mut trees {
            redact::mask_tree(tree);
        }
        println!("mask x10: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
        return;
    }
    let mut sink = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/null")
        .unwrap();
    let base = envelope(&lines);
    let bytes = base.to_string_compact().len();
    // Writing: the handler's output struct to the ordered tree, to text, to a file.
    let write = best(7, || {
        let t = Instant::now();
        let tree = Json::from_serialize(&Out {
            mode: "text",
            path: "big.rs",
            start_line: 1,
            lines: &lines,
        });
        let text = tree.to_string_compact();
        sink.write_all(text.as_bytes()).unwrap();
        t.elapsed()
    });
    let mut masked_count = 0;
    let mask = best(7, || {
        let mut tree = base.clone();
        let t = Instant::now();
        masked_count = redact::mask_tree(&mut tree);
        t.elapsed()
    });
    println!(
        "envelope {:.1} MB, {} lines, {} masked: write {:.1} ms, mask {:.1} ms, mask/write {:.0}% (target <= 25%)",
        bytes as f64 / 1e6,
        lines.len(),
        masked_count,
        write.as_secs_f64() * 1e3,
        mask.as_secs_f64() * 1e3,
        100.0 * mask.as_secs_f64() / write.as_secs_f64()
    );
}
