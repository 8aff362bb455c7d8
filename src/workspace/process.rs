//! Running another program without a shell: stdin closed, its own process group,
//! both streams captured up to a cap, a deadline after which the whole group gets
//! SIGTERM and then SIGKILL. `git` and `run` both go through here, so a child never
//! outlives its deadline and never blocks aitools on a pipe a grandchild holds.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// How a call runs: the deadline, the grace between TERM and KILL, and the most
/// bytes kept per stream (the rest is read and counted, not kept).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    pub grace: Duration,
    pub cap: usize,
}

/// One stream's capture.
#[derive(Debug, Default)]
pub struct Stream {
    pub bytes: Vec<u8>,
    /// Every byte the program wrote, kept or not.
    pub total: u64,
    /// More than `Limits::cap` bytes were written.
    pub capped: bool,
}

/// What happened.
#[derive(Debug)]
pub struct Finished {
    pub stdout: Stream,
    pub stderr: Stream,
    /// `None` when a signal ended it.
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub duration: Duration,
}

/// Why the program did not start.
#[derive(Debug)]
pub enum StartError {
    /// No such program (ENOENT on exec).
    NotFound,
    /// Found but not executable (EACCES).
    Denied,
    Other(std::io::Error),
}

/// Sends `sig` to the process group `pgid` (the child's pid: it leads its group).
pub fn signal_group(pgid: u32, sig: i32) {
    let Ok(pid) = i32::try_from(pgid) else {
        return;
    };
    if pid <= 1 {
        return;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe {
        libc::kill(-pid, sig);
    }
}

/// Whether a process group still has a member that is not a zombie: where the
/// init process does not reap orphans (some containers), a group's dead members
/// stay as zombies and would look alive forever.
pub fn group_alive(pgid: u32) -> bool {
    let Ok(pid) = i32::try_from(pgid) else {
        return false;
    };
    // SAFETY: signal 0 only checks existence and permission.
    if unsafe { libc::kill(-pid, 0) } != 0 {
        return false;
    }
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return true;
    };
    dir.filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .any(|stat| {
            // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
            let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                return false;
            };
            let mut f = after.split_whitespace();
            let state = f.next().unwrap_or("Z");
            let _ppid = f.next();
            let pgrp = f.next().and_then(|g| g.parse::<u32>().ok());
            pgrp == Some(pgid) && state != "Z" && state != "X"
        })
}

fn reader(
    mut from: impl Read + Send + 'static,
    cap: usize,
    done: mpsc::Sender<(bool, Stream)>,
    is_out: bool,
) {
    thread::spawn(move || {
        let mut s = Stream::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    s.total += n as u64;
                    let room = cap.saturating_sub(s.bytes.len());
                    if room < n {
                        s.capped = true;
                    }
                    s.bytes.extend_from_slice(&buf[..n.min(room)]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = done.send((is_out, s));
    });
}

/// Runs `cmd` (program and arguments already set) to its end or its deadline.
pub fn run(mut cmd: Command, limits: Limits) -> Result<Finished, StartError> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => StartError::NotFound,
        std::io::ErrorKind::PermissionDenied => StartError::Denied,
        _ => StartError::Other(e),
    })?;
    let pgid = child.id();
    let (tx, rx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        reader(out, limits.cap, tx.clone(), true);
    }
    if let Some(err) = child.stderr.take() {
        reader(err, limits.cap, tx.clone(), false);
    }
    drop(tx);
    let deadline = start + limits.timeout;
    let mut timed_out = false;
    let mut termed_at: Option<Instant> = None;
    let mut nap = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(_) => break None,
        }
        let now = Instant::now();
        match termed_at {
            None if now >= deadline => {
                timed_out = true;
                signal_group(pgid, libc::SIGTERM);
                termed_at = Some(now);
            }
            Some(t) if now >= t + limits.grace => {
                signal_group(pgid, libc::SIGKILL);
                termed_at = Some(now + Duration::from_secs(3600));
            }
            _ => {}
        }
        thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(20));
    };
    let duration = start.elapsed();
    // A grandchild left in the group may hold the pipes open: the group goes with
    // its leader, after a moment to let the streams drain.
    let mut out = Stream::default();
    let mut err = Stream::default();
    let mut got = 0;
    let drain_until = Instant::now() + Duration::from_millis(300);
    let mut killed = false;
    while got < 2 {
        let wait = drain_until.saturating_duration_since(Instant::now());
        match rx.recv_timeout(if killed {
            Duration::from_millis(500)
        } else {
            wait
        }) {
            Ok((true, s)) => {
                out = s;
                got += 1;
            }
            Ok((false, s)) => {
                err = s;
                got += 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) if !killed => {
                signal_group(pgid, libc::SIGKILL);
                killed = true;
            }
            // A process that left the group (setsid) keeps the pipe: stop waiting.
            Err(_) => break,
        }
    }
    if group_alive(pgid) {
        signal_group(pgid, libc::SIGKILL);
    }
    let (exit_code, signal) = match status {
        Some(st) => (st.code(), st.signal()),
        None => (None, None),
    };
    Ok(Finished {
        stdout: out,
        stderr: err,
        exit_code,
        signal,
        timed_out,
        duration,
    })
}
