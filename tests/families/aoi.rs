//! AOI-CLI machine mode (seed 000, issue 15): `--output jsonl` on every command of
//! the registry, every line validated against `aitools schema --output json` with a
//! JSON Schema 2020-12 validator, and the seed's 16 conformance checks (section
//! 18.2) as tests, each over every command where it applies.

use crate::support::TestEnv;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

/// One call in the mode: exit code, raw stdout, the parsed lines.
pub(super) struct Stream {
    pub(super) code: i32,
    pub(super) raw: String,
    pub(super) events: Vec<Value>,
    pub(super) stderr: String,
}

impl Stream {
    pub(super) fn of_type(&self, t: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == t).collect()
    }
    pub(super) fn summary(&self) -> &Value {
        self.events.last().expect("a last line")
    }
}

pub(super) fn run_cmd(mut c: Command) -> Stream {
    let out = c.output().expect("spawn aitools");
    let raw = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let events = raw
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l:?}")))
        .collect();
    Stream {
        code: out.status.code().unwrap_or(-1),
        raw,
        events,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub(super) fn jsonl(env: &TestEnv, args: &[&str]) -> Stream {
    let mut a: Vec<&str> = args.to_vec();
    let at = a.iter().position(|x| *x == "--").unwrap_or(a.len());
    a.insert(at, "jsonl");
    a.insert(at, "--output");
    run_cmd(env.command(&a))
}

fn schema_doc(env: &TestEnv) -> Value {
    let out = env
        .command(&["schema", "--output", "json"])
        .output()
        .expect("spawn");
    assert_eq!(out.status.code(), Some(0));
    serde_json::from_slice(&out.stdout).expect("schema is one JSON object")
}

pub(super) fn validator(env: &TestEnv) -> jsonschema::Validator {
    let doc = schema_doc(env);
    jsonschema::draft202012::new(&doc).expect("the schema compiles as JSON Schema 2020-12")
}

/// The checks every stream must pass (seed 2, 3, 4, 5, 9, 14, 15), and every line
/// valid against the declared schema.
pub(super) fn check_stream(v: &jsonschema::Validator, s: &Stream, what: &str) {
    assert!(
        s.raw.ends_with('\n'),
        "{what}: the last line ends with a line feed"
    );
    assert!(!s.raw.contains('\u{1b}'), "{what}: no ANSI escapes");
    assert!(
        s.events.len() >= 2,
        "{what}: meta and summary at least: {}",
        s.raw
    );
    let run = s.events[0]["aoi"]["run"].as_str().expect("aoi.run");
    for (i, e) in s.events.iter().enumerate() {
        assert!(
            e.is_object() && e["type"].is_string(),
            "{what}: line {i} has type"
        );
        assert_eq!(e["aoi"]["seq"], i as u64, "{what}: seq contiguous from 0");
        assert_eq!(e["aoi"]["run"], run, "{what}: one run id");
        let errors: Vec<String> = v.iter_errors(e).map(|x| x.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{what}: line {i} {e} fails the schema: {errors:?}"
        );
        let t = e["type"].as_str().unwrap_or("");
        if t == "aoi:meta" {
            assert_eq!(i, 0, "{what}: aoi:meta only first");
        }
        if t == "aoi:summary" {
            assert_eq!(i, s.events.len() - 1, "{what}: aoi:summary only last");
        }
        if t == "aoi:error" {
            assert_ne!(e["category"], "partial", "{what}: no partial category");
            if e["retryable"] == false {
                assert!(e.get("retry_after_ms").is_none(), "{what}: {e}");
            }
        }
    }
    assert_eq!(s.events[0]["type"], "aoi:meta", "{what}");
    let sum = s.summary();
    assert_eq!(sum["type"], "aoi:summary", "{what}: {}", s.raw);
    assert_eq!(sum["event_count"], s.events.len() as u64, "{what}");
    let domain = s
        .events
        .iter()
        .filter(|e| !e["type"].as_str().unwrap_or("aoi:").starts_with("aoi:"))
        .count();
    assert_eq!(sum["count"], domain as u64, "{what}: count = domain events");
    assert_eq!(
        sum["error_count"],
        s.of_type("aoi:error").len() as u64,
        "{what}"
    );
    for k in [
        "tool",
        "tool_version",
        "aoi_version",
        "schema_name",
        "schema_version",
    ] {
        assert_eq!(sum[k], s.events[0][k], "{what}: {k} at both ends");
    }
    // Exit status and outcome agree (seed 4.1, 6).
    if sum["ok"] == true {
        assert_eq!(s.code, 0, "{what}: ok exits 0: {}", s.raw);
    } else {
        assert_ne!(s.code, 0, "{what}: not ok exits non-zero: {}", s.raw);
        assert!(sum["reason"].is_string(), "{what}: reason when not ok");
    }
    assert!(
        s.stderr.is_empty(),
        "{what}: nothing on stderr: {}",
        s.stderr
    );
}

fn command_names(env: &TestEnv) -> Vec<String> {
    let out = env
        .command(&["capabilities", "--output", "json"])
        .output()
        .expect("spawn");
    let caps: Value = serde_json::from_slice(&out.stdout).expect("capabilities JSON");
    caps["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|c| c["name"].as_str().expect("name").to_string())
        .collect()
}

fn fixture() -> TestEnv {
    let env = TestEnv::new();
    env.write("a.txt", "hello\nworld\n");
    env.write("b.txt", "hello\nthere\n");
    env.write("src/lib.rs", "pub fn main() {}\nfn helper() { main() }\n");
    env
}

/// Check 1 (Discoverable): the schema is JSON Schema 2020-12 with a $defs entry
/// per event type; capabilities is one object listing every registered command.
#[test]
fn aoi_check01_schema_and_capabilities() {
    let env = fixture();
    let doc = schema_doc(&env);
    assert_eq!(
        doc["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(!doc["$id"].as_str().unwrap_or("file:").starts_with("file:"));
    for t in [
        "aoi:meta",
        "aoi:summary",
        "aoi:error",
        "aoi:check",
        "aoi:plan",
        "aoi:warning",
        "match",
        "block",
        "entry",
        "line",
        "op",
        "change",
        "result",
    ] {
        assert!(doc["$defs"][t].is_object(), "$defs has {t}");
    }
    validator(&env);
    let names = command_names(&env);
    for n in [
        "read",
        "search",
        "find",
        "edit",
        "delete",
        "capabilities",
        "doctor",
        "tx commit",
    ] {
        assert!(names.iter().any(|x| x == n), "capabilities lists {n}");
    }
    // The envelope form of both still works.
    let r = env.run(&["capabilities"]);
    assert_eq!(r.field("aoi_versions")[0], "1.0-alpha");
}

/// Checks 2, 4, 5, 13, 14, 15 over every command: a malformed call exits non-zero
/// with a well-formed aoi:error, and every line validates.
#[test]
fn aoi_check05_every_command_malformed_usage() {
    let env = fixture();
    let v = validator(&env);
    for name in command_names(&env) {
        let mut args: Vec<&str> = name.split(' ').collect();
        args.push("--no-such-option-at-all");
        let s = jsonl(&env, &args);
        check_stream(&v, &s, &name);
        assert_ne!(s.code, 0, "{name}");
        let errs = s.of_type("aoi:error");
        assert_eq!(errs.len(), 1, "{name}: {}", s.raw);
        for k in ["category", "code", "message", "retryable"] {
            assert!(errs[0].get(k).is_some(), "{name}: aoi:error has {k}");
        }
        assert_eq!(errs[0]["category"], "usage", "{name}");
        assert_eq!(s.code, 64, "{name}: EX_USAGE");
        assert_eq!(s.events[0]["command"], name.as_str());
    }
}

/// Checks 2, 3, 4, 8, 11, 14, 15: a real call of every command family succeeds
/// with a valid stream; domain events carry what the envelope carried.
#[test]
fn aoi_check03_success_streams_of_every_family() {
    let env = fixture();
    let v = validator(&env);
    let calls: &[&[&str]] = &[
        &["read", "a.txt"],
        &["info", "a.txt"],
        &["diff", "a.txt", "b.txt"],
        &["search", "hello"],
        &["search", "hello", "--output", "matches"],
        &["search", "hello", "--count"],
        &["search", "hello", "--files-with-matches"],
        &["find"],
        &["overview"],
        &["code", "outline", "src/lib.rs"],
        &["code", "refs", "main"],
        &["history"],
        &["schema"],
        &["schema", "read"],
        &["skills"],
        &["capabilities"],
        &["doctor"],
        &["gc", "--dry-run"],
        &["recover"],
        &["mkdir", "d"],
        &["touch", "t.txt"],
        &["write", "w.txt", "--content", "x\n"],
        &["copy", "w.txt", "w2.txt"],
        &["move", "w2.txt", "w3.txt"],
        &["edit", "a.txt", "--old", "hello", "--new", "bye"],
        &["insert", "a.txt", "--at", "end", "--content", "tail"],
        &["replace", "there", "here", "b.txt", "--expect-count", "1"],
        &["delete", "w3.txt", "--confirm"],
        &["feedback", "list"],
    ];
    for args in calls {
        let what = args.join(" ");
        let s = jsonl(&env, args);
        check_stream(&v, &s, &what);
        assert_eq!(s.summary()["ok"], true, "{what}: {}", s.raw);
    }
    // A write's change names its file and the op that undoes it (check 8).
    let s = jsonl(&env, &["write", "n.txt", "--content", "n\n"]);
    let ch = s.of_type("change");
    assert_eq!(ch.len(), 1, "{}", s.raw);
    assert_eq!(ch[0]["path"], "n.txt");
    let op = ch[0]["op_id"].as_str().expect("op_id").to_string();
    let s = jsonl(&env, &["history"]);
    assert!(s.of_type("op").iter().any(|o| o["op_id"] == op.as_str()));
    let s = jsonl(&env, &["undo", &op]);
    check_stream(&v, &s, "undo");
    assert_eq!(s.summary()["ok"], true, "{}", s.raw);
    // read: one line event per line, numbered.
    let s = jsonl(&env, &["read", "b.txt"]);
    let lines = s.of_type("line");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["line_number"], 2);
    assert_eq!(lines[1]["path"], "b.txt");
}

/// Check 6 (Safe): a destructive command refuses without --confirm and changes
/// nothing; --dry-run emits aoi:plan and changes nothing.
#[test]
fn aoi_check06_destructive_needs_confirm_dry_run_plans() {
    let env = fixture();
    let v = validator(&env);
    let s = jsonl(&env, &["delete", "a.txt"]);
    check_stream(&v, &s, "delete");
    assert_eq!(
        s.of_type("aoi:error")[0]["code"],
        "REFUSAL_CONFIRM_REQUIRED"
    );
    assert!(env.path("a.txt").exists());
    let s = jsonl(&env, &["delete", "a.txt", "--dry-run"]);
    check_stream(&v, &s, "delete --dry-run");
    let plans = s.of_type("aoi:plan");
    assert_eq!(plans.len(), 1, "{}", s.raw);
    assert_eq!(plans[0]["target"], "a.txt");
    assert!(env.path("a.txt").exists());
    let caps: Value = serde_json::from_slice(
        &env.command(&["capabilities", "--output", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    for c in caps["commands"].as_array().unwrap() {
        if c["destructive"] == true {
            let name = c["name"].as_str().unwrap();
            let mut args: Vec<&str> = name.split(' ').collect();
            args.push("x");
            let s = jsonl(&env, &args);
            check_stream(&v, &s, name);
            assert_eq!(
                s.of_type("aoi:error")[0]["code"],
                "REFUSAL_CONFIRM_REQUIRED",
                "{name}"
            );
        }
    }
    // With --confirm it runs.
    let s = jsonl(&env, &["delete", "a.txt", "--confirm"]);
    assert_eq!(s.summary()["ok"], true, "{}", s.raw);
    assert!(!env.path("a.txt").exists());
    // The envelope mode is unchanged: no --confirm needed there.
    assert_eq!(env.run(&["delete", "b.txt"]).code, 0);
}

/// Check 9 (Safe): a secret in the arguments or the content is never echoed raw,
/// in any event (meta does not echo argv; every line passes the mask).
#[test]
fn aoi_check09_secrets_masked_in_every_event() {
    let env = fixture();
    let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    env.write(
        "cfg.env",
        format!("password = \"{token}\"\nAPI_TOKEN={token}\n"),
    );
    for args in [
        &["read", "cfg.env"][..],
        &["search", "password"][..],
        &["search", "API_TOKEN", "--output", "matches"][..],
        &["read", token][..],
        &["find", "--glob", token][..],
    ] {
        let s = jsonl(&env, args);
        assert!(!s.raw.contains(token), "{args:?} leaked: {}", s.raw);
    }
}

/// Check 10 (Composable): a closed pipe ends quietly; SIGINT and SIGTERM end with
/// a cancelled summary.
#[test]
fn aoi_check10_closed_pipe_and_signals() {
    let env = fixture();
    for i in 0..400 {
        env.write(&format!("many/f{i:03}.txt"), "hello\n".repeat(50));
    }
    // Closed pipe: read one line, close, the process ends with nothing on stderr.
    let mut child = env
        .command(&["search", "hello", "--limit", "100000", "--output", "jsonl"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.contains("aoi:meta"));
    drop(out);
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.is_empty(), "stderr after a closed pipe: {err}");
    assert!(matches!(status.code(), Some(0) | Some(141)), "{status:?}");

    // Signals: a search reading stdin as its pattern waits; a signal cancels it.
    for (sig, code) in [(libc_sig("INT"), 130), (libc_sig("TERM"), 143)] {
        let mut child = env
            .command(&["search", "--stdin", "--output", "jsonl"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut meta = String::new();
        out.read_line(&mut meta).unwrap();
        assert!(meta.contains("aoi:meta"));
        let ok = Command::new("kill")
            .args([sig, &child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let mut rest = String::new();
        out.read_to_string(&mut rest).unwrap();
        let status = child.wait().unwrap();
        let last: Value = serde_json::from_str(rest.lines().last().expect("a summary")).unwrap();
        assert_eq!(last["type"], "aoi:summary");
        assert_eq!(last["ok"], false);
        assert_eq!(last["reason"], "cancelled");
        assert_eq!(last["event_count"], 2);
        assert_eq!(status.code(), Some(code));
        drop(child.stdin.take());
    }
}

fn libc_sig(name: &str) -> &'static str {
    match name {
        "INT" => "-INT",
        _ => "-TERM",
    }
}

/// Check 11 (Bounded): --limit cuts report truncated with a cursor, exit 0; an
/// uncut answer has no cursor.
#[test]
fn aoi_check11_limit_truncated_and_cursor() {
    let env = fixture();
    let v = validator(&env);
    for args in [
        &["find", "--limit", "1"][..],
        &["read", "a.txt", "--max-lines", "1"][..],
    ] {
        let s = jsonl(&env, args);
        check_stream(&v, &s, &args.join(" "));
        let sum = s.summary();
        assert_eq!(sum["truncated"], true, "{args:?}: {}", s.raw);
        assert_eq!(sum["ok"], true);
        assert_eq!(s.code, 0, "a truncated answer is success");
        let cursor = sum["next_cursor"].as_str().expect("next_cursor");
        assert!(cursor.starts_with("aitools "), "{cursor}");
    }
    let s = jsonl(&env, &["find"]);
    assert_eq!(s.summary()["truncated"], false);
    assert!(s.summary().get("next_cursor").is_none());
}

/// Check 12 (Composable): no command reads JSONL input, and capabilities says so
/// (input_modes empty), so a malformed line cannot be mishandled.
#[test]
fn aoi_check12_input_modes_declared() {
    let env = fixture();
    let caps: Value = serde_json::from_slice(
        &env.command(&["capabilities", "--output", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(caps["input_modes"], serde_json::json!([]));
}

/// Check 13 (Versioned): schema_version in meta; --schema-version 1 is honoured,
/// an unknown major is refused as unsupported.
#[test]
fn aoi_check13_schema_version_negotiation() {
    let env = fixture();
    let v = validator(&env);
    let s = jsonl(&env, &["read", "a.txt", "--schema-version", "1"]);
    check_stream(&v, &s, "v1");
    assert_eq!(s.events[0]["schema_version"], "1.0.0");
    assert_eq!(s.summary()["ok"], true);
    let s = jsonl(&env, &["read", "a.txt", "--schema-version", "2"]);
    check_stream(&v, &s, "v2");
    assert_eq!(s.of_type("aoi:error")[0]["category"], "unsupported");
}

/// Check 16 (Composable): fed an upstream AOI stream on stdin, no command forwards
/// its meta or summary (aitools is a source: it never relays a stream).
#[test]
fn aoi_check16_upstream_stream_not_forwarded() {
    let env = fixture();
    let v = validator(&env);
    let upstream = "{\"type\":\"aoi:meta\",\"aoi\":{\"seq\":0,\"run\":\"UPSTREAM\"},\"tool\":\"up\"}\n{\"type\":\"aoi:summary\",\"aoi\":{\"seq\":1,\"run\":\"UPSTREAM\"},\"ok\":true}\n";
    for args in [
        &["search", "--stdin"][..],
        &["read", "a.txt"][..],
        &["find"][..],
    ] {
        let mut a = args.to_vec();
        a.extend(["--output", "jsonl"]);
        let mut c = env.command(&a);
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let _ = child.stdin.take().unwrap().write_all(upstream.as_bytes());
        let out = child.wait_with_output().unwrap();
        let raw = String::from_utf8(out.stdout).unwrap();
        // No line of the output is an upstream event (search --stdin may quote
        // the text it read as its pattern inside an error message: that is data).
        for l in raw.lines() {
            let e: Value = serde_json::from_str(l).unwrap();
            assert_ne!(e["aoi"]["run"], "UPSTREAM", "{args:?} forwarded: {l}");
        }
        let s = Stream {
            code: out.status.code().unwrap_or(-1),
            events: raw
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect(),
            raw,
            stderr: String::new(),
        };
        check_stream(&v, &s, &args.join(" "));
    }
}

/// The error table: every aitools code maps to a seed category; retry fields agree.
#[test]
fn aoi_error_categories_and_exit_codes() {
    let env = fixture();
    let v = validator(&env);
    let s = jsonl(&env, &["read", "missing.txt"]);
    check_stream(&v, &s, "not found");
    let e = s.of_type("aoi:error")[0];
    assert_eq!(e["category"], "not_found");
    assert_eq!(e["code"], "INPUT_NOT_FOUND");
    assert_eq!(e["details"]["code"], "input.not-found");
    assert!(e["hint"].as_str().unwrap().starts_with("aitools "));
    assert_eq!(s.code, 66);
    let s = jsonl(
        &env,
        &["edit", "a.txt", "--old", "nothing-like-this", "--new", "x"],
    );
    check_stream(&v, &s, "no match");
    assert_eq!(s.code, 65);
    let s = jsonl(&env, &["write", "../outside.txt", "--content", "x"]);
    check_stream(&v, &s, "outside");
    assert_eq!(s.of_type("aoi:error")[0]["category"], "authz");
    assert_eq!(s.summary()["reason"], "denied");
    assert_eq!(s.code, 77);
    // The envelope mode keeps its codes.
    assert_eq!(env.run(&["read", "missing.txt"]).code, 1);
}

/// --help in this mode is the seed's human-readable help, not JSON.
#[test]
fn aoi_help_is_human_readable() {
    let env = fixture();
    let out = env
        .command(&["read", "--help", "--output", "jsonl"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("aitools read: "), "{text}");
    assert!(serde_json::from_str::<Value>(&text).is_err());
    assert_eq!(out.status.code(), Some(0));
}

/// doctor: each check an aoi:check event; --lint runs the conformance checks.
#[test]
fn aoi_doctor_checks_and_lint() {
    let env = fixture();
    let v = validator(&env);
    let s = jsonl(&env, &["doctor"]);
    check_stream(&v, &s, "doctor");
    let names: Vec<&str> = s
        .of_type("aoi:check")
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for n in [
        "state_dir_trusted",
        "state_dir_writable",
        "pending_recovery",
        "lock",
        "git",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
    let r = env.run(&["doctor"]);
    assert_eq!(r.field("ok"), true, "{}", r.stdout);
    let s = jsonl(&env, &["doctor", "--lint"]);
    check_stream(&v, &s, "doctor --lint");
    let failed: Vec<&Value> = s
        .of_type("aoi:check")
        .into_iter()
        .filter(|c| c["ok"] == false && c["severity"] == "error")
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    assert!(
        s.of_type("aoi:check")
            .iter()
            .any(|c| c["name"] == "aoi_lint_15_seq")
    );
}

/// Search streams its blocks from the handler (ctx.events); they are exactly the
/// envelope's blocks, and the cursor is the envelope's continuation.
#[test]
fn aoi_search_events_equal_the_envelope() {
    let env = fixture();
    for i in 0..50 {
        env.write(&format!("t/f{i:02}.txt"), "x hello y\nzz\nhello\n");
    }
    let s = jsonl(&env, &["search", "hello", "--limit", "30"]);
    let r = env.run(&["search", "hello", "--limit", "30"]);
    let blocks: Vec<Value> = s
        .of_type("block")
        .iter()
        .map(|b| {
            let mut b = (*b).clone();
            b.as_object_mut().unwrap().remove("aoi");
            b.as_object_mut().unwrap().remove("type");
            b
        })
        .collect();
    assert_eq!(
        Value::Array(blocks),
        crate::support::expand_search(&r.json)["blocks"]
    );
    assert_eq!(s.summary()["next_cursor"], r.json["next_commands"][0]);
}

/// The event list follows the command's declared nature (the field capabilities
/// and the MCP annotations read), not the shared write options alone: `batch`
/// journals its writes, so its changes stream as `change` events (each naming
/// the op) and a dry run's as `aoi:plan`, and capabilities says so.
#[test]
fn aoi_batch_streams_its_changes_as_a_write_does() {
    let env = fixture();
    let v = validator(&env);
    let data = r#"[["write","n1.txt","--content","1"],["write","n2.txt","--content","2"]]"#;
    let s = jsonl(&env, &["batch", "--atomic", "--stdin-data", data]);
    check_stream(&v, &s, "batch --atomic");
    assert_eq!(s.summary()["ok"], true, "{}", s.raw);
    let ch = s.of_type("change");
    let paths: Vec<&str> = ch.iter().filter_map(|c| c["path"].as_str()).collect();
    assert_eq!(paths, ["n1.txt", "n2.txt"], "{}", s.raw);
    assert!(ch.iter().all(|c| c["op_id"].is_string()), "{}", s.raw);
    let data = r#"[["write","n3.txt","--content","3"]]"#;
    let s = jsonl(&env, &["batch", "--dry-run", "--stdin-data", data]);
    check_stream(&v, &s, "batch --dry-run");
    let plans = s.of_type("aoi:plan");
    assert_eq!(plans.len(), 1, "{}", s.raw);
    assert_eq!(plans[0]["target"], "n3.txt");
    assert!(!env.path("n3.txt").exists());
    let caps: Value = serde_json::from_slice(
        &env.command(&["capabilities", "--output", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let batch = caps["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "batch")
        .expect("batch in capabilities");
    let types = batch["event_types"].as_array().unwrap();
    assert!(types.contains(&json!("change")), "{batch}");
    assert!(types.contains(&json!("aoi:plan")), "{batch}");
}

/// find's rows become `entry` events that name their values: the result event
/// leaves the envelope's `fields` out, as it says nothing the events do not.
#[test]
fn aoi_find_rows_leave_fields_out_of_the_result() {
    let env = fixture();
    let v = validator(&env);
    for args in [
        &["find", "--sizes"][..],
        &["find", "--fields", "size"][..],
        &["find", "--long"][..],
    ] {
        let s = jsonl(&env, args);
        check_stream(&v, &s, &args.join(" "));
        let entries = s.of_type("entry");
        assert!(!entries.is_empty(), "{args:?}: {}", s.raw);
        assert!(entries.iter().all(|e| e.get("path").is_some()), "{}", s.raw);
        for r in s.of_type("result") {
            assert!(r.get("fields").is_none(), "{args:?}: {r}");
        }
    }
}
