//! The diffs writes report (`changes[].diff`: hunks without context or headers)
//! and `diff` prints (also `diff --op`, a write's full diff) are real patches:
//! applied to the before-file by `patch`, by `git apply`, and by a strict applier
//! here that refuses any hunk whose header is off by a line (patch and git apply
//! both search for a misplaced hunk and would hide a wrong header), they give the
//! after-file byte for byte. Cases: insertions and deletions at the start and the
//! end, a missing final newline, CR LF, the shapes `similar` got wrong, and random
//! edits of random files.

use crate::support::TestEnv;
use proptest::prelude::*;
use std::process::Command;

/// Applies a unified diff to `old` exactly where its headers say; an error names
/// what does not add up (a start line, a count, a context line).
fn apply_strict(old: &[u8], diff: &str) -> Result<Vec<u8>, String> {
    let old_lines = split(old);
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut i = 0;
    let mut out: Vec<u8> = Vec::new();
    let mut out_lines = 0usize;
    let mut pos = 0usize;
    if !(lines.first().is_some_and(|l| l.starts_with("--- "))
        && lines.get(1).is_some_and(|l| l.starts_with("+++ ")))
    {
        return Err("no ---/+++ headers".into());
    }
    i += 2;
    while i < lines.len() {
        let h = lines[i].trim_end_matches('\n');
        let (os, ol, ns, nl) = header(h).ok_or_else(|| format!("bad hunk header {h:?}"))?;
        // A zero-length range names the line before it.
        let start = if ol == 0 { os } else { os - 1 };
        let nstart = if nl == 0 { ns } else { ns - 1 };
        if start < pos || start > old_lines.len() {
            return Err(format!(
                "{h}: old start {os} is out of order or past the end"
            ));
        }
        for l in &old_lines[pos..start] {
            out.extend_from_slice(l);
            out_lines += 1;
        }
        if out_lines != nstart {
            return Err(format!("{h}: new start should be line {}", out_lines + 1));
        }
        i += 1;
        let (mut cur, mut got_o, mut got_n) = (start, 0, 0);
        while i < lines.len() && !lines[i].starts_with("@@") {
            let l = lines[i];
            let (mark, body) = l.split_at(1);
            if mark == "\\" {
                i += 1;
                continue;
            }
            let no_newline = lines.get(i + 1).is_some_and(|n| n.starts_with('\\'));
            let text = if no_newline {
                body.trim_end_matches('\n').as_bytes().to_vec()
            } else {
                body.as_bytes().to_vec()
            };
            match mark {
                " " | "-" => {
                    let have = old_lines
                        .get(cur)
                        .ok_or_else(|| format!("{h}: runs past the old file"))?;
                    if *have != text.as_slice() {
                        return Err(format!(
                            "{h}: old line {} is {:?}, the hunk says {:?}",
                            cur + 1,
                            String::from_utf8_lossy(have),
                            String::from_utf8_lossy(&text)
                        ));
                    }
                    cur += 1;
                    got_o += 1;
                    if mark == " " {
                        out.extend_from_slice(&text);
                        out_lines += 1;
                        got_n += 1;
                    }
                }
                "+" => {
                    out.extend_from_slice(&text);
                    out_lines += 1;
                    got_n += 1;
                }
                _ => return Err(format!("{h}: bad line {l:?}")),
            }
            i += 1;
        }
        if (got_o, got_n) != (ol, nl) {
            return Err(format!("{h}: the hunk holds -{got_o} +{got_n} lines"));
        }
        pos = cur;
    }
    for l in &old_lines[pos..] {
        out.extend_from_slice(l);
    }
    Ok(out)
}

fn split(b: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in b.iter().enumerate() {
        if *c == b'\n' {
            out.push(&b[start..=i]);
            start = i + 1;
        }
    }
    if start < b.len() {
        out.push(&b[start..]);
    }
    out
}

fn header(h: &str) -> Option<(usize, usize, usize, usize)> {
    let body = h.strip_prefix("@@ -")?.strip_suffix(" @@")?;
    let (o, n) = body.split_once(" +")?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((s, l)) => Some((s.parse().ok()?, l.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (os, ol) = range(o)?;
    let (ns, nl) = range(n)?;
    Some((os, ol, ns, nl))
}

/// Runs a shell command in the repository; true when it succeeded.
fn sh(env: &TestEnv, script: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env.root())
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Checks a diff of `before` → `after` three ways: strictly, with `patch`, and with
/// `git apply` (`--unidiff-zero` for hunks without context).
fn check_diff(env: &TestEnv, before: &[u8], after: &[u8], diff: &str, what: &str) {
    assert_eq!(
        apply_strict(before, diff).as_deref(),
        Ok(after),
        "{what}: strict apply\n{diff}"
    );
    env.write("chk/p.txt", before);
    env.write("chk/d.patch", diff);
    assert!(
        sh(env, "cd chk && patch -s p.txt < d.patch"),
        "{what}: patch rejects\n{diff}"
    );
    assert_eq!(env.read("chk/p.txt"), after, "{what}: patch gives\n{diff}");
    // git apply --unidiff-zero mis-applies a zero-context hunk that deletes a last
    // line without a newline: it strips the end of the line before it as well
    // (`patch` and the strict apply above agree on the right result). Such a diff
    // is checked by git through its `diff --op` form, which has context.
    let zero_context = !diff.lines().any(|l| l.starts_with(' '));
    if zero_context && diff.contains("\\ No newline at end of file") {
        return;
    }
    // git apply needs the names it patches: rewrite the headers to chk/g.txt.
    env.write("chk/g.txt", before);
    let (a, b) = if before.is_empty() && diff.starts_with("--- /dev/null") {
        ("/dev/null", "b/chk/g.txt")
    } else {
        ("a/chk/g.txt", "b/chk/g.txt")
    };
    if a == "/dev/null" {
        std::fs::remove_file(env.path("chk/g.txt")).unwrap();
    }
    let mut text = format!("--- {a}\n+++ {b}\n");
    text.push_str(diff.splitn(3, '\n').nth(2).unwrap_or(""));
    env.write("chk/g.patch", &text);
    assert!(
        sh(env, "git apply --unidiff-zero chk/g.patch"),
        "{what}: git apply rejects\n{text}"
    );
    assert_eq!(
        env.read("chk/g.txt"),
        after,
        "{what}: git apply gives\n{text}"
    );
}

/// A write's whole patch two ways: its answer's hunks (asked unbounded) under
/// the ---/+++ headers they leave out, and `diff --op`'s full diff.
fn write_patches(env: &TestEnv, r: &crate::support::Run) -> Vec<String> {
    let c = &r.json["changes"][0];
    let path = c["path"].as_str().unwrap();
    let hunks = c["diff"]
        .as_str()
        .unwrap_or_else(|| panic!("no diff in {}", r.stdout));
    assert!(c["diff_truncated"].is_null(), "{}", r.stdout);
    let from = if c["action"] == "created" {
        "/dev/null".to_string()
    } else {
        format!("a/{path}")
    };
    let op = r.json["op_id"].as_str().unwrap();
    let full = env.run(&["diff", "--op", op]);
    assert_eq!(full.code, 0, "{}", full.stderr);
    vec![
        format!("--- {from}\n+++ b/{path}\n{hunks}"),
        full.json["changes"][0]["diff"]
            .as_str()
            .unwrap()
            .to_string(),
    ]
}

/// Overwrites `f.txt` (holding `before`) with `after` and checks the reported diff.
fn write_and_check(env: &TestEnv, before: &[u8], after: &[u8], what: &str) {
    env.write("f.txt", before);
    let info = env.run(&["info", "f.txt"]);
    let hash = info.json["hash"].as_str().unwrap().to_string();
    let r = env.run_stdin(
        &[
            "write",
            "f.txt",
            "--overwrite",
            "--expect-hash",
            &hash,
            "--stdin",
            "--max-diff-lines",
            "100000",
        ],
        after,
    );
    assert_eq!(r.code, 0, "{what}: {}", r.stderr);
    assert_eq!(env.read("f.txt"), after);
    if before == after {
        return;
    }
    for diff in write_patches(env, &r) {
        check_diff(env, before, after, &diff, what);
    }
}

/// Before/after pairs that cover the edges of a line diff.
const CASES: &[(&str, &str, &str)] = &[
    (
        "insert at the start",
        "a\nb\nc\nd\ne\n",
        "x\na\nb\nc\nd\ne\n",
    ),
    (
        "insert 5 at the start",
        "a\nb\nc\n",
        "1\n2\n3\n4\n5\na\nb\nc\n",
    ),
    (
        "insert at the end",
        "a\nb\nc\nd\ne\n",
        "a\nb\nc\nd\ne\nf\ng\n",
    ),
    (
        "delete at the start",
        "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n",
        "b\nc\nd\ne\nf\ng\nh\ni\nj\n",
    ),
    (
        "delete 3 at the start",
        "a\nb\nc\nd\ne\nf\ng\n",
        "d\ne\nf\ng\n",
    ),
    ("delete at the end", "a\nb\nc\nd\ne\n", "a\nb\nc\n"),
    ("delete everything", "a\nb\n", ""),
    ("from empty", "", "a\nb\n"),
    ("add a final newline", "a\nb\nc", "a\nb\nc\n"),
    ("drop the final newline", "a\nb\nc\n", "a\nb\nc"),
    ("change a last line without newline", "a\nb\nc", "a\nb\nC"),
    (
        "append after a last line without newline",
        "a\nb",
        "a\nb\nc\n",
    ),
    (
        "crlf change",
        "a\r\nb\r\nc\r\nd\r\n",
        "a\r\nB\r\nc\r\nd\r\n",
    ),
    ("crlf insert at the start", "a\r\nb\r\n", "z\r\na\r\nb\r\n"),
    ("crlf to lf", "a\r\nb\r\nc\r\n", "a\nb\nc\n"),
    ("crlf, no final newline", "a\r\nb\r\nc", "a\r\nb\r\nc\r\nd"),
    (
        // similar 2.7's Myers reports this first Delete with new_index 1.
        "delete at the start, then more",
        "c\r\na\r\nc\r\nee\r\nbb\r\nc\r\nee\r\naa\r\ncc\r\ndd\r\n",
        "a\r\na\r\nee\r\nbb\r\nc\r\nee\r\nx\r\naa\r\ncc\r\ndd\r\n",
    ),
    (
        "two hunks far apart",
        "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n",
        "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n",
    ),
    ("repeated lines", "a\na\na\nb\na\na\n", "a\nb\na\na\na\na\n"),
];

#[test]
fn write_diffs_apply_to_the_before_file() {
    let env = TestEnv::new();
    for (what, before, after) in CASES {
        write_and_check(&env, before.as_bytes(), after.as_bytes(), what);
    }
}

#[test]
fn a_created_file_diff_applies_from_nothing() {
    let env = TestEnv::new();
    let r = env.run(&["write", "n.txt", "--content", "one\ntwo"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.json["changes"][0]["diff"],
        "@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n"
    );
    for diff in write_patches(&env, &r) {
        assert!(
            diff.starts_with("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n"),
            "{diff}"
        );
        check_diff(&env, b"", b"one\ntwo", &diff, "created");
    }
}

#[test]
fn edit_insert_replace_and_apply_diffs_apply_too() {
    let env = TestEnv::new();
    let before = "fn a() {}\r\nlet x = 1;\r\nlet y = 2;\r\n\r\nfn b() {}\r\nend";
    let run = |args: &[&str], stdin: Option<&[u8]>| {
        env.write("e.txt", before);
        let r = match stdin {
            Some(s) => env.run_stdin(args, s),
            None => env.run(args),
        };
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        let after = env.read("e.txt");
        for diff in write_patches(&env, &r) {
            check_diff(&env, before.as_bytes(), &after, &diff, &format!("{args:?}"));
        }
    };
    // An exact edit shows no diff by default (the caller wrote both sides).
    run(
        &[
            "edit",
            "e.txt",
            "--old",
            "fn a() {}",
            "--new",
            "fn a0() {}",
            "--max-diff-lines",
            "100",
        ],
        None,
    );
    run(
        &[
            "edit",
            "e.txt",
            "--old",
            "end",
            "--new",
            "the\nend",
            "--max-diff-lines",
            "100",
        ],
        None,
    );
    run(
        &["insert", "e.txt", "--at", "start", "--content", "// head"],
        None,
    );
    run(
        &["insert", "e.txt", "--at", "end", "--content", "// tail"],
        None,
    );
    run(
        &[
            "replace",
            "let (\\w)",
            "const $1",
            "e.txt",
            "--expect-count",
            "2",
            // A real replace shows no diff by default (its dry run did).
            "--max-diff-lines",
            "100",
        ],
        None,
    );
    let patch =
        "--- a/e.txt\n+++ b/e.txt\n@@ -1,2 +1 @@\n-fn a() {}\r\n-let x = 1;\r\n+let z = 0;\r\n";
    // apply shows no diff by default (the caller wrote it).
    run(
        &["apply", "--stdin", "--max-diff-lines", "100"],
        Some(patch.as_bytes()),
    );
}

#[test]
fn the_diff_command_with_any_context_applies() {
    let env = TestEnv::new();
    for (what, before, after) in CASES {
        for ctx in ["0", "1", "2", "3", "5"] {
            env.write("x/a.txt", before);
            env.write("x/b.txt", after);
            let r = env.run(&["diff", "x/a.txt", "x/b.txt", "--context", ctx]);
            assert_eq!(r.code, 0, "{}", r.stderr);
            if before == after {
                continue;
            }
            let diff = r.json["diff"].as_str().unwrap();
            check_diff(
                &env,
                before.as_bytes(),
                after.as_bytes(),
                diff,
                &format!("{what} -U{ctx}"),
            );
        }
    }
}

fn lines() -> impl Strategy<Value = Vec<(u8, &'static str)>> {
    prop::collection::vec(
        (0u8..5, prop::sample::select(vec!["\n", "\n", "\r\n"])),
        0..14,
    )
}

fn render(v: &[(u8, &str)], open_end: bool) -> Vec<u8> {
    let mut s = String::new();
    for (k, eol) in v {
        s.push_str(["a", "b", "cc", "d", "a b"][*k as usize]);
        s.push_str(eol);
    }
    if open_end && s.ends_with('\n') {
        s.pop();
        if s.ends_with('\r') {
            s.pop();
        }
    }
    s.into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, .. ProptestConfig::default() })]

    /// Random files, randomly edited: the write's diff applies strictly, with
    /// patch and with git apply.
    #[test]
    fn random_write_diffs_apply(
        a in lines(),
        b in lines(),
        open_a in any::<bool>(),
        open_b in any::<bool>(),
    ) {
        let env = TestEnv::new();
        let before = render(&a, open_a);
        let after = render(&b, open_b);
        write_and_check(&env, &before, &after, "random");
    }
}

/// A created file's answer counts every line but builds only the lines its budget
/// shows (the one-sided diff): the first lines, cut, the counts whole, and a dry
/// run's rerun asks for every line (header, 5,000 lines, the no-newline marker).
/// The content comes from a file read whole, and lands byte for byte.
#[test]
fn a_big_created_file_shows_its_first_lines_and_counts_them_all() {
    let env = TestEnv::new();
    let body: String = (0..5000).map(|i| format!("l{i}\n")).collect();
    let content = format!("{body}end");
    env.write("src.txt", content.as_bytes());
    let args = ["write", "n.txt", "--content-file", "src.txt"];
    let dry = env.run(&[&args[..], &["--dry-run", "--max-diff-lines", "3"]].concat());
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    let c = &dry.json["changes"][0];
    assert_eq!(
        c["diff"], "@@ -0,0 +1,5001 @@\n+l0\n+l1\n",
        "{}",
        dry.stdout
    );
    assert_eq!(dry.json["diff_truncated"], true);
    assert_eq!(
        (c["added"].as_u64(), c["deleted"].as_u64()),
        (Some(5001), Some(0))
    );
    let rerun = dry.json["next_commands"][0].as_str().unwrap_or_default();
    assert!(rerun.contains("--max-diff-lines 5003"), "{rerun}");

    let r = env.run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(env.read("n.txt"), content.as_bytes());
    assert_eq!(r.json["bytes"].as_u64(), Some(content.len() as u64));
    let c = &r.json["changes"][0];
    assert_eq!(c["action"], "created");
    assert_eq!(c["added"].as_u64(), Some(5001));
    assert_eq!(r.json["diff_truncated"], true, "{}", r.stdout);
    let op = r.json["op_id"].as_str().unwrap();
    let full = env.run(&["diff", "--op", op]);
    check_diff(
        &env,
        b"",
        content.as_bytes(),
        full.json["changes"][0]["diff"].as_str().unwrap(),
        "created 5001 lines",
    );

    // All of it removed: the other side of the same path.
    let hash = env.run(&["info", "n.txt"]).json["hash"]
        .as_str()
        .unwrap()
        .to_string();
    let e = env.run(&[
        "write",
        "n.txt",
        "--overwrite",
        "--expect-hash",
        &hash,
        "--content",
        "",
    ]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    let c = &e.json["changes"][0];
    assert_eq!(
        (c["added"].as_u64(), c["deleted"].as_u64()),
        (Some(0), Some(5001))
    );
    assert_eq!(e.json["diff_truncated"], true, "{}", e.stdout);
}
