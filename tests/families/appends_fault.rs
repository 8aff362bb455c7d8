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
