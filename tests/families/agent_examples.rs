//! The agent docs contract: every `aitools ...` example in `agent/` (rules and
//! skills) runs against the built binary, so the docs cannot drift from the tool.
//!
//! - ```` ```sh ```` blocks are run, line by line, in a fixture repository (one per
//!   file, so a file's examples share state). A line must succeed (exit 0 or 3)
//!   unless it ends with `# expect <error.code>`, in which case it must fail with
//!   that code. `<op_id>`, `<hash>`, `<tx>`, `<id>` and `<expect_count>` are
//!   replaced with that member of the last answer that had one; any other `<...>`
//!   is an error (templates go in ```` ```text ```` blocks). A heredoc
//!   (`<<'EOF'` ... `EOF`) becomes the call's stdin.
//! - Every other `aitools ...` line of any block, and every `` `aitools ...` ``
//!   span in the prose, is checked statically: the command is registered and every
//!   `--flag` is one it declares.
//!
//! A command not registered on this branch fails the test unless it is listed in
//! `PENDING_COMMANDS`; its examples (and the rest of that file's runnable ones,
//! which may depend on it) are skipped with a printed note.

use crate::support::{Run, TestEnv, parse};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Commands other branches are building; the lead empties this after merging them.
const PENDING_COMMANDS: &[&str] = &[];

/// Flags of registered commands that other branches are adding (`read --tx` comes
/// with transactions); an example using one is skipped like a pending command.
const PENDING_FLAGS: &[(&str, &str)] = &[];

const PLACEHOLDERS: &[&str] = &["op_id", "hash", "tx", "id", "expect_count"];
const GLOBAL_FLAGS: &[&str] = &[
    "--root",
    "--lock-timeout",
    "--output",
    "--help",
    "--version",
    "--brief",
];

/// The repository every file's examples run in.
fn fixture(env: &TestEnv) {
    env.write(
        "README.md",
        "# Demo\n\nA small project the aitools examples run in.\n",
    );
    env.write(
        "src/app.py",
        "def greet(name):\n    return \"Hello, \" + name\n\n\ndef main():\n    print(greet(\"world\"))\n\n\nif __name__ == \"__main__\":\n    main()\n",
    );
    env.write(
        "src/util.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    );
    env.write(
        "notes.txt",
        "first note\nTODO: write tests\nTODO: write docs\nlast\n",
    );
    env.write("scripts/run.sh", "#!/bin/sh\necho hi\n");
    env.write("docs/index.md", "# Docs\n");
}

fn agent_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("agent");
    let mut files = Vec::new();
    for sub in ["rules", "skills"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root.join(sub))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        v.sort();
        files.extend(v);
    }
    files
}

/// POSIX-shell word splitting for one line: quotes, backslashes, `#` comments.
/// Returns the words and the comment text.
pub(super) fn split(line: &str) -> Result<(Vec<String>, Option<String>), String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err(format!("unclosed ' in {line:?}")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => return Err(format!("unclosed \" in {line:?}")),
                        },
                        Some('$' | '`') => return Err(format!("expansion in {line:?}")),
                        Some(x) => cur.push(x),
                        None => return Err(format!("unclosed \" in {line:?}")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(x) = chars.next() {
                    cur.push(x);
                }
            }
            '#' if !in_word => {
                let rest: String = chars.collect();
                return Ok((words, Some(rest.trim().to_string())));
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '|' | ';' | '&' | '>' | '$' | '`' | '(' | ')' if !in_word || c != '>' => {
                // `<<` heredoc markers are handled by the caller; anything else is a
                // shell construct an example must not rely on.
                return Err(format!("shell syntax {c:?} in {line:?}"));
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok((words, None))
}

/// One fenced block: its info string, and its lines with their line numbers.
pub(super) struct Block {
    pub(super) info: String,
    pub(super) lines: Vec<(usize, String)>,
}

pub(super) fn blocks(text: &str) -> (Vec<Block>, Vec<(usize, String)>) {
    let mut out = Vec::new();
    let mut prose = Vec::new();
    let mut cur: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if let Some(info) = line.trim_start().strip_prefix("```") {
            match cur.take() {
                Some(b) => out.push(b),
                None => {
                    cur = Some(Block {
                        info: info.trim().to_string(),
                        lines: Vec::new(),
                    })
                }
            }
            continue;
        }
        match &mut cur {
            Some(b) => b.lines.push((n, line.to_string())),
            None => prose.push((n, line.to_string())),
        }
    }
    (out, prose)
}

/// `aitools ...` spans of inline code in prose lines.
pub(super) fn spans(prose: &[(usize, String)]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose {
        let parts: Vec<&str> = line.split('`').collect();
        for (i, p) in parts.iter().enumerate() {
            if i % 2 == 1 && p.starts_with("aitools ") {
                out.push((*n, p.to_string()));
            }
        }
    }
    out
}

pub(super) struct Registry {
    /// name → (flag → takes a value)
    commands: BTreeMap<String, BTreeMap<String, bool>>,
}

impl Registry {
    pub(super) fn load(env: &TestEnv) -> Registry {
        let all = env.run(&["schema", "--all", "--full"]);
        let mut commands = BTreeMap::new();
        for c in all.json["commands"].as_array().unwrap() {
            let mut flags = BTreeMap::new();
            for a in c["args"].as_array().unwrap() {
                let name = a["name"].as_str().unwrap();
                if name.starts_with("--") {
                    flags.insert(name.to_string(), a["type"] != "flag");
                }
            }
            commands.insert(c["name"].as_str().unwrap().to_string(), flags);
        }
        Registry { commands }
    }

    /// The command an argv (after `aitools`) names: registered, pending, or unknown,
    /// with the index of the first word after the command words.
    fn resolve(&self, words: &[String]) -> (Resolved, usize) {
        let mut i = 0;
        while i < words.len() && words[i].starts_with("--") {
            i += if words[i] == "--root" || words[i] == "--lock-timeout" {
                2
            } else {
                1
            };
        }
        let Some(first) = words.get(i) else {
            return (Resolved::TopLevel, i);
        };
        if first.starts_with('<') {
            return (Resolved::Placeholder, i + 1);
        }
        if let Some(second) = words.get(i + 1) {
            let two = format!("{first} {second}");
            if self.commands.contains_key(&two) {
                return (Resolved::Registered(two), i + 2);
            }
            if PENDING_COMMANDS.contains(&two.as_str()) {
                return (Resolved::Pending(two), i + 2);
            }
        }
        if self.commands.contains_key(first) {
            return (Resolved::Registered(first.clone()), i + 1);
        }
        if PENDING_COMMANDS.contains(&first.as_str()) {
            return (Resolved::Pending(first.clone()), i + 1);
        }
        (Resolved::Unknown(first.clone()), i + 1)
    }

    /// Every `--flag` after the command words is declared (or global); `Some` names
    /// the first pending flag used.
    fn check_flags(&self, name: &str, words: &[String]) -> Result<Option<String>, String> {
        let flags = &self.commands[name];
        let mut i = 0;
        while i < words.len() {
            let w = &words[i];
            i += 1;
            if !w.starts_with("--") || w == "--" {
                continue;
            }
            let (flag, inline_value) = match w.split_once('=') {
                Some((f, _)) => (f, true),
                None => (w.as_str(), false),
            };
            if GLOBAL_FLAGS.contains(&flag) {
                if !inline_value && ["--root", "--lock-timeout", "--output"].contains(&flag) {
                    i += 1;
                }
                continue;
            }
            match flags.get(flag) {
                Some(takes_value) => {
                    if *takes_value && !inline_value {
                        i += 1;
                    }
                }
                None if PENDING_FLAGS.contains(&(name, flag)) => {
                    return Ok(Some(format!("{name} {flag}")));
                }
                None => return Err(format!("`{name}` has no {flag}")),
            }
        }
        Ok(None)
    }
}

#[derive(Debug)]
enum Resolved {
    TopLevel,
    Placeholder,
    Registered(String),
    Pending(String),
    Unknown(String),
}

/// Checks one `aitools ...` line without running it.
pub(super) fn check_static(reg: &Registry, words: &[String]) -> Result<Option<String>, String> {
    let (resolved, rest) = reg.resolve(words);
    match resolved {
        Resolved::TopLevel | Resolved::Placeholder => Ok(None),
        Resolved::Registered(name) => reg.check_flags(&name, &words[rest..]),
        Resolved::Pending(name) => Ok(Some(name)),
        Resolved::Unknown(w) => Err(format!("`{w}` is not an aitools command")),
    }
}

fn substitute(
    words: &[String],
    captured: &BTreeMap<String, String>,
) -> Result<Vec<String>, String> {
    words
        .iter()
        .map(|w| {
            let mut out = w.clone();
            for p in PLACEHOLDERS {
                let tag = format!("<{p}>");
                if out.contains(&tag) {
                    let v = captured
                        .get(*p)
                        .ok_or_else(|| format!("{tag} used before any answer had `{p}`"))?;
                    out = out.replace(&tag, v);
                }
            }
            if out.contains('<') && out.contains('>') && !w.starts_with("<<") {
                let bad = out.clone();
                if let (Some(a), Some(b)) = (bad.find('<'), bad.rfind('>'))
                    && a < b
                    && !bad[a + 1..b].contains(' ')
                    && w.starts_with('<')
                {
                    return Err(format!(
                        "unknown placeholder {bad:?}; runnable examples may use <{}>",
                        PLACEHOLDERS.join(">, <")
                    ));
                }
            }
            Ok(out)
        })
        .collect()
}

fn capture(json: &Value, captured: &mut BTreeMap<String, String>) {
    for p in PLACEHOLDERS {
        match json.get(*p) {
            Some(Value::String(s)) => {
                captured.insert(p.to_string(), s.clone());
            }
            Some(Value::Number(n)) => {
                captured.insert(p.to_string(), n.to_string());
            }
            _ => {}
        }
    }
}

fn run(env: &TestEnv, argv: &[String], stdin: Option<&str>) -> Run {
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    let mut cmd = env.command(&args);
    let out = match stdin {
        None => cmd.output().unwrap(),
        Some(input) => {
            let mut child = cmd
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            if let Some(mut s) = child.stdin.take() {
                let _ = s.write_all(input.as_bytes());
            }
            child.wait_with_output().unwrap()
        }
    };
    parse(out)
}

#[test]
fn every_agent_example_runs_against_the_built_binary() {
    let mut failures: Vec<String> = Vec::new();
    let mut ran = 0;
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    let probe = TestEnv::new();
    let reg = Registry::load(&probe);
    for file in agent_files() {
        let rel = file
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap()
            .display()
            .to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let (blocks, prose) = blocks(&text);
        for (n, span) in spans(&prose) {
            match split(&span).and_then(|(w, _)| check_static(&reg, &w[1..])) {
                Ok(_) => {}
                Err(e) => failures.push(format!("{rel}:{n}: `{span}`: {e}")),
            }
        }
        let env = TestEnv::new();
        fixture(&env);
        let mut captured: BTreeMap<String, String> = BTreeMap::new();
        let mut pending_seen: Option<String> = None;
        for block in &blocks {
            let runnable = block.info == "sh";
            let mut lines = block.lines.iter().peekable();
            while let Some((n, line)) = lines.next() {
                let t = line.trim();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                if !t.starts_with("aitools") {
                    if runnable {
                        failures.push(format!(
                            "{rel}:{n}: a sh example line must be an aitools call: {t:?}"
                        ));
                    }
                    continue;
                }
                let (mut words, comment) = match split(t) {
                    Ok(x) => x,
                    Err(e) => {
                        failures.push(format!("{rel}:{n}: {e}"));
                        continue;
                    }
                };
                // A heredoc: the following lines up to the terminator are stdin.
                let mut stdin = None;
                if let Some(pos) = words.iter().position(|w| w.starts_with("<<")) {
                    let term = words[pos][2..].to_string();
                    words.truncate(pos);
                    let mut body = String::new();
                    for (_, l) in lines.by_ref() {
                        if l.trim() == term {
                            break;
                        }
                        body.push_str(l);
                        body.push('\n');
                    }
                    stdin = Some(body);
                }
                let argv: Vec<String> = words[1..].to_vec();
                let expect = comment
                    .as_deref()
                    .and_then(|c| c.strip_prefix("expect "))
                    .map(|c| c.trim().to_string());
                let status = check_static(&reg, &argv);
                if let Err(e) = &status {
                    // An unknown command is fine only as the example of that error.
                    let unknown_ok = expect.as_deref() == Some("argument.invalid")
                        && matches!(reg.resolve(&argv).0, Resolved::Unknown(_));
                    if !unknown_ok {
                        failures.push(format!("{rel}:{n}: {t}: {e}"));
                        continue;
                    }
                }
                if let Ok(Some(name)) = &status {
                    *skipped.entry(name.clone()).or_default() += 1;
                    pending_seen.get_or_insert_with(|| name.clone());
                    continue;
                }
                if !runnable {
                    continue;
                }
                if let Some(p) = &pending_seen {
                    eprintln!(
                        "note: {rel}:{n}: not run, it follows an example of pending `{p}`: {t}"
                    );
                    continue;
                }
                let argv = match substitute(&argv, &captured) {
                    Ok(a) => a,
                    Err(e) => {
                        failures.push(format!("{rel}:{n}: {t}: {e}"));
                        continue;
                    }
                };
                ran += 1;
                let r = run(&env, &argv, stdin.as_deref());
                match &expect {
                    Some(code) => {
                        if r.code == 0 || r.code == 3 || r.error_code() != code {
                            failures.push(format!(
                                "{rel}:{n}: {t}: expected {code}, got exit {} {}",
                                r.code,
                                if r.code == 0 || r.code == 3 {
                                    &r.stdout
                                } else {
                                    &r.stderr
                                }
                            ));
                        }
                    }
                    None => {
                        if r.code != 0 && r.code != 3 {
                            failures.push(format!("{rel}:{n}: {t}: exit {}: {}", r.code, r.stderr));
                        } else {
                            capture(&r.json, &mut captured);
                        }
                    }
                }
            }
        }
    }
    for (name, count) in &skipped {
        eprintln!(
            "note: {count} example(s) of `{name}` skipped: it is in PENDING_COMMANDS or PENDING_FLAGS, not yet on this branch"
        );
    }
    assert!(
        failures.is_empty(),
        "agent/ examples that do not hold:\n{}",
        failures.join("\n")
    );
    assert!(ran >= 10, "only {ran} examples ran; the runner lost them");
}

#[test]
fn the_example_runner_catches_drift() {
    let env = TestEnv::new();
    let reg = Registry::load(&env);
    let words = |s: &str| split(s).unwrap().0[1..].to_vec();
    assert!(check_static(&reg, &words("aitools read a.txt --range 1:2")).is_ok());
    assert!(check_static(&reg, &words("aitools read a.txt --no-such-flag")).is_err());
    assert!(check_static(&reg, &words("aitools frobnicate x")).is_err());
    assert!(
        check_static(
            &reg,
            &words("aitools feedback create --type bug --message 'a --b'")
        )
        .is_ok()
    );
    assert_eq!(
        check_static(&reg, &words("aitools tx begin")).unwrap(),
        None
    );
    assert_eq!(
        split("aitools x 'a b' \"c\\\"d\"  # expect input.not-found").unwrap(),
        (
            vec!["aitools".into(), "x".into(), "a b".into(), "c\"d".into()],
            Some("expect input.not-found".into())
        )
    );
    assert!(split("aitools read a | head").is_err());
    let mut cap = BTreeMap::new();
    assert!(substitute(&["<op_id>".into()], &cap).is_err());
    assert!(substitute(&["<path>".into()], &cap).is_err());
    cap.insert("op_id".into(), "op-1".into());
    assert_eq!(substitute(&["<op_id>".into()], &cap).unwrap(), ["op-1"]);
}
