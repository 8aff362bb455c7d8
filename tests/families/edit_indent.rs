//! `edit --old` when `--old` was quoted without its line's indentation: a
//! multi-line `--new` lands at the matched line's depth, its own nesting kept,
//! lines already at full depth are not indented twice, and the answer says
//! `strategy: reindent` (or `whitespace`). Oracle: the expected bytes, by hand.

use crate::support::TestEnv;

/// Edits a fresh copy of `file` and compares the bytes and the strategy.
fn case(file: &str, old: &str, new: &str, want: &str, strategy: Option<&str>) {
    let env = TestEnv::new();
    env.write("f", file);
    let r = env.run(&["edit", "f", "--old", old, "--new", new]);
    assert_eq!(r.code, 0, "{old:?} -> {new:?}: {}{}", r.stdout, r.stderr);
    assert_eq!(
        String::from_utf8_lossy(&env.read("f")),
        want,
        "{old:?} -> {new:?}"
    );
    assert_eq!(r.field("strategy").as_str(), strategy, "{old:?} -> {new:?}");
}

const PY: &str = "class A:\n    def f(self, x):\n        y = x + 1\n        return y\n";

#[test]
fn python_new_lands_at_the_matched_lines_depth() {
    let with = |body: &str| format!("class A:\n    def f(self, x):\n{body}");
    // Later lines written relative to the first: given its depth.
    case(
        PY,
        "y = x + 1",
        "y = x + 1\nif y > 3:\n    y = 3",
        &with("        y = x + 1\n        if y > 3:\n            y = 3\n        return y\n"),
        Some("reindent"),
    );
    // Later lines already at full depth: as given.
    case(
        PY,
        "y = x + 1",
        "y = x + 1\n        if y > 3:\n            y = 3",
        &with("        y = x + 1\n        if y > 3:\n            y = 3\n        return y\n"),
        None,
    );
    // A block opened on the first line, closed on a later one.
    case(
        PY,
        "return y",
        "if y:\n    return y\nreturn 0",
        &with("        y = x + 1\n        if y:\n            return y\n        return 0\n"),
        Some("reindent"),
    );
    // --new's first line carries the indentation: replaced from the line's start.
    case(
        PY,
        "return y",
        "        if y:\n            return y\n        return 0",
        &with("        y = x + 1\n        if y:\n            return y\n        return 0\n"),
        Some("reindent"),
    );
    // Matched ignoring whitespace, later lines at full depth: not indented twice.
    case(
        PY,
        "return y ",
        "return y\n        # done",
        &with("        y = x + 1\n        return y\n        # done\n"),
        Some("whitespace"),
    );
}

const PY2: &str = "def g(a):\n    if a:\n        return 1\n    return 0\n";

#[test]
fn python_body_quoted_at_its_headers_depth() {
    // --old's body quoted at the header's depth: --new's, line for line, moved
    // to the file's.
    case(
        PY2,
        "def g(a):\nif a:\n    return 1",
        "def g(a):\nif a > 1:\n    return 1",
        "def g(a):\n    if a > 1:\n        return 1\n    return 0\n",
        Some("whitespace"),
    );
    // A line added under a header at column 0 takes the body's depth.
    case(
        PY2,
        "def g(a):",
        "def g(a):\n\"\"\"Doc.\"\"\"",
        "def g(a):\n    \"\"\"Doc.\"\"\"\n    if a:\n        return 1\n    return 0\n",
        Some("reindent"),
    );
    // Already indented: as given.
    case(
        PY2,
        "def g(a):",
        "def g(a):\n    \"\"\"Doc.\"\"\"",
        "def g(a):\n    \"\"\"Doc.\"\"\"\n    if a:\n        return 1\n    return 0\n",
        None,
    );
}

const YAML: &str = "app:\n  name: web\n  port: 80\n";

#[test]
fn yaml_new_lands_at_the_matched_lines_depth() {
    let head = "app:\n  name: web\n";
    case(
        YAML,
        "port: 80",
        "port: 80\nhost: x",
        &format!("{head}  port: 80\n  host: x\n"),
        Some("reindent"),
    );
    // `port:` opens a mapping: its next line nests one level deeper.
    case(
        YAML,
        "port: 80",
        "port:\n  http: 80\n  https: 443",
        &format!("{head}  port:\n    http: 80\n    https: 443\n"),
        Some("reindent"),
    );
    // At full depth already: as given (no second indentation).
    case(
        YAML,
        "port: 80",
        "port: 80\n  host: x",
        &format!("{head}  port: 80\n  host: x\n"),
        None,
    );
    case(
        YAML,
        "port: 80",
        "port:\n    http: 80",
        &format!("{head}  port:\n    http: 80\n"),
        None,
    );
    // A key added under a top-level header written at column 0.
    case(
        YAML,
        "app:",
        "app:\nenv: prod",
        "app:\n  env: prod\n  name: web\n  port: 80\n",
        Some("reindent"),
    );
    // Lists, and CR LF files (the new lines take the file's endings).
    case(
        "steps:\n  - run: a\n",
        "- run: a",
        "- run: a\n- run: b",
        "steps:\n  - run: a\n  - run: b\n",
        Some("reindent"),
    );
    case(
        "app:\r\n  port: 80\r\n",
        "port: 80",
        "port: 80\nhost: x",
        "app:\r\n  port: 80\r\n  host: x\r\n",
        Some("reindent"),
    );
}
