//! `aitools mcp`'s tool list (issue 32): the default list is a compact core set
//! within 16 KiB, no description is over 1,024 characters, and the generic
//! `aitools` tool runs every other command through the same call path, its
//! errors coming back as isError results with repairs.

use super::mcp::{by_id, call, envelope, req, session_in};
use crate::support::TestEnv;
use serde_json::{Value, json};

fn listed(env: &TestEnv, extra: &[&str]) -> (usize, Vec<Value>) {
    let mut args = vec!["--root", "."];
    args.extend_from_slice(extra);
    let replies = session_in(env, &args, &[req(1, "tools/list", json!({}))]);
    let reply = by_id(&replies, 1);
    let bytes = reply.to_string().len();
    (bytes, reply["result"]["tools"].as_array().unwrap().clone())
}

fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_default_list_fits_16_kib_and_names_every_other_command() {
    let env = TestEnv::new();
    let (bytes, tools) = listed(&env, &[]);
    assert!(bytes <= 16_384, "tools/list is {bytes} bytes");
    let names = names(&tools);
    for n in [
        "read", "search", "find", "edit", "write", "undo", "aitools", "more",
    ] {
        assert!(names.contains(&n.to_string()), "{n} missing from {names:?}");
    }
    let generic = tools.iter().find(|t| t["name"] == "aitools").unwrap();
    let description = generic["description"].as_str().unwrap();
    // "Commands: read, git blame|diff." names `git blame` and `git diff`.
    let listed: Vec<String> = description
        .split_once(" Commands: ")
        .map(|(_, list)| list.trim_end_matches('.'))
        .unwrap_or_default()
        .split(", ")
        .flat_map(|group| match group.split_once(' ') {
            Some((head, subs)) => subs.split('|').map(|s| format!("{head} {s}")).collect(),
            None => vec![group.to_string()],
        })
        .collect();
    let all = env.run(&["schema", "--all"]);
    for cmd in all.json["commands"].as_array().unwrap() {
        let name = cmd["name"].as_str().unwrap();
        let tool = name.replace([' ', '-'], "_");
        if !["mcp", "console"].contains(&name) && !names.contains(&tool) {
            assert!(
                listed.iter().any(|l| l == name),
                "{name} is neither listed nor named by aitools"
            );
        }
    }
    for t in &tools {
        assert!(t.get("outputSchema").is_none(), "{t}");
        let props = t["inputSchema"]["properties"].as_object().unwrap();
        for (k, p) in props {
            let d = p["description"].as_str().unwrap_or_default();
            assert!(d.chars().count() <= 80, "{}.{k}: {d}", t["name"]);
        }
    }
}

#[test]
fn no_tool_description_is_over_1024_characters() {
    let env = TestEnv::new();
    for extra in [&[][..], &["--tools", "all"][..]] {
        let (_, tools) = listed(&env, extra);
        for t in &tools {
            let d = t["description"].as_str().unwrap();
            assert!(
                !d.is_empty() && d.chars().count() <= 1024,
                "{} ({extra:?}): {} characters",
                t["name"],
                d.chars().count()
            );
        }
    }
    // --tools all lists every command.
    let (bytes, tools) = listed(&env, &["--tools", "all"]);
    assert!(names(&tools).contains(&"tx_commit".to_string()));
    assert!(bytes > 16_384);
}

#[test]
fn the_generic_tool_runs_a_command_that_is_not_listed() {
    let env = TestEnv::new();
    env.write("cfg.json", "{\"a\": {\"b\": 1}}\n");
    // The same answer as the command line's (the set below runs after it).
    let cli = env.run(&["json", "get", "cfg.json", "/a/b"]);
    let replies = session_in(
        &env,
        &["--root", "."],
        &[
            call(
                1,
                "aitools",
                json!({"command": "json get", "args": {"path": "cfg.json", "pointer": "/a/b"}}),
            ),
            // The tool name of an unlisted command is callable as well.
            call(2, "json_get", json!({"path": "cfg.json", "pointer": "/a"})),
            call(
                3,
                "aitools",
                json!({"command": "json set", "args": {"path": "cfg.json", "pointer": "/a/b", "value": "2"}}),
            ),
        ],
    );
    let got = envelope(by_id(&replies, 1));
    assert_eq!(got["command"], "json get");
    assert_eq!(got["value"], json!(1));
    assert_eq!(got["value"], cli.json["value"]);
    assert_eq!(envelope(by_id(&replies, 2))["value"], json!({"b": 1}));
    let set = envelope(by_id(&replies, 3));
    assert_eq!(set["status"], "ok", "{set}");
    assert!(set["op_id"].is_string(), "{set}");
    let after = env.run(&["json", "get", "cfg.json", "/a/b"]);
    assert_eq!(after.json["value"], json!(2));
}

#[test]
fn the_generic_tools_errors_are_error_results_with_repairs() {
    let env = TestEnv::new();
    let replies = session_in(
        &env,
        &["--root", "."],
        &[
            call(1, "aitools", json!({"command": "jsn get"})),
            call(2, "aitools", json!({"args": {}})),
            call(
                3,
                "aitools",
                json!({"command": "json get", "args": {"path": "a.json", "nope": 1}}),
            ),
            call(4, "aitools", json!({"command": "json get", "args": [1]})),
            call(
                5,
                "aitools",
                json!({"command": "json get", "args": {"path": "missing.json", "pointer": ""}}),
            ),
            call(6, "aitools", json!({"command": "mcp"})),
        ],
    );
    for id in 1..=6 {
        let reply = by_id(&replies, id);
        assert_eq!(reply["result"]["isError"], true, "{id}: {reply}");
        let env = envelope(reply);
        let repairs = env["error"]["repairs"].as_array().unwrap();
        assert!(
            repairs
                .iter()
                .all(|r| r["command"].as_str().unwrap().starts_with("aitools")),
            "{id}: {env}"
        );
    }
    assert!(
        envelope(by_id(&replies, 1))["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean \"json get\"?")
    );
    assert!(
        envelope(by_id(&replies, 3))["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nope")
    );
}

/// Issue 33: every input property says what it takes (a positional `path`
/// once had an empty description), in the full list and the default one.
#[test]
fn every_input_property_has_a_description() {
    let env = TestEnv::new();
    let mut empty = Vec::new();
    for extra in [&[][..], &["--tools", "all"][..]] {
        let (_, tools) = listed(&env, extra);
        for t in &tools {
            let props = t["inputSchema"]["properties"].as_object().unwrap();
            for (k, p) in props {
                let d = p["description"].as_str().unwrap_or_default();
                // An option's text follows its `--flag: `.
                let text = match d.strip_prefix("--").and_then(|r| r.split_once(':')) {
                    Some((_, rest)) => rest,
                    None => d,
                };
                if text.trim().is_empty() {
                    empty.push(format!("{extra:?} {}.{k}", t["name"]));
                }
            }
        }
    }
    assert!(empty.is_empty(), "no description: {empty:?}");
}

/// Issue 33: with every tool listed, each carries an outputSchema, `more` and
/// the generic `aitools` too (both answer a command's envelope), and what they
/// answer fits it.
#[test]
fn the_generic_and_more_tools_declare_their_output() {
    let env = TestEnv::new();
    let (_, tools) = listed(&env, &["--tools", "all"]);
    for t in &tools {
        let s = &t["outputSchema"];
        assert_eq!(s["type"], "object", "{} has no outputSchema", t["name"]);
        let required = s["required"].as_array().cloned().unwrap_or_default();
        for m in ["schema_version", "status", "command"] {
            assert!(required.contains(&json!(m)), "{}: {s}", t["name"]);
        }
    }
    let generic = tools.iter().find(|t| t["name"] == "aitools").unwrap();
    let schema = &generic["outputSchema"];
    env.write("a.txt", "x\n");
    let replies = session_in(
        &env,
        &["--root", ".", "--tools", "all"],
        &[
            call(
                1,
                "aitools",
                json!({"command": "read", "args": {"path": "a.txt"}}),
            ),
            call(2, "more", json!({"cursor": "c999"})),
        ],
    );
    for id in [1, 2] {
        let answer = envelope(by_id(&replies, id));
        for m in ["schema_version", "status", "command"] {
            assert!(answer.get(m).is_some(), "{answer}");
        }
        let status = answer["status"].as_str().unwrap();
        let allowed = schema["properties"]["status"]["enum"].as_array().unwrap();
        assert!(allowed.contains(&json!(status)), "{answer}");
    }
}

/// `json get F '.a[].b'` is answered as json select (issue 32): over MCP's
/// `json_get` tool that answer must still fit the tool's closed outputSchema,
/// or a client that validates structuredContent (the Python SDK) refuses it.
#[test]
fn json_get_answered_by_json_select_fits_its_tools_output_schema() {
    let env = TestEnv::new();
    env.write("u.json", r#"{"users":[{"name":"a"},{"name":"b"}]}"#);
    let (_, tools) = listed(&env, &["--tools", "all"]);
    let tool = tools.iter().find(|t| t["name"] == "json_get").unwrap();
    let v = jsonschema::draft202012::new(&tool["outputSchema"]).unwrap();
    let args = json!({"path": "u.json", "pointer": ".users[].name"});
    let replies = session_in(
        &env,
        &["--root", ".", "--tools", "all"],
        &[call(1, "json_get", args)],
    );
    let answer = envelope(by_id(&replies, 1));
    assert_eq!(answer["items"], json!(["a", "b"]), "{answer}");
    let errors: Vec<String> = v.iter_errors(answer).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}\n{answer}");
}
