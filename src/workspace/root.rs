//! The invocation context: working directory, workspace root, global options.
//!
//! The root is `--root`, else the enclosing git work tree, else the working
//! directory. Relative path arguments resolve against the working directory.

use super::error::WorkspaceError;
use super::paths;
use crate::store::session::Session;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// What every handler receives.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The command as typed (`read`, `tx commit`).
    pub command: String,
    /// The whole argv after `aitools`, for the journal.
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    /// The workspace root with symlinks resolved.
    pub root: PathBuf,
    pub lock_timeout: Duration,
    /// `--tx <TX>`: writes stage in this tx, reads and scans see its view.
    pub tx: Option<String>,
    /// `--max-diff-lines N` of a write: the diff lines its answer shows (0: none);
    /// `None` keeps the write's default budget.
    pub max_diff_lines: Option<usize>,
    /// `--syntax-guard [on|off]` of a write; `None` leaves it to the workspace
    /// config. A call run by another (`batch`) inherits the caller's.
    pub syntax_guard: Option<bool>,
    /// What the invocation knows beyond its arguments (caches, locks held,
    /// settings from the environment); shared by the commands it runs inside itself.
    pub session: Arc<Session>,
    /// Where a handler streams its domain events (none in the envelope mode).
    pub events: crate::protocol::events::Events,
    /// How `batch` and `tx rebase` run other commands (set by the dispatcher).
    pub invoker: Option<Invoker>,
    /// The command list and whole-call runners (`schema`, `capabilities`,
    /// `doctor`; set by the dispatcher).
    pub host: Option<crate::protocol::host::Host>,
    /// The git hardening this command's repository needs, found by its first git
    /// call (`gitrun::harden`): one config listing per command, not per process.
    pub git_hardening: std::sync::OnceLock<super::gitrun::Hardening>,
    /// Words a handler read another tool's way (`git diff HEAD~1` → `--ref
    /// HEAD~1`): the dispatcher adds them to the answer's `took`.
    pub took: Arc<std::sync::Mutex<Vec<(String, String)>>>,
}

/// What the composition root hands a command that runs other commands (`batch`,
/// `tx rebase`).
#[derive(Debug, Clone, Copy)]
pub struct Invoker {
    /// Runs an argv (without `aitools`) through parse → recover → run, sharing
    /// the caller's session, in the given directory when there is one.
    pub run: fn(&Ctx, &[String], Option<&Path>) -> crate::protocol::invoke::Invoked,
    /// The command an argv names (`tx commit`), else `aitools`.
    pub command_name: fn(&[String]) -> String,
}

impl Ctx {
    /// Builds the context; fails on a `--root` that is not a directory.
    pub fn new(
        command: &str,
        argv: Vec<String>,
        root_arg: Option<&str>,
        lock_timeout: Duration,
    ) -> Result<Ctx, Box<WorkspaceError>> {
        Ctx::new_in(
            command,
            argv,
            root_arg,
            lock_timeout,
            None,
            Session::start(),
        )
    }

    /// `new` for a command run inside another: it shares the caller's `session`
    /// and gives its paths relative to `cwd` (else the process's directory).
    pub fn new_in(
        command: &str,
        argv: Vec<String>,
        root_arg: Option<&str>,
        lock_timeout: Duration,
        cwd: Option<&Path>,
        session: Arc<Session>,
    ) -> Result<Ctx, Box<WorkspaceError>> {
        let cwd = cwd
            .map(|c| Ok(c.to_path_buf()))
            .unwrap_or_else(std::env::current_dir)
            .map_err(|err| WorkspaceError::Cwd { err }.boxed())?;
        let root = match root_arg {
            Some(r) => {
                let given = cwd.join(r);
                match std::fs::canonicalize(&given) {
                    // An empty --root would silently mean the working directory.
                    Ok(real) if real.is_dir() && !r.is_empty() => real,
                    _ => {
                        return Err(WorkspaceError::RootNotADir {
                            arg: r.to_string(),
                            command: command.to_string(),
                        }
                        .boxed());
                    }
                }
            }
            None => discover_root(&cwd),
        };
        refuse_git_dir(&argv, root_arg, &root)?;
        Ok(Ctx {
            command: command.to_string(),
            argv,
            cwd,
            root,
            lock_timeout,
            tx: None,
            max_diff_lines: None,
            syntax_guard: None,
            session,
            events: Default::default(),
            invoker: None,
            host: None,
            git_hardening: Default::default(),
            took: Default::default(),
        })
    }

    /// The directory real paths this invocation resolved (its session's cache).
    pub fn dirs(&self) -> &paths::Dirs {
        &self.session.dirs
    }

    /// A path argument as an absolute, lexically normalized path.
    pub fn resolve(&self, arg: &str) -> PathBuf {
        paths::normalize(&self.cwd.join(arg))
    }

    /// A path argument, checked (not empty) and resolved like `resolve`.
    pub fn path_arg(&self, value: &str) -> Result<PathBuf, Box<WorkspaceError>> {
        if value.is_empty() {
            return Err(WorkspaceError::EmptyPath {
                command: self.command.clone(),
            }
            .boxed());
        }
        Ok(self.resolve(value))
    }

    /// A path argument a write changes: resolved and, before any other check could
    /// send the agent elsewhere (to `--overwrite`, say), refused when it lands
    /// outside the workspace or inside `.git` (the store checks again at the write).
    pub fn write_path_arg(
        &self,
        value: &str,
        last: super::boundary::Final,
    ) -> Result<PathBuf, Box<WorkspaceError>> {
        let abs = self.path_arg(value)?;
        super::boundary::resolve(self, &abs, last)?;
        Ok(abs)
    }

    /// How a read reports a path: root-relative when its real path is inside the
    /// root, else the absolute real path.
    pub fn display_path(&self, abs: &Path) -> String {
        self.display_real(&paths::real_path(self.dirs(), abs))
    }

    /// [`Self::display_path`] of a path already resolved to its real path (no
    /// second resolution: one lstat less per component).
    pub fn display_real(&self, real: &Path) -> String {
        match paths::relative_to(real, &self.root) {
            Some(rel) => rel,
            None => paths::display(real),
        }
    }

    /// Whether a real path is inside the workspace root.
    pub fn inside(&self, real: &Path) -> bool {
        real.starts_with(&self.root)
    }
}

/// The enclosing git work tree's root (a `.git` directory or file), else `cwd`.
pub fn discover_root(cwd: &Path) -> PathBuf {
    let start = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let mut cur: Option<&Path> = Some(start.as_path());
    while let Some(dir) = cur {
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
        cur = dir.parent();
    }
    start
}

/// Refuses a root inside a `.git` directory or that is a git directory itself:
/// writes there would be git's own files (a hook written and made executable runs
/// at the next commit), which the boundary keeps out of every workspace.
fn refuse_git_dir(
    argv: &[String],
    root_arg: Option<&str>,
    root: &Path,
) -> Result<(), Box<WorkspaceError>> {
    let in_dot_git = root
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".git"));
    if in_dot_git.is_none() && !is_git_dir(root) {
        return Ok(());
    }
    Err(WorkspaceError::RootInGit {
        shown: root_arg.map_or_else(|| paths::display(root), str::to_string),
        work_tree: in_dot_git.and_then(Path::parent).map(paths::display),
        argv: argv.to_vec(),
    }
    .boxed())
}

/// A git directory: `HEAD` naming a ref or a commit, with `objects/` and `refs/`.
fn is_git_dir(dir: &Path) -> bool {
    if !(dir.join("objects").is_dir() && dir.join("refs").is_dir()) {
        return false;
    }
    let Ok(head) = std::fs::read(dir.join("HEAD")) else {
        return false;
    };
    let head = head.trim_ascii();
    head.starts_with(b"ref: ")
        || ((head.len() == 40 || head.len() == 64) && head.iter().all(u8::is_ascii_hexdigit))
}
