//! A run's own subreaper, for every program a user names (`run`) and for a
//! program started while another runs in the same process (two calls at once
//! in `aitools console` or `mcp --http`): aitools run again as `aitools
//! __run-reaper <fd> -- <argv>` (with `AITOOLS_RUN_REAPER` set, so no typed
//! call lands here), or, from a process with one thread, forked without an
//! exec ([`super::reaper_fork`]). It makes itself a child subreaper, starts the
//! program (which inherits its group, streams, cwd and job tag), waits for it,
//! then kills what the program left (everything still under the reaper, also
//! past `setsid`, a double fork and `env -i`) and exits as the program did (its
//! code, or the same signal). So what a program leaves re-parents to its own
//! run's reaper, never to the shared process where another run's end would take
//! it for its own. On descriptor `<fd>` it says `ok` once the program started
//! (or `errno <n>` when it could not be), then the pids that outlived SIGKILL,
//! one a line, then `end`. The reaper is two processes, a guard and the
//! reaper proper ([`super::reaper_guard`]): either killed (SIGKILL, the OOM
//! killer), the other ends the program's tree and says `end`, so nothing a
//! run left re-parents to its starter, where it could not be told apart from
//! another job's orphan; only when both die does the starter end what carries
//! the run's tag.
//! Every `run` gets a reaper (a lone one too): when its starter dies (SIGKILL
//! included), the reaper sees its report's read end close and ends the
//! program's whole tree (SIGTERM, then SIGKILL) before it exits.

use super::reaper_guard::{End, ReaperEnd, Split};
use std::ffi::OsString;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::Command;
use std::time::Duration;

/// The hidden first argument naming the reaper.
pub const ARG: &str = "__run-reaper";
/// Set in the reaper's environment by [`command`]; required with [`ARG`].
const ENV: &str = "AITOOLS_RUN_REAPER";
/// The report's last line, once the reaper ended the program's tree itself.
pub const DONE: &str = "end";
/// How long the program's leftovers have to die under SIGKILL.
const LEFTOVER_KILL: Duration = Duration::from_millis(500);

/// The reaper's command for `cmd` (program, arguments, environment and cwd
/// taken from it), reporting on `report` (a pipe's write end, passed on to the
/// reaper alone); the caller sets the streams, group and tag.
pub fn command(cmd: &Command, report: &impl AsRawFd) -> Command {
    let fd = report.as_raw_fd();
    // The executable of this process, also when its file was replaced.
    let mut c = Command::new("/proc/self/exe");
    c.arg(ARG)
        .arg(fd.to_string())
        .arg("--")
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        c.current_dir(d);
    }
    c.env(ENV, "1");
    // SAFETY: runs in the forked child before exec and only calls fcntl(2),
    // which is async-signal-safe; `fd` is a plain integer.
    unsafe {
        c.pre_exec(move || {
            // The report descriptor survives this exec only (not the program's).
            if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c
}

/// When this process is a run's reaper (`args` after the program name): runs
/// the program and gives its exit code (a signal is raised again); `None` for
/// every other call.
pub fn serve(args: &[OsString]) -> Option<u8> {
    if args.first().is_none_or(|a| a != ARG) || std::env::var_os(ENV).is_none() {
        return None;
    }
    let fd: i32 = args.get(1)?.to_str()?.parse().ok()?;
    let argv = args.get(3..).filter(|a| !a.is_empty())?;
    // SAFETY: fcntl on a plain descriptor number; fails when it is not open.
    if fd < 3 || unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } == -1 {
        return Some(127);
    }
    // SAFETY: the descriptor was opened for this process alone by its starter
    // ([`command`]) and nothing else here uses it.
    let report = unsafe { std::fs::File::from_raw_fd(fd) };
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).env_remove(ENV);
    Some(reap(report, &mut cmd))
}

extern "C" fn ignore(_: libc::c_int) {}

/// Debug builds only (what the black-box tests run): the reaper waits this
/// many milliseconds before its first look at its starter, so a test can kill
/// the starter between the reaper's start and that look. Release builds never
/// read it.
#[cfg(debug_assertions)]
pub const TEST_STALL_VAR: &str = "AITOOLS_TEST_REAPER_STALL_MS";

fn stall_for_tests() {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var(TEST_STALL_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(Duration::from_millis(ms.min(10_000)));
    }
}

/// Makes this process the subreaper of what its descendants leave (a fork
/// does not inherit it, so each reaper process asks for itself).
fn become_subreaper() {
    // SAFETY: prctl with integer arguments; touches no memory of ours.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
}

/// The reaper's work, in a process of its own (exec'd by [`serve`], or forked
/// by [`super::reaper_fork`]): `cmd` is the program, with the streams, cwd and
/// group this process has.
pub(super) fn reap(report: std::fs::File, cmd: &mut Command) -> u8 {
    become_subreaper();
    // The caller's TERM (a timeout) is for the program: the reaper outlives it
    // to end the leftovers. A handler, not SIG_IGN: the program starts with the
    // default disposition (exec resets handlers).
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: installs a handler that does nothing and touches no memory.
        unsafe { libc::signal(sig, ignore as *const () as libc::sighandler_t) };
    }
    stall_for_tests();
    // The starter died before this process looked: nothing is started for no one.
    if orphaned(&report, 0) {
        return 127;
    }
    match super::reaper_guard::split() {
        Split::Guard(g) => match g.watch() {
            ReaperEnd::Done(end) => exit_as(end),
            // The reaper died first: everything it left re-parented here.
            ReaperEnd::Killed(end) => {
                let left = end_tree(std::process::id());
                if !orphaned(&report, 0) {
                    say_end(&report, &left);
                }
                exit_as(end)
            }
        },
        Split::Reaper(r) => {
            let end = run(report, cmd, r.life());
            r.done();
            exit_as(end)
        }
        Split::Alone => exit_as(run(report, cmd, -1)),
    }
}

fn exit_as(end: End) -> u8 {
    match end {
        End::Code(c) => c,
        End::Signal(s) => raise(s),
    }
}

/// Starts the program and ends its tree: the reaper's own work. `life` (or -1)
/// closes when the reaper's guard died: then the run is over for the starter,
/// and the tree is ended as when the starter died, but reported.
fn run(mut report: std::fs::File, cmd: &mut Command, life: i32) -> End {
    #[cfg(debug_assertions)]
    cmd.env_remove(TEST_STALL_VAR);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(report, "errno {}", e.raw_os_error().unwrap_or(-1));
            return End::Code(127);
        }
    };
    let _ = writeln!(report, "ok");
    let me = std::process::id();
    let left = match wait_or_orphaned(&mut child, &report, life) {
        Waited::Exited(status) => {
            let left = super::proctree::kill_until_gone(LEFTOVER_KILL, || {
                reap_any();
                if super::subreaper::has_children() {
                    super::subreaper::under(me)
                } else {
                    Vec::new()
                }
            });
            say_end(&report, &left);
            return match status.map(|s| (s.code(), s.signal())) {
                Ok((Some(c), _)) => End::Code(u8::try_from(c & 0xff).unwrap_or(1)),
                Ok((None, Some(s))) => End::Signal(s),
                _ => End::Code(127),
            };
        }
        // No one reads the answer any more: the program's tree is ended as a
        // timeout ends it (TERM, a grace, then KILL) and nothing is reported.
        Waited::Orphaned => {
            end_tree(me);
            return End::Code(1);
        }
        Waited::GuardGone => end_tree(me),
    };
    if !orphaned(&report, 0) {
        say_end(&report, &left);
    }
    End::Code(1)
}

/// The report's end: the pids that outlived SIGKILL, then [`DONE`].
fn say_end(mut report: &std::fs::File, left: &[u32]) {
    for p in left {
        let _ = writeln!(report, "{p}");
    }
    // The report is whole: without this line the reaper died first, and its
    // starter sweeps what carries the job's tag (see `process::Job::end`).
    let _ = writeln!(report, "{DONE}");
}

/// What a wait saw: the report's read end closed (the starter died: a pipe's
/// write end polls `POLLERR` once it has no reader), and the guard's life pipe
/// closed (the guard died), waiting at most `ms` (-1: no limit); it also wakes
/// when `pidfd` (or -1) is readable.
fn look(report: &std::fs::File, pidfd: i32, life: i32, ms: i32) -> (bool, bool) {
    let fd = |fd, events| libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    let mut p = [
        fd(report.as_raw_fd(), 0),
        fd(pidfd, libc::POLLIN),
        fd(life, libc::POLLIN),
    ];
    // SAFETY: `p` is three valid pollfds owned here (a negative fd is skipped).
    unsafe { libc::poll(p.as_mut_ptr(), 3, ms) };
    (
        p[0].revents & (libc::POLLERR | libc::POLLHUP) != 0,
        p[2].revents != 0,
    )
}

fn orphaned(report: &std::fs::File, ms: i32) -> bool {
    look(report, -1, -1, ms).0
}

enum Waited {
    Exited(std::io::Result<std::process::ExitStatus>),
    /// The starter died first.
    Orphaned,
    /// The reaper's guard died first (its starter learns the run ended).
    GuardGone,
}

/// Waits for the program's end, the starter's or the guard's (`life`).
fn wait_or_orphaned(child: &mut std::process::Child, report: &std::fs::File, life: i32) -> Waited {
    let pid = libc::pid_t::try_from(child.id()).unwrap_or(-1);
    // SAFETY: pidfd_open(2) takes plain integers; the fd it returns is ours.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let pidfd = i32::try_from(fd).ok().filter(|&fd| fd >= 0).map(|fd| {
        // SAFETY: `fd` was just opened and is owned by nothing else.
        unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }
    });
    let also = pidfd.as_ref().map_or(-1, AsRawFd::as_raw_fd);
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return Waited::Exited(Ok(st)),
            Ok(None) => {}
            Err(e) => return Waited::Exited(Err(e)),
        }
        // Without a pidfd the program's end is seen within 20 ms.
        match look(report, also, life, if also < 0 { 20 } else { -1 }) {
            (true, _) => return Waited::Orphaned,
            (false, true) => return Waited::GuardGone,
            _ => {}
        }
    }
}

/// No one waits for the program any more: SIGTERM to everything under this
/// process (it is their subreaper), SIGKILL to what outlives
/// [`LEFTOVER_KILL`], reaping as they end; the pids that outlived SIGKILL.
fn end_tree(me: u32) -> Vec<u32> {
    let under = || {
        reap_any();
        super::subreaper::under(me)
    };
    for p in under() {
        super::proctree::signal(p, libc::SIGTERM);
    }
    let until = std::time::Instant::now() + LEFTOVER_KILL;
    while std::time::Instant::now() < until && !under().is_empty() {
        std::thread::sleep(Duration::from_millis(20));
    }
    super::proctree::kill_until_gone(LEFTOVER_KILL, under)
}

/// Reaps every child that ended (this process supervises nothing else).
fn reap_any() {
    let mut status = 0;
    // SAFETY: waitpid with WNOHANG; `status` is ours.
    while unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } > 0 {}
}

/// Ends this process by `sig` as the program ended (no core file of its own);
/// the shell's `128 + sig` when the signal does not end it.
fn raise(sig: i32) -> u8 {
    let none = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain integer and struct arguments owned here.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        libc::signal(sig, libc::SIG_DFL);
        libc::kill(libc::getpid(), sig);
    }
    u8::try_from((128 + sig) & 0xff).unwrap_or(1)
}

/// What the reaper said on its report descriptor: how the start went (`Err`
/// with the OS error when the program could not start).
pub fn started(first: &str) -> Result<(), std::io::Error> {
    match first.trim().strip_prefix("errno ") {
        None if first.trim() == "ok" => Ok(()),
        None => Err(std::io::Error::other("the run's reaper ended early")),
        Some(n) => Err(match n.parse::<i32>() {
            Ok(e) if e > 0 => std::io::Error::from_raw_os_error(e),
            _ => std::io::Error::other("the program could not start"),
        }),
    }
}
