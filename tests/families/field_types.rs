//! Every output field is declared with its JSON type (`data/field-types.tsv`),
//! `schema --full` and the MCP `outputSchema` say it, and the table names only
//! declared fields. Real answers are validated against the `outputSchema` on
//! every call a test makes (`support::check_output_schema`).

use crate::support::{TestEnv, check_output_schema};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

const JSON_TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "array", "object", "null",
];

/// Each command's output fields from `schema --all --full`: name → type.
fn declared(env: &TestEnv) -> BTreeMap<String, BTreeMap<String, Value>> {
    let all = env.run(&["schema", "--all", "--full"]).json;
    let mut out = BTreeMap::new();
    for c in all["commands"].as_array().expect("commands") {
        let fields = c["output_fields"]
            .as_array()
            .expect("output_fields")
            .iter()
            .map(|f| (f["name"].as_str().unwrap().to_string(), f["type"].clone()))
            .collect();
        out.insert(c["name"].as_str().unwrap().to_string(), fields);
    }
    out
}

#[test]
fn every_declared_output_field_has_a_json_type() {
    let env = TestEnv::new();
    let mut untyped = Vec::new();
    for (command, fields) in declared(&env) {
        for (name, ty) in fields {
            let ok = ty
                .as_str()
                .is_some_and(|t| t == "any" || t.split('|').all(|one| JSON_TYPES.contains(&one)));
            if !ok {
                untyped.push(format!("{command}: {name} ({ty})"));
            }
        }
    }
    assert!(
        untyped.is_empty(),
        "fields without a type (add a row to data/field-types.tsv): {untyped:#?}"
    );
}

#[test]
fn the_type_table_names_only_declared_fields_and_commands() {
    let env = TestEnv::new();
    let d = declared(&env);
    let envelope = [
        "schema_version",
        "status",
        "command",
        "error",
        "redactions",
        "took",
        "rules",
        "skills",
        "feedback",
        "mcp_continuation",
    ];
    let table = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/field-types.tsv"),
    )
    .expect("data/field-types.tsv");
    for line in table
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let cols: Vec<&str> = line.split('\t').collect();
        // A nested member (`matches[].line`, `error.code`, `took.*`) belongs
        // to its top-level field.
        let field = cols[0].split(['.', '[']).next().unwrap_or(cols[0]);
        match cols.get(2) {
            // An envelope member's row may be one command's (`error.diagnostics[].*`
            // of batch, whose diagnostics are its elements' envelopes).
            Some(commands) => {
                for c in commands.split(',') {
                    assert!(
                        d.get(c)
                            .is_some_and(|f| f.contains_key(field) || envelope.contains(&field)),
                        "{line:?}: {c} declares no field {field}"
                    );
                }
            }
            None => assert!(
                envelope.contains(&field) || d.values().any(|f| f.contains_key(field)),
                "{line:?}: no command declares {field}"
            ),
        }
    }
}

#[test]
fn output_schemas_type_every_member_and_allow_no_other() {
    let env = TestEnv::new();
    let replies = super::mcp::session_in(
        &env,
        &["--root", ".", "--tools", "all"],
        &[super::mcp::req(2, "tools/list", json!({}))],
    );
    let tools = super::mcp::by_id(&replies, 2)["result"]["tools"]
        .as_array()
        .expect("tools")
        .clone();
    let mut untyped = BTreeSet::new();
    for t in &tools {
        let Some(s) = t.get("outputSchema") else {
            continue;
        };
        // `aitools` and `more` answer any command's envelope: the members every
        // envelope has, the rest open (each command's own tool closes them).
        let any_command = t["name"] == "aitools" || t["name"] == "more";
        assert_eq!(s["additionalProperties"], any_command, "{}", t["name"]);
        for (k, p) in s["properties"].as_object().expect("properties") {
            // `value` (json get) is any JSON value.
            if p.get("type").is_none() && k != "value" {
                untyped.insert(format!("{}.{k}", t["name"]));
            }
            // An array's element members, typed alike (`value` is any JSON).
            let members = p["items"]["properties"].as_object();
            for (m, q) in members.into_iter().flatten() {
                // `old`/`new` (json diff) are any JSON value too.
                let any = ["value", "old", "new"].contains(&m.as_str());
                if q.get("type").is_none() && !any {
                    untyped.insert(format!("{}.{k}[].{m}", t["name"]));
                }
            }
        }
    }
    assert!(
        untyped.is_empty(),
        "untyped outputSchema members: {untyped:?}"
    );
}

/// An error's `diagnostics[]` and `conflicts[]` elements are typed and closed:
/// the syntax guard's diagnostic and undo's conflict validate, and a member of
/// the wrong type or one no code sets fails the check.
#[test]
fn error_elements_are_typed_and_closed() {
    let env = TestEnv::new();
    env.write("l.rs", "fn keep() {}\nfn main() {}\n");
    let mut broken = env
        .run(&[
            "edit",
            "l.rs",
            "--old",
            "fn keep() {}",
            "--new",
            "fn keep( {}",
            "--syntax-guard",
        ])
        .json;
    assert_eq!(broken["error"]["code"], "refusal.syntax-broken", "{broken}");
    check_output_schema(&broken);
    broken["error"]["diagnostics"][0]["line"] = json!("1");
    let caught = std::panic::catch_unwind(|| check_output_schema(&broken));
    assert!(
        caught.is_err(),
        "a diagnostic whose line is a string passed"
    );
    broken["error"]["diagnostics"][0]["line"] = json!(1);
    broken["error"]["diagnostics"][0]["undeclared_member"] = json!(1);
    let caught = std::panic::catch_unwind(|| check_output_schema(&broken));
    assert!(
        caught.is_err(),
        "a diagnostic with an undeclared member passed"
    );

    env.write("b.txt", "one\n");
    let op = env
        .run(&["edit", "b.txt", "--old", "one", "--new", "two"])
        .json;
    let op = op["op_id"].as_str().expect("op_id").to_string();
    env.write("b.txt", "three\n");
    let mut changed = env.run(&["undo", &op]).json;
    assert_eq!(
        changed["error"]["code"], "refusal.target-changed",
        "{changed}"
    );
    check_output_schema(&changed);
    changed["error"]["conflicts"][0]["path"] = json!(1);
    let caught = std::panic::catch_unwind(|| check_output_schema(&changed));
    assert!(caught.is_err(), "a conflict whose path is a number passed");
    changed["error"]["conflicts"][0]["path"] = json!("b.txt");
    changed["error"]["conflicts"][0]["undeclared_member"] = json!(1);
    let caught = std::panic::catch_unwind(|| check_output_schema(&changed));
    assert!(
        caught.is_err(),
        "a conflict with an undeclared member passed"
    );
}

#[test]
fn answers_of_the_wrong_shape_fail_the_check() {
    // The check itself: a read whose lines are a string is refused.
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let mut answer = env.run(&["read", "a.txt"]).json;
    check_output_schema(&answer);
    answer["lines"] = json!("one");
    let caught = std::panic::catch_unwind(|| check_output_schema(&answer));
    assert!(caught.is_err(), "a string where lines is an array passed");
    answer["lines"] = json!([]);
    answer["undeclared_member"] = json!(1);
    let caught = std::panic::catch_unwind(|| check_output_schema(&answer));
    assert!(caught.is_err(), "an undeclared member passed");
}

/// The members of an array's elements are typed in the outputSchema and real
/// answers are checked against them: a search match whose line is a string, or a
/// find item whose size is a string, fails the check.
#[test]
fn nested_members_of_answers_are_typed_and_checked() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo one\n");
    let mut m = env.run(&["search", "one", "--output", "matches"]).json;
    check_output_schema(&m);
    m["matches"][0]["line"] = json!("1");
    let caught = std::panic::catch_unwind(|| check_output_schema(&m));
    assert!(caught.is_err(), "a match whose line is a string passed");
    let mut f = env.run(&["find", ".", "--long"]).json;
    check_output_schema(&f);
    let item = f["items"]
        .as_array_mut()
        .and_then(|i| i.first_mut())
        .expect("an item");
    item[2] = json!({"size": 12});
    let caught = std::panic::catch_unwind(|| check_output_schema(&f));
    assert!(caught.is_err(), "a find item whose size is a string passed");
}

/// The members of the remaining lists are typed for their command: overview,
/// tx status (with and without a tx), sys env/tools/procs/ports, git status,
/// doctor, table read/agg, archive list. Each real answer validates, and a
/// member of the wrong type in each fails the check.
#[test]
fn members_of_every_commands_lists_are_typed_and_checked() {
    let env = TestEnv::new();
    env.write("t.csv", "a,b\n1,x\n2,y\n1,z\n");
    env.write("m.rs", "fn main() {}\n");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.email=a@b", "-c", "user.name=a"])
            .args(args)
            .current_dir(env.root())
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "t.csv"]);
    git(&["commit", "-qm", "init"]);
    git(&["mv", "t.csv", "u.csv"]);
    git(&["commit", "-qm", "mv"]);
    env.write("m.rs", "fn main() {}\n// one\n");
    git(&["add", "m.rs"]);
    env.write("m.rs", "fn main() {}\n// two\n");
    let tar = std::process::Command::new("tar")
        .args(["czf", "a.tgz", "u.csv", "m.rs"])
        .current_dir(env.root())
        .status()
        .is_ok_and(|s| s.success());
    assert!(tar, "tar czf");
    let tx = env.run(&["tx", "begin"]).json["tx"]
        .as_str()
        .expect("tx")
        .to_string();
    env.run(&["write", "x.txt", "--content", "hi", "--tx", &tx]);
    let calls: &[(&[&str], &str, &str)] = &[
        (&["overview"], "languages", "files"),
        (&["overview"], "entries", "kind"),
        (&["tx", "status"], "items", "ops"),
        (&["tx", "status", &tx], "paths", "action"),
        (&["tx", "status", &tx], "ops", "tx_op"),
        (&["sys", "env"], "items", "value"),
        (&["sys", "tools"], "items", "name"),
        (&["sys", "procs"], "items", "pid"),
        (&["git", "status"], "staged", "status"),
        (&["git", "status"], "unstaged", "path"),
        (&["git", "show", "HEAD"], "files", "added"),
        (&["doctor"], "checks", "ok"),
        (&["table", "read", "u.csv"], "columns", "type"),
        (
            &[
                "table",
                "agg",
                "u.csv",
                "--group-by",
                "a",
                "--count",
                "--avg",
                "a",
            ],
            "groups",
            "count",
        ),
        (&["archive", "list", "a.tgz"], "items", "size"),
    ];
    let table = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/field-types.tsv"),
    )
    .expect("data/field-types.tsv");
    let typed = |command: &str, name: &str| {
        table.lines().any(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            cols[0] == name
                && cols
                    .get(2)
                    .is_none_or(|c| c.split(',').any(|c| c == command))
        })
    };
    for (argv, array, member) in calls {
        let mut j = env.run(argv).json;
        check_output_schema(&j);
        // Every member of every list's elements in the answer has a row.
        let command = j["command"].as_str().unwrap_or("").to_string();
        let obj = j.as_object().expect("an object");
        for (list, v) in obj {
            for e in v.as_array().into_iter().flatten() {
                for m in e.as_object().into_iter().flat_map(|o| o.keys()) {
                    let name = format!("{list}[].{m}");
                    assert!(typed(&command, &name), "{argv:?}: {name} has no row");
                }
            }
        }
        let Some(first) = j[*array].as_array_mut().and_then(|a| a.first_mut()) else {
            panic!("{argv:?}: no element in {array}: {j}");
        };
        assert!(first.get(*member).is_some(), "{argv:?}: {array}[].{member}");
        first[*member] = json!([["a list"]]);
        let caught = std::panic::catch_unwind(|| check_output_schema(&j));
        assert!(caught.is_err(), "{argv:?}: {array}[].{member} untyped");
    }
}

/// Every level of every `outputSchema` is declared: each array says what its
/// elements are, and each object whose members are listed allows no other.
#[test]
fn every_level_of_every_output_schema_is_typed_and_closed() {
    fn walk(path: &str, s: &Value, open: &mut Vec<String>) {
        if s["type"] == "array" && s.get("items").is_none() {
            open.push(format!("{path}: an array without items"));
        }
        if s.get("properties").is_some() && s.get("additionalProperties").is_none() {
            open.push(format!("{path}: an object not closed"));
        }
        for (k, p) in s["properties"].as_object().into_iter().flatten() {
            walk(&format!("{path}.{k}"), p, open);
        }
        for key in ["items", "additionalProperties"] {
            if let Some(inner) = s.get(key).filter(|v| v.is_object()) {
                walk(&format!("{path}[{key}]"), inner, open);
            }
        }
    }
    let env = TestEnv::new();
    let replies = super::mcp::session_in(
        &env,
        &["--root", ".", "--tools", "all"],
        &[super::mcp::req(2, "tools/list", json!({}))],
    );
    let mut open = Vec::new();
    for t in super::mcp::by_id(&replies, 2)["result"]["tools"]
        .as_array()
        .expect("tools")
    {
        if let Some(s) = t.get("outputSchema") {
            walk(t["name"].as_str().unwrap_or("?"), s, &mut open);
        }
    }
    assert!(open.is_empty(), "{} open levels: {open:#?}", open.len());
}
