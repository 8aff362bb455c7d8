//! `workspace::WorkspaceError` (the root, a path argument, the write boundary, a
//! named input, a scan filter, a missing path) as the user sees it.

use crate::protocol::error::{err_text, io_error, schema_repair};
use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::workspace::candidates::{Offer, same_argv_on};
use crate::workspace::error::{NotFound, Outside, WorkspaceError};

impl From<Box<WorkspaceError>> for CmdError {
    fn from(e: Box<WorkspaceError>) -> CmdError {
        CmdError::from(&*e)
    }
}

/// A workspace error's message alone (a pending record's refusal quotes it).
impl std::fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&CmdError::from(self).message)
    }
}

impl From<&WorkspaceError> for CmdError {
    fn from(e: &WorkspaceError) -> CmdError {
        match e {
            WorkspaceError::Cwd { err } => CmdError::new(
                code::IO,
                format!("The working directory cannot be read: {}.", err_text(err)),
                Repair::new(
                    "cd",
                    "Run aitools from an existing directory, or pass --root.",
                    "aitools --root '<dir>' overview",
                ),
            ),
            WorkspaceError::RootNotADir { arg, command } => CmdError::new(
                code::ARGUMENT_INVALID,
                format!("--root {arg} is not an existing directory."),
                Repair::new(
                    "root",
                    "Pass an existing directory as --root, or leave it out to use the enclosing git work tree.",
                    shell::aitools([command]),
                ),
            ),
            WorkspaceError::RootInGit {
                shown,
                work_tree,
                argv,
            } => root_in_git(shown, work_tree.clone(), argv),
            WorkspaceError::BadValue { command, flag, why } => {
                CmdError::invalid_argument(command, format!("{flag}: {why}"))
            }
            WorkspaceError::EmptyPath { command } => CmdError::new(
                code::ARGUMENT_INVALID,
                "The path argument is empty.",
                Repair::new("find", "Find the file to name.", "aitools find --type file"),
            )
            .with_repair(schema_repair(command)),
            WorkspaceError::Outside { what, why } => outside(what, why),
            WorkspaceError::NotOpenable { arg, kind } => not_openable(arg, kind),
            WorkspaceError::TooLarge {
                what,
                limit,
                need,
                argv,
            } => too_large(what, *limit, *need, argv),
            WorkspaceError::WholeTooLarge {
                display,
                len,
                limit,
            } => whole_too_large(display, *len, *limit),
            WorkspaceError::Stdin { err, command } => CmdError::new(
                code::IO,
                format!("Standard input cannot be read: {}.", err_text(err)),
                Repair::new(
                    "schema",
                    "Check how this command takes its input.",
                    shell::aitools(["schema", command.as_str()]),
                ),
            ),
            WorkspaceError::Newer { value, argv } => newer(value, argv),
            WorkspaceError::BadGlob { command, message } => bad_glob(command, message),
            WorkspaceError::UnknownLang {
                command,
                message,
                argv,
                lang,
            } => unknown_lang(command, message.clone(), argv, lang.clone()),
            WorkspaceError::NotFound(n) => not_found(n),
            WorkspaceError::Io { command, path, err } => io_error(command, path, err),
        }
    }
}

fn root_in_git(shown: &str, work_tree: Option<String>, argv: &[String]) -> CmdError {
    let (why, repair) = match work_tree {
        Some(work_tree) => (
            "is inside a .git directory",
            Repair::new(
                "root",
                "Use the work tree that holds this .git directory as the root (git's own files are changed with git).",
                shell::aitools(
                    ["--root".to_string(), work_tree]
                        .into_iter()
                        .chain(shell::rerun(argv, &["--root"], &[], &[])),
                ),
            ),
        ),
        None => (
            "is a git directory (a bare repository)",
            Repair::new(
                "root",
                "Work in a checkout of the repository instead (git worktree add, or git clone), and pass it as --root.",
                "aitools --root '<work tree>' overview",
            ),
        ),
    };
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "The workspace root {shown} {why}; aitools never writes git's own files, so it does not work there."
        ),
        repair,
    )
}

fn outside(what: &str, why: &Outside) -> CmdError {
    let (why, detail) = match why {
        Outside::InGit => (
            "is inside .git, which aitools never writes".to_string(),
            "Git's own files are changed with git, not aitools; check which path was meant.",
        ),
        Outside::Root => (
            "is the workspace root itself".to_string(),
            "Write to a path inside the workspace, or run from (or pass --root for) the workspace that holds it.",
        ),
        Outside::Elsewhere { real, root } => (
            format!("resolves to {real}, outside the workspace root {root}"),
            "Write to a path inside the workspace, or run from (or pass --root for) the workspace that holds it.",
        ),
    };
    CmdError::new(
        code::OUTSIDE_WORKSPACE,
        format!("{what} {why}; writes stay inside the workspace."),
        Repair::new("root", detail, shell::aitools(["info", what])),
    )
}

/// `refusal.too-large` for an input, with the call again under a limit that fits.
fn too_large(what: &str, limit: u64, need: Option<u64>, argv: &[String]) -> CmdError {
    let raise = need
        .unwrap_or(limit.saturating_mul(4))
        .max(limit.saturating_add(1));
    let mib = raise.div_ceil(1024 * 1024);
    let words = shell::rerun(
        argv,
        &["--max-input"],
        &[],
        &["--max-input".into(), format!("{mib}MiB")],
    );
    CmdError::new(
        code::TOO_LARGE,
        format!(
            "{what} is larger than the input limit of {limit} bytes (--max-input, default 256MiB)."
        ),
        Repair::new(
            "max-input",
            "Raise --max-input if an input this large is intended.",
            shell::aitools(words),
        ),
    )
}

/// `input.not-found`, with the near paths as `candidates` and, first, the same
/// call on the nearest (reads) or an `info` of it after `find` (writes).
fn not_found(n: &NotFound) -> CmdError {
    let NotFound {
        arg,
        dangling,
        nearest,
        candidates,
        offer,
        command,
        argv,
    } = n;
    let mut err = CmdError::new(
        code::NOT_FOUND,
        if *dangling {
            format!("{arg} is a symlink whose target does not exist.")
        } else {
            format!("{arg} does not exist.")
        },
        Repair::new(
            "find",
            "List the workspace's files to find the right name.",
            "aitools find --type file",
        ),
    );
    if *dangling {
        err = err.with_first_repair(Repair::new(
            "info",
            "Describe the link itself (its hash is that of its target text).",
            shell::aitools(["info", arg.as_str(), "--allow-missing"]),
        ));
    }
    let Some(as_arg) = nearest else {
        return err;
    };
    let (arg, argv) = (arg.as_str(), argv.as_slice());
    match offer {
        Offer::Retry => {
            let line = match same_argv_on(argv, arg, as_arg) {
                Some(words) => shell::aitools(&words),
                None => shell::aitools([command.as_str(), as_arg.as_str()]),
            };
            err = err.with_first_repair(Repair::new(
                "retry",
                "The nearest existing path, in the same invocation.",
                line,
            ));
        }
        Offer::Look => {
            err = err.with_repair(Repair::new(
                "info",
                "The nearest existing path: check it is the one meant, then run the write on it.",
                shell::aitools(["info", as_arg.as_str()]),
            ));
        }
    }
    err.with_candidates(Json::Arr(candidates.iter().map(Json::str).collect()))
}

/// The call again with every `--newer` value set to `value`.
fn with_newer(argv: &[String], value: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut next_is_value = false;
    for (i, a) in argv.iter().enumerate() {
        // After `--` every word is a value.
        if a == "--" {
            out.extend(argv[i..].iter().cloned());
            break;
        }
        if next_is_value {
            out.push(value.to_string());
            next_is_value = false;
        } else if a == "--newer" {
            out.push(a.clone());
            next_is_value = true;
        } else if a.starts_with("--newer=") {
            out.push(format!("--newer={value}"));
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// `--lang` with no language of the table: the same call with the language the
/// value is an extension of (`py`: python), else filtering by that extension.
fn unknown_lang(command: &str, message: String, argv: &[String], lang: Option<String>) -> CmdError {
    let mut fixed: Vec<String> = Vec::with_capacity(argv.len());
    let mut words = argv.iter();
    let mut value = None;
    while let Some(w) = words.next() {
        let v = match w.strip_prefix("--lang") {
            Some("") if value.is_none() => words.next().cloned(),
            Some(rest) if value.is_none() && rest.starts_with('=') => Some(rest[1..].to_string()),
            _ => {
                fixed.push(w.clone());
                continue;
            }
        };
        let v = v.unwrap_or_default();
        match &lang {
            Some(l) => fixed.extend(["--lang".to_string(), l.clone()]),
            None => fixed.extend(["--glob".to_string(), format!("*.{v}")]),
        }
        value = Some(v);
    }
    let repair = match (&lang, &value) {
        (Some(l), Some(_)) => Repair::new(
            "retry",
            format!("The same call with --lang {l}."),
            shell::aitools(&fixed),
        ),
        (None, Some(v)) => Repair::new(
            "retry",
            format!("The same call with files named *.{v}, or a language name from the message."),
            shell::aitools(&fixed),
        ),
        _ => schema_repair(command),
    };
    CmdError::new(code::ARGUMENT_INVALID, message, repair)
}

fn not_openable(arg: &str, kind: &str) -> CmdError {
    CmdError::new(
        code::NOT_A_FILE,
        format!(
            "{arg} is {kind}, not a regular file on disk: its size is unknown and reading it could block or never end; it was not opened."
        ),
        Repair::new(
            "info",
            "See what kind of path it is.",
            shell::aitools(["info", arg]),
        ),
    )
}

fn whole_too_large(display: &str, len: u64, limit: u64) -> CmdError {
    CmdError::new(
        code::TOO_LARGE,
        format!(
            "{display} is {len} bytes, over the {} MiB this command reads whole; it was not read.",
            limit / (1024 * 1024)
        ),
        Repair::new(
            "read",
            "Read it in bounded pieces instead.",
            shell::aitools(["read", display, "--range", "1:200"]),
        ),
    )
}

fn newer(value: &str, argv: &[String]) -> CmdError {
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!("--newer {value:?} is neither a duration (<n>ms|s|m|h|d) nor an existing path."),
        Repair::new(
            "newer",
            "Give a duration such as 1h, or a path whose mtime is the threshold.",
            shell::aitools(with_newer(argv, "1h")),
        ),
    )
}

fn bad_glob(command: &str, message: &str) -> CmdError {
    CmdError::new(
        code::ARGUMENT_INVALID,
        message.to_string(),
        Repair::new(
            "glob",
            "Use wildmatch syntax: * within a name, ** across directories, [abc], ?, and a leading ! to exclude (--glob '*.rs'); this shows the command's other filters.",
            shell::aitools(["schema", command]),
        ),
    )
}
