//! `Change::Splice`: a put of a file as read with one byte range replaced, kept
//! as three pieces (the snapshot's head, the new text, the snapshot's tail) from
//! the plan to the temp file, so a one-line edit of a large file holds the file
//! once: its hash resumes from the snapshot's midstates, the temp file is written
//! piece by piece, and the answer's diff is of the lines around the range.

use super::plan::Streamed;
use super::*;
use crate::text::lines::hex;
use sha2::{Digest, Sha256};

/// `base.bytes[..range.start] + with + base.bytes[range.end..]`.
pub(super) struct Spliced {
    pub(super) base: Arc<Snapshot>,
    pub(super) range: Range<usize>,
    pub(super) with: Vec<u8>,
}

impl Spliced {
    pub(super) fn pieces(&self) -> [&[u8]; 3] {
        let b = &self.base.bytes;
        [
            b.get(..self.range.start).unwrap_or_default(),
            &self.with,
            b.get(self.range.end..).unwrap_or_default(),
        ]
    }

    /// The SHA-256 of the new bytes, from the last midstate before the range.
    fn hash(&self) -> String {
        let b = &self.base.bytes;
        let (at, mut h) = self
            .base
            .midstates
            .iter()
            .rev()
            .find(|(at, _)| *at <= self.range.start)
            .map_or((0, Sha256::new()), |(at, s)| (*at, s.clone()));
        h.update(b.get(at..self.range.start).unwrap_or_default());
        let [_, with, tail] = self.pieces();
        h.update(with);
        h.update(tail);
        hex(&h.finalize())
    }

    /// The whole lines around the range before and after, and the 0-based line
    /// they start at: from the start of the range's first line to the end of its
    /// last, and on while one of the two is the start of the other (then the
    /// files may agree past them, and the diff of the whole files starts later).
    /// The files agree before the window and after it (where the rest of both is
    /// `base`'s tail), so its diff is theirs. `None` past `WINDOW_MAX` bytes.
    fn window(&self) -> Option<(Vec<u8>, Vec<u8>, usize)> {
        stream::window_of(&self.base.bytes, self.range.clone(), &self.with)
    }
}

impl<'a> Plan<'a> {
    /// `Change::Splice`. When `base` is the target's before-state as read from
    /// disk, the content stays in pieces; otherwise (in a tx, or the file is not
    /// what the command read) the pieces are joined and put as bytes.
    pub(super) fn splice(
        &mut self,
        path: &Path,
        base: Arc<Snapshot>,
        range: Range<usize>,
        with: Vec<u8>,
    ) -> Result<(), Box<StoreError>> {
        if range.start > range.end || range.end > base.bytes.len() {
            return Err(Box::new(StoreError::Internal(
                "write: a splice outside the file it was read from",
            )));
        }
        let (target, lstat) = boundary::resolve_stat(self.ctx, path, Final::Follow)?;
        let before = self.look_stated(&target, true, lstat)?;
        let snap = match &before {
            View::File {
                hash,
                content: Some(Content::Snap(snap)),
                ..
            } if self.ctx.tx.is_none() && *hash == base.hash => snap.clone(),
            _ => {
                let joined = Spliced { base, range, with }.pieces().concat();
                return self.put(path, joined, None);
            }
        };
        let spliced = Arc::new(Spliced {
            base: snap,
            range,
            with,
        });
        let hash = spliced.hash();
        let content = Content::Spliced(spliced.clone());
        let window = diff_window(&spliced);
        self.put_content(target, before, content, hash, None, window)
    }
}

impl<'a> Plan<'a> {
    /// `Change::SpliceStream`: the file must still be the one the pass read
    /// (same inode, size and times), else `refusal.target-changed`. Its diff is
    /// the window of the pass's excerpt; the new file is never in memory.
    pub(super) fn splice_stream(
        &mut self,
        path: &Path,
        base: Arc<Scan>,
        range: Range<u64>,
        with: Vec<u8>,
    ) -> Result<(), Box<StoreError>> {
        let excerpt_at = base.excerpt_at.unwrap_or(u64::MAX);
        let local = range
            .start
            .checked_sub(excerpt_at)
            .map(|a| a as usize..(a + range.end - range.start) as usize)
            .filter(|r| range.start <= range.end && r.end <= base.excerpt.len());
        let (Some(local), None) = (local, self.ctx.tx.as_ref()) else {
            return Err(Box::new(StoreError::Internal(
                "write: a streamed splice outside its excerpt, or in a tx",
            )));
        };
        let (target, lstat) = boundary::resolve_stat(self.ctx, path, Final::Follow)?;
        let before = self.look_streamed(&target, lstat, &base)?;
        // The window of the excerpt is the files' when it ends before the
        // excerpt does (or the excerpt is the file's end).
        let Some((old, new, line)) = base.window(local, &with) else {
            return Err(Box::new(StoreError::Internal(
                "write: a streamed splice whose lines are too long to show",
            )));
        };
        let hash = base
            .successor_hash(&range, &with)
            .map_err(|e| self.io(&target, &e))?;
        let content = Content::Streamed(Arc::new(Streamed { base, range, with }));
        let window = (
            Content::Owned(Arc::new(old)),
            Content::Owned(Arc::new(new)),
            line,
        );
        self.put_content(target, before, content, hash, None, Some(window))
    }
}

impl<'a> Plan<'a> {
    /// The view of `target` (resolved, `lstat` its metadata if known) as the
    /// streaming pass `base` read it: it must still be that file (same inode,
    /// size and times) and not one this op changed, else `refusal.target-changed`.
    fn look_streamed(
        &mut self,
        target: &Path,
        lstat: Option<std::fs::Metadata>,
        base: &Arc<Scan>,
    ) -> Result<View, Box<StoreError>> {
        let now = match lstat {
            Some(m) => Ok(m),
            None => std::fs::symlink_metadata(target),
        };
        let stamp = now.as_ref().ok().map(crate::store::snapshot::Stamp::of);
        if self.view.contains_key(target) || stamp != Some(base.stamp) {
            let size = stamp.map_or(0, |s| s.size);
            return Err(Box::new(appends::TargetsChanged {
                changed: vec![(self.rel(target), size, base.stamp.size)],
                argv: self.ctx.argv.clone(),
            })
            .into());
        }
        let before = View::File {
            hash: base.hash.clone(),
            mode: base.mode,
            mtime: Some(base.mtime),
            content: Some(Content::Disk(base.clone())),
        };
        self.view.insert(target.to_path_buf(), before.clone());
        self.disk_ids
            .insert(target.to_path_buf(), (base.stamp.dev, base.stamp.ino));
        Ok(before)
    }

    /// `Change::PutStream`: the new file is `from`'s bytes, copied from its
    /// file at the commit (never in memory); `before` is `base` when given.
    pub(super) fn put_stream(
        &mut self,
        path: &Path,
        base: Option<Arc<Scan>>,
        from: Arc<Scan>,
        mode: Option<u32>,
        window: Option<(Vec<u8>, Vec<u8>, usize)>,
    ) -> Result<(), Box<StoreError>> {
        if self.ctx.tx.is_some() {
            return Err(Box::new(StoreError::Internal(
                "write: a streamed put in a tx",
            )));
        }
        let (target, lstat) = boundary::resolve_stat(self.ctx, path, Final::Follow)?;
        // A path an earlier change of this op touched is no longer `base`.
        let (before, window) = match &base {
            Some(b) if !self.view.contains_key(&target) => {
                (self.look_streamed(&target, lstat, b)?, window)
            }
            _ => (self.look_stated(&target, true, lstat)?, None),
        };
        let hash = from.hash.clone();
        let window = window.map(|(old, new, line)| {
            (
                Content::Owned(Arc::new(old)),
                Content::Owned(Arc::new(new)),
                line,
            )
        });
        self.put_content(target, before, Content::Disk(from), hash, mode, window)
    }
}

/// The diff `put_content` shows for a splice: its window, or (text around the
/// range repeating itself, or a NUL near it) the whole files.
fn diff_window(s: &Arc<Spliced>) -> Option<(Content, Content, usize)> {
    use crate::text::sniff::{SNIFF_BYTES, is_binary};
    let whole = || {
        Some((
            Content::Snap(s.base.clone()),
            Content::Spliced(s.clone()),
            0,
        ))
    };
    // The answer sniffs the files' heads: the new head, as the pieces start it.
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    for p in s.pieces() {
        let room = SNIFF_BYTES - head.len();
        head.extend_from_slice(p.get(..p.len().min(room)).unwrap_or_default());
    }
    if is_binary(&s.base.bytes) || is_binary(&head) {
        return whole();
    }
    match s.window() {
        Some((old, new, _)) if is_binary(&old) || is_binary(&new) => whole(),
        Some((old, new, line)) => Some((
            Content::Owned(Arc::new(old)),
            Content::Owned(Arc::new(new)),
            line,
        )),
        None => whole(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::snapshot::{Stamp, hash_with_midstates};

    fn snap(bytes: Vec<u8>) -> Arc<Snapshot> {
        let (hash, midstates) = hash_with_midstates(&bytes);
        Arc::new(Snapshot {
            bytes,
            hash,
            mode: 0o644,
            mtime: 0,
            midstates,
            stamp: Stamp::default(),
        })
    }

    /// The hash and the window's diff are those of the joined bytes, for splices
    /// anywhere in files whose lines repeat (where a window must widen).
    #[test]
    fn a_splice_hashes_and_diffs_as_its_joined_bytes() {
        let opts = DiffOptions {
            context: 0,
            ..DiffOptions::default()
        };
        let limit = diff::TextLimit {
            lines: 1000,
            bytes: 1 << 20,
        };
        let lines = ["a\n", "b\n", "a\n", "a\n", "c\r\n", "\n", "b\n"];
        let mut files: Vec<Vec<u8>> = (0..lines.len())
            .map(|n| lines[..n].concat().into_bytes())
            .collect();
        files.push(b"a\na\na\na\na\nno newline".to_vec());
        // Past `WINDOW_MAX` of one repeated line: the whole files are diffed.
        files.push("a\n".repeat(50_000).into_bytes());
        let big: Vec<u8> = (0..300_000)
            .flat_map(|i| format!("{:07}\n", i % 7).into_bytes())
            .collect();
        let withs: [&[u8]; 7] = [b"", b"a\n", b"x", b"a\na\n", b"\n", b"b\nz", b"c\r\n"];
        let mut checked = 0;
        for f in files.iter().chain([&big]) {
            let s = snap(f.clone());
            // Every start in the small files, a few in the large ones.
            let step = if f.len() > 1000 { f.len() / 5 } else { 1 };
            for start in (0..=f.len()).step_by(step) {
                for len in [0, 1, 2, 5] {
                    let end = (start + len).min(f.len());
                    for with in withs {
                        let sp = Arc::new(Spliced {
                            base: s.clone(),
                            range: start..end,
                            with: with.to_vec(),
                        });
                        let joined = sp.pieces().concat();
                        assert_eq!(sp.hash(), sha256_hex(&joined), "{start}..{end} {with:?}");
                        let full = diff::unified_within(f, &joined, "a", "b", &opts, limit);
                        let (old, new, line) = match diff_window(&sp) {
                            Some((o, n, line)) => (o.whole().to_vec(), n.whole().to_vec(), line),
                            None => panic!("no diff"),
                        };
                        let w = diff::unified_within_from(&old, &new, "a", "b", &opts, limit, line);
                        assert_eq!(
                            (w.text, w.added, w.deleted),
                            (full.text, full.added, full.deleted),
                            "{:?} {start}..{end} {with:?}",
                            String::from_utf8_lossy(&f[..f.len().min(60)])
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500);
    }
}
