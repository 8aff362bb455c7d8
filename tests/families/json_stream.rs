//! `json get` and `json select` read a document without building its whole tree
//! (issue 34 row 5): a document past the whole parse's 1,000,000-value budget is
//! answered as jq answers it (nesting, escapes, unicode, duplicate keys, numbers
//! as written), a secret stays masked, and memory follows the answer.

use crate::support::TestEnv;
use crate::support::fixtures::peak_rss;
use serde_json::{Value, json};
use std::process::Command;

const ITEMS: usize = 120_000;

/// ~1.3M values, ~11 MB: `meta` (escapes, unicode, duplicate keys, keys holding
/// '/' and '~', numbers as written, a password), `items`, `tail`.
/// The pseudo-random draw `doc()` makes for each item (a fixed LCG), so a test
/// can count what the document holds without parsing it.
fn draws() -> impl Iterator<Item = usize> {
    let mut x: u64 = 1;
    (0..ITEMS).map(move |_| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize
    })
}

fn doc() -> String {
    let mut s = String::from(concat!(
        r#"{"meta": {"name": "t", "a/b": 1, "m~n": [2, 3], "esc": "l\nn \u00e9 \ud83d\ude00 \"q\" \\", "#,
        r#""k\"ey": true, "nums": [1.50, -0, 1e5, 18446744073709551616, -2.5E-3], "#,
        r#""dup": 1, "password": "hunter2-s3cret-value", "dup": {"x": [null, false]}, "#,
        r#""日本": "語 😀"},"#,
        "\n \"items\": [\n"
    ));
    let kinds = ["red", "green", "blue"];
    for (i, r) in draws().enumerate() {
        if i > 0 {
            s.push_str(",\n");
        }
        s.push_str(&format!(
            r#"  {{"id": {i}, "kind": "{}", "n": {}, "s": {}.{}, "name": "n\u00e9{}\t", "t": [{}, "x"], "d": {{"e": {{"f": null}}}}}}"#,
            kinds[r % 3],
            (r % 1_000_000) * ITEMS + i,
            r % 97,
            r % 10,
            r % 13,
            i % 2 == 0
        ));
    }
    s.push_str("\n ],\n \"tail\": {\"count\": 120000}}\n");
    s
}

/// Numbers as their value (jq 1.6 prints them as doubles).
fn norm(v: &Value) -> Value {
    match v {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(a) => Value::Array(a.iter().map(norm).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), norm(v))).collect()),
        _ => v.clone(),
    }
}

fn jq(env: &TestEnv, filter: &str) -> Value {
    let out = Command::new("jq")
        .args(["-c", filter, "big.json"])
        .current_dir(env.root())
        .output()
        .expect("jq (the oracle) on PATH");
    assert!(out.status.success(), "jq {filter}");
    serde_json::from_slice(&out.stdout).expect("jq's JSON")
}

#[test]
fn json_get_past_the_value_budget_answers_like_jq() {
    let env = TestEnv::new();
    env.write("big.json", doc());
    let last = format!("/items/{}/name", ITEMS - 1);
    for (ptr, path) in [
        ("/meta/esc", r#"["meta","esc"]"#),
        ("/meta/k\"ey", r#"["meta","k\"ey"]"#),
        ("/meta/a~1b", r#"["meta","a/b"]"#),
        ("/meta/m~0n/1", r#"["meta","m~n",1]"#),
        ("/meta/nums", r#"["meta","nums"]"#),
        ("/meta/dup/x", r#"["meta","dup","x"]"#),
        ("/meta/日本", r#"["meta","日本"]"#),
        ("/items/0", r#"["items",0]"#),
        ("/items/60000/t", r#"["items",60000,"t"]"#),
        (&last, r#"["items",119999,"name"]"#),
        ("/tail", r#"["tail"]"#),
    ] {
        let r = env.run(&["json", "get", "big.json", ptr]);
        assert_eq!(r.code, 0, "{ptr}: {}", r.stdout);
        let want = jq(&env, &format!("getpath({path})"));
        assert_eq!(norm(&r.json["value"]), norm(&want), "{ptr}");
    }
    // Numbers come back as written, not through a float.
    let r = env.run(&["json", "get", "big.json", "/meta/nums"]);
    assert!(
        r.stdout
            .contains(r#"[1.50,-0,1e5,18446744073709551616,-2.5E-3]"#),
        "{}",
        r.stdout
    );
    // The secret stays masked, asked for by name or inside its object.
    for ptr in ["/meta/password", "/meta"] {
        let r = env.run(&["json", "get", "big.json", ptr]);
        assert!(!r.stdout.contains("hunter2"), "{ptr}: {}", r.stdout);
        assert!(r.json["redactions"].as_u64() >= Some(1), "{}", r.stdout);
    }
    // What does not resolve is the whole parse's answer; the whole document is
    // still past the budget of a tree held whole.
    let r = env.run(&["json", "get", "big.json", "/items/120000"]);
    assert_eq!(r.error_code(), "argument.invalid", "{}", r.stdout);
    assert_eq!(r.json["error"]["candidates"], json!(["0", "119999"]));
    let r = env.run(&["json", "get", "big.json", "/meta/nope/x"]);
    assert_eq!(r.error_code(), "argument.invalid", "{}", r.stdout);
    let keys = &r.json["error"]["candidates"];
    assert_eq!(keys[1], "a/b", "{keys}");
    let r = env.run(&["json", "get", "big.json", ""]);
    assert_eq!(r.error_code(), "refusal.too-large", "{}", r.stdout);
}

/// `json select` without the array's pointer chooses it by the same streaming
/// walk (no tree, the file read once): a document past the whole parse's budget
/// is answered (it was refused as too large), and the arrays named when the
/// call is ambiguous are the ones the tree gave, in the same order.
#[test]
fn json_select_without_a_pointer_chooses_the_array_without_a_tree() {
    let env = TestEnv::new();
    env.write("big.json", doc());
    let r = env.run(&[
        "json",
        "select",
        "big.json",
        "--where",
        "/kind=red",
        "--output",
        "count",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json["took"]["POINTER"], "/items", "{}", r.stdout);
    // The reds doc() wrote (its draws again, cheaper than jq here).
    let reds = draws().filter(|r| r.is_multiple_of(3)).count();
    assert_eq!(r.json["count"], reds, "{}", r.stdout);
    let two = env.run(&["json", "select", "big.json", "--limit", "1"]);
    assert_eq!(two.error_code(), "argument.invalid", "{}", two.stderr);
    assert_eq!(
        two.json["error"]["candidates"],
        json!(["/items", "/meta/m~0n", "/meta/nums", "/meta/dup/x"]),
        "{}",
        two.stderr
    );
}

#[test]
fn json_select_past_the_value_budget_answers_like_jq() {
    let env = TestEnv::new();
    env.write("big.json", doc());
    let r = env.run(&[
        "json",
        "select",
        "big.json",
        "/items",
        "--where",
        "/kind=red",
        "--limit",
        "7",
    ]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    let items = r.json["items"].as_array().cloned().unwrap_or_default();
    let values: Vec<Value> = items.iter().map(norm).collect();
    let want = jq(&env, r#"[.items[] | select(.kind == "red")][:7]"#);
    assert_eq!(Value::Array(values), norm(&want));
    let want = jq(
        &env,
        r#"[.items | to_entries[] | select(.value.kind == "red") | .key][:7]"#,
    );
    assert_eq!(r.json["indices"], want);
    let count = jq(&env, r#"[.items[] | select(.kind == "red")] | length"#);
    assert_eq!(r.json["total"], count);
    let r = env.run(&[
        "json",
        "select",
        "big.json",
        "/items",
        "--where",
        "/kind=red",
        "--output",
        "count",
    ]);
    assert_eq!(r.json["count"], count, "{}", r.stdout);
    let r = env.run(&[
        "json",
        "select",
        "big.json",
        "/items",
        "--where",
        "/kind=blue",
        "--where",
        "/s>90",
        "--sort-by",
        "/n",
        "--desc",
        "--pick",
        "/id",
        "--pick",
        "/n",
        "--limit",
        "5",
    ]);
    let got: Vec<Value> = r.json["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(norm)
        .collect();
    let want = jq(
        &env,
        r#"[.items[] | select(.kind == "blue" and .s > 90)] | sort_by(.n) | reverse | [.[:5][] | {"/id": .id, "/n": .n}]"#,
    );
    assert_eq!(Value::Array(got), norm(&want), "{}", r.stdout);
    let r = env.run(&["json", "select", "big.json", "/meta", "--where", "/a=1"]);
    assert_eq!(r.error_code(), "argument.invalid", "{}", r.stdout);
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("an object, not an array"), "{msg}");
}

#[test]
fn json_get_memory_follows_the_answer_not_the_file() {
    let env = TestEnv::new();
    let text = doc();
    let file_kib = (text.len() / 1024) as u64;
    env.write("big.json", text);
    let (r, kib) = peak_rss(&env, &["json", "get", "big.json", "/items/5"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // The text held once, no tree of it (the whole tree took ~9x the file).
    assert!(
        kib < 2 * file_kib + 8 * 1024,
        "peak {kib} KiB, file {file_kib} KiB"
    );
}
