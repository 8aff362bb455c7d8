//! Validation holes kept since the first review (issue 33): chmod's special bits,
//! touch's impossible dates, schema's doubled repair, the redacted-input template,
//! json get's missing index, one code for a bad regex, blame --rev's total, and a
//! feedback directory found at run time.

use crate::support::{Run, TestEnv, bin, parse};
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

fn mode(env: &TestEnv, rel: &str) -> u32 {
    std::fs::metadata(env.path(rel))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

fn repairs(r: &Run) -> Vec<String> {
    r.json["error"]["repairs"]
        .as_array()
        .map(|a| {
            let cmd = |x: &serde_json::Value| x["command"].as_str().unwrap_or("").to_string();
            a.iter().map(cmd).collect()
        })
        .unwrap_or_default()
}

fn message(r: &Run) -> String {
    r.json["error"]["message"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn chmod_refuses_setuid_setgid_and_sticky_naming_the_bit() {
    let env = TestEnv::new();
    env.write("a.sh", "echo hi\n");
    let before = mode(&env, "a.sh");
    for (m, bit) in [
        ("4755", "setuid"),
        ("2755", "setgid"),
        ("1755", "sticky"),
        ("04755", "setuid"),
        ("u+s", "setuid"),
        ("g+s", "setgid"),
        ("+t", "sticky"),
        ("u=rwxs,go=rx", "setuid"),
    ] {
        let r = env.run(&["chmod", "a.sh", "--mode", m]);
        assert_eq!(
            r.error_code(),
            "argument.invalid",
            "--mode {m}: {}",
            r.stdout
        );
        assert!(message(&r).contains(bit), "--mode {m}: {}", r.stderr);
        assert_eq!(mode(&env, "a.sh"), before, "--mode {m} changed the mode");
    }
    // The octal refusal's repair is the same mode without the special bits.
    let r = env.run(&["chmod", "a.sh", "--mode", "6755"]);
    assert!(message(&r).contains("setuid and setgid"), "{}", r.stderr);
    assert_eq!(repairs(&r)[0], "aitools chmod a.sh --mode 755");
    let ok = env.run_line(&repairs(&r)[0]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert_eq!(mode(&env, "a.sh"), 0o755);
}

#[test]
fn touch_refuses_dates_and_times_that_do_not_exist() {
    let env = TestEnv::new();
    env.write("a.txt", "x\n");
    let before = std::fs::metadata(env.path("a.txt"))
        .unwrap()
        .modified()
        .ok();
    for (t, why) in [
        ("2024-02-30", "2024-02 has 29 days"),
        ("2023-02-29", "2023-02 has 28 days"),
        ("1900-02-29T12:00:00Z", "1900-02 has 28 days"),
        ("2024-04-31", "2024-04 has 30 days"),
        ("2024-01-01T24:00:00", "hours are 0-23"),
        ("2024-13-01", "months are 1-12"),
    ] {
        let r = env.run(&["touch", "a.txt", "--mtime", t]);
        assert_eq!(
            r.error_code(),
            "argument.invalid",
            "--mtime {t}: {}",
            r.stdout
        );
        assert!(message(&r).contains(why), "--mtime {t}: {}", r.stderr);
    }
    let after = std::fs::metadata(env.path("a.txt"))
        .unwrap()
        .modified()
        .ok();
    assert_eq!(before, after);
    let r = env.run(&["touch", "a.txt", "--mtime", "2024-02-29"]);
    assert_eq!(r.json["mtime"], "2024-02-29T00:00:00Z", "{}", r.stderr);
}

#[test]
fn schema_of_an_unknown_command_lists_each_repair_once() {
    let env = TestEnv::new();
    for word in ["bogus", "grep", "scheme"] {
        let r = env.run(&["schema", word]);
        assert_eq!(r.error_code(), "argument.invalid");
        let mut cmds = repairs(&r);
        let n = cmds.len();
        cmds.sort();
        cmds.dedup();
        assert_eq!(cmds.len(), n, "schema {word}: {}", r.stderr);
    }
}

#[test]
fn redacted_input_repairs_are_runnable_commands_naming_the_file() {
    let env = TestEnv::new();
    env.write("conf/k.txt", "name=x\n");
    for args in [
        &[
            "edit",
            "conf/k.txt",
            "--old",
            "x",
            "--new",
            "[REDACTED_SECRET]",
        ][..],
        &["write", "conf/k.txt", "--content", "[REDACTED_SECRET]"],
        &[
            "insert",
            "conf/k.txt",
            "--at",
            "end",
            "--content",
            "[REDACTED_SECRET]",
        ],
    ] {
        let r = env.run(args);
        assert_eq!(r.error_code(), "refusal.redacted-input", "{args:?}");
        let cmds = repairs(&r);
        assert!(cmds.iter().all(|c| !c.contains('<')), "{args:?}: {cmds:?}");
        assert!(
            cmds.contains(&"aitools read conf/k.txt".to_string()),
            "{cmds:?}"
        );
        let read = env.run_line("aitools read conf/k.txt");
        assert_eq!(read.code, 0);
    }
}

/// A write that would create a file from masked content has no secret's line
/// to read and change by number: no repair reads the file that is not there.
#[test]
fn redacted_input_for_a_new_file_offers_no_read_of_it() {
    let env = TestEnv::new();
    let r = env.run(&["write", "new.txt", "--content", "k=[REDACTED_SECRET]"]);
    assert_eq!(r.error_code(), "refusal.redacted-input");
    let cmds = repairs(&r);
    assert!(
        cmds.iter().all(|c| !c.contains("new.txt")),
        "a repair names the missing file: {cmds:?}"
    );
    assert!(!env.root().join("new.txt").exists());
}

#[test]
fn json_get_of_a_missing_index_names_the_valid_range() {
    let env = TestEnv::new();
    env.write("x.json", r#"{"a":[1,2,3],"b":[5],"c":[]}"#);
    let r = env.run(&["json", "get", "x.json", "/b/9"]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert_eq!(r.json["error"]["candidates"], serde_json::json!(["0"]));
    assert!(message(&r).contains("0-0"), "{}", r.stderr);
    let r = env.run(&["json", "get", "x.json", "/a/7"]);
    assert_eq!(r.json["error"]["candidates"], serde_json::json!(["0", "2"]));
    assert!(message(&r).contains("0-2"), "{}", r.stderr);
    let r = env.run(&["json", "get", "x.json", "/c/0"]);
    assert!(message(&r).contains("empty"), "{}", r.stderr);
}

#[test]
fn an_invalid_regex_is_one_code_and_one_message_shape_everywhere() {
    let env = TestEnv::new();
    env.write("a.txt", "one (two)\n");
    let shape = |r: &Run, what: &str| {
        assert_eq!(r.error_code(), "input.syntax-error", "{}", r.stderr);
        assert_eq!(
            message(r),
            format!("{what} \"(\" does not parse: unclosed group."),
        );
    };
    shape(&env.run(&["search", "("]), "The pattern");
    shape(&env.run(&["read", "a.txt", "--match", "("]), "--match");
    shape(
        &env.run(&["read", "a.txt", "--between", "(", "x"]),
        "--between",
    );
    shape(
        &env.run(&["edit", "a.txt", "--match", "(", "--new", "x"]),
        "--match",
    );
    shape(&env.run(&["replace", "(", "x", "a.txt"]), "The pattern");
    shape(&env.run(&["run", "--grep", "(", "--", "true"]), "--grep");
    // read's repair matches the text literally, and runs.
    let r = env.run(&["read", "a.txt", "--match", "("]);
    let fixed = env.run_line(&repairs(&r)[0]);
    assert_eq!(fixed.code, 0, "{}", fixed.stderr);
    assert_eq!(fixed.lines(), vec!["one (two)".to_string()]);
}

#[test]
fn git_blame_at_a_revision_keeps_total_lines() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\n");
    env.git(&["add", "."]);
    env.git(&["commit", "-qm", "first"]);
    env.write("a.txt", "one\ntwo\nthree\n");
    let r = env.run(&["git", "blame", "a.txt", "--rev", "HEAD"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json["total_lines"], 2, "{}", r.stdout);
    let r = env.run(&["git", "blame", "a.txt"]);
    assert_eq!(r.json["total_lines"], 3);
    // From a subdirectory, of a file above it.
    std::fs::create_dir(env.path("sub")).unwrap();
    let r = env.run_in(
        &env.path("sub"),
        &["git", "blame", "../a.txt", "--rev", "HEAD"],
    );
    assert_eq!(r.json["total_lines"], 2, "{}", r.stdout);
}

#[test]
fn feedback_default_directory_is_found_at_run_time() {
    // A copy of the binary outside any checkout (an installed aitools) files into
    // the state directory, never into the checkout its build ran in.
    let env = TestEnv::new();
    let home = tempfile::tempdir().unwrap();
    let exe = home.path().join("aitools");
    if std::fs::hard_link(bin(), &exe).is_err() {
        std::fs::copy(bin(), &exe).unwrap();
    }
    let mut c = env.isolate(Command::new(&exe));
    c.env_remove("AITOOLS_FEEDBACK_DIR");
    c.args([
        "feedback",
        "create",
        "--type",
        "bug",
        "--message",
        "copied binary",
    ]);
    let r = parse(c.output().unwrap());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let filed = std::path::PathBuf::from(r.json["path"].as_str().unwrap_or(""));
    assert!(filed.starts_with(env.state.path()), "{}", r.stdout);
    assert!(filed.is_file(), "{}", r.stdout);
}

/// Repairs are commands that run, never templates (`'<pattern>'`, `'<path>'`):
/// an unsupported language's outline, a rename over a non-UTF-8 file, a bad glob.
#[test]
fn repairs_name_real_arguments_not_templates() {
    let env = TestEnv::new();
    env.write("notes.zzz", "hello\n");
    env.write("b.rs", b"fn parse() {}\nfn g() { parse() }\n// \xff\n");
    for argv in [
        &["code", "outline", "notes.zzz"][..],
        &["code", "rename", "parse", "parse2", "--dry-run"],
        &["find", "--glob", "[abc"],
        &["search", "x", "--glob", "[abc"],
    ] {
        let r = env.run(argv);
        assert_eq!(r.code, 1, "{argv:?}: {}", r.json);
        for line in repairs(&r) {
            assert!(!line.contains("'<"), "{argv:?}: a template repair: {line}");
            let again = env.run_line(&line);
            assert!(again.code == 0 || again.code == 3, "{line}: {}", again.json);
        }
    }
}
