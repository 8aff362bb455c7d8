//! A started program's whole tree, found and ended without touching anything else:
//! each program aitools starts carries a unique tag in its environment
//! (`AITOOLS_JOB=<tag>`), inherited by every descendant, also one that left the
//! process group (`setsid`) or was orphaned by a double fork; a process is named
//! by its pid and its start time (field 22 of `/proc/<pid>/stat`), never its pid
//! alone, so a reused pid is never taken for the program.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The environment variable carrying a started program's tag.
pub const TAG_VAR: &str = "AITOOLS_JOB";

/// A tag no other program aitools started carries: this process's pid and start
/// time, the clock and a counter.
pub fn new_tag() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let me = std::process::id();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "{me}.{}.{nanos}.{}",
        start_time(me).unwrap_or(0),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// The fields of `/proc/<pid>/stat` after `comm`: state is the first.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ...`; comm may hold spaces and parentheses.
    let after = &stat[stat.rfind(')')? + 1..];
    Some(after.split_whitespace().map(str::to_string).collect())
}

/// The start time of `pid` (clock ticks since boot), or `None` when it is gone.
pub fn start_time(pid: u32) -> Option<u64> {
    // Field 22 of the line; the fields after comm start at field 3.
    stat_fields(pid)?.get(22 - 3)?.parse().ok()
}

/// Whether `pid` is a live process (not a zombie) that started at `start`.
pub fn is_same(pid: u32, start: u64) -> bool {
    stat_fields(pid).is_some_and(|f| {
        let state = f.first().map(String::as_str).unwrap_or("Z");
        state != "Z" && state != "X" && f.get(22 - 3).and_then(|s| s.parse().ok()) == Some(start)
    })
}

pub fn live(pid: u32) -> bool {
    stat_fields(pid).is_some_and(|f| {
        let state = f.first().map(String::as_str).unwrap_or("Z");
        state != "Z" && state != "X"
    })
}

/// Whether `pid`'s environment carries `tag` (start times tick at 10 ms, so a pid
/// reused within one tick also needs this to be told apart).
pub fn carries(pid: u32, tag: &str) -> bool {
    let want = format!("{TAG_VAR}={tag}");
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == want.as_bytes()))
}

/// The live processes (zombies left out) whose environment carries `tag`.
pub fn tagged(tag: &str) -> Vec<u32> {
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me && carries(pid, tag) && live(pid))
        .collect()
}

/// `sig` to one process (never pid 0 or 1).
pub fn signal(pid: u32, sig: i32) {
    let Ok(pid) = i32::try_from(pid) else { return };
    if pid > 1 {
        // SAFETY: kill(2) takes plain integers and touches no memory of ours.
        unsafe {
            libc::kill(pid, sig);
        }
    }
}

/// Sends `sig` to every live process carrying `tag`; how many there were.
pub fn signal_tagged(tag: &str, sig: i32) -> usize {
    let pids = tagged(tag);
    for &p in &pids {
        signal(p, sig);
    }
    pids.len()
}

/// SIGKILL to every process carrying `tag`, again until none is left or
/// `within` passes: the pids still alive then.
pub fn kill_tagged(tag: &str, within: Duration) -> Vec<u32> {
    kill_until_gone(within, || tagged(tag))
}

/// SIGKILL to every process `find` names, again until it names none (a forking
/// process makes new ones) or `within` passes: the pids still alive then.
pub fn kill_until_gone(within: Duration, mut find: impl FnMut() -> Vec<u32>) -> Vec<u32> {
    let until = Instant::now() + within;
    loop {
        let left = find();
        if left.is_empty() || Instant::now() >= until {
            return left;
        }
        for &p in &left {
            signal(p, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_its_pid_and_start_time() {
        let me = std::process::id();
        let t = start_time(me).expect("own start time");
        assert!(is_same(me, t));
        assert!(!is_same(me, t + 1));
        assert!(tagged("no-such-tag").is_empty());
    }
}
