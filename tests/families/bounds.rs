//! Bounded cost on hostile inputs (issue 28): nesting past the depth budget,
//! files too large to hold whole, patches that grow without end, numbers that
//! do not fit a float, and MCP requests that are malformed or huge. Each answer
//! is an envelope (or a JSON-RPC reply) within a memory budget, never a crash.

use crate::support::TestEnv;
use crate::support::fixtures::{peak_kib, peak_rss, timed};

/// The budget every call here must stay under (peak resident set).
const BUDGET_KIB: u64 = 512 * 1024;

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
        let (r, kib) = peak_rss(&env, args);
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

/// Feeds raw lines to `aitools mcp`, then closes stdin: the JSON replies, the
/// server's exit code and its peak RSS (KiB).
fn mcp_session(env: &TestEnv, lines: &[Vec<u8>]) -> (Vec<serde_json::Value>, Option<i32>, u64) {
    use std::io::Write;
    use std::process::Stdio;
    let (c, out_file) = timed(env, &["mcp", "--root", "."]);
    let mut child = env
        .isolate(c)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn aitools mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let feed: Vec<Vec<u8>> = lines.to_vec();
    let writer = std::thread::spawn(move || {
        for l in feed {
            if stdin
                .write_all(&l)
                .and_then(|_| stdin.write_all(b"\n"))
                .is_err()
            {
                break;
            }
        }
    });
    let out = child.wait_with_output().expect("wait");
    let _ = writer.join();
    let replies = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (replies, out.status.code(), peak_kib(&out_file))
}

fn mcp_req(id: i64, method: &str, params: serde_json::Value) -> Vec<u8> {
    let mut params = params;
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

fn reply(replies: &[serde_json::Value], id: i64) -> &serde_json::Value {
    replies
        .iter()
        .find(|r| r["id"] == serde_json::json!(id))
        .unwrap_or_else(|| panic!("no reply {id} in {replies:?}"))
}

#[test]
fn mcp_answers_a_null_id_and_bad_arguments_as_the_spec_asks() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    let (replies, code, _) = mcp_session(
        &env,
        &[
            br#"{"jsonrpc":"2.0","id":null,"method":"ping","params":{}}"#.to_vec(),
            mcp_req(
                2,
                "tools/call",
                serde_json::json!({"name": "read", "arguments": {"path": "a.txt", "nope": 1}}),
            ),
            mcp_req(
                3,
                "tools/call",
                serde_json::json!({"name": "read", "arguments": {"path": ["a.txt"]}}),
            ),
        ],
    );
    assert_eq!(code, Some(0));
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(replies[0]["id"], serde_json::Value::Null);
    assert_eq!(replies[0]["error"]["code"], -32600, "{}", replies[0]);
    for id in [2, 3] {
        let r = &reply(&replies, id)["result"];
        assert_eq!(r["isError"], true, "{r}");
        let e = &r["structuredContent"]["error"];
        assert_eq!(e["code"], "argument.invalid", "{r}");
        assert_eq!(e["repairs"][0]["command"], "aitools schema read");
    }
}

#[test]
fn mcp_survives_a_huge_line_invalid_utf8_and_a_deep_toml_within_budget() {
    let env = TestEnv::new();
    env.write("deep.toml", format!("a = {}\n", nested("[", "]", 20_000)));
    let mut huge =
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"".to_vec();
    huge.resize(100 << 20, b'a');
    let (replies, code, kib) = mcp_session(
        &env,
        &[
            huge,
            b"\xff\xfe{\"id\":\xc3}".to_vec(),
            mcp_req(
                3,
                "tools/call",
                serde_json::json!({"name": "check", "arguments": {"paths": ["deep.toml"]}}),
            ),
            mcp_req(4, "ping", serde_json::json!({})),
        ],
    );
    assert_eq!(code, Some(0), "{replies:?}");
    assert_eq!(replies.len(), 4, "{replies:?}");
    assert_eq!(replies[0]["error"]["code"], -32600, "{}", replies[0]);
    assert_eq!(replies[1]["error"]["code"], -32700, "{}", replies[1]);
    let r = &reply(&replies, 3)["result"];
    assert_eq!(
        r["structuredContent"]["error"]["code"], "input.syntax-error",
        "{r}"
    );
    assert!(reply(&replies, 4)["result"].is_object());
    assert!(kib < BUDGET_KIB, "peak {kib} KiB");
}

#[test]
fn json_patch_copy_doublings_stop_at_the_budget() {
    let env = TestEnv::new();
    env.write("p.json", "{\"a\": [1]}\n");
    let op = r#"{"op":"copy","from":"/a","path":"/a/-"}"#;
    let patch = format!("[{}]", vec![op; 40].join(","));
    let started = std::time::Instant::now();
    let r = env.run_stdin(&["json", "patch", "p.json", "--stdin"], patch.as_bytes());
    assert_eq!(r.error_code(), "refusal.too-large", "{}", r.stdout);
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    assert_eq!(env.read("p.json"), b"{\"a\": [1]}\n");
}

#[test]
fn json_commands_refuse_nesting_past_the_budget() {
    let env = TestEnv::new();
    env.write("deep.json", nested("[", "]", 100_000));
    for args in [
        &["json", "get", "deep.json", "/0"][..],
        &["json", "select", "deep.json", "/0"],
        &["json", "set", "deep.json", "/0", "1"],
    ] {
        let r = env.run(args);
        assert_eq!(
            r.error_code(),
            "refusal.too-large",
            "{args:?}: {}",
            r.stdout
        );
    }
}

#[test]
fn json_get_returns_numbers_as_written() {
    let env = TestEnv::new();
    let long = "7".repeat(100_001);
    env.write(
        "n.json",
        format!("{{\"inf\": 1e999999, \"big\": 18446744073709551616, \"dec\": 1.50, \"neg\": -0, \"long\": {long}}}\n"),
    );
    let raw = |ptr: &str| {
        let out = env
            .command(&["json", "get", "n.json", ptr])
            .output()
            .expect("spawn");
        assert_eq!(out.status.code(), Some(0), "{ptr}");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    for (ptr, text) in [
        ("/inf", "1e999999"),
        ("/big", "18446744073709551616"),
        ("/dec", "1.50"),
        ("/neg", "-0"),
    ] {
        let out = raw(ptr);
        assert!(out.contains(&format!("\"value\":{text},")), "{ptr}: {out}");
    }
    let r = env
        .command(&["json", "get", "n.json", "/long", "--max-bytes", "200000"])
        .output()
        .expect("spawn");
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(!out.contains("\"value\":null"), "{out:.300}");
    // The machine mode reads the answer back before streaming it: the numbers
    // serde cannot hold must not turn it into internal.unexpected.
    let r = env
        .command(&["json", "get", "n.json", "/inf", "--output", "jsonl"])
        .output()
        .expect("spawn");
    let out = String::from_utf8_lossy(&r.stdout);
    assert_eq!(r.status.code(), Some(0), "{out}");
    assert!(out.contains("1e999999"), "{out}");
    assert!(!out.contains("internal"), "{out}");
}

#[test]
fn check_reports_every_invalid_toml_of_the_corpus() {
    let env = TestEnv::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/toml-invalid");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus")
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    assert!(names.len() >= 74, "{} files", names.len());
    let mut passed = Vec::new();
    for p in &names {
        env.write("t.toml", std::fs::read(p).expect("read fixture"));
        let r = env.run(&["check", "t.toml"]);
        if r.error_code() != "input.syntax-error" {
            passed.push(p.file_name().map(|n| n.to_string_lossy().into_owned()));
        }
    }
    assert!(
        passed.is_empty(),
        "{} of {} not reported: {passed:?}",
        passed.len(),
        names.len()
    );
    env.write(
        "ok.toml",
        "d = 2000-02-29\nt = 1979-05-27T23:59:60Z\nl = 07:32:00.5\nn = -9223372036854775808\na.b = 1\na.c = 2\n\
         [x.y]\nk = 1\n[x]\nj = 2\n[[p]]\nq = {r = 1}\n[p.s]\nu = 1\n[[p]]\n[p.s]\nu = 2\n",
    );
    let r = env.run(&["check", "ok.toml"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // A header may open a table below one dotted keys made, or one a header
    // only implied (python's tomllib agrees on every file of this test).
    env.write(
        "ok2.toml",
        "[f]\napple.color = 1\n[f.apple.texture]\nx = 1\n[a.b.c]\n[a]\nb.d = 1\n[[t]]\nu.v = 1\n[[t]]\nu.v = 2\n",
    );
    let r = env.run(&["check", "ok2.toml"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn check_reports_yaml_duplicate_keys() {
    let env = TestEnv::new();
    env.write("dup.yaml", "a:\n  - b: 1\n    b: 2\n");
    env.write(
        "ok.yaml",
        "a:\n  b: 1\nc:\n  b: 1\nl:\n  - x: 1\n  - x: 2\nd: &d {p: 1}\ne:\n  <<: *d\n",
    );
    let r = env.run(&["check", "dup.yaml"]);
    assert_eq!(r.error_code(), "input.syntax-error", "{}", r.stdout);
    assert_eq!(r.json["error"]["diagnostics"][0]["line"], 3);
    assert_eq!(env.run(&["check", "ok.yaml"]).code, 0);
}

/// Keys are compared as YAML 1.2's core schema reads them: equal values are a
/// duplicate whatever their spelling (`1`/`0x1`/`+1`, `true`/`True`, `~`/`null`,
/// `1.0`/`1.00`), values of different types are not (`1`/`"1"`, `1`/`1.0`,
/// `1`/`!!str 1`). Main reported `1: x` + `"1": y` and missed the rest.
#[test]
fn check_compares_yaml_keys_as_values() {
    let env = TestEnv::new();
    let mut wrong = Vec::new();
    let pairs = [
        ("a", "a", true),
        ("a", "\"a\"", true),
        ("'a'", "\"a\"", true),
        ("1", "0x1", true),
        ("1", "+1", true),
        ("8", "0o10", true),
        ("0", "-0", true),
        ("007", "7", true),
        ("true", "True", true),
        ("false", "FALSE", true),
        ("null", "~", true),
        ("NULL", "Null", true),
        ("1.0", "1.00", true),
        (".inf", "+.INF", true),
        ("1e3", "1000.0", true),
        ("!!int \"1\"", "1", true),
        ("1", "\"1\"", false),
        ("1", "1.0", false),
        ("1", "!!str 1", false),
        ("true", "'true'", false),
        ("null", "\"\"", false),
        ("0x1", "\"0x1\"", false),
        ("a", "b", false),
        ("yes", "true", false),
    ];
    for (i, (k1, k2, dup)) in pairs.into_iter().enumerate() {
        for (j, text) in [
            format!("{k1}: x\n{k2}: y\n"),
            format!("m:\n  {k1}: x\n  {k2}: y\n"),
            format!("- {{{k1}: x, {k2}: y}}\n"),
        ]
        .into_iter()
        .enumerate()
        {
            let name = format!("k{i}-{j}.yaml");
            env.write(&name, &text);
            let r = env.run(&["check", &name]);
            let said = r.error_code() == "input.syntax-error";
            let line = &r.json["error"]["diagnostics"][0]["line"];
            if said != dup || (dup && *line != [2, 3, 1][j]) {
                wrong.push(format!("{text:?}: {}", r.stdout));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
