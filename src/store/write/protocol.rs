//! The commit itself: intent, blobs, temps, commit point, apply, journal.

use super::plan::BlobJob;
use super::*;
use crate::store::snapshot::Stamp;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

impl<'a> Plan<'a> {
    /// Bytes of the blobs this op stores (the usage counter of `gc`).
    pub(super) fn blob_bytes(&self) -> u64 {
        self.blobs
            .iter()
            .map(|b| b.content.as_ref().map_or(0, |c| c.len() as u64))
            .sum()
    }

    /// The commit: intent, blobs, temps, commit point, apply, journal. Returns
    /// what other programs appended to replaced files meanwhile, and the watch
    /// on them for a last look.
    pub(super) fn commit(
        mut self,
        entry: Entry,
    ) -> Result<(Vec<journal::Appended>, super::appends::Watch), CmdError> {
        let ctx = self.ctx;
        let state = self.state;
        // A before-image still on disk as it was read is kept as a link of its
        // inode at its blob name (`blobs::link_before_image`), unless that blob
        // is there already or another file of the op links it; the others
        // (another name, another filesystem, changed since read) go into the
        // pack as before; one whose link fails late is copied loose.
        let snap_stamp = |b: &BlobJob| -> Option<Stamp> {
            match (&b.disk, &b.content) {
                (Some(_), Some(Content::Snap(s))) if s.stamp != Stamp::default() => Some(s.stamp),
                _ => None,
            }
        };
        let state_dev = std::fs::metadata(state).map(|m| m.dev()).ok();
        let euid = blobs::euid();
        // Each with the blob name it is linked at, and whether its descriptor is
        // open for reading (the read's own) or `O_PATH` (`linkable`'s).
        let mut candidates: Vec<(&BlobJob, Stamp, Arc<std::fs::File>, bool, PathBuf)> = Vec::new();
        let mut linking: HashSet<&str> = HashSet::new();
        let mut rest: Vec<&BlobJob> = Vec::new();
        for b in &self.blobs {
            let checked =
                match (snap_stamp(b), &b.disk, state_dev) {
                    (Some(st), Some(src), Some(dev)) => {
                        match ctx.session.snapshots.take_open(src, &st) {
                            // The write's read of `src` kept its descriptor: the inode
                            // read, as its fstat found it then (link count, owner; the
                            // device is the stamp's). `linkable` would open and fstat
                            // the path for the same facts; what changed since is seen
                            // by `link_before_image` under its lease (a changed ctime:
                            // any link, chown or write moves it) and by `appends::arm`.
                            Some((f, nlink, uid)) => (nlink == 1 && uid == euid && st.dev == dev)
                                .then_some((st, f, true)),
                            None => blobs::linkable(src, &st, dev, euid)
                                .map(|f| (st, Arc::new(f), false)),
                        }
                    }
                    _ => None,
                };
            let taken = || {
                if linking.contains(b.hash.as_str()) {
                    Some(true)
                } else {
                    blobs::kept_or_taken(state, &b.hash)
                }
            };
            match checked.map(|c| (c, taken())) {
                Some((_, Some(true))) => {}
                // Its name is taken by a blob that is not sound: stored as the others.
                Some((_, Some(false))) => rest.push(b),
                Some(((st, f, readable), None)) => {
                    linking.insert(&b.hash);
                    candidates.push((b, st, f, readable, blobs::path(state, &b.hash)));
                }
                None => rest.push(b),
            }
        }
        // The before-images of an op over many files go into one pack; big ones
        // and those of a small op stay loose blobs.
        let packable = |b: &BlobJob| {
            b.content
                .as_ref()
                .is_some_and(|c| c.len() <= pack::MAX_BLOB)
        };
        let (packed, loose): (Vec<&BlobJob>, Vec<&BlobJob>) =
            rest.iter().copied().partition(|b| packable(b));
        let (packed, loose) = if packed.len() >= pack::MIN_BLOBS {
            (packed, loose)
        } else {
            (Vec::new(), rest)
        };
        // A blob a link of this op makes is not stored again.
        let loose: Vec<&BlobJob> = loose
            .into_iter()
            .filter(|b| !linking.contains(b.hash.as_str()) && !blobs::kept(state, &b.hash))
            .collect();
        let pack_tmp = blobs::dir(state).join(format!(".{}-pack.tmp", self.op_id));
        let mut blob_tmps: Vec<PathBuf> = loose.iter().map(|b| b.tmp.clone()).collect();
        if !packed.is_empty() {
            blob_tmps.push(pack_tmp.clone());
        }
        let mut links: Vec<PathBuf> = loose
            .iter()
            .filter(|b| b.disk.is_some())
            .map(|b| blobs::path(state, &b.hash))
            .collect();
        links.extend(candidates.iter().map(|(_, _, _, _, at)| at.clone()));
        let intent = Intent {
            op_id: self.op_id.to_string(),
            temps: self.temps.iter().map(|t| t.path.clone()).collect(),
            blob_tmps,
            links,
            linked: candidates
                .iter()
                .map(|(b, st, _, _, at)| intent::Linked {
                    tmp: at.clone(),
                    hash: b.hash.clone(),
                    size: st.size,
                    mtime_ns: st.mtime_ns as i64,
                })
                .collect(),
            steps: std::mem::take(&mut self.steps),
            sync_dirs: std::mem::take(&mut self.sync_dirs).into_iter().collect(),
            entry,
            entry_json: Default::default(),
        };
        let unsynced = ctx.session.unsynced();
        let (mut record, sum) = intent::write_first_line(state, &ctx.root, &intent, &unsynced)
            .map_err(|e| {
                let _ = std::fs::remove_file(intent::record_path(state, &intent.op_id));
                super::io_error(ctx, "the intent record", &e)
            })?;
        ctx.session.synced(&unsynced);
        // The stamps of the inodes linked, as the links left them (`appends::arm`).
        let mut relinked: Vec<Stamp> = Vec::new();
        // The descriptors linked, by blob name: their publish looks at them
        // (`blobs::publish_link`'s `held`) instead of opening the name again.
        let mut held: HashMap<PathBuf, Arc<std::fs::File>> = HashMap::new();
        // The target whose temp was being made when preparing failed: a refusal
        // there is the tree's (its directory), not the state directory's.
        let mut making: Option<&Path> = None;
        let prepared = (|| -> std::io::Result<()> {
            // Temp files are created beneath the root's descriptor, as the steps act.
            let tree = Tree::open(&ctx.root)?;
            // The links first (no data written); a before-image that cannot be
            // linked is copied with the loose blobs.
            let mut loose = loose.clone();
            for (b, st, f, readable, at) in &candidates {
                match blobs::link_before_image(f, *readable, st, at) {
                    Ok((now, opened)) => {
                        relinked.push(now);
                        held.insert(
                            at.clone(),
                            opened.map(Arc::new).unwrap_or_else(|| f.clone()),
                        );
                    }
                    Err(_) => loose.push(b),
                }
            }
            let linked = !relinked.is_empty();
            // Every blob and temp file is written first, then all are synced together
            // (`fsx::Batch`), then the blobs are named: all before the commit point.
            let files = loose.len()
                + usize::from(!packed.is_empty())
                + self
                    .temps
                    .iter()
                    .filter(|t| matches!(t.kind, TempKind::File { .. }))
                    .count();
            let mut batch = fsx::Batch::new(files);
            let mut staged = Vec::new();
            // Each blob job is one `keep_blob` saw missing.
            let mut stager = blobs::Stager::new(state);
            if !packed.is_empty() {
                if fsx::ensure_private_dir(&pack::dir(state))? {
                    fsx::sync_dir(&blobs::dir(state))?;
                }
                let wholes: Vec<_> = packed
                    .iter()
                    .map(|b| b.content.as_ref().map(|c| c.whole()).unwrap_or_default())
                    .collect();
                let items: Vec<(&str, &[u8])> = packed
                    .iter()
                    .zip(&wholes)
                    .map(|(b, w)| (b.hash.as_str(), w.as_ref()))
                    .collect();
                pack::write(&pack_tmp, &items, &mut batch)?;
            }
            for b in &loose {
                let whole = b.content.as_ref().map(|c| c.whole());
                let bytes = whole.as_deref();
                let stored = match &b.disk {
                    Some(src) => stager.stage_file(src, bytes, &b.tmp, &b.hash, &mut batch)?,
                    None => stager.stage_bytes(bytes.unwrap_or_default(), &b.tmp, &mut batch)?,
                };
                staged.push(stored);
            }
            for t in &self.temps {
                making = Some(&t.target);
                match &t.kind {
                    TempKind::File {
                        content,
                        mode,
                        mtime,
                    } => {
                        let (mut f, dev) = tree.create_new(&t.path, *mode)?;
                        fsx::write_pieces(&mut f, &content.pieces())?;
                        if let Some(m) = mtime {
                            f.set_modified(fsx::to_system_time(*m))?;
                        }
                        batch.written_on(f, dev)?;
                    }
                    TempKind::Symlink { target } => {
                        tree.symlink(std::ffi::OsStr::new(target), &t.path)?;
                    }
                }
            }
            making = None;
            batch.sync()?;
            let mut new_blobs = false;
            for (b, stored) in loose.iter().zip(staged) {
                new_blobs |=
                    blobs::publish(state, &b.hash, &b.tmp, stored)? != blobs::Stored::Existing;
            }
            // A link's name must be durable before the first rename in the tree.
            if new_blobs || linked {
                fsx::sync_dir(&blobs::dir(state))?;
            }
            if !packed.is_empty() {
                std::fs::rename(&pack_tmp, pack::path(state, self.op_id))?;
                fsx::sync_dir(&pack::dir(state))?;
            }
            Ok(())
        })();
        let unchanged =
            |e: std::io::Error| super::io_error(ctx, "the write (nothing was changed)", &e);
        // The targets are checked again as late as possible before the commit
        // point; those `linkable` opened are looked at through their descriptors.
        let mut pinned: HashMap<PathBuf, Arc<std::fs::File>> = candidates
            .into_iter()
            .filter_map(|(b, _, f, _, _)| b.disk.clone().map(|d| (d, f)))
            .collect();
        let prepared = prepared.map_err(|e| match making {
            Some(target) if refused_by_tree(&e) => StoreError::TreeRefused {
                rel: target
                    .strip_prefix(&ctx.root)
                    .unwrap_or(target)
                    .display()
                    .to_string(),
                error: crate::store::error::copy_io(&e),
                argv: ctx.argv.clone(),
            }
            .into(),
            _ => unchanged(e),
        });
        let armed = prepared.and_then(|()| {
            let watch =
                super::appends::arm(&ctx.root, &self.watch, &ctx.argv, &relinked, &mut pinned)?;
            intent::write_commit_line(&mut record, &sum).map_err(unchanged)?;
            Ok(watch)
        });
        let mut watch = match armed {
            Ok(w) => w,
            Err(err) => {
                // Never committed: the tree was not touched. Remove what was prepared.
                if intent::discard(&ctx.root, &intent).is_ok() {
                    let _ = std::fs::remove_file(intent::record_path(state, &intent.op_id));
                }
                return Err(err);
            }
        };
        drop(record);
        let mut appended = Vec::new();
        // Committed but not applied: the record stays pending, and the repairs are
        // the ones that clear it (finish once the cause is fixed, or set aside).
        recovery::finish_with(ctx, state, &intent, &held, |op_id, trusted| {
            watch.forget_published(trusted.iter().filter_map(|t| held.get(*t)));
            appended = watch.settle(state, op_id);
            appended.clone()
        })
        .map_err(|e| {
            // Refused before the tree changed: the op is undone, nothing stays pending.
            if let Some(f) = super::recovery::untouched(&e)
                && intent::discard(&ctx.root, &intent).is_ok()
                && std::fs::remove_file(intent::record_path(state, &intent.op_id)).is_ok()
            {
                let _ = fsx::sync_dir(&intent::dir(state));
                return StoreError::TreeRefused {
                    rel: f
                        .at
                        .strip_prefix(&ctx.root)
                        .unwrap_or(&f.at)
                        .display()
                        .to_string(),
                    error: crate::store::error::copy_io(&f.error),
                    argv: ctx.argv.clone(),
                }
                .into();
            }
            super::recovery::pending_error(&[super::recovery::stuck(
                &intent.op_id,
                format!(
                    "it is committed but could not be finished: {}.",
                    crate::protocol::error::err_text(&e)
                ),
            )])
        })?;
        Ok((appended, watch))
    }
}

/// Whether the file system refused a change for a cause the user fixes in the
/// tree (a read-only mount, an attribute, permissions, a full disk).
fn refused_by_tree(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EPERM | libc::EROFS | libc::EACCES | libc::ENOSPC | libc::EDQUOT)
    )
}
