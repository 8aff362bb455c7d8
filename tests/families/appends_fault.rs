//! Other programs and faults, black-box: lines another program appends while
//! edits replace the file all stay in the file, and a write that fails on the
//! tree leaves the rest of the workspace writable.

use crate::support::TestEnv;
use std::path::PathBuf;
use std::time::Duration;

/// Appends numbered lines to `path` at a steady rate (opened anew for each
/// line, as `echo >>` does) until `stop` exists; returns how many it wrote.
fn appender(path: PathBuf, stop: PathBuf) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        use std::io::Write;
        let mut n = 0;
        while !stop.exists() {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all(format!("appended {n}\n").as_bytes()).unwrap();
            drop(f);
            n += 1;
            std::thread::sleep(Duration::from_millis(2));
        }
        n
    })
}

#[test]
fn no_line_an_appender_writes_during_150_edits_is_lost_from_the_file() {
    let env = TestEnv::new();
    let body: String = (0..2000).map(|i| format!("row {i}\n")).collect();
    env.write("log.txt", format!("counter 0\n{body}"));
    let stop = env.path("stop");
    let handle = appender(env.path("log.txt"), stop.clone());
    let (mut done, mut refused, mut merged) = (0, 0, 0);
    while done < 150 {
        let r = env.run(&[
            "edit",
            "log.txt",
            "--old",
            &format!("counter {done}\n"),
            "--new",
            &format!("counter {}\n", done + 1),
        ]);
        match r.code {
            0 => done += 1,
            _ if r.error_code() == "refusal.target-changed" => refused += 1,
            _ => panic!("{}", r.stderr),
        }
        for a in r.json["concurrent_appends"]
            .as_array()
            .into_iter()
            .flatten()
        {
            assert!(a["merged"] == true || a["command"].is_string(), "{a}");
            merged += usize::from(a["merged"] == true);
        }
    }
    std::fs::write(&stop, "").unwrap();
    let written = handle.join().unwrap();
    assert!(written > 50, "the appender wrote only {written} lines");
    let text = String::from_utf8(env.read("log.txt")).unwrap();
    let lost: Vec<usize> = (0..written)
        .filter(|n| !text.contains(&format!("appended {n}\n")))
        .collect();
    assert!(
        lost.is_empty(),
        "{} of {written} appended lines lost from the file ({refused} edits refused, \
         {merged} tails merged): {:?}",
        lost.len(),
        &lost[..lost.len().min(20)]
    );
    assert!(text.starts_with("counter 150\n"), "{}", &text[..40]);
    // Each line once: a carried tail is never appended twice.
    for n in 0..written {
        assert_eq!(
            text.matches(&format!("appended {n}\n")).count(),
            1,
            "line {n}"
        );
    }
}

/// Runs `cmd args` and says whether it succeeded (a missing tool is `false`).
fn sh(cmd: &str, args: &[&str]) -> bool {
    std::process::Command::new(cmd)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A fault the tree puts in a write's way (an attribute, a mount), undone on drop.
struct Fault {
    undo: Vec<String>,
}

impl Drop for Fault {
    fn drop(&mut self) {
        let (cmd, args) = self.undo.split_first().unwrap();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        sh(cmd, &args);
    }
}

/// A `delete` of `d/f` that the tree refuses (`fault` makes `d` refuse it)
/// leaves nothing pending: the next write elsewhere and `recover` run, the
/// error's repair names the cause (`hint`), and the same call works once the
/// fault is gone.
fn refused_delete_leaves_nothing(fault: impl FnOnce(&TestEnv) -> Option<Fault>, hint: &str) {
    let env = TestEnv::new();
    env.write("d/f", "doomed\n");
    env.write("g.txt", "other\n");
    let Some(fault) = fault(&env) else {
        println!("skipped: this machine cannot put that fault in place");
        return;
    };
    let r = env.run(&["delete", "d/f"]);
    assert_eq!(r.error_code(), "environment.io", "{}", r.stdout);
    let msg = r.json["error"]["message"].as_str().unwrap();
    assert!(msg.contains("Nothing was changed"), "{msg}");
    let repair = &r.json["error"]["repairs"][0];
    assert_eq!(repair["command"], "aitools delete d/f", "{}", r.stdout);
    assert!(
        repair["detail"].as_str().unwrap().contains(hint),
        "{}",
        r.stdout
    );
    assert_eq!(env.read("d/f"), b"doomed\n");
    let e = env.run(&["edit", "g.txt", "--old", "other", "--new", "changed"]);
    assert_eq!(e.code, 0, "a write elsewhere is blocked: {}", e.stdout);
    let rec = env.run(&["recover"]);
    assert_eq!(rec.code, 0, "{}", rec.stdout);
    assert_eq!(rec.json["pending_recovery"].as_array().unwrap().len(), 0);
    drop(fault);
    let again = env.run(&["delete", "d/f"]);
    assert_eq!(again.code, 0, "{}", again.stdout);
    assert!(!env.path("d/f").exists());
}

#[test]
fn a_delete_in_an_immutable_directory_leaves_nothing_pending() {
    refused_delete_leaves_nothing(
        |env| {
            let d = env.path("d").to_string_lossy().into_owned();
            sh("chattr", &["+i", &d]).then(|| Fault {
                undo: vec!["chattr".into(), "-i".into(), d],
            })
        },
        "chattr -i",
    );
}

#[test]
fn a_delete_on_a_read_only_mount_leaves_nothing_pending() {
    refused_delete_leaves_nothing(
        |env| {
            let d = env.path("d").to_string_lossy().into_owned();
            sh("mount", &["--bind", "-o", "ro", &d, &d]).then(|| Fault {
                undo: vec!["umount".into(), d],
            })
        },
        "remount,rw",
    );
}

#[test]
fn a_delete_refused_for_want_of_space_names_the_full_disk_and_leaves_nothing_pending() {
    let env = TestEnv::new();
    env.write("d/f", "doomed\n");
    env.write("g.txt", "other\n");
    if !sh("strace", &["-V"]) {
        println!("skipped: no strace to inject ENOSPC");
        return;
    }
    assert_eq!(env.run(&["read", "g.txt"]).code, 0);
    let delete = env.command(&["delete", "d/f"]);
    let mut c = std::process::Command::new("strace");
    c.args(["-f", "-qq", "-o", "/dev/null", "-e", "trace=unlinkat"])
        .args(["-e", "inject=unlinkat:error=ENOSPC", "--"])
        .arg(delete.get_program())
        .args(delete.get_args())
        .current_dir(env.root());
    for (k, v) in delete.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let r = crate::support::parse(c.output().unwrap());
    assert_eq!(r.error_code(), "environment.io", "{}", r.stdout);
    let repair = &r.json["error"]["repairs"][0];
    assert!(
        repair["detail"].as_str().unwrap().contains("df -h d"),
        "{}",
        r.stdout
    );
    assert_eq!(env.read("d/f"), b"doomed\n");
    let e = env.run(&["edit", "g.txt", "--old", "other", "--new", "changed"]);
    assert_eq!(e.code, 0, "a write elsewhere is blocked: {}", e.stdout);
}
