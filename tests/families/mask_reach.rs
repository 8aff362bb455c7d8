//! Where the mask must reach (issue 29, second pass): a list written on its key's
//! line, lines shown apart from the key above them (`read --match`, `search`
//! context, `wait`), and a count that says each secret once.

use crate::support::{Run, TestEnv};

const MASK: &str = "[REDACTED_SECRET]";

fn hidden(r: &Run, secrets: &[&str]) {
    for s in secrets {
        assert!(
            !r.stdout.contains(s) && !r.stderr.contains(s),
            "{s} leaked: {}{}",
            r.stdout,
            r.stderr
        );
    }
}

fn redactions(r: &Run) -> u64 {
    r.json["redactions"].as_u64().unwrap_or(0)
}

const K1: &str = "q8Zf3Lk2Hs9Pq1Wm4Xn7Rt5";
const K2: &str = "Hs9Pq1Wm4Xn7Rt5Yv0Bc6";

/// A list on its key's line: JSON, YAML flow and TOML arrays, each element judged
/// as a list's elements are in `json get` (machine-made values masked, names kept).
#[test]
fn a_list_on_its_keys_line_is_masked_element_by_element() {
    let env = TestEnv::new();
    env.write(
        "a.json",
        format!("{{\"api_keys\": [\"{K1}\", \"{K2}\"], \"name\": \"x\"}}\n"),
    );
    env.write(
        "b.yaml",
        format!("tokens: [{K1}, {K2}]\nnames: [alpha, beta]\n"),
    );
    env.write(
        "c.toml",
        format!("keys = [\"{K1}\", '{K2}']\nsecrets = [\"db-password\"]\n"),
    );
    for f in ["a.json", "b.yaml", "c.toml"] {
        let r = env.run(&["read", f]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        hidden(&r, &[K1, K2]);
        assert_eq!(redactions(&r), 2, "{f}: {}", r.stdout);
    }
    let r = env.run(&["read", "b.yaml"]);
    assert_eq!(r.lines()[0], format!("tokens: [{MASK}, {MASK}]"));
    assert_eq!(r.lines()[1], "names: [alpha, beta]");
    let r = env.run(&["read", "c.toml"]);
    assert_eq!(r.lines()[1], "secrets = [\"db-password\"]");
    // The same list in the same line found by search, and the document by pointer.
    let r = env.run(&["search", "api_keys", "a.json"]);
    hidden(&r, &[K1, K2]);
    let r = env.run(&["json", "get", "a.json", ""]);
    hidden(&r, &[K1, K2]);
}

const BLOCK: &str = "name: svc\npassword: |\n  Zq8Lk2Hs9Pq1Wm4Xn7Rt5Yv0Bc6Dg8\n  Mx7Rt5Yv0Bc6Dg8Zq8Lk2Hs9Pq1Wm4\n  Hs9Pq1Wm4Xn7Rt5Yv0Bc6Dg8Zq8Lk2\nother: 1\n";
const BLOCK_LINES: [&str; 3] = [
    "Zq8Lk2Hs9Pq1Wm4Xn7Rt5Yv0Bc6Dg8",
    "Mx7Rt5Yv0Bc6Dg8Zq8Lk2Hs9Pq1Wm4",
    "Hs9Pq1Wm4Xn7Rt5Yv0Bc6Dg8Zq8Lk2",
];

/// `read --match` shows matched lines apart from the lines above them: a line of a
/// YAML block scalar under `password: |` is masked as `read` masks it whole (it was
/// printed in clear: the line alone names no key), also from `--from-line`.
#[test]
fn read_match_masks_a_line_inside_a_keys_multi_line_value() {
    let env = TestEnv::new();
    env.write("f.yaml", BLOCK);
    let r = env.run(&["read", "f.yaml", "--match", "Mx7"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    hidden(&r, &BLOCK_LINES);
    assert_eq!(r.lines(), vec![format!("  {MASK}")]);
    assert_eq!(redactions(&r), 1, "{}", r.stdout);
    let r = env.run(&["read", "f.yaml", "--match", "^  ", "--from-line", "4"]);
    hidden(&r, &BLOCK_LINES);
    assert_eq!(r.lines(), vec![format!("  {MASK}"), format!("  {MASK}")]);
    // Lines after the value closes are shown as they are.
    let r = env.run(&["read", "f.yaml", "--match", "other|name"]);
    assert_eq!(r.lines(), vec!["name: svc", "other: 1"]);
    assert_eq!(redactions(&r), 0, "{}", r.stdout);
}

/// `wait --file` returns one line: masked with the lines before it (a block
/// scalar's line is no longer returned in clear), and counted only when that line
/// held a secret (every masked line it passed over was counted: 1 for `ready`).
#[test]
fn wait_masks_its_line_with_the_lines_before_and_counts_only_it() {
    let env = TestEnv::new();
    env.write("f.yaml", BLOCK);
    let r = env.run(&[
        "wait",
        "--file",
        "f.yaml",
        "--pattern",
        "^  ",
        "--timeout",
        "2s",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    hidden(&r, &BLOCK_LINES);
    assert_eq!(r.json["line"], format!("  {MASK}"));
    assert_eq!(redactions(&r), 1, "{}", r.stdout);
    env.write("log.txt", "password=Tr0ub4dor&3xyz\nready\n");
    let r = env.run(&[
        "wait",
        "--file",
        "log.txt",
        "--pattern",
        "ready",
        "--timeout",
        "2s",
    ]);
    assert_eq!(r.json["line"], "ready");
    assert!(r.json.get("redactions").is_none(), "{}", r.stdout);
}

/// `run` masks a block scalar's lines as they come; the envelope's pass sees the
/// mask under `password: |` and does not count it again (it said 2 for one).
/// `bg logs --grep` picks masked lines: a block line is masked alone too.
#[test]
fn run_and_bg_logs_count_a_block_value_once_and_mask_it_picked_alone() {
    let env = TestEnv::new();
    env.write("f.yaml", BLOCK);
    let r = env.run(&["run", "--", "cat", "f.yaml"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    hidden(&r, &BLOCK_LINES);
    assert_eq!(redactions(&r), 1, "{}", r.stdout);
    let r = env.run(&["bg", "start", "--", "cat", "f.yaml"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let id = r.json["id"].as_str().expect("an id").to_string();
    let w = env.run(&["wait", "--bg", &id, "--exit", "--timeout", "10s"]);
    assert_eq!(w.code, 0, "{}", w.stdout);
    let r = env.run(&["bg", "logs", &id]);
    hidden(&r, &BLOCK_LINES);
    assert_eq!(redactions(&r), 1, "{}", r.stdout);
    let r = env.run(&["bg", "logs", &id, "--grep", "^  "]);
    hidden(&r, &BLOCK_LINES);
    assert_eq!(r.lines().len(), 3, "{}", r.stdout);
    let r = env.run(&["bg", "logs", &id, "--from", "0", "--grep", "other"]);
    assert_eq!(r.lines(), vec!["other: 1"]);
    assert!(r.json.get("redactions").is_none(), "{}", r.stdout);
}

/// A `search` block whose first line is inside a key's multi-line value (the key
/// above the context shown) is masked as `read` of the file masks it: it was shown
/// in clear with `-C 0` or `-C 1` (the default context reached the key).
#[test]
fn a_search_block_starting_inside_a_keys_value_is_masked() {
    let env = TestEnv::new();
    env.write("f.yaml", BLOCK);
    for c in ["0", "1"] {
        let r = env.run(&["search", "Mx7", "f.yaml", "-C", c]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        hidden(&r, &BLOCK_LINES);
        assert_eq!(redactions(&r), 1, "-C {c}: {}", r.stdout);
    }
    // Matches cut from such a line, and their groups, are part of the secret.
    let r = env.run(&["search", "^  (\\w+)", "f.yaml", "--output", "matches"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    hidden(&r, &BLOCK_LINES);
    assert_eq!(r.json["matches"][1]["groups"][0], MASK, "{}", r.stdout);
    let r = env.run(&["search", "Mx7", "f.yaml", "--output", "matches"]);
    assert_eq!(r.json["matches"][0]["text"], MASK, "{}", r.stdout);
    let r = env.run(&["search", "other", "f.yaml", "-C", "0"]);
    assert_eq!(r.json["blocks"][0]["lines"][0], "6:other: 1");
    assert!(r.json.get("redactions").is_none(), "{}", r.stdout);
}

/// A value masked in a search block's line is masked wherever else the answer
/// says it: the continuation (`more`), a path named after it, another file's
/// line (the blocks are masked before they are numbered, with the rest).
#[test]
fn a_value_masked_in_a_search_line_is_masked_in_the_rest_of_the_answer() {
    const V: &str = "Zq8vLr3xTw9pKd2m";
    let env = TestEnv::new();
    env.write("conf.txt", format!("a\npassword={V}\nb\n"));
    env.write("other.txt", format!("x {V}\n"));
    env.write(&format!("d/{V}.txt"), format!("password={V}\n"));
    let r = env.run(&["search", V, "--limit", "1"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    hidden(&r, &[V]);
    // `more` is the flag alone: the value is not repeated in it.
    assert_eq!(r.json["more"], "--offset 1");
    assert_eq!(redactions(&r), 1, "{}", r.stdout);
    let r = env.run(&["search", V]);
    hidden(&r, &[V]);
    assert_eq!(r.json["blocks"][1]["path"], format!("d/{MASK}.txt"));
    let line = r.json["blocks"][2]["lines"][0].as_str().unwrap_or_default();
    assert!(line.ends_with(&format!("x {MASK}")), "{}", r.stdout);
    assert_eq!(redactions(&r), 4, "{}", r.stdout);
}

/// The same with `--output matches`: a match's text is masked by its line's
/// secrets before the answer is built, and what it masked is masked in the rest
/// of the answer too (another file's match, a path).
#[test]
fn a_value_masked_in_a_search_match_is_masked_in_the_rest_of_the_answer() {
    const V: &str = "Zq8vLr3xTw9pKd2m";
    let env = TestEnv::new();
    env.write("conf.txt", format!("a\npassword={V}\nb\n"));
    env.write("other.txt", format!("x {V}\n"));
    env.write(&format!("d/{V}.txt"), format!("password={V}\n"));
    let r = env.run(&["search", V, "--output", "matches", "--limit", "1"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    hidden(&r, &[V]);
    // Masked once: `more` is the flag alone, without the value.
    assert_eq!(r.json["more"], "--offset 1");
    assert_eq!(redactions(&r), 1, "{}", r.stdout);
    let r = env.run(&["search", V, "--output", "matches"]);
    hidden(&r, &[V]);
    assert_eq!(r.json["matches"][1]["path"], format!("d/{MASK}.txt"));
    assert_eq!(r.json["matches"][2]["text"], MASK);
    assert_eq!(redactions(&r), 4, "{}", r.stdout);
    let r = env.run(&["search", "password=(\\w+)", "--output", "matches"]);
    hidden(&r, &[V]);
    assert_eq!(r.json["matches"][1]["groups"][0], MASK);
    // In a notebook's cell source the value is quoted, its quotes escaped in the
    // JSON line: masked as the source's line says it.
    let cells = format!(
        "{{\n \"cells\": [\n  {{\n   \"cell_type\": \"code\",\n   \"id\": \"c1\",\n   \"metadata\": {{}},\n   \"source\": [\n    \"password = \\\"{V}\\\"\\n\"\n   ],\n   \"outputs\": [],\n   \"execution_count\": null\n  }}\n ],\n \"metadata\": {{}},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}}\n"
    );
    env.write("nb/n.ipynb", cells);
    for pattern in [V, "password = ..(\\w+)"] {
        let r = env.run(&["search", pattern, "nb/n.ipynb", "--output", "matches"]);
        assert_eq!(r.json["matches"][0]["cell"], 0, "{}", r.stdout);
        hidden(&r, &[V]);
    }
}
