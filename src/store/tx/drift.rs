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
    pub fn lock(&self, ctx: &Ctx) -> Result<Lock, CmdError> {
        lock::acquire_file(ctx, &self.dir.join("lock"), "the transaction lock")
    }

    /// Written paths whose file changed outside the tx since it first touched them.
    pub fn drift(&self, ctx: &Ctx) -> Result<Vec<Conflict>, CmdError> {
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
    pub(super) fn unknown_entries(&self, ctx: &Ctx, rel: &str) -> Result<Vec<String>, CmdError> {
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
    pub fn stale_reads(&self, ctx: &Ctx) -> Result<Vec<Conflict>, CmdError> {
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
pub fn conflict_error(id: &str, conflicts: &[Conflict]) -> CmdError {
    let writes = conflicts.iter().filter(|c| c.kind == "write").count();
    let first_read = conflicts.iter().find(|c| c.kind == "read");
    let mut repairs: Vec<Repair> = Vec::new();
    if writes > 0 {
        repairs.push(Repair::new(
            "rebase",
            "Re-apply the tx's content-based operations onto the current files.",
            shell::aitools(["tx", "rebase", id]),
        ));
    }
    if let Some(r) = first_read {
        repairs.push(Repair::new(
            "reread",
            "Read the changed file again through the tx to refresh the read set.",
            shell::aitools(["read", &r.path, "--tx", id]),
        ));
        repairs.push(Repair::new(
            "ignore-stale-reads",
            "Commit even though files read through the tx have changed.",
            shell::aitools(["tx", "commit", id, "--ignore-stale-reads"]),
        ));
    }
    repairs.push(Repair::new(
        "status",
        "See the tx's operations, drift and stale reads.",
        shell::aitools(["tx", "status", id]),
    ));
    let mut it = repairs.into_iter();
    let first = it.next().unwrap_or_else(|| {
        Repair::new(
            "status",
            "See the tx.",
            shell::aitools(["tx", "status", id]),
        )
    });
    let mut err = CmdError::new(
        code::TARGET_CHANGED,
        format!(
            "{} path(s) changed outside tx {id}; nothing was written.",
            {
                // A path both written and read is one path, listed once per kind.
                let mut paths: Vec<&str> = conflicts.iter().map(|c| c.path.as_str()).collect();
                paths.sort_unstable();
                paths.dedup();
                paths.len()
            }
        ),
        first,
    );
    for r in it {
        err = err.with_repair(r);
    }
    err.with_conflicts(Json::from_serialize(&conflicts))
}
