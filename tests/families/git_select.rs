//! `git show REV:PATH` and `git blame` with read's selectors (`--symbol`/`--kind`,
//! `--between`/`--exclusive`, `--match`/`--invert`), on a repository holding a
//! Python and a Rust file that moved between two commits. Oracles: Python's `ast`
//! for a definition's lines, awk and `grep -n` for the lines a pattern picks,
//! `git show REV:PATH | sed -n a,bp` for their text and `git blame -L a,b
//! --porcelain` for who changed them.

use crate::support::{Run, TestEnv};
use std::io::Write;
use std::process::{Command, Stdio};

const PY_1: &str = "import os


def alpha(x):
    return x + 1


class Box:
    def alpha(self):
        return 2

    def beta(self):
        # BEGIN
        y = 3
        # END
        return y
";

const RS_1: &str = "pub struct Point {
    x: i32,
}

pub fn area(p: &Point) -> i32 {
    p.x * 2
}

fn helper() {}
";

/// Two commits (the second moves every definition down and changes a body), and
/// an uncommitted change to `area` in the work tree.
fn repo() -> TestEnv {
    let env = TestEnv::new();
    env.write("m.py", PY_1);
    env.write("lib.rs", RS_1);
    env.git(&["add", "."]);
    env.git(&["commit", "-qm", "first"]);
    env.write(
        "m.py",
        format!("# header\n\n{}", PY_1.replace("y = 3", "y = 4")),
    );
    env.write(
        "lib.rs",
        format!("use std::fmt;\n\n{}", RS_1.replace("p.x * 2", "p.x * 3")),
    );
    env.git(&["commit", "-qam", "second"]);
    env.write(
        "lib.rs",
        format!("use std::fmt;\n\n{}", RS_1.replace("p.x * 2", "p.x * 4")),
    );
    env
}

/// `program args` with `input` on stdin; its stdout.
fn pipe(program: &str, args: &[&str], input: &str) -> String {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect(program);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{program} {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The text at `rev` (`None`: the work tree's file).
fn text_at(env: &TestEnv, rev: Option<&str>, path: &str) -> String {
    match rev {
        Some(r) => env.git(&["show", &format!("{r}:{path}")]),
        None => String::from_utf8(env.read(path)).unwrap(),
    }
}

/// Python's own parser: the lines of the definition whose dotted name is `qual`.
fn ast_span(text: &str, qual: &str) -> (u64, u64) {
    let script = "import ast, sys
want = sys.argv[1]
def walk(node, outer):
    for n in ast.iter_child_nodes(node):
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            q = outer + [n.name]
            if '.'.join(q) == want:
                print(n.lineno, n.end_lineno)
            walk(n, q)
walk(ast.parse(sys.stdin.read()), [])
";
    let out = pipe("python3", &["-c", script, qual], text);
    let mut w = out.split_whitespace().map(|n| n.parse::<u64>().unwrap());
    (w.next().unwrap(), w.next().unwrap())
}

/// `sed -n a,bp`: the lines a..=b of `text`.
fn sed(text: &str, a: u64, b: u64) -> Vec<String> {
    pipe("sed", &["-n", &format!("{a},{b}p")], text)
        .lines()
        .map(str::to_string)
        .collect()
}

/// awk: the numbers of the lines from the first one matching `start` to the next
/// one matching `end`.
fn awk_block(text: &str, start: &str, end: &str) -> Vec<u64> {
    let prog = format!("f&&/{end}/{{print NR; exit}} f{{print NR}} !f&&/{start}/{{f=1; print NR}}");
    pipe("awk", &[&prog], text)
        .lines()
        .map(|n| n.parse().unwrap())
        .collect()
}

/// `grep -n` (`-v` with `invert`): the numbers of the lines matching `re`.
fn grep_n(text: &str, re: &str, invert: bool) -> Vec<u64> {
    let mut args = vec!["-n", "-E", re];
    if invert {
        args.insert(0, "-v");
    }
    pipe("grep", &args, text)
        .lines()
        .map(|l| l.split(':').next().unwrap().parse().unwrap())
        .collect()
}

/// `git blame --porcelain` with one `-L n,m` per span: `(line, sha, text)`.
fn porcelain(
    env: &TestEnv,
    spans: &[(u64, u64)],
    rev: Option<&str>,
    path: &str,
) -> Vec<(u64, String, String)> {
    let mut args: Vec<String> = vec!["blame".into(), "--porcelain".into()];
    for (a, b) in spans {
        args.push("-L".into());
        args.push(format!("{a},{b}"));
    }
    args.extend(rev.map(str::to_string));
    args.extend(["--".to_string(), path.to_string()]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = env.git(&argv);
    let mut rows = Vec::new();
    let (mut sha, mut n) = (String::new(), 0);
    for l in out.lines() {
        if let Some(t) = l.strip_prefix('\t') {
            rows.push((n, sha.clone(), t.to_string()));
            continue;
        }
        let w: Vec<&str> = l.split(' ').collect();
        if w[0].len() == 40 && w[0].bytes().all(|b| b.is_ascii_hexdigit()) {
            sha = w[0].to_string();
            n = w[2].parse().unwrap();
        }
    }
    rows
}

/// Our blame's rows, in the oracle's shape.
fn blamed(r: &Run) -> Vec<(u64, String, String)> {
    assert!(r.code == 0 || r.code == 3, "{}", r.stdout);
    r.json["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let key = l["commit"].as_str().unwrap();
            (
                l["n"].as_u64().unwrap(),
                r.json["commits"][key]["sha"].as_str().unwrap().to_string(),
                l["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Runs of consecutive numbers as `(first, last)`.
fn runs(numbers: &[u64]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &n in numbers {
        match out.last_mut() {
            Some((_, e)) if *e + 1 == n => *e = n,
            _ => out.push((n, n)),
        }
    }
    out
}

/// `git show`'s answer checked against sed over the blob: lines `a..=b`.
fn shows(r: &Run, text: &str, a: u64, b: u64) {
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["start_line"], a, "{}", r.stdout);
    assert_eq!(r.lines(), sed(text, a, b), "{}", r.stdout);
}

#[test]
fn git_show_symbol_and_kind_read_the_definition_as_the_blob_holds_it() {
    let env = repo();
    for rev in ["HEAD~1", "HEAD"] {
        let py = text_at(&env, Some(rev), "m.py");
        let obj = format!("{rev}:m.py");
        let (a, b) = ast_span(&py, "Box.beta");
        shows(
            &env.run(&["git", "show", &obj, "--symbol", "beta"]),
            &py,
            a,
            b,
        );
        let (a, b) = ast_span(&py, "Box.alpha");
        shows(
            &env.run(&["git", "show", &obj, "--symbol", "alpha", "--kind", "method"]),
            &py,
            a,
            b,
        );
        shows(
            &env.run(&["git", "show", &obj, "--symbol", "Box.alpha"]),
            &py,
            a,
            b,
        );
        let (a, b) = ast_span(&py, "alpha");
        shows(
            &env.run(&[
                "git", "show", &obj, "--symbol", "alpha", "--kind", "function",
            ]),
            &py,
            a,
            b,
        );
        // Rust: from `pub fn area` to the first `}` in column 1 after it.
        let rs = text_at(&env, Some(rev), "lib.rs");
        let span = pipe(
            "awk",
            &["/^pub fn area/{f=1} f{print NR} f&&/^}/{exit}"],
            &rs,
        );
        let nums: Vec<u64> = span.lines().map(|n| n.parse().unwrap()).collect();
        let (a, b) = (nums[0], *nums.last().unwrap());
        let obj = format!("{rev}:lib.rs");
        shows(
            &env.run(&["git", "show", &obj, "--symbol", "area"]),
            &rs,
            a,
            b,
        );
        shows(
            &env.run(&[
                "git", "show", &obj, "--symbol", "area", "--kind", "function",
            ]),
            &rs,
            a,
            b,
        );
    }
    // The definition moved: HEAD~1's lines are not the work tree's.
    let old = env.run(&["git", "show", "HEAD~1:lib.rs", "--symbol", "area"]);
    assert_eq!(old.json["start_line"], 5);
    assert_eq!(old.json["lines"][1], "    p.x * 2");
    // A definition longer than --max-lines: partial, continued by --range.
    let py = text_at(&env, Some("HEAD"), "m.py");
    let (a, b) = ast_span(&py, "Box");
    let cut = env.run(&[
        "git",
        "show",
        "HEAD:m.py",
        "--symbol",
        "Box",
        "--max-lines",
        "3",
    ]);
    assert_eq!(cut.code, 3, "{}", cut.stdout);
    assert_eq!(cut.json["truncated"], true);
    let next = cut.json["next_commands"][0].as_str().unwrap();
    assert!(next.contains(&format!("--range {}:{b}", a + 3)), "{next}");
    assert!(!next.contains("--symbol"), "{next}");
    let rest = env.run_line(next);
    let mut all = cut.lines();
    all.extend(rest.lines());
    assert_eq!(all[..6], sed(&py, a, b)[..6]);
}

#[test]
fn git_show_between_takes_the_first_block_as_awk_does() {
    let env = repo();
    env.write("notes.md", "a\nBEGIN\nx\ny\nEND\nb\nBEGIN\nz\nEND\n");
    env.git(&["add", "notes.md"]);
    env.git(&["commit", "-qm", "notes"]);
    for (path, start, end) in [
        ("m.py", "BEGIN", "END"),
        ("notes.md", "BEGIN", "END"),
        ("lib.rs", "^pub fn", "^}"),
    ] {
        let text = text_at(&env, Some("HEAD"), path);
        let obj = format!("HEAD:{path}");
        let block = awk_block(&text, start, end);
        let (a, b) = (block[0], *block.last().unwrap());
        shows(
            &env.run(&["git", "show", &obj, "--between", start, end]),
            &text,
            a,
            b,
        );
        let ex = env.run(&["git", "show", &obj, "--between", start, end, "--exclusive"]);
        shows(&ex, &text, a + 1, b - 1);
    }
    // A pattern that starts with a dash is a pattern.
    let r = env.run(&[
        "git",
        "show",
        "HEAD:notes.md",
        "--between",
        "-?BEGIN",
        "-?END",
    ]);
    assert_eq!(r.json["start_line"], 2, "{}", r.stdout);
}

#[test]
fn git_blame_selectors_blame_the_lines_git_blame_l_blames() {
    let env = repo();
    // The work tree: `area` holds an uncommitted line.
    let rs = text_at(&env, None, "lib.rs");
    let span = pipe(
        "awk",
        &["/^pub fn area/{f=1} f{print NR} f&&/^}/{exit}"],
        &rs,
    );
    let nums: Vec<u64> = span.lines().map(|n| n.parse().unwrap()).collect();
    let (a, b) = (nums[0], *nums.last().unwrap());
    let r = env.run(&["git", "blame", "lib.rs", "--symbol", "area"]);
    let got = blamed(&r);
    assert_eq!(got, porcelain(&env, &[(a, b)], None, "lib.rs"));
    assert!(
        got.iter().any(|(_, sha, _)| sha == &"0".repeat(40)),
        "{got:?}"
    );
    // Python, at the work tree and at HEAD~1 (where its lines were others).
    for rev in [None, Some("HEAD~1")] {
        let py = text_at(&env, rev, "m.py");
        let mut base = vec!["git", "blame", "m.py"];
        if let Some(r) = rev {
            base.extend(["--rev", r]);
        }
        let with = |extra: &[&str]| {
            let mut argv = base.clone();
            argv.extend(extra);
            env.run(&argv)
        };
        let (a, b) = ast_span(&py, "Box.beta");
        let want = porcelain(&env, &[(a, b)], rev, "m.py");
        assert_eq!(
            blamed(&with(&["--symbol", "beta", "--kind", "method"])),
            want
        );
        assert_eq!(blamed(&with(&["--symbol", "Box.beta"])), want);
        let block = awk_block(&py, "BEGIN", "END");
        let (s, e) = (block[0], *block.last().unwrap());
        assert_eq!(
            blamed(&with(&["--between", "BEGIN", "END"])),
            porcelain(&env, &[(s, e)], rev, "m.py")
        );
        assert_eq!(
            blamed(&with(&["--between", "BEGIN", "END", "--exclusive"])),
            porcelain(&env, &[(s + 1, e - 1)], rev, "m.py")
        );
        for invert in [false, true] {
            let mut extra = vec!["--match", "return|def "];
            if invert {
                extra.push("--invert");
            }
            let numbers = grep_n(&py, "return|def ", invert);
            let r = with(&extra);
            assert_eq!(
                blamed(&r),
                porcelain(&env, &runs(&numbers), rev, "m.py"),
                "{}",
                r.stdout
            );
            assert_eq!(r.json["start_line"], numbers[0]);
        }
        // --range bounds a --match.
        let numbers: Vec<u64> = grep_n(&py, "return", false)
            .into_iter()
            .filter(|n| (6..=14).contains(n))
            .collect();
        let r = with(&["--match", "return", "--range", "6:14"]);
        assert_eq!(blamed(&r), porcelain(&env, &runs(&numbers), rev, "m.py"));
    }
}

#[test]
fn git_blame_a_cut_match_or_symbol_continues_to_the_same_lines() {
    let env = repo();
    let py = text_at(&env, None, "m.py");
    let numbers = grep_n(&py, "^ ", false);
    let want = porcelain(&env, &runs(&numbers), None, "m.py");
    let mut got = Vec::new();
    let mut r = env.run(&["git", "blame", "m.py", "--match", "^ ", "--max-lines", "3"]);
    let mut calls = 1;
    while r.code == 3 {
        assert_eq!(r.json["truncated"], true);
        got.extend(blamed(&r));
        r = env.run_line(r.json["next_commands"][0].as_str().unwrap());
        calls += 1;
    }
    got.extend(blamed(&r));
    assert_eq!(got, want);
    assert_eq!(calls, numbers.len().div_ceil(3));
    // A whole definition offers nothing past it; a cut one continues by --range.
    let (a, b) = ast_span(&py, "Box");
    let whole = env.run(&["git", "blame", "m.py", "--symbol", "Box"]);
    assert_eq!(whole.code, 0, "{}", whole.stdout);
    assert!(
        whole.json["next_commands"]
            .as_array()
            .is_none_or(|a| a.is_empty()),
        "{}",
        whole.stdout
    );
    let cut = env.run(&[
        "git",
        "blame",
        "m.py",
        "--symbol",
        "Box",
        "--max-lines",
        "4",
    ]);
    assert_eq!(cut.code, 3, "{}", cut.stdout);
    let mut got = blamed(&cut);
    let mut r = cut;
    while r.code == 3 {
        r = env.run_line(r.json["next_commands"][0].as_str().unwrap());
        got.extend(blamed(&r));
    }
    assert_eq!(got, porcelain(&env, &[(a, b)], None, "m.py"));
}

#[test]
fn selections_that_pick_nothing_or_several_places_answer_with_candidates_and_repairs() {
    let env = repo();
    env.write("t.txt", "plain\n");
    env.git(&["add", "t.txt"]);
    env.git(&["commit", "-qm", "t"]);
    let py = text_at(&env, Some("HEAD"), "m.py");
    for base in [
        vec!["git", "show", "HEAD:m.py"],
        vec!["git", "blame", "m.py"],
    ] {
        let with = |extra: &[&str]| {
            let mut argv = base.clone();
            argv.extend(extra);
            env.run(&argv)
        };
        // Two definitions named alpha: each is a candidate; a repair picks one.
        let amb = with(&["--symbol", "alpha"]);
        assert_eq!(amb.error_code(), "selection.ambiguous", "{}", amb.stdout);
        let starts: Vec<u64> = amb.json["error"]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["start_line"].as_u64().unwrap())
            .collect();
        assert_eq!(
            starts,
            vec![ast_span(&py, "alpha").0, ast_span(&py, "Box.alpha").0]
        );
        for rep in amb.json["error"]["repairs"].as_array().unwrap() {
            let fixed = env.run_line(rep["command"].as_str().unwrap());
            assert_eq!(fixed.code, 0, "{}: {}", rep["command"], fixed.stdout);
        }
        // No such definition: the file's definitions are the candidates.
        let none = with(&["--symbol", "gamma"]);
        assert_eq!(none.error_code(), "selection.no-match", "{}", none.stdout);
        let names: Vec<&str> = none.json["error"]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        for n in ["alpha", "Box", "beta"] {
            assert!(names.contains(&n), "{names:?}");
        }
        let near = with(&["--symbol", "bet"]);
        assert_eq!(near.error_code(), "selection.no-match");
        let fixed = env.run_line(
            near.json["error"]["repairs"][0]["command"]
                .as_str()
                .unwrap(),
        );
        assert_eq!(fixed.code, 0, "{}", fixed.stdout);
        assert_eq!(fixed.json["start_line"], ast_span(&py, "Box.beta").0);
        let kind = with(&["--symbol", "beta", "--kind", "struct"]);
        assert_eq!(kind.error_code(), "selection.no-match");
        // --between without START, or START without END.
        assert_eq!(
            with(&["--between", "NOPE", "END"]).error_code(),
            "selection.no-match"
        );
        assert_eq!(
            with(&["--between", "BEGIN", "NOPE"]).error_code(),
            "selection.no-match"
        );
        assert_eq!(
            with(&["--match", "NOPE"]).error_code(),
            "selection.no-match"
        );
        assert_eq!(with(&["--match", "("]).error_code(), "input.syntax-error");
        // One selector per call; a modifier needs its selector.
        for bad in [
            &["--symbol", "beta", "--range", "1:2"][..],
            &["--symbol", "beta", "--between", "a", "b"],
            &["--kind", "method"],
            &["--exclusive"],
            &["--invert"],
            &["--symbol", ""],
        ] {
            let r = with(bad);
            assert_eq!(r.error_code(), "argument.invalid", "{bad:?}: {}", r.stdout);
        }
    }
    let txt = env.run(&["git", "show", "HEAD:t.txt", "--symbol", "plain"]);
    assert_eq!(txt.error_code(), "input.unsupported-language");
    let fixed = env.run_line(txt.json["error"]["repairs"][0]["command"].as_str().unwrap());
    assert_eq!(fixed.json["line_numbers"], serde_json::json!([1]));
    assert_eq!(
        env.run(&["git", "blame", "t.txt", "--symbol", "plain"])
            .error_code(),
        "input.unsupported-language"
    );
    // A commit has no lines to select.
    let c = env.run(&["git", "show", "HEAD", "--symbol", "alpha"]);
    assert_eq!(c.error_code(), "argument.invalid");
}

const BLOCK: &str = "name: svc\npassword: |\n  Zq8Lk2Hs9Pq1Wm4Xn7Rt5Yv0Bc6Dg8\n  Mx7Rt5Yv0Bc6Dg8Zq8Lk2Hs9Pq1Wm4\n  Hs9Pq1Wm4Xn7Rt5Yv0Bc6Dg8Zq8Lk2\nother: 1\n";

/// Lines picked inside a key's multi-line value are masked as `read` masks them:
/// the lines before the selection prime the mask (blame --range and show --match
/// printed them in clear).
#[test]
fn selected_lines_inside_a_multi_line_secret_are_masked() {
    let env = TestEnv::new();
    env.write("f.yaml", BLOCK);
    env.git(&["add", "."]);
    env.git(&["commit", "-qm", "y"]);
    let masked = "  [REDACTED_SECRET]";
    for argv in [
        &["git", "show", "HEAD:f.yaml", "--match", "Mx7"][..],
        &["git", "show", "HEAD:f.yaml", "--between", "Mx7", "Hs9"],
        &["git", "blame", "f.yaml", "--range", "4:5"],
        &["git", "blame", "f.yaml", "--match", "Mx7"],
        &[
            "git",
            "blame",
            "f.yaml",
            "--between",
            "^  Zq8",
            "^  Hs9",
            "--exclusive",
        ],
    ] {
        let r = env.run(argv);
        assert_eq!(r.code, 0, "{argv:?}: {}", r.stdout);
        for s in ["Zq8Lk2", "Mx7Rt5", "Hs9Pq1"] {
            assert!(!r.stdout.contains(s), "{argv:?} leaked {s}: {}", r.stdout);
        }
        let texts: Vec<&str> = match r.json["lines"][0].as_str() {
            Some(_) => r.json["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap())
                .collect(),
            None => r.json["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["text"].as_str().unwrap())
                .collect(),
        };
        assert!(texts.iter().all(|t| *t == masked), "{argv:?}: {}", r.stdout);
        assert_eq!(r.json["redactions"], 1, "{argv:?}: {}", r.stdout);
    }
    let clear = env.run(&["git", "blame", "f.yaml", "--match", "other|name"]);
    let texts: Vec<&str> = clear.json["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, vec!["name: svc", "other: 1"]);
}
