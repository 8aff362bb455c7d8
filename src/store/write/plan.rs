//! The plan: the view of the tree an op builds while its changes are checked, and the steps, temp files and blobs it needs.

use super::*;

/// Where a file's bytes are, while planning.
#[derive(Clone)]
pub(super) enum Content {
    Snap(Arc<Snapshot>),
    Owned(Arc<Vec<u8>>),
    /// A snapshot with one byte range replaced (`Change::Splice`): never joined
    /// into one buffer on the commit path.
    Spliced(Arc<Spliced>),
    /// A large file as one streaming pass read it (`stream::Scan`): on disk,
    /// never in memory.
    Disk(Arc<Scan>),
    /// A `Disk` file with one byte range replaced (`Change::SpliceStream`).
    Streamed(Arc<Streamed>),
}

/// `base`'s file with `range` replaced by `with`.
pub(super) struct Streamed {
    pub(super) base: Arc<Scan>,
    pub(super) range: std::ops::Range<u64>,
    pub(super) with: Vec<u8>,
}

impl Content {
    /// The bytes as the pieces they are held in, in order (`None`: a file on
    /// disk, `Disk` or `Streamed`, which are read from there).
    fn held(&self) -> Option<[&[u8]; 3]> {
        match self {
            Content::Snap(s) => Some([&s.bytes, &[], &[]]),
            Content::Owned(b) => Some([b, &[], &[]]),
            Content::Spliced(s) => Some(s.pieces()),
            Content::Disk(_) | Content::Streamed(_) => None,
        }
    }

    pub(super) fn len(&self) -> usize {
        match (self, self.held()) {
            (_, Some(pieces)) => pieces.iter().map(|p| p.len()).sum(),
            (Content::Disk(s), None) => s.len as usize,
            (Content::Streamed(s), None) => {
                (s.base.len - (s.range.end - s.range.start)) as usize + s.with.len()
            }
            _ => 0,
        }
    }

    /// Whether the bytes are on disk only (`Disk`, `Streamed`): never joined.
    pub(super) fn on_disk_only(&self) -> bool {
        self.held().is_none()
    }

    /// Writes the bytes to `f` (a new file, at its start).
    pub(super) fn write_to(&self, f: &mut std::fs::File) -> std::io::Result<()> {
        match (self, self.held()) {
            (_, Some(pieces)) => fsx::write_pieces(f, &pieces),
            (Content::Disk(s), None) => stream::write_copy(f, s),
            (Content::Streamed(s), None) => stream::write_spliced(f, &s.base, &s.range, &s.with),
            _ => Ok(()),
        }
    }

    /// The bytes in one buffer: borrowed, except a splice's, which are joined
    /// (only where a whole buffer is needed: a tx's staged content, or a blob
    /// of a splice an op changes again). A file on disk is read whole (no
    /// caller asks for one: its blob is a link or a copy of the file, its diff
    /// a window, and a tx never streams).
    pub(super) fn whole(&self) -> Cow<'_, [u8]> {
        match self.held() {
            Some([one, [], []]) => Cow::Borrowed(one),
            Some(pieces) => Cow::Owned(pieces.concat()),
            None => {
                let (base, range, with) = match self {
                    Content::Streamed(s) => (&s.base, s.range.clone(), s.with.as_slice()),
                    Content::Disk(s) => (s, 0..0, &[][..]),
                    _ => return Cow::Borrowed(&[]),
                };
                let mut v = base.read(0..range.start).unwrap_or_default();
                v.extend_from_slice(with);
                v.extend(base.read(range.end..base.len).unwrap_or_default());
                Cow::Owned(v)
            }
        }
    }
}

/// A path's state in the view the plan builds (the disk with this op's changes so far).
#[derive(Clone)]
pub(super) enum View {
    Missing,
    File {
        hash: String,
        mode: u32,
        mtime: Option<i64>,
        content: Option<Content>,
    },
    Dir {
        mode: u32,
    },
    Symlink {
        target: String,
    },
}

impl View {
    pub(super) fn state(&self) -> State {
        match self {
            View::Missing => State::missing(),
            // The mtime is part of a state only where `touch` sets it.
            View::File { hash, mode, .. } => State {
                kind: "file".into(),
                hash: Some(hash.clone()),
                mode: Some(*mode),
                target: None,
                mtime: None,
            },
            View::Dir { mode } => State {
                kind: "dir".into(),
                mode: Some(*mode),
                ..State::default()
            },
            View::Symlink { target } => State {
                kind: "symlink".into(),
                hash: Some(sha256_hex(target.as_bytes())),
                target: Some(target.clone()),
                ..State::default()
            },
        }
    }
    pub(super) fn hash(&self) -> Option<String> {
        self.state().hash
    }
}

pub(super) enum TempKind {
    File {
        content: Content,
        mode: u32,
        mtime: Option<i64>,
    },
    Symlink {
        target: String,
    },
}

pub(super) struct Temp {
    pub(super) path: PathBuf,
    /// The path the temp becomes (what a refusal to create it names).
    pub(super) target: PathBuf,
    pub(super) kind: TempKind,
}

pub(super) struct BlobJob {
    pub(super) hash: String,
    /// The tree file holding the bytes, when they are on disk (may be hard-linked).
    pub(super) disk: Option<PathBuf>,
    pub(super) content: Option<Content>,
    pub(super) tmp: PathBuf,
}

pub(super) struct Plan<'a> {
    pub(super) ctx: &'a Ctx,
    pub(super) state: &'a Path,
    pub(super) op_id: &'a str,
    pub(super) view: std::collections::HashMap<PathBuf, View>,
    pub(super) steps: Vec<Step>,
    pub(super) temps: Vec<Temp>,
    pub(super) blobs: Vec<BlobJob>,
    pub(super) blob_hashes: BTreeSet<String>,
    pub(super) sync_dirs: BTreeSet<PathBuf>,
    /// (device, inode) of the files `look` read from the disk, by path.
    pub(super) disk_ids: std::collections::HashMap<PathBuf, (u64, u64)>,
    /// Directories `temp_path` found on disk.
    pub(super) disk_dirs: std::collections::HashSet<PathBuf>,
    pub(super) reports: Vec<PendingReport>,
    pub(super) entry_changes: Vec<EntryChange>,
    /// Files this op replaces, as read (checked again before the commit point).
    pub(super) watch: Vec<super::appends::Target>,
    pub(super) default_file_mode: u32,
    pub(super) default_dir_mode: u32,
}

pub(super) fn parent_of(p: &Path) -> PathBuf {
    p.parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"))
}

impl<'a> Plan<'a> {
    pub(super) fn new(ctx: &'a Ctx, state: &'a Path, op_id: &'a str) -> Plan<'a> {
        let umask = fsx::umask();
        Plan {
            ctx,
            state,
            op_id,
            view: Default::default(),
            steps: Vec::new(),
            temps: Vec::new(),
            blobs: Vec::new(),
            blob_hashes: BTreeSet::new(),
            sync_dirs: BTreeSet::new(),
            disk_dirs: Default::default(),
            disk_ids: Default::default(),
            reports: Vec::new(),
            entry_changes: Vec::new(),
            watch: Vec::new(),
            default_file_mode: 0o666 & !umask,
            default_dir_mode: 0o777 & !umask,
        }
    }

    pub(super) fn rel(&self, p: &Path) -> String {
        paths::relative_to(p, &self.ctx.root).unwrap_or_else(|| paths::display(p))
    }

    pub(super) fn io(&self, p: &Path, e: &std::io::Error) -> Box<StoreError> {
        Box::new(StoreError::PathIo {
            command: self.ctx.command.clone(),
            path: self.rel(p),
            error: crate::store::error::copy_io(e),
        })
    }

    /// The view of `p` (no final symlink followed); files are read when `content`.
    pub(super) fn look(&mut self, p: &Path, content: bool) -> Result<View, Box<StoreError>> {
        self.look_stated(p, content, None)
    }

    /// `look`, given the lstat `boundary::resolve_stat` just took of `p` when it
    /// took one (a change resolves its path, then looks at it): used instead of
    /// taking another when the disk is looked at.
    pub(super) fn look_stated(
        &mut self,
        p: &Path,
        content: bool,
        lstat: Option<std::fs::Metadata>,
    ) -> Result<View, Box<StoreError>> {
        if let Some(v) = self.view.get(p) {
            let needs = matches!(v, View::File { content: None, .. });
            if !(content && needs) {
                return Ok(v.clone());
            }
        } else if self.under_removed(p) {
            return Ok(View::Missing);
        }
        if self.ctx.tx.is_some() {
            let v = self.look_tx(p, content)?;
            self.view.insert(p.to_path_buf(), v.clone());
            return Ok(v);
        }
        let lstat = match lstat {
            Some(m) => Ok(m),
            None => std::fs::symlink_metadata(p),
        };
        let meta = match lstat {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(View::Missing),
            Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => return Ok(View::Missing),
            Err(e) => return Err(self.io(p, &e)),
        };
        let ft = meta.file_type();
        let v = if ft.is_symlink() {
            let t = std::fs::read_link(p).map_err(|e| self.io(p, &e))?;
            View::Symlink {
                target: t.to_string_lossy().into_owned(),
            }
        } else if ft.is_dir() {
            // On disk now: `temp_path` need not look again.
            self.disk_dirs.insert(p.to_path_buf());
            View::Dir {
                mode: meta.mode() & 0o7777,
            }
        } else if ft.is_file() {
            // Not a symlink: the lstat is the stat `load` would make.
            let snap = self
                .ctx
                .session
                .snapshots
                .load_stated(p, &meta)
                .map_err(|e| self.io(p, &e))?;
            // The inode read (its fstat), not the one the path's lstat found:
            // a parent directory swapped for a symlink between the two makes
            // them different files, and `put_content` arms the append watch only
            // for a target whose identity is the one its content was read from.
            self.disk_ids
                .insert(p.to_path_buf(), (snap.stamp.dev, snap.stamp.ino));
            View::File {
                hash: snap.hash.clone(),
                mode: snap.mode,
                mtime: Some(snap.mtime),
                content: Some(Content::Snap(snap)),
            }
        } else {
            return Err(not_a_file(&self.rel(p)));
        };
        self.view.insert(p.to_path_buf(), v.clone());
        Ok(v)
    }

    /// `look` under `--tx`: the tx's view of `p` (staged state, else the disk).
    pub(super) fn look_tx(&mut self, p: &Path, content: bool) -> Result<View, Box<StoreError>> {
        let st = self.ctx.files().stat(p, false)?;
        Ok(match st.kind {
            view::Kind::Missing => View::Missing,
            view::Kind::Dir => View::Dir { mode: st.mode },
            view::Kind::Symlink => View::Symlink {
                target: match st.staged.and_then(|s| s.target) {
                    Some(t) => t,
                    None => std::fs::read_link(p)
                        .map_err(|e| self.io(p, &e))?
                        .to_string_lossy()
                        .into_owned(),
                },
            },
            view::Kind::File => {
                let _ = content;
                let snap = self.ctx.files().load(p)?;
                let from_tx = st.staged.is_some();
                View::File {
                    hash: snap.hash.clone(),
                    mode: snap.mode,
                    mtime: if from_tx {
                        st.staged.as_ref().and_then(|s| s.mtime)
                    } else {
                        Some(snap.mtime)
                    },
                    content: Some(if from_tx {
                        Content::Owned(Arc::new(snap.bytes.clone()))
                    } else {
                        Content::Snap(snap)
                    }),
                }
            }
            view::Kind::Other => return Err(not_a_file(&self.rel(p))),
        })
    }

    /// Whether an ancestor of `p` was removed or moved away earlier in this op.
    pub(super) fn under_removed(&self, p: &Path) -> bool {
        p.ancestors()
            .skip(1)
            .any(|a| matches!(self.view.get(a), Some(View::Missing)))
    }

    /// (device, inode) of the file at `p` on disk: as `look` found it (the disk
    /// does not change while the op plans), else looked at now.
    pub(super) fn read_identity(&self, p: &Path) -> Option<(u64, u64)> {
        match self.disk_ids.get(p) {
            Some(id) => Some(*id),
            None => fsx::identity(p),
        }
    }

    pub(super) fn exists_on_disk(&self, p: &Path) -> bool {
        fsx::exists_nofollow(p)
    }

    /// Where a temp file for `target` goes: its directory, or the nearest ancestor
    /// that exists on disk now (same filesystem, so the rename is atomic).
    pub(super) fn temp_path(&mut self, target: &Path) -> PathBuf {
        let mut dir = parent_of(target);
        // The disk does not change while the op plans: a directory seen is not
        // looked at again (a replace of 1,000 files in 20 directories: 20 looks).
        while !self.disk_dirs.contains(&dir) {
            if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                self.disk_dirs.insert(dir.clone());
                break;
            }
            match dir.parent() {
                Some(p) => dir = p.to_path_buf(),
                None => break,
            }
        }
        let n = self.temps.len();
        let p = intent::temp_name(&dir, self.op_id, n);
        self.sync_dirs.insert(dir);
        p
    }

    /// Creates the missing directories above `target` (each one a journaled change).
    pub(super) fn ensure_parents(&mut self, target: &Path) -> Result<(), Box<StoreError>> {
        let mut missing = Vec::new();
        let mut cur = parent_of(target);
        loop {
            match self.look(&cur, false)? {
                View::Dir { .. } => break,
                View::Missing => {
                    missing.push(cur.clone());
                    match cur.parent() {
                        Some(p) => cur = p.to_path_buf(),
                        None => break,
                    }
                }
                View::Symlink { .. } => {
                    // An existing symlink to a directory was resolved by the boundary;
                    // a dangling one (or one to a file) blocks the path.
                    if std::fs::metadata(&cur).is_ok_and(|m| m.is_dir()) {
                        break;
                    }
                    return Err(in_the_way(&self.rel(&cur)));
                }
                View::File { .. } => return Err(in_the_way(&self.rel(&cur))),
            }
        }
        for d in missing.into_iter().rev() {
            self.mkdir_one(&d);
        }
        Ok(())
    }

    pub(super) fn mkdir_one(&mut self, d: &Path) {
        let mode = self.default_dir_mode;
        self.steps.push(Step::Mkdir {
            path: d.to_path_buf(),
            mode: None,
        });
        self.sync_dirs.insert(parent_of(d));
        self.sync_dirs.insert(d.to_path_buf());
        self.view.insert(d.to_path_buf(), View::Dir { mode });
        let rel = self.rel(d);
        self.record(
            &rel,
            "created",
            None,
            None,
            View::Missing.state(),
            View::Dir { mode }.state(),
            None,
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn record(
        &mut self,
        rel: &str,
        action: &'static str,
        from: Option<(String, State)>,
        hashes: Option<(Option<String>, Option<String>)>,
        before: State,
        after: State,
        diff_of: Option<(Option<Content>, Option<Content>)>,
    ) {
        let ha = hashes.map_or_else(|| after.hash.clone(), |(_, a)| a);
        self.reports.push(PendingReport {
            report: ChangeReport {
                path: rel.to_string(),
                action,
                from: from.as_ref().map(|(f, _)| f.clone()),
                hash_after: ha,
                added: None,
                deleted: None,
                diff: None,
                diff_truncated: None,
                count: None,
            },
            diff_of,
            diff_line: 0,
        });
        self.entry_changes.push(EntryChange {
            path: rel.to_string(),
            action: action.to_string(),
            from_before: from.as_ref().map(|(_, s)| s.clone()),
            from: from.map(|(f, _)| f),
            before,
            after,
        });
    }

    /// Keeps the before-content of a file this op replaces or removes.
    pub(super) fn keep_blob(&mut self, p: &Path, v: &View) {
        let View::File { hash, content, .. } = v else {
            return;
        };
        // Whether a loose blob of it is there already is asked at the commit,
        // and only of the blobs that stay loose (a pack holds its own copy).
        if self.blob_hashes.contains(hash) {
            return;
        }
        self.blob_hashes.insert(hash.clone());
        let on_disk = matches!(content, Some(Content::Snap(_) | Content::Disk(_)));
        let n = self.blobs.len();
        self.blobs.push(BlobJob {
            hash: hash.clone(),
            disk: on_disk.then(|| p.to_path_buf()),
            content: content.clone(),
            tmp: intent::blob_temp_name(&blobs::dir(self.state), self.op_id, n),
        });
    }

    pub(super) fn add(&mut self, c: Change) -> Result<(), Box<StoreError>> {
        match c {
            Change::Put { path, bytes, mode } => self.put(&path, bytes, mode),
            Change::PutHashed { path, bytes, hash } => {
                self.put_with(&path, bytes, None, Some(hash))
            }
            Change::Splice {
                path,
                base,
                range,
                with,
            } => self.splice(&path, base, range, with),
            Change::SpliceStream {
                path,
                base,
                range,
                with,
            } => self.splice_stream(&path, base, range, with),
            Change::PutStream {
                path,
                base,
                from,
                mode,
                window,
            } => self.put_stream(&path, base, from, mode, window),
            Change::Delete { path } => self.delete(&path),
            Change::Move { from, to } => self.mv(&from, &to),
            Change::Mkdir { path } => self.mkdir(&path),
            Change::Chmod { path, mode } => self.chmod(&path, mode),
            Change::Symlink { path, target } => self.symlink(&path, target),
            Change::Touch { path, mtime } => self.touch(&path, mtime),
        }
    }

    pub(super) fn put(
        &mut self,
        path: &Path,
        bytes: Vec<u8>,
        mode: Option<u32>,
    ) -> Result<(), Box<StoreError>> {
        self.put_with(path, bytes, mode, None)
    }

    /// `put` of bytes whose SHA-256 is `hashed` when given (else computed here).
    fn put_with(
        &mut self,
        path: &Path,
        bytes: Vec<u8>,
        mode: Option<u32>,
        hashed: Option<String>,
    ) -> Result<(), Box<StoreError>> {
        let (target, lstat) = boundary::resolve_stat(self.ctx, path, Final::Follow)?;
        let before = self.look_stated(&target, true, lstat)?;
        let hash = match (&before, hashed) {
            (_, Some(h)) => h,
            (
                View::File {
                    content: Some(Content::Snap(snap)),
                    ..
                },
                None,
            ) => snap.hash_of_successor(&bytes),
            (_, None) => sha256_hex(&bytes),
        };
        let content = Content::Owned(Arc::new(bytes));
        self.put_content(target, before, content, hash, mode, None)
    }

    /// A put of `content` (whose SHA-256 is `hash`) at `target`, resolved, whose
    /// view was `before`. The answer's diff is of `before` → `content`, or of the
    /// window given (old and new lines, from the 0-based line of the file they start at).
    pub(super) fn put_content(
        &mut self,
        target: PathBuf,
        before: View,
        content: Content,
        hash: String,
        mode: Option<u32>,
        window: Option<(Content, Content, usize)>,
    ) -> Result<(), Box<StoreError>> {
        let rel = self.rel(&target);
        let (old_mode, old_content) = match &before {
            View::Dir { .. } => return Err(not_a_file(&rel)),
            View::File {
                hash: h,
                mode: m,
                content,
                ..
            } => {
                if *h == hash && mode.is_none_or(|x| x == *m) {
                    return Ok(());
                }
                (Some(*m), content.clone())
            }
            _ => (None, None),
        };
        let new_mode = mode.or(old_mode).unwrap_or(self.default_file_mode) & 0o7777;
        self.ensure_parents(&target)?;
        let tmp = self.temp_path(&target);
        self.temps.push(Temp {
            path: tmp.clone(),
            target: target.clone(),
            kind: TempKind::File {
                content: content.clone(),
                mode: new_mode,
                mtime: None,
            },
        });
        self.steps.push(Step::Rename {
            tmp,
            to: target.clone(),
        });
        self.sync_dirs.insert(parent_of(&target));
        self.keep_blob(&target, &before);
        if let View::File {
            content: Some(Content::Snap(snap)),
            ..
        } = &before
            && self.read_identity(&target) == Some((snap.stamp.dev, snap.stamp.ino))
        {
            // Read at this path (not content an earlier step of the op moved here).
            let read = self
                .ctx
                .session
                .snapshots
                .first_read(&target)
                .unwrap_or_else(|| snap.clone());
            self.watch
                .push((target.clone(), rel.clone(), appends::Read::Held(read)));
        }
        if let View::File {
            content: Some(Content::Disk(scan)),
            ..
        } = &before
        {
            self.watch.push((
                target.clone(),
                rel.clone(),
                appends::Read::Streamed(scan.clone()),
            ));
        }
        let after = View::File {
            hash,
            mode: new_mode,
            mtime: None,
            content: Some(content.clone()),
        };
        let action = if matches!(before, View::Missing) {
            "created"
        } else {
            "modified"
        };
        let (diff_of, line) = match window {
            Some((old, new, line)) => (Some((Some(old), Some(new))), line),
            None => (Some((old_content, Some(content))), 0),
        };
        let (bs, as_) = (before.state(), after.state());
        self.record(&rel, action, None, None, bs, as_, diff_of);
        if let Some(r) = self.reports.last_mut() {
            r.diff_line = line;
        }
        self.view.insert(target, after);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn a_file_looked_at_is_known_by_the_inode_read_not_the_one_its_lstat_found() {
        // The lstat a look is given can be of another file than the one its read
        // opens a moment later (a parent directory swapped for a symlink in
        // between): the identity kept is the inode read, so the write still arms
        // the append watch on the target whose bytes it computed from.
        let t = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(t.path()).unwrap();
        let (read, other) = (ws.join("read"), ws.join("other"));
        std::fs::write(&read, "inside\n").unwrap();
        std::fs::write(&other, "a longer file somewhere else\n").unwrap();
        let root = ws.to_string_lossy().into_owned();
        let timeout = std::time::Duration::from_secs(1);
        let ctx = Ctx::new("edit", Vec::new(), Some(&root), timeout).unwrap();
        let state = ws.join("state");
        let mut plan = Plan::new(&ctx, &state, "op-test");
        let lstat = std::fs::metadata(&other).unwrap();
        let v = plan.look_stated(&read, true, Some(lstat)).unwrap();
        let View::File {
            content: Some(Content::Snap(snap)),
            ..
        } = v
        else {
            panic!("not read as a file")
        };
        assert_eq!(snap.bytes, b"inside\n");
        let m = std::fs::metadata(&read).unwrap();
        assert_eq!(plan.read_identity(&read), Some((m.dev(), m.ino())));
    }
}
