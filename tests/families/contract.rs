//! The declared contract against real answers. Every black-box call checks its
//! envelope (`support::check_contract`: members among the command's
//! `output_fields`, error codes among its `error_codes`); this script runs the
//! registered commands once on a temp repository, and every command must be run by
//! some test of tests/families/.

use crate::support::{Run, TestEnv, declared};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

fn field(r: &Run, k: &str) -> String {
    r.json[k].as_str().unwrap_or_default().to_string()
}

#[test]
fn every_command_answers_only_declared_fields_and_codes() {
    let env = TestEnv::new();
    let d = declared();
    env.write("a.txt", "alpha\nbeta\n");
    env.write("src/lib.rs", "fn keep() {}\nfn other() { keep(); }\n");
    let ran: RefCell<BTreeSet<String>> = RefCell::default();
    let run = |args: &[&str]| -> Run {
        let r = env.run(args);
        ran.borrow_mut().insert(field(&r, "command"));
        r
    };
    let run_stdin = |args: &[&str], input: &[u8]| -> Run {
        let r = env.run_stdin(args, input);
        ran.borrow_mut().insert(field(&r, "command"));
        r
    };
    let w = run(&["write", "b.txt", "--content", "one\ntwo\n"]);
    let op = field(&w, "op_id");
    let hash = field(&run(&["info", "a.txt"]), "hash");
    run(&["read", "a.txt"]);
    run(&["read", "missing.txt"]);
    run(&["diff", "a.txt", "b.txt"]);
    run(&["diff", "--op", &op]);
    run(&["search", "alpha"]);
    run(&["search", "("]);
    run(&["find", "--type", "file"]);
    run(&["overview"]);
    run(&["code", "outline", "src/lib.rs"]);
    run(&["code", "defs", "keep"]);
    run(&["code", "refs", "keep"]);
    run(&["edit", "a.txt", "--old", "beta", "--new", "gamma"]);
    run(&["edit", "a.txt", "--old", "nothing", "--new", "x"]);
    run(&["insert", "a.txt", "--at", "end", "--content", "tail"]);
    run(&["replace", "alpha", "ALPHA", "a.txt", "--dry-run"]);
    run(&["replace", "alpha", "ALPHA", "a.txt", "--expect-count", "1"]);
    run(&["write", "a.txt", "--content", "x\n", "--expect-hash", &hash]);
    let patch = "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n";
    run_stdin(&["apply", "--stdin"], patch.as_bytes());
    run(&["copy", "b.txt", "c.txt"]);
    run(&["move", "c.txt", "d.txt"]);
    run(&["delete", "d.txt"]);
    run(&["mkdir", "dir/sub"]);
    run(&["chmod", "b.txt", "--exec"]);
    run(&["link", "b.txt", "l.txt"]);
    run(&["touch", "e.txt"]);
    run(&["history"]);
    run(&["undo", &op, "--dry-run"]);
    run(&["recover"]);
    run(&["gc", "--dry-run"]);
    run(&["schema"]);
    run(&["schema", "read"]);
    run(&["schema", "nosuch"]);
    run(&["skills"]);
    let f = run(&[
        "feedback",
        "create",
        "--type",
        "bug",
        "--message",
        "contract test",
    ]);
    let id = f.json["id"].as_str().unwrap_or_default().to_string();
    run(&["feedback", "list"]);
    run(&["feedback", "show", &id]);
    run(&["feedback", "transition", &id, "--status", "triaged"]);
    let t = run(&["tx", "begin"]);
    let tx = field(&t, "tx");
    run(&["write", "f.txt", "--content", "staged\n", "--tx", &tx]);
    run(&["read", "f.txt", "--tx", &tx]);
    run(&["tx", "status"]);
    run(&["tx", "status", &tx]);
    run(&["tx", "diff", &tx]);
    run(&["tx", "rebase", &tx]);
    run(&["tx", "commit", &tx]);
    let t2 = field(&run(&["tx", "begin"]), "tx");
    run(&["tx", "drop", &t2, "1"]);
    run(&["tx", "abort", &t2]);
    run_stdin(&["batch", "--stdin"], br#"[["read","b.txt"]]"#);
    run_stdin(&["batch", "--stdin"], br#"[["read","nope"]]"#);
    env.write("c.json", "{\"a\": 1, \"b\": [{\"n\": 1}, {\"n\": 2}]}\n");
    env.write("s.txt", "b\na\n");
    run(&["json", "get", "c.json", "/a"]);
    run(&["json", "select", "c.json", "/b"]);
    run(&["json", "set", "c.json", "/a", "2"]);
    run_stdin(&["json", "merge", "c.json", "--stdin"], br#"{"z":1}"#);
    run_stdin(
        &["json", "patch", "c.json", "--stdin"],
        br#"[{"op":"add","path":"/y","value":1}]"#,
    );
    run(&["json", "delete", "c.json", "/a"]);
    run(&["json", "fmt", "c.json", "--indent", "2"]);
    run(&["check", "c.json"]);
    run(&["transform", "s.txt", "--op", "sort"]);
    run(&[
        "move-lines",
        "s.txt",
        "--range",
        "1:1",
        "--to-position",
        "end",
    ]);
    run(&["git", "status"]);
    run(&["git", "log"]);
    run(&["git", "diff"]);
    run(&["git", "show", "HEAD:a.txt"]);
    run(&["git", "blame", "a.txt"]);
    run(&["run", "--", "echo", "hi"]);
    run(&["wait", "--duration", "10ms"]);
    let bg = field(&run(&["bg", "start", "--", "sleep", "5"]), "id");
    run(&["bg", "status"]);
    run(&["bg", "logs", &bg]);
    run(&["bg", "stop", &bg]);
    run(&["capabilities"]);
    run(&["doctor"]);
    // `mcp` serves a protocol stream, not an envelope (tests/families/mcp.rs).
    ran.borrow_mut().insert("mcp".into());
    // `console` serves HTTP until stopped (tests/families/console.rs).
    ran.borrow_mut().insert("console".into());
    // A command added later is run by its own family's test (checked by
    // `every_command_is_run_by_some_test`), so adding one never edits this script.
    let ran = ran.into_inner();
    // That the script never shrinks is what is checked here; how many commands came
    // after it is not (every_command_is_run_by_some_test covers those).
    assert!(ran.len() >= 63, "ran {ran:?}");
    let undeclared: Vec<&String> = ran.iter().filter(|c| !d.fields.contains_key(*c)).collect();
    assert!(
        undeclared.is_empty(),
        "answered but not declared: {undeclared:?}"
    );
}

/// Every registered command is named by some test under tests/families/ (its
/// words as string literals, `"tx", "commit"`), so each has a run that
/// `check_contract` checks.
#[test]
fn every_command_is_run_by_some_test() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/families");
    let mut text = String::new();
    for e in std::fs::read_dir(&dir).expect("tests/families").flatten() {
        if e.file_name() != "contract.rs" {
            text.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
        }
    }
    let missing: Vec<&String> = declared()
        .fields
        .keys()
        .filter(|name| {
            let quoted: Vec<String> = name.split(' ').map(|w| format!("\"{w}\"")).collect();
            !text.contains(&quoted.join(", ")) && !text.contains(&format!("\"{name}\""))
        })
        .collect();
    assert!(missing.is_empty(), "commands no test runs: {missing:?}");
}

#[test]
fn schema_shows_the_global_options_and_help_names_them() {
    let env = TestEnv::new();
    let list = env.run(&["schema"]);
    let names: Vec<&str> = list.json["global_options"]
        .as_array()
        .expect("global_options")
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert_eq!(names, ["--root", "--lock-timeout"]);
    let full = env.run(&["schema", "read", "--full"]);
    assert_eq!(full.json["global_options"][1]["type"], "duration");
    let help = env.run(&["--help"]);
    assert_eq!(help.json["globals"], "--root DIR, --lock-timeout DURATION");
    // Globals are accepted before and after the command words alike.
    env.write("a.txt", "x\n");
    let root = env.root().to_string_lossy().to_string();
    for args in [
        vec!["--root", root.as_str(), "read", "a.txt"],
        vec![
            "read",
            "a.txt",
            "--lock-timeout",
            "2s",
            "--root",
            root.as_str(),
        ],
    ] {
        assert_eq!(env.run(&args).code, 0, "{args:?}");
    }
}

#[test]
fn shared_flag_groups_have_one_help() {
    let env = TestEnv::new();
    let all = env.run(&["schema", "--all", "--full"]);
    let mut help: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut pattern_takers: BTreeSet<String> = BTreeSet::new();
    for c in all.json["commands"].as_array().expect("commands") {
        let writes = c["writes"].as_bool().unwrap_or(false);
        for a in c["args"].as_array().into_iter().flatten() {
            let n = a["name"].as_str().unwrap_or_default();
            // --dry-run of a write; recover and gc report what they would do, tx
            // commit checks for conflicts, batch stages and discards, run checks
            // the call: their --dry-run says so.
            let own = ["recover", "tx commit", "batch", "run"]
                .contains(&c["name"].as_str().unwrap_or(""));
            let pattern = PATTERN_FLAGS.iter().any(|(f, _)| *f == n);
            if (n == "--dry-run" && writes && !own) || n == "--expect-hash" || pattern {
                let text: &Value = &a["description"];
                let short = a["short"].as_str().unwrap_or("none");
                help.entry(n.to_string())
                    .or_default()
                    .insert(format!("{short} {}", text.as_str().unwrap_or_default()));
                // find's --ignore-case (for its glob) is the same flag, alone.
                if pattern && n != "--ignore-case" {
                    pattern_takers.insert(c["name"].as_str().unwrap_or_default().to_string());
                }
            }
        }
    }
    for (flag, texts) in &help {
        assert_eq!(texts.len(), 1, "{flag} has several helps: {texts:?}");
    }
    assert_eq!(help.len(), 2 + PATTERN_FLAGS.len());
    // The pattern group (`protocol::args::Pattern`): every command taking a regex
    // pattern has all of it, grep's short aliases included.
    assert_eq!(
        pattern_takers.into_iter().collect::<Vec<_>>(),
        ["replace", "search"]
    );
    for (flag, short) in PATTERN_FLAGS {
        let texts = &help[*flag];
        let text = texts.iter().next().map(String::as_str).unwrap_or_default();
        assert!(text.starts_with(&format!("{short} ")), "{flag}: {text}");
    }
    let replace = env.run(&["schema", "replace"]);
    let shorts: Vec<&str> = replace.json["commands"][0]["args"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["short"].as_str())
        .collect();
    assert_eq!(shorts, ["-F", "-i", "-w"], "{}", replace.json["args"]);
}

/// The pattern group's flags and their short aliases (`none`: no alias).
const PATTERN_FLAGS: &[(&str, &str)] = &[
    ("--fixed", "-F"),
    ("--ignore-case", "-i"),
    ("--word", "-w"),
    ("--multiline", "none"),
];

/// Effects are declared once, in each spec (`CommandSpec::effects`): the AOI
/// manifest and the MCP annotations say the same of every command, and no name
/// list beside the specs decides them.
#[test]
fn effects_are_declared_once_and_read_alike() {
    use std::io::Write;
    let env = TestEnv::new();
    let caps = env.run(&["capabilities"]);
    let mut child = env
        .command(&["mcp", "--root", ".", "--tools", "all"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn aitools mcp");
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}"#;
    {
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(list.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
    }
    let out = child.wait_with_output().expect("wait");
    let reply: Value = serde_json::from_slice(&out.stdout).expect("one JSON-RPC reply");
    let tools = reply["result"]["tools"].as_array().expect("tools");
    let mut checked = 0;
    for c in caps.json["commands"].as_array().expect("commands") {
        let name = c["name"].as_str().unwrap_or_default();
        let Some(t) = tools
            .iter()
            .find(|t| t["name"] == name.replace([' ', '-'], "_"))
        else {
            assert!(["mcp", "console"].contains(&name), "no tool for {name}");
            continue;
        };
        let a = &t["annotations"];
        assert_eq!(a["readOnlyHint"], c["read_only"], "{name}");
        assert_eq!(c["requires_confirm"], c["destructive"], "{name}");
        if c["destructive"] == true {
            assert_eq!(a["destructiveHint"], true, "{name}");
        }
        checked += 1;
    }
    assert!(checked > 60, "{checked}");
    let cmd = |n: &str| {
        caps.json["commands"]
            .as_array()
            .and_then(|a| a.iter().find(|c| c["name"] == n).cloned())
            .unwrap_or_default()
    };
    for (n, read_only, destructive) in [
        ("read", true, false),
        ("run", false, false),
        ("tx begin", false, false),
        ("delete", false, true),
        ("gc", false, true),
        ("tx abort", false, true),
    ] {
        assert_eq!(cmd(n)["read_only"], read_only, "{n}");
        assert_eq!(cmd(n)["destructive"], destructive, "{n}");
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(!root.join("data/aoi-destructive.txt").exists());
}

/// An option's type comes from its parser, not from how its value name is spelled:
/// `json select --limit` (a usize) and `json fmt --indent` are integers in the
/// schema and in the MCP tool's input schema, and an MCP call passing them as JSON
/// integers runs (they showed as "string").
#[test]
fn integer_options_are_integers_in_schema_and_mcp() {
    let env = TestEnv::new();
    for (cmd, arg) in [
        (&["json", "select"][..], "--limit"),
        (&["json", "fmt"][..], "--indent"),
        (&["transform"][..], "--width"),
    ] {
        let mut argv = vec!["schema"];
        argv.extend_from_slice(cmd);
        argv.push("--full");
        let r = env.run(&argv);
        let args = r.json["commands"][0]["args"].as_array().expect("args");
        let a = args.iter().find(|a| a["name"] == arg).expect(arg);
        assert_eq!(a["type"], "integer", "{cmd:?} {arg}: {a}");
    }
    env.write("a.json", "[{\"n\": 1}, {\"n\": 2}, {\"n\": 3}]\n");
    let meta = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    });
    let lines = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"_meta": meta,
            "name": "json_select", "arguments": {"path": "a.json", "pointer": "", "limit": 2}}}),
    ];
    let mut c = env.command(&["mcp", "--root", ".", "--tools", "all"]);
    let mut child = c
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn mcp");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        for l in &lines {
            writeln!(stdin, "{l}").expect("write");
        }
    }
    let out = child.wait_with_output().expect("wait");
    let replies: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json-rpc"))
        .collect();
    let tools = replies[0]["result"]["tools"].as_array().expect("tools");
    let select = tools
        .iter()
        .find(|t| t["name"] == "json_select")
        .expect("json_select");
    assert_eq!(
        select["inputSchema"]["properties"]["limit"]["type"], "integer",
        "{select}"
    );
    let call = &replies[1]["result"];
    assert_eq!(call["isError"], false, "{call}");
    let text = call["content"][0]["text"].as_str().expect("text");
    assert!(
        text.contains("\"n\":1") && !text.contains("\"n\":3"),
        "{text}"
    );
}

/// The short `transform` schema names every operation (an agent had to ask for
/// `--full`, 7.5 KB, to learn them), and an unknown one is refused with the list.
#[test]
fn short_transform_schema_lists_its_operations() {
    let env = TestEnv::new();
    let r = env.run(&["schema", "transform"]);
    let args = r.json["commands"][0]["args"].as_array().expect("args");
    let op = args.iter().find(|a| a["name"] == "--op").expect("--op");
    let values: Vec<&str> = op["values"]
        .as_array()
        .expect("values")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for name in ["sort", "unique", "wrap", "eol-lf", "strip-bom"] {
        assert!(values.contains(&name), "{name}: {op}");
    }
    env.write("t.txt", "b\na\n");
    let bad = env.run(&["transform", "t.txt", "--op", "sorty"]);
    assert_eq!(bad.error_code(), "argument.invalid");
    assert!(bad.stderr.contains("sort-numeric"), "{}", bad.stderr);
}

/// MCP's `destructiveHint` is false only for tools whose updates are additive: a
/// tool that runs a program (`run`, `bg start`), stops one (`bg stop`) or runs
/// writes (`batch`) is not, although none of them is a `writes` command itself
/// (they said `destructiveHint: false`, so a host could approve them unasked).
#[test]
fn tools_that_run_programs_or_writes_are_not_called_non_destructive() {
    let env = TestEnv::new();
    let meta = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    });
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}});
    let mut child = env
        .command(&["mcp", "--root", ".", "--tools", "all"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn mcp");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(stdin, "{list}").expect("write");
    }
    let out = child.wait_with_output().expect("wait");
    let reply: Value =
        serde_json::from_slice(out.stdout.split(|&b| b == b'\n').next().expect("a reply"))
            .expect("json-rpc");
    let tools = reply["result"]["tools"].as_array().expect("tools");
    let hint = |name: &str| {
        let t = tools.iter().find(|t| t["name"] == name).expect(name);
        t["annotations"]["destructiveHint"].clone()
    };
    for name in ["run", "batch", "bg_start", "bg_stop"] {
        assert_eq!(hint(name), true, "{name}");
    }
    assert_eq!(hint("mkdir"), false, "mkdir only adds");
}

/// Issue 33: a command's nature is one declaration. `batch` (its write
/// elements) and `run --stdout-to` write journaled files: the schema says
/// `writes: true`, they take `--dry-run` (a write is previewable), and
/// `capabilities` and the MCP annotations call them neither read-only nor
/// without a dry run.
#[test]
fn batch_and_run_declare_that_they_write() {
    let env = TestEnv::new();
    let caps = env.run(&["capabilities"]);
    let tools = super::mcp::session_in(
        &env,
        &["--root", ".", "--tools", "all"],
        &[super::mcp::req(1, "tools/list", serde_json::json!({}))],
    );
    let tools = super::mcp::by_id(&tools, 1)["result"]["tools"].clone();
    for name in ["batch", "run"] {
        let full = env.run(&["schema", name, "--full"]);
        let c = &full.json["commands"][0];
        assert_eq!(c["writes"], true, "{name}: {}", full.stdout);
        let args: Vec<&str> = c["args"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| a["name"].as_str())
            .collect();
        assert!(args.contains(&"--dry-run"), "{name}: {args:?}");
        let compact = env.run(&["schema", name]);
        assert_eq!(compact.json["commands"][0]["writes"], true, "{name}");
        let cap = caps.json["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap();
        assert_eq!(cap["read_only"], false, "{name}");
        assert_eq!(cap["supports_dry_run"], true, "{name}");
        let tool = tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap();
        assert_eq!(tool["annotations"]["readOnlyHint"], false, "{name}");
    }
}

/// `batch --dry-run` answers what its writes would change and writes nothing;
/// `run --dry-run` checks the call and runs nothing.
#[test]
fn batch_and_run_dry_runs_write_nothing() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    let input =
        br#"[["write","b.txt","--content","x"],["edit","a.txt","--old","alpha","--new","beta"]]"#;
    let b = env.run_stdin(&["batch", "--stdin", "--dry-run"], input);
    assert_eq!(b.code, 0, "{}", b.stdout);
    assert_eq!(b.json["dry_run"], true, "{}", b.stdout);
    let paths: Vec<&str> = b.json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["path"].as_str())
        .collect();
    assert_eq!(paths, ["a.txt", "b.txt"], "{}", b.stdout);
    assert_eq!(env.read("a.txt"), b"alpha\n");
    assert!(!env.path("b.txt").exists());
    let txs = env.run(&["tx", "status"]);
    assert_eq!(
        txs.json["total"], 0,
        "the dry run's tx is gone: {}",
        txs.stdout
    );
    let r = env.run(&[
        "run",
        "--dry-run",
        "--stdout-to",
        "out.txt",
        "--",
        "touch",
        "ran",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["dry_run"], true, "{}", r.stdout);
    assert!(!env.path("ran").exists() && !env.path("out.txt").exists());
    // The check still refuses what the real call would.
    let taken = env.run(&["run", "--dry-run", "--stdout-to", "a.txt", "--", "true"]);
    assert_eq!(taken.error_code(), "refusal.exists", "{}", taken.stdout);
}
