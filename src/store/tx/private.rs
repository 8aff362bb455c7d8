//! The tx's own blobs: `<tx>/blobs/<hash>`, the bytes of the file states its ops
//! staged. They are private to the tx (nothing else trusts them), so an op staged
//! without syncs (`Quick`) writes them without fsync: a kill leaves a blob whole or
//! absent (temp, then rename), and a power loss is caught by the `unsynced` marker
//! (the tx is refused; `tx drop` checks the blobs it keeps against their hashes).
//! The commit checks each against its hash, then moves them into the shared
//! `blobs/` (synced together, before they are named there), where the journal
//! keeps the after-states as before. Removed with the tx (commit, abort).

use super::*;
use std::path::PathBuf;

/// `<tx dir>/blobs`.
pub(super) fn dir(tx_dir: &Path) -> PathBuf {
    tx_dir.join("blobs")
}

fn is_hash(h: &str) -> bool {
    h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Tx {
    /// Where the bytes of the staged state `hash` are: the tx's own blob, else (a
    /// rebase's scratch tx) the rebased tx's, else the shared `blobs/` (a blob that
    /// was there already when the op staged, or one a commit already moved there).
    pub fn blob_path(&self, hash: &str) -> PathBuf {
        if is_hash(hash) {
            let own = dir(&self.dir).join(hash);
            if fsx::exists_nofollow(&own) {
                return own;
            }
            if let Some(of) = self.meta.scratch_for.as_deref().filter(|s| is_tx_id(s)) {
                let theirs = dir(&root_dir(&self.state).join(of)).join(hash);
                if fsx::exists_nofollow(&theirs) {
                    return theirs;
                }
            }
        }
        blobs::path(&self.state, hash)
    }

    /// Whether the staged state `hash` has its bytes already (an op need not write them).
    pub fn has_blob(&self, hash: &str) -> bool {
        fsx::exists_nofollow(&self.blob_path(hash))
    }

    /// The bytes of a staged file state.
    pub fn blob(&self, hash: &str) -> io::Result<Vec<u8>> {
        let mut f = fsx::open_read_nofollow(&self.blob_path(hash))?;
        let mut out = Vec::new();
        io::Read::read_to_end(&mut f, &mut out)?;
        Ok(out)
    }

    /// The bytes of a staged file state, checked against its name (`InvalidData`
    /// when they do not hash to it).
    pub(super) fn blob_verified(&self, hash: &str) -> io::Result<Vec<u8>> {
        let bytes = self.blob(hash)?;
        if sha256_hex(&bytes) != hash {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the staged blob {hash} no longer holds the bytes its name is the hash of"),
            ));
        }
        Ok(bytes)
    }

    /// Writes an op's blobs into the tx's own `blobs/` (each by temp and rename).
    /// `sync`: each is fsynced before its rename and the directory after (a tx
    /// staged without the `unsynced` marker).
    pub(super) fn put_blobs(
        &self,
        contents: &BTreeMap<String, Vec<u8>>,
        sync: bool,
    ) -> io::Result<()> {
        if contents.is_empty() {
            return Ok(());
        }
        let d = dir(&self.dir);
        if fsx::ensure_private_dir(&d)? && sync {
            fsx::sync_dir(&self.dir)?;
        }
        for (hash, bytes) in contents {
            if !is_hash(hash) {
                return Err(io::Error::other(format!("{hash} is not a blob name")));
            }
            fsx::replace_file(&d, hash, &format!(".{hash}.tmp"), bytes, 0o600, false)?;
        }
        if sync {
            let written: Vec<PathBuf> = contents.keys().map(|h| d.join(h)).collect();
            fsx::sync_files(&written)?;
            fsx::sync_dir(&d)?;
        }
        Ok(())
    }

    /// Makes every blob in the tx's own `blobs/` durable (before the `unsynced`
    /// marker goes: drop, rebase).
    pub(super) fn sync_blobs(&self) -> io::Result<()> {
        let d = dir(&self.dir);
        let names = own_blobs(&d)?;
        if names.is_empty() {
            return Ok(());
        }
        let paths: Vec<PathBuf> = names.iter().map(|n| d.join(n)).collect();
        fsx::sync_files(&paths)?;
        fsx::sync_dir(&d)?;
        fsx::sync_dir(&self.dir)
    }

    /// Moves the blobs of `scratch` (a rebase's scratch tx) into this tx's own
    /// `blobs/`; a kill leaves each in one of them (the scratch is swept).
    pub(super) fn adopt_blobs(&self, scratch: &Tx) -> io::Result<()> {
        let from = dir(&scratch.dir);
        let names = own_blobs(&from)?;
        if names.is_empty() {
            return Ok(());
        }
        let to = dir(&self.dir);
        fsx::ensure_private_dir(&to)?;
        for n in names {
            if !fsx::exists_nofollow(&to.join(&n)) {
                std::fs::rename(from.join(&n), to.join(&n))?;
            }
        }
        Ok(())
    }

    /// The commit's first step: each of `hashes` (staged file states, already
    /// checked against their hashes) that only this tx holds is moved into the
    /// shared `blobs/`, all synced together before any is named there (the journal
    /// takes a named blob as sound). A kill leaves each blob in one place or the
    /// other, and `blob_path` finds it in either.
    pub(super) fn publish_blobs(&self, hashes: &[String]) -> io::Result<()> {
        let d = dir(&self.dir);
        let mut moving = Vec::new();
        // Each hash once (a set of names: comparing paths cost ~70% of this step).
        let mut seen = std::collections::BTreeSet::new();
        for h in hashes {
            if !is_hash(h) || !seen.insert(h.as_str()) {
                continue;
            }
            let own = d.join(h);
            if fsx::exists_nofollow(&own) && !blobs::exists(&self.state, h) {
                moving.push(own);
            }
        }
        if moving.is_empty() {
            return Ok(());
        }
        fsx::sync_files(&moving)?;
        for p in &moving {
            if let Some(name) = p.file_name() {
                std::fs::rename(p, blobs::dir(&self.state).join(name))?;
            }
        }
        fsx::sync_dir(&blobs::dir(&self.state))
    }

    /// After a restart (the `unsynced` marker names another boot): the first op
    /// among those kept (`tx_op < keep_below`) whose staged bytes are lost or
    /// damaged, if any.
    pub(super) fn first_damaged(&self, keep_below: u64) -> Option<u64> {
        for (k, r) in self.ops.iter().enumerate() {
            if r.tx_op >= keep_below {
                break;
            }
            for p in &r.paths {
                let Some(e) = self.entry_after(k, p) else {
                    continue;
                };
                let Some(h) = e.staged.hash.as_deref().filter(|_| e.staged.kind == "file") else {
                    continue;
                };
                if self.blob_verified(h).is_err() {
                    return Some(r.tx_op);
                }
            }
        }
        None
    }
}

/// The blob names in a tx's `blobs/` (temps apart; none when it is missing).
fn own_blobs(d: &Path) -> io::Result<Vec<String>> {
    crate::store::fsx::names_where(d, is_hash)
}
