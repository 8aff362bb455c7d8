//! Retention and collection of `blobs/`: the policy (the newest
//! `KEEP_GENERATIONS` ops touching each path always stay undoable; older ops are
//! collected, oldest first, only while the blobs exceed the size budget), the
//! record of collected ops (`journal/collected`, seq ranges), the running usage
//! counter (`usage`) that makes the automatic check cheap, and the collection
//! itself.
//!
//! Crash safety: collection runs under the workspace lock, writes the new
//! collected set (temp, fsync, rename, fsync) before it unlinks anything, and
//! unlinks only blobs that no kept journal entry, open tx or pending intent record
//! names. A kill at any point leaves every kept op undoable; blobs it did not get
//! to are removed by the next collection.

use super::journal::{self, Entry};
use super::tx::model as tx;
use super::{blobs, fsx, intent, pack};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Ops per path that are never collected, newest first.
pub const KEEP_GENERATIONS: usize = 20;
pub use super::session::{BUDGET_ENV, DEFAULT_BUDGET};

/// Seq ranges (inclusive) of collected ops.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Collected {
    ranges: Vec<(u64, u64)>,
}

impl Collected {
    pub fn contains(&self, seq: u64) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= seq && seq <= b)
    }

    fn insert(&mut self, seq: u64) {
        if self.contains(seq) {
            return;
        }
        self.ranges.push((seq, seq));
        self.ranges.sort();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.ranges.len());
        for &(a, b) in &self.ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        self.ranges = merged;
    }

    fn text(&self) -> String {
        self.ranges
            .iter()
            .map(|(a, b)| format!("{a}-{b}\n"))
            .collect()
    }
}

fn collected_path(state: &Path) -> PathBuf {
    journal::dir(state).join("collected")
}

/// The collected ops (none when the file is missing).
pub fn collected(state: &Path) -> io::Result<Collected> {
    let text = match std::fs::read_to_string(collected_path(state)) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Collected::default()),
        Err(e) => return Err(e),
    };
    let ranges = text
        .lines()
        .filter_map(|l| {
            let (a, b) = l.split_once('-')?;
            Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
        })
        .collect();
    Ok(Collected { ranges })
}

/// Whether the op `seq` was collected (its blobs may be gone).
pub fn is_collected(state: &Path, seq: u64) -> bool {
    collected(state).is_ok_and(|c| c.contains(seq))
}

/// Replaces `dir/name` durably: temp file, fsync, rename, fsync of `dir`.
fn replace_file(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let _ = std::fs::remove_file(&tmp);
    fsx::write_new_synced(&tmp, bytes, 0o600)?;
    std::fs::rename(&tmp, dir.join(name))?;
    fsx::sync_dir(dir)
}

/// `usage`: the blob bytes as last counted and at the last collection.
fn usage_path(state: &Path) -> PathBuf {
    state.join("usage")
}

fn read_usage(state: &Path) -> Option<(u64, u64)> {
    let text = fsx::read_regular_to_string(&usage_path(state)).ok()?;
    let mut w = text.split_whitespace().map(|n| n.parse::<u64>().ok());
    Some((w.next()??, w.next()??))
}

/// The counter is an estimate that collection recounts: not fsynced, and a torn
/// or lost update only delays the next check.
fn write_usage(state: &Path, now: u64, at_last_gc: u64) {
    let tmp = state.join(".usage.tmp");
    let _ = std::fs::remove_file(&tmp);
    let written = fsx::create_new(&tmp, 0o600)
        .and_then(|mut f| f.write_all(format!("{now} {at_last_gc}\n").as_bytes()));
    if written.is_ok() {
        let _ = std::fs::rename(&tmp, usage_path(state));
    }
}

/// Every blob on disk: name → size (temp files, named with a leading dot, apart).
fn blob_sizes(state: &Path) -> io::Result<(BTreeMap<String, u64>, Vec<PathBuf>)> {
    let mut sizes = BTreeMap::new();
    let mut temps = Vec::new();
    let rd = match std::fs::read_dir(blobs::dir(state)) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((sizes, temps)),
        Err(e) => return Err(e),
    };
    for e in rd {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            temps.push(e.path());
            continue;
        }
        // `packs/` (see `packs_on_disk`).
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let len = e.metadata().map(|m| m.len()).unwrap_or(0);
        sizes.insert(name, len);
    }
    Ok((sizes, temps))
}

/// A pack on disk: its name, size and the distinct blobs it holds.
struct PackOnDisk {
    name: String,
    len: u64,
    hashes: Vec<String>,
}

/// Every pack whose index reads (one that does not is kept: nothing says what
/// it holds).
fn packs_on_disk(state: &Path) -> io::Result<Vec<PackOnDisk>> {
    let mut out = Vec::new();
    for name in pack::names(state)? {
        let p = pack::path(state, &name);
        let Ok(items) = pack::items(&p) else {
            continue;
        };
        let len = std::fs::symlink_metadata(&p).map(|m| m.len()).unwrap_or(0);
        let mut hashes: Vec<String> = items.into_iter().map(|i| i.hash).collect();
        hashes.sort_unstable();
        hashes.dedup();
        out.push(PackOnDisk { name, len, hashes });
    }
    Ok(out)
}

/// Every 64-hex token in the files under `dir` (open txs, pending intent records):
/// those blobs are pinned whatever the journal says.
fn pinned_in(dir: &Path, out: &mut BTreeSet<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        match e.file_type() {
            // A tx's own `blobs/` holds bytes, not names.
            Ok(t) if t.is_dir() && e.file_name() != "blobs" => pinned_in(&p, out),
            Ok(t) if t.is_file() => {
                if let Ok(bytes) = std::fs::read(&p) {
                    hex_tokens(&bytes, out);
                }
            }
            _ => {}
        }
    }
}

fn hex_tokens(bytes: &[u8], out: &mut BTreeSet<String>) {
    let is_hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
    let mut i = 0;
    while i < bytes.len() {
        if !is_hex(&bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_hex(&bytes[i]) {
            i += 1;
        }
        if i - start == 64 {
            out.insert(String::from_utf8_lossy(&bytes[start..i]).into_owned());
        }
    }
}

/// The blob hashes an op names (before and after states, appended tails).
pub(super) fn hashes(e: &Entry) -> Vec<&str> {
    let mut out = Vec::new();
    for c in &e.changes {
        for s in [Some(&c.before), Some(&c.after), c.from_before.as_ref()]
            .into_iter()
            .flatten()
        {
            if let Some(h) = &s.hash {
                out.push(h.as_str());
            }
        }
    }
    for a in &e.appends {
        out.push(a.hash.as_str());
    }
    out
}

/// Which ops are among the newest `KEEP_GENERATIONS` of some path they touched.
fn protected(entries: &[Entry]) -> BTreeSet<u64> {
    let mut per_path: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    for e in entries.iter().rev() {
        for p in e.paths() {
            let n = per_path.entry(p).or_insert(0);
            if *n < KEEP_GENERATIONS {
                out.insert(e.seq);
            }
            *n += 1;
        }
    }
    out
}

/// What a collection did (or, dry, would do).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Report {
    /// Ops newly collected (undo of them now refuses).
    pub ops_collected: u64,
    /// Blob files removed (unreferenced ones included).
    pub blobs_removed: u64,
    pub bytes_freed: u64,
    /// Blob bytes before and after.
    pub bytes_before: u64,
    pub bytes_after: u64,
    pub budget: u64,
}

/// Collects, under the workspace lock (the caller holds it, with recovery run):
/// blobs nothing names are removed; while the rest exceed `target` bytes, the
/// oldest unprotected ops are collected and the blobs only they named removed.
pub fn collect(state: &Path, budget: u64, target: u64, dry_run: bool) -> io::Result<Report> {
    let entries = journal::read_all(state)?;
    let mut done = collected(state)?;
    let keep = protected(&entries);
    let mut pinned = BTreeSet::new();
    pinned_in(&tx::root_dir(state), &mut pinned);
    pinned_in(&intent::dir(state), &mut pinned);
    let mut refs = live_refs(&entries, &done);
    let (sizes, temps) = blob_sizes(state)?;
    let packs = packs_on_disk(state)?;
    let total: u64 = sizes.values().sum::<u64>() + packs.iter().map(|p| p.len).sum::<u64>();
    let mut remove: Vec<String> = Vec::new();
    let mut freed = 0u64;
    // A pack goes when no blob it holds is named any more, or kept loose too
    // (`live` counts the others; reads take a loose blob first).
    let needed = |h: &str, refs: &HashMap<&str, usize>| {
        !sizes.contains_key(h) && (pinned.contains(h) || refs.get(h).copied().unwrap_or(0) > 0)
    };
    let mut live: Vec<usize> = packs
        .iter()
        .map(|p| p.hashes.iter().filter(|h| needed(h, &refs)).count())
        .collect();
    let mut in_packs: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, p) in packs.iter().enumerate() {
        for h in &p.hashes {
            in_packs.entry(h.as_str()).or_default().push(i);
        }
    }
    let mut remove_packs: Vec<usize> = (0..packs.len()).filter(|&i| live[i] == 0).collect();
    freed += remove_packs.iter().map(|&i| packs[i].len).sum::<u64>();
    let free = |h: &str, remove: &mut Vec<String>, freed: &mut u64| {
        if pinned.contains(h) {
            return;
        }
        if let Some(len) = sizes.get(h) {
            remove.push(h.to_string());
            *freed += len;
        }
    };
    for h in sizes.keys() {
        if refs.get(h.as_str()).copied().unwrap_or(0) == 0 {
            free(h, &mut remove, &mut freed);
        }
    }
    let mut newly = 0u64;
    for e in &entries {
        if total - freed <= target {
            break;
        }
        if keep.contains(&e.seq) || done.contains(e.seq) {
            continue;
        }
        done.insert(e.seq);
        newly += 1;
        for h in hashes(e) {
            if let Some(n) = refs.get_mut(h) {
                *n -= 1;
                if *n == 0 {
                    free(h, &mut remove, &mut freed);
                    for &i in in_packs.get(h).map_or(&[][..], |v| v.as_slice()) {
                        if pinned.contains(h) || sizes.contains_key(h) {
                            break;
                        }
                        live[i] -= 1;
                        if live[i] == 0 {
                            remove_packs.push(i);
                            freed += packs[i].len;
                        }
                    }
                }
            }
        }
    }
    let report = Report {
        ops_collected: newly,
        blobs_removed: (remove.len() + remove_packs.len()) as u64,
        bytes_freed: freed,
        bytes_before: total,
        bytes_after: total - freed,
        budget,
    };
    if dry_run {
        return Ok(report);
    }
    let removal = Removal {
        journal: (newly > 0).then(|| done.text()),
        blobs: remove,
        packs: remove_packs
            .iter()
            .map(|&i| pack::path(state, &packs[i].name))
            .collect(),
        temps,
    };
    removal.carry_out(state)?;
    write_usage(state, report.bytes_after, report.bytes_after);
    Ok(report)
}

/// How many ops not yet collected name each blob.
fn live_refs<'e>(entries: &'e [journal::Entry], done: &Collected) -> HashMap<&'e str, usize> {
    let mut refs: HashMap<&str, usize> = HashMap::new();
    for e in entries.iter().filter(|e| !done.contains(e.seq)) {
        for h in hashes(e) {
            *refs.entry(h).or_insert(0) += 1;
        }
    }
    refs
}

/// What a collection removes once planned: the journal's new `collected` text
/// (when ops were collected), loose blobs, packs, and leftover temp files.
struct Removal {
    journal: Option<String>,
    blobs: Vec<String>,
    packs: Vec<PathBuf>,
    temps: Vec<PathBuf>,
}

impl Removal {
    fn carry_out(&self, state: &Path) -> io::Result<()> {
        if let Some(text) = &self.journal {
            replace_file(&journal::dir(state), "collected", text.as_bytes())?;
        }
        let dir = blobs::dir(state);
        for path in self
            .blobs
            .iter()
            .map(|name| dir.join(name))
            .chain(self.packs.iter().cloned())
        {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        if !self.packs.is_empty() {
            fsx::sync_dir(&pack::dir(state))?;
        }
        // Under the lock no write or tx op is preparing blobs: a temp file is a leftover.
        for t in &self.temps {
            let _ = std::fs::remove_file(t);
        }
        if !self.blobs.is_empty() || !self.temps.is_empty() {
            fsx::sync_dir(&dir)?;
        }
        Ok(())
    }
}

/// The low-water mark automatic collection aims for, so it does not run again
/// after the next write.
pub fn low_water(budget: u64) -> u64 {
    budget / 4 * 3
}

/// After a committed write, under its lock: counts the blob bytes it added and
/// collects when the blobs are over budget and have grown by a sixteenth of it
/// since the last collection (a store whose protected generations alone exceed
/// the budget is not re-walked on every write). Never fails the write. `fresh`:
/// this op made `blobs/`, so with no counter yet nothing was stored before it.
pub fn after_write(state: &Path, added: u64, budget: u64, fresh: bool) {
    let stored = read_usage(state).or(fresh.then_some((0, 0)));
    let (now, last) = match stored {
        Some((n, l)) => (n.saturating_add(added), l),
        None => match blob_sizes(state) {
            Ok((sizes, _)) => {
                let packed: u64 = packs_on_disk(state).map_or(0, |p| p.iter().map(|p| p.len).sum());
                (sizes.values().sum::<u64>() + packed, 0)
            }
            Err(_) => return,
        },
    };
    let b = budget;
    if now > b && now.saturating_sub(last) >= (b / 16).max(1) {
        if collect(state, b, low_water(b), false).is_err() {
            write_usage(state, now, now);
        }
        return;
    }
    // Written only when it changes: not when no blob was added, nor when there is
    // none and no blob (recounting an empty `blobs/` costs less than the file).
    if (added == 0 && stored.is_some()) || (stored.is_none() && now == 0) {
        return;
    }
    write_usage(state, now, last);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collected_ranges_merge_and_round_trip() {
        let mut c = Collected::default();
        for s in [5, 1, 2, 3, 9, 4] {
            c.insert(s);
        }
        assert_eq!(c.text(), "1-5\n9-9\n");
        assert!(c.contains(3) && c.contains(9) && !c.contains(6) && !c.contains(0));
    }

    #[test]
    fn hex_tokens_take_whole_64_digit_runs_only() {
        let h = "a".repeat(64);
        let text = format!("{{\"hash\":\"{h}\",\"x\":\"{}\"}}", "b".repeat(65));
        let mut out = BTreeSet::new();
        hex_tokens(text.as_bytes(), &mut out);
        assert_eq!(out.into_iter().collect::<Vec<_>>(), vec![h]);
    }
}
