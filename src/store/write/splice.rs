//! `Change::Splice`: a put of a file as read with one byte range replaced, kept
//! as three pieces (the snapshot's head, the new text, the snapshot's tail) from
//! the plan to the temp file, so a one-line edit of a large file holds the file
//! once: its hash resumes from the snapshot's midstates, the temp file is written
//! piece by piece, and the answer's diff is of the lines around the range.

use super::*;
use crate::text::lines::hex;
use sha2::{Digest, Sha256};

/// `base.bytes[..range.start] + with + base.bytes[range.end..]`.
pub(super) struct Spliced {
    pub(super) base: Arc<Snapshot>,
    pub(super) range: Range<usize>,
    pub(super) with: Vec<u8>,
}

/// A diff window larger than this is not looked for: the pieces are joined for
/// the diff instead (only where the text around the range repeats itself).
const WINDOW_MAX: usize = 1 << 16;

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
        let b = &self.base.bytes;
        let (at, to) = (self.range.start, self.range.end);
        let start = memchr::memrchr(b'\n', b.get(..at)?).map_or(0, |i| i + 1);
        let mut end = to;
        // Lines the window reaches past `end` at each widening.
        let mut lines = 1usize;
        loop {
            for _ in 0..lines {
                end = memchr::memchr(b'\n', b.get(end..)?).map_or(b.len(), |i| end + i + 1);
            }
            lines *= 2;
            if end - start > WINDOW_MAX {
                return None;
            }
            let old = b.get(start..end)?;
            let new = [b.get(start..at)?, &self.with, b.get(to..end)?].concat();
            let head = crate::text::diff::common_prefix(old, &new);
            if head < old.len().min(new.len()) || end == b.len() {
                let line = memchr::memchr_iter(b'\n', b.get(..start)?).count();
                return Some((old.to_vec(), new, line));
            }
        }
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
    ) -> Result<(), CmdError> {
        if range.start > range.end || range.end > base.bytes.len() {
            return Err(CmdError::internal(
                "write: a splice outside the file it was read from",
            ));
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
