//! `edit`, `insert`, `replace`, `apply`, black-box, with sed, perl, diff, patch and
//! git apply as oracles, and text fidelity (BOM, CR LF, mixed endings, tabs, no
//! final newline, mode) checked byte for byte.

use crate::support::fixtures::ok;
use crate::support::{Run, TestEnv, sha256sum};
use proptest::prelude::*;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

/// Runs a shell oracle in the test repository; panics when it fails.
fn sh(env: &TestEnv, script: &str) -> Vec<u8> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env.root())
        .output()
        .expect("sh");
    assert!(
        out.status.success() || out.status.code() == Some(1),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

// ---------------------------------------------------------------- edit

#[test]
fn edit_old_matches_sed_and_reports_exact() {
    let env = TestEnv::new();
    let body = "alpha\nbeta gamma\ndelta\n";
    env.write("a.txt", body);
    env.write("b.txt", body);
    let r = env.run(&["edit", "a.txt", "--old", "beta gamma", "--new", "BETA"]);
    ok(&r);
    // `exact` is what --old asks for: only another strategy is said.
    assert!(r.json.get("strategy").is_none(), "{}", r.stdout);
    assert_eq!(r.json["changes"][0]["path"], "a.txt");
    assert!(
        r.json["changes"][0].get("action").is_none(),
        "modified is the default"
    );
    sh(&env, "sed -i 's/beta gamma/BETA/' b.txt");
    assert_eq!(env.read("a.txt"), env.read("b.txt"));
}

#[test]
fn edit_keeps_bom_crlf_tabs_no_final_newline_and_mode() {
    let env = TestEnv::new();
    let before = b"\xEF\xBB\xBFone\r\n\ttwo\r\nthree\nfour".to_vec();
    let p = env.write("w.txt", &before);
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A multi-line --old written with LF finds the CR LF lines, and the new text
    // lands with CR LF.
    let r = env.run(&[
        "edit",
        "w.txt",
        "--old",
        "one\n\ttwo",
        "--new",
        "1\n\t2\n\t2b",
    ]);
    ok(&r);
    assert_eq!(
        env.read("w.txt"),
        b"\xEF\xBB\xBF1\r\n\t2\r\n\t2b\r\nthree\nfour"
    );
    let r = env.run(&["edit", "w.txt", "--old", "four", "--new", "4"]);
    ok(&r);
    assert_eq!(
        env.read("w.txt"),
        b"\xEF\xBB\xBF1\r\n\t2\r\n\t2b\r\nthree\n4"
    );
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o755);
}

#[test]
fn edit_whitespace_fallback_reindents_and_keeps_inner_whitespace() {
    let env = TestEnv::new();
    env.write("f.py", "def f():\n\tif x:\n\t\treturn  1\n\treturn 2\n");
    let r = env.run(&[
        "edit",
        "f.py",
        "--old",
        "    if x:\n        return  1",
        "--new",
        "    if y:\n        return  3  # two  spaces",
    ]);
    ok(&r);
    assert_eq!(r.json["strategy"], "whitespace");
    assert_eq!(
        String::from_utf8(env.read("f.py")).unwrap(),
        "def f():\n\tif y:\n\t    return  3  # two  spaces\n\treturn 2\n"
    );
}

#[test]
fn edit_ambiguous_and_no_match_write_nothing_and_show_candidates() {
    let env = TestEnv::new();
    let body = "x = 1\ny = 2\nx = 1\n";
    let p = env.write("d.txt", body);
    let hash = sha256sum(&p);
    let r = env.run(&["edit", "d.txt", "--old", "x = 1", "--new", "x = 9"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.error_code(), "selection.ambiguous");
    let c = &r.json["error"]["candidates"];
    assert_eq!(c[0]["line"], 1);
    assert_eq!(c[1]["line"], 3);
    assert_eq!(c[1]["text"], "x = 1");
    let r = env.run(&["edit", "d.txt", "--old", "y = 3", "--new", "z"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.error_code(), "selection.no-match");
    assert_eq!(r.json["error"]["candidates"][0]["line"], 2);
    assert_eq!(sha256sum(&p), hash);
}

#[test]
fn edit_range_needs_hash_and_checks_it() {
    let env = TestEnv::new();
    let p = env.write("r.txt", "1\n2\n3\n4\n");
    let r = env.run(&["edit", "r.txt", "--range", "2:3", "--new", "two-three"]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert_eq!(
        r.json["error"]["repairs"][0]["command"],
        "aitools info r.txt"
    );
    let stale = "0".repeat(64);
    let r = env.run(&[
        "edit",
        "r.txt",
        "--range",
        "2:3",
        "--new",
        "x",
        "--expect-hash",
        &stale,
    ]);
    assert_eq!((r.code, r.error_code()), (2, "refusal.target-changed"));
    let h = sha256sum(&p);
    env.write("oracle.txt", "1\n2\n3\n4\n");
    let r = env.run(&[
        "edit",
        "r.txt",
        "--range",
        "2:3",
        "--new",
        "two-three",
        "--expect-hash",
        &h,
    ]);
    ok(&r);
    sh(&env, "sed -i '2,3c\\two-three' oracle.txt");
    assert_eq!(env.read("r.txt"), env.read("oracle.txt"));
    // '' deletes whole lines.
    let h = sha256sum(&p);
    ok(&env.run(&[
        "edit",
        "r.txt",
        "--range",
        "1",
        "--new",
        "",
        "--expect-hash",
        &h,
    ]));
    assert_eq!(env.read("r.txt"), b"two-three\n4\n");
}

#[test]
fn edit_match_needs_count_and_matches_sed_change() {
    let env = TestEnv::new();
    let body = "keep\nTODO a\nkeep\nTODO b\n";
    env.write("m.txt", body);
    env.write("o.txt", body);
    let r = env.run(&["edit", "m.txt", "--match", "^TODO", "--new", "DONE"]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert!(
        r.json["error"]["repairs"][0]["command"]
            .as_str()
            .unwrap()
            .ends_with("--dry-run")
    );
    let d = env.run(&[
        "edit",
        "m.txt",
        "--match",
        "^TODO",
        "--new",
        "DONE",
        "--dry-run",
    ]);
    ok(&d);
    assert_eq!(d.json["expect_count"], 2);
    assert_eq!(d.json["dry_run"], true);
    assert_eq!(env.read("m.txt"), body.as_bytes());
    let r = env.run(&[
        "edit",
        "m.txt",
        "--match",
        "^TODO",
        "--new",
        "DONE",
        "--expect-count",
        "3",
    ]);
    assert_eq!((r.code, r.error_code()), (2, "selection.count-mismatch"));
    ok(&env.run(&[
        "edit",
        "m.txt",
        "--match",
        "^TODO",
        "--new",
        "DONE",
        "--expect-count",
        "2",
    ]));
    sh(&env, "sed -i '/^TODO/c\\DONE' o.txt");
    assert_eq!(env.read("m.txt"), env.read("o.txt"));
}

#[test]
fn edit_between_matches_sed_range_delete() {
    let env = TestEnv::new();
    let body = "a\n<!-- begin -->\nx\ny\n<!-- end -->\nb\n";
    env.write("h.md", body);
    env.write("o.md", body);
    ok(&env.run(&["edit", "h.md", "--between", "begin", "end", "--new", ""]));
    sh(&env, "sed -i '/begin/,/end/d' o.md");
    assert_eq!(env.read("h.md"), env.read("o.md"));
    env.write("h.md", body);
    ok(&env.run(&[
        "edit",
        "h.md",
        "--between",
        "begin",
        "end",
        "--exclusive",
        "--new",
        "z",
    ]));
    assert_eq!(env.read("h.md"), b"a\n<!-- begin -->\nz\n<!-- end -->\nb\n");
}

#[test]
fn edit_stdin_edits_apply_in_order_all_or_nothing() {
    let env = TestEnv::new();
    let p = env.write("s.txt", "a\nb\nc\n");
    let input = r#"{"edits":[{"old":"a","new":"A"},{"old":"A\nb","new":"AB"}]}"#;
    ok(&env.run_stdin(&["edit", "s.txt", "--stdin"], input.as_bytes()));
    assert_eq!(env.read("s.txt"), b"AB\nc\n");
    let before = sha256sum(&p);
    let bad = r#"{"edits":[{"old":"AB","new":"x"},{"old":"nope","new":"y"}]}"#;
    let r = env.run(&["edit", "s.txt", "--stdin-data", bad]);
    assert_eq!(r.error_code(), "selection.no-match");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("edits[1]")
    );
    assert_eq!(sha256sum(&p), before);
    ok(&env.run(&["edit", "s.txt", "--stdin-data", r#"{"old":"c","new":"C"}"#]));
    assert_eq!(env.read("s.txt"), b"AB\nC\n");
    // Position-based selectors are not accepted in edits[].
    let r = env.run(&[
        "edit",
        "s.txt",
        "--stdin-data",
        r#"{"edits":[{"range":"1","new":"x"}]}"#,
    ]);
    assert_eq!(r.error_code(), "argument.invalid");
}

#[test]
fn edit_refusals() {
    let env = TestEnv::new();
    env.write("k.env", "api_key=abc\n");
    let r = env.run(&[
        "edit",
        "k.env",
        "--old",
        "api_key=[REDACTED_SECRET]",
        "--new",
        "api_key=[REDACTED_SECRET]x",
    ]);
    assert_eq!(r.error_code(), "refusal.redacted-input");
    assert_eq!(env.read("k.env"), b"api_key=abc\n");
    env.write("b.bin", b"ab\x00cd");
    let r = env.run(&["edit", "b.bin", "--old", "ab", "--new", "x"]);
    assert_eq!(r.error_code(), "refusal.not-a-file");
    env.write("l1.txt", b"caf\xe9\n");
    let r = env.run(&["edit", "l1.txt", "--old", "caf", "--new", "x"]);
    assert_eq!(r.error_code(), "input.not-utf8");
    assert_eq!(env.read("l1.txt"), b"caf\xe9\n");
    let r = env.run(&["edit", "nope.txt", "--old", "a", "--new", "b"]);
    assert_eq!(r.error_code(), "input.not-found");
    let r = env.run(&["edit", "k.env", "--old", "a", "--new", "b", "--match", "x"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), "a\n").unwrap();
    let r = env.run(&[
        "edit",
        outside.path().to_str().unwrap(),
        "--old",
        "a",
        "--new",
        "b",
    ]);
    assert_eq!(r.error_code(), "refusal.outside-workspace");
    assert_eq!(std::fs::read(outside.path()).unwrap(), b"a\n");
}

#[test]
fn edit_unchanged_text_changes_nothing() {
    let env = TestEnv::new();
    env.write("u.txt", "same\n");
    let r = env.run(&["edit", "u.txt", "--old", "same", "--new", "same"]);
    ok(&r);
    assert_eq!(r.json["changes"], serde_json::json!([]));
    assert_eq!(r.json["op_id"], serde_json::Value::Null);
}

// ---------------------------------------------------------------- insert

#[test]
fn insert_matches_sed_append_and_insert() {
    let env = TestEnv::new();
    let body = "import a\nimport b\ncode\n";
    env.write("i.py", body);
    env.write("o.py", body);
    let r = env.run(&[
        "insert",
        "i.py",
        "--after",
        "--match",
        "^import",
        "--content",
        "# x",
        "--expect-count",
        "2",
    ]);
    ok(&r);
    assert_eq!(r.json["inserted_at"], serde_json::json!([2, 4]));
    sh(&env, "sed -i '/^import/a\\# x' o.py");
    assert_eq!(env.read("i.py"), env.read("o.py"));
    let r = env.run(&[
        "insert",
        "i.py",
        "--at",
        "start",
        "--content",
        "#!/usr/bin/env python\n",
    ]);
    ok(&r);
    assert_eq!(r.json["inserted_at"], serde_json::json!([1]));
    sh(&env, "sed -i '1i\\#!/usr/bin/env python' o.py");
    assert_eq!(env.read("i.py"), env.read("o.py"));
    let h = sha256sum(&env.path("i.py"));
    ok(&env.run(&[
        "insert",
        "i.py",
        "--before",
        "--range",
        "3",
        "--content",
        "mid",
        "--expect-hash",
        &h,
    ]));
    sh(&env, "sed -i '3i\\mid' o.py");
    assert_eq!(env.read("i.py"), env.read("o.py"));
}

#[test]
fn insert_keeps_bom_and_crlf_and_ends_an_open_last_line() {
    let env = TestEnv::new();
    env.write("c.txt", b"\xEF\xBB\xBFa\r\nb");
    ok(&env.run(&["insert", "c.txt", "--at", "start", "--content", "top"]));
    assert_eq!(env.read("c.txt"), b"\xEF\xBB\xBFtop\r\na\r\nb");
    let r = env.run(&["insert", "c.txt", "--at", "end", "--stdin-data", "x\ny"]);
    ok(&r);
    assert_eq!(r.json["inserted_at"], serde_json::json!([4]));
    assert_eq!(
        env.read("c.txt"),
        b"\xEF\xBB\xBFtop\r\na\r\nb\r\nx\r\ny\r\n"
    );
    let r = env.run(&["insert", "c.txt", "--at", "end"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let r = env.run(&[
        "insert",
        "c.txt",
        "--before",
        "--match",
        "a",
        "--content",
        "z",
    ]);
    assert_eq!(r.error_code(), "argument.invalid");
    let r = env.run(&[
        "insert",
        "c.txt",
        "--at",
        "end",
        "--content",
        "password=[REDACTED_SECRET]",
    ]);
    assert_eq!(r.error_code(), "refusal.redacted-input");
}

// ---------------------------------------------------------------- replace

#[test]
fn replace_matches_perl_across_a_directory() {
    let env = TestEnv::new();
    let files = [
        ("src/a.rs", "let old_name = 1;\r\nold_name + old_name\r\n"),
        ("src/sub/b.rs", "fn old_name() {}\nno match here\nold_name"),
        ("src/c.txt", "\u{feff}old_name\tx\n"),
    ];
    for (p, body) in files {
        env.write(p, body);
        env.write(&format!("oracle/{p}"), body);
    }
    env.write("src/bin.dat", b"old_name\x00");
    let d = env.run(&["replace", r"old_(\w+)", "new_$1", "src", "--dry-run"]);
    ok(&d);
    assert_eq!(d.json["expect_count"], 6);
    let r = env.run(&[
        "replace",
        r"old_(\w+)",
        "new_$1",
        "src",
        "--expect-count",
        "6",
    ]);
    ok(&r);
    // The per-file counts are the dry run's; the guarded run lists the same paths.
    let paths = |v: &serde_json::Value| -> Vec<String> {
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["path"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(paths(&r.json), paths(&d.json));
    let counts: Vec<(String, u64)> = d.json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_string(),
                c["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        vec![
            ("src/a.rs".to_string(), 3),
            ("src/c.txt".to_string(), 1),
            ("src/sub/b.rs".to_string(), 2)
        ]
    );
    for (p, _) in files {
        sh(
            &env,
            &format!("perl -pi -e 's/old_(\\w+)/new_$1/g' oracle/{p}"),
        );
        assert_eq!(env.read(p), env.read(&format!("oracle/{p}")), "{p}");
    }
    assert_eq!(env.read("src/bin.dat"), b"old_name\x00");
}

#[test]
fn replace_case_filters_match_perl() {
    let env = TestEnv::new();
    let body = "user name: aLiCe\nuser name: bob smith\n";
    env.write("t.txt", body);
    for (tpl, perl) in [
        ("${1:upper}", r"\U$1"),
        ("${1:lower}", r"\L$1"),
        ("${1:capitalize}", r"\u\L$1"),
    ] {
        env.write("t.txt", body);
        env.write("o.txt", body);
        ok(&env.run(&[
            "replace",
            r"name: (\w+)",
            &format!("name: {tpl}"),
            "t.txt",
            "--expect-count",
            "2",
        ]));
        sh(
            &env,
            &format!("perl -pi -e 's/name: (\\w+)/name: {perl}/g' o.txt"),
        );
        assert_eq!(env.read("t.txt"), env.read("o.txt"), "{tpl}");
    }
    env.write("t.txt", "getUserName parse_http_server\n");
    ok(&env.run(&[
        "replace",
        r"(\w+)",
        "${1:snake}|${1:kebab}|${1:camel}",
        "t.txt",
        "--expect-count",
        "2",
    ]));
    assert_eq!(
        env.read("t.txt"),
        b"get_user_name|get-user-name|getUserName parse_http_server|parse-http-server|parseHttpServer\n"
    );
}

#[test]
fn replace_multiline_matches_perl_slurp_and_nth() {
    let env = TestEnv::new();
    let body = "a {\n  x\n}\nb {\n  y\n}\n";
    env.write("m.txt", body);
    env.write("o.txt", body);
    ok(&env.run(&[
        "replace",
        r"\{\n  (\w)\n\}",
        "{ $1 }",
        "m.txt",
        "--multiline",
        "--expect-count",
        "2",
    ]));
    sh(&env, r"perl -0pi -e 's/\{\n  (\w)\n\}/{ $1 }/g' o.txt");
    assert_eq!(env.read("m.txt"), env.read("o.txt"));
    env.write("n.txt", "x x\nx\n");
    ok(&env.run(&[
        "replace",
        "x",
        "y",
        "n.txt",
        "--nth",
        "2",
        "--expect-count",
        "1",
    ]));
    assert_eq!(env.read("n.txt"), b"x y\nx\n");
}

#[test]
fn replace_guards_and_refusals() {
    let env = TestEnv::new();
    let p = env.write("g.txt", "a a\na\n");
    let before = sha256sum(&p);
    let r = env.run(&["replace", "a", "b", "g.txt"]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert_eq!(
        r.json["error"]["repairs"][0]["command"],
        "aitools replace a b g.txt --dry-run"
    );
    let r = env.run(&["replace", "a", "b", "g.txt", "--expect-count", "2"]);
    assert_eq!((r.code, r.error_code()), (2, "selection.count-mismatch"));
    let r = env.run(&["replace", "(a)", r"\1", "g.txt", "--expect-count", "3"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let r = env.run(&["replace", "zzz", "b", "g.txt", "--expect-count", "0"]);
    assert_eq!(r.error_code(), "selection.no-match");
    let r = env.run(&["replace", "(", "b", "g.txt", "--expect-count", "1"]);
    assert_eq!(r.error_code(), "input.syntax-error");
    let r = env.run(&[
        "replace",
        "a",
        "[REDACTED_SECRET]",
        "g.txt",
        "--expect-count",
        "3",
    ]);
    assert_eq!(r.error_code(), "refusal.redacted-input");
    assert_eq!(sha256sum(&p), before);
    ok(&env.run(&[
        "replace",
        "(a)",
        r"\1$$",
        "g.txt",
        "--literal-replacement",
        "--expect-count",
        "3",
    ]));
    assert_eq!(env.read("g.txt"), b"\\1$$ \\1$$\n\\1$$\n");
}

#[test]
fn replace_validates_every_file_before_writing_any() {
    let env = TestEnv::new();
    let a = env.write("a.txt", "foo\n");
    env.write("b.txt", "foo\n");
    let hb = sha256sum(&env.path("b.txt"));
    let stale = "1".repeat(64);
    // b.txt's guard fails: a.txt (validated fine) must not be written either.
    let r = env.run(&[
        "replace",
        "foo",
        "bar",
        "a.txt",
        "b.txt",
        "--expect-count",
        "2",
        "--expect-hash",
        &format!("b.txt={stale}"),
    ]);
    assert_eq!(r.error_code(), "refusal.target-changed");
    assert_eq!(env.read("a.txt"), b"foo\n");
    let r = env.run(&[
        "replace",
        "foo",
        "bar",
        "a.txt",
        "b.txt",
        "--expect-count",
        "2",
        "--expect-hash",
        &format!("b.txt={hb}"),
    ]);
    ok(&r);
    assert_eq!(std::fs::read(a).unwrap(), b"bar\n");
}

#[test]
fn replace_within_a_selection() {
    let env = TestEnv::new();
    let p = env.write("s.txt", "x\nx\nx\nx\n");
    let h = sha256sum(&p);
    ok(&env.run(&[
        "replace",
        "x",
        "y",
        "s.txt",
        "--range",
        "2:3",
        "--expect-hash",
        &h,
        "--expect-count",
        "2",
    ]));
    assert_eq!(env.read("s.txt"), b"x\ny\ny\nx\n");
    let r = env.run(&["replace", "x", "y", "s.txt", "--range", "1"]);
    assert_eq!(r.error_code(), "argument.invalid");
}

// ---------------------------------------------------------------- apply

/// Writes `a` and `b` as `f`, makes `diff -u` between them, and checks that
/// `aitools apply` on `a` gives exactly `b` (and `--reverse` on `b` gives `a`),
/// and that `patch` agrees.
fn roundtrip_with_diff_u(a: &[u8], b: &[u8]) {
    let env = TestEnv::new();
    env.write("old/f.txt", a);
    env.write("new/f.txt", b);
    let diff = sh(&env, "diff -u old/f.txt new/f.txt");
    if diff.is_empty() {
        return;
    }
    env.write("f.txt", a);
    let r = env.run_stdin(&["apply", "--stdin", "--strip", "1"], &diff);
    ok(&r);
    assert_eq!(
        env.read("f.txt"),
        b,
        "apply:\n{}",
        String::from_utf8_lossy(&diff)
    );
    env.write("p.txt", a);
    std::fs::write(env.path("d.patch"), &diff).unwrap();
    sh(&env, "patch -s p.txt < d.patch");
    assert_eq!(env.read("p.txt"), b, "patch disagrees");
    let r = env.run_stdin(&["apply", "--stdin", "--strip", "1", "--reverse"], &diff);
    ok(&r);
    assert_eq!(env.read("f.txt"), a, "reverse");
}

#[test]
fn apply_agrees_with_patch_on_fixed_cases() {
    roundtrip_with_diff_u(b"a\nb\nc\n", b"a\nB\nc\n");
    roundtrip_with_diff_u(b"a\r\nb\r\nc\r\n", b"a\r\nB\r\nb2\r\nc\r\n");
    roundtrip_with_diff_u(b"a\nb", b"a\nb\n");
    roundtrip_with_diff_u(b"a\nb\n", b"a\nb");
    roundtrip_with_diff_u(b"\xEF\xBB\xBFx\n", b"\xEF\xBB\xBFx\ny\n");
    let long: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    let changed = long
        .replace("line 5\n", "five\n")
        .replace("line 30\n", "thirty\nmore\n");
    roundtrip_with_diff_u(long.as_bytes(), changed.as_bytes());
}

#[test]
fn apply_git_diff_creates_modifies_and_deletes_all_or_none() {
    let env = TestEnv::new();
    env.write("keep.txt", "k1\nk2\n");
    env.write("gone.txt", "bye\n");
    sh(
        &env,
        "git add -A && git -c user.email=t@t -c user.name=t commit -qm base",
    );
    std::fs::write(env.path("keep.txt"), "k1\nK2\n").unwrap();
    std::fs::remove_file(env.path("gone.txt")).unwrap();
    env.write("new.sh", "echo hi\n");
    std::fs::set_permissions(env.path("new.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    sh(&env, "git add -A");
    let diff = sh(&env, "git diff --cached");
    let want_keep = env.read("keep.txt");
    sh(&env, "git reset -q --hard HEAD && git clean -qfd");
    assert!(!env.path("new.sh").exists());
    let r = env.run_stdin(&["apply", "--stdin"], &diff);
    ok(&r);
    assert!(r.json.get("applied_hunks").is_none(), "{}", r.stdout);
    assert_eq!(env.read("keep.txt"), want_keep);
    assert!(!env.path("gone.txt").exists());
    assert_eq!(env.read("new.sh"), b"echo hi\n");
    let mode = std::fs::metadata(env.path("new.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o755);
    // git agrees the tree now matches the diff: reversing it with git apply works.
    let status = Command::new("git")
        .args(["apply", "--check", "-R", "-"])
        .current_dir(env.root())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(&diff)?;
            c.wait()
        })
        .unwrap();
    assert!(status.success(), "git apply -R --check rejects the result");

    // Now one hunk fails: nothing at all is written.
    sh(&env, "git checkout -q -- . 2>/dev/null; true");
    env.write("keep.txt", "k1\nchanged\n");
    env.write("gone.txt", "bye\n");
    std::fs::remove_file(env.path("new.sh")).unwrap();
    let r = env.run_stdin(&["apply", "--stdin"], &diff);
    assert_eq!((r.code, r.error_code()), (2, "selection.no-match"));
    let diag = &r.json["error"]["diagnostics"][0];
    assert_eq!(diag["path"], "keep.txt");
    assert_eq!(diag["hunk"], 1);
    assert_eq!(diag["expected_line"], 1);
    assert!(!env.path("new.sh").exists());
    assert!(env.path("gone.txt").exists());
}

#[test]
fn apply_pure_insertion_honours_position_and_context() {
    let env = TestEnv::new();
    env.write("f.txt", "a\nb\nc\nb\n");
    // -U0: no context, position only: after line 3.
    let p = "--- a/f.txt\n+++ b/f.txt\n@@ -3,0 +4 @@\n+new\n";
    ok(&env.run(&["apply", "--stdin-data", p]));
    assert_eq!(env.read("f.txt"), b"a\nb\nc\nnew\nb\n");
    // With context, the context decides even when the recorded line is off by one.
    env.write("g.txt", "x\na\nb\nc\n");
    let p = "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,3 @@\n a\n+mid\n b\n";
    ok(&env.run(&["apply", "--stdin-data", p]));
    assert_eq!(env.read("g.txt"), b"x\na\nmid\nb\nc\n");
    // Out of --fuzz reach: no match, with the hunk named.
    let far: String = (0..20).map(|_| "z\n").collect::<String>() + "a\nb\n";
    env.write("h.txt", &far);
    let p = "--- a/h.txt\n+++ b/h.txt\n@@ -1,2 +1,3 @@\n a\n+mid\n b\n";
    let r = env.run(&["apply", "--stdin-data", p]);
    assert_eq!(r.error_code(), "selection.no-match");
    ok(&env.run(&["apply", "--stdin-data", p, "--fuzz", "20"]));
}

#[test]
fn apply_refusals() {
    let env = TestEnv::new();
    env.write("e.txt", "x\n");
    let create = "--- /dev/null\n+++ b/e.txt\n@@ -0,0 +1 @@\n+x\n";
    let r = env.run(&["apply", "--stdin-data", create]);
    assert_eq!(r.error_code(), "refusal.exists");
    let r = env.run(&["apply", "--stdin-data", "not a diff"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let r = env.run(&["apply"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let secret = "--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-x\n+token=[REDACTED_SECRET]\n";
    let r = env.run(&["apply", "--stdin-data", secret]);
    assert_eq!(r.error_code(), "refusal.redacted-input");
    let escape = "--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+x\n";
    let r = env.run(&["apply", "--stdin-data", escape]);
    assert_eq!(r.error_code(), "refusal.outside-workspace");
    assert_eq!(env.read("e.txt"), b"x\n");
}

// ---------------------------------------------------------------- properties

fn mixed_file() -> impl Strategy<Value = Vec<(String, &'static str)>> {
    prop::collection::vec(
        (
            "[a-z \t]{0,12}",
            prop::sample::select(vec!["\n", "\r\n", "\n", ""]),
        ),
        1..12,
    )
}

fn render(lines: &[(String, &'static str)]) -> Vec<(String, &'static str)> {
    // Only the last line may lack a terminator.
    let n = lines.len();
    lines
        .iter()
        .enumerate()
        .map(|(i, (t, e))| (t.clone(), if e.is_empty() && i + 1 < n { "\n" } else { *e }))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// An edit of one line's unique marker changes exactly that span: every other
    /// byte (endings, tabs, a missing final newline) is as it was.
    #[test]
    fn an_edit_changes_only_its_span(lines in mixed_file(), pick in 0usize..100) {
        let lines = render(&lines);
        let k = pick % lines.len();
        let mut file = String::new();
        let mut expected = String::new();
        for (i, (t, e)) in lines.iter().enumerate() {
            if i == k {
                file.push_str(&format!("{t}@MARK@{t}{e}"));
                expected.push_str(&format!("{t}new{t}{e}"));
            } else {
                file.push_str(&format!("{t}{e}"));
                expected.push_str(&format!("{t}{e}"));
            }
        }
        let env = TestEnv::new();
        env.write("p.txt", &file);
        let r = env.run(&["edit", "p.txt", "--old", "@MARK@", "--new", "new"]);
        prop_assert_eq!(r.code, 0);
        prop_assert_eq!(env.read("p.txt"), expected.into_bytes());
    }
}

#[test]
fn replace_newer_filters_the_scan_by_a_reference_file() {
    let env = TestEnv::new();
    env.write("d/old.txt", "v1\n");
    env.write("d/new.txt", "v1\n");
    env.write("ref", "");
    sh(
        &env,
        "touch -d 2000-01-01 ref && touch -d 1999-01-01 d/old.txt",
    );
    let r = env.run(&[
        "replace",
        "v1",
        "v2",
        "d",
        "--newer",
        "ref",
        "--expect-count",
        "1",
    ]);
    ok(&r);
    assert_eq!(r.json["changes"][0]["path"], "d/new.txt");
    assert_eq!(env.read("d/old.txt"), b"v1\n");
    assert_eq!(env.read("d/new.txt"), b"v2\n");
}

#[test]
fn edit_old_with_a_count_guard_other_than_one_is_refused() {
    let env = TestEnv::new();
    env.write("c.txt", "a\n");
    let r = env.run(&[
        "edit",
        "c.txt",
        "--old",
        "a",
        "--new",
        "b",
        "--expect-count",
        "2",
    ]);
    assert_eq!((r.code, r.error_code()), (2, "selection.count-mismatch"));
    ok(&env.run(&[
        "edit",
        "c.txt",
        "--old",
        "a",
        "--new",
        "b",
        "--expect-count",
        "1",
    ]));
    assert_eq!(env.read("c.txt"), b"b\n");
}

#[test]
fn edit_and_insert_by_symbol() {
    let env = TestEnv::new();
    let p = env.write(
        "u.rs",
        "pub fn add(a: i32) -> i32 {\r\n    a + 1\r\n}\r\n\r\nfn other() {}\r\n",
    );
    let r = env.run(&["edit", "u.rs", "--symbol", "add", "--new", "fn add() {}"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let h = sha256sum(&p);
    ok(&env.run(&[
        "edit",
        "u.rs",
        "--symbol",
        "add",
        "--new",
        "fn add() {}\n",
        "--expect-hash",
        &h,
    ]));
    assert_eq!(env.read("u.rs"), b"fn add() {}\r\n\r\nfn other() {}\r\n");
    let h = sha256sum(&p);
    let r = env.run(&[
        "edit",
        "u.rs",
        "--symbol",
        "nope",
        "--new",
        "x",
        "--expect-hash",
        &h,
    ]);
    assert_eq!((r.code, r.error_code()), (2, "selection.no-match"));
    let r = env.run(&[
        "insert",
        "u.rs",
        "--after",
        "--symbol",
        "other",
        "--content",
        "// end",
        "--expect-hash",
        &h,
    ]);
    ok(&r);
    assert_eq!(r.json["inserted_at"], serde_json::json!([4]));
    assert_eq!(
        env.read("u.rs"),
        b"fn add() {}\r\n\r\nfn other() {}\r\n// end\r\n"
    );
}

/// An empty --old is refused; the first repair is the insert that adds the text,
/// and running it does (an empty file has nothing an edit could select).
#[test]
fn empty_old_repairs_to_an_insert_that_runs() {
    let env = TestEnv::new();
    env.write("empty.txt", "");
    let r = env.run(&["edit", "empty.txt", "--old", "", "--new", "it's new"]);
    assert_eq!(r.error_code(), "argument.invalid", "{}", r.stderr);
    let repair = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    assert_eq!(
        repair,
        "aitools insert empty.txt --at end --content 'it'\\''s new'"
    );
    let out = env.run_line(repair);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(env.path("empty.txt")).expect("read"),
        "it's new\n"
    );
}

// ---------------------------------------------------------------- fix round

fn git(env: &TestEnv, args: &str) -> Vec<u8> {
    sh(
        env,
        &format!("git -c user.email=t@t -c user.name=t -c core.autocrlf=false {args}"),
    )
}

/// The working tree's files (outside .git) with their bytes, sorted.
fn tree(env: &TestEnv) -> Vec<(String, Vec<u8>)> {
    let list = sh(env, "find . -path ./.git -prune -o -type f -print | sort");
    String::from_utf8_lossy(&list)
        .lines()
        .map(|p| (p.to_string(), env.read(p)))
        .collect()
}

#[test]
fn apply_reverse_strips_git_prefixes_like_git_apply_r() {
    let env = TestEnv::new();
    env.write("del.txt", "gone\n");
    env.write("f.txt", "one\ntwo\n");
    git(&env, "add -A");
    git(&env, "commit -qm base");
    std::fs::remove_file(env.path("del.txt")).unwrap();
    env.write("f.txt", "one\nTWO\n");
    env.write("brand.txt", "new\n");
    git(&env, "add -A");
    git(&env, "commit -qm after");
    for file in ["del.txt", "brand.txt", "f.txt"] {
        let diff = git(&env, &format!("diff HEAD~1 HEAD -- {file}"));
        let tmp = tempfile::tempdir().unwrap();
        let patch_file = tmp.path().join("d.patch");
        std::fs::write(&patch_file, &diff).unwrap();
        git(&env, &format!("apply -R {}", patch_file.display()));
        let want = tree(&env);
        git(&env, "reset -q --hard HEAD");
        git(&env, "clean -qfd");
        let r = env.run_stdin(&["apply", "--stdin", "--reverse"], &diff);
        ok(&r);
        assert_eq!(tree(&env), want, "{file}");
        assert!(!env.path("a").exists() && !env.path("b").exists());
        git(&env, "reset -q --hard HEAD");
        git(&env, "clean -qfd");
    }
}

#[test]
fn new_text_takes_the_line_ending_where_it_lands() {
    let env = TestEnv::new();
    env.write("src/index.js", "const a = 1;\nconst b = 2;\n");
    let r = env.run(&[
        "edit",
        "src/index.js",
        "--old",
        "const b = 2;",
        "--new",
        "const b = 2;\r\nconst c = 3;",
    ]);
    ok(&r);
    assert_eq!(
        env.read("src/index.js"),
        b"const a = 1;\nconst b = 2;\nconst c = 3;\n"
    );
    // replace: a CR LF file gets CR LF in the replacement's newlines.
    env.write("crlf.txt", "line1\r\nline2\r\n");
    let r = env.run(&[
        "replace",
        "line1",
        "line1\nnew",
        "crlf.txt",
        "--expect-count",
        "1",
    ]);
    ok(&r);
    assert_eq!(env.read("crlf.txt"), b"line1\r\nnew\r\nline2\r\n");
    // An LF file gets LF even when the replacement says CR LF.
    env.write("lf.txt", "a\nb\n");
    ok(&env.run(&["replace", "a", "a\r\nz", "lf.txt", "--expect-count", "1"]));
    assert_eq!(env.read("lf.txt"), b"a\nz\nb\n");
    // A file that mixes endings gets the replacement as written.
    env.write("mixed.txt", "a\r\nb\nc\n");
    ok(&env.run(&["replace", "b", "b\nq", "mixed.txt", "--expect-count", "1"]));
    assert_eq!(env.read("mixed.txt"), b"a\r\nb\nq\nc\n");
}

#[test]
fn trailing_slash_names_a_directory_as_in_the_shell() {
    let env = TestEnv::new();
    env.write("run.sh", "echo\n");
    env.write("b.txt", "b\n");
    env.write("d/keep", "k\n");
    // The shell refuses both: a trailing '/' on a missing path.
    let shell_refuses = |script: &str| {
        let st = Command::new("sh")
            .args(["-c", script])
            .current_dir(env.root())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(!st.success(), "{script}");
    };
    shell_refuses("echo x > newdir/");
    shell_refuses("mv run.sh sub/");
    let r = env.run(&["write", "newdir/", "--content", "x"]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert_eq!(
        r.json["error"]["repairs"][0]["command"],
        "aitools mkdir newdir"
    );
    assert!(!env.path("newdir").exists());
    let r = env.run(&["move", "run.sh", "sub/"]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert!(!env.path("sub").exists() && env.path("run.sh").exists());
    let repair = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(repair, "aitools move run.sh sub/run.sh");
    ok(&env.run(&["move", "run.sh", "sub/run.sh"]));
    assert_eq!(env.read("sub/run.sh"), b"echo\n");
    // A file followed by '/' is not a directory.
    let r = env.run(&["write", "b.txt/", "--content", "x"]);
    assert_eq!(r.error_code(), "refusal.not-a-file");
    // Into an existing directory: under the source's name, as mv and cp do.
    ok(&env.run(&["copy", "b.txt", "d/"]));
    assert_eq!(env.read("d/b.txt"), b"b\n");
    ok(&env.run(&["move", "sub/run.sh", "d/"]));
    sh(
        &env,
        "mkdir -p twin/d twin/sub && echo echo > twin/sub/run.sh && mv twin/sub/run.sh twin/d/",
    );
    assert_eq!(env.read("d/run.sh"), env.read("twin/d/run.sh"));
    assert!(!env.path("sub/run.sh").exists());
    // The workspace root as ./ is a directory to move into.
    ok(&env.run(&["move", "d/run.sh", "./"]));
    assert_eq!(env.read("run.sh"), b"echo\n");
}

fn py_compiles(env: &TestEnv, rel: &str) -> bool {
    Command::new("python3")
        .args(["-m", "py_compile", rel])
        .current_dir(env.root())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success()
}

#[test]
fn whitespace_old_and_symbol_reindent_new_keeping_its_nesting() {
    let app = "class A:\n    def foo(self):\n        return 0\n\n    def bar(self):\n        x = 1\n        return x\n";
    let new = "x = 1\nif x:\n    return x";
    let want = "class A:\n    def foo(self):\n        return 0\n\n    def bar(self):\n        x = 1\n        if x:\n            return x\n";
    // --old at 4 spaces, at 2, at 0; --new at 0 and at 8.
    for (old, new) in [
        ("    x = 1\n    return x", new.to_string()),
        ("x = 1\nreturn x", new.to_string()),
        (
            "  x = 1\n  return x",
            new.lines().map(|l| format!("        {l}\n")).collect(),
        ),
    ] {
        let env = TestEnv::new();
        env.write("src/app.py", app);
        ok(&env.run(&["edit", "src/app.py", "--old", old, "--new", &new]));
        assert!(py_compiles(&env, "src/app.py"), "{old:?}");
        assert_eq!(env.read("src/app.py"), want.as_bytes(), "{old:?}");
    }
    // --symbol: a method's replacement written at column 0 lands in the class.
    let env = TestEnv::new();
    let p = env.write("src/app.py", app);
    let h = sha256sum(&p);
    let r = env.run(&[
        "edit",
        "src/app.py",
        "--symbol",
        "bar",
        "--new",
        "def bar(self):\n    return 2",
        "--expect-hash",
        &h,
    ]);
    ok(&r);
    assert!(py_compiles(&env, "src/app.py"));
    assert_eq!(
        env.read("src/app.py"),
        b"class A:\n    def foo(self):\n        return 0\n\n    def bar(self):\n        return 2\n"
    );
}

fn repair_commands(r: &Run) -> Vec<String> {
    r.json["error"]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["command"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn messages_and_repairs_name_the_real_problem() {
    let env = TestEnv::new();
    // --nth past the matches says how many there are.
    env.write("n1.txt", "foo\nfoo foo\n");
    let r = env.run(&["replace", "foo", "X", "n1.txt", "--nth", "5", "--dry-run"]);
    assert_eq!(r.error_code(), "selection.no-match");
    let msg = r.json["error"]["message"].as_str().unwrap();
    assert!(msg.contains("only 3 time"), "{msg}");
    // A second link names the link, not its target.
    env.write("tgt.txt", "t\n");
    ok(&env.run(&["link", "tgt.txt", "newlink"]));
    let r = env.run(&["link", "tgt.txt", "newlink"]);
    assert_eq!(r.error_code(), "refusal.exists");
    assert_eq!(r.json["error"]["message"], "newlink already exists.");
    // Non-UTF-8: the repair is a command that exists and runs.
    env.write("latin.txt", b"caf\xe9 TODO\n");
    let r = env.run(&["replace", "TODO", "DONE", "latin.txt"]);
    assert_eq!(r.error_code(), "input.not-utf8");
    let cmds = repair_commands(&r);
    assert_eq!(
        cmds[0],
        "aitools replace TODO DONE latin.txt --encoding iso-8859-1"
    );
    assert_eq!(cmds[1], "aitools read latin.txt --encoding iso-8859-1");
    let words: Vec<&str> = cmds[1].split(' ').skip(1).collect();
    let read = env.run(&words);
    ok(&read);
    assert_eq!(read.json["lines"][0], "café TODO");
}

#[test]
fn apply_repairs_suggest_the_strip_and_fuzz_that_apply() {
    let env = TestEnv::new();
    env.write("old/src/m.txt", "a\nb\n");
    env.write("new/src/m.txt", "a\nB\n");
    env.write("new/src/n.txt", "n\n");
    let diff = sh(&env, "diff -ruN old new");
    let tmp = tempfile::tempdir().unwrap();
    let patch_file = tmp.path().join("ruN.patch");
    std::fs::write(&patch_file, &diff).unwrap();
    sh(
        &env,
        &format!(
            "cp -r old ref && cd ref && patch -s -p1 < {}",
            patch_file.display()
        ),
    );
    sh(&env, "mkdir src && cp old/src/m.txt src/ && rm -r old new");
    let r = env.run_stdin(&["apply", "--stdin"], &diff);
    assert_eq!(r.error_code(), "input.not-found");
    let cmd = &repair_commands(&r)[0];
    assert_eq!(cmd, "aitools apply --stdin --strip 1");
    let words: Vec<&str> = cmd.split(' ').skip(1).collect();
    ok(&env.run_stdin(&words, &diff));
    // patch -p1 agrees, the file diff -N created included.
    assert_eq!(env.read("src/m.txt"), env.read("ref/src/m.txt"));
    assert_eq!(env.read("src/n.txt"), env.read("ref/src/n.txt"));

    // A hunk 9 lines off: the repair is the --fuzz that applies it, like patch.
    let body: String = (1..=9).map(|i| format!("pad{i}\n")).collect::<String>() + "a\nb\nc\n";
    env.write("off.txt", &body);
    env.write("ref/off.txt", &body);
    let p = "--- a/off.txt\n+++ b/off.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    let patch_file = tmp.path().join("off.patch");
    std::fs::write(&patch_file, p).unwrap();
    sh(
        &env,
        &format!("cd ref && patch -s off.txt < {}", patch_file.display()),
    );
    let r = env.run(&["apply", "--stdin-data", p]);
    assert_eq!(r.error_code(), "selection.no-match");
    assert!(
        repair_commands(&r)[0].ends_with(" --fuzz 9"),
        "{:?}",
        repair_commands(&r)
    );
    ok(&env.run(&["apply", "--stdin-data", p, "--fuzz", "9"]));
    assert_eq!(env.read("off.txt"), env.read("ref/off.txt"));
}

#[test]
fn replace_lists_the_files_its_scan_skipped() {
    let env = TestEnv::new();
    env.write("t/a.txt", "TODO a\n");
    env.write("t/b.bin", b"\x00\x01TODO\x00\xff");
    env.write("t/c.bin", b"\x00\x01none\x00");
    env.write("t/latin.txt", b"caf\xe9 TODO\n");
    env.write("t/big.txt", "TODO ".repeat(400));
    let r = env.run(&[
        "replace",
        "TODO",
        "DONE",
        "t",
        "--skip-larger-than",
        "1KiB",
        "--dry-run",
    ]);
    ok(&r);
    let skipped: Vec<(String, String)> = r.json["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap().to_string(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        skipped,
        [
            ("t/b.bin", "binary"),
            ("t/big.txt", "too-large"),
            ("t/latin.txt", "not-utf8"),
        ]
        .map(|(p, r)| (p.to_string(), r.to_string()))
    );
    // grep agrees on which files hold the pattern: the changed ones and the skipped.
    let mut held: Vec<String> = vec![r.json["changes"][0]["path"].as_str().unwrap().into()];
    held.extend(skipped.iter().map(|(p, _)| p.clone()));
    held.sort();
    let grep = String::from_utf8(sh(&env, "grep -rl TODO t | sort")).unwrap();
    assert_eq!(held, grep.lines().collect::<Vec<_>>());
    // Nothing skipped: no field.
    let r = env.run(&["replace", "TODO", "DONE", "t/a.txt", "--dry-run"]);
    ok(&r);
    assert!(r.json.get("skipped").is_none());
}

#[test]
fn write_separator_takes_dashes_and_chmod_no_exec_keeps_directories_enterable() {
    let env = TestEnv::new();
    let r = env.run(&[
        "write",
        "s.txt",
        "--content",
        "a",
        "--content",
        "b",
        "--separator",
        "--",
    ]);
    ok(&r);
    sh(&env, "printf 'a--b' > want.txt");
    assert_eq!(
        sha256sum(&env.path("s.txt")),
        sha256sum(&env.path("want.txt"))
    );
    env.write("d/f", "x\n");
    std::fs::set_permissions(env.path("d"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let r = env.run(&["chmod", "d", "--no-exec"]);
    assert_eq!(r.error_code(), "refusal.not-a-file");
    let mode = std::fs::metadata(env.path("d"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o755);
    assert_eq!(
        r.json["error"]["repairs"][0]["command"],
        "aitools chmod d --mode 755"
    );
}

/// An edit in .git is refused as such, with no --root repair (no root helps);
/// outside the workspace the --root repair's placeholder is quoted, so a shell
/// never reads `<dir>` as a redirection.
#[test]
fn boundary_refusals_of_edits_repair_sensibly() {
    let env = TestEnv::new();
    let g = env.run(&["edit", ".git/config", "--old", "[core]", "--new", "x"]);
    assert_eq!(g.error_code(), "refusal.outside-workspace");
    for r in g.json["error"]["repairs"].as_array().expect("repairs") {
        let cmd = r["command"].as_str().unwrap_or("");
        assert!(!cmd.contains("--root"), "{cmd}");
    }
    let outside = tempfile::NamedTempFile::new().expect("tmp");
    std::fs::write(outside.path(), "x\n").expect("write");
    let o = env.run(&[
        "edit",
        outside.path().to_str().unwrap_or(""),
        "--old",
        "x",
        "--new",
        "y",
    ]);
    assert_eq!(o.error_code(), "refusal.outside-workspace");
    let first = o.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap_or("");
    assert!(first.starts_with("aitools --root '<dir>' edit "), "{first}");
}

/// A git diff's mode changes (`old mode`/`new mode`) and the renames git detects
/// (`rename from`/`rename to`, with or without a content change) are applied as
/// git apply applies them, and reversed.
#[test]
fn git_mode_changes_and_renames_apply_like_git() {
    let env = TestEnv::new();
    env.write("s.sh", "echo hi\n");
    env.write("f.txt", "a\nb\n");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(env.root())
            .output()
            .expect("git");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["add", "-A"]);
    git(&["commit", "-qm", "i"]);
    let mode = |p: &str| {
        std::fs::metadata(env.path(p))
            .expect("meta")
            .permissions()
            .mode()
            & 0o777
    };
    std::fs::set_permissions(env.path("s.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    env.write("f.txt", "a\nB\n");
    let diff = git(&["diff"]);
    assert!(diff.contains("old mode 100644"), "{diff}");
    git(&["checkout", "-q", "."]);
    std::fs::set_permissions(env.path("s.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = env.run(&["apply", "--stdin-data", &diff]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(mode("s.sh"), 0o755);
    assert_eq!(
        std::fs::read_to_string(env.path("f.txt")).unwrap(),
        "a\nB\n"
    );
    let back = env.run(&["apply", "--stdin-data", &diff, "--reverse"]);
    assert_eq!(back.code, 0, "{}", back.stderr);
    assert_eq!(mode("s.sh"), 0o644);

    // Renames git detected (one with a content change, one pure, of an
    // executable): applied as git applies them, mode kept, and reversed.
    let ten: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    env.write("f.txt", &ten);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "ten"]);
    git(&["mv", "f.txt", "g.txt"]);
    env.write("g.txt", ten.replace("line 5\n", "line five\n"));
    git(&["mv", "s.sh", "run.sh"]);
    git(&["add", "-A"]);
    let renamed = git(&["diff", "--cached", "-M"]);
    assert!(renamed.contains("rename from f.txt"), "{renamed}");
    let want_g = std::fs::read(env.path("g.txt")).unwrap();
    git(&["reset", "-q", "--hard"]);
    std::fs::set_permissions(env.path("s.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let ok = env.run(&["apply", "--stdin-data", &renamed]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(!env.path("f.txt").exists() && !env.path("s.sh").exists());
    assert_eq!(std::fs::read(env.path("g.txt")).unwrap(), want_g);
    assert_eq!(mode("run.sh"), 0o755);
    let back = env.run(&["apply", "--stdin-data", &renamed, "--reverse"]);
    assert_eq!(back.code, 0, "{}", back.stderr);
    assert!(env.path("f.txt").exists() && !env.path("g.txt").exists());
    assert_eq!(std::fs::read_to_string(env.path("f.txt")).unwrap(), ten);
    assert_eq!(mode("s.sh"), 0o755);
    // A rename onto an existing file is refused, and nothing is written.
    env.write("g.txt", "in the way\n");
    let clash = env.run(&["apply", "--stdin-data", &renamed]);
    assert_eq!(clash.error_code(), "refusal.exists", "{}", clash.stdout);
    assert!(env.path("f.txt").exists() && env.path("s.sh").exists());
}

// ---------------------------------------------------------------- --encoding

#[test]
fn encoded_files_are_edited_in_place_byte_exact_like_iconv_and_sed() {
    let env = TestEnv::new();
    // Latin-1 (0x80-0x9F included, which windows-1252 would map elsewhere), Shift-JIS,
    // EUC-JP and UTF-16LE with its BOM; each edited by edit, insert and replace.
    for (enc, iconv) in [
        ("iso-8859-1", "ISO-8859-1"),
        ("shift_jis", "SHIFT_JIS"),
        ("euc-jp", "EUC-JP"),
        ("utf-16le", "UTF-16LE"),
    ] {
        let text = if enc == "iso-8859-1" {
            "caf\u{e9} \u{80} one\r\nna\u{ef}ve two\nlast"
        } else {
            "日本語 one\r\nｶﾀｶﾅ two\nlast"
        };
        let name = format!("{enc}.txt");
        let bom = if enc == "utf-16le" {
            "printf '\\377\\376'; "
        } else {
            ""
        };
        let make = |t: &str| {
            sh(
                &env,
                &format!("{{ {bom}printf '%s' '{t}' | iconv -f UTF-8 -t {iconv}; }}"),
            )
        };
        std::fs::write(env.path(&name), make(text)).unwrap();
        let r = env.run(&[
            "edit",
            &name,
            "--old",
            "two",
            "--new",
            "deux",
            "--encoding",
            enc,
        ]);
        ok(&r);
        let r = env.run(&[
            "insert",
            &name,
            "--at",
            "start",
            "--content",
            "first",
            "--encoding",
            enc,
        ]);
        ok(&r);
        let r = env.run(&[
            "replace",
            "one",
            "un",
            &name,
            "--encoding",
            enc,
            "--expect-count",
            "1",
        ]);
        ok(&r);
        // The oracle: the same edits on the UTF-8 text (sed), encoded by iconv; the
        // inserted line takes the CRLF of the line it lands on.
        let want = sh(
            &env,
            &format!(
                "{{ {bom}printf '%s' '{text}' | sed -e 's/two/deux/' -e 's/one/un/' -e '1s/^/first\\r\\n/' | iconv -f UTF-8 -t {iconv}; }}"
            ),
        );
        assert_eq!(env.read(&name), want, "{enc}");
        assert_eq!(
            r.json["changes"][0]["hash"],
            sha256sum(&env.path(&name))[..12]
        );
    }
}

#[test]
fn encoding_refuses_what_it_cannot_write_back_and_names_the_way_in() {
    let env = TestEnv::new();
    let bytes = b"caf\xe9 one\nsecond\n".to_vec();
    env.write("l1.txt", &bytes);
    // New text Latin-1 has no byte for: refused, nothing written.
    let r = env.run(&[
        "edit",
        "l1.txt",
        "--old",
        "one",
        "--new",
        "\u{20ac}",
        "--encoding",
        "iso-8859-1",
    ]);
    assert_eq!(r.error_code(), "argument.invalid", "{}", r.stderr);
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("U+20AC")
    );
    assert_eq!(env.read("l1.txt"), bytes);
    // Bytes that are not valid Shift-JIS would not come back the same: refused.
    let r = env.run(&[
        "edit",
        "l1.txt",
        "--old",
        "one",
        "--new",
        "1",
        "--encoding",
        "shift_jis",
    ]);
    assert_eq!(r.error_code(), "input.unsupported-format", "{}", r.stderr);
    assert_eq!(env.read("l1.txt"), bytes);
    // Without --encoding, the first repair is the call with it, and it works.
    let r = env.run(&["edit", "l1.txt", "--old", "one", "--new", "1"]);
    assert_eq!(r.error_code(), "input.not-utf8");
    let first = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(
        first,
        "aitools edit l1.txt --old one --new 1 --encoding iso-8859-1"
    );
    ok(&env.run_line(first));
    assert_eq!(env.read("l1.txt"), b"caf\xe9 1\nsecond\n");
}
