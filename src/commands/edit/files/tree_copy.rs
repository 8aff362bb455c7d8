//! `copy --recursive`: a directory tree's entries turned into changes.

use super::{Skipped, too_large};
use crate::protocol::{CmdError, error};
use crate::store::files::Kind;
use crate::store::write::Change;
use crate::workspace::{Ctx, paths};
use std::path::{Path, PathBuf};

/// A tree copy under way: its changes, the bytes and files copied (the bytes
/// held to --max-bytes), and the entries passed over.
pub(super) struct TreeCopy<'c> {
    pub(super) ctx: &'c Ctx,
    pub(super) max: u64,
    pub(super) changes: Vec<Change>,
    pub(super) total: u64,
    pub(super) files: u64,
    pub(super) skipped: Vec<Skipped>,
}

impl TreeCopy<'_> {
    /// Copies the tree at `real_src` into `dst`, depth-first in name order.
    pub(super) fn walk(&mut self, real_src: PathBuf, dst: &Path) -> Result<(), CmdError> {
        let mut stack: Vec<(PathBuf, PathBuf)> = vec![(real_src, dst.to_path_buf())];
        while let Some((from, to)) = stack.pop() {
            let entries = self.ctx.files().list_dir(&from)?;
            let mut dirs = Vec::new();
            for (p, kind) in entries {
                let Some(name) = p.file_name() else { continue };
                let target = to.join(name);
                if let Some(dir) = self.entry(&from, p, kind, target)? {
                    dirs.push(dir);
                }
            }
            // Depth-first in name order: push in reverse so the first name pops first.
            stack.extend(dirs.into_iter().rev());
        }
        Ok(())
    }

    /// One entry of directory `from` copied to `target`: a symlink that lands
    /// inside the workspace, a directory (returned, to walk next), a file;
    /// anything else is passed over.
    fn entry(
        &mut self,
        from: &Path,
        p: PathBuf,
        kind: Kind,
        target: PathBuf,
    ) -> Result<Option<(PathBuf, PathBuf)>, CmdError> {
        let ctx = self.ctx;
        let m = ctx.files().stat(&p, false)?;
        if kind == Kind::Symlink {
            let text = ctx
                .files()
                .link_text(&p, &m)
                .map_err(|e| error::io_error("copy", &paths::display(&p), &e))?;
            let lands = paths::real_path(ctx.dirs(), &from.join(&text));
            if lands.starts_with(&ctx.root) {
                self.changes.push(Change::Symlink {
                    path: target,
                    target: text.to_string_lossy().into_owned(),
                });
            } else {
                self.skipped.push(Skipped {
                    path: ctx.display_path(&p),
                    reason: "symlink leading outside the workspace",
                });
            }
        } else if kind == Kind::Dir {
            self.changes.push(Change::Mkdir {
                path: target.clone(),
            });
            if m.mode & 0o7777 != 0o755 {
                self.changes.push(Change::Chmod {
                    path: target.clone(),
                    mode: m.mode & 0o7777,
                });
            }
            return Ok(Some((p, target)));
        } else if kind == Kind::File {
            self.total += m.len;
            if self.total > self.max {
                return Err(too_large(self.total, self.max));
            }
            let snap = ctx.files().load(&p)?;
            self.files += 1;
            self.changes.push(Change::Put {
                path: target,
                bytes: snap.bytes.clone(),
                mode: Some(snap.mode & 0o7777),
            });
        } else {
            self.skipped.push(Skipped {
                path: ctx.display_path(&p),
                reason: "not a file, directory or symlink",
            });
        }
        Ok(None)
    }
}
