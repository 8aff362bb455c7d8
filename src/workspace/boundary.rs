//! The write boundary: every path a write touches must resolve (symlinks of its
//! existing ancestors followed) to a place inside the workspace root and outside
//! any `.git` directory. Reads are not confined; writes are.

use super::error::{Outside, WorkspaceError};
use super::{Ctx, paths};
use crate::protocol::CmdError;
use std::path::{Component, Path, PathBuf};

/// Whether the last component of the path is followed when it is a symlink.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Final {
    /// Write through a symlink to the file it leads to (content writes, chmod).
    Follow,
    /// Act on the entry itself (delete, move, link).
    Entry,
}

/// The real path a write lands on, or `refusal.outside-workspace`.
pub fn resolve(ctx: &Ctx, path: &Path, last: Final) -> Result<PathBuf, CmdError> {
    let norm = paths::normalize(path);
    let (real, lstat) = match last {
        Final::Follow => paths::real_path_lstat(&norm),
        Final::Entry => match (norm.parent(), norm.file_name()) {
            (Some(parent), Some(name)) => (paths::real_path(parent).join(name), None),
            _ => (norm.clone(), None),
        },
    };
    // The store's look at the path, which follows, uses this lstat instead of
    // taking another (every resolve replaces it, so it is never an old one).
    ctx.session.note_lstat(&real, lstat);
    check(ctx, path, &real)?;
    Ok(real)
}

/// Refuses a real path outside the root, the root itself, or inside `.git`.
pub fn check(ctx: &Ctx, shown: &Path, real: &Path) -> Result<(), CmdError> {
    let inside = real.starts_with(&ctx.root) && real != ctx.root;
    let in_git = real
        .strip_prefix(&ctx.root)
        .map(|rel| {
            rel.components()
                .any(|c| matches!(c, Component::Normal(n) if n == ".git"))
        })
        .unwrap_or(false);
    if inside && !in_git {
        return Ok(());
    }
    let why = if in_git {
        Outside::InGit
    } else if real == ctx.root {
        Outside::Root
    } else {
        Outside::Elsewhere {
            real: paths::display(real),
            root: paths::display(&ctx.root),
        }
    };
    Err(WorkspaceError::Outside {
        what: paths::display(shown),
        why,
    }
    .boxed()
    .into())
}
