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
    ) -> Result<(Vec<journal::Appended>, super::appends::Watch), Box<StoreError>> {
        let ctx = self.ctx;
        let state = self.state;
        let steps = std::mem::take(&mut self.steps);
        let sync_dirs = std::mem::take(&mut self.sync_dirs).into_iter().collect();
        let stores = self.stores();
        let intent = stores.intent(&self, steps, sync_dirs, entry);
        let unsynced = ctx.session.unsynced();
        let (mut record, sum) = intent::write_first_line(state, &ctx.root, &intent, &unsynced)
            .map_err(|e| {
                let _ = std::fs::remove_file(intent::record_path(state, &intent.op_id));
                super::io_fault(ctx, "the intent record", &e)
            })?;
        ctx.session.synced(&unsynced);
        let mut prepared = Prepared::default();
        let made = self.prepare(&stores, &mut prepared);
        let unchanged =
            |e: std::io::Error| super::io_fault(ctx, "the write (nothing was changed)", &e);
        // The targets are checked again as late as possible before the commit
        // point; those `linkable` opened are looked at through their descriptors.
        let mut pinned: HashMap<PathBuf, Arc<std::fs::File>> = stores
            .candidates
            .iter()
            .filter_map(|c| c.job.disk.clone().map(|d| (d, c.file.clone())))
            .collect();
        let made = made.map_err(|e| match &prepared.making {
            Some(target) if refused_by_tree(&e) => self.tree_refused(target, &e),
            _ => unchanged(e),
        });
        let armed = made.and_then(|()| {
            let watch = super::appends::arm(
                &ctx.root,
                &self.watch,
                &ctx.argv,
                &prepared.relinked,
                &mut pinned,
            )?;
            intent::write_commit_line(&mut record, &sum).map_err(unchanged)?;
            Ok(watch)
        });
        let watch = match armed {
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
        self.apply(&intent, &prepared.held, watch)
    }

    /// Where each before-image goes: linked (`candidates`), packed, or a loose blob.
    fn stores(&self) -> Stores<'_> {
        let (ctx, state) = (self.ctx, self.state);
        // A before-image still on disk as it was read is kept as a link of its
        // inode at its blob name (`blobs::link_before_image`), unless that blob
        // is there already or another file of the op links it; the others
        // (another name, another filesystem, changed since read) go into the
        // pack as before; one whose link fails late is copied loose.
        let snap_stamp = |b: &BlobJob| -> Option<Stamp> {
            match (&b.disk, &b.content) {
                (Some(_), Some(Content::Snap(s))) if s.stamp != Stamp::default() => Some(s.stamp),
                (Some(_), Some(Content::Disk(s))) => Some(s.stamp),
                _ => None,
            }
        };
        let state_dev = std::fs::metadata(state).map(|m| m.dev()).ok();
        let euid = blobs::euid();
        let mut candidates: Vec<Candidate> = Vec::new();
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
                Some(((stamp, file, readable), None)) => {
                    linking.insert(&b.hash);
                    let at = blobs::path(state, &b.hash);
                    candidates.push(Candidate {
                        job: b,
                        stamp,
                        file,
                        readable,
                        at,
                    });
                }
                None => rest.push(b),
            }
        }
        let (packed, loose) = self.pack_or_loose(rest, &linking);
        Stores {
            candidates,
            packed,
            loose,
            pack_tmp: blobs::dir(state).join(format!(".{}-pack.tmp", self.op_id)),
        }
    }

    /// The before-images of an op over many files go into one pack; big ones
    /// and those of a small op stay loose blobs (but for one a link of this op
    /// makes, or one stored already).
    fn pack_or_loose<'b>(
        &self,
        rest: Vec<&'b BlobJob>,
        linking: &HashSet<&str>,
    ) -> (Vec<&'b BlobJob>, Vec<&'b BlobJob>) {
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
        let loose = loose
            .into_iter()
            .filter(|b| !linking.contains(b.hash.as_str()) && !blobs::kept(self.state, &b.hash))
            .collect();
        (packed, loose)
    }

    /// Links the before-images, writes every blob and temp file, syncs them
    /// together (`fsx::Batch`), then names the blobs: all before the commit point.
    fn prepare(&self, stores: &Stores, out: &mut Prepared) -> std::io::Result<()> {
        let state = self.state;
        // Temp files are created beneath the root's descriptor, as the steps act.
        let tree = Tree::open(&self.ctx.root)?;
        // The links first (no data written); a before-image that cannot be
        // linked is copied with the loose blobs.
        let mut loose = stores.loose.clone();
        for c in &stores.candidates {
            match blobs::link_before_image(&c.file, c.readable, &c.stamp, &c.at) {
                Ok((now, opened)) => {
                    out.relinked.push(now);
                    let held = opened.map(Arc::new).unwrap_or_else(|| c.file.clone());
                    out.held.insert(c.at.clone(), held);
                }
                Err(_) => loose.push(c.job),
            }
        }
        let linked = !out.relinked.is_empty();
        let files = loose.len()
            + usize::from(!stores.packed.is_empty())
            + self
                .temps
                .iter()
                .filter(|t| matches!(t.kind, TempKind::File { .. }))
                .count();
        let mut batch = fsx::Batch::new(files);
        if !stores.packed.is_empty() {
            write_pack(state, &stores.packed, &stores.pack_tmp, &mut batch)?;
        }
        let staged = stage_loose(state, &loose, &mut batch)?;
        for t in &self.temps {
            out.making = Some(t.target.clone());
            write_temp(&tree, t, &mut batch)?;
        }
        out.making = None;
        batch.sync()?;
        let mut new_blobs = false;
        for (b, stored) in loose.iter().zip(staged) {
            new_blobs |= blobs::publish(state, &b.hash, &b.tmp, stored)? != blobs::Stored::Existing;
        }
        // A link's name must be durable before the first rename in the tree.
        if new_blobs || linked {
            fsx::sync_dir(&blobs::dir(state))?;
        }
        if !stores.packed.is_empty() {
            std::fs::rename(&stores.pack_tmp, pack::path(state, self.op_id))?;
            fsx::sync_dir(&pack::dir(state))?;
        }
        Ok(())
    }

    /// `refusal` of a temp file the tree refused to make: the tree's (its
    /// directory), not the state directory's.
    fn tree_refused(&self, target: &Path, e: &std::io::Error) -> Box<StoreError> {
        let ctx = self.ctx;
        StoreError::TreeRefused {
            rel: target
                .strip_prefix(&ctx.root)
                .unwrap_or(target)
                .display()
                .to_string(),
            error: crate::store::error::copy_io(e),
            argv: ctx.argv.clone(),
        }
        .into()
    }

    /// After the commit point: the steps applied and journaled
    /// (`recovery::finish_with`), what appenders added meanwhile settled.
    fn apply(
        &self,
        intent: &Intent,
        held: &HashMap<PathBuf, Arc<std::fs::File>>,
        mut watch: super::appends::Watch,
    ) -> Result<(Vec<journal::Appended>, super::appends::Watch), Box<StoreError>> {
        let (ctx, state) = (self.ctx, self.state);
        let mut appended = Vec::new();
        // Committed but not applied: the record stays pending, and the repairs are
        // the ones that clear it (finish once the cause is fixed, or set aside).
        recovery::finish_with(ctx, state, intent, held, |op_id, trusted| {
            watch.forget_published(trusted.iter().filter_map(|t| held.get(*t)));
            appended = watch.settle(state, op_id);
            appended.clone()
        })
        .map_err(|e| {
            // Refused before the tree changed: the op is undone, nothing stays pending.
            if let Some(f) = super::recovery::untouched(&e)
                && intent::discard(&ctx.root, intent).is_ok()
                && std::fs::remove_file(intent::record_path(state, &intent.op_id)).is_ok()
            {
                let _ = fsx::sync_dir(&intent::dir(state));
                return self.tree_refused(&f.at, &f.error);
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

/// A before-image kept as a link of its inode: the job, the inode's stamp, its
/// descriptor (open for reading, `readable`, or `O_PATH`), and the blob name.
struct Candidate<'a> {
    job: &'a BlobJob,
    stamp: Stamp,
    file: Arc<std::fs::File>,
    readable: bool,
    at: PathBuf,
}

/// Where an op's before-images go.
struct Stores<'a> {
    candidates: Vec<Candidate<'a>>,
    packed: Vec<&'a BlobJob>,
    loose: Vec<&'a BlobJob>,
    pack_tmp: PathBuf,
}

impl Stores<'_> {
    /// The intent record of the op: its temps, blob temps, links, steps.
    fn intent(
        &self,
        plan: &Plan,
        steps: Vec<Step>,
        sync_dirs: Vec<PathBuf>,
        entry: Entry,
    ) -> Intent {
        let mut blob_tmps: Vec<PathBuf> = self.loose.iter().map(|b| b.tmp.clone()).collect();
        if !self.packed.is_empty() {
            blob_tmps.push(self.pack_tmp.clone());
        }
        let mut links: Vec<PathBuf> = self
            .loose
            .iter()
            .filter(|b| b.disk.is_some())
            .map(|b| blobs::path(plan.state, &b.hash))
            .collect();
        links.extend(self.candidates.iter().map(|c| c.at.clone()));
        Intent {
            op_id: plan.op_id.to_string(),
            temps: plan.temps.iter().map(|t| t.path.clone()).collect(),
            blob_tmps,
            links,
            linked: self
                .candidates
                .iter()
                .map(|c| intent::Linked {
                    tmp: c.at.clone(),
                    hash: c.job.hash.clone(),
                    size: c.stamp.size,
                    mtime_ns: c.stamp.mtime_ns as i64,
                })
                .collect(),
            steps,
            sync_dirs,
            entry,
            entry_json: Default::default(),
        }
    }
}

/// What `prepare` did, also when it failed part way.
#[derive(Default)]
struct Prepared {
    /// The stamps of the inodes linked, as the links left them (`appends::arm`).
    relinked: Vec<Stamp>,
    /// The descriptors linked, by blob name: their publish looks at them
    /// (`blobs::publish_link`'s `held`) instead of opening the name again.
    held: HashMap<PathBuf, Arc<std::fs::File>>,
    /// The target whose temp was being made when preparing failed: a refusal
    /// there is the tree's (its directory), not the state directory's.
    making: Option<PathBuf>,
}

/// The before-images of an op over many files, as one pack at `tmp`.
fn write_pack(
    state: &Path,
    packed: &[&BlobJob],
    tmp: &Path,
    batch: &mut fsx::Batch,
) -> std::io::Result<()> {
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
    pack::write(tmp, &items, batch)
}

/// Each loose blob written to its temp (each one `keep_blob` saw missing).
fn stage_loose(
    state: &Path,
    loose: &[&BlobJob],
    batch: &mut fsx::Batch,
) -> std::io::Result<Vec<blobs::Stored>> {
    let mut stager = blobs::Stager::new(state);
    let mut staged = Vec::new();
    for b in loose {
        // A file on disk only is copied from the file (never read whole).
        let whole = b
            .content
            .as_ref()
            .filter(|c| !c.on_disk_only())
            .map(|c| c.whole());
        let bytes = whole.as_deref();
        let stored = match &b.disk {
            Some(src) => stager.stage_file(src, bytes, &b.tmp, &b.hash, batch)?,
            None => stager.stage_bytes(bytes.unwrap_or_default(), &b.tmp, batch)?,
        };
        staged.push(stored);
    }
    Ok(staged)
}

/// One temp file (or symlink) of the tree, beneath the root's descriptor.
fn write_temp(tree: &Tree, t: &Temp, batch: &mut fsx::Batch) -> std::io::Result<()> {
    match &t.kind {
        TempKind::File {
            content,
            mode,
            mtime,
        } => {
            let (mut f, dev) = tree.create_new(&t.path, *mode)?;
            content.write_to(&mut f)?;
            if let Some(m) = mtime {
                f.set_modified(fsx::to_system_time(*m))?;
            }
            batch.written_on(f, dev)
        }
        TempKind::Symlink { target } => tree.symlink(std::ffi::OsStr::new(target), &t.path),
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
