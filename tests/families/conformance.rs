//! Seed 003's core rules against the built binary. The table in
//! `docs/conformance.md` says which rules aitools adopts; every core rule there that
//! is adopted (or adopted differently) must have a check here, and the check runs.

use crate::support::TestEnv;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const CORE: &[&str] = &[
    "O1", "O2", "O3", "E1", "E4", "E5", "E7", "E8", "X3", "X9", "C1", "C2", "C8", "I4", "I5", "S1",
    "S4", "G1", "G2", "G3", "G8",
];
const RECOMMENDED: &[&str] = &[
    "D1", "D3", "D4", "D7", "D9", "D11", "D15", "D16", "D2", "D5", "D6", "D8", "D10", "I1", "I2",
    "I3", "I6", "I7", "E6", "E2", "E3", "S8", "S2", "S3", "S5", "S6", "S7", "X1", "X2", "X4", "X5",
    "X6", "X7", "X8", "C6", "C3", "C4", "C5", "C7", "N4", "N1", "N2", "N3", "N5", "N6", "I8", "I9",
    "G6", "G9", "G4", "G5", "G7",
];
const ECOSYSTEM: &[&str] = &[
    "D12", "D13", "D17", "D18", "D14", "R1", "R2", "R3", "M1", "M2", "M3", "F1", "F2", "F3", "F4",
    "F5", "F6", "F7", "F8",
];

/// The error codes as first published: renaming one breaks agents (E8).
const FROZEN_CODES: &[&str] = &[
    "argument.invalid",
    "input.not-found",
    "input.not-utf8",
    "input.unsupported-format",
    "input.unsupported-language",
    "input.syntax-error",
    "selection.no-match",
    "selection.ambiguous",
    "selection.count-mismatch",
    "refusal.target-changed",
    "refusal.redacted-input",
    "refusal.outside-workspace",
    "refusal.exists",
    "refusal.not-a-file",
    "refusal.too-large",
    "environment.io",
    "environment.busy",
    "environment.timeout",
    "environment.unavailable",
    "internal.unexpected",
];

/// `rule → (layer, status)` from the table.
fn table() -> BTreeMap<String, (String, String)> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/conformance.md"))
            .unwrap();
    let mut rows = BTreeMap::new();
    for line in text.lines() {
        let Some(inner) = line.strip_prefix('|') else {
            continue;
        };
        let cells: Vec<String> = inner
            .replace("\\|", "\u{0}")
            .split('|')
            .map(|c| c.trim().replace('\u{0}', "|"))
            .collect();
        if cells.len() < 5 || cells[0] == "Rule" || cells[0].starts_with("---") {
            continue;
        }
        let prev = rows.insert(cells[0].clone(), (cells[1].clone(), cells[2].clone()));
        assert!(prev.is_none(), "{} appears twice", cells[0]);
    }
    rows
}

#[test]
fn the_table_has_every_seed_rule_once_with_a_status() {
    let rows = table();
    for (layer, ids) in [
        ("core", CORE),
        ("recommended", RECOMMENDED),
        ("ecosystem", ECOSYSTEM),
    ] {
        for id in ids {
            let (l, status) = rows.get(*id).unwrap_or_else(|| panic!("{id} missing"));
            assert_eq!(l, layer, "{id}");
            assert!(
                ["adopted", "adopted differently", "not adopted"].contains(&status.as_str()),
                "{id}: {status}"
            );
        }
    }
    assert_eq!(rows.len(), CORE.len() + RECOMMENDED.len() + ECOSYSTEM.len());
    // The deliberate differences the product spec names.
    for (id, status) in [
        ("X3", "adopted differently"),
        ("D15", "adopted differently"),
        ("G8", "not adopted"),
        ("G2", "adopted differently"),
        ("E1", "adopted differently"),
        ("R1", "adopted differently"),
    ] {
        assert_eq!(rows[id].1, status, "{id}");
    }
}

fn fixture() -> TestEnv {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\n");
    env
}

/// A sample of calls covering success, partial, parse errors and run errors.
fn sample(env: &TestEnv) -> Vec<crate::support::Run> {
    [
        vec!["--help"],
        vec!["--version"],
        vec!["--brief"],
        vec!["schema"],
        vec!["read", "a.txt"],
        vec!["read", "a.txt", "--max-lines", "1"],
        vec!["read", "missing.txt"],
        vec!["read"],
        vec!["read", "a.txt", "--bogus"],
        vec!["nosuch"],
        vec![],
    ]
    .iter()
    .map(|a| env.run(a))
    .collect()
}

fn check(rule: &str) {
    let env = fixture();
    match rule {
        "O1" => {
            for r in sample(&env) {
                assert!(r.json.is_object());
            }
            let j = env.run(&["read", "a.txt", "--json"]);
            assert_eq!(
                j.error_code(),
                "argument.invalid",
                "no output mode flag exists"
            );
        }
        "O2" => {
            let jq = std::process::Command::new("jq")
                .arg("--version")
                .output()
                .is_ok();
            for r in sample(&env) {
                let text = if r.code == 0 || r.code == 3 {
                    &r.stdout
                } else {
                    &r.stderr
                };
                serde_json::from_str::<Value>(text).unwrap();
                if jq {
                    let mut c = std::process::Command::new("jq")
                        .arg(".")
                        .stdin(Stdio::piped())
                        .stdout(Stdio::null())
                        .spawn()
                        .unwrap();
                    use std::io::Write;
                    c.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
                    assert!(c.wait().unwrap().success(), "jq rejects {text}");
                }
            }
        }
        "O3" => {
            let a = sample(&env);
            let b = sample(&env);
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.json["schema_version"], 9);
                assert_eq!(x.stdout, y.stdout);
                assert_eq!(x.stderr, y.stderr);
                let text = if x.code == 0 || x.code == 3 {
                    &x.stdout
                } else {
                    &x.stderr
                };
                assert!(
                    text.starts_with("{\"schema_version\":9,\"status\":"),
                    "{text}"
                );
            }
        }
        "E1" | "E4" | "E5" | "X9" => {
            let catalog: Vec<String> = std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("data/errors.tsv"),
            )
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(|l| l.split('\t').next().unwrap().to_string())
            .collect();
            for r in sample(&env)
                .into_iter()
                .filter(|r| r.code != 0 && r.code != 3)
            {
                assert!(r.stdout.is_empty(), "X9: stdout on error");
                assert!(r.code == 1 || r.code == 2);
                assert_eq!(r.json["status"], "error");
                assert_eq!(r.json["error"]["exit_code"], r.code);
                let code = r.error_code();
                assert!(
                    catalog.iter().any(|c| c == code),
                    "E4: {code} not in the catalog"
                );
                let (ns, name) = code.split_once('.').unwrap();
                assert!(!ns.is_empty() && !name.is_empty());
                let msg = r.json["error"]["message"].as_str().unwrap();
                assert!(msg.len() > 5 && msg.ends_with('.'), "E5: {msg}");
                let repairs = r.json["error"]["repairs"].as_array().unwrap();
                assert!(!repairs.is_empty(), "E1: the suggestion is repairs[]");
            }
        }
        "E7" | "I4" => {
            // stdin is a pipe nobody closes: a prompt would hang until the deadline.
            let mut child = env
                .command(&["read"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let _keep_open = child.stdin.take();
            let start = Instant::now();
            loop {
                if let Some(_status) = child.try_wait().unwrap() {
                    break;
                }
                assert!(
                    start.elapsed() < Duration::from_secs(10),
                    "waited for input"
                );
                std::thread::sleep(Duration::from_millis(10));
            }
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            let v: Value = serde_json::from_str(&err).unwrap();
            assert_eq!(v["error"]["code"], "argument.invalid");
            assert!(
                v["error"]["message"].as_str().unwrap().contains("PATH"),
                "{err}"
            );
        }
        "E8" => {
            let all = std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("data/errors.tsv"),
            )
            .unwrap();
            let codes: Vec<&str> = all
                .lines()
                .filter(|l| !l.starts_with('#') && !l.is_empty())
                .map(|l| l.split('\t').next().unwrap())
                .collect();
            for c in FROZEN_CODES {
                assert!(codes.contains(c), "{c} was renamed or removed");
            }
        }
        "X3" | "G1" | "I5" => {
            for argv in [
                vec!["read", "a.txt", "--bogus"],
                vec!["read", "a.txt", "--max-lines", "abc"],
                vec!["read"],
                vec!["nosuch"],
            ] {
                let r = env.run(&argv);
                assert_eq!(r.code, 1, "{argv:?}");
                assert_eq!(r.error_code(), "argument.invalid", "{argv:?}");
            }
            let near = env.run(&["read", "a.txt", "--max-line", "3"]);
            assert_eq!(near.code, 1);
        }
        "C1" => {
            let r = env.run(&["read", "a.txt"]);
            assert_eq!(r.stdout.matches('\n').count(), 1);
            assert!(r.stderr.is_empty());
        }
        "C2" => {
            for r in sample(&env)
                .into_iter()
                .filter(|r| r.code == 0 || r.code == 3)
            {
                assert!(r.stderr.is_empty(), "stderr on success: {}", r.stderr);
            }
        }
        "S1" => {
            let all = env.run(&["schema", "--all", "--full"]);
            for c in all.json["commands"].as_array().unwrap() {
                let args: Vec<&str> = c["args"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a["name"].as_str().unwrap())
                    .collect();
                assert!(!args.contains(&"--yes"), "{}", c["name"]);
                if c["writes"] == true {
                    assert!(
                        args.contains(&"--dry-run"),
                        "{} has no --dry-run",
                        c["name"]
                    );
                }
            }
        }
        "S4" => {
            let outside = tempfile::tempdir().unwrap();
            std::fs::write(outside.path().join("o.txt"), "x\n").unwrap();
            let rel = format!(
                "../{}/o.txt",
                outside.path().file_name().unwrap().to_string_lossy()
            );
            let in_tmp = env.root().parent() == outside.path().parent();
            if in_tmp {
                let r = env.run(&["read", &rel]);
                assert_eq!(r.code, 0, "{}", r.stderr);
                let real = std::fs::canonicalize(outside.path().join("o.txt")).unwrap();
                assert_eq!(r.json["path"], real.to_string_lossy().as_ref());
            }
        }
        "G2" => {
            let r = env.run(&["read", "password=hunter2.txt"]);
            assert_eq!(r.error_code(), "input.not-found");
            assert!(!r.stderr.contains("hunter2"), "{}", r.stderr);
            let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
            let r = env.run(&["read", token]);
            assert!(!r.stderr.contains(token));
            assert!(r.json["redactions"].as_u64().unwrap() >= 1);
        }
        "G3" => {
            env.write(".env", "API_KEY=abc123xyz\nDEBUG=1\n");
            env.write(
                "id.pem",
                "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n",
            );
            let r = env.run(&["read", ".env"]);
            assert_eq!(r.code, 0);
            assert_eq!(r.lines(), ["API_KEY=[REDACTED_SECRET]", "DEBUG=1"]);
            let p = env.run(&["read", "id.pem"]);
            assert_eq!(p.code, 0);
            assert!(!p.stdout.contains("MIIEowIBAAKCAQEA"));
        }
        other => panic!("no check for core rule {other}"),
    }
}

#[test]
fn every_adopted_core_rule_holds_against_the_binary() {
    let rows = table();
    let mut checked = Vec::new();
    for id in CORE {
        let (_, status) = &rows[*id];
        if status == "not adopted" {
            continue;
        }
        check(id);
        checked.push(*id);
    }
    assert!(checked.len() >= 15, "{checked:?}");
}

/// The reference tool's 81 commands (facts in benches/ref) against our schema:
/// every one present, and no flag, output field, error code, option default or
/// accepted value of theirs missing or different unless benches/ref/deliberate.tsv
/// says why (docs/reference-table.md prints it).
#[test]
fn every_reference_flag_field_and_code_is_ours_or_left_out_with_a_reason() {
    let env = TestEnv::new();
    let mut c = env.isolate(std::process::Command::new("python3"));
    c.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/reference_table.py"
    ))
    .args(["--totals", "--bin"])
    .arg(crate::support::bin())
    .current_dir(env.root());
    let out = c.output().expect("python3");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("present: 81."), "{text}");
    for kind in ["flags", "fields", "codes"] {
        assert!(text.contains(&format!("{kind}: missing 0 open")), "{text}");
    }
    // Each option's default and accepted values too (benches/ref/defaults-*.tsv).
    let values = text
        .lines()
        .find(|l| l.starts_with("Reference defaults:"))
        .unwrap_or_default();
    for said in [
        "differ 0 open",
        "lists: 24; all taken 24, missing 0 open",
        "absent here: 0.",
    ] {
        assert!(values.contains(said), "{text}");
    }
}

/// A default that clap cannot hold (the command must tell it from a limit the
/// caller gave) is still the schema's `default`, and it is what the call does:
/// `search --limit` 15, `git log --limit` 20 (was null in the schema: an agent
/// reading it could not know the page size).
#[test]
fn a_stated_default_is_the_schemas_default_and_what_the_call_does() {
    let env = TestEnv::new();
    let default_of = |cmd: &[&str], name: &str| {
        let mut argv = vec!["schema"];
        argv.extend_from_slice(cmd);
        argv.push("--full");
        let s = env.run(&argv);
        let args = s.json["commands"][0]["args"].as_array().unwrap().clone();
        let arg = args.into_iter().find(|a| a["name"] == name).unwrap();
        arg["default"].as_str().map(str::to_string)
    };
    assert_eq!(default_of(&["search"], "--limit").as_deref(), Some("15"));
    assert_eq!(
        default_of(&["git", "log"], "--limit").as_deref(),
        Some("20")
    );
    // Two defaults, one per --as: none is declared.
    assert_eq!(default_of(&["read"], "--bytes"), None);
    let text: String = (0..40).map(|i| format!("needle {i}\n")).collect();
    env.write("n.txt", text);
    let r = env.run(&["search", "needle", "n.txt", "--output", "matches"]);
    assert_eq!(
        r.json["matches"].as_array().map(Vec::len),
        Some(15),
        "{}",
        r.json
    );
    for i in 0..21 {
        env.write("c.txt", format!("{i}\n"));
        env.git(&["add", "c.txt"]);
        env.git(&["commit", "-qm", &format!("c{i}")]);
    }
    let r = env.run(&["git", "log"]);
    assert_eq!(
        r.json["items"].as_array().map(Vec::len),
        Some(20),
        "{}",
        r.json
    );
}

/// `--encoding` lists the names it takes in the schema (table read and agg
/// listed none), and takes the other spellings and any case as before.
#[test]
fn every_encoding_option_lists_its_names_and_takes_their_spellings() {
    let env = TestEnv::new();
    let names = [
        "utf-8",
        "shift_jis",
        "euc-jp",
        "iso-8859-1",
        "utf-16le",
        "utf-16be",
    ];
    for cmd in [
        &["read"][..],
        &["table", "read"],
        &["table", "agg"],
        &["edit"],
    ] {
        let mut argv = vec!["schema"];
        argv.extend_from_slice(cmd);
        argv.push("--full");
        let s = env.run(&argv);
        let args = s.json["commands"][0]["args"].as_array().unwrap().clone();
        let enc = args
            .into_iter()
            .find(|a| a["name"] == "--encoding")
            .unwrap();
        assert_eq!(enc["values"], serde_json::json!(names), "{cmd:?}");
    }
    env.write("t.csv", b"a,b\n\xe9,2\n");
    for spelling in ["latin1", "ISO-8859-1", "Latin-1"] {
        let r = env.run(&["table", "read", "t.csv", "--encoding", spelling]);
        assert_eq!(r.json["rows"][0][0], "é", "{spelling}: {}", r.json);
        let r = env.run(&["read", "t.csv", "--encoding", spelling]);
        assert_eq!(r.json["status"], "ok", "{spelling}: {}", r.json);
    }
}
