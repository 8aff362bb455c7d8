//! Issue 32 item 6: fields that say nothing new are left out (`total_matches`
//! when every match is shown, `applied_hunks` when every hunk landed where the
//! patch said), and a search `--limit` the caller chose is an answer, not a cut.

use crate::support::TestEnv;

fn two_files() -> TestEnv {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\nbeta\ngamma\nalpha two\n");
    env.write("b.txt", "alpha x\n");
    env
}

#[test]
fn search_showing_every_match_leaves_total_matches_out() {
    let env = two_files();
    for args in [
        &["search", "alpha"][..],
        &["search", "alpha", "--output", "matches"],
        &["search", "alpha", "-c"],
    ] {
        let r = env.run(args);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert!(
            r.json.get("total_matches").is_none(),
            "{args:?}: {}",
            r.stdout
        );
    }
    // A cut answer still counts what it left out.
    let r = env.run(&["search", "alpha", "--limit", "1"]);
    assert_eq!(r.json["total_matches"], 3, "{}", r.stdout);
    let r = env.run(&["search", "alpha", "--limit", "2", "--offset", "1"]);
    assert_eq!(r.json["total_matches"], 3, "{}", r.stdout);
}

#[test]
fn an_explicit_search_limit_is_an_answer_not_a_cut() {
    let env = two_files();
    for args in [
        &["search", "alpha", "--limit", "1"][..],
        &["search", "alpha", "--max-count", "1"],
    ] {
        let r = env.run(args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stdout);
        assert_eq!(r.json["status"], "ok");
        assert!(r.json.get("next_commands").is_none(), "{}", r.stdout);
        assert!(r.json.get("truncated").is_none(), "{}", r.stdout);
        // The flag to add to the call, not the call again.
        assert_eq!(r.json["more"], "--offset 1");
        // The continuation runs and finishes the answer.
        let next = crate::support::run_more(&env, args, &r);
        assert_eq!(next.code, 0, "{}", next.stdout);
        assert_eq!(next.json["more"], "--offset 2");
    }
    // The default limit still cuts: partial, next_commands continues.
    let many: String = (0..20).map(|i| format!("alpha {i}\n")).collect();
    env.write("c.txt", many);
    let r = env.run(&["search", "alpha", "c.txt"]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["status"], "partial");
    assert_eq!(r.json["truncated"], true);
    assert_eq!(r.json["total_matches"], 20);
    assert!(r.json.get("more").is_none(), "{}", r.stdout);
}

#[test]
fn apply_leaves_applied_hunks_out_when_every_hunk_landed_in_place() {
    let env = TestEnv::new();
    let body: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    env.write("f.txt", &body);
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n";
    let r = env.run_stdin(&["apply", "--stdin"], patch.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.json.get("applied_hunks").is_none(), "{}", r.stdout);
    // A hunk that moved: the count is news again.
    env.write("g.txt", format!("new 0\nnew 1\n{body}"));
    let patch = "--- a/g.txt\n+++ b/g.txt\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n";
    let r = env.run_stdin(&["apply", "--stdin"], patch.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["applied_hunks"], 1, "{}", r.stdout);
}

#[test]
fn run_grep_showing_every_match_leaves_total_matches_out() {
    let env = TestEnv::new();
    let r = env.run(&["run", "--grep", "b", "--", "printf", "a\\nb\\nbb\\n"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        r.json["stdout"]["matches"].as_array().map(Vec::len),
        Some(2)
    );
    assert!(
        r.json["stdout"].get("total_matches").is_none(),
        "{}",
        r.stdout
    );
    // Cut by --grep-limit: the total is news.
    let r = env.run(&[
        "run",
        "--grep",
        "b",
        "--grep-limit",
        "1",
        "--",
        "printf",
        "a\\nb\\nbb\\n",
    ]);
    assert_eq!(r.json["stdout"]["total_matches"], 2, "{}", r.stdout);
}
