//! The write boundary: every path a write touches must resolve (symlinks of its
//! existing ancestors followed) to a place inside the workspace root and outside
//! any `.git` directory. Reads are not confined; writes are.

use super::error::{Outside, WorkspaceError};
use super::{Ctx, paths};
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
pub fn resolve(ctx: &Ctx, path: &Path, last: Final) -> Result<PathBuf, Box<WorkspaceError>> {
    resolve_stat(ctx, path, last).map(|(real, _)| real)
}

/// `resolve`, with the lstat it took of the real path on the way when it found
/// something there that is not a symlink (`Final::Follow` of a plain path): the
/// store's look at that path uses it instead of taking another.
pub fn resolve_stat(
    ctx: &Ctx,
    path: &Path,
    last: Final,
) -> Result<(PathBuf, Option<std::fs::Metadata>), Box<WorkspaceError>> {
    let norm = paths::normalize(path);
    let (real, lstat) = match last {
        // A file this write read (its `build`, under the workspace lock) by this
        // same real path, loaded with an lstat that found it: that lstat again,
        // not a second one (per changed file, one lstat fewer). Sound because the
        // read is checked again before the commit point: the plan arms the
        // append watch with that first read, and `appends::arm` lstats each
        // target and refuses the op unless the same inode still holds what was
        // read; a final component swapped for a symlink or a directory meanwhile
        // is a new inode there (refused), never followed (the tree is acted on
        // beneath the root's descriptor), and the boundary check below is of
        // this path, whose parent is its real path (`parent_is_real`).
        // (The cache is asked first: a call that read nothing pays no walk of
        // the path's components.)
        Final::Follow => match ctx
            .session
            .snapshots
            .read_lstat(&norm)
            .filter(|_| paths::parent_is_real(ctx.dirs(), &norm))
        {
            Some(m) => (norm.clone(), Some(m)),
            None => paths::real_path_lstat(ctx.dirs(), &norm),
        },
        Final::Entry => match (norm.parent(), norm.file_name()) {
            (Some(parent), Some(name)) => (paths::real_path(ctx.dirs(), parent).join(name), None),
            _ => (norm.clone(), None),
        },
    };
    check(ctx, path, &real)?;
    Ok((real, lstat))
}

/// Refuses a real path outside the root, the root itself, or inside `.git`.
pub fn check(ctx: &Ctx, shown: &Path, real: &Path) -> Result<(), Box<WorkspaceError>> {
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
    .boxed())
}
