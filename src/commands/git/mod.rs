//! The git family: read-only views of the repository (`git status`, `git diff`,
//! `git log`, `git show`, `git blame`). Each runs the `git` program through the one
//! hardened runner (`workspace::gitrun`: no shell, a deadline, no index lock, and no
//! program the repository names), and turns its machine-readable output into fields.

use crate::protocol::registry::CommandSpec;
use crate::protocol::{CmdError, Repair, code};
use crate::workspace::Ctx;
use crate::workspace::gitrun::{self, RunError};
use crate::workspace::process::{Limits, StartError};
use std::time::Duration;

pub mod blame;
mod commit;
pub mod diff;
pub mod log;
mod log_filter;
mod mask;
pub mod pick;
pub mod show;
pub mod status;

pub const COMMANDS: &[CommandSpec] =
    &[status::SPEC, diff::SPEC, log::SPEC, show::SPEC, blame::SPEC];

/// The longest one git call may take (`AITOOLS_GIT_TIMEOUT_MS` sets another).
const GIT_TIMEOUT: Duration = Duration::from_secs(60);
/// The most bytes kept from one git stream (a diff or a blob); the commands cut far
/// below this, so reaching it only makes an answer partial.
const GIT_CAP: usize = 64 * 1024 * 1024;

/// Where git runs: the working directory when it is inside the workspace (so a
/// relative pathspec means what it means in a shell), else the root.
fn git_dir(ctx: &Ctx) -> &std::path::Path {
    if ctx.cwd.starts_with(&ctx.root) {
        &ctx.cwd
    } else {
        &ctx.root
    }
}

/// The repair for a git call that asked for too much (ran too long, printed too much).
fn narrow(ctx: &Ctx) -> Repair {
    Repair::new(
        "narrow",
        "Ask for less (a path, a revision range).",
        format!("aitools schema {}", ctx.command),
    )
}

/// A deadline as the message says it: `60s`, `0.05s`.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}s", d.as_secs_f64())
    }
}

/// The answer when git ran past its deadline.
fn timed_out(ctx: &Ctx, args: &[String], timeout: Duration) -> CmdError {
    CmdError::new(
        code::TIMEOUT,
        format!(
            "git {} ran past {} and was stopped.",
            args.first().map(String::as_str).unwrap_or(""),
            seconds(timeout)
        ),
        narrow(ctx),
    )
}

/// What git said on stdout, once it succeeded.
pub struct GitOut {
    pub stdout: Vec<u8>,
}

/// `aitools <fallback>` answers what the failed git call was for without git.
fn unavailable(message: String, fallback: &str) -> CmdError {
    let err = CmdError::new(
        code::UNAVAILABLE,
        message,
        Repair::new(
            "inspect",
            "See the workspace root and whether it is a git work tree (pass --root <repository> to use another).",
            "aitools overview",
        ),
    );
    if fallback == "overview" {
        return err;
    }
    err.with_repair(Repair::new(
        "fallback",
        "Do it without git.",
        format!("aitools {fallback}"),
    ))
}

/// The command's git hardening, found by its first git call and reused.
fn hardening(ctx: &Ctx, limits: Limits) -> Result<gitrun::Hardening, RunError> {
    if let Some(h) = ctx.git_hardening.get() {
        return Ok(h.clone());
    }
    let h = gitrun::harden(git_dir(ctx), limits)?;
    let _ = ctx.git_hardening.set(h.clone());
    Ok(h)
}

/// Runs `git <args>`; a failure becomes the matching error. `fallback` is the
/// aitools command that does the same job without git (for the repair).
pub fn git(ctx: &Ctx, args: &[String], fallback: &str) -> Result<GitOut, CmdError> {
    git_fed(ctx, args, None, fallback)
}

/// [`git`] with `input` on git's stdin (`diff-tree --stdin`).
pub fn git_fed(
    ctx: &Ctx,
    args: &[String],
    input: Option<&[u8]>,
    fallback: &str,
) -> Result<GitOut, CmdError> {
    let timeout = ctx.session.settings.git_timeout.unwrap_or(GIT_TIMEOUT);
    let limits = Limits::plain(timeout, Duration::from_secs(1), GIT_CAP);
    let extra = [
        "-c".to_string(),
        "core.quotepath=false".into(),
        "-c".into(),
        "color.ui=false".into(),
    ];
    let all: Vec<String> = extra.into_iter().chain(args.iter().cloned()).collect();
    let ran = hardening(ctx, limits)
        .and_then(|h| gitrun::run_hardened(git_dir(ctx), &all, (limits, input), &h));
    let (done, partial_clone) = match ran {
        Ok(r) => (r.done, r.partial_clone),
        Err(e) => return Err(not_run(ctx, args, fallback, timeout, e)),
    };
    if done.timed_out {
        return Err(timed_out(ctx, args, timeout));
    }
    // Output cut at the capture cap would be answered as if it were whole.
    if done.exit_code == Some(0) && done.stdout.capped {
        return Err(CmdError::new(
            code::TOO_LARGE,
            format!(
                "git {} printed more than aitools keeps of one call.",
                args.first().map(String::as_str).unwrap_or("")
            ),
            narrow(ctx),
        ));
    }
    if done.exit_code == Some(0) {
        return Ok(GitOut {
            stdout: done.stdout.bytes,
        });
    }
    Err(failed(
        ctx,
        args,
        fallback,
        &done.stderr.bytes,
        partial_clone,
    ))
}

/// Why git did not run: it timed out, a hardening check refused it, it could
/// not be started.
fn not_run(ctx: &Ctx, args: &[String], fallback: &str, timeout: Duration, e: RunError) -> CmdError {
    match e {
        RunError::TimedOut => timed_out(ctx, args, timeout),
        RunError::Refused(why) => unavailable(format!("Not run: {why}"), fallback),
        RunError::ConfigTooLarge => CmdError::new(
            code::TOO_LARGE,
            "the repository's config listing is larger than aitools keeps of one git call, so aitools cannot tell which of its programs to disable.",
            narrow(ctx),
        ),
        RunError::Start(StartError::NotFound) | RunError::Start(StartError::Denied) => {
            unavailable("git is not installed or not on PATH.".into(), fallback)
        }
        RunError::Start(StartError::Other(e)) => unavailable(
            format!(
                "git could not be started: {}.",
                crate::protocol::error::err_text(&e)
            ),
            fallback,
        ),
    }
}

/// The error of a git that ran and failed, read off its stderr: not a work
/// tree, an object a partial clone lacks, a revision or path that is not
/// there, else an I/O failure quoting git's first line.
fn failed(
    ctx: &Ctx,
    args: &[String],
    fallback: &str,
    stderr: &[u8],
    partial_clone: bool,
) -> CmdError {
    let err = String::from_utf8_lossy(stderr);
    let first = err
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("git failed")
        .trim()
        .trim_start_matches("fatal: ")
        .trim_start_matches("error: ")
        .to_string();
    let lower = err.to_ascii_lowercase();
    if lower.contains("not a git repository") {
        return unavailable(
            format!("{} is not inside a git work tree.", git_dir(ctx).display()),
            fallback,
        );
    }
    let unfetched = [
        "lazy fetching disabled",
        "cannot read blob",
        "bad file",
        "missing blob",
    ];
    if partial_clone && unfetched.iter().any(|m| lower.contains(m)) {
        return not_fetched(args);
    }
    let missing = [
        "unknown revision",
        "bad revision",
        "invalid object name",
        "does not exist",
        "exists on disk, but not in",
        "not a valid object name",
        "no such path",
        "no such ref",
        "ambiguous argument",
        "bad object",
        "outside repository",
        "does not have any commits",
    ];
    if missing.iter().any(|m| lower.contains(m)) {
        return CmdError::new(
            code::NOT_FOUND,
            format!("git: {first}"),
            Repair::new(
                "list",
                "See the revisions there are (and the paths they touch).",
                "aitools git log",
            ),
        )
        .with_repair(Repair::new(
            "status",
            "See the paths git knows.",
            "aitools git status",
        ));
    }
    CmdError::new(
        code::IO,
        format!("git failed: {first}"),
        Repair::new(
            "status",
            "Check the repository's state.",
            "aitools git status",
        ),
    )
}

/// A partial clone lacks objects this call reads: aitools never fetches (a fetch
/// runs the programs the repository's remote config names); git itself may.
fn not_fetched(args: &[String]) -> CmdError {
    let mut words = vec!["run".to_string(), "--".into(), "git".into()];
    words.extend(args.iter().cloned());
    CmdError::new(
        code::UNAVAILABLE,
        "This partial clone has not fetched objects git needs here, and aitools never fetches (a fetch runs what the repository's remote config names).",
        Repair::new(
            "fetch",
            "If you trust this repository's remotes, let git fetch them (the same git call, run plainly), then ask again.",
            crate::protocol::shell::aitools(words),
        ),
    )
}

/// A path argument as git should see it: absolute, so it means the same file
/// wherever git runs.
pub fn pathspec(ctx: &Ctx, arg: &str) -> Result<String, CmdError> {
    let abs = ctx.path_arg(arg)?;
    Ok(abs.to_string_lossy().into_owned())
}

/// After an empty answer: the first path argument that names nothing git could
/// report (no file in the work tree, no match in the index or among untracked
/// files, no commit of any branch touching it) is `input.not-found` — a typo,
/// not a deleted path (`git log <deleted>` still lists its commits). `args` are
/// the path arguments as typed, `specs` their `pathspec`s.
pub fn unknown_path(ctx: &Ctx, args: &[String], specs: &[String]) -> Result<(), CmdError> {
    for (arg, spec) in args.iter().zip(specs) {
        if ctx
            .files()
            .disk(std::path::Path::new(spec))
            .symlink_metadata()
            .is_ok()
        {
            continue;
        }
        let some = |words: &[&str]| -> Result<bool, CmdError> {
            let mut a: Vec<String> = words.iter().map(|w| w.to_string()).collect();
            a.extend(["--".to_string(), spec.clone()]);
            Ok(!git(ctx, &a, "find")?.stdout.is_empty())
        };
        if some(&["ls-files", "--cached", "--others"])?
            || some(&["rev-list", "--all", "--max-count=1"])?
        {
            continue;
        }
        if let Some(err) = count_for_path(ctx, arg).or_else(|| revision_for_path(ctx, arg)) {
            return Err(err);
        }
        let name = std::path::Path::new(arg)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| arg.clone());
        return Err(CmdError::new(
            code::NOT_FOUND,
            format!("{arg} matches no file in the work tree, the index or any commit."),
            Repair::new(
                "find",
                "Look for the path by name.",
                crate::protocol::shell::aitools(["find", &name]),
            ),
        )
        .with_repair(Repair::new(
            "status",
            "See the paths git reports.",
            "aitools git status",
        )));
    }
    Ok(())
}

/// git log's `-5` (a count, as git reads it) where a path stands: answered with
/// the same call with `--limit 5`.
fn count_for_path(ctx: &Ctx, arg: &str) -> Option<CmdError> {
    let n = arg.strip_prefix('-')?;
    let count = ctx.command == "git log" && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    if !count {
        return None;
    }
    let fixed: Vec<String> = ctx
        .argv
        .iter()
        .flat_map(|w| match w == arg {
            true => vec!["--limit".to_string(), n.to_string()],
            false => vec![w.clone()],
        })
        .collect();
    Some(CmdError::new(
        code::ARGUMENT_INVALID,
        format!("{arg} is git's count of commits: git log takes it as --limit {n}."),
        Repair::new(
            "retry",
            format!("The same call with --limit {n}."),
            crate::protocol::shell::aitools(&fixed),
        ),
    ))
}

/// A path argument that names no path but a commit (`git diff HEAD~1`, as git
/// itself reads it): answered with the same call giving it as the revision
/// option (`--ref` of diff, `--rev` of log).
fn revision_for_path(ctx: &Ctx, arg: &str) -> Option<CmdError> {
    let flag = match ctx.command.as_str() {
        "git diff" => "--ref",
        "git log" => "--rev",
        _ => return None,
    };
    let given = ctx
        .argv
        .iter()
        .any(|w| w == flag || w.starts_with(&format!("{flag}=")));
    if given || arg.starts_with('-') {
        return None;
    }
    let verify = ["rev-parse", "--verify", "--quiet", "--end-of-options"];
    let mut a: Vec<String> = verify.iter().map(|w| w.to_string()).collect();
    a.push(format!("{arg}^{{commit}}"));
    // git exits 1 for a word that is no commit: not one.
    if git(ctx, &a, "git status").map_or(true, |o| o.stdout.is_empty()) {
        return None;
    }
    let mut fixed: Vec<String> = Vec::with_capacity(ctx.argv.len() + 1);
    let mut done = false;
    for w in &ctx.argv {
        if !done && w == arg {
            fixed.extend([flag.to_string(), w.clone()]);
            done = true;
        } else {
            fixed.push(w.clone());
        }
    }
    Some(CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "{arg} is a revision, not a path: {} takes it as {flag}.",
            ctx.command
        ),
        Repair::new(
            "retry",
            format!("The same call with {flag} {arg}."),
            crate::protocol::shell::aitools(&fixed),
        ),
    ))
}

/// `(text, malformed sequences replaced)`.
pub fn lossy(bytes: &[u8]) -> (String, u64) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_string(), 0),
        Err(_) => {
            let s = String::from_utf8_lossy(bytes).into_owned();
            let n = s.matches('\u{FFFD}').count() as u64;
            (s, n)
        }
    }
}

/// An ISO 8601 time in the author's offset (`+0100` as git writes it), as `%aI` prints.
pub fn iso_in_offset(secs: i64, tz: &str) -> String {
    let sign = if tz.starts_with('-') { -1 } else { 1 };
    let digits = tz.trim_start_matches(['+', '-']);
    let (h, m) = match (digits.get(..2), digits.get(2..4)) {
        (Some(h), Some(m)) => (h.parse::<i64>().unwrap_or(0), m.parse::<i64>().unwrap_or(0)),
        _ => (0, 0),
    };
    let off = sign * (h * 3600 + m * 60);
    let utc = crate::protocol::time::iso8601(secs + off);
    let stem = utc.trim_end_matches('Z');
    // git's %aI writes a zero offset as Z.
    if off == 0 && sign > 0 {
        return format!("{stem}Z");
    }
    let s = if sign < 0 { '-' } else { '+' };
    format!("{stem}{s}{h:02}:{m:02}")
}

/// git's own reading of a first path argument that names no file but a commit
/// (`git diff HEAD~1`, `git diff main..topic`, `git log v1.0`): the revision,
/// taken as the revision option `flag` (`--ref`, `--rev`) and said in the
/// answer's `took`, and how many leading path arguments it used. diff's two
/// commits (`git diff HEAD~1 HEAD`, as git reads them) are the range `A..B`.
/// Nothing when the option is given, the word starts with `-`, or a file of
/// that name exists (then it is the path it names).
pub fn take_revision(
    ctx: &Ctx,
    paths: &[String],
    given: bool,
    flag: &str,
) -> Option<(String, usize)> {
    let arg = paths.first()?;
    if given || !names_commits(ctx, arg, flag == "--ref") {
        return None;
    }
    let second = paths
        .get(1)
        .filter(|b| flag == "--ref" && !arg.contains("..") && names_commits(ctx, b, false));
    let (typed, rev, used) = match second {
        Some(b) => (format!("{arg} {b}"), format!("{arg}..{b}"), 2),
        None => (arg.clone(), arg.clone(), 1),
    };
    if let Ok(mut t) = ctx.took.lock() {
        t.push((typed, format!("{flag} {rev}")));
    }
    Some((rev, used))
}

/// Whether a path argument names no file but a commit (`range`: or a range
/// `A..B`/`A...B` whose ends, an empty one being HEAD, are each a commit).
fn names_commits(ctx: &Ctx, arg: &str, range: bool) -> bool {
    if arg.is_empty() || arg.starts_with('-') {
        return false;
    }
    let Ok(spec) = pathspec(ctx, arg) else {
        return false;
    };
    if ctx
        .files()
        .disk(std::path::Path::new(&spec))
        .symlink_metadata()
        .is_ok()
    {
        return false;
    }
    let ends: Vec<&str> = if range && arg.contains("..") {
        arg.split("...")
            .flat_map(|p| p.split(".."))
            .filter(|e| !e.is_empty())
            .collect()
    } else {
        vec![arg]
    };
    let commit = |end: &str| {
        let a: Vec<String> = ["rev-parse", "--verify", "--quiet", "--end-of-options"]
            .iter()
            .map(|w| w.to_string())
            .chain([format!("{end}^{{commit}}")])
            .collect();
        git(ctx, &a, "git status").is_ok_and(|o| !o.stdout.is_empty())
    };
    !ends.is_empty() && ends.iter().all(|e| commit(e))
}

/// git log's `-5` among the path arguments (git's count of commits): its value,
/// taken as `--limit` and said in `took`, when `--limit` is not given.
pub fn take_count(ctx: &Ctx, paths: &[String], given: bool) -> Option<(usize, u64)> {
    if given {
        return None;
    }
    let (i, n) = paths.iter().enumerate().find_map(|(i, p)| {
        let n = p.strip_prefix('-')?;
        (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .then(|| n.parse::<u64>().ok().map(|n| (i, n)))
            .flatten()
    })?;
    if let Ok(mut t) = ctx.took.lock() {
        t.push((paths[i].clone(), format!("--limit {n}")));
    }
    Some((i, n))
}

#[cfg(test)]
mod tests {
    #[test]
    fn offsets_print_like_git() {
        assert_eq!(
            super::iso_in_offset(0, "+0130"),
            "1970-01-01T01:30:00+01:30"
        );
        assert_eq!(
            super::iso_in_offset(0, "-0500"),
            "1969-12-31T19:00:00-05:00"
        );
    }
}
