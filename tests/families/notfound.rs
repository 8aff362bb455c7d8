//! A missing path gets one `input.not-found` from every family: the same message,
//! the near-miss sibling in `candidates`, a read-only first repair that reruns the
//! call on it, and for writes `find` first with nothing written.

use crate::support::{Run, TestEnv};
use serde_json::Value;

fn candidates(r: &Run) -> Vec<String> {
    r.json["error"]["candidates"]
        .as_array()
        .unwrap_or_else(|| panic!("no candidates: {}", r.stderr))
        .iter()
        .map(|v| v.as_str().unwrap_or("").to_string())
        .collect()
}

fn first_repair(r: &Run) -> (&str, &str) {
    let rep = &r.json["error"]["repairs"][0];
    (
        rep["action"].as_str().unwrap_or(""),
        rep["command"].as_str().unwrap_or(""),
    )
}

fn assert_not_found(r: &Run, arg: &str, sibling: &str) {
    assert_eq!(r.error_code(), "input.not-found", "{}", r.stderr);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.json["error"]["message"],
        Value::from(format!("{arg} does not exist."))
    );
    assert_eq!(
        candidates(r).first().map(String::as_str),
        Some(sibling),
        "{}",
        r.stderr
    );
}

fn env() -> TestEnv {
    let env = TestEnv::new();
    env.write("src/config.rs", "let a = 1;\n");
    env.write("src/other.txt", "unrelated\n");
    env
}

#[test]
fn reads_offer_the_same_call_on_the_nearest() {
    let env = env();
    let r = env.run(&["read", "src/confg.rs"]);
    assert_not_found(&r, "src/confg.rs", "src/config.rs");
    assert_eq!(first_repair(&r), ("retry", "aitools read src/config.rs"));

    let r = env.run(&["diff", "src/confg.rs", "src/other.txt"]);
    assert_not_found(&r, "src/confg.rs", "src/config.rs");
    assert_eq!(
        first_repair(&r),
        ("retry", "aitools diff src/config.rs src/other.txt")
    );
    let r = env.run(&["diff", "src/other.txt", "src/confg.rs"]);
    assert_not_found(&r, "src/confg.rs", "src/config.rs");

    let r = env.run(&["search", "a", "src/confg.rs"]);
    assert_not_found(&r, "src/confg.rs", "src/config.rs");
    assert_eq!(
        first_repair(&r),
        ("retry", "aitools search a src/config.rs")
    );
    let r = env.run(&["find", "*.rs", "srcc"]);
    assert_not_found(&r, "srcc", "src");
    let r = env.run(&["code", "outline", "src/confg.rs"]);
    assert_not_found(&r, "src/confg.rs", "src/config.rs");
}

#[test]
fn writes_list_the_nearest_and_write_nothing() {
    let env = env();
    let before = env.read("src/config.rs");
    let calls: Vec<Vec<&str>> = vec![
        vec!["edit", "src/confg.rs", "--old", "a", "--new", "b"],
        vec!["insert", "src/confg.rs", "--at", "end", "--content", "x"],
        vec![
            "replace",
            "a",
            "b",
            "src/confg.rs",
            "--fixed",
            "--expect-count",
            "1",
        ],
        vec!["delete", "src/confg.rs"],
        vec!["move", "src/confg.rs", "src/moved.rs"],
        vec!["copy", "src/confg.rs", "src/copied.rs"],
        vec!["chmod", "src/confg.rs", "--mode", "600"],
    ];
    for call in calls {
        let r = env.run(&call);
        assert_not_found(&r, "src/confg.rs", "src/config.rs");
        // A write is never rerun on a guessed path: find first, the guess to check.
        assert_eq!(
            first_repair(&r),
            ("find", "aitools find --type file"),
            "{call:?}"
        );
        let repairs = r.json["error"]["repairs"].as_array().unwrap();
        assert!(
            repairs
                .iter()
                .any(|p| p["command"] == "aitools info src/config.rs"),
            "{call:?}: {}",
            r.stderr
        );
        assert!(!repairs.iter().any(|p| p["action"] == "retry"), "{call:?}");
        assert_eq!(env.read("src/config.rs"), before, "{call:?}");
    }
    assert!(!env.path("src/moved.rs").exists());
    assert!(!env.path("src/copied.rs").exists());
}

#[test]
fn a_shared_stem_is_near_and_a_far_name_is_not() {
    let env = TestEnv::new();
    env.write("notes/README.md", "hi\n");
    env.write("notes/zzz.bin", "x");
    // Three edits apart, too far by distance; the stem makes it a candidate.
    let r = env.run(&["edit", "notes/README", "--old", "hi", "--new", "yo"]);
    assert_not_found(&r, "notes/README", "notes/README.md");
    assert_eq!(candidates(&r), vec!["notes/README.md".to_string()]);
    let r = env.run(&["read", "notes/README"]);
    assert_not_found(&r, "notes/README", "notes/README.md");
    let r = env.run(&["delete", "notes/qqqqqqqq.txt"]);
    assert_eq!(r.error_code(), "input.not-found");
    assert!(r.json["error"].get("candidates").is_none(), "{}", r.stderr);
}

#[test]
fn a_content_file_that_is_missing_gets_candidates() {
    let env = env();
    let r = env.run(&["write", "src/new.rs", "--content-file", "src/confg.rs"]);
    assert_not_found(&r, "src/confg.rs", "src/config.rs");
    assert!(!env.path("src/new.rs").exists());
}
