//! `bg` keeps its programs under control: a job is known by its pid and start
//! time (a reused pid is never signalled), stop ends the whole tree (also what
//! left the group with `setsid` or a double fork), argv is executed without a
//! shell, and a log stops at its cap and says so.

use crate::support::{TestEnv, alive_with};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

fn until(what: impl Fn() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end {
        if what() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    what()
}

#[test]
fn bg_never_signals_a_reused_pid_nor_calls_a_dead_job_running() {
    let env = TestEnv::new();
    let s = env.run(&["bg", "start", "--", "sleep", "7791"]);
    let pid = s.json["pid"].as_u64().unwrap();
    let meta = std::path::Path::new(s.json["log"].as_str().unwrap()).with_file_name("meta.json");
    // The job dies without a word (a crash, a reboot): no exit record.
    Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .status()
        .unwrap();
    assert!(until(|| !alive_with("sleep 7791")), "the job survived");
    // Its pid now names another program (leading its own group).
    let mut decoy = Command::new("sleep")
        .arg("7792")
        .process_group(0)
        .spawn()
        .unwrap();
    let mut record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
    record["pid"] = decoy.id().into();
    std::fs::write(&meta, record.to_string()).unwrap();
    let st = env.run(&["bg", "status", "bg-1"]);
    let stop = env.run(&["bg", "stop", "bg-1", "--grace", "1s"]);
    std::thread::sleep(Duration::from_millis(200));
    let survived = decoy.try_wait().unwrap().is_none();
    let _ = decoy.kill();
    let _ = decoy.wait();
    assert!(
        survived,
        "bg stop killed an unrelated process: {}",
        stop.stdout
    );
    assert_eq!(st.json["items"][0]["running"], false, "{}", st.stdout);
    assert_eq!(stop.json["stopped"], false, "{}", stop.stdout);
}

#[test]
fn bg_stop_kills_children_that_setsid_or_double_fork() {
    let env = TestEnv::new();
    let script = "setsid sleep 7793 >/dev/null 2>&1 & (sleep 7794 >/dev/null 2>&1 &); echo started; sleep 60";
    env.run(&["bg", "start", "--", "sh", "-c", script]);
    let w = env.run(&[
        "wait",
        "--bg",
        "bg-1",
        "--pattern",
        "started",
        "--timeout",
        "10s",
    ]);
    assert_eq!(w.code, 0, "{}", w.stdout);
    assert!(until(
        || alive_with("sleep 7793") && alive_with("sleep 7794")
    ));
    let stop = env.run(&["bg", "stop", "bg-1", "--grace", "1s"]);
    assert_eq!(stop.json["stopped"], true, "{}", stop.stdout);
    assert!(stop.json.get("not_killed").is_none(), "{}", stop.stdout);
    std::thread::sleep(Duration::from_millis(300));
    let left = ["sleep 7793", "sleep 7794"].map(alive_with);
    assert_eq!(left, [false, false], "survivors of bg stop: {left:?}");
    // What a program that ended left running ends with it...
    let script = "setsid sleep 7796 >/dev/null 2>&1 & echo started";
    env.run(&["bg", "start", "--", "sh", "-c", script]);
    env.run(&["wait", "--bg", "bg-2", "--exit", "--timeout", "10s"]);
    assert!(!alive_with("sleep 7796"));
    // ...and when its supervisor was killed, stop ends the tagged rest.
    let script = "setsid sleep 7795 >/dev/null 2>&1 & echo started; sleep 60";
    let s = env.run(&["bg", "start", "--", "sh", "-c", script]);
    env.run(&[
        "wait",
        "--bg",
        "bg-3",
        "--pattern",
        "started",
        "--timeout",
        "10s",
    ]);
    let supervisor = s.json["pid"].as_u64().unwrap().to_string();
    Command::new("kill")
        .args(["-KILL", &supervisor])
        .status()
        .unwrap();
    assert!(until(|| alive_with("sleep 7795")));
    let stop = env.run(&["bg", "stop", "bg-3", "--grace", "1s"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!alive_with("sleep 7795"), "{}", stop.stdout);
}

#[test]
fn bg_start_executes_argv_without_a_shell() {
    let env = TestEnv::new();
    // A program named like a shell builtin: the program runs, not the builtin.
    let bin = env.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let prog = bin.join("umask");
    std::fs::write(&prog, "#!/bin/sh\necho the umask program\n").unwrap();
    Command::new("chmod")
        .arg("755")
        .arg(&prog)
        .status()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = env
        .command(&["bg", "start", "--", "umask"])
        .env("PATH", &path)
        .output()
        .unwrap();
    let s = crate::support::parse(out);
    assert_eq!(s.code, 0, "{}", s.stdout);
    env.run(&["wait", "--bg", "bg-1", "--exit", "--timeout", "10s"]);
    let l = env.run(&["bg", "logs", "bg-1"]);
    assert_eq!(l.json["lines"][0], "the umask program", "{}", l.stdout);
}

#[test]
fn a_bg_log_stops_at_its_cap_and_says_so() {
    let env = TestEnv::new();
    let script = "yes | head -n 100000; echo done >&2";
    let s = env.run(&[
        "bg",
        "start",
        "--log-cap",
        "64KiB",
        "--",
        "sh",
        "-c",
        script,
    ]);
    assert_eq!(s.code, 0, "{}", s.stdout);
    let log = std::path::PathBuf::from(s.json["log"].as_str().unwrap());
    let w = env.run(&["wait", "--bg", "bg-1", "--exit", "--timeout", "10s"]);
    assert_eq!(w.json["exit_code"], 0, "{}", w.stdout);
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(size <= 64 * 1024, "the log grew to {size} bytes");
    // The cut is said everywhere the log is: status, logs, wait.
    let st = env.run(&["bg", "status", "bg-1"]);
    let cut = &st.json["items"][0]["log_cut"];
    assert_eq!(cut["dropped_bytes"], 200_000 + 5 - size, "{}", st.stdout);
    let l = env.run(&["bg", "logs", "bg-1", "--tail", "2"]);
    assert_eq!(l.json["log_cut"], *cut, "{}", l.stdout);
    assert_eq!(l.code, 3, "{}", l.stdout);
    assert_eq!(w.json["log_cut"], *cut, "{}", w.stdout);
    let missed = env.run(&[
        "wait",
        "--bg",
        "bg-1",
        "--pattern",
        "done",
        "--timeout",
        "200ms",
    ]);
    let said = missed.json["error"]["message"].as_str().unwrap_or("");
    assert!(said.contains("--log-cap"), "{}", missed.stdout);
    // A log under its cap says nothing.
    env.run(&["bg", "start", "--", "echo", "hi"]);
    env.run(&["wait", "--bg", "bg-2", "--exit", "--timeout", "10s"]);
    let st = env.run(&["bg", "status", "bg-2"]);
    assert!(
        st.json["items"][0].get("log_cut").is_none(),
        "{}",
        st.stdout
    );
}

/// What a job left past its group (`setsid`) and its tag (`env -i`) ends with
/// the program (**breaking**: it used to run on until `bg stop`), and `bg stop`
/// ends it while the program runs (was: it survived both, on main).
#[test]
fn a_job_leaves_nothing_running_past_its_group_and_tag() {
    use crate::families::process_tree::still_grows;
    let env = TestEnv::new();
    let writer = |m: &std::path::Path| {
        format!(
            "env -i setsid sh -c \"while :; do echo x >> '{}'; sleep 0.05; done\" >/dev/null 2>&1 &",
            m.display()
        )
    };
    // The job's own exit, once the writer wrote (a fixed `sleep 0.5` ended
    // the job before a writer slowed by a loaded machine ever ran: "the writer
    // never ran", seen in CI).
    let m = env.path("own-exit.log");
    let script = format!(
        "{}\ni=0; while [ ! -s '{}' ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done",
        writer(&m),
        m.display()
    );
    env.run(&["bg", "start", "--", "sh", "-c", &script]);
    let w = env.run(&["wait", "--bg", "bg-1", "--exit", "--timeout", "10s"]);
    assert_eq!(w.json["exit_code"], 0, "{}", w.stdout);
    assert!(!still_grows(&m), "it outlived the job's exit");
    // bg stop while the program runs.
    let m = env.path("stop.log");
    let script = format!("{}\nsleep 60", writer(&m));
    env.run(&["bg", "start", "--", "sh", "-c", &script]);
    assert!(until(|| std::fs::metadata(&m).is_ok_and(|x| x.len() > 0)));
    let stop = env.run(&["bg", "stop", "bg-2", "--grace", "1s"]);
    assert_eq!(stop.json["stopped"], true, "{}", stop.stdout);
    assert!(!still_grows(&m), "it outlived bg stop: {}", stop.stdout);
}

/// What outlived SIGKILL when a job's program ended (the supervisor's
/// `not_killed` record) is said by `bg status`.
#[test]
fn bg_status_says_what_could_not_be_killed() {
    let env = TestEnv::new();
    let s = env.run(&["bg", "start", "--", "true"]);
    env.run(&["wait", "--bg", "bg-1", "--exit", "--timeout", "10s"]);
    let st = env.run(&["bg", "status", "bg-1"]);
    assert!(
        st.json["items"][0].get("not_killed").is_none(),
        "{}",
        st.stdout
    );
    // A process stuck in the kernel cannot be made here: its record is planted.
    let dir = std::path::Path::new(s.json["log"].as_str().unwrap()).with_file_name("not_killed");
    std::fs::write(&dir, "4242\n").unwrap();
    let st = env.run(&["bg", "status", "bg-1"]);
    assert_eq!(
        st.json["items"][0]["not_killed"],
        serde_json::json!([4242]),
        "{}",
        st.stdout
    );
}
