//! Reads never leave the workspace through an entry swapped after the walk
//! listed it: a regular file replaced by a symlink to a secret outside, or a
//! directory replaced by a symlink to an outside directory, is passed over
//! (`unreadable`, like an entry that vanished), never read. A thread swaps while
//! the scanning commands (`search`, `code refs`, `overview`, `find`) run again
//! and again; no output may carry the outside content.
//!
//! `AITOOLS_RACE_TRIES` sets the runs per command (default 40); `AITOOLS_TEST_BIN`
//! runs them against another binary (an older build, to see them find leaks).

use crate::support::{self, TestEnv};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What only the outside file holds.
const SECRET: &str = "OUTSIDE-SECRET-7f3a";
/// The outside file's lines: an overview that counted it shows at least this many.
const SECRET_LINES: u64 = 3001;
/// Files swapped in turn (more chances per run).
const SWAPPED: usize = 8;

fn tries() -> usize {
    std::env::var("AITOOLS_RACE_TRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

fn race_bin() -> PathBuf {
    std::env::var_os("AITOOLS_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(support::bin)
}

/// Writes the secret (lines that match what the commands look for) at `path`.
fn plant_secret(path: &Path) {
    let mut text = String::new();
    for i in 0..SECRET_LINES {
        text.push_str(&format!("NEEDLE {SECRET} {i} needle_fn\n"));
    }
    std::fs::write(path, text).unwrap();
}

/// Each scanning command `tries()` times while `swapper` runs; the outputs that
/// carried the outside content (a leak), as `command: excerpt`.
fn leaks(env: &TestEnv, ws: &Path) -> Vec<String> {
    let bin = race_bin();
    let calls: [&[&str]; 4] = [
        &["search", "--pattern", "NEEDLE"],
        &["code", "refs", "needle_fn"],
        &["overview"],
        &["find", "--type", "file"],
    ];
    let mut found = Vec::new();
    for _ in 0..tries() {
        for args in calls {
            let out = env
                .isolate(Command::new(&bin))
                .args(args)
                .current_dir(ws)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output()
                .expect("spawn aitools");
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            // overview prints counts, not text: the secret's lines counted leak it.
            let counted = args[0] == "overview"
                && serde_json::from_slice::<serde_json::Value>(&out.stdout)
                    .ok()
                    .and_then(|j| j["languages"].as_array().cloned())
                    .is_some_and(|ls| {
                        ls.iter()
                            .any(|l| l["lines"].as_u64().unwrap_or(0) >= SECRET_LINES)
                    });
            if text.contains(SECRET) || counted {
                let at = text.find(SECRET).unwrap_or(0);
                let excerpt: String = text[at..].chars().take(120).collect();
                found.push(format!("{}: {excerpt}", args.join(" ")));
            }
        }
    }
    found
}

#[test]
fn a_listed_file_swapped_for_a_symlink_outside_is_never_read() {
    let env = TestEnv::new();
    let ws = std::fs::canonicalize(env.root()).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let out = std::fs::canonicalize(outside.path()).unwrap();
    plant_secret(&out.join("secret.txt"));
    std::fs::create_dir(ws.join("s")).unwrap();
    // The swap partners live outside, so the walk meets the links only where a
    // listed file was.
    for k in 0..SWAPPED {
        std::fs::write(ws.join(format!("s/f{k}.txt")), "NEEDLE inside needle_fn\n").unwrap();
        std::os::unix::fs::symlink(out.join("secret.txt"), out.join(format!("l{k}"))).unwrap();
    }
    let (w, o) = (ws.clone(), out.clone());
    let mut k = 0;
    let swapper = support::swap_in_thread(move || {
        k = (k + 1) % SWAPPED;
        support::exchange(&w.join(format!("s/f{k}.txt")), &o.join(format!("l{k}")))
    });
    let found = leaks(&env, &ws);
    let swaps = swapper.finish();
    assert!(swaps > 0, "the swapping thread never swapped");
    assert!(
        found.is_empty(),
        "{} of {} runs read the outside file through a swapped-in symlink ({swaps} swaps): {:#?}",
        found.len(),
        tries() * 4,
        found.iter().take(8).collect::<Vec<_>>()
    );
    // Once the swapping stops the files are read as before.
    for k in 0..SWAPPED {
        let f = ws.join(format!("s/f{k}.txt"));
        if std::fs::symlink_metadata(&f)
            .unwrap()
            .file_type()
            .is_symlink()
        {
            assert!(support::exchange(&f, &out.join(format!("l{k}"))));
        }
    }
    let r = env.run(&["search", "--pattern", "NEEDLE", "--count"]);
    assert_eq!(r.json["total_matches"], SWAPPED as u64, "{}", r.stdout);
}

#[test]
fn a_listed_directory_swapped_for_a_symlink_outside_is_never_read() {
    let env = TestEnv::new();
    let ws = std::fs::canonicalize(env.root()).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let out = std::fs::canonicalize(outside.path()).unwrap();
    // The outside directory holds the same names as the inside one, so a path
    // listed inside is there too once the link is in place.
    std::fs::create_dir(out.join("sec")).unwrap();
    std::fs::create_dir(ws.join("d")).unwrap();
    for k in 0..SWAPPED {
        std::fs::write(ws.join(format!("d/f{k}.txt")), "NEEDLE inside needle_fn\n").unwrap();
        plant_secret(&out.join(format!("sec/f{k}.txt")));
    }
    std::os::unix::fs::symlink(out.join("sec"), out.join("dl")).unwrap();
    let (d, dl) = (ws.join("d"), out.join("dl"));
    let swapper = support::swap_in_thread(move || support::exchange(&d, &dl));
    let found = leaks(&env, &ws);
    let swaps = swapper.finish();
    assert!(swaps > 0, "the swapping thread never swapped");
    assert!(
        found.is_empty(),
        "{} of {} runs read the outside directory through a swapped-in symlink ({swaps} swaps): {:#?}",
        found.len(),
        tries() * 4,
        found.iter().take(8).collect::<Vec<_>>()
    );
}
