//! `apply` over many files and over one file named twice: each file section finds
//! its file's state by real path (two spellings of one path are one file), and a
//! many-file op journals, answers and undoes every file.

use crate::support::TestEnv;
use crate::support::fixtures::ok;

fn lines(n: usize, tag: &str) -> String {
    (1..=n).map(|i| format!("{tag} line {i}\n")).collect()
}

/// A git-style section changing line `at` (1-based, 3 lines of context) of a
/// file of `lines(n, tag)` whose line `at` is now `old`.
fn section(path: &str, n: usize, tag: &str, at: usize, old: &str, new: &str) -> String {
    let from = at.saturating_sub(3).max(1);
    let to = (at + 3).min(n);
    let mut s = format!(
        "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -{from},{len} +{from},{len} @@\n",
        len = to - from + 1
    );
    for i in from..=to {
        if i == at {
            s.push_str(&format!("-{old}\n+{new}\n"));
        } else {
            s.push_str(&format!(" {tag} line {i}\n"));
        }
    }
    s
}

#[test]
fn apply_sections_naming_one_file_two_ways_apply_in_order_to_that_file() {
    let env = TestEnv::new();
    let body = lines(20, "f");
    env.write("d/f.txt", &body);
    env.write("d/g.txt", lines(20, "g"));
    // The same file as `d/f.txt`, `./d/f.txt` and `d//f.txt`: one slot, the
    // second and third sections applied on top of the first.
    let mut diff = section("d/f.txt", 20, "f", 4, "f line 4", "four");
    diff.push_str(&section("d/g.txt", 20, "g", 10, "g line 10", "ten"));
    diff.push_str(&section("./d/f.txt", 20, "f", 12, "f line 12", "twelve"));
    diff.push_str(&section("d//f.txt", 20, "f", 4, "four", "FOUR"));
    let r = env.run_stdin(&["apply", "--stdin"], diff.as_bytes());
    ok(&r);
    assert!(r.json.get("applied_hunks").is_none(), "{}", r.stdout);
    let changes = r.json["changes"].as_array().expect("changes");
    let paths: Vec<&str> = changes.iter().filter_map(|c| c["path"].as_str()).collect();
    assert_eq!(paths, ["d/f.txt", "d/g.txt"], "{}", r.stdout);
    let want = body
        .replace("f line 4\n", "FOUR\n")
        .replace("f line 12\n", "twelve\n");
    assert_eq!(String::from_utf8_lossy(&env.read("d/f.txt")), want);
    // Undone as one op: both files as they were.
    let u = env.run(&["undo", &r.op_id()]);
    ok(&u);
    assert_eq!(String::from_utf8_lossy(&env.read("d/f.txt")), body);
    assert_eq!(
        String::from_utf8_lossy(&env.read("d/g.txt")),
        lines(20, "g")
    );

    // A section whose file an earlier section of the same diff deleted is a
    // file that does not exist, whatever the spelling.
    let mut del = String::from(
        "diff --git a/d/g.txt b/d/g.txt\ndeleted file mode 100644\n--- a/d/g.txt\n+++ /dev/null\n",
    );
    del.push_str(&format!(
        "@@ -1,20 +0,0 @@\n{}",
        lines(20, "g")
            .lines()
            .map(|l| format!("-{l}\n"))
            .collect::<String>()
    ));
    del.push_str(&section("./d/g.txt", 20, "g", 10, "g line 10", "ten"));
    let r = env.run_stdin(&["apply", "--stdin"], del.as_bytes());
    assert_eq!(r.error_code(), "input.not-found", "{}", r.stdout);
    assert_eq!(
        String::from_utf8_lossy(&env.read("d/g.txt")),
        lines(20, "g"),
        "nothing written"
    );
}

#[test]
fn apply_over_many_files_journals_answers_and_undoes_each() {
    let env = TestEnv::new();
    let n = 60;
    let mut diff = String::new();
    for i in 0..n {
        let p = format!("d{}/f{i}.txt", i % 6);
        let tag = format!("f{i}");
        env.write(&p, lines(30, &tag));
        diff.push_str(&section(
            &p,
            30,
            &tag,
            15,
            &format!("{tag} line 15"),
            &format!("changed {i}"),
        ));
    }
    // Asked for, every file's hunk is shown (a dry run writes nothing).
    let dry = env.run_stdin(
        &["apply", "--stdin", "--dry-run", "--max-diff-lines", "1000"],
        diff.as_bytes(),
    );
    ok(&dry);
    let shown = dry.json["changes"].as_array().expect("changes");
    assert_eq!(shown.len(), n);
    for (i, c) in shown.iter().enumerate() {
        let want = format!("@@ -15 +15 @@\n-f{i} line 15\n+changed {i}\n");
        assert_eq!(c["diff"].as_str(), Some(want.as_str()), "{c}");
    }
    // Not asked for, and every hunk where the patch said: path and hash only.
    let r = env.run_stdin(&["apply", "--stdin"], diff.as_bytes());
    ok(&r);
    assert!(r.json.get("applied_hunks").is_none(), "{}", r.stdout);
    let changes = r.json["changes"].as_array().expect("changes");
    assert_eq!(changes.len(), n);
    for c in changes {
        let keys: Vec<&str> = c
            .as_object()
            .expect("change")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["hash", "path"], "{c}");
        assert!(c["hash"].as_str().is_some_and(|h| h.len() == 12), "{c}");
    }
    assert!(r.json.get("next_commands").is_none(), "{}", r.stdout);
    for i in 0..n {
        let p = format!("d{}/f{i}.txt", i % 6);
        let want = lines(30, &format!("f{i}"))
            .replace(&format!("f{i} line 15\n"), &format!("changed {i}\n"));
        assert_eq!(String::from_utf8_lossy(&env.read(&p)), want, "{p}");
    }
    // The journal holds every file: the op's full diff names each one.
    let d = env.run(&["diff", "--op", &r.op_id()]);
    ok(&d);
    assert_eq!(d.json["changes"].as_array().map(Vec::len), Some(n));
    let u = env.run(&["undo", &r.op_id()]);
    ok(&u);
    for i in 0..n {
        let p = format!("d{}/f{i}.txt", i % 6);
        assert_eq!(
            String::from_utf8_lossy(&env.read(&p)),
            lines(30, &format!("f{i}")),
            "{p}"
        );
    }
    // Nothing is left pending: the intent record was removed with the op.
    let h = env.run(&["history"]);
    ok(&h);
}
