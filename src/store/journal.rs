//! The operation journal: `journal/journal.jsonl`, one JSON line per committed op
//! (`seq` first, then op id, time, command, redacted argv, `undoes`, and each
//! change's before/after states), and `journal/ids/<op_id>` files holding
//! `seq offset length` so an op is found without reading the journal. The ids are
//! derived data: a missing or stale one is rebuilt from a scan.

use super::fsx;
use crate::protocol::time;
use crate::text::lines::sha256_hex;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// A path's state before or after a change; file bytes are in `blobs/<hash>` (or,
/// for an after-state, in the tree until a later op stores them there).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct State {
    /// file, dir, symlink or missing.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// A symlink's target text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Modification time (seconds), recorded by `touch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtime: Option<i64>,
}

impl State {
    pub fn missing() -> State {
        State {
            kind: "missing".into(),
            ..State::default()
        }
    }
    pub fn is_missing(&self) -> bool {
        self.kind == "missing"
    }
}

/// One change of an op, paths relative to the workspace root.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EntryChange {
    pub path: String,
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// For a move: the source's state before (its state after is missing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_before: Option<State>,
    pub before: State,
    pub after: State,
}

/// One journal line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub seq: u64,
    pub op_id: String,
    pub time: String,
    pub command: String,
    pub argv: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    pub changes: Vec<EntryChange>,
    /// Bytes another program appended to a replaced file's old inode while the op
    /// ran (kept as blobs so they can be re-applied; see `appends`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub appends: Vec<Appended>,
}

/// A tail appended to a file's old inode after it was validated: its bytes are
/// in `blobs/<hash>`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Appended {
    pub path: String,
    pub bytes: u64,
    pub hash: String,
}

impl Entry {
    /// Every path the op touched (a move's source too), in order, once each.
    pub fn paths(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in &self.changes {
            for p in c.from.iter().chain(std::iter::once(&c.path)) {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
        out
    }
}

pub fn dir(state: &Path) -> PathBuf {
    state.join("journal")
}

pub fn file(state: &Path) -> PathBuf {
    dir(state).join("journal.jsonl")
}

fn id_file(state: &Path, op_id: &str) -> PathBuf {
    dir(state).join("ids").join(op_id)
}

/// Whether `s` has the op id shape (`op-<compact time>-<8 hex>`), so it is safe as a file name.
pub fn is_op_id(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 28
        && s.starts_with("op-")
        && b[19] == b'-'
        && s[3..19].bytes().all(|c| c.is_ascii_alphanumeric())
        && s[20..].bytes().all(|c| c.is_ascii_hexdigit())
}

/// Reads the last complete line, or `None` for an empty journal.
pub fn last_line(state: &Path) -> io::Result<Option<String>> {
    let f = match fsx::open_regular(&file(state)) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut lines = ReverseLines::new(f)?;
    lines.next_line()
}

/// The next sequence number (the last line's `seq` + 1).
pub fn next_seq(state: &Path) -> io::Result<u64> {
    Ok(match last_line(state)? {
        Some(line) => parse_seq(&line).map(|s| s + 1).unwrap_or(0),
        None => 0,
    })
}

fn parse_seq(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("{\"seq\":")?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// A new op id for sequence `seq`: `op-<UTC time>-<8 hex>`. With `AITOOLS_SEED`
/// the hex is derived from the seed and `seq` (reproducible, unique per journal).
/// The 8 hex digits are unique among the journal's ops, because answers show only
/// them (`op-<8 hex>`) and every op-id taker must resolve that form to one op.
pub fn new_op_id(state: &Path, seq: u64, seed: Option<&str>) -> String {
    let (secs, nanos) = time::now();
    // With the tail index one stat answers whether the digits are taken; without
    // it (a store made before it), one listing of every id file.
    let indexed = has_tail_index(state);
    let listed = if indexed {
        Default::default()
    } else {
        taken_tails(state)
    };
    let taken = |tail: &str| match indexed {
        true => fsx::exists_nofollow(&tails_dir(state).join(tail)),
        false => listed.contains(tail),
    };
    for salt in 0u32.. {
        let material = match seed {
            Some(s) => format!("seed:{s}:{seq}:{salt}"),
            None => format!("{secs}:{nanos}:{}:{seq}:{salt}", std::process::id()),
        };
        let h = sha256_hex(material.as_bytes());
        let id = format!("op-{}-{}", time::compact(secs), &h[..8]);
        if salt > 1000 || (!taken(&h[..8]) && !fsx::exists_nofollow(&id_file(state, &id))) {
            return id;
        }
    }
    String::new()
}

/// The ids of the ops that have an id file (one listing of `ids/`; none when it
/// is missing).
fn live_ids(state: &Path) -> io::Result<Vec<String>> {
    match std::fs::read_dir(dir(state).join("ids")) {
        Ok(rd) => Ok(rd
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| is_op_id(n))
            .collect()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// The 8 hex digits ending every live op id (a listing that fails takes none).
fn taken_tails(state: &Path) -> std::collections::HashSet<String> {
    live_ids(state)
        .unwrap_or_default()
        .into_iter()
        .map(|n| n[20..].to_string())
        .collect()
}

/// Appends the op's line (cutting off a torn last line a killed append left first),
/// fdatasyncs, and writes its id file.
pub fn append(state: &Path, entry: &Entry) -> io::Result<()> {
    let json = serde_json::to_string(entry).map_err(io::Error::other)?;
    append_json(state, &entry.op_id, entry.seq, json)
}

/// `append` of an intent's entry with the tails `appends` other programs added
/// meanwhile (none: the entry as it is), reusing `json`, the entry's JSON the
/// intent record was written with (`Intent::entry_json`), when it is that.
pub fn append_entry(
    state: &Path,
    entry: &Entry,
    json: Option<&String>,
    appends: Vec<Appended>,
) -> io::Result<()> {
    match (appends.is_empty(), json) {
        (true, Some(json)) => append_json(state, &entry.op_id, entry.seq, json.clone()),
        (true, None) => append(state, entry),
        (false, _) => {
            let mut entry = entry.clone();
            entry.appends = appends;
            append(state, &entry)
        }
    }
}

/// `append` of an entry already serialized (`json`: its JSON, no newline).
fn append_json(state: &Path, op_id: &str, seq: u64, json: String) -> io::Result<()> {
    let path = file(state);
    let existed = fsx::exists_nofollow(&path);
    let mut f = fsx::open_append(&path, 0o600)?;
    let mut len = f.metadata()?.len();
    if len > 0 {
        let mut last = [0u8; 1];
        f.read_exact_at(&mut last, len - 1)?;
        if last[0] != b'\n' {
            let keep = last_newline_end(&f, len)?;
            f.set_len(keep)?;
            len = keep;
        }
    }
    let mut line = json;
    line.push('\n');
    f.write_all(line.as_bytes())?;
    f.sync_data()?;
    if !existed {
        fsx::sync_dir(&dir(state))?;
    }
    write_id(state, op_id, seq, len, line.len() as u64);
    Ok(())
}

/// Byte offset just after the last LF before `len` (0 when there is none).
fn last_newline_end(f: &File, len: u64) -> io::Result<u64> {
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        f.read_exact_at(chunk, start)?;
        if let Some(i) = memchr::memrchr(b'\n', chunk) {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

fn write_id(state: &Path, op_id: &str, seq: u64, offset: u64, len: u64) {
    let ids = dir(state).join("ids");
    // Made with `ids/`, the tail index is complete from the start (no id files yet).
    if fsx::ensure_private_dir(&ids).unwrap_or(false) {
        let _ = fsx::ensure_private_dir(&tails_dir(state));
    }
    // The tail first: the index then names every op that has an id file (a kill
    // between the two leaves a tail without its id file, which readers skip).
    if has_tail_index(state) && note_tail(state, op_id).is_err() {
        return;
    }
    let tmp = ids.join(format!(".{op_id}.tmp"));
    let _ = std::fs::remove_file(&tmp);
    if fsx::create_new(&tmp, 0o600)
        .and_then(|mut f| f.write_all(format!("{seq} {offset} {len}\n").as_bytes()))
        .is_ok()
    {
        let _ = std::fs::rename(&tmp, id_file(state, op_id));
    }
}

/// The tail index: `ids/by-tail/<8 hex>` lists the whole ids ending in those
/// digits (one per line; more than one only for ops made before tails were
/// unique). It answers a short id and a new id's uniqueness with one file
/// instead of a listing of every id file, so `undo op-<8 hex>` stays flat as the
/// journal grows. A store made before it has none (`has_tail_index`) and is
/// listed as before until `gc` builds it (`build_tail_index`).
fn tails_dir(state: &Path) -> PathBuf {
    dir(state).join("ids").join("by-tail")
}

fn has_tail_index(state: &Path) -> bool {
    std::fs::symlink_metadata(tails_dir(state)).is_ok_and(|m| m.is_dir())
}

/// Adds `op_id` to its tail's file (made when new; rewritten whole, by a rename,
/// in the rare case another id already ends in the same digits).
fn note_tail(state: &Path, op_id: &str) -> io::Result<()> {
    let dir = tails_dir(state);
    let tail = &op_id[op_id.len().saturating_sub(8)..];
    let line = format!("{op_id}\n");
    match fsx::create_new(&dir.join(tail), 0o600) {
        Ok(mut f) => return f.write_all(line.as_bytes()),
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
        Err(_) => {}
    }
    let mut text = fsx::read_regular_to_string(&dir.join(tail))?;
    if text.lines().any(|l| l == op_id) {
        return Ok(());
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&line);
    // Unsynced, like the id files it indexes.
    fsx::replace_file(
        &dir,
        tail,
        &format!(".{tail}.tmp"),
        text.as_bytes(),
        0o600,
        false,
    )
}

/// The live ids the tail index names for `tail` (those with an id file);
/// `None` when the store has no index.
fn indexed_ids(state: &Path, tail: &str) -> io::Result<Option<Vec<String>>> {
    let digits = tail.len() == 8 && tail.bytes().all(|c| c.is_ascii_hexdigit());
    if !digits || !has_tail_index(state) {
        return Ok(None);
    }
    let text = match fsx::read_regular_to_string(&tails_dir(state).join(tail)) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Some(Vec::new())),
        Err(e) => return Err(e),
    };
    Ok(Some(
        text.lines()
            .filter(|id| is_op_id(id) && id.ends_with(tail))
            .filter(|id| fsx::exists_nofollow(&id_file(state, id)))
            .map(str::to_string)
            .collect(),
    ))
}

/// Builds the tail index of a store made before it, from one listing of the id
/// files, in a scratch directory renamed into place whole (a kill leaves no
/// half index: the scratch one is removed by the next build). Nothing to do
/// when the index is there or there are no id files.
pub fn build_tail_index(state: &Path) -> io::Result<()> {
    if has_tail_index(state) || !dir(state).join("ids").is_dir() {
        return Ok(());
    }
    let mut by_tail: std::collections::BTreeMap<String, String> = Default::default();
    for id in live_ids(state)? {
        let entry = by_tail.entry(id[20..].to_string()).or_default();
        entry.push_str(&id);
        entry.push('\n');
    }
    let scratch = dir(state).join("ids").join(".by-tail.tmp");
    match std::fs::remove_dir_all(&scratch) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    fsx::ensure_private_dir(&scratch)?;
    for (tail, ids) in &by_tail {
        fsx::create_new(&scratch.join(tail), 0o600)?.write_all(ids.as_bytes())?;
    }
    std::fs::rename(&scratch, tails_dir(state))
}

/// Where a committed op's line stands in the journal (`placement`).
#[derive(Debug, PartialEq, Eq)]
pub enum Placement {
    /// Its line is already there (recovery: never a second one).
    Held,
    /// Not there; the next free sequence number.
    Next(u64),
}

/// Whether the journal holds the op `op_id` among its lines numbered `since` or
/// later, else the next sequence number. Other ops may follow its line: a stuck
/// record blocks only its own paths, so writes elsewhere append after it. Reads
/// back from the end to the first older line: one line when nothing followed.
pub fn placement(state: &Path, op_id: &str, since: u64) -> io::Result<Placement> {
    let f = match fsx::open_regular(&file(state)) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Placement::Next(0)),
        Err(e) => return Err(e),
    };
    let needle = format!("\"op_id\":\"{op_id}\"");
    let mut lines = ReverseLines::new(f)?;
    let mut next = None;
    while let Some(line) = lines.next_line()? {
        let seq = parse_seq(&line);
        let next = *next.get_or_insert_with(|| seq.map(|s| s + 1).unwrap_or(0));
        if line.contains(&needle) {
            return Ok(Placement::Held);
        }
        if seq.is_none_or(|s| s < since) {
            return Ok(Placement::Next(next));
        }
    }
    Ok(Placement::Next(next.unwrap_or(0)))
}

/// Whether `s` is the short op id answers show (`op-<8 hex>`, the whole id's end).
pub fn is_short_op_id(s: &str) -> bool {
    s.len() == 11 && s.starts_with("op-") && s[3..].bytes().all(|c| c.is_ascii_hexdigit())
}

/// The whole id a short one names: the one op `short_matches` finds; `None` when
/// no op or several do.
fn resolve_short(state: &Path, short: &str) -> io::Result<Option<String>> {
    let mut found = short_matches(state, short)?;
    Ok(if found.len() == 1 { found.pop() } else { None })
}

/// The whole ids ending in a short id's hex digits, sorted: those of the id files,
/// else (id files missing) those of the journaled ops. New ids never share their
/// digits with a live op, but ops made before that rule may (`undo` then lists them).
pub fn short_matches(state: &Path, short: &str) -> io::Result<Vec<String>> {
    let tail = &short[2..];
    let mut found: Vec<String> = match indexed_ids(state, &short[3..])? {
        Some(ids) => ids,
        None => live_ids(state)?
            .into_iter()
            .filter(|n| n.ends_with(tail))
            .collect(),
    };
    if found.is_empty() {
        let f = match fsx::open_regular(&file(state)) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(found),
            Err(e) => return Err(e),
        };
        let needle = format!("{tail}\"");
        for line in io::BufRead::split(io::BufReader::new(f), b'\n') {
            let line = line?;
            if memchr::memmem::find(&line, needle.as_bytes()).is_some()
                && let Ok(e) = serde_json::from_slice::<Entry>(&line)
                && is_op_id(&e.op_id)
                && e.op_id.ends_with(tail)
            {
                found.push(e.op_id);
            }
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// The whole id `op_id` names: a short id resolved (when one op ends in it), any
/// other text as it is; what a new op's `undoes` records.
pub fn whole_op_id(state: &Path, op_id: &str) -> io::Result<String> {
    Ok(match is_short_op_id(op_id) {
        true => resolve_short(state, op_id)?.unwrap_or_else(|| op_id.to_string()),
        false => op_id.to_string(),
    })
}

/// Finds an op by id through its id file; falls back to a scan (rebuilding the id).
/// A short id (`op-<8 hex>`) is resolved to its whole id first.
pub fn find(state: &Path, op_id: &str) -> io::Result<Option<Entry>> {
    if is_short_op_id(op_id) {
        return match resolve_short(state, op_id)? {
            Some(full) => find(state, &full),
            None => Ok(None),
        };
    }
    if !is_op_id(op_id) {
        return Ok(None);
    }
    let f = match fsx::open_regular(&file(state)) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if let Ok(text) = fsx::read_regular_to_string(&id_file(state, op_id)) {
        let nums: Vec<u64> = text
            .split_whitespace()
            .filter_map(|n| n.parse().ok())
            .collect();
        if let [_, offset, len] = nums[..] {
            let mut buf = vec![0u8; len as usize];
            if f.read_exact_at(&mut buf, offset).is_ok()
                && let Ok(e) = serde_json::from_slice::<Entry>(&buf)
                && e.op_id == op_id
            {
                return Ok(Some(e));
            }
        }
    }
    // The id file is missing or stale: scan, and write it back.
    let needle = format!("\"op_id\":\"{op_id}\"");
    let mut offset = 0u64;
    let mut reader = io::BufReader::new(f);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = io::BufRead::read_until(&mut reader, b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        if line.ends_with(b"\n")
            && memchr::memmem::find(&line, needle.as_bytes()).is_some()
            && let Ok(e) = serde_json::from_slice::<Entry>(&line)
            && e.op_id == op_id
        {
            write_id(state, op_id, e.seq, offset, n as u64);
            return Ok(Some(e));
        }
        offset += n as u64;
    }
}

mod reverse;
pub use reverse::ReverseMatches;

/// Complete journal lines from the end backwards, read in chunks.
pub struct ReverseLines {
    file: File,
    /// Bytes before `pos` are unread.
    pos: u64,
    /// Unconsumed bytes that follow `pos`, ending at a line end.
    buf: Vec<u8>,
}

impl ReverseLines {
    pub fn new(mut file: File) -> io::Result<ReverseLines> {
        let len = file.seek(SeekFrom::End(0))?;
        let mut r = ReverseLines {
            file,
            pos: len,
            buf: Vec::new(),
        };
        // A torn last line (no LF) is not an entry.
        let keep = last_newline_end(&r.file, len)?;
        r.pos = keep;
        Ok(r)
    }

    pub fn open(state: &Path) -> io::Result<Option<ReverseLines>> {
        match fsx::open_regular(&file(state)) {
            Ok(f) => Ok(Some(ReverseLines::new(f)?)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The previous line (without its LF), or `None` at the start.
    pub fn next_line(&mut self) -> io::Result<Option<String>> {
        loop {
            // buf holds "...\n" for the lines after pos; find the start of the last one.
            let body_end = self.buf.len().saturating_sub(1);
            if !self.buf.is_empty() {
                if let Some(i) = memchr::memrchr(b'\n', &self.buf[..body_end]) {
                    let line = self.buf[i + 1..body_end].to_vec();
                    self.buf.truncate(i + 1);
                    return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
                }
                if self.pos == 0 {
                    let line = self.buf[..body_end].to_vec();
                    self.buf.clear();
                    return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
                }
            } else if self.pos == 0 {
                return Ok(None);
            }
            self.read_back(64 * 1024)?;
        }
    }

    /// Reads up to `size` bytes before what was read into the front of `buf`;
    /// how many.
    fn read_back(&mut self, size: u64) -> io::Result<usize> {
        let start = self.pos.saturating_sub(size);
        let mut chunk = vec![0u8; (self.pos - start) as usize];
        self.file.read_exact_at(&mut chunk, start)?;
        let added = chunk.len();
        chunk.extend_from_slice(&self.buf);
        self.buf = chunk;
        self.pos = start;
        Ok(added)
    }
}

/// Every entry, oldest first (for scans that need them all).
pub fn read_all(state: &Path) -> io::Result<Vec<Entry>> {
    let mut text = String::new();
    match fsx::open_regular(&file(state)) {
        Ok(mut f) => {
            f.read_to_string(&mut text)?;
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    }
    Ok(text
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers show `op-<8 hex>`: a new id never ends in the digits of a live op,
    /// even one made at another time.
    #[test]
    fn a_new_op_id_never_repeats_a_live_ops_short_form() {
        let state = tempfile::tempdir().expect("tempdir");
        let first = new_op_id(state.path(), 7, Some("s"));
        let ids = dir(state.path()).join("ids");
        std::fs::create_dir_all(&ids).expect("ids dir");
        // The same digits under another time: the whole id differs, the short form not.
        std::fs::write(
            ids.join(format!("op-20000101T000000Z-{}", &first[20..])),
            b"",
        )
        .expect("id file");
        let second = new_op_id(state.path(), 7, Some("s"));
        assert!(is_op_id(&second), "{second}");
        assert_ne!(first[20..], second[20..]);
    }

    fn id(time: &str, tail: &str) -> String {
        format!("op-{time}-{tail}")
    }

    /// A store whose `ids/` is made by its first id file has the tail index from
    /// the start; a short id is answered by it, a new id avoids its digits, and
    /// a tail noted without its id file (a kill between the two) names no op.
    #[test]
    fn the_tail_index_answers_short_ids_and_keeps_new_ids_unique() {
        let state = tempfile::tempdir().expect("tempdir");
        let st = state.path();
        std::fs::create_dir_all(dir(st)).expect("journal dir");
        let first = new_op_id(st, 7, Some("s"));
        write_id(st, &first, 0, 0, 10);
        assert!(has_tail_index(st));
        let short = format!("op-{}", &first[20..]);
        assert_eq!(short_matches(st, &short).unwrap(), vec![first.clone()]);
        // Digits only the index knows (noted, id file not yet written): a new
        // id avoids them too.
        let predicted = new_op_id(st, 9, Some("s"));
        note_tail(st, &id("20000101T000000Z", &predicted[20..])).expect("note");
        let second = new_op_id(st, 9, Some("s"));
        assert!(is_op_id(&second), "{second}");
        assert_ne!(predicted[20..], second[20..]);
        let lone = id("20000101T000000Z", "abcdef01");
        note_tail(st, &lone).expect("note");
        assert!(short_matches(st, "op-abcdef01").unwrap().is_empty());
    }

    /// A store made before the index: ids are listed until `build_tail_index`
    /// makes the index whole, with every id of a shared tail kept (ambiguous
    /// short ids stay ambiguous).
    #[test]
    fn an_old_store_gets_a_whole_tail_index_with_shared_tails_kept() {
        let state = tempfile::tempdir().expect("tempdir");
        let st = state.path();
        let ids = dir(st).join("ids");
        std::fs::create_dir_all(&ids).expect("ids dir");
        let (a, b, c) = (
            id("20000101T000000Z", "0000aaaa"),
            id("20010101T000000Z", "0000aaaa"),
            id("20020101T000000Z", "0000bbbb"),
        );
        for i in [&a, &b, &c] {
            std::fs::write(ids.join(i), b"0 0 0\n").expect("id file");
        }
        assert!(!has_tail_index(st));
        assert_eq!(short_matches(st, "op-0000aaaa").unwrap().len(), 2);
        std::fs::create_dir(ids.join(".by-tail.tmp")).expect("a killed build's leftover");
        build_tail_index(st).expect("build");
        assert!(has_tail_index(st));
        assert!(!ids.join(".by-tail.tmp").exists());
        assert_eq!(short_matches(st, "op-0000aaaa").unwrap(), vec![a, b]);
        assert_eq!(short_matches(st, "op-0000bbbb").unwrap(), vec![c.clone()]);
        // A later id file with shared digits is added to its tail's file.
        let d = id("20030101T000000Z", "0000bbbb");
        write_id(st, &d, 3, 0, 10);
        assert_eq!(short_matches(st, "op-0000bbbb").unwrap(), vec![c, d]);
    }
}
