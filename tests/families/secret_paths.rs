//! The output-path matrix (issue 29, items 3 to 5): each secret format used as a
//! file and directory name, changed by one character in a diff, echoed by `batch`
//! (an `--old` value, an invalid element), by a bad regex's error, by `feedback`
//! (and its stored file), and printed by `run`, `bg logs` and `wait`; every call run
//! through the CLI, `--output jsonl` and `aitools mcp`. It counts leaks (the secret
//! in clear on stdout, stderr or a stored feedback file) and answers that show the
//! mask without a `redactions` count; both must be 0.

use crate::support::TestEnv;
use serde_json::{Value, json};
use std::io::Write;
use std::process::Stdio;

const MASK: &str = "[REDACTED_SECRET]";

/// (the secret as written, the part that must never print).
const SECRETS: &[(&str, &str)] = &[
    ("password=Tr0ub4dor3xyzQ", "Tr0ub4dor3xyzQ"),
    (
        "api_key=hunter2-very-secret-value",
        "hunter2-very-secret-value",
    ),
    ("token=ab12cd34ef56gh78ij90", "ab12cd34ef56gh78ij90"),
    ("client_secret=Zx9Qw8Er7Ty6Ui5Op4", "Zx9Qw8Er7Ty6Ui5Op4"),
    (
        "ghp_1234567890abcdefghijABCDEFGHIJ123456",
        "ghp_1234567890abcdefghijABCDEFGHIJ123456",
    ),
    (
        "xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJklmn",
        "xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJklmn",
    ),
    (
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    ),
    ("glpat-abcdefghij1234567890", "glpat-abcdefghij1234567890"),
    ("AKIAZ7QWERTYUIOPASD2", "AKIAZ7QWERTYUIOPASD2"),
];

#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Mode {
    Cli,
    Jsonl,
    Mcp,
}

/// One call: its argv, standard input, and the same call as an MCP tool.
pub(super) struct Call {
    pub(super) argv: Vec<String>,
    stdin: Option<String>,
    tool: &'static str,
    args: Value,
    /// Whether a mask in the answer was made by this call (a stored feedback entry
    /// shown again was masked when it was filed).
    counts: bool,
}

pub(super) fn call(argv: &[&str], tool: &'static str, args: Value) -> Call {
    Call {
        argv: argv.iter().map(|s| s.to_string()).collect(),
        stdin: None,
        tool,
        args,
        counts: true,
    }
}

/// `s` with its last character changed (a secret changed by one character).
fn bump(s: &str) -> String {
    let mut b = s.as_bytes().to_vec();
    if let Some(last) = b.last_mut() {
        *last = match *last {
            b'0'..=b'8' | b'a'..=b'y' | b'A'..=b'Y' => *last + 1,
            _ => b'a',
        };
    }
    String::from_utf8(b).unwrap()
}

/// The key and value a secret is written with in YAML and shell quoting.
fn key_value(s: &str, v: &str) -> (String, String) {
    match s.split_once('=') {
        Some((k, _)) => (k.to_string(), v.to_string()),
        None => ("token".to_string(), v.to_string()),
    }
}

fn setup(env: &TestEnv, s: &str, v: &str) {
    env.write(&format!("d/{s}/{s}.txt"), "x\n");
    env.write("a.txt", format!("x\n{s}\ny\n"));
    env.write("b.txt", format!("x\n{}\ny\n", bump(s)));
    let (k, v) = key_value(s, v);
    let yaml = |v: &str| format!("k: 1\n{k}: |\n  {v}\n  tail-line-9\nz: 2\n");
    env.write("ya.yml", yaml(&v));
    env.write("yb.yml", yaml(&bump(&v)));
    env.write("e.txt", "hello\n");
}

/// The calls that do not depend on an earlier answer.
fn calls(s: &str, v: &str) -> Vec<Call> {
    let file = format!("d/{s}/{s}.txt");
    let (k, v) = key_value(s, v);
    let quoted = format!("{k}='{v}'");
    let edit = json!([["edit", "e.txt", "--old", quoted, "--new", "x"]]).to_string();
    let invalid = json!([[quoted]]).to_string();
    let bad = format!("{s}(");
    let message = format!("saw {s} in {file} and {quoted}");
    let context = format!("aitools read {file}");
    let mut out = vec![
        call(&["info", &file], "info", json!({"path": file})),
        call(&["read", &file], "read", json!({"path": file})),
        call(&["find"], "find", json!({})),
        call(
            &["diff", "a.txt", "b.txt"],
            "diff",
            json!({"a": "a.txt", "b": "b.txt"}),
        ),
        call(
            &["diff", "ya.yml", "yb.yml"],
            "diff",
            json!({"a": "ya.yml", "b": "yb.yml"}),
        ),
        call(
            &["search", &bad, "."],
            "search",
            json!({"pattern": bad, "paths": ["."]}),
        ),
        call(
            &["run", "--", "echo", s],
            "run",
            json!({"argv": ["echo", s]}),
        ),
        call(
            &[
                "feedback",
                "create",
                "--type",
                "bug",
                "--message",
                &message,
                "--context-command",
                &context,
            ],
            "feedback_create",
            json!({"type": "bug", "message": message, "context_command": context}),
        ),
    ];
    for input in [edit, invalid] {
        out.push(Call {
            stdin: Some(input.clone()),
            ..call(&["batch", "--stdin"], "batch", json!({"stdin_data": input}))
        });
    }
    for (argv, tool, args) in [
        (
            vec!["feedback", "show", "001"],
            "feedback_show",
            json!({"id": "001"}),
        ),
        (vec!["feedback", "list"], "feedback_list", json!({})),
    ] {
        out.push(Call {
            counts: false,
            ..call(&argv, tool, args)
        });
    }
    out
}

/// Runs `c` in `mode`: everything it printed, and its envelope (the jsonl mode's
/// summary properties).
pub(super) fn run(env: &TestEnv, mode: Mode, c: &Call) -> (String, Value) {
    let mut argv: Vec<&str> = Vec::new();
    let mut input = c.stdin.clone();
    match mode {
        Mode::Cli => argv.extend(c.argv.iter().map(String::as_str)),
        Mode::Jsonl => {
            argv.extend(["--output", "jsonl"]);
            argv.extend(c.argv.iter().map(String::as_str));
        }
        Mode::Mcp => {
            argv.extend(["mcp", "--root", "."]);
            let meta = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            });
            let req = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": c.tool, "arguments": c.args, "_meta": meta}});
            input = Some(format!("{req}\n"));
        }
    }
    let mut child = env
        .command(&argv)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn aitools");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.unwrap_or_default().as_bytes());
    }
    let out = child.wait_with_output().expect("wait");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let parsed: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let envelope = match mode {
        Mode::Cli => parsed.last().cloned(),
        Mode::Jsonl => parsed
            .iter()
            .find(|e| e["type"] == "aoi:summary")
            .map(|e| e["properties"].clone()),
        Mode::Mcp => parsed
            .last()
            .map(|r| r["result"]["structuredContent"].clone()),
    };
    (text, envelope.unwrap_or(Value::Null))
}

/// Tallies one answer: a leak of any of `needles`, a mask shown without a count.
#[derive(Default)]
struct Tally {
    checks: usize,
    leaks: Vec<String>,
    uncounted: Vec<String>,
}

impl Tally {
    fn check(&mut self, label: &str, text: &str, env: Option<&Value>, needles: &[String]) {
        for n in needles {
            self.checks += 1;
            if text.contains(n.as_str()) {
                self.leaks.push(format!("{label}: {n} in {}", cut(text)));
            }
        }
        if let Some(env) = env {
            self.checks += 1;
            if text.contains(MASK) && env["redactions"].as_u64().unwrap_or(0) == 0 {
                self.uncounted.push(format!("{label}: {}", cut(text)));
            }
        }
    }
}

fn cut(text: &str) -> String {
    text.chars().take(400).collect()
}

/// `bg start`, then `wait --exit` and `bg logs` on the id it answered.
fn background(env: &TestEnv, mode: Mode, s: &str, t: &mut Tally, needles: &[String]) {
    let start = call(
        &["bg", "start", "--", "echo", s],
        "bg_start",
        json!({"argv": ["echo", s]}),
    );
    let (text, envelope) = run(env, mode, &start);
    t.check(
        &format!("{mode:?} bg start"),
        &text,
        Some(&envelope),
        needles,
    );
    let id = match mode {
        Mode::Jsonl => serde_json::from_str::<Value>(text.lines().nth(1).unwrap_or("{}"))
            .map(|e| e["id"].clone())
            .unwrap_or(Value::Null),
        _ => envelope["id"].clone(),
    };
    let id = id.as_str().unwrap_or("bg-1").to_string();
    let later = [
        call(
            &["wait", "--bg", &id, "--exit"],
            "wait",
            json!({"bg": id, "exit": true}),
        ),
        call(
            &[
                "wait",
                "--bg",
                &id,
                "--pattern",
                "password|token|secret|key|_|-",
                "--timeout",
                "5s",
            ],
            "wait",
            json!({"bg": id, "pattern": "password|token|secret|key|_|-", "timeout": "5s"}),
        ),
        call(&["bg", "logs", &id], "bg_logs", json!({"id": id})),
    ];
    for c in &later {
        let (text, envelope) = run(env, mode, c);
        t.check(
            &format!("{mode:?} {}", c.argv.join(" ")),
            &text,
            Some(&envelope),
            needles,
        );
    }
}

fn feedback_files(env: &TestEnv) -> String {
    let dir = env.state.path().join("feedback");
    let mut all = String::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        all.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
    }
    all
}

#[test]
fn every_output_path_masks_and_counts() {
    let mut t = Tally::default();
    for &(s, v) in SECRETS {
        let env = TestEnv::new();
        setup(&env, s, v);
        let needles = vec![v.to_string(), bump(v)];
        for mode in [Mode::Cli, Mode::Jsonl, Mode::Mcp] {
            for c in calls(s, v) {
                let (text, envelope) = run(&env, mode, &c);
                let label = format!("{mode:?} {s}: {}", c.argv.join(" "));
                t.check(&label, &text, c.counts.then_some(&envelope), &needles);
            }
            background(&env, mode, s, &mut t, &needles);
        }
        t.check(
            &format!("stored feedback {s}"),
            &feedback_files(&env),
            None,
            &needles,
        );
    }
    assert!(
        t.leaks.is_empty() && t.uncounted.is_empty(),
        "{} leaks and {} uncounted masks in {} checks:\n{}\n---\n{}",
        t.leaks.len(),
        t.uncounted.len(),
        t.checks,
        t.leaks.join("\n"),
        t.uncounted.join("\n")
    );
    assert!(t.checks > 500, "only {} checks", t.checks);
}
