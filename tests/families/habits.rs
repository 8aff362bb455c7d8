//! Habits of the people who write these calls (issue 32): other tools' spellings
//! (git, grep, find, head, jq) are read the aitools way and said in `took`, or
//! answered with a repair that works when run.

use crate::support::{Run, TestEnv, log_items};

/// Two commits of a 30-line file, a third change staged; a Python file, a JSON
/// file.
fn repo() -> TestEnv {
    let env = TestEnv::new();
    let lines: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    env.write("t.txt", &lines);
    env.write("src/a.py", "def f():\n    return 1\n");
    env.write("src/b.rs", "fn f() {}\n");
    env.write("c.json", r#"{"a":{"b":[{"c":1}]}}"#);
    env.git(&["add", "."]);
    env.git(&["commit", "-qm", "one"]);
    env.write("t.txt", format!("{lines}x\n"));
    env.git(&["commit", "-qam", "two"]);
    env.write("t.txt", format!("{lines}x\ny\n"));
    env.git(&["add", "t.txt"]);
    env
}

/// The call answers (ok, or partial at a limit), having taken `took` (the
/// answer's member).
fn took(env: &TestEnv, argv: &[&str], took: serde_json::Value) -> Run {
    let r = env.run(argv);
    assert!(
        r.code == 0 || r.code == 3,
        "{argv:?}: {}{}",
        r.stdout,
        r.stderr
    );
    assert_eq!(r.json["took"], took, "{argv:?}: {}", r.stdout);
    r
}

/// The call is refused, and its first repair, run as written, succeeds.
fn repaired(env: &TestEnv, argv: &[&str], expected: &str) -> Run {
    let r = env.run(argv);
    assert_eq!(r.error_code(), "argument.invalid", "{argv:?}: {}", r.stderr);
    let fix = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert_eq!(fix, expected, "{argv:?}: {}", r.stderr);
    let ran = env.run_line(&fix);
    assert_eq!(ran.code, 0, "{fix}: {}{}", ran.stdout, ran.stderr);
    ran
}

#[test]
fn git_spellings_are_taken() {
    let env = repo();
    let log = took(
        &env,
        &["git", "log", "-n", "1"],
        serde_json::json!({"-n": "--limit"}),
    );
    assert_eq!(log.json["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(log_items(&log.json)[0]["subject"], "two");
    took(
        &env,
        &["git", "log", "-n1"],
        serde_json::json!({"-n": "--limit"}),
    );
    let staged = took(
        &env,
        &["git", "diff", "--cached"],
        serde_json::json!({"--cached": "--staged"}),
    );
    let hunk = staged.json["files"][0]["hunks"][0].as_str().unwrap_or("");
    assert!(hunk.ends_with("+y"), "{}", staged.stdout);
    let blame = took(
        &env,
        &["git", "blame", "-L", "10,12", "t.txt"],
        serde_json::json!({"-L 10,12": "--range 10:12"}),
    );
    assert_eq!(blame.json["lines"].as_array().map(Vec::len), Some(3));
    let plus = took(
        &env,
        &["git", "blame", "-L", "10,+2", "t.txt"],
        serde_json::json!({"-L 10,+2": "--range 10:11"}),
    );
    assert_eq!(plus.json["lines"][1]["n"], 11);
}

#[test]
fn search_spellings_are_taken_with_the_language_named() {
    let env = repo();
    let m = took(
        &env,
        &["search", "--max-count", "1", "line", "t.txt"],
        serde_json::json!({"--max-count": "--limit"}),
    );
    assert_eq!(m.json["blocks"].as_array().map(Vec::len), Some(1));
    let inc = took(
        &env,
        &["search", "--include", "*.py", "f"],
        serde_json::json!({"--include": "--glob"}),
    );
    assert_eq!(inc.json["blocks"][0]["path"], "src/a.py");
    for flag in ["--type", "-t"] {
        let t = took(
            &env,
            &["search", flag, "py", "f"],
            serde_json::json!({ format!("{flag} py"): "--lang python" }),
        );
        assert_eq!(t.json["blocks"].as_array().map(Vec::len), Some(1));
        assert_eq!(t.json["blocks"][0]["path"], "src/a.py");
    }
    took(
        &env,
        &["search", "-t", "rs", "f"],
        serde_json::json!({"-t rs": "--lang rust"}),
    );
    // A type that is no language: the same call by extension, which runs.
    repaired(
        &env,
        &["search", "-t", "klingon", "f"],
        "aitools search --glob '*.klingon' f",
    );
}

#[test]
fn read_and_find_spellings_are_taken() {
    let env = repo();
    for flag in ["-n", "--head"] {
        let r = took(
            &env,
            &["read", flag, "2", "t.txt"],
            serde_json::json!({ format!("{flag} 2"): "--range 1:2" }),
        );
        assert_eq!(r.json["lines"], serde_json::json!(["line 1", "line 2"]));
    }
    let f = took(
        &env,
        &["find", "-name", "*.py"],
        serde_json::json!({"-name": "pattern"}),
    );
    assert_eq!(f.json["items"][0], "src/a.py");
    assert_eq!(f.json["items"].as_array().map(Vec::len), Some(1));
    let under = took(
        &env,
        &["find", "src", "-name", "*.rs"],
        serde_json::json!({"-name": "pattern"}),
    );
    assert_eq!(under.json["items"][0], "src/b.rs");
    let long = took(
        &env,
        &["find", "--name", "*.py"],
        serde_json::json!({"--name": "pattern"}),
    );
    assert_eq!(long.json["items"], serde_json::json!(["src/a.py"]));
    let ins = took(
        &env,
        &["insert", "t.txt", "--at", "end", "--text", "tail"],
        serde_json::json!({"--text": "--content"}),
    );
    assert_eq!(ins.json["inserted_at"].as_array().map(Vec::len), Some(1));
    assert!(String::from_utf8_lossy(&env.read("t.txt")).ends_with("tail\n"));
    let d = took(
        &env,
        &["find", "-type", "d"],
        serde_json::json!({"-type d": "--type dir"}),
    );
    assert_eq!(d.json["items"][0], "src/");
    let py = took(
        &env,
        &["find", "--type", "py"],
        serde_json::json!({"--type py": "--lang python"}),
    );
    assert_eq!(py.json["items"].as_array().map(Vec::len), Some(1));
}

#[test]
fn a_jq_path_is_read_as_the_pointer_it_means() {
    let env = repo();
    let g = took(
        &env,
        &["json", "get", "c.json", ".a.b"],
        serde_json::json!({".a.b": "/a/b"}),
    );
    assert_eq!(g.json["pointer"], "/a/b");
    let deep = took(
        &env,
        &["json", "get", "c.json", ".a.b[0].c"],
        serde_json::json!({".a.b[0].c": "/a/b/0/c"}),
    );
    assert_eq!(deep.json["value"], 1);
    // A write is not guessed at: its repair is the call with the pointer.
    repaired(
        &env,
        &["json", "set", "c.json", ".a.b", "2"],
        "aitools json set c.json /a/b 2",
    );
    assert!(String::from_utf8_lossy(&env.read("c.json")).contains(r#""b":2"#));
}

#[test]
fn repairs_of_other_spellings_run() {
    let env = repo();
    // A revision where a path stands: taken as the revision option, as git reads it.
    let d = took(
        &env,
        &["git", "diff", "HEAD~1"],
        serde_json::json!({"HEAD~1": "--ref HEAD~1"}),
    );
    assert_eq!(d.json["files"][0]["path"], "t.txt");
    let r = took(
        &env,
        &["git", "diff", "HEAD~1..HEAD", "t.txt"],
        serde_json::json!({"HEAD~1..HEAD": "--ref HEAD~1..HEAD"}),
    );
    assert_eq!(r.json["files"][0]["path"], "t.txt");
    // git's two commits (`git diff A B`) are the range A..B: the staged `y` is
    // not in it (was: B read as a path, the diff run against the work tree).
    for argv in [
        &["git", "diff", "HEAD~1", "HEAD"][..],
        &["git", "diff", "HEAD~1", "HEAD", "t.txt"][..],
        &["git", "diff", "HEAD~1", "HEAD", "--", "t.txt"][..],
    ] {
        let two = took(
            &env,
            argv,
            serde_json::json!({"HEAD~1 HEAD": "--ref HEAD~1..HEAD"}),
        );
        let hunk = two.json["files"][0]["hunks"][0].as_str().unwrap_or("");
        assert!(hunk.ends_with("+x"), "{argv:?}: {}", two.stdout);
    }
    took(
        &env,
        &["git", "log", "HEAD~1"],
        serde_json::json!({"HEAD~1": "--rev HEAD~1"}),
    );
    // git's `-5`: the count.
    let five = took(
        &env,
        &["git", "log", "-5"],
        serde_json::json!({"-5": "--limit 5"}),
    );
    assert_eq!(five.json["items"].as_array().map(Vec::len), Some(2));
    // A file of that name is the path it names.
    env.write("HEAD~1", "x\n");
    let f = env.run(&["git", "diff", "HEAD~1"]);
    assert!(f.json.get("took").is_none(), "{}", f.stdout);
    // `git show REV PATH`: the commit's change to PATH, and the file as REV has it.
    let s = env.run(&["git", "show", "HEAD", "t.txt"]);
    assert_eq!(s.error_code(), "argument.invalid", "{}", s.stderr);
    let fixes: Vec<&str> = s.json["error"]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["command"].as_str())
        .collect();
    assert_eq!(
        fixes,
        [
            "aitools git diff --ref 'HEAD^!' t.txt",
            "aitools git show HEAD:t.txt"
        ],
        "{}",
        s.stderr
    );
    for fix in fixes {
        let r = env.run_line(fix);
        assert_eq!(r.code, 0, "{fix}: {}", r.stderr);
    }
    let dd = env.run(&["git", "show", "HEAD", "--", "t.txt"]);
    assert_eq!(
        dd.json["error"]["repairs"][1]["command"],
        "aitools git show HEAD:t.txt"
    );
    // An extension given to --lang: the language it is the extension of.
    let l = repaired(
        &env,
        &["search", "--lang", "py", "f"],
        "aitools search --lang python f",
    );
    assert_eq!(l.json["blocks"][0]["path"], "src/a.py");
    repaired(
        &env,
        &["git", "diff", "--name-only"],
        "aitools git diff --output stat",
    );
    // Inside batch, an element's answer says what it took.
    let batch = env.run_stdin(&["batch", "--stdin"], br#"[["git","log","-n","1"]]"#);
    assert_eq!(batch.code, 0, "{}{}", batch.stdout, batch.stderr);
    assert!(
        batch.stdout.contains(r#""took":{"-n":"--limit"}"#),
        "{}",
        batch.stdout
    );
    // git show's repairs run.
    for rev in ["nope", "HEAD:nope"] {
        let r = env.run(&["git", "show", rev]);
        for fix in r.json["error"]["repairs"].as_array().into_iter().flatten() {
            let c = fix["command"].as_str().unwrap_or("");
            assert_eq!(env.run_line(c).code, 0, "git show {rev}: {c}");
        }
    }
    // git show HEAD answers, and every command it hands back runs.
    let show = env.run(&["git", "show", "HEAD"]);
    assert_eq!(show.code, 0, "{}", show.stderr);
    assert_eq!(show.json["message"], "two");
    for c in show.json["next_commands"].as_array().into_iter().flatten() {
        let c = c.as_str().unwrap_or("");
        assert_eq!(env.run_line(c).code, 0, "{c}");
    }
}

#[test]
fn find_and_grep_words_are_not_read_as_help() {
    let env = repo();
    // `-maxdepth` and `-path` hold an `h`: before, they answered find's help with exit 0.
    let d = took(
        &env,
        &["find", "-maxdepth", "1", "-name", "*.txt"],
        serde_json::json!({"-maxdepth": "--depth", "-name": "pattern"}),
    );
    assert_eq!(d.json["items"][0], "t.txt", "{}", d.stdout);
    let p = took(
        &env,
        &["find", "-path", "src/*"],
        serde_json::json!({"-path": "--glob"}),
    );
    assert_eq!(p.json["command"], "find", "{}", p.stdout);
    assert_eq!(
        p.json["items"].as_array().map(Vec::len),
        Some(2),
        "{}",
        p.stdout
    );
    // A cluster of the command's own letters with h is still help.
    let h = env.run(&["search", "-ih"]);
    assert_eq!(h.json["command"], "help", "{}", h.stdout);
}

#[test]
fn more_everyday_spellings_are_taken() {
    let env = repo();
    let r = took(
        &env,
        &["read", "t.txt", "--lines", "2:3"],
        serde_json::json!({"--lines": "--range"}),
    );
    assert_eq!(r.json["lines"], serde_json::json!(["line 2", "line 3"]));
    // A range written as people and sed write it: S:E.
    for (v, key) in [("2-3", "--lines 2-3"), ("2,3", "--lines 2,3")] {
        let r = took(
            &env,
            &["read", "t.txt", "--lines", v],
            serde_json::json!({ key: "--range 2:3" }),
        );
        assert_eq!(r.json["lines"], serde_json::json!(["line 2", "line 3"]));
    }
    took(
        &env,
        &["git", "status", "--short"],
        serde_json::json!({"--short": ""}),
    );
    took(
        &env,
        &["git", "status", "--porcelain"],
        serde_json::json!({"--porcelain": ""}),
    );
    let l = took(
        &env,
        &["git", "log", "--stat", "-n", "1"],
        serde_json::json!({"--stat": "--files", "-n": "--limit"}),
    );
    assert!(log_items(&l.json)[0]["files"].is_array(), "{}", l.stdout);
    took(
        &env,
        &["search", "--no-heading", "line 7"],
        serde_json::json!({"--no-heading": ""}),
    );
    // grep's -rn / -nr / -r / -rH: recursion is the default and every result
    // names its path, so -r and -H are taken, left out (one call, not a repair).
    for (argv, want) in [
        (
            &["search", "-rn", "line 7", "."][..],
            serde_json::json!({"-r": ""}),
        ),
        (
            &["search", "-nr", "line 7"][..],
            serde_json::json!({"-r": ""}),
        ),
        (
            &["search", "-r", "line 7"][..],
            serde_json::json!({"-r": ""}),
        ),
        (
            &["search", "-rH", "line 7", "."][..],
            serde_json::json!({"-r": "", "-H": ""}),
        ),
    ] {
        let r = took(&env, argv, want);
        assert_eq!(r.json["blocks"][0]["path"], "t.txt", "{}", r.stdout);
    }
    // -P (Perl syntax) may not mean the same here: still answered.
    repaired(&env, &["search", "-P", "line 7"], "aitools search 'line 7'");
}

/// find's -iname, head's -20, grep's --exclude (issue 32): taken, each
/// answering as its tool would.
#[test]
fn iname_head_count_and_exclude_are_taken() {
    let env = repo();
    env.write("src/Upper.PY", "x = 1\n");
    let f = took(
        &env,
        &["find", "-iname", "*.py"],
        serde_json::json!({"-iname": "--ignore-case pattern"}),
    );
    let paths = &f.json["items"];
    assert_eq!(
        paths,
        &serde_json::json!(["src/Upper.PY", "src/a.py"]),
        "{}",
        f.stdout
    );
    // The flag itself, and a substring in any case.
    let i = env.run(&["find", "UPPER", "-i"]);
    assert_eq!(i.json["items"][0], "src/Upper.PY", "{}", i.stdout);
    assert_eq!(
        env.run(&["find", "UPPER"]).json["items"],
        serde_json::json!([])
    );
    // head -20 / head -n 20 (read's -n, cat's number-the-lines, is taken too).
    for argv in [&["read", "-2", "t.txt"][..], &["read", "t.txt", "-2"][..]] {
        let r = took(&env, argv, serde_json::json!({"-2": "--range 1:2"}));
        assert_eq!(r.json["lines"], serde_json::json!(["line 1", "line 2"]));
    }
    // grep --exclude GLOB: what --glob '!GLOB' leaves out.
    for argv in [
        &["search", "f", "src", "--exclude", "*.rs"][..],
        &["search", "f", "src", "--exclude=*.rs"][..],
    ] {
        let r = took(
            &env,
            argv,
            serde_json::json!({"--exclude *.rs": "--glob !*.rs"}),
        );
        let blocks = r.json["blocks"].as_array().unwrap();
        assert_eq!(blocks.len(), 1, "{}", r.stdout);
        assert_eq!(blocks[0]["path"], "src/a.py");
    }
}

/// head's `-20` before or after the path is `--range 1:20`; `read -20` alone names
/// no file, and the answer says how to ask for a file's first lines; a file
/// really named `-20` is read, given after `--`.
#[test]
fn read_dash_count_without_a_path_says_how_to_ask() {
    let env = TestEnv::new();
    let lines: String = (1..=30).map(|i| format!("{i}\n")).collect();
    env.write("f.txt", &lines);
    for argv in [["read", "-20", "f.txt"], ["read", "f.txt", "-20"]] {
        let r = env.run(&argv);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.json["lines"].as_array().map(Vec::len), Some(20));
        assert_eq!(r.json["took"]["-20"], "--range 1:20", "{}", r.stdout);
    }
    let r = env.run(&["read", "-20"]);
    assert_eq!(r.error_code(), "input.not-found", "{}", r.stderr);
    let msg = r.json["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("aitools read FILE --range 1:20"), "{msg}");
    env.write("-20", "dash\n");
    let f = env.run(&["read", "--", "-20"]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.json["lines"][0], "dash", "{}", f.stdout);
}

/// `repo()` and three commits to `h.txt`: by Alice at 2026-11-30, Bob at
/// 2026-12-02 and Alice at 2026-12-05 (author and commit dates alike).
fn history() -> TestEnv {
    let env = repo();
    env.git(&["commit", "-qm", "three"]);
    for (i, (who, day)) in [("Alice", 0), ("Bob", 2), ("Alice", 5)].iter().enumerate() {
        env.write("h.txt", format!("{i}\n"));
        env.git(&["add", "h.txt"]);
        let when = format!("{} +0000", 1_796_000_000 + day * 86_400);
        dated_commit(&env, who, &format!("{who} {day}"), &when);
    }
    env
}

/// Commits what is staged as `who` (`<who lowercased>@example.com`), authored
/// and committed at `when` (git's `SECONDS +ZONE`).
fn dated_commit(env: &TestEnv, who: &str, message: &str, when: &str) {
    let out = std::process::Command::new("git")
        .args(["-c", &format!("user.name={who}")])
        .args([
            "-c",
            &format!("user.email={}@example.com", who.to_lowercase()),
        ])
        .args(["commit", "-qm", message])
        .current_dir(env.root())
        .env("GIT_AUTHOR_DATE", when)
        .env("GIT_COMMITTER_DATE", when)
        .output()
        .expect("git");
    assert!(out.status.success(), "{out:?}");
}

fn subjects(r: &Run) -> Vec<String> {
    log_items(&r.json)
        .iter()
        .map(|i| i["subject"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn git_log_author_since_and_until_filter_as_git_does() {
    let env = history();
    let a = env.run(&["git", "log", "--author", "Alice"]);
    assert_eq!(a.code, 0, "{}{}", a.stdout, a.stderr);
    assert_eq!(subjects(&a), ["Alice 5", "Alice 0"], "{}", a.stdout);
    assert_eq!(a.json["total"], 2);
    let when = env.run(&[
        "git",
        "log",
        "--since",
        "2026-12-01",
        "--until",
        "2026-12-03T00:00",
    ]);
    assert_eq!(subjects(&when), ["Bob 2"], "{}", when.stdout);
    let counted = env.run(&[
        "git",
        "log",
        "--since",
        "@1796100000",
        "--limit",
        "1",
        "--total",
    ]);
    assert_eq!(counted.json["total"], 2, "{}", counted.stdout);
    // A span git reads (N units ago) is passed as git spells it.
    let span = env.run(&["git", "log", "--since", "100 years ago", "--limit", "1"]);
    assert_eq!(subjects(&span), ["Alice 5"], "{}", span.stdout);
    // A value that starts with `-` is a pattern, never a git option.
    let dash = env.run(&["git", "log", "--author=--all"]);
    assert_eq!(dash.code, 0, "{}", dash.stderr);
    assert_eq!(dash.json["items"], serde_json::json!([]));
    // A pattern git cannot read is the caller's argument: the call with it as text.
    repaired(
        &env,
        &["git", "log", "--author", "[bot"],
        r"aitools git log '--author=\[bot'",
    );
    // git reads any word as some time (`garbage` is now): refused, not a wrong page.
    repaired(
        &env,
        &["git", "log", "--since", "garbage", "--limit", "1"],
        "aitools git log --limit 1",
    );
}

/// git's words for a time (`yesterday`, `last week`, `last friday`) are read as
/// git reads them, counted from aitools' clock (AITOOLS_FIXED_TIME, Monday
/// 2026-11-30 00:53:20 UTC): the same commits as git with that clock. `today` is
/// today's 00:00 UTC (git's `midnight`; git reads `today` as now).
#[test]
fn git_log_since_yesterday_and_last_week_are_read_as_git_does() {
    const NOW: i64 = 1_796_000_000;
    let env = TestEnv::new();
    let commits = [
        ("ten days", 10 * 86_400),
        ("before friday", 3 * 86_400 + 3_600),
        ("saturday", 2 * 86_400),
        ("late sunday", 23 * 3_600),
        ("this morning", 600),
    ];
    for (i, (what, ago)) in commits.iter().enumerate() {
        env.write("w.txt", format!("{i}\n"));
        env.git(&["add", "w.txt"]);
        let when = format!("{} +0000", NOW - ago);
        dated_commit(&env, "T", what, &when);
    }
    let git_says = |since: &str| -> Vec<String> {
        let out = std::process::Command::new("git")
            .args(["log", &format!("--since={since}"), "--format=%s"])
            .current_dir(env.root())
            .env("GIT_TEST_DATE_NOW", NOW.to_string())
            .env("TZ", "UTC")
            .output()
            .expect("git");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect()
    };
    for (ours, git) in [
        ("yesterday", "yesterday"),
        ("last week", "last week"),
        ("last friday", "last friday"),
        ("last fri", "last friday"),
        ("2 days ago", "2 days ago"),
        ("today", "midnight"),
    ] {
        let r = env.run(&["git", "log", "--since", ours]);
        assert_eq!(r.code, 0, "{ours}: {}", r.stderr);
        assert_eq!(subjects(&r), git_says(git), "{ours}: {}", r.stdout);
    }
    assert_eq!(
        subjects(&env.run(&["git", "log", "--since", "today"])),
        ["this morning"]
    );
    let r = env.run(&["git", "log", "--since", "last friday"]);
    assert_eq!(subjects(&r), ["this morning", "late sunday", "saturday"]);
    // Up to today is up to now; up to yesterday leaves out the last day.
    let until = env.run(&["git", "log", "--until", "yesterday"]);
    assert_eq!(subjects(&until), ["saturday", "before friday", "ten days"]);
    assert_eq!(
        subjects(&env.run(&["git", "log", "--until", "today"])).len(),
        5
    );
}

#[test]
fn git_log_since_yesterday_noon_and_this_week_are_read() {
    // Monday 2026-11-30 00:53:20 UTC (the fixed clock).
    const NOW: i64 = 1_796_000_000;
    let env = TestEnv::new();
    let commits = [
        ("saturday afternoon", NOW - 3_200 - 86_400 - 11 * 3_600),
        ("sunday morning", NOW - 3_200 - 15 * 3_600),
        ("sunday afternoon", NOW - 3_200 - 11 * 3_600),
        ("this morning", NOW - 600),
    ];
    for (i, (what, at)) in commits.iter().enumerate() {
        env.write("w.txt", format!("{i}\n"));
        env.git(&["add", "w.txt"]);
        dated_commit(&env, "T", what, &format!("{at} +0000"));
    }
    let since = |when: &str| {
        let r = env.run(&["git", "log", "--since", when]);
        assert_eq!(r.code, 0, "{when}: {}", r.stderr);
        subjects(&r)
    };
    // Sunday 12:00 (git, before noon, goes back to Saturday's).
    for when in ["yesterday noon", "noon yesterday", "noon"] {
        assert_eq!(since(when), ["this morning", "sunday afternoon"], "{when}");
    }
    assert_eq!(since("yesterday midnight").len(), 3);
    assert_eq!(since("this week"), ["this morning"]);
    assert_eq!(since("this month").len(), 4);
    let r = env.run(&["git", "log", "--until", "yesterday noon"]);
    assert_eq!(subjects(&r), ["sunday morning", "saturday afternoon"]);
}

#[test]
fn git_log_patch_answers_each_commit_with_its_hunks_in_one_call() {
    let env = history();
    // -p: each commit's patch is its last value, git diff's files and hunks.
    let r = env.run(&["git", "log", "-p", "-n", "2", "h.txt"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.json["fields"],
        serde_json::json!(["sha", "author", "date", "subject", "patch"])
    );
    assert_eq!(subjects(&r), ["Alice 5", "Bob 2"], "{}", r.stdout);
    // A file shown in hunks leaves its counts out: the hunks hold the lines.
    let first = serde_json::json!([{"path": "h.txt", "hunks": ["@@ -1 +1 @@\n-1\n+2"]}]);
    assert_eq!(r.json["items"][0][4], first, "{}", r.stdout);
    assert_eq!(r.json["more"], "--skip 2");
    // One budget of hunk lines for the page: A (251 lines) and B (251) do not
    // both fit, C (451) does not fit alone.
    for (name, n) in [("a.txt", 250), ("b.txt", 250), ("c.txt", 450)] {
        env.write(name, "x\n".repeat(n));
        env.git(&["add", name]);
        env.git(&["commit", "-qm", name]);
    }
    let c = env
        .git(&["rev-parse", "--short", "HEAD"])
        .trim()
        .to_string();
    let big = env.run(&["git", "log", "-p", "-n", "3"]);
    assert_eq!(big.code, 3, "{}", big.stdout);
    assert_eq!(big.json["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(big.json["items"][0][4][0]["mode"], "summary");
    assert_eq!(big.json["items"][0][4][0]["added"], 450);
    let next = serde_json::json!([
        format!("aitools git diff --ref '{c}^!' --max-lines 451 -- c.txt"),
        "aitools git log -p --limit 3 --skip 1"
    ]);
    assert_eq!(big.json["next_commands"], next, "{}", big.stdout);
    let whole = env.run_line(next[0].as_str().unwrap_or(""));
    assert_eq!(whole.code, 0, "{}", whole.stdout);
    let on = env.run_line(next[1].as_str().unwrap_or(""));
    assert_eq!(on.code, 3, "{}", on.stdout);
    assert_eq!(subjects(&on), ["b.txt"], "{}", on.stdout);
    assert_eq!(
        on.json["next_commands"],
        serde_json::json!(["aitools git log -p --limit 3 --skip 2"])
    );
    let rest = env.run(&["git", "log", "-p", "--limit", "1", "--skip", "2"]);
    assert_eq!(subjects(&rest), ["a.txt"], "{}", rest.stdout);
    assert_eq!(
        rest.json["items"][0][4][0]["hunks"][0]
            .as_str()
            .map(|h| h.lines().count()),
        Some(251)
    );
}

#[test]
fn git_log_format_spellings_are_taken_as_fields() {
    let env = history();
    // --format words that are fields are taken as --fields: only those.
    let f = took(
        &env,
        &["git", "log", "--format=%h %s", "-n", "1"],
        serde_json::json!({"--format=%h %s": "--fields sha,subject", "-n": "--limit"}),
    );
    assert_eq!(subjects(&f), ["Alice 5"]);
    assert_eq!(f.json["fields"], serde_json::json!(["sha", "subject"]));
    took(
        &env,
        &["git", "log", "--pretty=oneline", "--limit", "1"],
        serde_json::json!({"--pretty=oneline": "--fields sha,subject"}),
    );
    let one = took(
        &env,
        &["git", "log", "--oneline", "--limit", "2"],
        serde_json::json!({"--oneline": "--fields sha,subject"}),
    );
    assert_eq!(
        one.json["fields"],
        serde_json::json!(["sha", "subject"]),
        "{}",
        one.stdout
    );
    // %H and %aI are the long forms: --full.
    let three = took(
        &env,
        &["git", "log", "--format", "%H%x09%an%x09%aI", "--limit", "1"],
        serde_json::json!({"--format %H%x09%an%x09%aI": "--fields sha,author,date --full"}),
    );
    let full = env.git(&["log", "-1", "--format=%H\t%an\t%aI"]);
    let row: Vec<&str> = three.json["items"][0]
        .as_array()
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    assert_eq!(row.join("\t"), full.trim(), "{}", three.stdout);
    // A word no field has: the call without it (other habits taken), which runs.
    let body = repaired(
        &env,
        &["git", "log", "--format=%H %b", "-n", "1"],
        "aitools git log --limit 1",
    );
    assert_eq!(subjects(&body), ["Alice 5"]);
    let r = env.run(&["git", "log", "--format=%ce"]);
    assert!(r.stderr.contains("%ce"), "{}", r.stderr);
    // The author's email only when asked (%ae): a field of its own.
    let mail = took(
        &env,
        &["git", "log", "--format=%an <%ae>", "-n", "1"],
        serde_json::json!({"--format=%an <%ae>": "--fields author,email", "-n": "--limit"}),
    );
    assert_eq!(
        mail.json["fields"],
        serde_json::json!(["sha", "author", "email"])
    );
    assert_eq!(
        log_items(&mail.json)[0]["email"],
        "alice@example.com",
        "{}",
        mail.stdout
    );
}

#[test]
fn git_show_stat_and_jq_array_paths_are_answered() {
    let env = history();
    let s = env.run(&["git", "show", "--stat", "HEAD"]);
    assert_eq!(s.code, 0, "{}{}", s.stdout, s.stderr);
    assert_eq!(s.json["files"][0]["path"], "h.txt");
    // Every file listed, and the revision the caller typed: neither repeated.
    assert!(s.json.get("total_files").is_none(), "{}", s.stdout);
    assert!(s.json.get("rev").is_none(), "{}", s.stdout);
    assert!(s.json.get("diff").is_none(), "{}", s.stdout);
    repaired(
        &env,
        &["git", "show", "--stat", "HEAD:h.txt"],
        "aitools git show HEAD --stat",
    );
    // jq's path through an array's elements: answered as json select, in one call.
    let each = took(
        &env,
        &["json", "get", "c.json", ".a.b[]"],
        serde_json::json!({"json get": "json select /a/b"}),
    );
    assert_eq!(each.json["command"], "json select");
    assert_eq!(each.json["items"][0], serde_json::json!({"c": 1}));
    // With an option json select has no answer for: refused, naming the call.
    let picked = repaired(
        &env,
        &["json", "get", "c.json", ".a.b[].c", "--raw"],
        "aitools json select c.json /a/b --pick /c",
    );
    assert_eq!(picked.json["items"][0], 1, "{}", picked.stdout);
}

/// `json get F '.users[].name'` (jq's path through one array, an optional
/// member picked) is json select's question: answered in one call with json
/// select's answer, values as jq prints them (was: a refusal whose repair was
/// the select call, two calls). Masked as json select masks; a cut page's
/// continuation is the json select call.
#[test]
fn json_get_of_a_jq_array_path_is_answered_by_json_select() {
    let env = TestEnv::new();
    let users: Vec<String> = (0..60)
        .map(|i| format!(r#"{{"id":{i},"name":"u{i}","tags":{{"t":[{i}]}}}}"#))
        .collect();
    env.write(
        "u.json",
        format!(
            r#"{{"cfg":{{"list":[{{"k":"x"}},{{"k":2}},{{}}]}},"keys":[{{"token":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}],"users":[{}]}}"#,
            users.join(",")
        ),
    );
    let run = |jq: &str, said: &str| {
        took(
            &env,
            &["json", "get", "u.json", jq],
            serde_json::json!({ "json get": said }),
        )
    };
    // jq -c '[.cfg.list[].k]': a missing member is null, as jq prints it.
    let k = run(".cfg.list[].k", "json select /cfg/list --pick /k");
    assert_eq!(k.code, 0, "{}", k.stdout);
    assert_eq!(k.json["command"], "json select");
    assert_eq!(k.json["items"], serde_json::json!(["x", 2, null]));
    let deep = run(".cfg.list[]", "json select /cfg/list");
    assert_eq!(
        deep.json["items"],
        serde_json::json!([{"k": "x"}, {"k": 2}, {}])
    );
    // 60 names: json select's page of 50, continued by the json select call.
    let names = run(".users[].name", "json select /users --pick /name");
    assert_eq!(names.code, 3, "{}", names.stdout);
    let want: Vec<String> = (0..50).map(|i| format!("u{i}")).collect();
    assert_eq!(names.json["items"], serde_json::json!(want));
    let rest = names.json["next_commands"][0].as_str().unwrap_or("");
    assert_eq!(
        rest,
        "aitools json select u.json /users --pick /name --limit 60"
    );
    assert_eq!(env.run_line(rest).json["items"][59], "u59");
    let nested = run(".users[].tags.t", "json select /users --pick /tags/t");
    assert_eq!(nested.json["items"][2], serde_json::json!([2]));
    // After `--` every word is positional: the pick goes before it.
    let dashed = env.run(&["json", "get", "--", "u.json", ".cfg.list[].k"]);
    assert_eq!(dashed.json["items"], k.json["items"], "{}", dashed.stdout);
    // A secret under its key is masked as json select masks it.
    let secret = run(".keys[].token", "json select /keys --pick /token");
    assert!(!secret.stdout.contains("ghp_abcdef"), "{}", secret.stdout);
    assert_eq!(secret.json["redactions"], 1, "{}", secret.stdout);
    // A plain jq path is still json get's.
    let one = env.run(&["json", "get", "u.json", ".users[1].name"]);
    assert_eq!(one.json["command"], "json get");
    assert_eq!(one.json["value"], "u1");
}

/// `git log -p` of a merge: its patch is `[]`, as `git log -p` shows none for
/// a merge (the combined diff would repeat its parents' changes), and a secret
/// its parents added is masked in their patches.
#[test]
fn git_log_patch_of_a_merge_is_empty_and_its_parents_are_masked() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    env.git(&["add", "a.txt"]);
    env.git(&["commit", "-qm", "base"]);
    env.git(&["checkout", "-qb", "side"]);
    env.write("k.py", "aws = \"AKIAQWERTYUIOPASDFGH\"\n");
    env.git(&["add", "k.py"]);
    env.git(&["commit", "-qm", "side key"]);
    env.git(&["checkout", "-q", "-"]);
    env.write("b.txt", "b\n");
    env.git(&["add", "b.txt"]);
    env.git(&["commit", "-qm", "main b"]);
    env.git(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
    let r = env.run(&["git", "log", "-p", "-n", "3"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("AKIAQWERTYUIOPASDFGH"), "{}", r.stdout);
    let items = r.json["items"].as_array().cloned().unwrap_or_default();
    assert_eq!(items.len(), 3, "{}", r.stdout);
    assert_eq!(
        items[0][4],
        serde_json::json!([]),
        "the merge: {}",
        r.stdout
    );
    let paths: Vec<&str> = items[1..]
        .iter()
        .filter_map(|i| i[4][0]["path"].as_str())
        .collect();
    assert_eq!(paths.len(), 2, "{}", r.stdout);
    assert!(
        paths.contains(&"k.py") && paths.contains(&"b.txt"),
        "{paths:?}"
    );
}
