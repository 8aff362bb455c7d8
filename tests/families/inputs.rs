//! Bounded inputs, black-box: content files, standard input and scans that could
//! run without end (devices, FIFOs, procfs, endless producers, trees outside the
//! workspace), and patterns matched against whole long lines.

use crate::support::TestEnv;
use std::process::Command;

/// The line numbers `grep -n` (the oracle) prints for `args`.
fn grep_numbers(env: &TestEnv, args: &[&str]) -> Vec<u64> {
    let out = Command::new("grep")
        .args(args)
        .current_dir(env.root())
        .output()
        .expect("grep");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once(':').and_then(|(n, _)| n.parse().ok()))
        .collect()
}

#[test]
fn match_sees_the_whole_long_line_and_cuts_only_the_display() {
    let env = TestEnv::new();
    // A 40 KB line whose only match is at byte 30,000, past the 16,384-byte display cut.
    let mut long = "a".repeat(30_000);
    long.push_str("NEEDLE");
    long.push_str(&"b".repeat(40_000 - long.len()));
    env.write("long.txt", format!("first\n{long}\nlast\n"));
    let want = grep_numbers(&env, &["-n", "NEEDLE", "long.txt"]);
    assert_eq!(want, vec![2]);
    let r = env.run(&["read", "long.txt", "--match", "NEEDLE"]);
    assert_eq!(r.json["line_numbers"], serde_json::json!(want));
    // The display is cut at 16,384 bytes and says so.
    assert_eq!(r.lines()[0].len(), 16_384);
    assert_eq!(r.json["cut_lines"], serde_json::json!([2]));

    let want = grep_numbers(&env, &["-n", "-v", "NEEDLE", "long.txt"]);
    assert_eq!(want, vec![1, 3]);
    let r = env.run(&["read", "long.txt", "--match", "NEEDLE", "--invert"]);
    assert_eq!(r.code, 0, "{}", r.json["error"]);
    assert_eq!(r.json["line_numbers"], serde_json::json!(want));
    assert_eq!(r.lines(), vec!["first", "last"]);

    // --between's patterns see the whole line too.
    let r = env.run(&["read", "long.txt", "--between", "NEEDLE", "last"]);
    assert_eq!(r.json["start_line"], 2, "{}", r.json["error"]);
}

/// Runs aitools with `feed` writing its standard input (until the pipe breaks),
/// and kills it after `secs`: `None` when it had to be killed (it hung).
fn run_bounded(
    env: &TestEnv,
    args: &[&str],
    feed: Option<fn(std::process::ChildStdin)>,
    secs: u64,
) -> Option<crate::support::Run> {
    use std::process::Stdio;
    let mut cmd = env.command(args);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    if feed.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd.spawn().expect("spawn aitools");
    if let (Some(f), Some(stdin)) = (feed, child.stdin.take()) {
        std::thread::spawn(move || f(stdin));
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if child.try_wait().expect("wait").is_some() {
            return Some(crate::support::parse(
                child.wait_with_output().expect("output"),
            ));
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// An endless producer of zeros (`yes`-like): writes until the reader goes away.
fn zeros(mut w: std::process::ChildStdin) {
    use std::io::Write;
    let block = vec![0u8; 1 << 16];
    while w.write_all(&block).is_ok() {}
}

fn mkfifo(env: &TestEnv, name: &str) {
    let ok = Command::new("mkfifo")
        .arg(name)
        .current_dir(env.root())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo");
}

#[test]
fn content_files_that_never_end_are_refused_before_being_opened() {
    let env = TestEnv::new();
    mkfifo(&env, "pipe");
    for (cmd, src) in [
        (&["write", "out.txt", "--content-file"][..], "/dev/zero"),
        (&["write", "out.txt", "--content-file"][..], "pipe"),
        (
            &["write", "out.txt", "--content-file"][..],
            "/proc/self/status",
        ),
        (
            &["insert", "t.txt", "--at", "end", "--content-file"][..],
            "pipe",
        ),
    ] {
        env.write("t.txt", "x\n");
        let mut args = cmd.to_vec();
        args.push(src);
        let r = run_bounded(&env, &args, None, 20)
            .unwrap_or_else(|| panic!("{args:?} hung (killed after 20 s)"));
        assert_eq!(
            r.error_code(),
            "refusal.not-a-file",
            "{args:?}: {}",
            r.stderr
        );
        let msg = r.json["error"]["message"].as_str().unwrap_or("");
        assert!(msg.contains("not opened"), "{msg}");
        assert!(!env.path("out.txt").exists());
        assert_eq!(env.read("t.txt"), b"x\n");
    }
}

#[test]
fn endless_standard_input_is_cut_at_the_input_limit() {
    let env = TestEnv::new();
    // The default limit (256 MiB) holds against an endless producer.
    let r = run_bounded(&env, &["write", "out.txt", "--stdin"], Some(zeros), 60)
        .expect("write --stdin from an endless producer hung (killed after 60 s)");
    assert_eq!(r.error_code(), "refusal.too-large", "{}", r.stderr);
    let repair = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap_or("");
    assert!(repair.contains("--max-input"), "{repair}");
    assert!(!env.path("out.txt").exists());
    // Every reader of standard input takes the same option.
    for args in [
        &["write", "out.txt", "--stdin", "--max-input", "64KiB"][..],
        &["edit", "t.txt", "--stdin", "--max-input", "64KiB"][..],
        &["apply", "--stdin", "--max-input", "64KiB"][..],
        &["search", "--stdin", "--max-input", "64KiB"][..],
        &["batch", "--stdin", "--max-input", "64KiB"][..],
    ] {
        let r = run_bounded(&env, args, Some(zeros), 20)
            .unwrap_or_else(|| panic!("{args:?} hung (killed after 20 s)"));
        assert_eq!(
            r.error_code(),
            "refusal.too-large",
            "{args:?}: {}",
            r.stderr
        );
    }
}

/// Large content files (read into a buffer marked for huge pages) land byte for
/// byte, whatever their size against the 2 MiB page: under, at and over the size
/// that switches the buffer, an exact limit taken and one byte less refused.
#[test]
fn large_content_files_land_byte_for_byte() {
    let env = TestEnv::new();
    let mib = 1usize << 20;
    for (i, size) in [4 * mib - 1, 4 * mib, 4 * mib + 1, 9 * mib + 5, 10 * mib]
        .into_iter()
        .enumerate()
    {
        let body: Vec<u8> = (0..size).map(|k| b"abcdefghij\n"[k % 11]).collect();
        env.write("src.bin", &body);
        let out = format!("out{i}.txt");
        let r = env.run(&["write", &out, "--content-file", "src.bin"]);
        assert_eq!(r.code, 0, "{size}: {}", r.stderr);
        assert!(env.read(&out) == body, "{size}: bytes differ");
        assert_eq!(r.json["bytes"].as_u64(), Some(size as u64));
        let full = crate::support::sha256sum(&env.path(&out));
        let hash = r.json["changes"][0]["hash"].as_str().unwrap_or("?");
        assert!(full.starts_with(hash), "{size}: {hash} vs {full}");
        let exact = format!("{size}");
        let at = env.run(&[
            "write",
            "--dry-run",
            "x.txt",
            "--content-file",
            "src.bin",
            "--max-input",
            &exact,
        ]);
        assert_eq!(at.code, 0, "{size}: {}", at.stderr);
        let under = format!("{}", size - 1);
        let over = env.run(&[
            "write",
            "x.txt",
            "--content-file",
            "src.bin",
            "--max-input",
            &under,
        ]);
        assert_eq!(over.error_code(), "refusal.too-large", "{size}");
    }
    // Replacing a large file with large content: the answer's hash is the new file's.
    let before = env.run(&["info", "out3.txt"]).json["hash"]
        .as_str()
        .unwrap_or("?")
        .to_string();
    let body: Vec<u8> = (0..9 * mib)
        .map(|k| b"0123456789ABCDEF\n"[k % 17])
        .collect();
    env.write("src.bin", &body);
    let r = env.run(&[
        "write",
        "out3.txt",
        "--content-file",
        "src.bin",
        "--overwrite",
        "--expect-hash",
        &before,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(env.read("out3.txt") == body, "replaced bytes differ");
    let full = crate::support::sha256sum(&env.path("out3.txt"));
    let hash = r.json["changes"][0]["hash"].as_str().unwrap_or("?");
    assert!(full.starts_with(hash), "{hash} vs {full}");
    let info = env.run(&["info", "out3.txt"]);
    let now = info.json["hash"].as_str().unwrap_or("");
    assert!(now.starts_with(hash) && now == full, "{}", info.stdout);
}

#[test]
fn an_input_at_the_limit_is_taken_and_one_byte_more_is_not() {
    let env = TestEnv::new();
    let body = vec![b'a'; 1024];
    let ok = env.run_stdin(&["write", "a.txt", "--stdin", "--max-input", "1KiB"], &body);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert_eq!(env.read("a.txt"), body);
    env.write("big.txt", vec![b'b'; 1025]);
    let r = env.run(&[
        "write",
        "b.txt",
        "--content-file",
        "big.txt",
        "--max-input",
        "1KiB",
    ]);
    assert_eq!(r.error_code(), "refusal.too-large");
    // The repair raises the limit enough for this file, and works.
    let repair = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap_or("");
    assert!(repair.contains("--max-input 1MiB"), "{repair}");
    let again = env.run_line(repair);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(env.read("b.txt").len(), 1025);
    let bad = env.run(&["write", "c.txt", "--content", "x", "--max-input", "lots"]);
    assert_eq!(bad.error_code(), "argument.invalid");
    // The option shows in the schema of every command that reads an input.
    for cmd in [
        "write", "edit", "insert", "replace", "apply", "search", "batch",
    ] {
        let s = env.run(&["schema", cmd]);
        assert!(s.stdout.contains("\"--max-input\""), "{cmd}: {}", s.stdout);
    }
}

#[test]
fn reads_of_procfs_files_never_block() {
    let env = TestEnv::new();
    for p in ["/proc/self/status", "/proc/kmsg"] {
        if std::fs::symlink_metadata(p).is_err() {
            continue;
        }
        let r = run_bounded(&env, &["read", p], None, 20)
            .unwrap_or_else(|| panic!("read {p} hung (killed after 20 s)"));
        assert_eq!(r.error_code(), "refusal.not-a-file", "{p}: {}", r.stderr);
        let info = run_bounded(&env, &["info", p], None, 20)
            .unwrap_or_else(|| panic!("info {p} hung (killed after 20 s)"));
        assert_eq!(info.code, 0, "{p}: {}", info.stderr);
        assert_eq!(info.json["kind"], "file");
        env.write("t.txt", "x\n");
        let d = run_bounded(&env, &["diff", p, "t.txt"], None, 20)
            .unwrap_or_else(|| panic!("diff {p} hung (killed after 20 s)"));
        assert_eq!(d.error_code(), "refusal.not-a-file", "{p}: {}", d.stderr);
    }
}

/// A tree outside the workspace: `dirs` directories of `per` small text files.
fn outside_tree(dirs: usize, per: usize) -> tempfile::TempDir {
    let t = tempfile::tempdir().expect("tempdir");
    for d in 0..dirs {
        let dir = t.path().join(format!("d{d:03}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        for f in 0..per {
            std::fs::write(dir.join(format!("f{f:03}.py")), "x = 1\nprint(x)\n").expect("write");
        }
    }
    t
}

#[test]
fn scans_outside_the_workspace_stop_at_their_budget_and_say_so() {
    let env = TestEnv::new();
    let tree = outside_tree(10, 30);
    let dir = tree.path().to_str().expect("utf-8 temp path");
    for cmd in [
        &["overview", dir][..],
        &["search", "print", dir][..],
        &["code", "refs", "x", dir][..],
        &["code", "defs", "x", dir][..],
        &["find", "*.py", dir][..],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--max-files", "100"]);
        let r = run_bounded(&env, &args, None, 60).unwrap_or_else(|| panic!("{args:?} hung"));
        assert_eq!(r.code, 3, "{args:?}: {}", r.stdout);
        assert_eq!(r.json["truncated"], true, "{args:?}");
        assert_eq!(
            r.json["scan_cut"]["budget"], "files",
            "{args:?}: {}",
            r.stdout
        );
        assert_eq!(r.json["scan_cut"]["files"], 100, "{args:?}");
        let next = r.json["next_commands"][0].as_str().unwrap_or("");
        assert!(next.contains("--max-files 400"), "{args:?}: {next}");
        // The continuation (300 files fit in 400) is complete.
        let again = env.run_line(next);
        assert!(
            again.json.get("scan_cut").is_none(),
            "{next}: {}",
            again.stdout
        );
    }
    // The time budget cuts too. overview no longer reads every file, so its walk
    // of 300 files can end inside 1 ms: the tree here is big enough that it cannot.
    let big = outside_tree(40, 100);
    let big_dir = big.path().to_str().expect("utf-8 temp path");
    let r = run_bounded(
        &env,
        &["overview", big_dir, "--scan-timeout", "1ms"],
        None,
        60,
    )
    .expect("overview --scan-timeout 1ms hung");
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["scan_cut"]["budget"], "time");
    let next = r.json["next_commands"][0].as_str().unwrap_or("");
    assert!(next.contains("--scan-timeout 4ms"), "{next}");
    // Without the options, an ordinary tree is scanned whole.
    let r = env.run(&["overview", dir]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["languages"][0]["files"], 300);
}

#[test]
fn a_scan_of_the_whole_file_system_ends_within_its_default_budget() {
    let env = TestEnv::new();
    let started = std::time::Instant::now();
    let r = run_bounded(&env, &["overview", "/"], None, 90)
        .expect("overview / still ran after 90 s (the default budget is 10 s)");
    // A host small enough to be scanned whole in the budget answers ok; any
    // other answer is cut, says by which budget, and continues.
    if r.code == 3 {
        assert!(r.json["scan_cut"]["budget"].is_string(), "{}", r.stdout);
        let next = r.json["next_commands"][0].as_str().unwrap_or("");
        assert!(next.starts_with("aitools overview / --"), "{next}");
    } else {
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(90));
    // Kernel file systems are passed over, never read.
    let r = run_bounded(&env, &["search", "qzxqzx", "/proc/self"], None, 60)
        .expect("search in /proc hung");
    let reasons: Vec<&str> = r.json["skipped"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["reason"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(reasons, vec!["special"], "{}", r.stdout);
}
