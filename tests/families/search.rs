//! The search family, black-box: `search` against ripgrep (counts, file lists),
//! the scan against git (`git ls-files`, `git check-ignore`) on a tree that
//! exercises every gitignore rule, determinism across thread counts, limits and
//! continuation, and `find`, `overview`, `code outline/defs/refs`.

use crate::support::{Run, TestEnv};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn tool(dir: &Path, prog: &str, args: &[&str], home: Option<&Path>) -> String {
    let mut c = Command::new(prog);
    c.args(args).current_dir(dir);
    if let Some(h) = home {
        // GIT_CONFIG_GLOBAL would replace the fake home's .gitconfig (for git and us).
        c.env("HOME", h)
            .env("XDG_CONFIG_HOME", h.join(".config"))
            .env_remove("GIT_CONFIG_GLOBAL");
    }
    let out = c.output().unwrap_or_else(|e| panic!("{prog}: {e}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.strip_prefix("./").unwrap_or(l).to_string())
        .collect();
    v.sort();
    v
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn find_files(env: &TestEnv, extra: &[&str], home: &Path) -> Vec<String> {
    let mut args = vec!["find", "--type", "file", "--limit", "100000"];
    args.extend_from_slice(extra);
    let out = env
        .command(&args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove("GIT_CONFIG_GLOBAL")
        .output()
        .expect("spawn");
    crate::support::sorted_item_paths(&crate::support::parse(out).json)
}

/// A tree for every gitignore rule: nested files, negation, anchoring,
/// directory-only patterns, `**`, escapes, .git/info/exclude, core.excludesFile.
fn ignore_fixture() -> (TestEnv, tempfile::TempDir) {
    let env = TestEnv::new();
    let home = tempfile::tempdir().expect("home");
    env.write(
        ".gitignore",
        "# comment\n*.log\n!keep.log\n/anchored.txt\nbuild/\ndoc/*.tmp\n**/deep/*.gen\na/**/z.txt\ncache/\n\\#hash\n\\!bang\ntrail  \nspace\\ \n*.[oa]\n!lib.a\nnested/\n!nested/\n",
    );
    env.write(
        "sub/.gitignore",
        "*.txt\n!important.txt\n/local_only\nonlydir/\n",
    );
    env.write(".git/info/exclude", "excluded_by_info\n");
    let excl = home.path().join("global-excludes");
    std::fs::write(&excl, "*.globalign\n").expect("write");
    std::fs::write(
        home.path().join(".gitconfig"),
        format!("[core]\n\texcludesFile = {}\n", excl.display()),
    )
    .expect("write");
    for f in [
        "x.log",
        "keep.log",
        "sub/keep.log",
        "sub/x.log",
        "anchored.txt",
        "sub/anchored.txt",
        "build/out.rs",
        "build/keep.log",
        "src/build/gen.rs",
        "doc/a.tmp",
        "doc/sub/a.tmp",
        "p/deep/q.gen",
        "deep/r.gen",
        "p/deep/x/q.gen",
        "a/z.txt",
        "a/b/c/z.txt",
        "cache/c.rs",
        "src/cache",
        "#hash",
        "!bang",
        "trail",
        "space ",
        "m.o",
        "m.a",
        "lib.a",
        "sub/a.txt",
        "sub/important.txt",
        "sub/local_only",
        "sub/deeper/local_only",
        "sub/deeper/b.txt",
        "sub/onlydir/f.rs",
        "sub/onlydir2/f.rs",
        "excluded_by_info",
        "d/excluded_by_info",
        "z.globalign",
        "src/main.rs",
        ".hidden/h.rs",
        ".env",
        "nested/n.rs",
        "README.md",
    ] {
        env.write(f, format!("content of {f}\n"));
    }
    (env, home)
}

#[test]
fn scan_matches_git_on_every_gitignore_rule() {
    let (env, home) = ignore_fixture();
    let git_listed = sorted_lines(&tool(
        env.root(),
        "git",
        &["ls-files", "--others", "--exclude-standard"],
        Some(home.path()),
    ));
    assert!(git_listed.contains(&"keep.log".to_string()));
    assert!(!git_listed.contains(&"z.globalign".to_string()));
    let ours = find_files(&env, &[], home.path());
    assert_eq!(ours, git_listed);

    // The same set from git check-ignore, path by path.
    let all = find_files(&env, &["--no-ignore"], home.path());
    let mut c = Command::new("git");
    c.args(["check-ignore", "--stdin", "--no-index"])
        .current_dir(env.root())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join(".config"))
        .env_remove("GIT_CONFIG_GLOBAL")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = c.spawn().expect("git check-ignore");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        for p in &all {
            writeln!(stdin, "{p}").expect("write");
        }
    }
    let out = child.wait_with_output().expect("wait");
    let ignored = sorted_lines(&String::from_utf8_lossy(&out.stdout));
    assert!(!ignored.is_empty());
    let expected: Vec<String> = all
        .iter()
        .filter(|p| !ignored.contains(p))
        .cloned()
        .collect();
    assert_eq!(ours, expected);
    assert!(
        all.contains(&"x.log".to_string()),
        "--no-ignore lists ignored files"
    );
    assert!(
        !all.iter().any(|p| p.starts_with(".git/")),
        ".git is always skipped"
    );

    // A repository-level core.excludesFile wins over the user's, as in git.
    let local = home.path().join("local-excludes");
    std::fs::write(&local, "*.md\n").expect("write");
    tool(
        env.root(),
        "git",
        &["config", "core.excludesFile", local.to_str().unwrap_or("")],
        None,
    );
    let git_listed = sorted_lines(&tool(
        env.root(),
        "git",
        &["ls-files", "--others", "--exclude-standard"],
        Some(home.path()),
    ));
    assert!(git_listed.contains(&"z.globalign".to_string()));
    assert_eq!(find_files(&env, &[], home.path()), git_listed);
}

/// `GIT_CONFIG_GLOBAL` replaces the user's config for git; the scan follows it:
/// its `core.excludesFile` applies, the home's does not, and without one git's
/// default `$XDG_CONFIG_HOME/git/ignore` does.
#[test]
fn scan_follows_git_config_global() {
    let (env, home) = ignore_fixture();
    env.write("y.otherign", "y\n");
    let other = home.path().join("other-excludes");
    std::fs::write(&other, "*.otherign\n").expect("write");
    let global = home.path().join("global-config");
    std::fs::write(
        &global,
        format!("[core]\n\texcludesFile = {}\n", other.display()),
    )
    .expect("write");
    let xdg_ignore = home.path().join(".config/git/ignore");
    std::fs::create_dir_all(xdg_ignore.parent().expect("parent")).expect("mkdir");
    std::fs::write(&xdg_ignore, "README.md\n").expect("write");
    let listed = |config: &Path| {
        let out = Command::new("git")
            .args(["ls-files", "--others", "--exclude-standard"])
            .current_dir(env.root())
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"))
            .env("GIT_CONFIG_GLOBAL", config)
            .output()
            .expect("git");
        let git = sorted_lines(&String::from_utf8_lossy(&out.stdout));
        let out = env
            .command(&["find", "--type", "file", "--limit", "100000"])
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"))
            .env("GIT_CONFIG_GLOBAL", config)
            .output()
            .expect("spawn");
        let r = crate::support::parse(out);
        let ours = crate::support::sorted_item_paths(&r.json);
        (git, ours)
    };
    let (git, ours) = listed(&global);
    assert!(
        git.contains(&"z.globalign".to_string()),
        "home config unread"
    );
    assert!(!git.contains(&"y.otherign".to_string()));
    assert_eq!(ours, git);
    let (git, ours) = listed(Path::new("/dev/null"));
    assert!(git.contains(&"y.otherign".to_string()));
    assert!(
        !git.contains(&"README.md".to_string()),
        "XDG default applies"
    );
    assert_eq!(ours, git);
}

#[test]
fn builtin_excludes_apply_only_outside_git() {
    let dir = tempfile::tempdir().expect("tmp");
    for f in [
        "node_modules/m/i.js",
        "src/a.js",
        "__pycache__/x.py",
        ".aitools-1.tmp",
        "venv/v.py",
    ] {
        let p = dir.path().join(f);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, "needle\n").expect("write");
    }
    let env = TestEnv::new();
    let r = env.run(&[
        "--root",
        dir.path().to_str().unwrap_or(""),
        "search",
        "needle",
        dir.path().to_str().unwrap_or(""),
        "--output",
        "files",
    ]);
    assert_eq!(r.json["ignore_source"], "builtin");
    assert_eq!(strs(&r.json["paths"]), vec!["src/a.js", "venv/v.py"]);
    let r = env.run(&[
        "--root",
        dir.path().to_str().unwrap_or(""),
        "search",
        "needle",
        dir.path().to_str().unwrap_or(""),
        "--output",
        "files",
        "--no-ignore",
    ]);
    assert_eq!(r.json["ignore_source"], "none");
    assert_eq!(
        strs(&r.json["paths"]),
        vec![
            "__pycache__/x.py",
            "node_modules/m/i.js",
            "src/a.js",
            "venv/v.py"
        ]
    );
    // Inside git, node_modules is searched unless .gitignore says otherwise.
    env.write("node_modules/m/i.js", "needle\n");
    env.write(".aitools-9.tmp", "needle\n");
    let r = env.run(&["search", "needle", "--output", "files"]);
    // Inside git the default, gitignore, goes without saying.
    assert!(r.json.get("ignore_source").is_none(), "{}", r.stdout);
    assert_eq!(strs(&r.json["paths"]), vec!["node_modules/m/i.js"]);
}

/// A tree for comparing with ripgrep: CRLF, Unicode, a binary file, an ignored
/// file, a hidden file, long lines.
fn rg_fixture() -> TestEnv {
    let env = TestEnv::new();
    env.write(".gitignore", "ignored/\n");
    env.write("ignored/x.txt", "ERR_TIMEOUT foo_1\n");
    env.write(".hidden/h.rs", "let foo_12 = ERR_TIMEOUT;\n");
    env.write("bin/blob.bin", b"ERR\x00ERR_TIMEOUT\n".as_slice());
    env.write(
        "crlf.txt",
        "ERR_TIMEOUT here\r\nfoo_99 and foo_100\r\nnothing\r\nerr_timeout lower\r\n",
    );
    env.write(
        "uni.md",
        "naïve café ERR_TIMEOUT\nΩmega foo_7x foo_7\nстраße Err_Timeout\n2024 12345 99999999\n",
    );
    let long = format!("{}ERR_TIMEOUT\n", "x".repeat(30000));
    env.write("long.txt", long);
    for i in 0..30 {
        let body: String = (0..50)
            .map(|j| match (i * 50 + j) % 7 {
                0 => format!("    log(\"ERR_TIMEOUT after {j}ms\");\n"),
                1 => format!("    let foo_{j} = compute(a.b);\n"),
                2 => "a+b (x) [y] $z ^w\n".to_string(),
                _ => format!("plain line {j}\n"),
            })
            .collect();
        env.write(&format!("src/d{}/f{i:02}.rs", i % 4), body);
    }
    env
}

fn rg_counts(env: &TestEnv, args: &[&str]) -> BTreeMap<String, u64> {
    let mut a = vec!["-c", "--hidden", "--glob=!.git"];
    a.extend_from_slice(args);
    tool(env.root(), "rg", &a, None)
        .lines()
        .filter_map(|l| {
            let (p, n) = l.rsplit_once(':')?;
            Some((p.trim_start_matches("./").to_string(), n.parse().ok()?))
        })
        .collect()
}

fn our_counts(env: &TestEnv, args: &[&str]) -> (BTreeMap<String, u64>, Run) {
    let mut a = vec!["search"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--output", "count", "--limit", "100000"]);
    let r = env.run(&a);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let m = r.json["counts"]
        .as_array()
        .expect("counts")
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap_or("").to_string(),
                c["count"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    (m, r)
}

#[test]
fn counts_equal_ripgrep() {
    let env = rg_fixture();
    let cases: &[(&[&str], &[&str])] = &[
        (&["ERR_TIMEOUT"], &["ERR_TIMEOUT"]),
        (&[r"\bfoo_[0-9]+\b"], &[r"\bfoo_[0-9]+\b"]),
        (&["--ignore-case", "err_timeout"], &["-i", "err_timeout"]),
        (&["[0-9]{4,}"], &["[0-9]{4,}"]),
        (&["--fixed", "a+b (x) [y] $z"], &["-F", "a+b (x) [y] $z"]),
        (&["--word", "foo_7"], &["-w", "foo_7"]),
        (&["--line-regexp", "plain line 3"], &["-x", "plain line 3"]),
        (&["--invert", "plain"], &["-v", "plain"]),
        (&["here$"], &["--crlf", "here$"]),
        (
            &["--pattern", "café", "--pattern", "foo_9+"],
            &["-e", "café", "-e", "foo_9+"],
        ),
    ];
    for (ours, theirs) in cases {
        let expected = rg_counts(&env, theirs);
        assert!(!expected.is_empty(), "{theirs:?} matches nothing");
        let (got, r) = our_counts(&env, ours);
        assert_eq!(got, expected, "{ours:?} vs rg {theirs:?}");
        assert_eq!(
            crate::support::total_matches(&r.json).as_u64(),
            Some(expected.values().sum::<u64>()),
            "{ours:?}"
        );
        assert_eq!(r.json["total"].as_u64(), Some(expected.len() as u64));
    }
    // File lists.
    let rg_files = sorted_lines(&tool(
        env.root(),
        "rg",
        &["-l", "--hidden", "--glob=!.git", "ERR_TIMEOUT"],
        None,
    ));
    let r = env.run(&[
        "search",
        "ERR_TIMEOUT",
        "--output",
        "files",
        "--limit",
        "1000",
    ]);
    assert_eq!(strs(&r.json["paths"]), rg_files);
    let rg_without = sorted_lines(&tool(
        env.root(),
        "rg",
        &[
            "--files-without-match",
            "--hidden",
            "--glob=!.git",
            "ERR_TIMEOUT",
        ],
        None,
    ));
    let r = env.run(&[
        "search",
        "ERR_TIMEOUT",
        "--output",
        "files-without-match",
        "--limit",
        "1000",
    ]);
    assert_eq!(strs(&r.json["paths"]), rg_without);
    let skipped = r.json["skipped"].as_array().expect("skipped");
    assert_eq!(skipped.len(), 1);
    // Files were found: the binary one is counted, not named (rg names none).
    assert!(skipped[0].get("examples").is_none(), "{}", r.stdout);
    assert_eq!(skipped[0]["reason"], "binary");
    assert_eq!(skipped[0]["count"], 1);
    // The file list of the scan is rg's.
    let rg_all = sorted_lines(&tool(
        env.root(),
        "rg",
        &["--files", "--hidden", "--glob=!.git"],
        None,
    ));
    let mut ours = find_files(&env, &[], env.root());
    ours.retain(|p| !p.ends_with(".gitignore"));
    let mut rg_all = rg_all;
    rg_all.retain(|p| !p.ends_with(".gitignore"));
    assert_eq!(ours, rg_all);
}

#[test]
fn glob_lang_size_filters() {
    let env = rg_fixture();
    let rg = sorted_lines(&tool(
        env.root(),
        "rg",
        &[
            "-l",
            "--hidden",
            "--glob=!.git",
            "-g",
            "*.rs",
            "-g",
            "!src/d1/**",
            "ERR_TIMEOUT",
        ],
        None,
    ));
    let r = env.run(&[
        "search",
        "ERR_TIMEOUT",
        "--glob",
        "*.rs",
        "--glob",
        "!src/d1/**",
        "--output",
        "files",
        "--limit",
        "100",
    ]);
    assert_eq!(strs(&r.json["paths"]), rg);
    let r = env.run(&[
        "search",
        "ERR_TIMEOUT",
        "--lang",
        "markdown",
        "--output",
        "files",
    ]);
    assert_eq!(strs(&r.json["paths"]), vec!["uni.md"]);
    let r = env.run(&[
        "search",
        "ERR_TIMEOUT",
        "--skip-larger-than",
        "10KiB",
        "--output",
        "files",
        "--limit",
        "100",
    ]);
    assert!(!strs(&r.json["paths"]).contains(&"long.txt".to_string()));
    assert!(
        r.json["skipped"]
            .as_array()
            .expect("skipped")
            .iter()
            .any(|s| s["examples"][0] == "long.txt" && s["reason"] == "too-large")
    );
    let bad = env.run(&["search", "x", "--lang", "klingon"]);
    assert_eq!(bad.error_code(), "argument.invalid");
    let bad = env.run(&["search", "x", "--glob", "a[b"]);
    assert_eq!(bad.error_code(), "argument.invalid");
}

#[test]
fn output_is_deterministic_across_threads() {
    let env = rg_fixture();
    let mut outs = Vec::new();
    for threads in ["1", "8", "8", "3"] {
        for args in [
            &["search", "foo_[0-9]+", "--output", "count", "--limit", "5"][..],
            &["search", "ERR_TIMEOUT", "--limit", "40"][..],
            &[
                "search",
                "foo_(?P<n>[0-9]+)",
                "--output",
                "matches",
                "--limit",
                "30",
            ][..],
            &["find", "--limit", "500"][..],
        ] {
            let out = env
                .command(args)
                .env("AITOOLS_THREADS", threads)
                .output()
                .expect("spawn");
            outs.push((args.join(" "), out.stdout));
        }
    }
    let first: BTreeMap<_, _> = outs.iter().take(4).cloned().collect();
    for (k, v) in &outs {
        assert_eq!(first.get(k), Some(v), "{k} differs between runs");
    }
}

#[test]
fn blocks_merge_and_continue_exactly() {
    let env = TestEnv::new();
    let body: String = (1..=40)
        .map(|i| {
            if [5, 8, 20, 21, 39].contains(&i) {
                format!("hit {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    env.write("a.txt", &body);
    env.write("b.txt", "hit b1\n");
    let r = env.run(&["search", "hit", "-C", "2"]);
    assert_eq!(r.code, 0);
    let ex = crate::support::expand_search(&r.json);
    let blocks = ex["blocks"].as_array().expect("blocks");
    // 5 and 8 with context 2 touch (3..7, 6..10) → one block; 20,21 → one; 39 → one.
    let shape: Vec<(u64, usize, Vec<u64>)> = blocks
        .iter()
        .map(|b| {
            (
                b["start_line"].as_u64().unwrap_or(0),
                b["lines"].as_array().map_or(0, |l| l.len()),
                b["match_lines"]
                    .as_array()
                    .expect("ml")
                    .iter()
                    .filter_map(Value::as_u64)
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (3, 8, vec![5, 8]),
            (18, 6, vec![20, 21]),
            (37, 4, vec![39]),
            (1, 1, vec![1])
        ]
    );
    assert_eq!(blocks[0]["lines"][2], "hit 5");
    assert_eq!(crate::support::total_matches(&r.json), 6);
    // Cut at an explicit 3: ok, and `more` returns the rest, 3 at a time.
    let cut = env.run(&["search", "hit", "--limit", "3", "--context", "0"]);
    assert_eq!(cut.code, 0);
    assert_eq!(cut.json["status"], "ok");
    assert!(cut.json.get("truncated").is_none(), "{}", cut.stdout);
    assert_eq!(crate::support::total_matches(&cut.json), 6);
    let shown: usize = crate::support::expand_search(&cut.json)["blocks"]
        .as_array()
        .expect("b")
        .iter()
        .map(|b| b["match_lines"].as_array().map_or(0, |m| m.len()))
        .sum();
    assert_eq!(shown, 3);
    let next = cut.json["more"].as_str().expect("more");
    assert_eq!(next, "--offset 3");
    let full = crate::support::run_more(
        &env,
        &["search", "hit", "--limit", "3", "--context", "0"],
        &cut,
    );
    assert_eq!(full.code, 0);
    let shown: usize = crate::support::expand_search(&full.json)["blocks"]
        .as_array()
        .expect("b")
        .iter()
        .map(|b| b["match_lines"].as_array().map_or(0, |m| m.len()))
        .sum();
    assert_eq!(shown, 3);
    // --before/--after override --context.
    let r = env.run(&["search", "hit 39", "--before", "1", "--after", "0"]);
    // Each line numbered: `N-` a context line, `N:` a selected one.
    assert_eq!(
        r.json["blocks"][0]["lines"],
        serde_json::json!(["38-line 38", "39:hit 39"])
    );
    // count mode limit.
    let r = env.run(&["search", "hit", "--output", "count", "--limit", "1"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.json["total"], 2);
    assert_eq!(r.json["counts"].as_array().map(|a| a.len()), Some(1));
}

#[test]
fn matches_carry_columns_groups_and_names() {
    let env = TestEnv::new();
    env.write("u.txt", "café x=1 y=\nzz x=22\n");
    let r = env.run(&["search", r"x=(?P<num>\d+)|y=(\d*)", "--output", "matches"]);
    let m = r.json["matches"].as_array().expect("matches");
    assert_eq!(m.len(), 3);
    assert_eq!(m[0]["line"], 1);
    assert_eq!(m[0]["col"], 6, "characters, not bytes");
    assert_eq!(m[0]["text"], "x=1");
    assert_eq!(m[0]["groups"], serde_json::json!(["1", null]));
    assert_eq!(m[0]["named"], serde_json::json!({"num": "1"}));
    assert_eq!(m[1]["groups"], serde_json::json!([null, ""]));
    assert_eq!(m[2]["line"], 2);
    assert_eq!(m[2]["col"], 4);
    assert!(m[0].get("pattern_index").is_none());
    let r = env.run(&[
        "search",
        "--pattern",
        "zz",
        "--pattern",
        "x=(\\d)",
        "--output",
        "matches",
    ]);
    let m = r.json["matches"].as_array().expect("matches");
    let idx: Vec<u64> = m
        .iter()
        .filter_map(|x| x["pattern_index"].as_u64())
        .collect();
    assert_eq!(idx, vec![1, 0, 1]);
    assert!(m[1].get("groups").is_none(), "{}", r.stdout);
    // --stdin: the pattern from standard input; the positional is then a path.
    let r = env.run_stdin(
        &["search", "--stdin", "u.txt", "--output", "count"],
        b"x=22\n",
    );
    assert_eq!(crate::support::total_matches(&r.json), 1);
    let r = env.run(&["search", "x", "--invert", "--output", "matches"]);
    assert_eq!(r.error_code(), "argument.invalid");
    // Multiline matches span lines.
    let r = env.run(&["search", "--multiline", r"y=\nzz", "--output", "matches"]);
    assert_eq!(crate::support::total_matches(&r.json), 1);
    assert_eq!(r.json["matches"][0]["line"], 1);
}

#[test]
fn bad_regex_is_a_syntax_error_with_a_repair() {
    let env = TestEnv::new();
    env.write("a.txt", "a(b\n");
    for pat in ["a(b", "(?<=a)b", r"(a)\1", "x{2,1}"] {
        let r = env.run(&["search", pat]);
        assert_eq!(r.code, 1);
        assert_eq!(r.error_code(), "input.syntax-error", "{pat}");
        let repair = r.json["error"]["repairs"][0]["command"]
            .as_str()
            .unwrap_or("");
        assert!(
            repair.starts_with("aitools search") && repair.ends_with(" --fixed"),
            "{repair}"
        );
    }
    // The repair is the same call with --fixed: paths and flags are kept.
    env.write("src/x.rs", "let v = add(1);\n");
    let r = env.run(&[
        "search", "add(", "src", "--output", "count", "--glob", "*.rs",
    ]);
    let repair = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap_or("");
    assert_eq!(
        repair,
        "aitools search 'add(' src --output count --glob '*.rs' --fixed"
    );
    let again = env.run(&[
        "search", "add(", "src", "--output", "count", "--glob", "*.rs", "--fixed",
    ]);
    assert_eq!(crate::support::total_matches(&again.json), 1);
    let fixed = env.run(&["search", "--fixed", "--pattern", "a(b", "--output", "count"]);
    assert_eq!(crate::support::total_matches(&fixed.json), 1);
    let nl = env.run(&["search", r"a\nb"]);
    assert_eq!(nl.error_code(), "input.syntax-error");
    assert!(
        nl.json["error"]["repairs"][0]["command"]
            .as_str()
            .unwrap_or("")
            .contains("--multiline")
    );
    let missing = env.run(&["search", "x", "nope/"]);
    assert_eq!(missing.error_code(), "input.not-found");
}

#[test]
fn find_lists_sorts_and_nests() {
    let env = TestEnv::new();
    env.write("src/a.rs", "12345");
    env.write("src/deep/b.rs", "1");
    env.write("src/deep/c.txt", "");
    env.write("top.md", "123");
    std::fs::create_dir_all(env.path("emptydir")).expect("mkdir");
    // ls -p: a directory's path ends in /.
    let r = env.run(&["find", "--depth", "1"]);
    assert_eq!(
        r.json["items"],
        serde_json::json!(["emptydir/", "src/", "top.md"])
    );
    let r = env.run(&["find", "*.rs"]);
    assert_eq!(
        r.json["items"],
        serde_json::json!(["src/a.rs", "src/deep/b.rs"])
    );
    // kind, size, mode and mtime are ls -l's: with --long (issue 32).
    let long = env.run(&["find", "*.rs", "--long"]);
    let items = crate::support::find_items(&long.json);
    assert_eq!(items[0]["kind"], "file", "{}", long.stdout);
    assert_eq!(items[0]["size"], 5);
    assert_eq!(items[0]["mode"], "0644", "{}", long.stdout);
    assert!(items[0]["mtime"].is_string(), "{}", long.stdout);
    let by_time = env.run(&["find", "*.rs", "--sort", "mtime"]);
    let items = crate::support::find_items(&by_time.json);
    assert!(items[0]["mtime"].is_string(), "{}", by_time.stdout);
    assert!(items[0].get("mode").is_none());
    let r = env.run(&["find", "src/deep", "--limit", "1"]);
    assert_eq!(
        r.json["total"], 3,
        "with / the pattern matches the relative path"
    );
    let r = env.run(&["find", "--empty"]);
    assert_eq!(
        r.json["items"],
        serde_json::json!(["emptydir/", "src/deep/c.txt"])
    );
    let r = env.run(&["find", "--type", "file", "--sort", "size"]);
    assert_eq!(r.json["items"][0][0], "src/a.rs");
    let r = env.run(&["find", "--type", "dir", "--sizes"]);
    let src = crate::support::find_items(&r.json)
        .into_iter()
        .find(|i| i["path"] == "src")
        .unwrap_or_default();
    assert_eq!(src["size"], 6);
    let r = env.run(&["find", "--output", "tree", "--limit", "3"]);
    assert_eq!(r.code, 3);
    assert_eq!(r.json["total"], 7);
    let tree = &r.json["tree"];
    assert_eq!(tree["name"], ".");
    let omitted = |n: &Value| -> u64 {
        fn walk(n: &Value) -> u64 {
            n["omitted"].as_u64().unwrap_or(0)
                + n["children"]
                    .as_array()
                    .map_or(0, |c| c.iter().map(walk).sum())
        }
        walk(n)
    };
    assert_eq!(omitted(tree), 4);
    let next = r.json["next_commands"][0].as_str().expect("next");
    assert_eq!(next, "aitools find --output tree --limit 7");
}

#[test]
fn overview_reads_git_without_git() {
    let env = TestEnv::new();
    env.write("Cargo.toml", "[package]\n");
    env.write("src/main.rs", "fn main() {}\n// two\n");
    env.write("tracked_then_deleted.py", "x = 1\n");
    tool(env.root(), "git", &["add", "-A"], None);
    tool(
        env.root(),
        "git",
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "init",
        ],
        None,
    );
    std::fs::remove_file(env.path("tracked_then_deleted.py")).expect("rm");
    env.write("new.py", "print(1)\n");
    let r = env.run(&["overview"]);
    let head = tool(env.root(), "git", &["rev-parse", "HEAD"], None);
    let branch = tool(env.root(), "git", &["branch", "--show-current"], None);
    assert_eq!(r.json["git"]["head"], head.trim());
    assert_eq!(r.json["git"]["branch"], branch.trim());
    assert_eq!(r.json["git"]["untracked"], 1);
    assert_eq!(r.json["git"]["deleted"], 1);
    assert_eq!(r.json["languages"][0]["lang"], "rust");
    assert_eq!(r.json["languages"][0]["lines"], 2);
    assert_eq!(strs(&r.json["build_files"]), vec!["Cargo.toml"]);
    let names: Vec<&str> = r.json["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(
        names,
        vec![".git", "Cargo.toml", "new.py", "src"]
            .into_iter()
            .filter(|n| *n != ".git")
            .collect::<Vec<_>>()
    );
    assert_eq!(r.json["path"], "");
}

/// Issue 12: a language with many files (or one large file) is counted from a
/// sample and says so; a small one stays exact.
#[test]
fn overview_estimates_lines_of_large_languages() {
    let env = TestEnv::new();
    // 200 Go files of 3 to 7 lines, each line 11 bytes: every byte is known.
    let mut lines = 0u64;
    let mut bytes = 0u64;
    for i in 0..200u64 {
        let n = 3 + i % 5;
        env.write(&format!("g/f{i:03}.go"), "// go line\n".repeat(n as usize));
        lines += n;
        bytes += n * 11;
    }
    env.write("a.py", "x = 1\ny = 2\n");
    // One JSON file over the 1 MiB read cap: scaled from its prefix.
    env.write("big.json", "[1,2,3,4]\n".repeat(150_000));
    let r = env.run(&["overview"]);
    let lang = |name: &str| {
        r.json["languages"]
            .as_array()
            .expect("languages")
            .iter()
            .find(|l| l["lang"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name}: {}", r.stdout))
    };
    let go = lang("go");
    assert_eq!(go["files"], 200);
    assert_eq!(go["estimated"], true, "{go}");
    let got = go["bytes"].as_u64().expect("bytes");
    assert!(got.abs_diff(bytes) * 10 <= bytes, "{got} vs {bytes}");
    let got = go["lines"].as_u64().expect("lines");
    assert!(got.abs_diff(lines) * 10 <= lines, "{got} vs {lines}");
    let py = lang("python");
    assert_eq!(py["estimated"], false);
    assert_eq!(
        (py["lines"].as_u64(), py["bytes"].as_u64()),
        (Some(2), Some(12))
    );
    let json = lang("json");
    assert_eq!(json["estimated"], true);
    let got = json["lines"].as_u64().expect("lines");
    assert!(got.abs_diff(150_000) <= 150, "{got}");
    assert_eq!(json["bytes"], 1_500_000);
}

#[test]
fn code_outline_defs_refs() {
    let env = TestEnv::new();
    env.write(
        "src/lib.rs",
        "pub struct Parser {\n    pos: usize,\n}\n\nimpl Parser {\n    pub fn parse(&self) -> u32 {\n        helper(1)\n    }\n}\n\nfn helper(x: u32) -> u32 {\n    x\n}\n",
    );
    env.write(
        "tool.py",
        "def helper():\n    return 2\n\nclass Parser:\n    pass\n",
    );
    env.write("a.lisp", "(defun helper-fn (x)\n  (helper x))\n");
    env.write("notes.md", "# Title\n\nhelper text\n\n## Section\nmore\n");
    let r = env.run(&["code", "outline", "src/lib.rs"]);
    assert_eq!(r.json["lang"], "rust");
    let syms: Vec<(String, String, u64, u64)> = r.json["symbols"]
        .as_array()
        .expect("symbols")
        .iter()
        .map(|s| {
            (
                s["kind"].as_str().unwrap_or("").to_string(),
                s["name"].as_str().unwrap_or("").to_string(),
                s["line"].as_u64().unwrap_or(0),
                s["end_line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        syms,
        vec![
            ("struct".into(), "Parser".into(), 1, 3),
            ("impl".into(), "Parser".into(), 5, 9),
            // A fn in an impl is a method (the Rust grammar's tree).
            ("method".into(), "parse".into(), 6, 8),
            ("function".into(), "helper".into(), 11, 13),
        ]
    );
    let r = env.run(&["code", "outline", "notes.md"]);
    assert_eq!(r.json["symbols"][0]["end_line"], 6);
    let r = env.run(&["code", "defs", "helper"]);
    let defs: Vec<(String, u64)> = r.json["defs"]
        .as_array()
        .expect("defs")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        defs,
        vec![("src/lib.rs".to_string(), 11), ("tool.py".to_string(), 1)]
    );
    let r = env.run(&["code", "defs", "Parser", "--kind", "class"]);
    assert_eq!(r.json["total"], 1);
    let r = env.run(&["code", "defs", "help", "--prefix"]);
    assert_eq!(r.json["total"], 3);
    let r = env.run(&["code", "refs", "helper"]);
    let refs: Vec<(String, u64, String)> = r.json["refs"]
        .as_array()
        .expect("refs")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["kind"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    // `helper-fn` in Lisp is another identifier; `(helper x)` is a mention.
    assert_eq!(
        refs,
        vec![
            ("a.lisp".to_string(), 2, "other".to_string()),
            ("notes.md".to_string(), 3, "other".to_string()),
            ("src/lib.rs".to_string(), 7, "call".to_string()),
            ("src/lib.rs".to_string(), 11, "definition".to_string()),
            ("tool.py".to_string(), 1, "definition".to_string()),
        ]
    );
    let r = env.run(&["code", "refs", "helper", "--limit", "2"]);
    assert_eq!(r.code, 3);
    assert_eq!(
        r.json["next_commands"][0],
        "aitools code refs helper --limit 5"
    );
    env.write("data.json", "{}");
    let r = env.run(&["code", "outline", "data.json"]);
    assert_eq!(r.error_code(), "input.unsupported-language");
}

/// A path that is not UTF-8 cannot be named by any argument nor shown intact:
/// every scan passes over it and says so (`skipped`, reason `non-utf8-name`)
/// instead of showing a mangled name or failing the whole call.
#[test]
fn scans_pass_over_non_utf8_names_and_say_so() {
    use std::os::unix::ffi::OsStrExt;
    let env = TestEnv::new();
    env.write("b.txt", "hello\n");
    let odd = env.root().join(std::ffi::OsStr::from_bytes(b"a\xff.txt"));
    std::fs::write(&odd, "hello\n").expect("write");
    let odd_dir = env.root().join(std::ffi::OsStr::from_bytes(b"d\xfe"));
    std::fs::create_dir(&odd_dir).expect("mkdir");
    std::fs::write(odd_dir.join("c.txt"), "hello\n").expect("write");

    let s = env.run(&["search", "hello", "--output", "count"]);
    assert_eq!(s.code, 0, "{}", s.stderr);
    assert_eq!(crate::support::total_matches(&s.json), 1);
    let reasons: Vec<(&str, u64)> = s.json["skipped"]
        .as_array()
        .expect("skipped")
        .iter()
        .map(|k| {
            (
                k["reason"].as_str().unwrap_or(""),
                k["count"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(reasons, vec![("non-utf8-name", 2)]);

    let f = env.run(&["find", "*"]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.json["items"], serde_json::json!(["b.txt"]));
    assert_eq!(f.json["skipped"][0]["count"], 3);
    // Without such a path, find's answer has no skipped field at all.
    let plain = env.run(&["find", "b*"]);
    assert!(plain.json.get("skipped").is_none(), "{}", plain.stdout);

    // replace over the workspace edits what it can name and leaves the rest.
    let r = env.run(&["replace", "hello", "bye", "--expect-count", "1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(env.path("b.txt")).expect("read"),
        "bye\n"
    );
    assert_eq!(std::fs::read_to_string(&odd).expect("read"), "hello\n");
    for args in [&["overview"][..], &["code", "refs", "hello"][..]] {
        let o = env.run(args);
        assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
    }
}

/// `find --sizes` totals every file below a directory whatever `--depth` lists
/// (du -d1 as an agent uses it): the same sizes with and without --depth.
#[test]
fn find_sizes_count_below_the_listed_depth() {
    let env = TestEnv::new();
    env.write("src/a/b/n.txt", "x".repeat(1000));
    env.write("src/top.txt", "12345");
    env.write("doc/readme", "abc");
    let sizes = |extra: &[&str]| -> BTreeMap<String, u64> {
        let mut args = vec!["find", "--sizes", "--type", "dir"];
        args.extend_from_slice(extra);
        let r = env.run(&args);
        crate::support::find_items(&r.json)
            .iter()
            .map(|i| {
                (
                    i["path"].as_str().unwrap_or("").to_string(),
                    i["size"].as_u64().unwrap_or(0),
                )
            })
            .collect()
    };
    let shallow = sizes(&["--depth", "1"]);
    assert_eq!(shallow.len(), 2, "{shallow:?}");
    assert_eq!(shallow["src"], 1005);
    assert_eq!(shallow["doc"], 3);
    let deep = sizes(&[]);
    assert_eq!(deep["src"], shallow["src"]);
    assert_eq!(deep["src/a/b"], 1000);
}

/// A binary file the scan finds stops at its NUL (ripgrep prints nothing for it);
/// one named on the command line is searched whole, and its count is ripgrep's.
#[test]
fn a_named_binary_file_is_searched_whole_like_ripgrep() {
    let env = TestEnv::new();
    let mut body = b"needle\n".to_vec();
    body.extend_from_slice(b"x\nx\nx\n\x00\nneedle\nneedle again\n");
    env.write("late.bin", &body);
    let rg = tool(env.root(), "rg", &["-c", "needle", "late.bin"], None);
    let named = env.run(&["search", "needle", "late.bin", "--output", "count"]);
    assert_eq!(
        crate::support::total_matches(&named.json).to_string(),
        rg.trim()
    );
    assert_eq!(crate::support::total_matches(&named.json), 3);
    let scanned = env.run(&["search", "needle", "--output", "count"]);
    assert_eq!(crate::support::total_matches(&scanned.json), 0);
    assert_eq!(scanned.json["skipped"][0]["reason"], "binary");
}

/// A match far into a line over the cap is shown: the block's line is a window
/// holding the match, and cut_lines says at which column it starts (the match's
/// column from --output matches agrees).
#[test]
fn a_match_deep_in_a_long_line_is_in_the_window() {
    let env = TestEnv::new();
    env.write(
        "long.txt",
        format!("{}NEEDLE tail\nshort\n", "é".repeat(50_000)),
    );
    let b = env.run(&["search", "NEEDLE", "long.txt"]);
    let b = crate::support::expand_search(&b.json);
    let block = &b["blocks"][0];
    let line = block["lines"][0].as_str().expect("line");
    let at = line.find("NEEDLE").expect("match shown");
    let col = block["cut_lines"][0]["col"].as_u64().expect("col");
    let m = env.run(&["search", "NEEDLE", "long.txt", "--output", "matches"]);
    let shown_col = line[..at].chars().count() as u64 + col;
    assert_eq!(
        shown_col,
        m.json["matches"][0]["col"].as_u64().expect("col")
    );
    assert_eq!(shown_col, 50_001);
    let short = env.run(&["search", "short", "long.txt", "-C", "2"]);
    assert!(
        short.json["blocks"][0].get("cut_lines").is_some(),
        "the long context line is marked"
    );
}

/// --multiline counts are ripgrep's `-U -c`: a pattern that can match a line end
/// counts matches (one spanning lines counts once); a line-bound one counts lines.
#[test]
fn multiline_counts_equal_ripgrep() {
    let env = TestEnv::new();
    env.write("m.txt", "a\n\nb\n\n\nc\n\n");
    env.write("g.py", "class G:\n    \"\"\"doc\"\"\"\n");
    env.write("t.txt", "a a a\nb\na\n");
    for file in ["m.txt", "g.py", "t.txt"] {
        for pat in [r"\n\n", r#"class G:\n\s+""""#, "a", r"\n", r"a\n"] {
            let rg = tool(env.root(), "rg", &["-U", "-c", pat, file], None);
            let rg: u64 = rg.trim().parse().unwrap_or(0);
            let ours = env.run(&["search", pat, file, "--multiline", "--output", "count"]);
            assert_eq!(
                crate::support::total_matches(&ours.json),
                rg,
                "{file} {pat}"
            );
        }
    }
}

/// --sort orders flat output only: with --output tree it is refused, not ignored.
/// Issue 12: find leaves the stat to the listed entries, yet an explicit
/// --max-scan-bytes still binds (as it does for overview).
#[test]
fn find_and_overview_keep_an_explicit_bytes_budget() {
    let env = TestEnv::new();
    for i in 0..3 {
        env.write(&format!("f{i}.txt"), "x".repeat(100));
    }
    for args in [
        &["find", "--type", "file", "--max-scan-bytes", "150"][..],
        &["overview", "--max-scan-bytes", "150"][..],
        // search skips the stat of its default bytes budget, not of an explicit one.
        &["search", "x", "--max-scan-bytes", "150"][..],
    ] {
        let r = env.run(args);
        assert_eq!(
            r.json["scan_cut"]["budget"], "bytes",
            "{args:?}: {}",
            r.stdout
        );
        assert_eq!(r.code, 3, "{args:?}");
    }
    let r = env.run(&["find", "--type", "file"]);
    assert_eq!(r.json["items"].as_array().map(Vec::len), Some(3));
}

/// A cut scan says how many bytes it visited only when it counted them: search,
/// find and overview skip the stat of the default bytes budget, and printed
/// `bytes: 0` after visiting files (issue 34's cold-cache search).
#[test]
fn a_cut_scan_names_its_bytes_only_when_it_counted_them() {
    let env = TestEnv::new();
    for i in 0..4 {
        env.write(&format!("f{i}.txt"), "x".repeat(100));
    }
    for cmd in [
        &["search", "x"][..],
        &["find", "--type", "file"],
        &["overview"],
    ] {
        let unmetered = env.run(&[cmd, &["--max-files", "2"][..]].concat());
        let cut = &unmetered.json["scan_cut"];
        assert_eq!(cut["budget"], "files", "{cmd:?}: {}", unmetered.stdout);
        assert_eq!(cut["files"], 2, "{cmd:?}: {}", unmetered.stdout);
        assert!(cut.get("bytes").is_none(), "{cmd:?}: {}", unmetered.stdout);
        let metered =
            env.run(&[cmd, &["--max-files", "2", "--max-scan-bytes", "1MiB"][..]].concat());
        assert_eq!(
            metered.json["scan_cut"]["bytes"], 200,
            "{cmd:?}: {}",
            metered.stdout
        );
    }
}

#[test]
fn find_tree_refuses_a_sort_it_would_ignore() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    let r = env.run(&["find", "--output", "tree", "--sort", "size"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let ok = env.run(&["find", "--output", "tree", "--sort", "path"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
}

/// Follows a search's next_commands to the end; every page keeps the first
/// page's --limit (never raised to the total).
fn pages(env: &TestEnv, first: &[&str]) -> Vec<Run> {
    let mut out = vec![env.run(first)];
    // An explicit --limit answers ok with `more` (the flag to add to the first
    // call); the default one next_commands (the call).
    let next_of = |r: &Run| match r.json["more"].as_str() {
        Some(m) => Some(crate::support::with_more(first, m).join(" ")),
        None => r.json["next_commands"][0]
            .as_str()
            .map(|c| c.trim_start_matches("aitools ").to_string()),
    };
    while let Some(next) = out.last().and_then(next_of) {
        assert!(next.contains("--limit 4 "), "{next}");
        let r = env.run_line(&format!("aitools {next}"));
        assert!(r.code == 0 || r.code == 3, "{}", r.stderr);
        out.push(r);
        assert!(out.len() < 100, "no end");
    }
    assert_eq!(out.last().map(|r| r.code), Some(0));
    out
}

#[test]
fn partial_searches_continue_from_where_they_stopped_to_exactly_rgs_matches() {
    let env = rg_fixture();
    // Close matches (touching context), files with one, and lines with two.
    env.write(
        "close.txt",
        "ERR_TIMEOUT\nERR_TIMEOUT x\nno\nERR_TIMEOUT ERR_TIMEOUT\n",
    );
    let rg = tool(
        env.root(),
        "rg",
        &[
            "--hidden",
            "--glob=!.git",
            "-n",
            "--no-heading",
            "ERR_TIMEOUT",
        ],
        None,
    );
    let mut want: Vec<String> = rg
        .lines()
        .map(|l| {
            let mut it = l.splitn(3, ':');
            format!("{}:{}", it.next().unwrap(), it.next().unwrap())
        })
        .collect();
    want.sort();
    assert!(want.len() > 8, "{want:?}");
    let mut got = Vec::new();
    for r in pages(
        &env,
        &["search", "ERR_TIMEOUT", "--limit", "4", "--context", "2"],
    ) {
        for b in crate::support::expand_search(&r.json)["blocks"]
            .as_array()
            .unwrap()
        {
            for m in b["match_lines"].as_array().unwrap() {
                got.push(format!("{}:{}", b["path"].as_str().unwrap(), m));
            }
            // Context around a match is the file's own lines.
            let start = b["start_line"].as_u64().unwrap();
            let body = env.read(b["path"].as_str().unwrap());
            let text = String::from_utf8_lossy(&body);
            let file: Vec<&str> = text.lines().collect();
            // (A line over the cap is a window: cut_lines; not compared here.)
            for (i, l) in b["lines"].as_array().unwrap().iter().enumerate() {
                let want = file[start as usize - 1 + i];
                if want.len() < 1000 {
                    assert!(l == want, "{}:{}", b["path"], start as usize + i);
                }
            }
        }
    }
    got.sort();
    assert_eq!(got, want, "every selected line once, no more");

    // matches: each match once (rg's columns count bytes, ours characters: lines compared).
    let rg = tool(
        env.root(),
        "rg",
        &[
            "--hidden",
            "--glob=!.git",
            "-n",
            "--column",
            "-o",
            "--no-heading",
            "ERR_TIMEOUT",
        ],
        None,
    );
    let mut want: Vec<String> = rg
        .lines()
        .map(|l| {
            let mut it = l.splitn(3, ':');
            format!("{}:{}", it.next().unwrap(), it.next().unwrap())
        })
        .collect();
    want.sort();
    let mut got = Vec::new();
    for r in pages(
        &env,
        &[
            "search",
            "ERR_TIMEOUT",
            "--output",
            "matches",
            "--limit",
            "4",
        ],
    ) {
        for m in crate::support::expand_search(&r.json)["matches"]
            .as_array()
            .unwrap()
        {
            got.push(format!("{}:{}", m["path"].as_str().unwrap(), m["line"]));
        }
    }
    got.sort();
    assert_eq!(got, want);

    // files: rg -l, page by page.
    let want = sorted_lines(&tool(
        env.root(),
        "rg",
        &["--hidden", "--glob=!.git", "-l", "ERR_TIMEOUT"],
        None,
    ));
    let mut got = Vec::new();
    for r in pages(
        &env,
        &["search", "ERR_TIMEOUT", "--output", "files", "--limit", "4"],
    ) {
        got.extend(strs(&r.json["paths"]));
    }
    got.sort();
    assert_eq!(got, want);
}

#[test]
fn skipped_files_are_counted_by_reason_with_three_examples() {
    let env = TestEnv::new();
    env.write("a.txt", "needle\n");
    for i in 0..150 {
        env.write(
            &format!("img/p{i:03}.png"),
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        );
    }
    env.write("big.txt", "needle\n".repeat(2000));
    let r = env.run(&["search", "needle", "--skip-larger-than", "1KiB"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.json["skipped"],
        serde_json::json!([
            {"reason": "binary", "count": 150},
            {"reason": "too-large", "count": 1, "examples": ["big.txt"]}
        ])
    );
    // Nothing found: the first binary files are named, a place to look next.
    let none = env.run(&["search", "zzz-nowhere", "--skip-larger-than", "1KiB"]);
    assert_eq!(
        none.json["skipped"][0],
        serde_json::json!({"reason": "binary", "count": 150, "examples": ["img/p000.png", "img/p001.png", "img/p002.png"]})
    );
    assert!(
        r.stdout.len() < 600,
        "{} bytes: {}",
        r.stdout.len(),
        r.stdout
    );
    // Nothing passed over: no skipped field.
    let plain = env.run(&["search", "needle", "a.txt"]);
    assert!(plain.json.get("skipped").is_none(), "{}", plain.stdout);
}

#[test]
fn search_context_is_capped_at_10() {
    let env = TestEnv::new();
    env.write("a.txt", "x\n".repeat(50));
    assert_eq!(
        env.run(&["search", "x", "--context", "10", "--limit", "1"])
            .code,
        0
    );
    for flag in ["--context", "--before", "--after"] {
        let r = env.run(&["search", "x", flag, "11"]);
        assert_eq!(r.error_code(), "argument.invalid", "{flag}");
        let fix = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
        assert_eq!(fix, "aitools search x --context 10");
        assert_eq!(env.run_line(fix).code, 3);
    }
}

#[test]
fn grep_short_flags_are_aliases_of_the_long_ones() {
    let env = TestEnv::new();
    env.write("a.txt", "Alpha beta\nalphabet\nGamma\nalpha\n-x dash\n");
    env.write("b.txt", "beta\nALPHA\n");
    let same = |short: &[&str], long: &[&str]| {
        let s = env.run(short);
        let l = env.run(long);
        assert_eq!(s.code, l.code, "{short:?}: {}", s.stderr);
        assert!(s.code == 0 || s.code == 3, "{short:?}: {}", s.stderr);
        assert_eq!(s.stdout, l.stdout, "{short:?} vs {long:?}");
    };
    let pairs: &[(&[&str], &[&str])] = &[
        (&["-i", "alpha"], &["--ignore-case", "alpha"]),
        (&["-w", "alpha"], &["--word", "alpha"]),
        (&["-F", "a.p"], &["--fixed", "a.p"]),
        (&["-v", "alpha"], &["--invert", "alpha"]),
        (&["-c", "alpha"], &["--output", "count", "alpha"]),
        (&["-l", "alpha"], &["--output", "files", "alpha"]),
        (&["-C", "1", "Gamma"], &["--context", "1", "Gamma"]),
        (&["-A", "1", "Gamma"], &["--after", "1", "Gamma"]),
        (&["-B", "1", "Gamma"], &["--before", "1", "Gamma"]),
        (&["-e", "-x"], &["--pattern", "-x"]),
        (&["-n", "alpha"], &["alpha"]),
        (&["-inw", "alpha"], &["--ignore-case", "--word", "alpha"]),
    ];
    for (short, long) in pairs {
        same(
            &[&["search"][..], short].concat(),
            &[&["search"][..], long].concat(),
        );
    }
    env.write("r.txt", "one\ntwo\nthree\n");
    same(
        &["read", "r.txt", "-e", "^t"],
        &["read", "r.txt", "--match", "^t"],
    );
    same(
        &["read", "r.txt", "-e", "^t", "-v"],
        &["read", "r.txt", "--match", "^t", "--invert"],
    );
    // Declared once, with the flag: the schema shows each.
    let schema = env.run(&["schema", "search"]);
    let args = schema.json["commands"][0]["args"].as_array().unwrap();
    let short_of = |name: &str| {
        args.iter()
            .find(|a| a["name"] == name)
            .map(|a| a["short"].clone())
            .unwrap()
    };
    for (s, l) in [
        ("-i", "--ignore-case"),
        ("-w", "--word"),
        ("-F", "--fixed"),
        ("-v", "--invert"),
        ("-c", "--count"),
        ("-l", "--files-with-matches"),
        ("-C", "--context"),
        ("-A", "--after"),
        ("-B", "--before"),
        ("-e", "--pattern"),
        ("-n", "--line-number"),
    ] {
        assert_eq!(short_of(l), s, "{l}");
    }
}

#[test]
fn an_unknown_short_flag_names_what_to_use_instead() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    // -r is taken (habits.rs); -P may not mean the same here: the repair is
    // the call without it.
    let r = env.run(&["search", "-P", "alpha", "."]);
    assert_eq!(r.error_code(), "argument.invalid");
    let msg = r.json["error"]["message"].as_str().unwrap();
    assert!(msg.contains("Rust regex"), "{msg}");
    let repairs = r.json["error"]["repairs"].as_array().unwrap();
    assert_eq!(repairs.len(), 1, "{}", r.stderr);
    assert_eq!(repairs[0]["command"], "aitools search alpha .");
    assert_eq!(
        env.run_line(repairs[0]["command"].as_str().unwrap()).code,
        0
    );
    // -o: the long option that does it.
    let o = env.run(&["search", "-o", "alp", "a.txt"]);
    let fix = o.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(fix, "aitools search --output matches alp a.txt");
    assert_eq!(o.json["error"]["candidates"][0], "--output matches");
    let fixed = env.run_line(fix);
    assert_eq!(fixed.json["matches"][0]["text"], "alp");
    assert!(!o.stderr.contains("aitools schema"), "{}", o.stderr);
}

#[test]
fn code_defs_finds_qualified_names_and_carries_containers() {
    let env = TestEnv::new();
    env.write(
        "det.go",
        "package detect\n\ntype Detector struct {\n\tn int\n}\n\nfunc (d *Detector) DetectFiles(paths []string) error {\n\treturn nil\n}\n\nfunc DetectFiles() {}\n",
    );
    env.write(
        "app.py",
        "class Greeter:\n    def run(self):\n        return 1\n\ndef run():\n    pass\n",
    );
    env.write(
        "lib.rs",
        "struct A;\nimpl A {\n    fn new() -> A {\n        A\n    }\n}\nfn new() {}\n",
    );
    let one = |argv: &[&str]| {
        let r = env.run(argv);
        assert_eq!(r.code, 0, "{argv:?}: {}", r.stdout);
        let defs = r.json["defs"].as_array().unwrap().clone();
        assert_eq!(defs.len(), 1, "{argv:?}: {}", r.stdout);
        defs[0].clone()
    };
    let go = one(&["code", "defs", "Detector.DetectFiles"]);
    assert_eq!(
        (go["path"].as_str(), go["line"].as_u64()),
        (Some("det.go"), Some(7))
    );
    assert_eq!(go["container"], "Detector");
    assert_eq!(go["kind"], "method");
    let py = one(&["code", "defs", "Greeter.run"]);
    assert_eq!(
        (py["line"].as_u64(), py["kind"].as_str()),
        (Some(2), Some("method"))
    );
    assert_eq!(py["container"], "Greeter");
    let rs = one(&["code", "defs", "A::new"]);
    assert_eq!(
        (rs["path"].as_str(), rs["line"].as_u64()),
        (Some("lib.rs"), Some(3))
    );
    assert_eq!(rs["container"], "A");
    // The unqualified name finds both, each with its container (or none).
    let all = env.run(&["code", "defs", "run"]);
    let defs = all.json["defs"].as_array().unwrap();
    assert_eq!(defs.len(), 2);
    assert_eq!(defs[1]["kind"], "function");
    assert!(defs[1].get("container").is_none());
    // read --symbol takes the Go receiver the same way.
    let r = env.run(&["read", "det.go", "--symbol", "Detector.DetectFiles"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["start_line"], 7);
    assert_eq!(r.json["lines"].as_array().unwrap().len(), 3);
}

#[test]
fn every_no_definition_repair_runs() {
    let env = TestEnv::new();
    env.write(
        "det.go",
        "package d\n\nfunc (d *Detector) DetectFiles() {}\n",
    );
    env.write("other.go", "package d\n\nfunc Elsewhere() {}\n");
    let hash = env.run(&["read", "det.go"]).json["hash"]
        .as_str()
        .unwrap()
        .to_string();
    for argv in [
        vec!["read", "det.go", "--symbol", "Nope.DetectFiles"],
        vec!["read", "det.go", "--symbol", "Elsewhere"],
        vec!["read", "det.go", "--symbol", "Detector.Missing"],
        vec![
            "read",
            "det.go",
            "--symbol",
            "DetectFiles",
            "--kind",
            "function",
        ],
        vec![
            "edit",
            "det.go",
            "--symbol",
            "Nope.DetectFiles",
            "--new",
            "x",
            "--expect-hash",
            &hash,
        ],
    ] {
        let r = env.run(&argv);
        assert_eq!(
            r.error_code(),
            "selection.no-match",
            "{argv:?}: {}",
            r.stderr
        );
        let repairs = r.json["error"]["repairs"].as_array().unwrap();
        for rep in repairs {
            let line = rep["command"].as_str().unwrap();
            if line.contains('<') {
                continue;
            }
            let follow = env.run_line(line);
            assert!(
                follow.code == 0 || follow.code == 3,
                "{argv:?} → {line}: {} {}",
                follow.stdout,
                follow.stderr
            );
        }
    }
    // The defs repair finds the definition in the other file.
    let r = env.run(&["read", "det.go", "--symbol", "Elsewhere"]);
    let defs = r.json["error"]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| {
            x["command"]
                .as_str()
                .unwrap()
                .starts_with("aitools code defs")
        })
        .map(|x| env.run_line(x["command"].as_str().unwrap()))
        .unwrap();
    assert_eq!(defs.json["defs"][0]["path"], "other.go");
}

/// Blocks never show a line twice, at any --offset: a --multiline match that
/// starts on the last after-context line of a page's window was shown again as a
/// one-line block of its own. Each page's lines are what `rg -U -n -C2` shows.
#[test]
fn multiline_blocks_show_each_line_once_at_any_offset() {
    let env = TestEnv::new();
    env.write(
        "a.txt",
        "foo bar 9\nline 10\nfoo bar 11\nline 12\nline 13\nline 14\nxx\nfoo bar 16\nline 17\nline 18\nline 19\n",
    );
    let pat = r"foo\sbar|\d\nline";
    let rg = tool(env.root(), "rg", &["-U", "-n", "-C2", pat, "a.txt"], None);
    let rg_lines: Vec<u64> = rg
        .lines()
        .filter_map(|l| l.split([':', '-']).next()?.parse().ok())
        .collect();
    for offset in 0..8 {
        let off = offset.to_string();
        let r = env.run(&[
            "search",
            pat,
            "a.txt",
            "--multiline",
            "--offset",
            &off,
            "--limit",
            "2",
        ]);
        let mut seen = Vec::new();
        for b in crate::support::expand_search(&r.json)["blocks"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let start = b["start_line"].as_u64().unwrap_or(0);
            let n = b["lines"].as_array().map_or(0, Vec::len) as u64;
            seen.extend(start..start + n);
        }
        let mut once = seen.clone();
        once.dedup();
        assert_eq!(seen, once, "offset {offset}: {}", r.stdout);
        assert!(
            seen.windows(2).all(|w| w[0] < w[1]),
            "offset {offset}: {seen:?}"
        );
        assert!(
            seen.iter().all(|l| rg_lines.contains(l)),
            "offset {offset}: {seen:?} vs rg {rg_lines:?}"
        );
    }
}
