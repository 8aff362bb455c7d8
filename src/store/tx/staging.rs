//! Staging: recording an op's changes, the ops log, drop and the staged view.

use super::*;

impl Tx {
    pub(super) fn save_ops(&self, generation: u64, ops: &[OpRecord]) -> io::Result<()> {
        write_atomic(&self.dir, &ops_name(generation), &ops_text(ops)?)
    }

    /// Stages one op: its blobs, then its record appended to the ops log (the
    /// commit point; `index.json` is not rewritten, loading replays the record).
    /// `contents` are the bytes of every staged file state (by hash).
    pub fn stage(
        &mut self,
        ctx: &Ctx,
        req: &WriteRequest,
        moves: bool,
        changes: &[EntryChange],
        contents: &BTreeMap<String, Vec<u8>>,
        looked: Vec<String>,
    ) -> Result<u64, Box<StoreError>> {
        let n = self.index.last_op + 1;
        // The op's entries, over the tx's: only the paths it touches are looked
        // up (the whole write set is not built).
        let mut set: BTreeMap<String, Option<PathEntry>> = BTreeMap::new();
        let get = |set: &BTreeMap<String, Option<PathEntry>>, p: &str| match set.get(p) {
            Some(e) => e.clone(),
            None => self.index.paths.entry(p),
        };
        let mut prior: Vec<Prior> = Vec::new();
        let mut paths: Vec<String> = Vec::new();
        let mut touch = |p: &str, set: &BTreeMap<String, Option<PathEntry>>| {
            if !paths.iter().any(|q| q == p) {
                paths.push(p.to_string());
                prior.push(Prior {
                    path: p.to_string(),
                    entry: get(set, p),
                });
            }
        };
        for c in changes {
            if let Some(f) = &c.from {
                touch(f, &set);
                let base = get(&set, f)
                    .map(|e| e.base)
                    .or_else(|| c.from_before.clone())
                    .unwrap_or_else(State::missing);
                let staged = State::missing();
                set.insert(f.clone(), Some(PathEntry { base, staged }));
            }
            touch(&c.path, &set);
            let base = get(&set, &c.path)
                .map(|e| e.base)
                .unwrap_or_else(|| c.before.clone());
            let staged = c.after.clone();
            set.insert(c.path.clone(), Some(PathEntry { base, staged }));
        }
        let after = Some(
            paths
                .iter()
                .map(|p| Prior {
                    path: p.clone(),
                    entry: get(&set, p),
                })
                .collect(),
        );
        let record = OpRecord {
            tx_op: n,
            command: req.command.clone(),
            argv: strip_tx(&req.argv),
            cwd: ctx.cwd.to_string_lossy().into_owned(),
            paths,
            looked,
            prior,
            moves,
            after,
        };
        // Staging is not made durable op by op (see `quick`): a kill leaves the tx
        // as before or after the op (blobs are renamed into place whole, the op's
        // record is appended, and a torn one is ignored), and a power loss is
        // caught by the `unsynced` marker, written durably first.
        let sync = !self.quick(ctx)?;
        let done = (|| -> io::Result<()> {
            // The op's blobs go into the tx's own `blobs/` (see `private`):
            // unsynced under the marker, like the ops log below.
            self.put_blobs(contents, sync)?;
            self.append_op(&record, sync)
        })();
        done.map_err(|e| io_err(ctx, &e))?;
        self.ops.push(record);
        for (p, e) in set {
            self.index.paths.set(p, e);
        }
        self.index.last_op = n;
        Ok(n)
    }

    /// Appends an op's record to the ops log (the op's commit point), first
    /// cutting off a torn record a killed append left after the last whole one.
    /// `sync`: the record is made durable (a tx staged without the marker).
    fn append_op(&mut self, record: &OpRecord, sync: bool) -> io::Result<()> {
        let mut line = to_json(record)?;
        line.push(b'\n');
        let f = fsx::open_append(&self.dir.join(ops_name(self.index.generation)), 0o600)?;
        let len = f.metadata()?.len();
        if len < self.stamp.ops_valid {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the tx's ops log is shorter than when it was loaded",
            ));
        }
        if len > self.stamp.ops_valid {
            f.set_len(self.stamp.ops_valid)?;
        }
        (&f).write_all(&line)?;
        if sync {
            f.sync_data()?;
            if self.stamp.ops.is_none() {
                fsx::sync_dir(&self.dir)?;
            }
        }
        let m = f.metadata()?;
        self.stamp.ops = Some(model::FileId::of(&m));
        self.stamp.ops_valid = m.len();
        Ok(())
    }

    /// Stages an op of another tx as it was (`tx rebase` keeping an op it need not
    /// re-run): `entries` are the op's resulting entries for its paths.
    pub fn copy_op(
        &mut self,
        ctx: &Ctx,
        from: &OpRecord,
        entries: Vec<(String, PathEntry)>,
    ) -> Result<u64, Box<StoreError>> {
        let n = self.index.last_op + 1;
        let mut index = self.index.clone();
        let mut prior = Vec::new();
        for (p, e) in entries {
            prior.push(Prior {
                path: p.clone(),
                entry: index.paths.get(&p).cloned(),
            });
            let base = index
                .paths
                .get(&p)
                .map(|x| x.base.clone())
                .unwrap_or(e.base);
            index.paths.insert(
                p,
                PathEntry {
                    base,
                    staged: e.staged,
                },
            );
        }
        index.last_op = n;
        let record = OpRecord {
            tx_op: n,
            command: from.command.clone(),
            argv: from.argv.clone(),
            cwd: from.cwd.clone(),
            paths: from.paths.clone(),
            looked: from.looked.clone(),
            after: Some(after_entries(&index, &from.paths)),
            prior,
            moves: from.moves,
        };
        let sync = !self.quick(ctx)?;
        self.append_op(&record, sync).map_err(|e| io_err(ctx, &e))?;
        self.index = index;
        self.ops.push(record);
        Ok(n)
    }

    /// Whether the ops log is as this load read it (no op appended since).
    pub fn ops_unchanged(&self) -> bool {
        let now = std::fs::metadata(self.dir.join(ops_name(self.index.generation)))
            .ok()
            .map(|m| model::FileId::of(&m));
        now == self.stamp.ops
    }

    /// The entry `path` had right after op number `k` (index into `ops`).
    pub fn entry_after(&self, k: usize, path: &str) -> Option<PathEntry> {
        for later in self.ops.iter().skip(k + 1) {
            if let Some(p) = later.prior.iter().find(|p| p.path == path) {
                return p.entry.clone();
            }
        }
        self.index.paths.entry(path)
    }

    /// Removes op `n` and every later one, restoring each path's entry from before.
    pub fn drop_from(&mut self, ctx: &Ctx, n: u64) -> Result<Vec<u64>, Box<StoreError>> {
        // Past a line that is not a record, or with one inside what
        // `index.json` holds, what to restore is not known.
        if self
            .stamp
            .unreadable
            .is_some_and(|(_, op)| n > op || op <= self.index.last_op)
        {
            self.check_log()?;
        }
        let mut index = self.index.clone();
        let mut dropped = Vec::new();
        for r in self.ops.iter().rev().filter(|r| r.tx_op >= n) {
            for p in &r.prior {
                match &p.entry {
                    Some(e) => {
                        index.paths.insert(p.path.clone(), e.clone());
                    }
                    None => {
                        index.paths.remove(&p.path);
                    }
                }
            }
            dropped.push(r.tx_op);
        }
        dropped.sort_unstable();
        index.last_op = n.saturating_sub(1);
        let keep: Vec<OpRecord> = self.ops.iter().filter(|r| r.tx_op < n).cloned().collect();
        // After a restart the blobs of the ops kept must still hold their bytes
        // (they were written without syncs): else the drop must reach further.
        if self.other_boot()
            && let Some(k) = self.first_damaged(n)
        {
            return Err(damaged(&self.id, k));
        }
        // A new generation of the log, then the index that names it (the commit
        // point: the dropped records are appended to past the index's `last_op`
        // and would be replayed if the log they are in stayed).
        let old = index.generation;
        index.generation = old + 1;
        let done = (|| -> io::Result<()> {
            self.save_ops(index.generation, &keep)?;
            write_atomic(&self.dir, "index.json", &to_json(&index)?)?;
            let _ = std::fs::remove_file(self.dir.join(ops_name(old)));
            self.sync_blobs()?;
            // `tx drop` is the repair of a tx refused after a restart.
            self.mark_synced(true)
        })();
        done.map_err(|e| io_err(ctx, &e))?;
        self.index = index;
        self.ops = keep.into();
        self.restamp().map_err(|e| io_err(ctx, &e))?;
        Ok(dropped)
    }

    /// Replaces the whole write set and ops log with those of `scratch` (rebase):
    /// its blobs, then a new ops generation, then the index that names it.
    pub fn replace(&mut self, ctx: &Ctx, scratch: &Tx) -> Result<(), Box<StoreError>> {
        let (paths, ops) = (scratch.index.paths.clone(), scratch.ops.to_vec());
        let old = self.index.generation;
        let index = Index {
            last_op: ops.last().map(|r| r.tx_op).unwrap_or(0),
            generation: old + 1,
            paths,
        };
        let done = (|| -> io::Result<()> {
            // The blobs the new ops name (staged without syncs) first.
            self.adopt_blobs(scratch)?;
            self.sync_blobs()?;
            self.save_ops(index.generation, &ops)?;
            write_atomic(&self.dir, "index.json", &to_json(&index)?)?;
            let _ = std::fs::remove_file(self.dir.join(ops_name(old)));
            self.mark_synced(false)
        })();
        done.map_err(|e| io_err(ctx, &e))?;
        self.index = index;
        self.ops = ops.into();
        self.restamp().map_err(|e| io_err(ctx, &e))
    }

    /// The stamp of the files as just rewritten whole (drop, rebase): the next
    /// append goes after the whole new log.
    fn restamp(&mut self) -> io::Result<()> {
        let ops = std::fs::metadata(self.dir.join(ops_name(self.index.generation)))?;
        self.stamp = model::Stamp {
            index: model::FileId::of(&std::fs::metadata(self.dir.join("index.json"))?),
            ops: Some(model::FileId::of(&ops)),
            ops_valid: ops.len(),
            unreadable: None,
        };
        Ok(())
    }

    /// How this op may stage: `true` (no syncs) once the tx's `unsynced` marker
    /// names this boot, writing it (durably) first when it is missing; `false`
    /// (every file synced, as before) where the boot id cannot be read. Refuses a
    /// tx staged without syncs before a restart (`damaged`).
    fn quick(&self, ctx: &Ctx) -> Result<bool, Box<StoreError>> {
        // One read of each per staged op (this runs on every `--tx` write).
        self.check_log()?;
        let marker = read_marker(&self.dir);
        let boot = boot_id();
        self.refuse_other_boot(marker.as_deref(), boot.as_deref())?;
        let Some(boot) = boot else {
            return Ok(false);
        };
        if marker.is_none() {
            write_atomic(&self.dir, UNSYNCED, boot.as_bytes()).map_err(|e| io_err(ctx, &e))?;
        }
        Ok(true)
    }

    /// After the whole tx was rewritten durably (drop, rebase): no `unsynced`
    /// marker. Only `drop` (`any_boot`) clears one an earlier boot left, so a tx
    /// refused after a restart is usable again once the caller chose what to keep.
    fn mark_synced(&self, any_boot: bool) -> io::Result<()> {
        if !any_boot && read_marker(&self.dir).is_some_and(|m| Some(m) != boot_id()) {
            return Ok(());
        }
        match std::fs::remove_file(self.dir.join(UNSYNCED)) {
            Ok(()) => fsx::sync_dir(&self.dir),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Refuses a tx some of whose ops were staged without syncs in an earlier boot:
    /// a power loss then may have lost or damaged them.
    pub(super) fn check_synced(&self) -> Result<(), Box<StoreError>> {
        self.check_log()?;
        self.refuse_other_boot(read_marker(&self.dir).as_deref(), boot_id().as_deref())
    }

    /// Refuses a tx whose ops log holds a whole line that is not a record
    /// (`Stamp::unreadable`): staging past it would cut it off as a torn one,
    /// and a commit would leave out the ops from there on without a word.
    pub(super) fn check_log(&self) -> Result<(), Box<StoreError>> {
        match self.stamp.unreadable {
            Some((line, op)) => Err(Box::new(crate::store::error::StoreError::TxLogUnreadable {
                id: self.id.clone(),
                log: ops_name(self.index.generation),
                line,
                op,
                droppable: op > self.index.last_op,
            })),
            None => Ok(()),
        }
    }

    /// Whether the `unsynced` marker names a boot other than this one.
    fn other_boot(&self) -> bool {
        read_marker(&self.dir).is_some_and(|m| Some(m) != boot_id())
    }

    /// `damaged` when the `marker` names a boot other than this one (`boot`).
    fn refuse_other_boot(
        &self,
        marker: Option<&str>,
        boot: Option<&str>,
    ) -> Result<(), Box<StoreError>> {
        match marker {
            Some(m) if Some(m) != boot => Err(damaged(&self.id, self.index.last_op.max(1))),
            _ => Ok(()),
        }
    }

    /// The paths whose staged state differs from the base, sorted.
    pub fn changed_paths(&self) -> Vec<String> {
        self.index
            .paths
            .iter()
            .filter(|(_, e)| e.base != e.staged)
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// The changes that take the tree from the bases to the staged states:
    /// removals deepest first, then creations and modifications shallowest first.
    pub fn changes(&self, ctx: &Ctx) -> Result<Vec<Change>, Box<StoreError>> {
        self.check_synced()?;
        let mut removals: Vec<Change> = Vec::new();
        let mut puts: Vec<Change> = Vec::new();
        let abs = |rel: &str| ctx.root.join(rel);
        for (rel, e) in &self.index.paths {
            let (b, s) = (&e.base, &e.staged);
            if b == s {
                continue;
            }
            let p = abs(rel);
            let replaces_kind = !b.is_missing() && b.kind != s.kind;
            if s.is_missing() || replaces_kind || (b.kind == "symlink" && s.kind != "symlink") {
                removals.push(Change::Delete { path: p.clone() });
            }
            match s.kind.as_str() {
                "file" => {
                    let same_bytes = b.kind == "file" && b.hash == s.hash;
                    if !same_bytes {
                        let h = s.hash.clone().unwrap_or_default();
                        // Checked against its name: staged blobs are not
                        // re-read anywhere else before they reach the tree.
                        let bytes = self.blob_verified(&h).map_err(|er| io_err(ctx, &er))?;
                        puts.push(Change::Put {
                            path: p.clone(),
                            bytes,
                            mode: s.mode,
                        });
                    } else if let Some(m) = s.mode.filter(|m| Some(*m) != b.mode) {
                        puts.push(Change::Chmod {
                            path: p.clone(),
                            mode: m,
                        });
                    }
                    if let Some(t) = s.mtime.filter(|t| Some(*t) != b.mtime) {
                        puts.push(Change::Touch { path: p, mtime: t });
                    }
                }
                "dir" => {
                    if b.kind != "dir" {
                        puts.push(Change::Mkdir { path: p.clone() });
                    }
                    if let Some(m) = s.mode.filter(|m| Some(*m) != b.mode) {
                        puts.push(Change::Chmod { path: p, mode: m });
                    }
                }
                "symlink" => puts.push(Change::Symlink {
                    path: p,
                    target: s.target.clone().unwrap_or_default(),
                }),
                _ => {}
            }
        }
        // Deepest first: a child sorts after its parent, so reverse path order.
        removals.reverse();
        removals.extend(puts);
        Ok(removals)
    }
}

/// The marker of a tx staged without syncs: the boot id (Linux's
/// `/proc/sys/kernel/random/boot_id`) of the boot that did so, written and synced
/// before the first such op. It is what makes skipping the syncs safe: a kill
/// loses nothing (page cache survives it; each file is renamed into place whole),
/// and after a power loss the boot id differs, so the tx is refused as possibly
/// damaged instead of committed short of an op. Removed with the tx, or by a drop or
/// a rebase in the same boot (which rewrite the tx durably); only `tx drop` clears
/// one an earlier boot left.
const UNSYNCED: &str = "unsynced";

fn boot_id() -> Option<String> {
    let s = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn read_marker(dir: &Path) -> Option<String> {
    let s = std::fs::read_to_string(dir.join(UNSYNCED)).ok()?;
    Some(s.trim().to_string())
}

/// Records a single-file read in the tx `id`: the file's disk hash now (null
/// when missing). Under the tx's lock, with `reads.json` the only file read.
pub fn record_read(ctx: &Ctx, id: &str, rel: &str) -> Result<(), Box<StoreError>> {
    if !is_tx_id(id) {
        return Err(not_found(ctx, id));
    }
    let dir = home(ctx, &state_dir::for_root(&ctx.root)).join(id);
    if !dir.join("index.json").exists() {
        return Err(not_found(ctx, id));
    }
    let _lock = lock::acquire_file(ctx, &dir.join("lock"), "the transaction lock")?;
    let mut reads: BTreeMap<String, Option<String>> = match read_json(&dir.join("reads.json")) {
        Ok(r) => r,
        Err(e) if e.kind() == io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => return Err(io_err(ctx, &e)),
    };
    let now = disk_state(ctx, rel).map_err(|e| io_err(ctx, &e))?;
    let h = file_hash(&now);
    if reads.get(rel) == Some(&h) {
        return Ok(());
    }
    reads.insert(rel.to_string(), h);
    let bytes = to_json(&reads).map_err(|e| io_err(ctx, &e))?;
    write_atomic(&dir, "reads.json", &bytes).map_err(|e| io_err(ctx, &e))
}

/// Each of `paths`' entry in `index` (an op's `after`).
fn after_entries(index: &Index, paths: &[String]) -> Vec<Prior> {
    paths
        .iter()
        .map(|p| Prior {
            path: p.clone(),
            entry: index.paths.get(p).cloned(),
        })
        .collect()
}

fn ops_text(ops: &[OpRecord]) -> io::Result<Vec<u8>> {
    let mut text = Vec::new();
    for r in ops {
        text.extend(to_json(r)?);
        text.push(b'\n');
    }
    Ok(text)
}

/// A tx staged without syncs before the machine restarted.
fn damaged(id: &str, last: u64) -> Box<StoreError> {
    Box::new(crate::store::error::StoreError::TxUnsynced {
        id: id.to_string(),
        last,
    })
}
