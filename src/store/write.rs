//! The write protocol's API: a command computes the changes it wants while the
//! workspace lock is held (validation under the lock), and hands them here.
//!
//! SKELETON: the signatures below are the contract the edit commands build on. The
//! implementation is deliberately naive (direct writes, no lock, no journal) until
//! the store lands: intent record, blobs, temp files, fsync order, recovery, journal.

use crate::protocol::{CmdError, Json, Output, code, error};
use crate::workspace::Ctx;
use serde::Serialize;
use std::path::PathBuf;

/// One change a command wants made. Paths are absolute (from `Ctx::path_arg`).
#[derive(Debug, Clone)]
pub enum Change {
    /// Create or replace a regular file. `mode` applies to a new file (an existing
    /// file keeps its mode unless `mode` is given).
    Put {
        path: PathBuf,
        bytes: Vec<u8>,
        mode: Option<u32>,
    },
    /// Remove a file, a symlink, or an empty directory.
    Delete { path: PathBuf },
    /// Rename (never merges into an existing directory).
    Move { from: PathBuf, to: PathBuf },
    /// Create a directory (parents too).
    Mkdir { path: PathBuf },
    /// Set permission bits.
    Chmod { path: PathBuf, mode: u32 },
    /// Create a symlink at `path` whose text is `target`.
    Symlink { path: PathBuf, target: String },
    /// Set a file's modification time (seconds since the epoch).
    Touch { path: PathBuf, mtime: i64 },
}

/// How the write runs.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Validate and show the diff; write nothing.
    pub dry_run: bool,
}

/// `changes[]` of the write output.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeReport {
    pub path: String,
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    pub hash_before: Option<String>,
    pub hash_after: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_truncated: Option<bool>,
    /// Per-file replacement count (`replace`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

/// What a finished (or dry-run) write reports.
#[derive(Debug, Clone)]
pub struct Committed {
    pub changes: Vec<ChangeReport>,
    pub op_id: Option<String>,
    pub dry_run: bool,
    pub next_commands: Vec<String>,
}

impl Committed {
    /// The standard write output, then the command's own fields (`strategy`, ...).
    pub fn into_output(self, extra: Vec<(&str, Json)>) -> Output {
        let mut obj = Json::obj();
        obj.push("changes", Json::from_serialize(&self.changes));
        obj.push("op_id", self.op_id.map(Json::Str).unwrap_or(Json::Null));
        if self.dry_run {
            obj.push("dry_run", Json::Bool(true));
        }
        for (k, v) in extra {
            obj.push(k, v);
        }
        obj.push("next_commands", Json::from_serialize(&self.next_commands));
        Output::from_json(obj, false)
    }
}

/// Takes the lock, runs `build` (which reads and validates the targets as they are
/// now and returns the changes), then commits them all or none.
pub fn run(
    ctx: &Ctx,
    opts: &WriteOptions,
    build: impl FnOnce() -> Result<Vec<Change>, CmdError>,
) -> Result<Committed, CmdError> {
    let changes = build()?;
    let mut reports = Vec::new();
    for c in &changes {
        let (path, action) = match c {
            Change::Put { path, .. } => (path, if path.exists() { "modified" } else { "created" }),
            Change::Delete { path } => (path, "deleted"),
            Change::Move { to, .. } => (to, "moved"),
            Change::Mkdir { path } => (path, "created"),
            Change::Chmod { path, .. } => (path, "mode-changed"),
            Change::Symlink { path, .. } => (path, "linked"),
            Change::Touch { path, .. } => (path, "modified"),
        };
        reports.push(ChangeReport {
            path: ctx.display_path(path),
            action,
            from: None,
            hash_before: None,
            hash_after: None,
            diff: None,
            diff_truncated: None,
            count: None,
        });
    }
    if !opts.dry_run {
        for c in &changes {
            let io = |path: &std::path::Path, e: std::io::Error| {
                error::io_error(&ctx.command, &ctx.display_path(path), &e)
            };
            match c {
                Change::Put { path, bytes, mode } => {
                    std::fs::write(path, bytes).map_err(|e| io(path, e))?;
                    if let Some(m) = mode {
                        use std::os::unix::fs::PermissionsExt;
                        std::fs::set_permissions(path, std::fs::Permissions::from_mode(*m))
                            .map_err(|e| io(path, e))?;
                    }
                }
                Change::Delete { path } => std::fs::remove_file(path).map_err(|e| io(path, e))?,
                _ => return Err(CmdError::internal("the store skeleton only writes files")),
            }
        }
    }
    let _ = code::IO;
    Ok(Committed {
        changes: reports,
        op_id: None,
        dry_run: opts.dry_run,
        next_commands: Vec::new(),
    })
}
