//! `tx commit`, `discard` and `abort`.

use super::*;

/// `tx commit`: checks the write and read sets, then writes every staged path
/// through the write protocol as one journal op and removes the tx.
/// `max_diff_lines` is the diff shown when the call gave no `--max-diff-lines`.
pub fn commit(
    ctx: &Ctx,
    id: &str,
    ignore_stale_reads: bool,
    max_diff_lines: usize,
    dry_run: bool,
) -> Result<Committed, CmdError> {
    let state = state_dir::ensure(&ctx.root).map_err(|e| io_err(ctx, &e))?;
    let _wlock = lock::acquire(ctx, &state)?;
    super::recovery::recover_locked(ctx, &state)?;
    let tx = open(ctx, id)?;
    let _tlock = tx.lock(ctx)?;
    let tx = open(ctx, id)?;
    let mut conflicts = tx.drift(ctx)?;
    if !ignore_stale_reads {
        conflicts.extend(tx.stale_reads(ctx)?);
    }
    if !conflicts.is_empty() {
        return Err(conflict_error(id, &conflicts));
    }
    let changes = tx.changes(ctx)?;
    let mut plain = ctx.clone();
    plain.tx = None;
    let more = MoreOptions {
        undoes: None,
        max_diff_lines: Some(max_diff_lines),
    };
    if dry_run {
        return write::run_with(&plain, &WriteOptions { dry_run: true }, &more, || {
            Ok(changes)
        });
    }
    // The marker names the journal op the commit will be: the command that
    // journals it may be `batch`, whose argv does not name the tx.
    let seq = journal::next_seq(&state).map_err(|e| io_err(ctx, &e))?;
    let op_id = journal::new_op_id(&state, seq, ctx.session.settings.seed.as_deref());
    let marker = (|| -> io::Result<()> {
        let mut f = fsx::create_new(&tx.dir.join("committing"), 0o600)?;
        f.write_all(format!("{seq} {op_id}\n").as_bytes())?;
        f.sync_all()?;
        fsx::sync_dir(&tx.dir)
    })();
    marker.map_err(|e| io_err(ctx, &e))?;
    let done = write::run_as(
        &plain,
        &WriteOptions::default(),
        &more,
        Some(&op_id),
        || Ok(changes),
    );
    match done {
        Ok(c) => {
            remove_dir(&state, &tx.dir, id).map_err(|e| io_err(ctx, &e))?;
            super::view::forget(ctx);
            Ok(c)
        }
        Err(e) => {
            let _ = std::fs::remove_file(tx.dir.join("committing"));
            Err(e)
        }
    }
}

/// Deletes a tx directory (the scratch of a rebase).
pub fn discard(ctx: &Ctx, id: &str) -> Result<(), CmdError> {
    let state = state_dir::for_root(&ctx.root);
    let dir = root_dir(&state).join(id);
    remove_dir(&state, &dir, id).map_err(|e| io_err(ctx, &e))?;
    super::view::forget(ctx);
    Ok(())
}

/// `tx abort`: deletes the tx; returns the paths it had staged.
pub fn abort(ctx: &Ctx, id: &str) -> Result<Vec<String>, CmdError> {
    let state = state_dir::ensure(&ctx.root).map_err(|e| io_err(ctx, &e))?;
    let _wlock = lock::acquire(ctx, &state)?;
    let tx = open(ctx, id)?;
    let _tlock = tx.lock(ctx)?;
    let paths = tx.changed_paths();
    remove_dir(&state, &tx.dir, id).map_err(|e| io_err(ctx, &e))?;
    super::view::forget(ctx);
    Ok(paths)
}
