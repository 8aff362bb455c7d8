//! Crash safety of transactions, proven from outside the process: the real binary
//! is killed with SIGKILL (strace fault injection) at every file syscall — or an
//! even sample of them — of a `tx commit` and of a `--tx` write, then the next
//! commands must find:
//! - `tx commit`: the tree wholly before (journal without the op, the tx intact
//!   exactly as before, and committing it again works) or wholly after (journal
//!   with the op once, the tx gone, `undo` restoring the before-tree); no temp
//!   file in the tree.
//! - a `--tx` write: the tree untouched, and the tx exactly as after the previous
//!   op or exactly as after this one; committing it then gives the matching tree
//!   (also when the ops log ends in a torn record a kill mid-append left).
//! - the recovery after a killed `tx commit` (one that left an incomplete or a
//!   complete intent record), itself killed at every syscall from its first look
//!   into `commit/`: the same before-or-after as a killed commit.
//! - `tx rebase`: the tree untouched, the tx exactly as before the rebase (which
//!   can then be run again) or as after it; no scratch tx listed.
//! - `batch --stdin --atomic`: nothing written (any tx it left is unlisted, then swept) or
//!   all of it, journaled once, its tx gone, `undo` restoring the tree.
//!
//! `AITOOLS_CRASH_POINTS` sets the kill points per scenario (default 90; the
//! recovery scenario takes `max(2, N/45)` first kills of each kind and up to
//! `max(40, N)` recovery kill points after each).

#[path = "support/crash.rs"]
mod harness;
#[path = "support/mod.rs"]
mod support;

use harness::{Baseline, Case, argv as args, counts, in_order, points, sample};
use serde_json::Value;

fn max_points() -> usize {
    harness::max_points(90)
}

/// Every call from the first that names the tx's own `blobs/` to three past the
/// last (its staged blobs' writes, syncs and renames, and the sync of the shared
/// `blobs/` a commit moves them into), as kill points: killed through whatever
/// the even sample skips.
fn blob_points(seq: &[harness::Call], t: &str) -> Vec<(String, usize)> {
    let key = format!("{t}/blobs");
    let hit: Vec<usize> = seq
        .iter()
        .enumerate()
        .filter(|(_, (_, _, l))| l.contains(&key))
        .map(|(i, _)| i)
        .collect();
    let (Some(&a), Some(&b)) = (hit.first(), hit.last()) else {
        return Vec::new();
    };
    in_order(&seq[a..(b + 4).min(seq.len())])
}

/// `pts` with `more` added (each once).
fn with_points(mut pts: Vec<(String, usize)>, more: Vec<(String, usize)>) -> Vec<(String, usize)> {
    for p in more {
        if !pts.contains(&p) {
            pts.push(p);
        }
    }
    pts
}

/// What only transactions ask of a case.
trait TxCase {
    fn commit_marker(&self) -> bool;
    fn status(&self, tx: &str) -> Value;
}

impl TxCase for Case {
    /// Whether some tx has a `committing` marker (a killed `tx commit` left it).
    fn commit_marker(&self) -> bool {
        let Some(rd) = self
            .ws_state()
            .and_then(|ws| std::fs::read_dir(ws.join("tx")).ok())
        else {
            return false;
        };
        rd.flatten().any(|e| e.path().join("committing").exists())
    }
    /// `tx status <tx>` (or its error code).
    fn status(&self, tx: &str) -> Value {
        let r = self.run(&["tx", "status", tx]);
        if r.code == 0 {
            // What recovery reported is not part of the tx.
            let mut v = r.json;
            if let Some(o) = v.as_object_mut() {
                o.remove("recovered");
            }
            v
        } else {
            Value::String(r.error_code().to_string())
        }
    }
}

/// Kills the staged write `argv` (into tx `t`) at every sampled syscall, each time
/// from the saved state: the tree never changes, no temp is left, and the tx is as
/// before the op or as after it (`statuses`); `check` is then told which (`true`:
/// after) to check what the tx commits to. Returns the kills that ended before and
/// after.
#[allow(clippy::too_many_arguments)]
fn kill_staged_write(
    c: &Case,
    t: &str,
    argv: &[String],
    name: &str,
    seq: &[harness::Call],
    tree: &harness::Tree,
    statuses: [&Value; 2],
    check: impl Fn(&Case, bool, &str),
) -> (usize, usize) {
    let [status_before, status_after] = statuses;
    let pts = with_points(points(&counts(seq), max_points()), blob_points(seq, t));
    let (mut n_before, mut n_after) = (0, 0);
    for (sys, n) in &pts {
        c.restore();
        let code = c.kill_at(sys, *n, argv, None);
        let label = format!("{name} / kill at {sys} #{n} (exit {code})");
        let st = c.status(t);
        assert_eq!(&c.tree(), tree, "{label}: the tree changed");
        c.no_temps(&label);
        let after = st == *status_after;
        if after {
            n_after += 1;
        } else {
            assert_eq!(
                &st, status_before,
                "{label}: the tx is neither before nor after the op"
            );
            n_before += 1;
        }
        check(c, after, &label);
    }
    eprintln!(
        "{name}: {} syscalls, {} kill points ({n_before} before, {n_after} after)",
        seq.len(),
        pts.len()
    );
    (n_before, n_after)
}

/// Saves the case, runs the staged write `argv` (into tx `t`) once cleanly
/// (`check_trace` is shown its syscalls), then [`kill_staged_write`] at every
/// sampled point from the saved state, each kill's tx checked against what it
/// commits to before and after the op; kills must end on both sides.
fn kill_staged_write_both_ways(
    c: &Case,
    t: &str,
    argv: &[String],
    name: &str,
    check_trace: impl Fn(&[harness::Call]),
) {
    c.save();
    let tree = c.tree();
    let status_before = c.status(t);
    let (code, out, seq) = c.trace(argv, None);
    assert_eq!(code, 0, "clean staged write failed: {out}");
    check_trace(&seq);
    let status_after = c.status(t);
    assert_ne!(status_before, status_after);
    assert_eq!(c.tree(), tree, "a staged write touched the tree");
    let after_commit = commit_tree(c, t);
    c.restore();
    let before_commit = commit_tree(c, t);
    assert_ne!(after_commit, before_commit);
    let (n_before, n_after) = kill_staged_write(
        c,
        t,
        argv,
        name,
        &seq,
        &tree,
        [&status_before, &status_after],
        |c, after, label| {
            let want = if after { &after_commit } else { &before_commit };
            assert_eq!(&commit_tree(c, t), want, "{label}: the commit differs");
        },
    );
    assert!(
        n_before > 0 && n_after > 0,
        "{n_before} before, {n_after} after"
    );
}

/// A tx with three staged ops over several files: modify, create in a new
/// directory, delete.
fn staged_tx(c: &Case) -> String {
    staged_tx_begun(c, &["tx", "begin"])
}

/// `staged_tx`, the tx begun by `begin`.
fn staged_tx_begun(c: &Case, begin: &[&str]) -> String {
    c.env.write("a.txt", "alpha\nbeta\n");
    c.env.write("c.txt", "gone\n");
    c.env.write("keep.txt", "keep\n");
    let t = c.ok(begin)["tx"].as_str().unwrap().to_string();
    let h = c.ok(&["info", "a.txt"])["hash"]
        .as_str()
        .unwrap()
        .to_string();
    c.ok(&[
        "write",
        "a.txt",
        "--overwrite",
        "--expect-hash",
        &h,
        "--content",
        "alpha\nBETA\n",
        "--tx",
        &t,
    ]);
    c.ok(&["write", "new/dir/d.txt", "--content", "new\n", "--tx", &t]);
    c.ok(&["delete", "c.txt", "--tx", &t]);
    t
}

/// A clean `tx commit` of `staged_tx`, and what it did.
struct Commit {
    t: String,
    status_before: Value,
    run: Baseline,
}

/// Stages the tx, saves the case, commits cleanly under strace, and restores.
fn commit_baseline(c: &Case) -> Commit {
    commit_baseline_of(c, staged_tx(c))
}

/// `commit_baseline` of the staged tx `t`.
fn commit_baseline_of(c: &Case, t: String) -> Commit {
    c.save();
    let status_before = c.status(&t);
    let run = c.baseline(args(&["tx", "commit", &t]), None, "tx commit");
    c.restore();
    Commit {
        t,
        status_before,
        run,
    }
}

/// The commit invariant once a command has run after the disturbance (`st` is
/// what `tx status` said then): true when the commit ended up applied (it was
/// then undone), false when it did not (it was then committed again).
fn check_commit(c: &Case, b: &Commit, st: &Value, label: &str) -> bool {
    if c.before_or_after(&b.run, label) {
        assert_eq!(
            *st,
            Value::from("input.not-found"),
            "{label}: the tx survived its commit"
        );
        c.undo_restores(&b.run, label);
        true
    } else {
        assert_eq!(*st, b.status_before, "{label}: the tx is not as it was");
        let again = c.run(&["tx", "commit", &b.t]);
        assert_eq!(
            again.code, 0,
            "{label}: commit after the kill failed: {}",
            again.stderr
        );
        assert_eq!(c.tree(), b.run.after, "{label}: the second commit differs");
        false
    }
}

#[test]
fn sigkill_during_tx_commit_leaves_before_or_after() {
    let c = Case::new();
    let b = commit_baseline(&c);
    kill_commit_everywhere(&c, &b, "tx commit");
}

/// The commit of an approved `--review` tx (it checks the decision under its
/// locks, then writes): before (the tx as it was, its approval still counting:
/// committing again writes without a new one) or after.
#[test]
fn sigkill_during_the_commit_of_an_approved_review_tx_leaves_before_or_after() {
    let c = Case::new();
    let t = staged_tx_begun(&c, &["tx", "begin", "--review"]);
    c.ok(&["tx", "approve", &t, "--note", "ok"]);
    let b = commit_baseline_of(&c, t);
    assert_eq!(b.status_before["review"]["state"], "approved");
    kill_commit_everywhere(&c, &b, "review tx commit");
}

/// `tx approve` killed at every sampled syscall: the review is pending (no
/// decision, or a torn temp that counts for nothing) or approved; approving
/// again (when pending) and committing then give the clean commit's tree.
#[test]
fn sigkill_during_tx_approve_leaves_the_review_pending_or_approved() {
    let c = Case::new();
    let t = staged_tx_begun(&c, &["tx", "begin", "--review"]);
    c.save();
    let tree = c.tree();
    let argv = args(&["tx", "approve", &t]);
    let (code, out, seq) = c.trace(&argv, None);
    assert_eq!(code, 0, "clean approve failed: {out}");
    c.ok(&["tx", "commit", &t, "--review-timeout", "0"]);
    let after = c.tree();
    assert_ne!(after, tree, "the approved commit changed nothing");
    let (mut n_pending, mut n_approved) = (0, 0);
    for (sys, n) in &sample(&in_order(&seq), max_points()) {
        c.restore();
        let code = c.kill_at(sys, *n, &argv, None);
        let label = format!("tx approve / kill at {sys} #{n} (exit {code})");
        assert_eq!(c.tree(), tree, "{label}: the tree changed");
        let st = c.status(&t);
        let state = st["review"]["state"].as_str().unwrap_or("").to_string();
        let timed_out = c.run(&["tx", "commit", &t, "--review-timeout", "0"]);
        match state.as_str() {
            "pending" => {
                n_pending += 1;
                assert_eq!(
                    timed_out.error_code(),
                    "environment.review-timeout",
                    "{label}"
                );
                c.ok(&["tx", "approve", &t]);
                let r = c.run(&["tx", "commit", &t, "--review-timeout", "0"]);
                assert_eq!(
                    r.code, 0,
                    "{label}: commit after approving again: {}",
                    r.stdout
                );
            }
            "approved" => {
                n_approved += 1;
                assert_eq!(timed_out.code, 0, "{label}: {}", timed_out.stdout);
            }
            _ => panic!("{label}: review state {st}"),
        }
        assert_eq!(c.tree(), after, "{label}: the commit differs");
    }
    eprintln!(
        "tx approve: {} kill points ({n_pending} pending, {n_approved} approved)",
        n_pending + n_approved
    );
    assert!(
        n_pending > 0 && n_approved > 0,
        "{n_pending} pending, {n_approved} approved"
    );
}

/// Kills the commit `b` at every sampled syscall (and each staged blob's move):
/// each kill leaves it before or after (`check_commit`), and both happen.
fn kill_commit_everywhere(c: &Case, b: &Commit, name: &str) {
    // The commit moves the tx's staged blobs into the shared `blobs/`.
    let moves = blob_points(&b.run.seq, &b.t);
    assert!(
        moves.iter().any(|(s, _)| s.starts_with("rename")),
        "the commit moves no staged blob"
    );
    let pts = with_points(sample(&in_order(&b.run.seq), max_points()), moves);
    let (mut n_before, mut n_after) = (0, 0);
    for (sys, n) in &pts {
        c.restore();
        let code = c.kill_at(sys, *n, &b.run.argv, None);
        let label = format!("{name} / kill at {sys} #{n} (exit {code})");
        // The next command runs recovery (and settles a half-done commit).
        let st = c.status(&b.t);
        if check_commit(c, b, &st, &label) {
            n_after += 1;
        } else {
            n_before += 1;
        }
    }
    eprintln!(
        "{name}: {} syscalls, {} kill points ({n_before} before, {n_after} after)",
        b.run.seq.len(),
        pts.len()
    );
    assert!(
        n_before > 0 && n_after > 0,
        "{n_before} before, {n_after} after"
    );
}

/// The points of a clean `tx commit` at which a kill leaves an intent record:
/// (incomplete, complete), in order. The record exists from its creating
/// `openat` (a kill there runs nothing) through its `unlink` (a kill there
/// leaves it, complete); it is complete from just after the write of its
/// 65-byte checksum line.
fn record_points(b: &Commit) -> (Vec<(String, usize)>, Vec<(String, usize)>) {
    let seq = &b.run.seq;
    let open = seq
        .iter()
        .position(|(s, _, l)| s == "openat" && l.contains(".intent\"") && l.contains("O_CREAT"))
        .expect("the commit creates an intent record");
    let fd = seq[open].2.rsplit("= ").next().unwrap().trim().to_string();
    let sum = open
        + seq[open..]
            .iter()
            .position(|(s, _, l)| {
                s == "write" && l.starts_with(&format!("write({fd}, ")) && l.ends_with("= 65")
            })
            .expect("the checksum line is written");
    let gone = open
        + seq[open..]
            .iter()
            .position(|(s, _, l)| s.starts_with("unlink") && l.contains(".intent\""))
            .expect("the record is removed");
    let pt = |(s, n, _): &(String, usize, String)| (s.clone(), *n);
    (
        seq[open + 1..=sum].iter().map(pt).collect(),
        seq[sum + 1..=gone].iter().map(pt).collect(),
    )
}

#[test]
fn a_kill_inside_the_recovery_after_a_killed_tx_commit_is_recovered_too() {
    let c = Case::new();
    let b = commit_baseline(&c);
    let (incomplete, complete) = record_points(&b);
    // Two first kills of each kind by default (the first and last of each
    // range among them); every one with AITOOLS_CRASH_POINTS high enough.
    let per_kind = (max_points() / 45).max(2);
    let firsts: Vec<((String, usize), bool)> = sample(&incomplete, per_kind)
        .into_iter()
        .map(|p| (p, false))
        .chain(sample(&complete, per_kind).into_iter().map(|p| (p, true)))
        .collect();
    // The next command: `tx status` runs recovery, then settles the commit marker.
    let next = args(&["tx", "status", &b.t]);
    let per_first = max_points().max(40);
    let mut report = Vec::new();
    let (mut n_before, mut n_after, mut kills) = (0, 0, 0);
    for ((sys, n), complete) in &firsts {
        c.restore();
        c.kill_at(sys, *n, &b.run.argv, None);
        assert_eq!(
            c.intent_records(),
            vec![*complete],
            "tx commit killed at {sys} #{n}: not the intent record expected"
        );
        let (_, _, rec) = c.trace(&next, None);
        // Its recovery: from the first look into commit/ to the end.
        let start = rec
            .iter()
            .position(|(_, _, l)| l.contains("/commit\"") || l.contains("/commit/"))
            .expect("the next command looks into commit/");
        let rec_pts = sample(&in_order(&rec[start..]), per_first);
        for (rs, rn) in &rec_pts {
            // The first kill again rather than a copy of its result: the record's
            // steps name files by inode, which a copy would not keep.
            c.restore();
            c.kill_at(sys, *n, &b.run.argv, None);
            let code = c.kill_at(rs, *rn, &next, None);
            let label = format!(
                "tx commit killed at {sys} #{n} ({}), then its recovery at {rs} #{rn} (exit {code})",
                if *complete {
                    "complete record"
                } else {
                    "incomplete record"
                }
            );
            let st = c.status(&b.t);
            kills += 1;
            if check_commit(&c, &b, &st, &label) {
                n_after += 1;
                assert!(
                    *complete,
                    "{label}: an incomplete record was rolled forward"
                );
            } else {
                n_before += 1;
                assert!(!*complete, "{label}: a complete record was lost");
            }
        }
        report.push(format!(
            "{sys}#{n} ({}): {} recovery syscalls, {} kill points",
            if *complete { "complete" } else { "incomplete" },
            rec.len() - start,
            rec_pts.len()
        ));
    }
    eprintln!(
        "recovery after a killed tx commit: {} first kills ({} incomplete-record points, {} complete), {kills} recovery kills ({n_before} before, {n_after} after)\n  {}",
        firsts.len(),
        incomplete.len(),
        complete.len(),
        report.join("\n  ")
    );
    assert!(
        n_before > 0 && n_after > 0,
        "{n_before} before, {n_after} after"
    );
}

/// The tree `t` commits to (what each outcome of a staged write commits to).
fn commit_tree(c: &Case, t: &str) -> harness::Tree {
    let r = c.run(&["tx", "commit", t]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    c.tree()
}

#[test]
fn sigkill_during_a_tx_write_leaves_the_tx_as_after_the_previous_op_or_this_one() {
    let c = Case::new();
    let t = staged_tx(&c);
    let argv = args(&["copy", "new/dir/d.txt", "other/e.txt", "--tx", &t]);
    kill_staged_write_both_ways(&c, &t, &argv, "--tx write", |_| {});
}

/// A staged op appends its record to the ops log; a kill inside that append (a
/// torn record, no final newline) is ignored on load and cut off by the next op.
/// Killed at every sampled syscall of that next op (the cut, then the append),
/// the tx is as before it (the torn bytes still ignored) or as after it.
#[test]
fn sigkill_during_a_tx_write_after_a_torn_record_leaves_the_tx_before_or_after() {
    let c = Case::new();
    let t = staged_tx(&c);
    let log = c
        .ws_state()
        .unwrap()
        .join("tx")
        .join(&t)
        .join("ops.0.jsonl");
    let mut bytes = std::fs::read(&log).unwrap();
    let last = bytes[..bytes.len() - 1]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let torn = bytes[last..bytes.len() / 2 + last / 2].to_vec();
    bytes.extend_from_slice(&torn);
    std::fs::write(&log, &bytes).unwrap();
    let argv = args(&[
        "edit", "keep.txt", "--old", "keep", "--new", "kept", "--tx", &t,
    ]);
    kill_staged_write_both_ways(&c, &t, &argv, "--tx write after a torn record", |seq| {
        assert!(
            seq.iter().any(|(s, _, _)| s == "ftruncate"),
            "the torn record was not cut"
        );
    });
}

#[test]
fn sigkill_during_tx_rebase_leaves_the_tx_as_before_or_after_the_rebase() {
    let c = Case::new();
    c.env.write("a.txt", "one\ntwo\nthree\n");
    c.env.write("b.txt", "b1\n");
    let t = c.ok(&["tx", "begin"])["tx"].as_str().unwrap().to_string();
    // Re-run on rebase (its path drifts), copied as is, copied as is.
    c.ok(&["edit", "a.txt", "--old", "two", "--new", "TWO", "--tx", &t]);
    c.ok(&["write", "n.txt", "--content", "new\n", "--tx", &t]);
    c.ok(&["edit", "b.txt", "--old", "b1", "--new", "B1", "--tx", &t]);
    c.env.write("a.txt", "zero\none\ntwo\nthree\n");
    c.save();
    let tree = c.tree();
    let status_before = c.status(&t);
    let argv = args(&["tx", "rebase", &t]);
    let (code, out, seq) = c.trace(&argv, None);
    assert_eq!(code, 0, "clean rebase failed: {out}");
    let status_after = c.status(&t);
    assert_ne!(status_before, status_after);
    assert_eq!(c.tree(), tree, "a rebase touched the tree");
    let r = c.run(&["tx", "commit", &t]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let committed = c.tree();
    assert_eq!(
        std::fs::read_to_string(c.ws().join("a.txt")).unwrap(),
        "zero\none\nTWO\nthree\n"
    );
    // Before the rebase the drift blocks the commit.
    c.restore();
    let r = c.run(&["tx", "commit", &t]);
    assert_eq!(r.error_code(), "refusal.target-changed", "{}", r.stderr);
    assert_eq!(c.tree(), tree);
    // The rebase moves the scratch tx's blobs into the tx's own and syncs them.
    let adopted = blob_points(&seq, &t);
    assert!(
        adopted.iter().any(|(s, _)| s.starts_with("rename")),
        "the rebase adopts no blob"
    );
    let pts = with_points(sample(&in_order(&seq), max_points()), adopted);
    let (mut n_before, mut n_after) = (0, 0);
    for (sys, n) in &pts {
        c.restore();
        let code = c.kill_at(sys, *n, &argv, None);
        let label = format!("tx rebase / kill at {sys} #{n} (exit {code})");
        let st = c.status(&t);
        assert_eq!(c.tree(), tree, "{label}: the tree changed");
        c.no_temps(&label);
        if st == status_after {
            n_after += 1;
        } else {
            assert_eq!(
                st, status_before,
                "{label}: the tx is neither as before nor as after the rebase"
            );
            n_before += 1;
            let r = c.run(&["tx", "rebase", &t]);
            assert_eq!(
                r.code, 0,
                "{label}: rebase after the kill failed: {}",
                r.stderr
            );
            assert_eq!(
                c.status(&t),
                status_after,
                "{label}: the second rebase differs"
            );
        }
        // Only the tx itself is listed (not a rebase's scratch tx).
        let list = c.ok(&["tx", "status"]);
        assert_eq!(list["total"], 1, "{label}: {list}");
        let r = c.run(&["tx", "commit", &t]);
        assert_eq!(r.code, 0, "{label}: commit failed: {}", r.stderr);
        assert_eq!(c.tree(), committed, "{label}: the commit differs");
    }
    eprintln!(
        "tx rebase: {} syscalls, {} kill points ({n_before} before, {n_after} after)",
        seq.len(),
        pts.len()
    );
    assert!(
        n_before > 0 && n_after > 0,
        "{n_before} before, {n_after} after"
    );
}

#[test]
fn sigkill_during_an_atomic_batch_writes_all_or_nothing() {
    let c = Case::new();
    c.env.write("a.txt", "alpha\nbeta\n");
    c.env.write("c.txt", "gone\n");
    c.env.write("keep.txt", "keep\n");
    let input: &[u8] = br#"[["write","new/dir/d.txt","--content","new\n"],["edit","a.txt","--old","beta","--new","BETA"],["delete","c.txt"]]"#;
    c.save();
    let b = c.baseline(
        args(&["batch", "--stdin", "--atomic"]),
        Some(input),
        "batch",
    );
    let pts = sample(&in_order(&b.seq), max_points());
    let (mut n_before, mut n_after, mut n_settled) = (0, 0, 0);
    for (sys, n) in &pts {
        c.restore();
        let code = c.kill_at(sys, *n, &b.argv, Some(input));
        let label = format!("batch --atomic / kill at {sys} #{n} (exit {code})");
        let marker = c.commit_marker();
        // The next command runs recovery and settles every tx it lists.
        let list = c.ok(&["tx", "status"]);
        if c.before_or_after(&b, &label) {
            n_after += 1;
            n_settled += usize::from(marker);
            assert_eq!(
                list["total"], 0,
                "{label}: the batch's tx survived its commit: {list}"
            );
            c.undo_restores(&b, &label);
        } else {
            n_before += 1;
            // A batch killed before its commit leaves no tx anyone sees: its
            // owner lock is free, so it is not listed, and `tx begin` sweeps it.
            assert_eq!(
                list["total"], 0,
                "{label}: a dead batch's tx is listed: {list}"
            );
            let fresh = c.ok(&["tx", "begin"]);
            let fresh = fresh["tx"].as_str().unwrap();
            let left: Vec<String> = c
                .ws_state()
                .and_then(|ws| std::fs::read_dir(ws.join("tx")).ok())
                .map(|rd| {
                    rd.flatten()
                        .filter(|e| e.path().is_dir())
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            assert_eq!(left, vec![fresh.to_string()], "{label}: not swept");
            assert_eq!(c.tree(), b.before, "{label}: the tree changed");
        }
    }
    eprintln!(
        "batch --atomic: {} syscalls, {} kill points ({n_before} before, {n_after} after, {n_settled} of them with the commit marker left)",
        b.seq.len(),
        pts.len()
    );
    assert!(
        n_before > 0 && n_settled > 0,
        "{n_before} before, {n_after} after, {n_settled} with the marker"
    );
}

/// The first op of a tx also writes (and syncs) its `unsynced` marker before it
/// stages without syncs: killed at any point, the tx is empty or holds the op, and
/// it commits to the matching tree.
#[test]
fn sigkill_during_the_first_tx_write_leaves_the_tx_empty_or_with_the_op() {
    let c = Case::new();
    c.env.write("a.txt", "alpha\nbeta\n");
    let t = c.ok(&["tx", "begin"])["tx"].as_str().unwrap().to_string();
    c.save();
    let tree = c.tree();
    let status_before = c.status(&t);
    let argv = args(&[
        "edit", "a.txt", "--old", "beta", "--new", "BETA", "--tx", &t,
    ]);
    let (code, out, seq) = c.trace(&argv, None);
    assert_eq!(code, 0, "clean staged write failed: {out}");
    // Its new content is a blob of the tx's own (unsynced), killed through.
    assert!(
        blob_points(&seq, &t)
            .iter()
            .any(|(s, _)| s.starts_with("rename")),
        "the staged write names no blob of the tx's own"
    );
    let status_after = c.status(&t);
    assert_ne!(status_before, status_after);
    assert_eq!(c.tree(), tree, "a staged write touched the tree");
    let after_commit = commit_tree(&c, &t);
    let (n_before, n_after) = kill_staged_write(
        &c,
        &t,
        &argv,
        "first --tx write",
        &seq,
        &tree,
        [&status_before, &status_after],
        |c, after, label| {
            if !after {
                // The op can be staged again, then commits as a clean run does.
                let r = c.run(&argv.iter().map(String::as_str).collect::<Vec<_>>());
                assert_eq!(r.code, 0, "{label}: staging again failed: {}", r.stderr);
            }
            assert_eq!(
                commit_tree(c, &t),
                after_commit,
                "{label}: the commit differs"
            );
        },
    );
    assert!(
        n_before > 0 && n_after > 0,
        "{n_before} before, {n_after} after"
    );
}
