//! `sys procs` and `sys ports`, checked against /proc and the test's own
//! processes and sockets: a child started here must be listed with its pid,
//! ppid and state as /proc/<pid>/stat says, its command line masked; a socket
//! bound here must be listed with this process as its owner.

use crate::support::TestEnv;
use std::process::Command;

#[test]
fn sys_procs_agrees_with_proc_and_masks_command_lines() {
    let env = TestEnv::new();
    let mut child = Command::new("sh")
        .args([
            "-c",
            "sleep 30; true",
            "zzprocs",
            "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        ])
        .spawn()
        .expect("sh");
    // The shell is compared field by field: wait until it sleeps in `wait`, so
    // its state cannot move between our read and the oracle's (it starts `R`).
    let stat_path = format!("/proc/{}/stat", child.id());
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::read_to_string(&stat_path)
        .map(|s| {
            !s.rsplit_once(')')
                .is_some_and(|(_, r)| r.trim_start().starts_with('S'))
        })
        .unwrap_or(true)
        && std::time::Instant::now() < until
    {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let r = env.run(&["sys", "procs", "ZZPROCS"]);
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["total"], 1, "{}", r.stdout);
    let it = &r.json["items"][0];
    assert_eq!(it["pid"], child.id());
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    assert_eq!(it["ppid"].as_u64().unwrap().to_string(), fields[1]);
    assert_eq!(it["state"], fields[0]);
    assert_eq!(it["user"], whoami());
    assert!(
        it["command"]
            .as_str()
            .unwrap()
            .starts_with("sh -c sleep 30; true zzprocs ")
    );
    assert!(!r.stdout.contains("ghp_"), "{}", r.stdout);
    // Bounded: --limit 1 of every process is partial, and its call lists all.
    let cut = env.run(&["sys", "procs", "--limit", "1"]);
    assert_eq!(cut.code, 3);
    assert_eq!(cut.json["items"].as_array().unwrap().len(), 1);
    assert!(
        cut.json["next_commands"][0]
            .as_str()
            .unwrap()
            .contains("--limit")
    );
}

fn whoami() -> String {
    let out = Command::new("id").arg("-un").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn sys_ports_lists_a_socket_bound_here_with_this_process() {
    let env = TestEnv::new();
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let r = env.run(&["sys", "ports"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let items = r.json["items"].as_array().unwrap();
    let mine = items
        .iter()
        .find(|i| i["port"] == port && i["protocol"] == "tcp")
        .unwrap_or_else(|| panic!("port {port} not listed: {}", r.stdout));
    assert_eq!(mine["address"], "127.0.0.1");
    assert_eq!(mine["pid"], std::process::id());
    // Sorted by port.
    let ports: Vec<u64> = items.iter().map(|i| i["port"].as_u64().unwrap()).collect();
    assert!(ports.windows(2).all(|w| w[0] <= w[1]));
    drop(l);
}

/// Without a /proc that lists the process (a tmpfs mounted over it in a private
/// mount namespace, as a sandbox or a bare container has), `sys procs` and
/// `sys ports` answer `environment.unavailable`, never an empty list or a
/// missing-file error. Skipped where `unshare -m` is not permitted.
#[test]
fn sys_procs_and_ports_without_proc_are_unavailable() {
    let env = TestEnv::new();
    let probe = Command::new("unshare")
        .args(["-m", "sh", "-c", "mount -t tmpfs none /proc"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: unshare -m with a /proc mount is not permitted here");
        return;
    }
    for sub in ["procs", "ports"] {
        let mut c = Command::new("unshare");
        c.args([
            "-m",
            "sh",
            "-c",
            &format!("mount -t tmpfs none /proc && exec \"$AITOOLS\" sys {sub}"),
        ])
        .env("AITOOLS", crate::support::bin());
        let r = crate::support::parse(env.isolate(c).output().expect("unshare"));
        assert_eq!(
            r.error_code(),
            "environment.unavailable",
            "{sub}: {}",
            r.stdout
        );
        let repair = r.json["error"]["repairs"][0]["command"]
            .as_str()
            .expect("repair");
        assert_eq!(env.run_line(repair).code, 0, "{repair}");
    }
}
