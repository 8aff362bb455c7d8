//! `json get|select|set|delete|merge|patch|fmt` and `check`, black-box, with jq and
//! python's json as oracles: values read equal what jq reads, edited files parse
//! to what jq / python compute, and the bytes outside an edit stay as they were.

use crate::support::TestEnv;
use crate::support::fixtures::ok;
use std::process::Command;

/// Runs a shell oracle in the test repository; its stdout.
fn sh(env: &TestEnv, script: &str) -> String {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env.root())
        .output()
        .expect("sh");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The file parsed and re-printed canonically (sorted keys), by jq.
fn canon(env: &TestEnv, rel: &str) -> String {
    sh(env, &format!("jq -S -c . {rel}"))
}

const DOC: &str = "{\n    \"name\": \"demo\",\n    \"version\": 1.50,\n    \"tags\": [\"a\", \"b\"],\n    \"deps\": {\n        \"x\": {\"v\": 1},\n        \"y\": {\"v\": 2}\n    },\n    \"people\": [\n        {\"n\": \"ann\", \"age\": 31},\n        {\"n\": \"bob\", \"age\": 25},\n        {\"n\": \"cy\"},\n        {\"n\": \"dee\", \"age\": 40}\n    ]\n}\n";

#[test]
fn json_get_matches_jq_and_cuts_with_child_pointers() {
    let env = TestEnv::new();
    env.write("d.json", DOC);
    for (ptr, jq) in [
        ("/deps/x", ".deps.x"),
        ("/tags/1", ".tags[1]"),
        ("/people/2", ".people[2]"),
        ("", "."),
    ] {
        let r = env.run(&["json", "get", "d.json", ptr]);
        ok(&r);
        let ours: serde_json::Value = r.json["value"].clone();
        let theirs: serde_json::Value =
            serde_json::from_str(&sh(&env, &format!("jq -c '{jq}' d.json"))).unwrap();
        assert_eq!(ours, theirs, "{ptr}");
    }
    let r = env.run(&["json", "get", "d.json", "/name", "--raw"]);
    assert_eq!(r.json["text"], "demo");
    let r = env.run(&["json", "get", "d.json", "/deps", "--keys"]);
    assert_eq!(r.json["keys"], serde_json::json!(["x", "y"]));
    // A cut value: partial, a preview, and one read per child.
    let r = env.run(&["json", "get", "d.json", "/people", "--max-bytes", "20"]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["truncated"], true);
    assert_eq!(r.json["value_preview"].as_str().unwrap().len(), 20);
    let next: Vec<&str> = r.json["next_commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(next[0], "aitools json get d.json /people/0");
    assert_eq!(next.len(), 4);
    // A pointer that does not resolve names the keys that are there.
    let r = env.run(&["json", "get", "d.json", "/deps/z"]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert_eq!(r.json["error"]["candidates"], serde_json::json!(["x", "y"]));
}

#[test]
fn json_select_matches_jq() {
    let env = TestEnv::new();
    env.write("d.json", DOC);
    let r = env.run(&[
        "json",
        "select",
        "d.json",
        "/people",
        "--where",
        "/age>=30",
        "--sort-by",
        "/age",
        "--desc",
    ]);
    ok(&r);
    let ours: Vec<serde_json::Value> = r.json["items"].as_array().unwrap().clone();
    let theirs: Vec<serde_json::Value> = serde_json::from_str(&sh(
        &env,
        "jq -c '[.people[] | select(.age != null and .age >= 30)] | sort_by(.age) | reverse' d.json",
    ))
    .unwrap();
    assert_eq!(ours, theirs);
    // Sorted: each item's index in the array, not its place in items.
    assert_eq!(r.json["indices"][0], 3, "{}", r.stdout);
    // A missing member satisfies only !=.
    let r = env.run(&[
        "json", "select", "d.json", "/people", "--where", "/age!=25", "--output", "count",
    ]);
    assert_eq!(r.json["count"], 3);
    let r = env.run(&[
        "json", "select", "d.json", "/people", "--where", "/n~^[ab]", "--pick", "/n", "--limit",
        "1",
    ]);
    assert_eq!(r.code, 3);
    assert_eq!(r.json["items"][0], "ann", "{}", r.stdout);
    assert_eq!(r.json["total"], 2);
}

/// json select's items are the values jq prints (issue 32): no pointer beside
/// each one (the caller named the array), one --pick's value bare, and the
/// indexes only when a --where or a sort makes them differ from the places in
/// items; --with-pointers gives each element's pointer (the 0.5 shape).
#[test]
fn json_select_items_are_bare_values_with_indices_only_when_not_derivable() {
    let env = TestEnv::new();
    env.write("d.json", DOC);
    let names = |extra: &[&str]| {
        let mut argv = vec!["json", "select", "d.json", "/people", "--pick", "/n"];
        argv.extend_from_slice(extra);
        env.run(&argv)
    };
    let all = names(&[]);
    ok(&all);
    assert_eq!(
        all.json["items"],
        serde_json::json!(["ann", "bob", "cy", "dee"]),
        "{}",
        all.stdout
    );
    assert!(all.json.get("indices").is_none(), "{}", all.stdout);
    let cut = names(&["--limit", "2"]);
    assert!(cut.json.get("indices").is_none(), "{}", cut.stdout);
    let old = names(&["--where", "/age>=30"]);
    assert_eq!(old.json["items"], serde_json::json!(["ann", "dee"]));
    assert_eq!(
        old.json["indices"],
        serde_json::json!([0, 3]),
        "{}",
        old.stdout
    );
    let back = names(&["--desc"]);
    assert_eq!(back.json["indices"], serde_json::json!([3, 2, 1, 0]));
    let two = env.run(&[
        "json", "select", "d.json", "/people", "--pick", "/n", "--pick", "/age", "--limit", "1",
    ]);
    assert_eq!(
        two.json["items"],
        serde_json::json!([{"/n": "ann", "/age": 31}])
    );
    let with = names(&["--where", "/age>=30", "--with-pointers"]);
    assert_eq!(
        with.json["items"],
        serde_json::json!([{"pointer": "/people/0", "value": {"/n": "ann"}},
            {"pointer": "/people/3", "value": {"/n": "dee"}}]),
        "{}",
        with.stdout
    );
    assert!(with.json.get("indices").is_none(), "{}", with.stdout);
    // Under a key that names a secret each item keeps its pointer, and one pick
    // its key: the mask judges a value by them.
    env.write("k.json", r#"{"api_keys":["a"],"users":[{"token":"t"}]}"#);
    let keys = env.run(&["json", "select", "k.json", "/api_keys"]);
    assert_eq!(
        keys.json["items"][0]["pointer"], "/api_keys/0",
        "{}",
        keys.stdout
    );
    let token = env.run(&["json", "select", "k.json", "/users", "--pick", "/token"]);
    assert!(
        token.json["items"][0].get("/token").is_some(),
        "{}",
        token.stdout
    );
    // jq's bytes, near enough: the names of 4 elements in one short answer.
    assert!(
        all.stdout.len() < 130,
        "{} B: {}",
        all.stdout.len(),
        all.stdout
    );
}

/// `json select FILE --where ..` without the array's pointer (issue 32): the one
/// array whose elements have the condition's member (not the first array,
/// `/tags`) is taken and said in `took`; with two such arrays the repair is the
/// same call on the first, the arrays are the candidates, and it runs.
#[test]
fn json_select_without_a_pointer_takes_the_array_meant_or_names_the_call() {
    let env = TestEnv::new();
    env.write("d.json", DOC);
    env.write("top.json", r#"[{"ok":true},{"ok":false}]"#);
    env.write(
        "two.json",
        r#"{"staff":[{"n":"a"}],"guests":[{"n":"b"},{"n":"c"}]}"#,
    );
    env.write("flat.json", r#"{"a":1}"#);
    let r = env.run(&["json", "select", "d.json", "--where", "/age>=30"]);
    ok(&r);
    assert_eq!(r.json["took"], serde_json::json!({"POINTER": "/people"}));
    let jq = sh(
        &env,
        "jq '[.people[] | select(.age != null and .age >= 30)] | length' d.json",
    );
    let n = r.json["items"].as_array().map_or(0, Vec::len);
    assert_eq!(n.to_string(), jq.trim());
    // Every selected element listed: no total, no mode (issue 32).
    assert!(r.json.get("total").is_none(), "{}", r.stdout);
    assert!(r.json.get("mode").is_none(), "{}", r.stdout);
    // A document that is an array: its pointer is "".
    let t = env.run(&["json", "select", "top.json", "--where", "/ok==true"]);
    ok(&t);
    assert_eq!(t.json["took"], serde_json::json!({"POINTER": ""}));
    assert_eq!(t.json["items"].as_array().map(Vec::len), Some(1));
    // Two arrays whose elements have /n: the call on the first, which runs.
    let two = env.run(&["json", "select", "two.json", "--where", "/n=b"]);
    assert_eq!(two.error_code(), "argument.invalid", "{}", two.stderr);
    let fix = two.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap_or("");
    assert_eq!(fix, "aitools json select two.json /staff --where /n=b");
    assert_eq!(
        two.json["error"]["candidates"],
        serde_json::json!(["/staff", "/guests"])
    );
    ok(&env.run_line(fix));
    // No array at all: json get lists what is there, and that runs.
    let n = env.run(&["json", "select", "flat.json", "--where", "/a=1"]);
    assert_eq!(n.error_code(), "argument.invalid", "{}", n.stderr);
    let fix = n.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap_or("");
    assert_eq!(fix, "aitools json get flat.json '' --keys");
    ok(&env.run_line(fix));
}

#[test]
fn json_set_and_delete_touch_only_their_value_and_match_jq() {
    let env = TestEnv::new();
    env.write("d.json", DOC);
    env.write("o.json", DOC);
    let r = env.run(&["json", "set", "d.json", "/deps/y/v", "3"]);
    ok(&r);
    // One line changed, the rest byte for byte (1.50 keeps its spelling).
    assert_eq!(
        String::from_utf8(env.read("d.json")).unwrap(),
        DOC.replace("\"y\": {\"v\": 2}", "\"y\": {\"v\": 3}")
    );
    let r = env.run(&["json", "set", "d.json", "/tags/-", "\"c\""]);
    ok(&r);
    let r = env.run(&[
        "json",
        "set",
        "d.json",
        "/new",
        "{\"k\": [1, 2]}",
        "--create",
    ]);
    ok(&r);
    let r = env.run(&["json", "delete", "d.json", "/people/1"]);
    ok(&r);
    sh(
        &env,
        "jq --indent 4 '.deps.y.v = 3 | .tags += [\"c\"] | .new = {k: [1, 2]} | del(.people[1])' o.json > o2.json",
    );
    assert_eq!(canon(&env, "d.json"), canon(&env, "o2.json"));
    // The new member is laid out like its siblings, after the last one.
    let text = String::from_utf8(env.read("d.json")).unwrap();
    assert!(
        text.contains("    ],\n    \"new\": {\n        \"k\": [\n"),
        "{text}"
    );
    // Each write is journaled: undo restores the file.
    let op = r.json["op_id"].as_str().unwrap().to_string();
    ok(&env.run(&["undo", &op]));
    assert!(
        String::from_utf8(env.read("d.json"))
            .unwrap()
            .contains("\"bob\"")
    );
    // A value that is not JSON is refused, with the string form as the repair.
    let r = env.run(&["json", "set", "d.json", "/name", "plain"]);
    assert_eq!(r.error_code(), "input.syntax-error");
    assert!(
        r.json["error"]["repairs"][0]["command"]
            .as_str()
            .unwrap()
            .contains("'\"plain\"'")
    );
}

#[test]
fn json_set_keeps_crlf_tabs_and_no_final_newline() {
    let env = TestEnv::new();
    let before = "{\r\n\t\"a\": 1,\r\n\t\"b\": [true]\r\n}";
    env.write("c.json", before);
    ok(&env.run(&["json", "set", "c.json", "/c", "{\"d\": null}", "--create"]));
    assert_eq!(
        String::from_utf8(env.read("c.json")).unwrap(),
        "{\r\n\t\"a\": 1,\r\n\t\"b\": [true],\r\n\t\"c\": {\r\n\t\t\"d\": null\r\n\t}\r\n}"
    );
}

#[test]
fn json_merge_follows_rfc7386_like_jq() {
    let env = TestEnv::new();
    env.write("d.json", DOC);
    let patch =
        r#"{"name": null, "deps": {"x": null, "z": {"v": 9, "gone": null}}, "tags": ["q"]}"#;
    let r = env.run(&["json", "merge", "d.json", "--stdin-data", patch]);
    ok(&r);
    // python's reference merge (RFC 7386 section 2) on the original.
    env.write("o.json", DOC);
    env.write(
        "m.py",
        r#"import json,sys
def merge(t, p):
    if not isinstance(p, dict): return p
    if not isinstance(t, dict): t = {}
    for k, v in p.items():
        if v is None: t.pop(k, None)
        else: t[k] = merge(t.get(k), v)
    return t
print(json.dumps(merge(json.load(open('o.json')), json.loads(sys.argv[1]))))
"#,
    );
    let py = sh(&env, &format!("python3 m.py '{patch}' | jq -S -c ."));
    assert_eq!(canon(&env, "d.json"), py);
    // Untouched members keep their lines.
    let text = String::from_utf8(env.read("d.json")).unwrap();
    assert!(text.contains("    \"version\": 1.50,\n"), "{text}");
}

#[test]
fn json_patch_is_all_or_nothing() {
    let env = TestEnv::new();
    env.write("d.json", DOC);
    let good = r#"[{"op":"add","path":"/tags/0","value":"z"},{"op":"replace","path":"/version","value":2},{"op":"move","from":"/deps/x","path":"/moved"},{"op":"copy","from":"/name","path":"/alias"},{"op":"remove","path":"/people"},{"op":"test","path":"/alias","value":"demo"}]"#;
    ok(&env.run(&["json", "patch", "d.json", "--stdin-data", good]));
    env.write("o.json", DOC);
    sh(
        &env,
        "jq '.tags = [\"z\"] + .tags | .version = 2 | .moved = .deps.x | del(.deps.x) | .alias = .name | del(.people)' o.json > o2.json",
    );
    assert_eq!(canon(&env, "d.json"), canon(&env, "o2.json"));
    let before = env.read("d.json");
    let bad =
        r#"[{"op":"add","path":"/x","value":1},{"op":"test","path":"/name","value":"other"}]"#;
    let r = env.run(&["json", "patch", "d.json", "--stdin-data", bad]);
    assert_eq!(r.error_code(), "selection.no-match");
    assert_eq!(env.read("d.json"), before, "a failed patch wrote something");
}

#[test]
fn json_fmt_matches_python_and_keeps_order() {
    let env = TestEnv::new();
    env.write(
        "m.json",
        "{\"b\":1,\"a\":[1,2,{\"c\":\"\u{e9}\"}],\"e\":{}}\n",
    );
    ok(&env.run(&["json", "fmt", "m.json", "--indent", "4"]));
    let py = sh(
        &env,
        "python3 -c 'import json,sys; print(json.dumps(json.loads(sys.stdin.read()), indent=4, ensure_ascii=False))' < m.json",
    );
    assert_eq!(String::from_utf8(env.read("m.json")).unwrap(), py);
    ok(&env.run(&["json", "fmt", "m.json", "--sort-keys", "--minify"]));
    assert_eq!(
        String::from_utf8(env.read("m.json")).unwrap(),
        sh(&env, "jq -S -c . m.json")
    );
}

#[test]
fn check_reports_line_and_column_per_format() {
    let env = TestEnv::new();
    env.write("ok.json", "{\"a\": [1, 2]}\n");
    env.write("bad.json", "{\n  \"a\": 1,\n}\n");
    env.write("ok.toml", "[t]\na = \"x\"\nb = [1, 2]\n");
    env.write("bad.toml", "a = 1\na = 2\n");
    env.write(
        "ok.yaml",
        "a:\n  - [1, 2]\n  - 'it''s'\nb: |\n  free { text\n",
    );
    env.write("bad.yaml", "a: [1, 2\n");
    env.write(
        "ok.rs",
        "fn f<'a>(x: &'a str) -> char { let _ = \"(\"; '}' }\n",
    );
    env.write("bad.rs", "fn f() {\n    let x = (1;\n}\n");
    env.write("bad.lisp", "(defun f (x)\n  (+ x #\\( 1)\n");
    let r = env.run(&["check", "ok.json", "ok.toml", "ok.yaml", "ok.rs"]);
    ok(&r);
    assert_eq!(r.json["valid"], true);
    let formats: Vec<&str> = r.json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["json", "toml", "yaml", "source"]);
    for (file, line, col) in [
        ("bad.json", 3, 1),
        ("bad.toml", 2, 3),
        ("bad.yaml", 2, 1),
        // The grammar names the missing `)` where it belongs.
        ("bad.rs", 2, 15),
        ("bad.lisp", 1, 1),
    ] {
        let r = env.run(&["check", file]);
        assert_eq!(r.error_code(), "input.syntax-error", "{file}: {}", r.stdout);
        let d = &r.json["error"]["diagnostics"][0];
        assert_eq!(
            (d["line"].as_u64(), d["column"].as_u64()),
            (Some(line), Some(col)),
            "{file}: {d}"
        );
    }
    // python's json agrees on where bad.json breaks.
    let py = sh(
        &env,
        "python3 -c 'import json\ntry: json.load(open(\"bad.json\"))\nexcept json.JSONDecodeError as e: print(e.lineno, e.colno)'",
    );
    assert_eq!(py.trim(), "3 1");
}

#[test]
fn check_yaml_is_a_real_parse_with_positions() {
    let env = TestEnv::new();
    // Neither file has a tab, a quote or a bracket: a structural scan passes
    // them; a YAML parser does not.
    env.write("indent.yaml", "a:\n  b: 1\n c: 2\n");
    env.write("value.yaml", "key: value: other\n");
    env.write("alias.yaml", "a: *nope\n");
    env.write(
        "ok.yaml",
        "a: &x\n  b: [1, {c: d}]\nc: *x\nd: >-\n  folded: text\n",
    );
    ok(&env.run(&["check", "ok.yaml"]));
    for (file, line, col) in [
        ("indent.yaml", 3, 2),
        ("value.yaml", 1, 11),
        ("alias.yaml", 1, 4),
    ] {
        let r = env.run(&["check", file]);
        assert_eq!(r.error_code(), "input.syntax-error", "{file}: {}", r.stdout);
        let d = &r.json["error"]["diagnostics"][0];
        assert_eq!(
            (d["line"].as_u64(), d["column"].as_u64()),
            (Some(line), Some(col)),
            "{file}: {d}"
        );
    }
    // PyYAML, when present, agrees on validity and on where the first two break.
    let py = sh(
        &env,
        "python3 -c '\nimport sys\ntry: import yaml\nexcept ImportError: sys.exit(0)\nfor f in [\"ok.yaml\", \"indent.yaml\", \"value.yaml\"]:\n  try: yaml.safe_load(open(f)); print(f, \"ok\")\n  except yaml.YAMLError as e: print(f, e.problem_mark.line + 1, e.problem_mark.column + 1)'",
    );
    if !py.is_empty() {
        assert_eq!(py, "ok.yaml ok\nindent.yaml 3 2\nvalue.yaml 1 11\n");
    }
}

/// A value (or merge patch) that is not JSON is the call's own text, not a
/// file: every repair handed back runs, none reads a file named "The value".
#[test]
fn every_repair_of_a_value_that_is_not_json_runs() {
    let env = TestEnv::new();
    env.write("c.json", "{\"a\": {\"b\": \"x\"}}\n");
    for args in [
        &["json", "set", "c.json", "/a/b", "es2022"][..],
        &["json", "merge", "c.json", "--stdin-data", "{\"a\":"],
    ] {
        let r = env.run(args);
        assert_eq!(r.error_code(), "input.syntax-error", "{}", r.stdout);
        for fix in r.json["error"]["repairs"].as_array().unwrap() {
            let line = fix["command"].as_str().unwrap();
            assert!(!line.contains("The "), "{line}");
            let ran = env.run_line(line);
            assert_eq!(ran.code, 0, "{args:?} handed back {line}: {}", ran.stdout);
        }
    }
    assert_eq!(env.read("c.json"), b"{\"a\": {\"b\": \"es2022\"}}\n");
}
