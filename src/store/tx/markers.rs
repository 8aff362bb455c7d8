//! The `committing` marker: whether a commit killed midway reached the journal.

use super::*;

/// A commit marker found: decide, under the workspace lock (recovery has finished
/// any write a killed commit left), whether the commit reached the journal.
pub(super) fn settle_commit(ctx: &Ctx, state: &Path, dir: &Path) -> Result<(), Box<StoreError>> {
    let _lock = lock::acquire(ctx, state)?;
    match super::recovery::recover_locked(ctx, state) {
        Ok(_) => {}
        // A write still pending leaves the question open: the marker stays for a
        // later open, reads go on with the tx as staged, and writes refuse anyway.
        Err(e) if matches!(*e, StoreError::RecoveryPending { .. }) => return Ok(()),
        Err(e) => return Err(e),
    }
    let marker = dir.join("committing");
    let Ok(text) = std::fs::read_to_string(&marker) else {
        return Ok(());
    };
    let id = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut words = text.split_whitespace();
    let seq: Option<u64> = words.next().and_then(|w| w.parse().ok());
    let op_id = words.next();
    let done = match seq {
        Some(seq) => journal_has_commit(state, seq, &id, op_id).map_err(|e| io_err(ctx, &e))?,
        None => false,
    };
    if done {
        remove_dir(state, dir, &id).map_err(|e| io_err(ctx, &e))?;
    } else {
        std::fs::remove_file(&marker).map_err(|e| io_err(ctx, &e))?;
        fsx::sync_dir(dir).map_err(|e| io_err(ctx, &e))?;
    }
    Ok(())
}

/// Whether the journal's line `seq` is the commit: the op the marker names, or
/// (a marker from before op ids were recorded) an op whose argv names the tx.
pub(super) fn journal_has_commit(
    state: &Path,
    seq: u64,
    id: &str,
    op_id: Option<&str>,
) -> io::Result<bool> {
    let Some(mut lines) = journal::ReverseLines::open(state)? else {
        return Ok(false);
    };
    while let Some(line) = lines.next_line()? {
        let Ok(e) = serde_json::from_str::<journal::Entry>(&line) else {
            continue;
        };
        if e.seq < seq {
            return Ok(false);
        }
        if e.seq == seq {
            return Ok(match op_id {
                Some(op) => e.op_id == op,
                None => e.argv.iter().any(|a| a == id),
            });
        }
    }
    Ok(false)
}

/// Renames the tx directory away (atomic: the tx is gone), then deletes it.
pub(super) fn remove_dir(state: &Path, dir: &Path, id: &str) -> io::Result<()> {
    // The tx's own parent: `<state>/tx/`, or a dry run's private directory.
    let home = dir
        .parent()
        .map_or_else(|| root_dir(state), Path::to_path_buf);
    let gone = home.join(format!(".done-{id}"));
    let _ = std::fs::remove_dir_all(&gone);
    std::fs::rename(dir, &gone)?;
    fsx::sync_dir(&home)?;
    let _ = std::fs::remove_dir_all(&gone);
    Ok(())
}
