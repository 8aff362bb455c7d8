//! Drift: staged paths and read paths whose file changed outside the tx.

use super::*;

/// The current state at a root-relative path (no final symlink followed).
pub fn disk_state(ctx: &Ctx, rel: &str) -> io::Result<State> {
    crate::store::current::state(&ctx.session.snapshots, &ctx.root.join(rel))
}

/// Whether two states differ for conflict purposes (content, kind, link target, mode).
pub fn differs(want: &State, now: &State) -> bool {
    if want.kind != now.kind {
        return true;
    }
    match want.kind.as_str() {
        "file" => want.hash != now.hash || (want.mode.is_some() && want.mode != now.mode),
        "symlink" => want.target != now.target,
        _ => false,
    }
}

/// A content hash for output: a file's hash, else null.
pub fn file_hash(s: &State) -> Option<String> {
    if s.kind == "file" {
        s.hash.clone()
    } else {
        None
    }
}

impl Tx {
    /// Serializes operations on this tx.
    pub fn lock(&self, ctx: &Ctx) -> Result<Lock, Box<StoreError>> {
        lock::acquire_file(ctx, &self.dir.join("lock"), "the transaction lock")
    }

    /// Written paths whose file changed outside the tx since it first touched them.
    pub fn drift(&self, ctx: &Ctx) -> Result<Vec<Conflict>, Box<StoreError>> {
        let mut out = Vec::new();
        for (rel, e) in &self.index.paths {
            let now = disk_state(ctx, rel).map_err(|er| io_err(ctx, &er))?;
            let unknown =
                if !differs(&e.base, &now) && e.base.kind == "dir" && e.staged.kind != "dir" {
                    self.unknown_entries(ctx, rel)?
                } else {
                    Vec::new()
                };
            if differs(&e.base, &now) || !unknown.is_empty() {
                out.push(Conflict {
                    path: rel.clone(),
                    kind: "write",
                    base: describe(&e.base),
                    current: describe(&now),
                    unknown_entries: unknown,
                });
            }
        }
        Ok(out)
    }

    /// Entries of the disk directory `rel` the tx has no entry for (added
    /// outside it after it staged the directory's removal), sorted.
    pub(super) fn unknown_entries(
        &self,
        ctx: &Ctx,
        rel: &str,
    ) -> Result<Vec<String>, Box<StoreError>> {
        let rd = match std::fs::read_dir(ctx.root.join(rel)) {
            Ok(rd) => rd,
            Err(_) => return Ok(Vec::new()),
        };
        let mut out = Vec::new();
        for d in rd {
            let d = d.map_err(|er| io_err(ctx, &er))?;
            let child = format!("{rel}/{}", d.file_name().to_string_lossy());
            if !self.index.paths.contains_key(&child) {
                out.push(child);
            }
        }
        out.sort();
        Ok(out)
    }

    /// Paths read through the tx whose file changed since.
    pub fn stale_reads(&self, ctx: &Ctx) -> Result<Vec<Conflict>, Box<StoreError>> {
        let mut out = Vec::new();
        for (rel, h) in &self.reads {
            let now = disk_state(ctx, rel).map_err(|er| io_err(ctx, &er))?;
            let cur = file_hash(&now);
            if cur != *h {
                out.push(Conflict {
                    path: rel.clone(),
                    kind: "read",
                    base: h.clone(),
                    current: cur,
                    unknown_entries: Vec::new(),
                });
            }
        }
        Ok(out)
    }
}

pub(super) fn describe(s: &State) -> Option<String> {
    match s.kind.as_str() {
        "missing" => None,
        "file" | "symlink" => s.hash.clone(),
        k => Some(k.to_string()),
    }
}

/// `refusal.target-changed` for a commit with conflicts.
pub fn conflict_error(id: &str, conflicts: &[Conflict]) -> Box<StoreError> {
    StoreError::TxConflicts {
        id: id.to_string(),
        conflicts: conflicts.to_vec(),
    }
    .into()
}
