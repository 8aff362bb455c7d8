//! Planning each kind of change: delete, move, mkdir, chmod, symlink, touch.

use super::*;

impl<'a> Plan<'a> {
    pub(super) fn identity(&self, p: &Path) -> Result<(u64, u64), Box<StoreError>> {
        if self.ctx.tx.is_some() {
            // Staged, never applied: no step needs the entry's identity.
            return Ok((0, 0));
        }
        fsx::identity(p).ok_or_else(|| {
            StoreError::CreatedAndRemoved {
                rel: self.rel(p),
                command: self.ctx.command.clone(),
            }
            .into()
        })
    }

    /// Refuses a mode or time change of an on-disk regular file with another hard
    /// link: the inode's metadata is shared by every name, and another name may be
    /// outside the workspace. The store checks again when it acts.
    fn refuse_hard_link(
        &self,
        target: &Path,
        rel: &str,
        before: &View,
    ) -> Result<(), Box<StoreError>> {
        let View::File {
            hash,
            content: Some(Content::Snap(_)),
            ..
        } = before
        else {
            return Ok(());
        };
        let nlink = match std::fs::symlink_metadata(target) {
            Ok(m) if m.is_file() => m.nlink(),
            _ => return Ok(()),
        };
        if nlink <= 1 {
            return Ok(());
        }
        Err(StoreError::HardLink {
            rel: rel.to_string(),
            nlink,
            hash: hash.clone(),
            argv: self.ctx.argv.clone(),
        }
        .into())
    }

    /// A step's source is gone: the same `input.not-found` (with candidates) the
    /// commands give before they reach the store.
    pub(super) fn not_found(&self, shown: &str, abs: &Path) -> Box<StoreError> {
        use crate::workspace::candidates::{self, Offer};
        candidates::not_found(self.ctx, shown, abs, Offer::Look).into()
    }

    pub(super) fn delete(&mut self, path: &Path) -> Result<(), Box<StoreError>> {
        let target = boundary::resolve(self.ctx, path, Final::Entry)?;
        let before = self.look(&target, true)?;
        let rel = self.rel(&target);
        let (dev, ino) = match &before {
            View::Missing => {
                return Err(self.not_found(&rel, &target));
            }
            _ => self.identity(&target)?,
        };
        match &before {
            View::Dir { .. } => {
                if !self.dir_is_empty(&target)? {
                    return Err(StoreError::DirNotEmpty { rel }.into());
                }
                self.steps.push(Step::Rmdir {
                    path: target.clone(),
                    dev,
                    ino,
                });
            }
            _ => {
                self.keep_blob(&target, &before);
                self.steps.push(Step::Unlink {
                    path: target.clone(),
                    dev,
                    ino,
                });
            }
        }
        self.sync_dirs.insert(parent_of(&target));
        let bs = before.state();
        self.record(&rel, "deleted", None, None, bs, State::missing(), None);
        self.view.insert(target, View::Missing);
        Ok(())
    }

    /// Empty in the view: every entry on disk is gone in the view, and the view adds none.
    pub(super) fn dir_is_empty(&mut self, dir: &Path) -> Result<bool, Box<StoreError>> {
        if self.ctx.tx.is_some() {
            for (p, _) in self.ctx.files().list_dir(dir)? {
                if !matches!(self.view.get(&p), Some(View::Missing)) {
                    return Ok(false);
                }
            }
            let added = self
                .view
                .iter()
                .any(|(p, v)| p.parent() == Some(dir) && !matches!(v, View::Missing));
            return Ok(!added);
        }
        let rd = std::fs::read_dir(dir).map_err(|e| self.io(dir, &e))?;
        for e in rd {
            let e = e.map_err(|e| self.io(dir, &e))?;
            if !matches!(self.view.get(&e.path()), Some(View::Missing)) {
                return Ok(false);
            }
        }
        let added = self.view.iter().any(|(p, v)| {
            p.parent() == Some(dir) && !matches!(v, View::Missing) && !self.exists_on_disk(p)
        });
        Ok(!added)
    }

    pub(super) fn mv(&mut self, from: &Path, to: &Path) -> Result<(), Box<StoreError>> {
        let src = boundary::resolve(self.ctx, from, Final::Entry)?;
        let dst = boundary::resolve(self.ctx, to, Final::Entry)?;
        let srel = self.rel(&src);
        let drel = self.rel(&dst);
        if src == dst {
            return Ok(());
        }
        if dst.starts_with(&src) {
            return Err(Box::new(StoreError::MoveIntoItself {
                command: self.ctx.command.clone(),
                src: srel,
                dst: drel,
            }));
        }
        let moving = self.look(&src, true)?;
        if matches!(moving, View::Missing) {
            return Err(self.not_found(&srel, &src));
        }
        let (dev, ino) = self.identity(&src)?;
        let before = self.look(&dst, true)?;
        if let (Some(_), View::Dir { mode }, View::Missing) = (&self.ctx.tx, &moving, &before) {
            return self.mv_tree_tx(&src, &dst, *mode);
        }
        if let View::Dir { .. } = before {
            return Err(StoreError::MoveOntoDir {
                src: srel,
                dst: drel,
                name: src
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            }
            .into());
        }
        self.ensure_parents(&dst)?;
        self.keep_blob(&dst, &before);
        self.steps.push(Step::Move {
            from: src.clone(),
            to: dst.clone(),
            dev,
            ino,
        });
        self.sync_dirs.insert(parent_of(&src));
        self.sync_dirs.insert(parent_of(&dst));
        let h = moving.hash();
        let ms = moving.state();
        let after = match &moving {
            View::File {
                hash,
                mode,
                content,
                ..
            } => View::File {
                hash: hash.clone(),
                mode: *mode,
                mtime: None,
                content: content.clone(),
            },
            other => other.clone(),
        };
        let bs = before.state();
        self.record(
            &drel,
            "moved",
            Some((srel, ms.clone())),
            Some((h.clone(), h)),
            bs,
            after.state(),
            None,
        );
        self.view.insert(src, View::Missing);
        self.view.insert(dst, after);
        Ok(())
    }

    /// A directory move staged in a tx: the tx keys states by path, so the tree
    /// is recreated at `dst` entry by entry and removed at `src`.
    pub(super) fn mv_tree_tx(
        &mut self,
        src: &Path,
        dst: &Path,
        mode: u32,
    ) -> Result<(), Box<StoreError>> {
        self.ensure_parents(dst)?;
        self.mkdir_one(dst);
        if mode != self.default_dir_mode {
            self.chmod(dst, mode)?;
        }
        for (child, _) in self.ctx.files().list_dir(src)? {
            if matches!(self.view.get(&child), Some(View::Missing)) {
                continue;
            }
            if let Some(name) = child.file_name() {
                self.mv(&child, &dst.join(name))?;
            }
        }
        self.delete(src)
    }

    pub(super) fn mkdir(&mut self, path: &Path) -> Result<(), Box<StoreError>> {
        let (target, lstat) = boundary::resolve_stat(self.ctx, path, Final::Follow)?;
        match self.look_stated(&target, false, lstat)? {
            View::Dir { .. } => Ok(()),
            View::Missing => {
                self.ensure_parents(&target)?;
                self.mkdir_one(&target);
                Ok(())
            }
            _ => Err(in_the_way(&self.rel(&target))),
        }
    }

    pub(super) fn chmod(&mut self, path: &Path, mode: u32) -> Result<(), Box<StoreError>> {
        let (target, lstat) = boundary::resolve_stat(self.ctx, path, Final::Follow)?;
        let before = self.look_stated(&target, false, lstat)?;
        let rel = self.rel(&target);
        let mode = mode & 0o7777;
        let after = match &before {
            View::Missing => {
                return Err(self.not_found(&rel, &target));
            }
            View::File { mode: m, .. } | View::Dir { mode: m } if *m == mode => return Ok(()),
            View::File {
                hash,
                mtime,
                content,
                ..
            } => View::File {
                hash: hash.clone(),
                mode,
                mtime: *mtime,
                content: content.clone(),
            },
            View::Dir { .. } => View::Dir { mode },
            View::Symlink { .. } => return Err(not_a_file(&rel)),
        };
        self.refuse_hard_link(&target, &rel, &before)?;
        self.steps.push(Step::Chmod {
            path: target.clone(),
            mode,
        });
        self.sync_dirs.insert(parent_of(&target));
        let (bs, as_) = (before.state(), after.state());
        self.record(&rel, "mode-changed", None, None, bs, as_, None);
        self.view.insert(target, after);
        Ok(())
    }

    pub(super) fn symlink(&mut self, path: &Path, text: String) -> Result<(), Box<StoreError>> {
        let target = boundary::resolve(self.ctx, path, Final::Entry)?;
        let before = self.look(&target, false)?;
        let rel = self.rel(&target);
        match &before {
            View::Symlink { target: t } if *t == text => return Ok(()),
            View::Missing | View::Symlink { .. } => {}
            _ => {
                return Err(StoreError::NotASymlink { rel }.into());
            }
        }
        self.ensure_parents(&target)?;
        let tmp = self.temp_path(&target);
        self.temps.push(Temp {
            path: tmp.clone(),
            target: target.clone(),
            kind: TempKind::Symlink {
                target: text.clone(),
            },
        });
        self.steps.push(Step::Rename {
            tmp,
            to: target.clone(),
        });
        self.sync_dirs.insert(parent_of(&target));
        let after = View::Symlink { target: text };
        let (bs, as_) = (before.state(), after.state());
        self.record(&rel, "linked", None, None, bs, as_, None);
        self.view.insert(target, after);
        Ok(())
    }

    pub(super) fn touch(&mut self, path: &Path, mtime: i64) -> Result<(), Box<StoreError>> {
        let (target, lstat) = boundary::resolve_stat(self.ctx, path, Final::Follow)?;
        let before = self.look_stated(&target, false, lstat)?;
        let rel = self.rel(&target);
        match before.clone() {
            View::Missing => {
                self.ensure_parents(&target)?;
                let content = Content::Owned(Arc::new(Vec::new()));
                let mode = self.default_file_mode;
                let tmp = self.temp_path(&target);
                self.temps.push(Temp {
                    path: tmp.clone(),
                    target: target.clone(),
                    kind: TempKind::File {
                        content: content.clone(),
                        mode,
                        mtime: Some(mtime),
                    },
                });
                self.steps.push(Step::Rename {
                    tmp,
                    to: target.clone(),
                });
                self.sync_dirs.insert(parent_of(&target));
                let after = View::File {
                    hash: sha256_hex(b""),
                    mode,
                    mtime: Some(mtime),
                    content: Some(content),
                };
                let mut st = after.state();
                st.mtime = Some(mtime);
                self.record(&rel, "created", None, None, State::missing(), st, None);
                self.view.insert(target, after);
            }
            View::File {
                hash,
                mode,
                mtime: old,
                content,
            } => {
                if old == Some(mtime) {
                    return Ok(());
                }
                self.refuse_hard_link(&target, &rel, &before)?;
                self.steps.push(Step::Utime {
                    path: target.clone(),
                    mtime,
                });
                let after = View::File {
                    hash,
                    mode,
                    mtime: Some(mtime),
                    content,
                };
                let (mut bs, mut as_) = (before.state(), after.state());
                bs.mtime = old;
                as_.mtime = Some(mtime);
                self.record(&rel, "modified", None, None, bs, as_, None);
                self.view.insert(target, after);
            }
            _ => return Err(not_a_file(&rel)),
        }
        Ok(())
    }
}
