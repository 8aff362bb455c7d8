//! A write's target file swapped for a symlink to a file outside the workspace
//! while the write runs: `apply`, `edit` and `write` read and plan a path with one
//! lstat of it (the read reuses the lstat taken on the way to the real path, the
//! store's look the one `boundary` took), so whatever the swap does between those
//! calls, the file outside is never written, and the symlink is never followed.
//!
//! `AITOOLS_RACE_TRIES` sets the tries per command (default 30).

use crate::support::{self, TestEnv};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn tries() -> usize {
    std::env::var("AITOOLS_RACE_TRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
}

/// Exchanges `a` and `b` until finished, with pauses of 0 to 20 ms: some calls
/// find the file in place for their whole read, others see it swapped between
/// two of their steps.
fn swap_paused(a: PathBuf, b: PathBuf) -> support::Swapper {
    let mut k = 0u64;
    support::swap_in_thread(move || {
        let swapped = support::exchange(&a, &b);
        k = (k * 7 + 3) % 401;
        std::thread::sleep(std::time::Duration::from_micros(k * 50));
        swapped
    })
}

const TEXT: &str = "one\ntwo\nthree\n";

#[test]
fn a_file_swapped_for_a_symlink_to_the_outside_is_never_written_through() {
    let env = TestEnv::new();
    let ws = std::fs::canonicalize(env.root()).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let out = std::fs::canonicalize(outside.path()).unwrap().join("f.txt");
    std::fs::write(&out, TEXT).unwrap();
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    // The hashes `write --overwrite` expects: of TEXT, and of TEXT with TWO.
    env.write("h1.txt", TEXT);
    env.write("h2.txt", TEXT.replace("two", "TWO"));
    let hash = |name: &str| {
        env.run(&["info", name]).json["hash"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (h1, h2) = (hash("h1.txt"), hash("h2.txt"));
    // Each try flips the file between TEXT and TEXT with TWO, so the call of
    // every other try finds what it changes (when the swap leaves it there).
    let kinds: [(&str, [Vec<&str>; 2], Option<&str>); 3] = [
        (
            "apply",
            [
                vec!["apply", "--stdin"],
                vec!["apply", "--stdin", "--reverse"],
            ],
            Some(diff),
        ),
        (
            "edit",
            [
                vec!["edit", "f.txt", "--old", "two", "--new", "TWO"],
                vec!["edit", "f.txt", "--old", "TWO", "--new", "two"],
            ],
            None,
        ),
        (
            "write",
            [
                vec![
                    "write",
                    "f.txt",
                    "--overwrite",
                    "--expect-hash",
                    &h1,
                    "--content",
                    "one\nTWO\nthree\n",
                ],
                vec![
                    "write",
                    "f.txt",
                    "--overwrite",
                    "--expect-hash",
                    &h2,
                    "--content",
                    TEXT,
                ],
            ],
            None,
        ),
    ];
    let bin = support::bin();
    let mut report = Vec::new();
    let mut escaped = 0;
    for (kind, argv, input) in &kinds {
        // At rest: f.txt the workspace's file, .swapf a symlink to the outside one.
        for name in ["f.txt", ".swapf"] {
            let _ = std::fs::remove_file(ws.join(name));
        }
        std::fs::write(ws.join("f.txt"), TEXT).unwrap();
        std::os::unix::fs::symlink(&out, ws.join(".swapf")).unwrap();
        let swapper = swap_paused(ws.join("f.txt"), ws.join(".swapf"));
        let mut ok = 0;
        for i in 0..tries() {
            let mut child = Command::new(&bin)
                .args(&argv[i % 2])
                .current_dir(&ws)
                .env("XDG_STATE_HOME", env.state.path())
                .env("AITOOLS_FEEDBACK_DIR", env.state.path().join("feedback"))
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
                let _ = stdin.write_all(text.as_bytes());
            }
            ok += child.wait().map(|s| s.success()).unwrap_or(false) as usize;
        }
        let swaps = swapper.finish();
        let now = std::fs::read_to_string(&out).unwrap_or_default();
        let still_file = std::fs::symlink_metadata(&out).map(|m| m.file_type().is_file());
        if now != TEXT || !matches!(still_file, Ok(true)) {
            escaped += 1;
            std::fs::write(&out, TEXT).unwrap();
        }
        report.push(format!(
            "{kind}: {} tries, {ok} ok, {swaps} swaps, outside file {:?}",
            tries(),
            now
        ));
    }
    eprintln!("{}", report.join("\n"));
    assert_eq!(escaped, 0, "{}", report.join("\n"));
    // Nothing left pending: a later read of the workspace answers (one op, so
    // a page cut by many tries' ops is no failure).
    let r = env.run(&["history", "--limit", "1"]);
    let paged = r.json["status"] == "partial" && r.json["truncated"] == true;
    assert!(r.json["status"] == "ok" || paged, "{}", r.stdout);
}
