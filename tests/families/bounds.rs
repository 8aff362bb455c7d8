//! Bounded cost on hostile inputs (issue 28): nesting past the depth budget,
//! files too large to hold whole, patches that grow without end, numbers that
//! do not fit a float, and MCP requests that are malformed or huge. Each answer
//! is an envelope (or a JSON-RPC reply) within a memory budget, never a crash.

use crate::support::{Run, TestEnv, bin, parse};
use std::process::Command;

/// The budget every call here must stay under (peak resident set).
const BUDGET_KIB: u64 = 512 * 1024;

/// Runs aitools under `/usr/bin/time`; the answer and its peak RSS in KiB.
fn measured(env: &TestEnv, args: &[&str]) -> (Run, u64) {
    let out_file = env.path(".peak");
    let mut c = Command::new("/usr/bin/time");
    c.arg("-o")
        .arg(&out_file)
        .args(["-f", "%M"])
        .arg(bin())
        .args(args);
    let r = parse(env.isolate(c).output().expect("spawn /usr/bin/time"));
    let peak = std::fs::read_to_string(&out_file).unwrap_or_default();
    let kib = peak
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0);
    let _ = std::fs::remove_file(&out_file);
    (r, kib)
}

fn nested(open: &str, close: &str, n: usize) -> String {
    format!("{}{}", open.repeat(n), close.repeat(n))
}

#[test]
fn check_refuses_toml_nested_past_the_budget_without_crashing() {
    let env = TestEnv::new();
    env.write("deep.toml", format!("a = {}\n", nested("[", "]", 20_000)));
    env.write(
        "inline.toml",
        format!(
            "a = {}\n",
            nested("{b=", "}", 20_000).replacen("{b=}", "{b=1}", 1)
        ),
    );
    env.write("ok.toml", format!("a = {}\n", nested("[", "]", 100)));
    for f in ["deep.toml", "inline.toml"] {
        let r = env.run(&["check", f]);
        assert_eq!(
            r.error_code(),
            "input.syntax-error",
            "{f}: {}{}",
            r.stdout,
            r.stderr
        );
        let msg = r.json["error"]["diagnostics"][0]["message"]
            .as_str()
            .unwrap_or("");
        assert!(msg.contains("nesting deeper"), "{msg}");
    }
    assert_eq!(env.run(&["check", "ok.toml"]).code, 0);
}

#[test]
fn whole_file_commands_refuse_a_huge_sparse_file_before_reading_it() {
    let env = TestEnv::new();
    let f = std::fs::File::create(env.path("big.json")).expect("create");
    f.set_len(1 << 30).expect("sparse 1 GiB");
    for args in [
        &["edit", "big.json", "--old", "a", "--new", "b"][..],
        &["check", "big.json"],
        &["json", "get", "big.json", "/a"],
    ] {
        let (r, kib) = measured(&env, args);
        assert_eq!(
            r.error_code(),
            "refusal.too-large",
            "{args:?}: {}",
            r.stdout
        );
        assert!(kib < BUDGET_KIB / 4, "{args:?}: peak {kib} KiB");
        let repair = r.json["error"]["repairs"][0]["command"]
            .as_str()
            .unwrap_or("");
        assert!(repair.starts_with("aitools read big.json"), "{repair}");
    }
}
