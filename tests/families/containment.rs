//! Containment: writes never land outside the workspace root — not through a
//! directory swapped for a symlink while a write runs, not through a hard link
//! to an outside file, not through a root inside `.git`.
//!
//! The race test takes `AITOOLS_RACE_TRIES` tries per kind of write (default 30,
//! about 20 s in a debug build); `AITOOLS_TEST_BIN` runs it against another
//! binary (an older build, to see it find escapes).

use crate::support::{self, TestEnv};
use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn tries() -> usize {
    std::env::var("AITOOLS_RACE_TRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
}

fn race_bin() -> PathBuf {
    std::env::var_os("AITOOLS_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(support::bin)
}

/// Every entry below `dir`: kind, mode, mtime, and content.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u32, i64, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let bytes = if m.is_file() {
                std::fs::read(&p).unwrap_or_default()
            } else {
                Vec::new()
            };
            if m.is_dir() {
                stack.push(p.clone());
            }
            out.insert(p, (m.mode(), m.mtime(), bytes));
        }
    }
    out
}

/// Swaps `ws/rdir` (a real directory) with `ws/.swap` (a symlink to the outside
/// directory) as fast as it can until finished.
fn swap_rdir(ws: &Path) -> support::Swapper {
    let (rdir, swap) = (ws.join("rdir"), ws.join(".swap"));
    support::swap_in_thread(move || support::exchange(&rdir, &swap))
}

/// `rdir` the real directory again, once the swapping has stopped.
fn put_rdir_back(ws: &Path) {
    let (rdir, swap) = (ws.join("rdir"), ws.join(".swap"));
    if !std::fs::symlink_metadata(&rdir).unwrap().is_dir() {
        assert!(support::exchange(&rdir, &swap));
    }
}

#[test]
fn a_directory_swapped_for_a_symlink_never_carries_a_write_outside() {
    let env = TestEnv::new();
    let ws = std::fs::canonicalize(env.root()).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let out = std::fs::canonicalize(outside.path()).unwrap();
    let n = tries();
    // The same names inside and outside: an escaped write finds its target.
    for dir in [ws.join("rdir"), out.clone()] {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("e.txt"), "START\n").unwrap();
        std::fs::write(dir.join("t.txt"), "touched\n").unwrap();
        std::fs::write(dir.join("m.txt"), "mode\n").unwrap();
        std::fs::set_permissions(dir.join("m.txt"), std::fs::Permissions::from_mode(0o640))
            .unwrap();
        for i in 0..n {
            std::fs::write(dir.join(format!("x{i}")), "delete me\n").unwrap();
        }
    }
    std::fs::write(ws.join("src.txt"), "copied\n").unwrap();
    std::fs::create_dir(ws.join("mv")).unwrap();
    for i in 0..n {
        std::fs::write(ws.join(format!("mv/m{i}")), "moved\n").unwrap();
    }
    std::os::unix::fs::symlink(&out, ws.join(".swap")).unwrap();
    let o = out.clone();
    let exists = move |name: String| std::fs::symlink_metadata(o.join(name)).is_ok();
    let (e1, e2, e3, e4) = (
        exists.clone(),
        exists.clone(),
        exists.clone(),
        exists.clone(),
    );
    let o = out.clone();
    // Each kind: the call for try i, and whether that try's effect showed up
    // outside (put back so the next escape shows too).
    let kinds: Vec<Kind> = vec![
        (
            "write",
            Box::new(|i| sv(&["write", &format!("rdir/w{i}"), "--content", "x"])),
            Box::new(move |i| e1(format!("w{i}"))),
        ),
        (
            "edit",
            Box::new(|_| sv(&["edit", "rdir/e.txt", "--old", "START", "--new", "START x"])),
            Box::new({
                let o = o.clone();
                move |_| {
                    let p = o.join("e.txt");
                    let changed = std::fs::read(&p).unwrap_or_default() != b"START\n";
                    if changed {
                        std::fs::write(&p, "START\n").unwrap();
                    }
                    changed
                }
            }),
        ),
        (
            "copy",
            Box::new(|i| sv(&["copy", "src.txt", &format!("rdir/c{i}")])),
            Box::new(move |i| e2(format!("c{i}"))),
        ),
        (
            "mkdir",
            Box::new(|i| sv(&["mkdir", &format!("rdir/d{i}/e")])),
            Box::new(move |i| e3(format!("d{i}"))),
        ),
        (
            "touch",
            Box::new(|i| {
                sv(&[
                    "touch",
                    "rdir/t.txt",
                    "--mtime",
                    &(1_000_000 + i).to_string(),
                ])
            }),
            Box::new({
                let o = o.clone();
                move |_| {
                    let p = o.join("t.txt");
                    let m = std::fs::metadata(&p).unwrap().mtime();
                    if (1_000_000..2_000_000).contains(&m) {
                        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1);
                        let f = std::fs::File::options().write(true).open(&p).unwrap();
                        f.set_modified(t).unwrap();
                        return true;
                    }
                    false
                }
            }),
        ),
        (
            "chmod",
            Box::new(|i| {
                sv(&[
                    "chmod",
                    "rdir/m.txt",
                    "--mode",
                    if i % 2 == 0 { "600" } else { "644" },
                ])
            }),
            Box::new({
                let o = o.clone();
                move |_| {
                    let p = o.join("m.txt");
                    let changed = std::fs::metadata(&p).unwrap().mode() & 0o7777 != 0o640;
                    if changed {
                        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640))
                            .unwrap();
                    }
                    changed
                }
            }),
        ),
        (
            "delete",
            Box::new(|i| sv(&["delete", &format!("rdir/x{i}")])),
            Box::new({
                let o = o.clone();
                move |i| std::fs::symlink_metadata(o.join(format!("x{i}"))).is_err()
            }),
        ),
        (
            "move",
            Box::new(|i| sv(&["move", &format!("mv/m{i}"), &format!("rdir/m{i}")])),
            Box::new(move |i| e4(format!("m{i}"))),
        ),
    ];
    let bin = race_bin();
    let run = |args: &[String]| -> bool {
        Command::new(&bin)
            .args(args)
            .current_dir(&ws)
            .env("XDG_STATE_HOME", env.state.path())
            .env("AITOOLS_FEEDBACK_DIR", env.state.path().join("feedback"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    let mut report = Vec::new();
    let mut escaped_total = 0;
    // The outside directory's starting state (touch's probe sets t.txt's mtime
    // to a fixed value it can put back).
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1);
    let f = std::fs::File::options()
        .write(true)
        .open(out.join("t.txt"))
        .unwrap();
    f.set_modified(t).unwrap();
    for (kind, argv, escaped) in &kinds {
        let before = snapshot(&out);
        let swapper = swap_rdir(&ws);
        let (mut ok, mut escapes) = (0, 0);
        for i in 0..n {
            ok += run(&argv(i)) as usize;
            escapes += escaped(i) as usize;
        }
        let swaps = swapper.finish();
        put_rdir_back(&ws);
        // Whatever a killed or refused write left pending is finished now, with
        // the directory back in place.
        run(&sv(&["history"]));
        let after = snapshot(&out);
        let changed: Vec<_> = after
            .iter()
            .filter(|(p, v)| before.get(*p) != Some(*v))
            .map(|(p, _)| p.clone())
            .chain(before.keys().filter(|p| !after.contains_key(*p)).cloned())
            .collect();
        escaped_total += changed.len() + escapes;
        report.push(format!(
            "{kind}: {n} tries, {ok} ok, {swaps} swaps, {escapes} tries escaped, {} outside entries changed {:?}",
            changed.len(),
            changed.iter().take(3).collect::<Vec<_>>()
        ));
    }
    eprintln!("{}", report.join("\n"));
    assert_eq!(escaped_total, 0, "{}", report.join("\n"));
}

type Kind = (
    &'static str,
    Box<dyn Fn(usize) -> Vec<String>>,
    Box<dyn Fn(usize) -> bool>,
);

fn sv(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

#[test]
fn chmod_and_touch_refuse_a_file_hard_linked_from_outside() {
    let env = TestEnv::new();
    let outside = tempfile::tempdir().unwrap();
    let f = outside.path().join("f");
    std::fs::write(&f, "outside\n").unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mtime = std::fs::metadata(&f).unwrap().mtime();
    std::fs::hard_link(&f, env.path("hl")).unwrap();

    let r = env.run(&["chmod", "hl", "--mode", "666"]);
    assert_eq!(r.error_code(), "refusal.hard-link", "{}", r.stderr);
    let r2 = env.run(&["touch", "hl", "--mtime", "1000"]);
    assert_eq!(r2.error_code(), "refusal.hard-link", "{}", r2.stderr);
    let r3 = env.run(&["chmod", "hl", "--exec"]);
    assert_eq!(r3.error_code(), "refusal.hard-link", "{}", r3.stderr);
    let m = std::fs::metadata(&f).unwrap();
    assert_eq!(m.mode() & 0o7777, 0o644);
    assert_eq!(m.mtime(), mtime);

    // The repairs, run in order, give the name a file of its own, then the
    // command works and the outside file keeps its mode and bytes.
    let repairs: Vec<String> = r.json["error"]["repairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["command"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(repairs.len(), 3, "{repairs:?}");
    for line in &repairs {
        let done = env.run_line(line);
        assert_eq!(done.code, 0, "{line}: {}{}", done.stdout, done.stderr);
    }
    assert_eq!(env.path("hl").metadata().unwrap().mode() & 0o7777, 0o666);
    assert_eq!(env.read("hl"), b"outside\n");
    assert!(!env.path("hl.unlinked").exists());
    let m = std::fs::metadata(&f).unwrap();
    assert_eq!(m.mode() & 0o7777, 0o644);
    assert_eq!(m.nlink(), 1);
    assert_eq!(std::fs::read(&f).unwrap(), b"outside\n");

    // A file with a single name is changed as before.
    env.write("single", "x\n");
    let ok = env.run(&["touch", "single", "--mtime", "1000"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
}

#[test]
fn a_root_inside_dot_git_is_refused() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path(".git/hooks")).unwrap();
    for root in [".git", ".git/hooks"] {
        for argv in [
            vec![
                "--root",
                root,
                "write",
                ".git/hooks/pre-commit",
                "--content",
                "#!/bin/sh\n",
            ],
            vec!["--root", root, "read", "HEAD"],
        ] {
            let r = env.run(&argv);
            assert_eq!(r.error_code(), "argument.invalid", "{argv:?}: {}", r.stderr);
            let msg = r.json["error"]["message"].as_str().unwrap();
            assert!(msg.contains(".git"), "{msg}");
            // The repair names the work tree as the root (where the boundary keeps
            // .git out of every write) and runs.
            let repair = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
            let ws = std::fs::canonicalize(env.root()).unwrap();
            assert!(
                repair.contains(&ws.to_string_lossy().to_string()),
                "{repair}"
            );
            let again = env.run_line(repair);
            assert_ne!(again.error_code(), "argument.invalid", "{repair}");
        }
    }
    assert!(!env.path(".git/hooks/pre-commit").exists());
    // A bare repository as the root.
    let bare = tempfile::tempdir().unwrap();
    let ok = Command::new("git")
        .args(["init", "-q", "--bare"])
        .current_dir(bare.path())
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let r = env.run(&[
        "--root",
        bare.path().to_str().unwrap(),
        "write",
        "hooks/post-checkout",
        "--content",
        "x",
    ]);
    assert_eq!(r.error_code(), "argument.invalid", "{}", r.stderr);
    assert!(!bare.path().join("hooks/post-checkout").exists());
    // The work tree itself is still a root.
    let r = env.run(&["--root", ".", "write", "ok.txt", "--content", "x"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}
