//! Orphans come back to aitools: a process that supervises programs makes itself
//! a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`), so what a program leaves
//! running re-parents to it instead of init — also after `setsid`, a double fork
//! and `env -i` (which drops the job tag [`super::proctree`] finds by). The tree
//! is then known by parent links in `/proc`: a program's descendants while it
//! runs, and afterwards the children of aitools it did not start itself
//! ([`spawn`] keeps the pids it started in a set while they are supervised, so a
//! sweep never takes them, nor another program's tree, for orphans). [`sweep`]
//! kills that tree and reaps what re-parented to us, each pid by name (never
//! `waitpid(-1)`, which would steal a supervised child's status).

use super::proctree;
use std::collections::{HashMap, HashSet};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// The children aitools started and still supervises (or keeps: a bg
/// supervisor): never orphans.
static OWN: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn own() -> MutexGuard<'static, Vec<u32>> {
    OWN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes this process the subreaper of what its children leave (once); whether it is.
pub fn adopt() -> bool {
    *ADOPTED.get_or_init(|| {
        // SAFETY: prctl with integer arguments; touches no memory of ours.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
    })
}

static ADOPTED: OnceLock<bool> = OnceLock::new();

/// Whether a program runs supervised by this process itself (its orphans
/// re-parent here and are told apart by start time alone): one at a time.
static PLAIN: AtomicBool = AtomicBool::new(false);

/// Claims the right to run a program under this process itself: `false` when
/// another does (then the program gets its own reaper, [`super::reaper`], so
/// neither run's end takes the other's orphans). [`unclaim`] once it ended.
pub fn claim() -> bool {
    PLAIN
        .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
        .is_ok()
}

/// The program run under this process itself ended (its tree was swept).
pub fn unclaim() {
    PLAIN.store(false, Ordering::Release);
}

/// Whether this process is a subreaper: then every descendant of a program it
/// started is under the program or under an orphan of ours, and the tag need
/// not be looked for in every process's environment (a scan of its own).
fn adopted() -> bool {
    ADOPTED.get().copied().unwrap_or(false)
}

/// Spawns `cmd` with its pid in the supervised set (taken under the set's lock,
/// so a concurrent sweep never reaps it before it is known); [`release`] it
/// once its status was collected.
pub fn spawn(cmd: &mut Command) -> std::io::Result<Child> {
    spawn_by(|| cmd.spawn(), Child::id)
}

/// [`spawn`] for a process started another way (`start`; `pid` names it).
pub fn spawn_by<T>(
    start: impl FnOnce() -> std::io::Result<T>,
    pid: impl Fn(&T) -> u32,
) -> std::io::Result<T> {
    let mut set = own();
    let t = start()?;
    set.push(pid(&t));
    Ok(t)
}

/// The child `pid` was waited for: no longer supervised.
pub fn release(pid: u32) {
    own().retain(|&p| p != pid);
}

/// One process's parent link: parent pid, start time, whether it is a zombie.
#[derive(Clone, Copy)]
struct Link {
    ppid: u32,
    start: u64,
    dead: bool,
}

fn links() -> HashMap<u32, Link> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
            let f: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
            let link = Link {
                ppid: f.get(1)?.parse().ok()?,
                start: f.get(22 - 3)?.parse().ok()?,
                dead: matches!(f.first(), Some(&"Z" | &"X")),
            };
            Some((pid, link))
        })
        .collect()
}

/// Every process under the `roots` (the roots left out).
fn below(links: &HashMap<u32, Link>, roots: &[u32]) -> Vec<u32> {
    let mut kids: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&pid, l) in links {
        kids.entry(l.ppid).or_default().push(pid);
    }
    let mut seen: HashSet<u32> = HashSet::new();
    let mut todo: Vec<u32> = roots.to_vec();
    while let Some(p) = todo.pop() {
        for &c in kids.get(&p).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(c) {
                todo.push(c);
            }
        }
    }
    seen.into_iter().collect()
}

/// Whether `pid` carries a job tag other than `tag` (another program's tree).
fn foreign(pid: u32, tag: Option<&str>) -> bool {
    let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let key = format!("{}=", proctree::TAG_VAR);
    env.split(|&b| b == 0)
        .find_map(|v| v.strip_prefix(key.as_bytes()))
        .is_some_and(|t| Some(t) != tag.map(str::as_bytes))
}

/// The live processes of a program's tree: under `root` (its pid, while it is
/// not reaped), the orphans that re-parented to this process since `since`
/// (clock ticks; not started by us, not carrying another program's tag) and
/// what is under them, and every process carrying `tag`.
pub fn tree(root: Option<u32>, since: u64, tag: Option<&str>) -> Vec<u32> {
    tree_in(&links(), root, since, tag)
}

/// The processes re-parented to this one since `since` that it did not start
/// itself (not in the supervised set) and `pick` takes.
fn orphans(all: &HashMap<u32, Link>, since: u64, pick: impl Fn(u32) -> bool) -> Vec<u32> {
    let me = std::process::id();
    let kept = own().clone();
    all.iter()
        .filter(|(pid, l)| l.ppid == me && l.start >= since && !kept.contains(pid) && pick(**pid))
        .map(|(&pid, _)| pid)
        .collect()
}

fn tree_in(all: &HashMap<u32, Link>, root: Option<u32>, since: u64, tag: Option<&str>) -> Vec<u32> {
    let me = std::process::id();
    let mut found: HashSet<u32> = root
        .map(|r| below(all, &[r]))
        .unwrap_or_default()
        .into_iter()
        .collect();
    let orphans = orphans(all, since, |pid| Some(pid) != root && !foreign(pid, tag));
    found.extend(below(all, &orphans));
    found.extend(orphans);
    if let Some(t) = tag.filter(|_| !adopted()) {
        found.extend(proctree::tagged(t));
    }
    found.retain(|p| *p != me && all.get(p).is_some_and(|l| !l.dead));
    let mut v: Vec<u32> = found.into_iter().collect();
    v.sort_unstable();
    v
}

/// The live processes under `root` (which must be known to be the process
/// meant: pid and start time).
pub fn under(root: u32) -> Vec<u32> {
    let all = links();
    let mut v = below(&all, &[root]);
    v.retain(|p| all.get(p).is_some_and(|l| !l.dead));
    v
}

/// Sends `sig` to every process of the tree ([`tree`]); how many there were.
pub fn signal_tree(root: Option<u32>, since: u64, tag: Option<&str>, sig: i32) -> usize {
    let pids = tree(root, since, tag);
    for &p in &pids {
        proctree::signal(p, sig);
    }
    pids.len()
}

/// Reaps the zombies that re-parented to this process (each by its pid; the
/// supervised children are left to their owners).
pub fn reap() {
    reap_in(&links());
}

fn reap_in(all: &HashMap<u32, Link>) {
    let me = std::process::id();
    let set = own();
    for (&pid, l) in all {
        if l.ppid == me && l.dead && !set.contains(&pid) {
            let Ok(p) = i32::try_from(pid) else { continue };
            let mut status = 0;
            // SAFETY: waitpid on one named pid, WNOHANG; `status` is ours.
            unsafe {
                libc::waitpid(p, &mut status, libc::WNOHANG);
            }
        }
    }
}

/// Whether this process has a child (live, or a zombie not reaped yet): one
/// `waitid` that reaps nothing. Without one, a subreaper knows that nothing a
/// program it started (and reaped) left runs on: every such process would be
/// under an orphan that re-parented here.
pub fn has_children() -> bool {
    // SAFETY: `info` is a zeroed siginfo_t owned here; WNOWAIT reaps nothing.
    let r = unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        libc::waitid(
            libc::P_ALL,
            0,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT | libc::__WALL,
        )
    };
    !(r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD))
}

/// SIGKILL to the whole tree ([`tree`]) again until none is left (a forking
/// process makes new ones) or `within` passes, reaping what re-parented here:
/// the pids still alive then.
pub fn sweep(root: Option<u32>, since: u64, tag: Option<&str>, within: Duration) -> Vec<u32> {
    // The program was reaped and nothing re-parented here: no /proc scan.
    if root.is_none() && adopted() && !has_children() {
        return Vec::new();
    }
    proctree::kill_until_gone(within, || {
        // One scan of /proc a round (about 50 µs a process): reaped and searched.
        let all = links();
        reap_in(&all);
        tree_in(&all, root, since, tag)
    })
}

/// After a run's reaper and its guard both died: SIGKILL, again until none is
/// left or `within` passes, to the orphans of this process since `since` that
/// carry `tag` itself and to everything under them, reaping what re-parented
/// here; the pids still alive then. An orphan without a tag is left alone: it
/// cannot be told from another job's (a bg job's, whose supervisor died).
pub fn sweep_tagged(since: u64, tag: &str, within: Duration) -> Vec<u32> {
    proctree::kill_until_gone(within, || {
        let all = links();
        reap_in(&all);
        let live = |pid| all.get(&pid).is_some_and(|l: &Link| !l.dead);
        let roots = orphans(&all, since, |pid| live(pid) && proctree::carries(pid, tag));
        let mut found = below(&all, &roots);
        found.extend(roots);
        found.retain(|p| all.get(p).is_some_and(|l| !l.dead));
        found
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_found_by_parent_links() {
        let mut l = HashMap::new();
        let link = |ppid| Link {
            ppid,
            start: 0,
            dead: false,
        };
        l.insert(10, link(1));
        l.insert(11, link(10));
        l.insert(12, link(11));
        l.insert(20, link(1));
        let mut b = below(&l, &[10]);
        b.sort_unstable();
        assert_eq!(b, vec![11, 12]);
        assert!(below(&l, &[12]).is_empty());
    }
}
