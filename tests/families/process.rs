//! `run`, `bg start|logs|status|stop` and `wait`, checked against running the
//! program directly.

use crate::support::{TestEnv, alive_with};
use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};

fn lines(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn run_reports_status_and_the_same_lines_as_running_directly() {
    let env = TestEnv::new();
    let script = "seq 1 300; echo oops >&2; exit 7";
    let r = env.run(&["run", "--", "sh", "-c", script]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["exit_code"], 7);
    // No signal and no timeout: neither is said (they were null and false).
    assert!(r.json.get("signal").is_none(), "{}", r.stdout);
    assert!(r.json.get("timed_out").is_none(), "{}", r.stdout);
    let direct = Command::new("sh").args(["-c", script]).output().unwrap();
    assert_eq!(direct.status.code(), Some(7));
    let all: Vec<String> = String::from_utf8(direct.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let out = &r.json["stdout"];
    assert_eq!(out["total_lines"], all.len());
    // The default windows are sized for an agent: 5 leading and 20 trailing lines.
    assert_eq!(lines(&out["head"]), all[..5]);
    assert_eq!(lines(&out["tail"]), all[all.len() - 20..]);
    assert_eq!(out["truncated"], true);
    assert_eq!(lines(&r.json["stderr"]["head"]), ["oops"]);
    // Windows that cover everything are not truncated and never overlap.
    let small = env.run(&["run", "--head", "2", "--tail", "2", "--", "seq", "1", "4"]);
    assert_eq!(lines(&small.json["stdout"]["head"]), ["1", "2"]);
    assert_eq!(lines(&small.json["stdout"]["tail"]), ["3", "4"]);
    // Uncut, and nothing on stderr: neither says more than its count.
    assert!(
        small.json["stdout"].get("truncated").is_none(),
        "{}",
        small.stdout
    );
    assert_eq!(small.json["stderr"], serde_json::json!({"total_lines": 0}));
    let one = env.run(&["run", "--", "echo", "hi"]);
    assert_eq!(
        one.json["stdout"],
        serde_json::json!({"head": ["hi"], "total_lines": 1})
    );
    // No `--`: the program's own flags stay its own.
    let echo = env.run(&["run", "echo", "--timeout", "5"]);
    assert_eq!(lines(&echo.json["stdout"]["head"]), ["--timeout 5"]);
    // stdin is closed: cat ends at once.
    let cat = env.run(&["run", "--timeout", "5s", "--", "cat"]);
    assert!(cat.json.get("timed_out").is_none(), "{}", cat.stdout);
    assert_eq!(cat.json["exit_code"], 0);
}

/// A cut stream's middle is read back from a private log, not by running the
/// program again: the read in next_commands gives exactly the lines the windows
/// left out (sh's own output the oracle), masked.
#[test]
fn run_cut_output_continues_from_a_private_masked_log() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let token = format!("ghp_{}", "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5");
    let script = format!("seq 1 149; echo 'key {token}'; seq 151 300; seq 1 40 >&2");
    let r = env.run(&["run", "--", "sh", "-c", &script]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(!r.stdout.contains(&token), "{}", r.stdout);
    let next = r.json["next_commands"].as_array().expect("next_commands");
    assert_eq!(next.len(), 2, "{}", r.stdout);
    let direct = Command::new("sh").args(["-c", &script]).output().unwrap();
    let all: Vec<String> = String::from_utf8(direct.stdout)
        .unwrap()
        .lines()
        .map(|l| l.replace(&token, "[REDACTED_SECRET]"))
        .collect();
    let read = next[0].as_str().unwrap();
    assert!(read.ends_with(" --range 6:280"), "{read}");
    let log = read.split(' ').nth(2).unwrap();
    let mode = std::fs::metadata(log).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{log}");
    assert!(!std::fs::read_to_string(log).unwrap().contains(&token));
    // read pages a long range itself: its own continuations are followed.
    let (mut got, mut call) = (Vec::new(), Some(read.to_string()));
    while let Some(c) = call.take().filter(|_| got.len() < 275) {
        let page = env.run_line(&c);
        assert!(page.code == 0 || page.code == 3, "{}", page.stdout);
        got.extend(lines(&page.json["lines"]));
        call = page.json["next_commands"][0].as_str().map(str::to_string);
    }
    assert_eq!(got[..275], all[5..280]);
    let err = env.run_line(next[1].as_str().unwrap());
    let want: Vec<String> = (6..=20).map(|i| i.to_string()).collect();
    assert_eq!(lines(&err.json["lines"]), want);
    // Output the windows hold whole leaves no log and no continuation.
    let small = env.run(&["run", "--", "seq", "1", "25"]);
    assert!(
        small.json.get("next_commands").is_none(),
        "{}",
        small.stdout
    );
}

#[test]
fn run_strips_escapes_and_redraws_and_masks_secrets_before_grep() {
    let env = TestEnv::new();
    let token = format!("ghp_{}", "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5");
    let script = format!(
        "printf '\\033[1;31mred\\033[0m\\n10%%\\r50%%\\r100%%\\n'; echo token {token}; echo plain"
    );
    let r = env.run(&["run", "--grep", "ghp_|plain", "--", "sh", "-c", &script]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let head = lines(&r.json["stdout"]["head"]);
    assert_eq!(head[0], "red");
    assert_eq!(head[1], "100%");
    assert!(!r.stdout.contains(&token));
    assert!(head[2].contains("[REDACTED_SECRET]"), "{head:?}");
    // The mask ran first: grep sees the placeholder, not the token.
    // Every match shown: no total_matches.
    assert!(
        r.json["stdout"].get("total_matches").is_none(),
        "{}",
        r.stdout
    );
    assert_eq!(
        r.json["stdout"]["matches"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(r.json["stdout"]["matches"][0]["text"], "plain");
    assert_eq!(r.json["stdout"]["matches"][0]["n"], 4);
    let raw = env.run(&["run", "--no-strip-ansi", "--", "printf", "a\\033[0mb\\n"]);
    assert_eq!(raw.json["stdout"]["head"][0], "a\u{1b}[0mb");
    // More matches than --grep-limit: partial, with the call that shows more.
    let many = env.run(&[
        "run",
        "--grep",
        ".",
        "--grep-limit",
        "2",
        "--",
        "seq",
        "1",
        "5",
    ]);
    assert_eq!(many.code, 3);
    assert_eq!(many.json["stdout"]["total_matches"], 5);
    let more = env.run_line(many.json["next_commands"][0].as_str().unwrap());
    assert_eq!(more.code, 0, "{}", more.stdout);
    assert_eq!(more.json["stdout"]["matches"].as_array().unwrap().len(), 5);
}

#[test]
fn run_timeout_ends_the_whole_process_group() {
    let env = TestEnv::new();
    let marker = "31.4159265";
    let t = Instant::now();
    let r = env.run(&[
        "run",
        "--timeout",
        "300ms",
        "--",
        "sh",
        "-c",
        &format!("sleep {marker} & sleep {marker}; echo never"),
    ]);
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["timed_out"], true);
    assert_eq!(r.json["exit_code"], Value::Null);
    assert_eq!(r.json["signal"], 15);
    assert!(!alive_with(marker), "a sleep of the group survived");
    // A program left running in the group when the leader exits goes too.
    let marker = "27.1828182";
    let r = env.run(&[
        "run",
        "--",
        "sh",
        "-c",
        &format!("sleep {marker} >/dev/null 2>&1 & echo started"),
    ]);
    assert_eq!(r.json["exit_code"], 0);
    std::thread::sleep(Duration::from_millis(100));
    assert!(!alive_with(marker));
}

#[test]
fn run_stdout_to_writes_a_new_journaled_undoable_file() {
    let env = TestEnv::new();
    let r = env.run(&[
        "run",
        "--stdout-to",
        "out/seq.txt",
        "--",
        "seq",
        "1",
        "1000",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let direct = Command::new("seq").args(["1", "1000"]).output().unwrap();
    assert_eq!(env.read("out/seq.txt"), direct.stdout);
    assert_eq!(r.json["stdout"]["path"], "out/seq.txt");
    assert_eq!(r.json["stdout"]["bytes"], direct.stdout.len());
    let op = r.json["stdout"]["op_id"].as_str().unwrap().to_string();
    let h = env.run(&["history"]);
    assert!(h.stdout.contains(&op));
    // Never overwrites; the program is not even run.
    let again = env.run(&[
        "run",
        "--stdout-to",
        "out/seq.txt",
        "--",
        "sh",
        "-c",
        "touch ran",
    ]);
    assert_eq!(again.error_code(), "refusal.exists");
    assert!(!env.path("ran").exists());
    let u = env.run(&["undo", &op]);
    assert_eq!(u.code, 0, "{}", u.stdout);
    assert!(!env.path("out/seq.txt").exists());
    env.write("out/seq.txt", "taken\n");
    let fixed = env.run_line(
        again.json["error"]["repairs"][0]["command"]
            .as_str()
            .unwrap(),
    );
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    assert!(env.path("out/seq.txt.1").exists());
    let outside = env.run(&["run", "--stdout-to", "../escape.txt", "--", "true"]);
    assert_eq!(outside.error_code(), "refusal.outside-workspace");
}

#[test]
fn run_a_missing_program_is_unavailable_with_repairs() {
    let env = TestEnv::new();
    let r = env.run(&["run", "--", "no-such-program-xyz"]);
    assert_eq!(r.error_code(), "environment.unavailable");
    let fix = env.run_line(r.json["error"]["repairs"][0]["command"].as_str().unwrap());
    assert_eq!(fix.code, 0);
    assert_eq!(fix.json["exit_code"], 127);
    let bad = env.run(&["run", "--grep", "(", "--", "true"]);
    assert_eq!(bad.error_code(), "input.syntax-error");
}

#[test]
fn bg_start_logs_status_wait_stop() {
    let env = TestEnv::new();
    let marker = "41.421356";
    let s = env.run(&[
        "bg",
        "start",
        "--name",
        "srv",
        "--",
        "sh",
        "-c",
        &format!("echo start; echo ready; sleep {marker} & sleep {marker}"),
    ]);
    assert_eq!(s.code, 0, "{}", s.stdout);
    assert_eq!(s.json["id"], "bg-1");
    let w = env.run(&[
        "wait",
        "--bg",
        "bg-1",
        "--pattern",
        "^ready$",
        "--timeout",
        "10s",
    ]);
    assert_eq!(w.code, 0, "{}", w.stdout);
    assert_eq!(w.json["line"], "ready");
    let l = env.run(&["bg", "logs", "bg-1"]);
    assert_eq!(lines(&l.json["lines"]), ["start", "ready"]);
    assert_eq!(l.json["running"], true);
    assert_eq!(l.json["next_offset"], 12);
    // By offset, one line at a time.
    let first = env.run(&["bg", "logs", "bg-1", "--from", "0", "--tail", "1"]);
    assert_eq!(first.code, 3);
    assert_eq!(lines(&first.json["lines"]), ["start"]);
    let second = env.run_line(first.json["next_commands"][0].as_str().unwrap());
    assert_eq!(lines(&second.json["lines"]), ["ready"]);
    assert_eq!(second.json["next_offset"], 12);
    let st = env.run(&["bg", "status"]);
    assert_eq!(st.json["total"], 1);
    assert_eq!(st.json["items"][0]["name"], "srv");
    assert_eq!(st.json["items"][0]["running"], true);
    assert!(alive_with(marker));
    let stop = env.run(&["bg", "stop", "bg-1", "--grace", "2s"]);
    assert_eq!(stop.code, 0, "{}", stop.stdout);
    assert_eq!(stop.json["stopped"], true);
    assert_eq!(stop.json["signal"], 15);
    assert!(
        !alive_with(marker),
        "a process of the group survived bg stop"
    );
    let st = env.run(&["bg", "status", "bg-1"]);
    assert_eq!(st.json["items"][0]["running"], false);
    let again = env.run(&["bg", "stop", "bg-1"]);
    assert_eq!(again.json["stopped"], false);
    // An exit status is recorded.
    env.run(&["bg", "start", "--", "sh", "-c", "exit 4"]);
    let e = env.run(&["wait", "--bg", "bg-2", "--exit", "--timeout", "10s"]);
    assert_eq!(e.code, 0, "{}", e.stdout);
    assert_eq!(e.json["exit_code"], 4);
    let missing = env.run(&["bg", "logs", "bg-9"]);
    assert_eq!(missing.error_code(), "input.not-found");
    assert_eq!(
        missing.json["error"]["repairs"][0]["command"],
        "aitools bg status"
    );
}

#[test]
fn wait_for_a_file_line_a_port_a_duration_or_time_out() {
    let env = TestEnv::new();
    env.write("app.log", "booting\nlistening on 8080\n");
    let f = env.run(&[
        "wait",
        "--file",
        "app.log",
        "--pattern",
        "listening",
        "--timeout",
        "5s",
    ]);
    assert_eq!(f.code, 0, "{}", f.stdout);
    assert_eq!(f.json["line"], "listening on 8080");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let p = env.run(&["wait", "--port", &port, "--timeout", "5s"]);
    assert_eq!(p.code, 0, "{}", p.stdout);
    assert_eq!(p.json["port"].to_string(), port);
    let d = env.run(&["wait", "--duration", "100ms"]);
    assert_eq!(d.json["duration_ms"], 100);
    let t = Instant::now();
    let to = env.run(&[
        "wait",
        "--file",
        "app.log",
        "--pattern",
        "never",
        "--timeout",
        "300ms",
    ]);
    assert_eq!(to.error_code(), "environment.timeout");
    assert!(t.elapsed() < Duration::from_secs(5));
    let two = env.run(&["wait", "--port", "1", "--duration", "1s"]);
    assert_eq!(two.error_code(), "argument.invalid");
}

#[test]
fn a_bg_record_edited_by_hand_is_a_syntax_error_with_a_way_to_read_it() {
    let env = TestEnv::new();
    let first = env.run(&["bg", "start", "--", "true"]);
    assert_eq!(env.run(&["bg", "start", "--", "true"]).code, 0);
    // The record (meta.json) sits beside the log bg start reported.
    let log = std::path::PathBuf::from(first.json["log"].as_str().unwrap());
    let record = log.with_file_name("meta.json");
    assert!(record.is_file(), "{}", record.display());
    std::fs::write(&record, "{\"id\": \"bg-1\",").unwrap();
    for argv in [
        vec!["bg", "logs", "bg-1"],
        vec!["bg", "status", "bg-1"],
        vec!["bg", "stop", "bg-1"],
        vec!["wait", "--bg", "bg-1", "--exit"],
    ] {
        let r = env.run(&argv);
        assert_eq!(
            r.error_code(),
            "input.syntax-error",
            "{argv:?}: {}",
            r.stdout
        );
        let read = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
        let shown = env.run_line(read);
        assert_eq!(shown.code, 0, "{read}: {}", shown.stdout);
        assert!(shown.stdout.contains("bg-1"), "{}", shown.stdout);
    }
    // The list goes on with the records that are whole.
    let s = env.run(&["bg", "status"]);
    assert_eq!(s.json["total"], 1, "{}", s.stdout);
    assert_eq!(s.json["items"][0]["id"], "bg-2");
}

#[test]
fn bg_without_a_usable_state_directory_is_unavailable_and_doctor_says_why() {
    let env = TestEnv::new();
    // A state home whose directories cannot be created (ENAMETOOLONG stands for
    // a read-only or full disk).
    let home = env.root().join("s".repeat(300));
    let run = |argv: &[&str]| {
        let out = env
            .command(argv)
            .env("XDG_STATE_HOME", &home)
            .output()
            .unwrap();
        crate::support::parse(out)
    };
    for argv in [
        vec!["bg", "start", "--", "true"],
        vec!["bg", "logs", "bg-1"],
        vec!["bg", "status"],
        vec!["bg", "stop", "bg-1"],
        vec!["wait", "--bg", "bg-1", "--exit"],
    ] {
        let r = run(&argv);
        assert_eq!(
            r.error_code(),
            "environment.unavailable",
            "{argv:?}: {}",
            r.stdout
        );
        assert_eq!(r.json["error"]["repairs"][0]["command"], "aitools doctor");
    }
    let doctor = run(&["doctor"]);
    let checks = doctor.json["checks"].as_array().unwrap();
    let writable = checks
        .iter()
        .find(|c| c["name"] == "state_dir_writable")
        .expect("state_dir_writable");
    assert_eq!(writable["ok"], false, "{}", doctor.stdout);
}
