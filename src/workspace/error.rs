//! What can go wrong in the workspace core, as data: the root, a path argument,
//! the write boundary, a named input, a scan filter, a missing path. The wording
//! (message, repairs, command lines) is `command_error::workspace`'s: the
//! workspace returns these values (`Box<WorkspaceError>`) and never the CLI's
//! error, which a command gets from them by `?` or `.into()`.

/// A workspace error; boxed where it is returned (`Box<WorkspaceError>`).
#[derive(Debug)]
pub enum WorkspaceError {
    /// The working directory cannot be read.
    Cwd { err: std::io::Error },
    /// `--root` names no existing directory.
    RootNotADir { arg: String, command: String },
    /// The root is inside a `.git` directory (`work_tree` holds it), or is a git
    /// directory itself (`work_tree` is `None`). `shown` is the root as given.
    RootInGit {
        shown: String,
        work_tree: Option<String>,
        argv: Vec<String>,
    },
    /// A malformed option value: `{flag}: {why}` (`why` from `protocol::values`).
    BadValue {
        command: String,
        flag: &'static str,
        why: String,
    },
    /// An empty path argument.
    EmptyPath { command: String },
    /// A write lands outside the workspace, on its root, or inside `.git`.
    Outside { what: String, why: Outside },
    /// A named input that is not a regular file (`kind` says what it is).
    NotOpenable { arg: String, kind: &'static str },
    /// An input over `--max-input` (`need`: its size, when known).
    TooLarge {
        what: String,
        limit: u64,
        need: Option<u64>,
        argv: Vec<String>,
    },
    /// A file a command must hold whole (edit, check, json) over
    /// [`super::input::MAX_WHOLE_FILE`]: refused from its size, before a read.
    WholeTooLarge {
        display: String,
        len: u64,
        limit: u64,
    },
    /// Standard input cannot be read.
    Stdin {
        err: std::io::Error,
        command: String,
    },
    /// `--newer` is neither a duration nor an existing path.
    Newer { value: String, argv: Vec<String> },
    /// `--glob` is not a glob (`message` says why).
    BadGlob { command: String, message: String },
    /// `--lang` names no language of the table.
    UnknownLang {
        command: String,
        message: String,
        /// The call as written, and the language the value is an extension of.
        argv: Vec<String>,
        lang: Option<String>,
    },
    /// A path argument that does not exist.
    NotFound(Box<NotFound>),
    /// Any other I/O failure on a path argument (`path` as given).
    Io {
        command: String,
        path: String,
        err: std::io::Error,
    },
}

/// Why a write's path is refused.
#[derive(Debug)]
pub enum Outside {
    /// Inside `.git`.
    InGit,
    /// The workspace root itself.
    Root,
    /// Its real path `real` is outside the root `root` (both as shown).
    Elsewhere { real: String, root: String },
}

/// A missing path argument `arg`, with what is near it.
#[derive(Debug)]
pub struct NotFound {
    pub arg: String,
    /// A symlink whose target does not exist.
    pub dangling: bool,
    /// The nearest existing path as an argument (relative to the working directory).
    pub nearest: Option<String>,
    /// The near paths, shown as reads show paths.
    pub candidates: Vec<String>,
    pub offer: Offer,
    pub command: String,
    pub argv: Vec<String>,
}

impl WorkspaceError {
    /// Boxed, as it is returned.
    pub fn boxed(self) -> Box<WorkspaceError> {
        Box::new(self)
    }
}

/// What a missing-path error offers as its first repair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// A reading command: the same invocation on the nearest path (rerunning a read
    /// on a guess costs nothing).
    Retry,
    /// A writing command: never a write on a guessed path. `find` stays first and
    /// the nearest path gets an `info` to check it before the write is rerun.
    Look,
}
