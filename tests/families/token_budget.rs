//! Issue 11's byte budgets, asserted on the bytes actually printed: a write answers
//! compactly (a one-line edit's whole answer ≤ 500 bytes) and hands the rest of its
//! diff to `aitools diff --op`; `--max-diff-lines` is on every write; `tx commit`
//! and `batch --atomic` summarize what the staged ops already showed.

use crate::support::{Run, TestEnv, sha256sum};
use serde_json::Value;

/// A module of realistic lines (about 70 bytes each).
fn module(n: usize) -> String {
    (1..=n)
        .map(|i| {
            format!("    result_{i} = compute_something(value_{i}, options=opts)  # step {i}\n")
        })
        .collect()
}

fn ok(r: Run) -> Run {
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    r
}

#[test]
fn a_one_line_edit_answers_in_at_most_500_bytes_with_its_diff() {
    let env = TestEnv::new();
    env.write("src/app/models.py", module(200));
    let r = ok(env.run(&[
        "edit",
        "src/app/models.py",
        "--old",
        "result_25 = compute_something(value_25",
        "--new",
        "result_25 = compute_other(value_25",
    ]));
    assert!(
        r.stdout.len() <= 500,
        "{} bytes: {}",
        r.stdout.len(),
        r.stdout
    );
    let c = &r.json["changes"][0];
    assert_eq!(
        c["diff"],
        "@@ -25 +25 @@\n-    result_25 = compute_something(value_25, options=opts)  # step 25\n+    result_25 = compute_other(value_25, options=opts)  # step 25\n"
    );
    assert_eq!(
        (c["added"].as_u64(), c["deleted"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(c["hash_after"], sha256sum(&env.path("src/app/models.py")));
    assert!(c.get("hash_before").is_none() && c.get("diff_truncated").is_none());
    assert!(r.json.get("next_commands").is_none(), "{}", r.stdout);
}

#[test]
fn a_cut_diff_continues_with_the_whole_diff() {
    let env = TestEnv::new();
    // One line of 5,000 bytes: the edit's answer stays small, the diff is one call away.
    let long = format!("x = '{}'\n", "a".repeat(5000));
    env.write("long.py", format!("{}{long}{}", module(3), module(3)));
    let r = ok(env.run(&["edit", "long.py", "--old", "x = 'a", "--new", "x = 'b"]));
    assert!(
        r.stdout.len() <= 500,
        "{} bytes: {}",
        r.stdout.len(),
        r.stdout
    );
    let c = &r.json["changes"][0];
    assert_eq!(c["diff_truncated"], true);
    assert_eq!(
        (c["added"].as_u64(), c["deleted"].as_u64()),
        (Some(1), Some(1))
    );
    let op = r.json["op_id"].as_str().unwrap();
    let next = r.json["next_commands"][0].as_str().unwrap();
    assert_eq!(next, format!("aitools diff --op {op}"));
    let full = ok(env.run_line(next));
    let diff = full.json["changes"][0]["diff"].as_str().unwrap();
    assert!(diff.contains(&format!("-{long}")), "{diff}");
    assert!(
        diff.contains(&format!("+x = 'b{}", "a".repeat(4999))),
        "{diff}"
    );

    // A write of many lines: the default shows no partial hunk; the continuation
    // is the full unified diff, as GNU diff prints it.
    let before = module(40);
    env.write("m.py", &before);
    let after = before.replace("compute_something", "compute");
    let h = sha256sum(&env.path("m.py"));
    let w = ok(env.run(&[
        "write",
        "m.py",
        "--overwrite",
        "--expect-hash",
        &h,
        "--content",
        &after,
    ]));
    assert!(w.stdout.len() <= 500, "{}", w.stdout);
    let c = &w.json["changes"][0];
    assert_eq!(c["diff_truncated"], true);
    assert!(c.get("diff").is_none(), "{}", w.stdout);
    assert_eq!(
        (c["added"].as_u64(), c["deleted"].as_u64()),
        (Some(40), Some(40))
    );
    // A dry run has no op: its continuation is the same call with a budget for all.
    let dry = ok(env.run(&[
        "write",
        "m.py",
        "--overwrite",
        "--expect-hash",
        &sha256sum(&env.path("m.py")),
        "--content",
        &before,
        "--dry-run",
    ]));
    assert_eq!(dry.json["changes"][0]["diff_truncated"], true);
    let next = dry.json["next_commands"][0].as_str().unwrap();
    assert!(next.ends_with(" --dry-run --max-diff-lines 81"), "{next}");
    let all = ok(env.run_line(next));
    let c = &all.json["changes"][0];
    assert!(c.get("diff_truncated").is_none(), "{}", all.stdout);
    assert_eq!(c["diff"].as_str().unwrap().lines().count(), 81);
    assert_eq!(
        env.read("m.py"),
        after.as_bytes(),
        "a dry run writes nothing"
    );
    env.write("m.before", &before);
    let gnu = std::process::Command::new("diff")
        .args(["-u", "m.before", "m.py"])
        .current_dir(env.root())
        .output()
        .unwrap();
    let body = |t: &str| {
        t.lines()
            .skip(2)
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    let full = ok(env.run_line(w.json["next_commands"][0].as_str().unwrap()));
    assert_eq!(
        body(full.json["changes"][0]["diff"].as_str().unwrap()),
        body(&String::from_utf8(gnu.stdout).unwrap())
    );
}

#[test]
fn max_diff_lines_is_on_every_write_and_bounds_the_answer() {
    let env = TestEnv::new();
    let list = ok(env.run(&["schema"]));
    let mut writes = 0;
    for c in list.json["commands"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let words: Vec<&str> = name.split(' ').collect();
        // The compact form names limits only; the full form has their types.
        let detail = ok(env.run(&[&["schema"][..], &words[..], &["--full"][..]].concat()));
        let d = &detail.json["commands"][0];
        let has = d["args"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["name"] == "--max-diff-lines" && a["type"] == "integer");
        // `tx diff` (a read) has its own, for the full diffs it shows.
        assert_eq!(has, d["writes"] == true || name == "tx diff", "{name}");
        writes += usize::from(d["writes"] == true);
    }
    assert!(writes >= 14, "{writes}");

    let range = |n: &str| {
        env.write("a.py", module(30));
        let h = sha256sum(&env.path("a.py"));
        env.run(&[
            "edit",
            "a.py",
            "--range",
            "5:9",
            "--new",
            "x\n",
            "--expect-hash",
            &h,
            "--max-diff-lines",
            n,
        ])
    };
    // 0: no diff at all, and nothing to continue.
    let none = ok(range("0"));
    let c = &none.json["changes"][0];
    assert!(
        c.get("diff").is_none() && c.get("diff_truncated").is_none(),
        "{}",
        none.stdout
    );
    assert!(none.json.get("next_commands").is_none());
    assert_eq!(
        (c["added"].as_u64(), c["deleted"].as_u64()),
        (Some(1), Some(5))
    );
    // N: cut at N lines (a hunk header never alone), then the continuation.
    let three = ok(range("3"));
    let c = &three.json["changes"][0];
    assert_eq!(c["diff"].as_str().unwrap().lines().count(), 3);
    assert_eq!(c["diff_truncated"], true);
    assert!(
        three.json["next_commands"][0]
            .as_str()
            .unwrap()
            .starts_with("aitools diff --op ")
    );
    // Large enough: the whole hunk, no continuation.
    let all = ok(range("100"));
    assert_eq!(
        all.json["changes"][0]["diff"]
            .as_str()
            .unwrap()
            .lines()
            .count(),
        7
    );
    assert!(all.json.get("next_commands").is_none());
}

#[test]
fn tx_commit_and_atomic_batch_summarize_the_staged_diffs() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\n");
    env.write("b.txt", "three\n");
    let begin = |env: &TestEnv| {
        ok(env.run(&["tx", "begin"])).json["tx"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let t = begin(&env);
    let staged = ok(env.run(&["edit", "a.txt", "--old", "two", "--new", "2", "--tx", &t]));
    assert_eq!(staged.json["changes"][0]["diff"], "@@ -2 +2 @@\n-two\n+2\n");
    ok(env.run(&["edit", "b.txt", "--old", "three", "--new", "3", "--tx", &t]));
    let summary = |changes: &Value| {
        for c in changes.as_array().unwrap() {
            assert!(
                c.get("diff").is_none() && c.get("diff_truncated").is_none(),
                "{c}"
            );
            assert_eq!(
                (c["added"].as_u64(), c["deleted"].as_u64()),
                (Some(1), Some(1))
            );
        }
        changes.as_array().unwrap().len()
    };
    let commit = ok(env.run(&["tx", "commit", &t]));
    assert_eq!(summary(&commit.json["changes"]), 2);
    assert!(commit.json.get("next_commands").is_none());
    // Asked for, the commit shows them.
    let t = begin(&env);
    ok(env.run(&["edit", "a.txt", "--old", "2", "--new", "two", "--tx", &t]));
    let shown = ok(env.run(&["tx", "commit", &t, "--max-diff-lines", "50"]));
    assert_eq!(shown.json["changes"][0]["diff"], "@@ -2 +2 @@\n-2\n+two\n");

    let b = ok(env.run(&[
        "batch",
        "--atomic",
        "--stdin-data",
        r#"[["edit","a.txt","--old","one","--new","1"],["edit","b.txt","--old","3","--new","three"]]"#,
    ]));
    assert_eq!(summary(&b.json["changes"]), 2);
    assert_eq!(env.read("a.txt"), b"1\ntwo\n");
}
