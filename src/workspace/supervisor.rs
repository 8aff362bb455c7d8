//! The bg supervisor: aitools run again as `aitools __bg-supervise <dir> <cap> --
//! <argv>` (with `AITOOLS_BG_SUPERVISOR` set, so no typed call lands here). It
//! executes argv directly (no shell: a builtin name never shadows the program),
//! both streams into one pipe it copies to `<dir>/log` (appending) up to `cap`
//! bytes, the rest read and counted, never kept; it records the program's end in
//! `<dir>/exit` (`exit <n>` or `signal <n>`) and a cut in `<dir>/cut`
//! (`<cap> <dropped bytes>`), each written whole (temporary name, then rename).

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The hidden first argument naming the supervisor.
pub const ARG: &str = "__bg-supervise";
/// Set in the supervisor's environment by [`command`]; required with [`ARG`].
const ENV: &str = "AITOOLS_BG_SUPERVISOR";
/// How often a growing cut is recorded while the program writes past the cap.
const CUT_EVERY: Duration = Duration::from_secs(1);
/// How long what a program left running has between SIGTERM and SIGKILL.
const LEFTOVER_GRACE: Duration = Duration::from_millis(500);

/// The supervisor's command for `argv`, its records in `dir`, its log cut at
/// `cap` bytes; the caller sets its cwd, standard streams, group and tag.
pub fn command(dir: &Path, cap: u64, argv: &[String]) -> std::io::Result<Command> {
    let mut c = Command::new(std::env::current_exe()?);
    c.arg(ARG)
        .arg(dir)
        .arg(cap.to_string())
        .arg("--")
        .args(argv)
        .env(ENV, "1");
    Ok(c)
}

/// When this process is a supervisor (`args` after the program name): runs it and
/// gives the exit status; `None` for every other call.
pub fn serve(args: &[OsString]) -> Option<u8> {
    if args.first().is_none_or(|a| a != ARG) || std::env::var_os(ENV).is_none() {
        return None;
    }
    let dir = PathBuf::from(args.get(1)?);
    let cap: u64 = args.get(2)?.to_str()?.parse().ok()?;
    let argv = args.get(4..).filter(|a| !a.is_empty())?;
    Some(supervise(&dir, cap, argv))
}

/// Writes `text` to `<dir>/<name>` whole: a temporary name, then a rename.
fn record(dir: &Path, name: &str, text: &str) {
    let tmp = dir.join(format!("{name}.tmp"));
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, dir.join(name));
    }
}

fn supervise(dir: &Path, cap: u64, argv: &[OsString]) -> u8 {
    let log = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(dir.join("log"));
    let (Ok(mut log), Ok((reader, writer))) = (log, std::io::pipe()) else {
        record(dir, "exit", "exit 127\n");
        return 1;
    };
    let both = writer.try_clone().map(Stdio::from);
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).stdin(Stdio::null()).stdout(writer);
    if let Ok(w) = both {
        cmd.stderr(w);
    }
    // What the program leaves running re-parents to the supervisor, which ends
    // it when the program ends (also past `setsid`, a double fork and `env -i`).
    super::subreaper::adopt();
    let spawned = cmd.spawn();
    // The pipe's write ends now live only in the program (and what it starts).
    drop(cmd);
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(log, "aitools: cannot start {:?}: {e}", argv[0]);
            record(dir, "exit", "exit 127\n");
            return 1;
        }
    };
    // `bg stop` signals the whole group: the supervisor outlives TERM to record
    // how the program ended and keep its last lines.
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: sets a disposition to SIG_IGN; no handler code of ours runs.
        unsafe { libc::signal(sig, libc::SIG_IGN) };
    }
    let dir2 = dir.to_path_buf();
    let (done, copied) = std::sync::mpsc::channel();
    let copier = std::thread::spawn(move || {
        copy_capped(reader, &mut log, cap, &dir2);
        let _ = done.send(());
    });
    let end = match child.wait() {
        Ok(st) => match (st.code(), st.signal()) {
            (Some(c), _) => format!("exit {c}\n"),
            (None, Some(s)) => format!("signal {s}\n"),
            (None, None) => "exit 127\n".to_string(),
        },
        Err(_) => "exit 127\n".to_string(),
    };
    end_leftovers(dir);
    // The log (and its cut) is whole before the end is said, unless what the
    // program left running (and outlived SIGKILL) still holds the pipe.
    let _ = copied.recv_timeout(Duration::from_millis(500));
    record(dir, "exit", &end);
    // What the program left running may still write: copied until it closes.
    let _ = copier.join();
    0
}

/// The program ended: what it left running (every process under the
/// supervisor, and every one carrying the job's tag) gets SIGTERM, then SIGKILL
/// after [`LEFTOVER_GRACE`]; pids that outlived it are recorded in
/// `<dir>/not_killed` (one a line).
fn end_leftovers(dir: &Path) {
    use super::subreaper;
    let tag = std::env::var(super::proctree::TAG_VAR).ok();
    let tag = tag.as_deref();
    if subreaper::signal_tree(None, 0, tag, libc::SIGTERM) == 0 {
        subreaper::reap();
        return;
    }
    let until = Instant::now() + LEFTOVER_GRACE;
    while Instant::now() < until && !subreaper::tree(None, 0, tag).is_empty() {
        subreaper::reap();
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = subreaper::sweep(None, 0, tag, Duration::from_secs(2));
    if !left.is_empty() {
        let pids: Vec<String> = left.iter().map(u32::to_string).collect();
        record(dir, "not_killed", &format!("{}\n", pids.join("\n")));
    }
}

/// Copies `from` to `log` up to `cap` bytes; past it, reads and counts what is
/// dropped, recording the cut as it grows and at the end.
fn copy_capped(mut from: impl Read, log: &mut std::fs::File, cap: u64, dir: &Path) {
    let mut buf = vec![0u8; 64 * 1024];
    let (mut kept, mut dropped) = (0u64, 0u64);
    let mut said: Option<Instant> = None;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let room = usize::try_from(cap.saturating_sub(kept)).unwrap_or(usize::MAX);
        let keep = n.min(room);
        if keep > 0
            && log
                .write_all(&buf[..keep])
                .and_then(|()| log.flush())
                .is_ok()
        {
            kept += keep as u64;
            dropped += (n - keep) as u64;
        } else {
            // A log that cannot be written (a full disk) drops what it could not take.
            dropped += n as u64;
        }
        if dropped > 0 && said.is_none_or(|t| t.elapsed() >= CUT_EVERY) {
            record(dir, "cut", &format!("{cap} {dropped}\n"));
            said = Some(Instant::now());
        }
    }
    if dropped > 0 {
        record(dir, "cut", &format!("{cap} {dropped}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_keeps_its_cap_and_counts_the_rest() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("log");
        let mut log = std::fs::File::create(&path).expect("log");
        copy_capped(&[b'y'; 100][..], &mut log, 10, dir.path());
        assert_eq!(std::fs::read(&path).expect("read log").len(), 10);
        let cut = std::fs::read_to_string(dir.path().join("cut")).expect("cut");
        assert_eq!(cut, "10 90\n");
        // Under the cap: no cut record.
        let other = tempfile::tempdir().expect("temp dir");
        copy_capped(&b"hi\n"[..], &mut log, 10, other.path());
        assert!(!other.path().join("cut").exists());
    }

    #[test]
    fn only_the_hidden_call_with_its_variable_is_a_supervisor() {
        let args: Vec<OsString> = ["read", "x"].map(OsString::from).to_vec();
        assert_eq!(serve(&args), None);
        let hidden: Vec<OsString> = [ARG, "/nonexistent", "10", "--", "true"]
            .map(OsString::from)
            .to_vec();
        if std::env::var_os(ENV).is_none() {
            assert_eq!(serve(&hidden), None);
        }
    }
}
