//! README tells the truth: every `aitools ...` command it shows is checked. Each
//! line of its ```` ```sh ```` blocks runs, in order, through `sh` (pipes, `$(...)`
//! and `"$tx"` as a reader would type them) in a fixture holding the files the
//! examples name, and must succeed (exit 0 or 3) unless `EXPECT` says which error
//! the text promises; the output fields its comment names must be in the answer.
//! The servers (`STATIC_ONLY`) and every other `aitools ...` (prose spans, other
//! blocks) are checked statically: the command exists and takes every flag.

use super::agent_examples::{Registry, blocks, check_static, spans, split};
use crate::support::{TestEnv, bin, parse};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

/// Lines (a unique part of them) that must fail, and the code the text promises.
const EXPECT: &[(&str, &str)] = &[
    // "refuses a change that breaks the parse"
    ("--syntax-guard", "refusal.syntax-broken"),
    // "only while line 12 still carries that tag": the tag shown is an example.
    ("--at 12:k3f", "refusal.target-changed"),
];

/// Lines shown but not run: servers that wait for a client, and a pipe whose
/// input is the work tree's own change (applying it again cannot succeed).
const STATIC_ONLY: &[&str] = &[
    "aitools console",
    "aitools mcp",
    "aitools oui connect",
    "git diff | aitools apply",
];

/// The files README's examples name.
fn fixture(env: &TestEnv) {
    let body: String = (1..=120)
        .map(|i| format!("    let v{i} = {i};\n"))
        .collect();
    env.write(
        "src/main.rs",
        format!("fn main() {{\n{body}    on_click_handler();\n}}\n\nfn on_click_handler() {{}}\n"),
    );
    env.write(
        "src/lib.rs",
        "pub fn parse_range(s: &str) -> usize {\n    s.len()\n}\n\npub fn first() -> usize {\n    parse_range(\"a\")\n}\n",
    );
    let names: String = (0..14)
        .map(|i| format!("let old_name_{i} = old_name;\n"))
        .collect();
    env.write(
        "src/names.rs",
        format!("fn f() {{\n{}}}\n", names.replace("old_name_", "v")),
    );
    env.write(
        "src/workspace/root.rs",
        "pub struct Ctx {\n    pub root: String,\n}\n\nimpl Ctx {}\n",
    );
    env.write(
        "src/a.rs",
        "fn f(x: i32) -> i32 {\n    g(x)\n}\n\nfn g(x: i32) -> i32 {\n    x\n}\n",
    );
    env.write("src/a.py", "def f(x):\n    return x\n");
    let log: String = (1..=6000).map(|i| format!("line {i}\n")).collect();
    env.write("big.log", log);
    env.write(
        "notes.md",
        "# Notes\n\n## Setup\n\nrun it\n\n## Use\n\nTODO: more\n",
    );
    env.write(
        "data.bin",
        (0..5000u32).map(|i| (i % 251) as u8).collect::<Vec<u8>>(),
    );
    let mut exe = vec![0u8; 64];
    exe.extend_from_slice(b"a readable string inside\0\x01\x02more text here\0");
    env.write("app.exe", exe);
    env.write("legacy.txt", b"\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd\n");
    let app: String = (3..=14).map(|i| format!("x{i} = {i}\n")).collect();
    env.write("app.py", format!("print(\"hello\")\n\n{app}"));
    env.write("a.py", "foo = 1\nx = 2\n");
    env.write("README.md", "# Demo\n");
    env.write("b.py", "y = 3\n");
    let cells: Vec<Value> = ["import pandas", "df = load()", "df.describe()", "df.head()"]
        .iter()
        .enumerate()
        .map(|(i, s)| serde_json::json!({"id": format!("c{i}"), "cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": [s]}))
        .collect();
    let nb =
        serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    env.write("analysis.ipynb", nb.to_string());
    env.write(
        "codex.patch",
        "*** Begin Patch\n*** Update File: b.py\n@@\n-y = 3\n+y = 4\n*** End Patch\n",
    );
    env.git(&["add", "-A"]);
    env.git(&["commit", "-qm", "fixture"]);
}

/// The `aitools ...` part of a shell line (after a pipe or `$(`), cut at the next
/// pipe, redirection or `)`.
fn aitools_part(line: &str) -> Option<String> {
    let at = line.find("aitools ")?;
    let rest = &line[at..];
    let mut quote = None;
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '|' | '<' | ')' | '#') => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    Some(rest[..end].trim_end().replace("\"$tx\"", "TX"))
}

/// The answer's envelope and exit code (stdout for ok/partial, stderr for errors).
fn run_sh(env: &TestEnv, script: &str, vars: &BTreeMap<String, String>) -> std::process::Output {
    let dir = bin().parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = Command::new("sh");
    c.args(["-c", script]).env("PATH", path);
    for (k, v) in vars {
        c.env(k, v);
    }
    env.isolate(c).output().expect("spawn sh")
}

#[test]
fn every_readme_command_parses_and_does_what_the_text_says() {
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .expect("README.md");
    let env = TestEnv::new();
    let reg = Registry::load(&env);
    fixture(&env);
    let (blocks, prose) = blocks(&text);
    let mut failures = Vec::new();
    let mut ran = 0;
    let check = |n: usize, part: &str, failures: &mut Vec<String>| match split(part)
        .and_then(|(w, _)| check_static(&reg, &w[1..]))
    {
        Ok(None) => {}
        Ok(Some(p)) => failures.push(format!("README.md:{n}: `{part}` names pending {p}")),
        Err(e) => failures.push(format!("README.md:{n}: `{part}`: {e}")),
    };
    for (n, span) in spans(&prose) {
        check(n, &span, &mut failures);
    }
    let mut vars: BTreeMap<String, String> = BTreeMap::new();
    let mut last_op = String::new();
    for block in &blocks {
        for (n, line) in &block.lines {
            let t = line.trim();
            let Some(part) = aitools_part(t) else {
                continue;
            };
            if block.info != "sh" {
                continue; // JSON examples: release.rs checks the envelope ones
            }
            check(*n, &part, &mut failures);
            if STATIC_ONLY.iter().any(|s| t.starts_with(s)) || t.starts_with("cargo ") {
                continue;
            }
            // A placeholder is the value an earlier answer (or the file) gave.
            let mut script = t.to_string();
            if script.contains("<hash>") {
                let path = split(t).map(|(w, _)| w[2].clone()).unwrap_or_default();
                let r = env.run(&["read", &path]);
                script = script.replace("<hash>", r.json["hash"].as_str().unwrap_or(""));
            }
            if script.contains("<op_id>") {
                script = script.replace("<op_id>", &last_op);
            }
            ran += 1;
            // `name=$(...)`: the variable the next lines use.
            if let Some((name, _)) = t.split_once("=$(") {
                let out = run_sh(&env, &format!("{script}; printf %s \"${name}\""), &vars);
                let value = String::from_utf8_lossy(&out.stdout).to_string();
                if !out.status.success() || value.is_empty() {
                    failures.push(format!("README.md:{n}: `{t}` set no {name}"));
                }
                vars.insert(name.to_string(), value);
                continue;
            }
            let r = parse(run_sh(&env, &script, &vars));
            let comment = split(t).ok().and_then(|(_, c)| c).unwrap_or_default();
            match EXPECT.iter().find(|(s, _)| t.contains(s)) {
                Some((_, code)) => {
                    if r.error_code() != *code {
                        failures.push(format!(
                            "README.md:{n}: `{t}` should fail with {code}: {}",
                            r.json
                        ));
                    }
                }
                None if r.code != 0 && r.code != 3 => {
                    failures.push(format!("README.md:{n}: `{t}` failed: {}", r.json));
                }
                None => {
                    // Fields the comment names (`line_numbers says ...`) are answered.
                    let command = r.json["command"].as_str().unwrap_or("");
                    let fields = &crate::support::declared().fields;
                    for w in comment.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                        let named =
                            w.contains('_') && fields.get(command).is_some_and(|f| f.contains(w));
                        if named && r.json.get(w).is_none() {
                            failures.push(format!(
                                "README.md:{n}: `{t}` says {w}, the answer has none: {}",
                                r.json
                            ));
                        }
                    }
                }
            }
            if let Some(op) = r.json["op_id"].as_str() {
                last_op = op.to_string();
            }
        }
    }
    assert!(ran >= 30, "only {ran} README lines ran");
    assert!(
        failures.is_empty(),
        "README drifted from the binary:\n{}",
        failures.join("\n")
    );
}
