//! The one way aitools starts `git`: hardened so that nothing the repository holds
//! (its config and includes, a `.git` file, submodules, attributes, hooks, remotes)
//! can make git run a program. Every key by which repository content names a
//! program is overridden on the command line (`docs/git-safety.md` lists each and
//! why disabling it is safe); filter drivers the repository's own config defines
//! are found first (`git config --list --show-scope`, includes resolved by git) and
//! emptied by name; transports are closed, so a partial clone never fetches. What
//! cannot be neutralised is refused (`RunError::Refused`).

use super::gitquick;
use super::process::{self, Finished, Limits, StartError};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Config keys set on every call, and the value that makes each run nothing.
const FIXED: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.sshCommand", ""),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("diff.external", ""),
    ("protocol.allow", "never"),
    ("submodule.recurse", "false"),
    ("log.showSignature", "false"),
    ("gpg.program", ""),
    ("maintenance.auto", "false"),
    ("gc.auto", "0"),
];

/// The subcommands that run git's diff machinery, where `diff.external`,
/// `diff.<driver>.command` and `diff.<driver>.textconv` (the driver named by an
/// attribute) would run: each gets `--no-ext-diff --no-textconv` (git's porcelain
/// `log` and `show` turn textconv on by default; no config key turns it off).
const DIFF_RUNNERS: &[&str] = &[
    "annotate",
    "blame",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "format-patch",
    "log",
    "show",
    "whatchanged",
];

/// Inherited variables dropped: each redirects git to another repository, index
/// or config than the one aitools resolved, or names a program to run.
const DROPPED_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PROXY_COMMAND",
];

/// The most submodule repositories whose config is read for filter drivers.
const MAX_SUBMODULES: usize = 128;

/// The first git with `GIT_NO_LAZY_FETCH` (a partial clone never fetches).
const NO_LAZY_FETCH_SINCE: (u32, u32) = (2, 44);

/// Why a call did not run.
#[derive(Debug)]
pub enum RunError {
    /// git could not be started.
    Start(StartError),
    /// Listing the repository's config ran past the deadline.
    TimedOut,
    /// Running it could run the repository's programs: the reason, said whole.
    Refused(String),
    /// The repository's config listing ran past the output cap, so its filter
    /// drivers cannot be known (answered like any output past the cap).
    ConfigTooLarge,
}

/// A finished call, and whether the repository is a partial clone (so a failure
/// may be an object it never fetched).
#[derive(Debug)]
pub struct Ran {
    pub done: Finished,
    pub partial_clone: bool,
}

/// What the repository's own config asks of every call: the `-c` overrides that
/// empty its filter drivers, and whether it is a partial clone. Found once per
/// command (`Ctx::git_hardening`) and reused by each git process it starts: a
/// command starts no program of its own between them that could change it.
#[derive(Debug, Clone)]
pub struct Hardening {
    overrides: Vec<String>,
    partial_clone: bool,
    /// The `git` the cleaned PATH names, found once (else looked up at exec).
    program: Option<PathBuf>,
}

/// The hardening `dir`'s repository needs (its config listed, submodules too).
pub fn harden(dir: &Path, limits: Limits) -> Result<Hardening, RunError> {
    let mut overrides = Vec::new();
    let path = super::host::absolute_path(&std::env::var("PATH").unwrap_or_default());
    let program = super::host::which("git", &path);
    let (names, partial_clone) = repository_filters(dir, program.as_deref(), limits)?;
    for name in names {
        if name.contains('=') {
            return Err(RunError::Refused(format!(
                "the repository's config defines a filter driver named {name:?}, which cannot be disabled on git's command line, so aitools does not run git here."
            )));
        }
        for key in ["clean", "smudge", "process"] {
            overrides.push(format!("filter.{name}.{key}="));
        }
        overrides.push(format!("filter.{name}.required=false"));
    }
    Ok(Hardening {
        overrides,
        partial_clone,
        program,
    })
}

/// `git <args>` in `dir`, hardened (see the module comment) with what `harden`
/// found, to its end or its deadline; `input`, if any, on its stdin.
pub fn run_hardened(
    dir: &Path,
    args: &[String],
    (limits, input): (Limits, Option<&[u8]>),
    h: &Hardening,
) -> Result<Ran, RunError> {
    let mut cmd = base(dir, h.program.as_deref());
    for kv in &h.overrides {
        cmd.arg("-c").arg(kv);
    }
    cmd.args(no_diff_programs(args));
    let done = match input {
        Some(input) => process::run_fed(cmd, limits, input),
        None => process::run(cmd, limits),
    }
    .map_err(RunError::Start)?;
    Ok(Ran {
        done,
        partial_clone: h.partial_clone,
    })
}

/// `args` with `--no-ext-diff --no-textconv` after the subcommand when it is one
/// of `DIFF_RUNNERS` (the words before it are git's own options: `-c`, `-C` and
/// the long options spelled without `=` take the next word, which must not be
/// read as the subcommand and leave the flags off).
fn no_diff_programs(args: &[String]) -> Vec<String> {
    let mut at = 0;
    while let Some(a) = args.get(at) {
        match a.as_str() {
            "-c" | "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
            | "--super-prefix" | "--list-cmds" => at += 2,
            _ if a.starts_with('-') => at += 1,
            _ => break,
        }
    }
    let mut out = args.to_vec();
    if args
        .get(at)
        .is_some_and(|s| DIFF_RUNNERS.contains(&s.as_str()))
    {
        let flags = ["--no-ext-diff".to_string(), "--no-textconv".into()];
        out.splice(at + 1..at + 1, flags);
    }
    out
}

/// git with the fixed keys, the closed transports and the cleaned environment;
/// `git` is the program the cleaned PATH names (argv[0] stays `git`), else
/// the lookup is left to the exec.
fn base(dir: &Path, git: Option<&Path>) -> Command {
    use std::os::unix::process::CommandExt;
    let mut cmd = match git {
        Some(g) => {
            let mut c = Command::new(g);
            c.arg0("git");
            c
        }
        None => Command::new("git"),
    };
    // `git` is looked up in the child's PATH: no `.` or relative entry may let
    // a repository's own `git` file be the one that runs.
    let path = std::env::var("PATH").unwrap_or_default();
    cmd.env("PATH", super::host::absolute_path(&path));
    // `-C dir`, not a working directory for the child: with none, the spawn
    // needs no chdir and may be a posix_spawn (vfork) instead of a fork.
    cmd.arg("-C").arg(dir).arg("--no-pager");
    for (k, v) in FIXED {
        cmd.arg("-c").arg(format!("{k}={v}"));
    }
    for v in DROPPED_ENV {
        cmd.env_remove(v);
    }
    cmd.env("GIT_ALLOW_PROTOCOL", "")
        .env("GIT_PROTOCOL_FROM_USER", "0")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C");
    cmd
}

/// The names of the filter drivers whose programs come from repository config
/// (local or worktree scope, or a file those include), in `dir`'s repository and
/// in its submodules. Also refuses a partial clone when this git cannot be told
/// not to fetch. The second value says the repository is a partial clone.
fn repository_filters(
    dir: &Path,
    git: Option<&Path>,
    limits: Limits,
) -> Result<(Vec<String>, bool), RunError> {
    // No config file can hold a filter driver or a partial clone: no listing.
    let top = if gitquick::nothing_to_disable(dir, git, limits.cap) {
        Listed::default()
    } else {
        list_config(dir, git, limits)?
    };
    if top.partial_clone {
        require_no_lazy_fetch(dir, git, limits)?;
    }
    let mut names = top.filters;
    for sub in submodule_dirs(dir)? {
        let git_dir = if sub.join(".git").is_dir() {
            sub.join(".git")
        } else {
            sub.clone()
        };
        if gitquick::repository_clean(&git_dir, limits.cap) {
            continue;
        }
        let listed = list_config(&sub, git, limits)?;
        names.extend(listed.filters);
    }
    names.sort();
    names.dedup();
    Ok((names, top.partial_clone))
}

/// What one repository's config says that matters here.
#[derive(Default)]
struct Listed {
    filters: Vec<String>,
    partial_clone: bool,
}

/// `git config --list --null --show-scope` in `dir`, read for untrusted filter
/// drivers and for a promisor remote. Outside a repository (or with a config git
/// itself refuses) nothing is found: the call that follows fails the same way.
fn list_config(dir: &Path, git: Option<&Path>, limits: Limits) -> Result<Listed, RunError> {
    let mut cmd = base(dir, git);
    cmd.args(["config", "--list", "--null", "--show-scope"]);
    let done = process::run(cmd, limits).map_err(RunError::Start)?;
    if done.timed_out {
        return Err(RunError::TimedOut);
    }
    if done.stdout.capped {
        return Err(RunError::ConfigTooLarge);
    }
    if done.exit_code == Some(129) {
        return Err(RunError::Refused(format!(
            "this git does not know `git config --show-scope` (git 2.26 or later does), which aitools needs to disable the repository's filter programs. {}",
            first_line(&done.stderr.bytes)
        )));
    }
    if done.exit_code != Some(0) {
        return Ok(Listed::default());
    }
    Ok(parse_listing(&done.stdout.bytes))
}

/// Parses `scope\0key\nvalue\0` records (a key without a value has no `\n`).
fn parse_listing(bytes: &[u8]) -> Listed {
    let mut out = Listed::default();
    let mut fields = bytes.split(|b| *b == 0);
    while let (Some(scope), Some(entry)) = (fields.next(), fields.next()) {
        let entry = String::from_utf8_lossy(entry);
        let (key, value) = entry.split_once('\n').unwrap_or((&entry, ""));
        let lower = key.to_ascii_lowercase();
        if lower == "extensions.partialclone"
            || (lower.starts_with("remote.") && lower.ends_with(".promisor") && value == "true")
        {
            out.partial_clone = true;
        }
        let trusted = matches!(scope, b"system" | b"global" | b"command");
        if trusted {
            continue;
        }
        if let Some(name) = filter_name(key) {
            out.filters.push(name.to_string());
        }
    }
    out
}

/// `filter.<name>.<var>` → `name` (a name may hold dots; the var cannot).
fn filter_name(key: &str) -> Option<&str> {
    let rest = key.strip_prefix("filter.")?;
    let (name, _var) = rest.rsplit_once('.')?;
    Some(name)
}

/// The git directories of `dir`'s submodules: those absorbed under the common
/// directory's `modules/` (nested ones too), and those checked out with their own
/// `.git` at a path `.gitmodules` names. More than `MAX_SUBMODULES` is refused.
fn submodule_dirs(dir: &Path) -> Result<Vec<PathBuf>, RunError> {
    let Some(tree) = super::git::work_tree(dir) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    if let Some((_, common)) = super::git::git_dirs(&tree) {
        absorbed(&common.join("modules"), 0, &mut found);
    }
    for path in gitmodules_paths(&tree) {
        let sub = tree.join(path);
        if sub.join(".git").is_dir() {
            found.push(sub);
        }
    }
    if found.len() > MAX_SUBMODULES {
        return Err(RunError::Refused(format!(
            "the repository has more than {MAX_SUBMODULES} submodules; aitools reads each one's config to disable its programs and stops there."
        )));
    }
    Ok(found)
}

/// Git directories below `modules` (a directory holding `HEAD` and `config`),
/// depth-bounded; stops collecting past the limit.
fn absorbed(modules: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if depth > 8 || found.len() > MAX_SUBMODULES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(modules) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        if !kind.is_dir() {
            continue;
        }
        let p = e.path();
        if p.join("HEAD").is_file() && p.join("config").is_file() {
            absorbed(&p.join("modules"), depth + 1, found);
            found.push(p);
        } else {
            absorbed(&p, depth + 1, found);
        }
    }
}

/// The `path = ` values of a work tree's `.gitmodules` (a plain reading: a path
/// missed here is still found under `modules/` once absorbed).
fn gitmodules_paths(tree: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(tree.join(".gitmodules")) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim().eq_ignore_ascii_case("path")).then(|| v.trim().trim_matches('"').to_string())
        })
        .filter(|p| !p.is_empty() && !p.starts_with('/') && !p.split('/').any(|c| c == ".."))
        .collect()
}

/// A partial clone may be read only by a git that honours `GIT_NO_LAZY_FETCH`.
fn require_no_lazy_fetch(dir: &Path, git: Option<&Path>, limits: Limits) -> Result<(), RunError> {
    let mut cmd = base(dir, git);
    cmd.arg("--version");
    let done = process::run(cmd, limits).map_err(RunError::Start)?;
    let text = String::from_utf8_lossy(&done.stdout.bytes);
    let version = parse_version(&text);
    if version.is_some_and(|v| v >= NO_LAZY_FETCH_SINCE) {
        return Ok(());
    }
    Err(RunError::Refused(format!(
        "this repository is a partial clone and {} cannot be told not to fetch missing objects (git 2.44 or later can); a fetch would run the programs its remote config names.",
        text.trim()
    )))
}

/// `git version 2.47.3` → `(2, 47)`.
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let v = text.split_whitespace().nth(2)?;
    let mut parts = v.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

fn first_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn listing_keeps_untrusted_filters_only() {
        let raw = b"global\0filter.lfs.process\ngit-lfs filter-process\0local\0filter.a.b.clean\nx\0worktree\0filter.W.process\0local\0remote.origin.promisor\ntrue\0";
        let l = super::parse_listing(raw);
        assert_eq!(l.filters, ["a.b", "W"]);
        assert!(l.partial_clone);
    }

    #[test]
    fn diff_programs_are_turned_off_after_the_subcommand() {
        let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let got = super::no_diff_programs(&words("-c a=b --literal-pathspecs show -s HEAD"));
        assert_eq!(
            got,
            words("-c a=b --literal-pathspecs show --no-ext-diff --no-textconv -s HEAD")
        );
        let status = words("-c a=b status --porcelain");
        assert_eq!(super::no_diff_programs(&status), status);
        let dash_c = words("-c log status");
        assert_eq!(super::no_diff_programs(&dash_c), dash_c);
        let git_dir = words("--git-dir d -C w diff-tree --stdin -p");
        assert_eq!(
            super::no_diff_programs(&git_dir),
            words("--git-dir d -C w diff-tree --no-ext-diff --no-textconv --stdin -p")
        );
        let named_log = words("--work-tree log status");
        assert_eq!(super::no_diff_programs(&named_log), named_log);
    }

    #[test]
    fn versions_parse() {
        assert_eq!(super::parse_version("git version 2.47.3\n"), Some((2, 47)));
        assert_eq!(
            super::parse_version("git version 2.39.2 (Apple Git-143)"),
            Some((2, 39))
        );
        assert_eq!(super::parse_version("nonsense"), None);
    }
}
