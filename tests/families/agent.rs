//! The agent layer (seed 003): `--brief`, `--help`, `skills`, the feedback line in
//! every error, inline context, and the `feedback` commands with their files.

use crate::support::{TestEnv, parse};
use serde_json::Value;
use std::path::{Path, PathBuf};

#[path = "../../build/front_matter.rs"]
#[allow(dead_code)]
mod front_matter;

fn agent_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("agent")
}

/// The `.md` files of an agent folder, parsed with the build script's own parser.
fn docs(folder: &str) -> Vec<front_matter::Doc> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(agent_dir().join(folder))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    paths.sort();
    let mut docs: Vec<_> = paths
        .iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            front_matter::parse(&stem, &std::fs::read_to_string(p).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        })
        .collect();
    docs.sort_by(|a, b| a.name.cmp(&b.name));
    docs
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

/// Top-level member names in the order printed (serde_json's map would sort them).
fn printed_keys(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut esc = false;
    let mut cur = String::new();
    let mut expecting_key = false;
    for c in text.chars() {
        if in_str {
            if esc {
                esc = false;
                cur.push(c);
            } else if c == '\\' {
                esc = true;
                cur.push(c);
            } else if c == '"' {
                in_str = false;
                if depth == 1 && expecting_key {
                    out.push(cur.clone());
                    expecting_key = false;
                }
            } else {
                cur.push(c);
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                cur.clear();
            }
            '{' | '[' => {
                depth += 1;
                if depth == 1 {
                    expecting_key = true;
                }
            }
            '}' | ']' => depth -= 1,
            ',' if depth == 1 => expecting_key = true,
            _ => {}
        }
    }
    out
}

#[test]
fn brief_is_agent_brief_md() {
    let env = TestEnv::new();
    let r = env.run(&["--brief"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        printed_keys(&r.stdout),
        ["schema_version", "status", "command", "brief"]
    );
    assert_eq!(r.json["command"], "brief");
    let file = std::fs::read_to_string(agent_dir().join("brief.md")).unwrap();
    let want = front_matter::check_brief(&file).unwrap();
    assert_eq!(r.json["brief"], want.as_str());
}

#[test]
fn help_carries_brief_commands_rules_skills_feedback() {
    let env = TestEnv::new();
    let r = env.run(&["--help"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        printed_keys(&r.stdout),
        [
            "schema_version",
            "status",
            "command",
            "help",
            "commands",
            "globals",
            "rules",
            "skills",
            "feedback"
        ]
    );
    assert!(
        r.json.get("redactions").is_none(),
        "agent texts trip the mask: {}",
        r.stdout
    );
    let rules = docs("rules");
    let got: Vec<(String, String)> = r.json["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            assert_eq!(keys(x), ["content", "name"]);
            (
                x["name"].as_str().unwrap().into(),
                x["content"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = rules
        .iter()
        .map(|d| (d.name.clone(), d.body.clone()))
        .collect();
    assert_eq!(got, want);
    for name in ["trigger", "workflow", "writeback"] {
        assert!(got.iter().any(|(n, _)| n == name), "rule {name}");
    }
    let skills = docs("skills");
    let listed = r.json["skills"].as_array().unwrap();
    assert_eq!(listed.len(), skills.len());
    for (s, d) in listed.iter().zip(&skills) {
        assert_eq!(s["name"], d.name.as_str());
        assert_eq!(s["description"], d.description.as_str());
        assert_eq!(keys(s), ["description", "name"]);
    }
    for required in [
        "getting-started",
        "guarded-edits",
        "transactions",
        "search-and-navigate",
    ] {
        assert!(
            skills.iter().any(|d| d.name == required),
            "skill {required}"
        );
    }
    let writeback = rules.iter().find(|d| d.name == "writeback").unwrap();
    assert_eq!(r.json["feedback"], writeback.description.as_str());
    assert!(writeback.description.contains("MANDATORY"));
    // The commands list is the schema list, one `NAME  SUMMARY` line per command
    // (the summary without its final period), a group's subcommands sharing one
    // line (`tx begin|status|...  SUMMARY`), and so do a bundle's commands
    // (`delete|move|...  SUMMARY`).
    let schema = env.run(&["schema"]);
    let want: Vec<&str> = schema.json["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        // The AOI discovery commands are found by the seed's names, `mcp` is
        // started by a host: not in --help.
        .filter(|n| !["capabilities", "doctor", "mcp"].contains(n))
        .collect();
    let lines: Vec<&str> = r.json["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let mut listed: Vec<String> = Vec::new();
    for line in &lines {
        let (words, summary) = line.split_once("  ").unwrap();
        assert!(!summary.is_empty() && !summary.ends_with('.'), "{line}");
        // A bundle may name group words (`mktemp|sys|time`): each stands for
        // its subcommands, one `aitools schema <group>` away.
        let (group, subs) = match words.split_once(' ') {
            Some((g, subs)) => (format!("{g} "), subs),
            None => (String::new(), words),
        };
        let mut names: Vec<String> = Vec::new();
        for w in subs.split('|') {
            let name = format!("{group}{w}");
            let members: Vec<String> = want
                .iter()
                .filter(|n| {
                    n.strip_prefix(name.as_str())
                        .is_some_and(|r| r.starts_with(' '))
                })
                .map(|n| n.to_string())
                .collect();
            if group.is_empty() && !members.is_empty() {
                names.extend(members);
            } else {
                names.push(name);
            }
        }
        if let [name] = names.as_slice() {
            let one = schema.json["commands"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["name"] == name.as_str())
                .unwrap();
            assert_eq!(
                one["summary"].as_str().unwrap().trim_end_matches('.'),
                summary
            );
        }
        listed.extend(names);
    }
    assert_eq!(listed, want);
}

#[test]
fn skills_list_and_show() {
    let env = TestEnv::new();
    let list = env.run(&["skills"]);
    assert_eq!(list.code, 0);
    assert_eq!(printed_keys(&list.stdout)[3..], ["skills"]);
    let help = env.run(&["--help"]);
    assert_eq!(list.json["skills"], help.json["skills"]);
    for d in docs("skills") {
        let one = env.run(&["skills", &d.name]);
        assert_eq!(one.code, 0, "{}", one.stdout);
        // The rules come once, with --help, never again with a skill.
        assert_eq!(
            printed_keys(&one.stdout)[3..],
            ["name", "description", "content"]
        );
        assert_eq!(one.json["content"], d.body.as_str());
        assert_eq!(one.json["description"], d.description.as_str());
        assert!(
            one.json.get("redactions").is_none(),
            "{}: {}",
            d.name,
            one.stdout
        );
    }
    let missing = env.run(&["skills", "no-such-skill"]);
    assert_eq!(missing.code, 1);
    assert_eq!(missing.error_code(), "input.not-found");
    assert_eq!(
        missing.json["error"]["repairs"][0]["command"],
        "aitools skills"
    );
    assert!(
        missing.json["error"]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "getting-started")
    );
}

#[test]
fn only_internal_errors_invite_feedback_in_at_most_100_bytes() {
    let env = TestEnv::new();
    env.write("a.txt", "one\none\n");
    // Guard outcomes and ordinary input errors are the tool working: no invitation.
    for argv in [
        vec!["read", "missing.txt"],
        vec!["no-such-command"],
        vec!["read"],
        vec!["feedback", "show", "42"],
        vec![],
        vec!["edit", "a.txt", "--old", "two", "--new", "2"],
        vec!["edit", "a.txt", "--old", "one", "--new", "1"],
        vec![
            "write",
            "a.txt",
            "--overwrite",
            "--expect-hash",
            &"0".repeat(64),
            "--content",
            "x",
        ],
    ] {
        let r = env.run(&argv);
        assert_ne!(r.code, 0, "{argv:?}");
        assert!(
            r.json["error"].get("feedback").is_none(),
            "{argv:?}: {}",
            r.stderr
        );
    }
    // An internal error carries a short one, right after the repairs.
    let out = env
        .command(&["read", "a.txt"])
        .env("AITOOLS_TEST_PANIC", "1")
        .output()
        .unwrap();
    let r = parse(out);
    assert_eq!(r.error_code(), "internal.unexpected");
    let line = r.json["error"]["feedback"].as_str().unwrap();
    assert!(line.len() <= 100, "{line}");
    assert!(line.contains("aitools feedback create"), "{line}");
    let inner = &r.stderr[r.stderr.find("\"error\":").unwrap() + 8..];
    let order = printed_keys(inner);
    let pos = |k: &str| order.iter().position(|x| x == k).unwrap();
    assert_eq!(pos("feedback"), pos("repairs") + 1, "{order:?}");
}

#[test]
fn inline_context_adds_rules_skills_feedback_to_every_envelope() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let help = env.run(&["--help"]);
    let run = |argv: &[&str]| {
        let out = env
            .command(argv)
            .env("AITOOLS_INLINE_CONTEXT", "1")
            .output()
            .unwrap();
        parse(out)
    };
    let ok = run(&["read", "a.txt"]);
    let k = printed_keys(&ok.stdout);
    assert_eq!(k[k.len() - 3..], ["rules", "skills", "feedback"], "{k:?}");
    assert_eq!(ok.json["rules"], help.json["rules"]);
    assert_eq!(ok.json["skills"], help.json["skills"]);
    assert_eq!(ok.json["feedback"], help.json["feedback"]);
    let err = run(&["read", "missing.txt"]);
    let k = printed_keys(&err.stderr);
    assert_eq!(k[3..], ["error", "rules", "skills", "feedback"]);
    // Commands that already answer with rules or skills do not repeat them.
    for argv in [
        vec!["--help"],
        vec!["skills", "getting-started"],
        vec!["skills"],
    ] {
        let r = run(&argv);
        let k = printed_keys(&r.stdout);
        let mut dedup = k.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), k.len(), "{argv:?}: {k:?}");
        assert!(k.contains(&"rules".to_string()) && k.contains(&"skills".to_string()));
    }
    // A batch carries the context once, on its own envelope, not in each element.
    let batch = parse(
        env.command(&["batch", "--stdin"])
            .env("AITOOLS_INLINE_CONTEXT", "yes")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin
                    .take()
                    .map(|mut s| s.write_all(br#"[["read","a.txt"],["read","a.txt"]]"#));
                c.wait_with_output()
            })
            .unwrap(),
    );
    assert!(batch.json.get("rules").is_some(), "{}", batch.stdout);
    for el in batch.json["results"].as_array().expect("results") {
        assert!(el.get("rules").is_none(), "{el}");
    }
    // Off by default, and for any other value.
    let plain = env.run(&["read", "a.txt"]);
    assert!(plain.json.get("rules").is_none());
    let zero = parse(
        env.command(&["read", "a.txt"])
            .env("AITOOLS_INLINE_CONTEXT", "0")
            .output()
            .unwrap(),
    );
    assert!(zero.json.get("rules").is_none());
}

// ---- feedback ----

fn fb_dir(env: &TestEnv) -> PathBuf {
    env.state.path().join("feedback")
}

#[test]
fn feedback_create_writes_one_valid_file() {
    let env = TestEnv::new();
    let r = env.run(&[
        "feedback",
        "create",
        "--type",
        "bad-output",
        "--message",
        "search said 3, expected 4",
        "--context-command",
        "aitools search x",
        "--exit-code",
        "0",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(printed_keys(&r.stdout)[3..], ["id", "path", "dir", "entry"]);
    assert_eq!(r.json["id"], "001");
    let dir = fb_dir(&env);
    assert_eq!(r.json["dir"], dir.to_string_lossy().as_ref());
    assert_eq!(
        r.json["path"],
        dir.join("001.json").to_string_lossy().as_ref()
    );
    let text = std::fs::read_to_string(dir.join("001.json")).unwrap();
    let stored: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(stored, r.json["entry"]);
    assert_eq!(
        printed_keys(&text),
        [
            "id",
            "type",
            "status",
            "message",
            "context",
            "created_at",
            "updated_at"
        ]
    );
    assert_eq!(stored["type"], "bad-output");
    assert_eq!(stored["status"], "open");
    assert_eq!(stored["message"], "search said 3, expected 4");
    assert_eq!(
        stored["context"],
        serde_json::json!({"version": env!("CARGO_PKG_VERSION"), "command": "aitools search x", "exit_code": 0})
    );
    // AITOOLS_FIXED_TIME=1796000000
    assert_eq!(stored["created_at"], "2026-11-30T00:53:20Z");
    assert_eq!(stored["updated_at"], "2026-11-30T00:53:20Z");
    // Without the optional context, command and exit_code are null, not missing.
    let r2 = env.run(&["feedback", "create", "--type", "bug", "--message", "m"]);
    assert_eq!(r2.json["id"], "002");
    assert_eq!(r2.json["entry"]["context"]["command"], Value::Null);
    assert_eq!(r2.json["entry"]["context"]["exit_code"], Value::Null);
    // Only the entries are in the directory: no lock or temp file is left.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["001.json", "002.json"]);
}

#[test]
fn twelve_concurrent_creates_get_twelve_ids_and_files() {
    let env = TestEnv::new();
    let children: Vec<_> = (0..12)
        .map(|i| {
            env.command(&[
                "feedback",
                "create",
                "--type",
                "suggestion",
                "--message",
                &format!("agent {i}"),
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let mut ids: Vec<String> = children
        .into_iter()
        .map(|c| {
            let r = parse(c.wait_with_output().unwrap());
            assert_eq!(r.code, 0, "{}", r.stderr);
            r.json["id"].as_str().unwrap().to_string()
        })
        .collect();
    ids.sort();
    let want: Vec<String> = (1..=12).map(|n| format!("{n:03}")).collect();
    assert_eq!(ids, want);
    let mut messages = Vec::new();
    for id in &want {
        let text = std::fs::read_to_string(fb_dir(&env).join(format!("{id}.json"))).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{id}: {e}: {text}"));
        assert_eq!(v["id"], id.as_str());
        messages.push(v["message"].as_str().unwrap().to_string());
    }
    messages.sort();
    let mut expected: Vec<String> = (0..12).map(|i| format!("agent {i}")).collect();
    expected.sort();
    assert_eq!(messages, expected, "every create stored its own message");
    let n = std::fs::read_dir(fb_dir(&env)).unwrap().count();
    assert_eq!(n, 12, "no temp files left");
}

#[test]
fn secrets_in_a_message_are_masked_in_the_stored_file() {
    let env = TestEnv::new();
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let r = env.run(&[
        "feedback",
        "create",
        "--type",
        "bug",
        "--message",
        &format!("edit failed; my config has password=hunter2 and {secret}"),
        "--context-command",
        "aitools write .env --content 'api_key=abc123'",
    ]);
    assert_eq!(r.code, 0);
    let text = std::fs::read_to_string(fb_dir(&env).join("001.json")).unwrap();
    for leaked in ["hunter2", secret, "abc123"] {
        assert!(!text.contains(leaked), "{leaked} stored: {text}");
    }
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["message"],
        "edit failed; my config has password=[REDACTED_SECRET] and [REDACTED_SECRET]"
    );
    assert_eq!(
        v["context"]["command"],
        "aitools write .env --content 'api_key=[REDACTED_SECRET]'"
    );
    // Reading it back does not mask the mask again.
    let show = env.run(&["feedback", "show", "001"]);
    assert_eq!(show.json["entry"]["message"], v["message"]);
    assert!(show.json.get("redactions").is_none(), "{}", show.stdout);
}

#[test]
fn bad_type_status_message_and_id_are_refused_with_repairs() {
    let env = TestEnv::new();
    env.run(&["feedback", "create", "--type", "bug", "--message", "m"]);
    for argv in [
        vec!["feedback", "create", "--type", "praise", "--message", "m"],
        vec!["feedback", "create", "--type", "bug", "--message", ""],
        vec!["feedback", "create", "--type", "bug", "--message", " \n "],
        vec!["feedback", "create", "--message", "m"],
        vec!["feedback", "create", "--type", "bug"],
        vec!["feedback", "list", "--type", "praise"],
        vec!["feedback", "list", "--status", "done"],
        vec!["feedback", "transition", "1", "--status", "done"],
        vec!["feedback", "transition", "1"],
        vec!["feedback", "show", "../001"],
        vec!["feedback", "show", "1a"],
    ] {
        let r = env.run(&argv);
        assert_eq!(r.code, 1, "{argv:?}: {}", r.stderr);
        assert_eq!(r.error_code(), "argument.invalid", "{argv:?}");
        let repairs = r.json["error"]["repairs"].as_array().unwrap();
        assert!(!repairs.is_empty());
    }
    let bad = env.run(&["feedback", "create", "--type", "praise", "--message", "m"]);
    let msg = bad.json["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("bug, requirement, suggestion, bad-output"),
        "{msg}"
    );
    let n = std::fs::read_dir(fb_dir(&env)).unwrap().count();
    assert_eq!(n, 1, "a refused create writes nothing");
}

#[test]
fn missing_ids_are_not_found() {
    let env = TestEnv::new();
    let none = env.run(&["feedback", "show", "001"]);
    assert_eq!(none.error_code(), "input.not-found");
    assert_eq!(
        none.json["error"]["repairs"][0]["command"],
        "aitools feedback list"
    );
    env.run(&["feedback", "create", "--type", "bug", "--message", "m"]);
    let r = env.run(&["feedback", "show", "7"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.error_code(), "input.not-found");
    assert_eq!(r.json["error"]["candidates"], serde_json::json!(["001"]));
    let t = env.run(&["feedback", "transition", "7", "--status", "closed"]);
    assert_eq!(t.error_code(), "input.not-found");
    // 1 and 001 are the same entry.
    assert_eq!(
        env.run(&["feedback", "show", "1"]).json["entry"]["id"],
        "001"
    );
}

#[test]
fn list_filters_newest_first_and_pages() {
    let env = TestEnv::new();
    for (t, m) in [
        ("bug", "a"),
        ("suggestion", "b"),
        ("bug", "c"),
        ("requirement", "d"),
    ] {
        env.run(&["feedback", "create", "--type", t, "--message", m]);
    }
    env.run(&["feedback", "transition", "003", "--status", "resolved"]);
    let ids = |r: &crate::support::Run| -> Vec<String> {
        r.json["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_str().unwrap().to_string())
            .collect()
    };
    let all = env.run(&["feedback", "list"]);
    assert_eq!(all.code, 0);
    assert_eq!(ids(&all), ["004", "003", "002", "001"]);
    assert_eq!(all.json["total"], 4);
    assert!(all.json.get("truncated").is_none());
    assert!(all.json.get("next_commands").is_none());
    let bugs = env.run(&["feedback", "list", "--type", "bug"]);
    assert_eq!(ids(&bugs), ["003", "001"]);
    let open_bugs = env.run(&["feedback", "list", "--type", "bug", "--status", "open"]);
    assert_eq!(ids(&open_bugs), ["001"]);
    let resolved = env.run(&["feedback", "list", "--status", "resolved"]);
    assert_eq!(ids(&resolved), ["003"]);
    let cut = env.run(&["feedback", "list", "--limit", "2"]);
    assert_eq!(cut.code, 3);
    assert_eq!(cut.json["status"], "partial");
    assert_eq!(ids(&cut), ["004", "003"]);
    assert_eq!(cut.json["total"], 4);
    let next = cut.json["next_commands"][0].as_str().unwrap();
    assert_eq!(next, "aitools feedback list --limit 4");
    // A broken file is reported, not fatal.
    std::fs::write(fb_dir(&env).join("005.json"), "{not json").unwrap();
    let with_bad = env.run(&["feedback", "list"]);
    assert_eq!(with_bad.code, 0);
    assert_eq!(ids(&with_bad).len(), 4);
    assert!(
        with_bad.json["skipped"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with("005.json")
    );
    assert_eq!(
        env.run(&["feedback", "show", "5"]).error_code(),
        "input.syntax-error"
    );
    // An empty or missing directory lists nothing.
    let fresh = TestEnv::new();
    let empty = fresh.run(&["feedback", "list"]);
    assert_eq!(empty.code, 0);
    assert_eq!(empty.json["total"], 0);
}

#[test]
fn transitions_follow_the_status_rules() {
    let env = TestEnv::new();
    env.run(&["feedback", "create", "--type", "bug", "--message", "m"]);
    let step = |to: &str| env.run(&["feedback", "transition", "001", "--status", to]);
    let r = step("in-progress");
    assert_eq!(r.code, 0);
    assert_eq!(
        printed_keys(&r.stdout)[3..],
        ["dir", "path", "previous_status", "entry"]
    );
    assert_eq!(r.json["previous_status"], "open");
    assert_eq!(r.json["entry"]["status"], "in-progress");
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(fb_dir(&env).join("001.json")).unwrap())
            .unwrap();
    assert_eq!(stored, r.json["entry"]);
    assert_eq!(step("resolved").code, 0);
    // resolved cannot go back to in-progress; the repairs name the allowed moves.
    let refused = step("in-progress");
    assert_eq!(refused.error_code(), "argument.invalid");
    let cmds: Vec<&str> = refused.json["error"]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        cmds,
        [
            "aitools feedback show 001",
            "aitools feedback transition 001 --status open",
            "aitools feedback transition 001 --status closed"
        ]
    );
    assert_eq!(step("closed").code, 0);
    let same = step("closed");
    assert_eq!(same.error_code(), "argument.invalid");
    assert!(
        same.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already closed")
    );
    assert_eq!(step("resolved").error_code(), "argument.invalid");
    assert_eq!(step("open").json["entry"]["status"], "open");
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(fb_dir(&env).join("001.json")).unwrap())
            .unwrap();
    assert_eq!(stored["status"], "open");
}

#[test]
fn feedback_dir_defaults_to_the_checkout_then_follows_the_variable() {
    let env = TestEnv::new();
    // Read-only: list never creates or writes.
    let out = env
        .command(&["feedback", "list", "--limit", "0"])
        .env_remove("AITOOLS_FEEDBACK_DIR")
        .output()
        .unwrap();
    let r = parse(out);
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("feedback");
    assert_eq!(r.json["dir"], checkout.to_string_lossy().as_ref());
    // A relative variable resolves against the working directory.
    let sub = env.root().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let out = env
        .command(&["feedback", "create", "--type", "bug", "--message", "m"])
        .env("AITOOLS_FEEDBACK_DIR", "fb")
        .current_dir(&sub)
        .output()
        .unwrap();
    let r = parse(out);
    assert_eq!(r.code, 0);
    assert!(sub.join("fb/001.json").is_file());
}

#[test]
fn front_matter_rules_reject_malformed_files() {
    let ok = "---\nname: x\ndescription: d\n---\nbody\n";
    assert!(front_matter::parse("x", ok).is_ok());
    assert_eq!(front_matter::parse("x", ok).unwrap().body, "body");
    for (stem, bad) in [
        ("x", "no front matter\n"),
        ("x", "---\nname: x\ndescription: d\nbody\n"),
        ("x", "---\ndescription: d\n---\nbody\n"),
        ("x", "---\nname: x\n---\nbody\n"),
        ("x", "---\nname: x\ndescription:\n---\nbody\n"),
        ("y", ok),
        ("x", "---\nname: x\ndescription: d\nextra: e\n---\nbody\n"),
        ("x", "---\nname: x\nname: x\ndescription: d\n---\nbody\n"),
        ("x", "---\nname: x\ndescription: d\n---\n\n"),
        ("X", "---\nname: X\ndescription: d\n---\nbody\n"),
        ("x", "---\nname x\ndescription: d\n---\nbody\n"),
    ] {
        assert!(front_matter::parse(stem, bad).is_err(), "accepted: {bad:?}");
    }
    assert!(front_matter::check_brief("one\n\ntwo").is_err());
    assert!(front_matter::check_brief("---\nname: b\n---\n").is_err());
    assert!(front_matter::check_brief("  ").is_err());
    let rule = |n: &str, d: &str| front_matter::Doc {
        name: n.into(),
        description: d.into(),
        body: "b".into(),
    };
    let good = [
        rule("trigger", "t"),
        rule("workflow", "w"),
        rule("writeback", "MANDATORY: aitools feedback create ..."),
    ];
    assert!(front_matter::check_rules(&good).is_ok());
    assert!(front_matter::check_rules(&good[..2]).is_err());
    let soft = [
        good[0].clone(),
        good[1].clone(),
        rule("writeback", "You may report issues."),
    ];
    assert!(front_matter::check_rules(&soft).is_err());
}

#[test]
fn every_agent_file_is_compiled_in() {
    // Dropping a file in registers it: the binary's lists are exactly the folders.
    let env = TestEnv::new();
    let help = env.run(&["--help"]);
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap().to_string())
            .collect()
    };
    let want_rules: Vec<String> = docs("rules").into_iter().map(|d| d.name).collect();
    let want_skills: Vec<String> = docs("skills").into_iter().map(|d| d.name).collect();
    assert_eq!(names(&help.json["rules"]), want_rules);
    assert_eq!(names(&help.json["skills"]), want_skills);
}

#[test]
fn shell_command_repairs_name_only_registered_commands() {
    // An agent told "find is a shell command, use aitools find" while `find` is not
    // registered would loop; such rows fall back to `aitools schema`.
    let env = TestEnv::new();
    let schema = env.run(&["schema"]);
    let names: Vec<String> = schema.json["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    let table = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/correspondence.tsv"),
    )
    .unwrap();
    let mut checked = 0;
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let word = line.split('\t').next().unwrap();
        if names
            .iter()
            .any(|n| n == word || n.starts_with(&format!("{word} ")))
        {
            continue;
        }
        let r = env.run(&[word, "x"]);
        assert_eq!(r.error_code(), "argument.invalid", "{word}");
        for rep in r.json["error"]["repairs"].as_array().unwrap() {
            let cmd = rep["command"].as_str().unwrap();
            let words: Vec<&str> = cmd.split(' ').skip(1).collect();
            let known = (1..=words.len().min(2)).any(|n| names.contains(&words[..n].join(" ")));
            assert!(known, "{word}: repair {cmd} names no registered command");
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn a_bare_or_wrong_group_names_its_subcommands() {
    let env = TestEnv::new();
    for argv in [
        vec!["feedback"],
        vec!["--root", ".", "feedback"],
        vec!["feedback", "nope"],
    ] {
        let r = env.run(&argv);
        assert_eq!(r.error_code(), "argument.invalid", "{argv:?}");
        let msg = r.json["error"]["message"].as_str().unwrap();
        assert!(msg.starts_with("feedback "), "{argv:?}: {msg}");
        assert!(
            msg.contains("create, list, show, transition"),
            "{argv:?}: {msg}"
        );
        assert_eq!(
            r.json["error"]["repairs"][0]["command"],
            "aitools schema feedback"
        );
    }
}

#[test]
fn discovery_fits_its_byte_budgets() {
    // Every byte aitools prints is the caller's context: first contact stays small,
    // and the full detail is one flag away.
    let env = TestEnv::new();
    let help = env.run(&["--help"]);
    assert!(
        help.stdout.len() <= 4096,
        "--help is {} bytes",
        help.stdout.len()
    );
    let rules = help.json["rules"].as_array().unwrap().clone();
    for d in docs("skills") {
        let one = env.run(&["skills", &d.name]);
        assert!(one.json.get("rules").is_none(), "{}", d.name);
        for r in &rules {
            let body = r["content"].as_str().unwrap();
            assert!(
                !one.stdout.contains(&body[..body.len().min(60)]),
                "{}",
                d.name
            );
        }
    }
    let list = env.run(&["schema"]);
    for c in list.json["commands"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let words: Vec<&str> = name.split(' ').collect();
        let mut argv = vec!["schema"];
        argv.extend(&words);
        let compact = env.run(&argv);
        assert!(
            compact.stdout.len() <= 2560,
            "schema {name} is {} bytes",
            compact.stdout.len()
        );
        let detail = &compact.json["commands"][0];
        assert!(detail.get("description").is_none(), "{name}");
        assert_eq!(
            detail["full"],
            format!("aitools schema {name} --full").as_str()
        );
        // `<cmd> --help` answers with the same compact detail.
        let mut argv: Vec<&str> = words.clone();
        argv.push("--help");
        let h = env.run(&argv);
        assert_eq!(&h.json["args"], &detail["args"], "{name} --help");
        // The full form is one flag away and has every description.
        let mut argv = vec!["schema"];
        argv.extend(&words);
        argv.push("--full");
        let full = env.run(&argv);
        let full = &full.json["commands"][0];
        assert!(full["description"].is_string(), "{name}");
        assert_eq!(
            full["args"].as_array().unwrap().len(),
            detail["args"].as_array().unwrap().len()
                + detail["limits"].as_array().map_or(0, |l| l.len())
                + detail["write_options"].as_array().map_or(0, |l| l.len())
                + full["args"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|a| a["name"] == "--stdin-data")
                    .count(),
            "{name}"
        );
    }
    // What an agent reads to do the everyday tasks (read, search, edit, rename,
    // patch, undo, find a definition): --help and one schema call.
    let learn = env.run(&[
        "schema", "read", "search", "edit", "replace", "apply", "undo", "code", "defs",
    ]);
    assert_eq!(learn.json["commands"].as_array().unwrap().len(), 7);
    let total = help.stdout.len() + learn.stdout.len();
    assert!(total <= 12 * 1024, "learning costs {total} bytes");
}
