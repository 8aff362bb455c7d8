//! Short op ids (`op-<8 hex>`) that several old journaled ops end in: `undo` and
//! `diff --op` answer `selection.ambiguous` listing the whole ids, each with the
//! call repeated on it (new ids never repeat a live op's digits, older ones may).

use crate::support::{Run, TestEnv};
use std::path::{Path, PathBuf};

fn ok(r: Run) -> Run {
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    r
}

/// The workspace's journal directory under the state dir.
fn journal_dir(state: &Path) -> PathBuf {
    let mut stack = vec![state.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() && e.file_name() == "journal" {
                return p;
            }
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    panic!("no journal under {}", state.display());
}

/// Two edits, then the second op's whole id rewritten (same length, so the id
/// files' offsets hold) to end in the first op's 8 hex digits under another time,
/// as two ops made before the uniqueness rule could. Answers (short, [whole ids]).
fn two_ops_sharing_the_short_id(env: &TestEnv) -> (String, Vec<String>) {
    env.write("a.txt", "one\ntwo\n");
    env.write("b.txt", "x\ny\n");
    let first = ok(env.run(&["edit", "a.txt", "--old", "two", "--new", "2"]));
    ok(env.run(&["edit", "b.txt", "--old", "y", "--new", "Y"]));
    let short = first.json["op_id"].as_str().unwrap().to_string();
    let dir = journal_dir(env.state.path());
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let ids: Vec<String> = journal
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["op_id"].to_string())
        .map(|s| s.trim_matches('"').to_string())
        .collect();
    assert_eq!(ids.len(), 2, "{journal}");
    assert!(ids[0].ends_with(&short[3..]), "{ids:?} {short}");
    let planted = format!("op-20250101T000000Z-{}", &short[3..]);
    assert_eq!(planted.len(), ids[1].len());
    std::fs::write(
        dir.join("journal.jsonl"),
        journal.replace(&ids[1], &planted),
    )
    .unwrap();
    std::fs::rename(
        dir.join("ids").join(&ids[1]),
        dir.join("ids").join(&planted),
    )
    .unwrap();
    // Such ops come from a store made before the tail index too (`gc` builds it).
    std::fs::remove_dir_all(dir.join("ids").join("by-tail")).unwrap();
    let mut whole = vec![ids[0].clone(), planted];
    whole.sort();
    (short, whole)
}

#[test]
fn a_short_id_two_old_ops_end_in_is_ambiguous_with_one_repair_per_op() {
    let env = TestEnv::new();
    let (short, whole) = two_ops_sharing_the_short_id(&env);
    let calls = [
        (vec!["undo", short.as_str()], "aitools undo"),
        (vec!["undo", short.as_str(), "--dry-run"], "aitools undo"),
        (vec!["diff", "--op", short.as_str()], "aitools diff --op"),
    ];
    // Listed (no tail index), then through the index `gc` builds from the listing.
    let after_gc = calls.clone().map(|(argv, again)| (argv, again, true));
    for (argv, again, gc) in calls
        .map(|(argv, again)| (argv, again, false))
        .into_iter()
        .chain(after_gc)
    {
        if gc && argv[0] == "undo" && argv.len() == 2 {
            ok(env.run(&["gc"]));
            assert!(journal_dir(env.state.path()).join("ids/by-tail").is_dir());
        }
        let r = env.run(&argv);
        assert_ne!(r.code, 0, "{}", r.stdout);
        assert_eq!(
            r.error_code(),
            "selection.ambiguous",
            "{}{}",
            r.stdout,
            r.stderr
        );
        let candidates: Vec<&str> = r.json["error"]["candidates"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        assert_eq!(candidates, whole, "{}", r.stderr);
        let repairs: Vec<&str> = r.json["error"]["repairs"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|x| x["command"].as_str())
            .collect();
        for id in &whole {
            let want = format!("{again} {id}");
            assert!(repairs.contains(&want.as_str()), "{want} in {repairs:?}");
        }
    }
    // Nothing was undone; each whole id still names its own op.
    assert_eq!(env.read("a.txt"), b"one\n2\n");
    let d = ok(env.run(&["diff", "--op", &whole[0]]));
    assert!(d.stdout.contains(".txt"), "{}", d.stdout);
    let d = ok(env.run(&["diff", "--op", &whole[1]]));
    assert!(d.stdout.contains(".txt"), "{}", d.stdout);
    // Following a repair works.
    let a_op = whole.iter().find(|id| !id.starts_with("op-2025")).unwrap();
    ok(env.run(&["undo", a_op]));
    assert_eq!(env.read("a.txt"), b"one\ntwo\n");
}
