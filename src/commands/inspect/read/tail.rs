//! `read --tail`'s short path: the last lines read backwards from the end in
//! blocks (as `tail` does), with up to `redact::LEAD_LINES` lines before them for
//! the mask. The line count and hash come from the store's hash cache when it
//! knows the file's exact bytes; on a miss a small file takes the ordinary forward
//! pass (which fills the cache), and a large one is answered without them
//! (`start_line`, `total_lines` and `hash` null, next_commands: `info`, which
//! computes and caches them) instead of reading the whole file.

#[allow(unused_imports)]
use super::*;
use crate::protocol::redact;
use crate::store::hashcache::{self, Facts, HashCache, Key};
use std::os::unix::fs::FileExt;

/// Files below this are hashed whatever happens (the forward pass costs little).
pub(super) const CACHE_MIN: u64 = 1 << 20;
/// The largest file a first `--tail` hashes; above it the answer's hash is null.
pub(super) const HASH_INLINE_MAX: u64 = 16 << 20;
/// The most bytes read backwards for the wanted lines (longer lines: forward pass).
const MAX_BACK: u64 = 32 << 20;
const STEP: u64 = 64 << 10;

pub(super) struct Fast {
    /// Up to `redact::LEAD_LINES` lines before the tail, for the mask.
    pub(super) lead: Vec<Got>,
    pub(super) got: Vec<Got>,
    /// The line numbers, when the count is known (cached, or the lines reach
    /// the file's start); else the lines are numbered 1.. within the tail.
    pub(super) total_lines: Option<u64>,
    pub(super) hash: Option<String>,
}

/// What the forward pass should remember when it is done.
pub(super) struct Pending {
    cache: HashCache,
    key: Key,
    stamp_ns: i128,
}

pub(super) enum Tail {
    Done(Fast),
    Forward(Option<Pending>),
}

/// The last `n` lines (`n` ≥ 1) of the plain-text file `src`, when they can be
/// had without the forward pass.
pub(super) fn fast(ctx: &Ctx, src: &Opened, n: u64) -> std::io::Result<Tail> {
    let stamp_ns = hashcache::now_ns();
    let file = src.open()?;
    let meta = file.metadata()?;
    let size = meta.len();
    if size < CACHE_MIN || n == 0 {
        return Ok(Tail::Forward(None));
    }
    let cache = HashCache::open(&ctx.root, ctx.session.kept.clone());
    let key = Key::of(&meta);
    let known = cache
        .as_ref()
        .and_then(|c| c.get(&key))
        .and_then(|f| Some((f.lines?, f.hash)));
    if known.is_none() && size <= HASH_INLINE_MAX {
        let pending = cache.map(|cache| Pending {
            cache,
            key,
            stamp_ns,
        });
        return Ok(Tail::Forward(pending));
    }
    let want = n.saturating_add(redact::LEAD_LINES as u64);
    let Some((start, tail)) = back(&file, size, want)? else {
        return Ok(Tail::Forward(None));
    };
    let mut got = split_lines(&tail, start)?;
    let lead_len = got.len().saturating_sub(n as usize);
    let lead: Vec<Got> = got.drain(..lead_len).collect();
    let (total_lines, hash) = match known {
        Some((total, hash)) => (Some(total), hash),
        // The lines reach the file's start: all of them were counted.
        None if start == 0 => (Some((lead.len() + got.len()) as u64), None),
        // A cut line is listed by number: count the lines before the tail.
        None if got.iter().any(|g| g.cut) => {
            let before = count_newlines(&file, start)?;
            (Some(before + (lead.len() + got.len()) as u64), None)
        }
        None => (None, None),
    };
    if let Some(total) = total_lines {
        let first = total + 1 - (got.len() as u64).min(total);
        for (i, g) in got.iter_mut().enumerate() {
            g.number = first + i as u64;
        }
    }
    Ok(Tail::Done(Fast {
        lead,
        got,
        total_lines,
        hash,
    }))
}

/// The lines of `tail`, the file's bytes from `start` (a line start) to its
/// end, numbered 1.. with their file offsets.
fn split_lines(tail: &[u8], start: u64) -> std::io::Result<Vec<Got>> {
    let mut got = Vec::new();
    if start == 0 {
        // The file's start: a BOM there is not part of line 1.
        lines::scan(tail, &mut lines::All, |l| got.push(Got::of(&l)))?;
        return Ok(got);
    }
    // A leading "\n" makes the slice's first line an empty line 1 that is not
    // wanted, and keeps a line starting with EF BB BF from being taken for a BOM.
    lines::scan(
        std::io::Read::chain(&b"\n"[..], tail),
        &mut lines::Span {
            first: 2,
            last: u64::MAX,
        },
        |l| {
            let mut g = Got::of(&l);
            g.number -= 1;
            g.offset = g.offset - 1 + start;
            got.push(g);
        },
    )?;
    Ok(got)
}

/// Remembers what the forward pass learned, unless the file changed under it.
pub(super) fn remember(p: Pending, src: &Content, scan: &lines::Scan) {
    let same = src.metadata().map(|m| Key::of(&m) == p.key);
    if matches!(same, Ok(true)) && scan.size == p.key.size {
        p.cache.put(
            &p.key,
            p.stamp_ns,
            Facts {
                lines: Some(scan.total_lines),
                hash: Some(scan.hash.clone()),
            },
        );
    }
}

/// The bytes from the start of the `n`th line from the end to the end, and that
/// start (0 when the file has no more than `n` lines); None when the lines are
/// longer than `MAX_BACK`.
fn back(file: &File, size: u64, n: u64) -> std::io::Result<Option<(u64, Vec<u8>)>> {
    // Chunks from the end backwards, joined once the start is found.
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut end = size;
    let mut seen = 0u64;
    // The file's final LF ends the last line; it does not start one.
    let mut skip_last = true;
    let join = |mut out: Vec<u8>, parts: &[Vec<u8>]| {
        for p in parts.iter().rev() {
            out.extend_from_slice(p);
        }
        out
    };
    while end > 0 && size - end < MAX_BACK {
        let from = end.saturating_sub(STEP);
        let mut chunk = vec![0u8; (end - from) as usize];
        file.read_exact_at(&mut chunk, from)?;
        let mut hay = &chunk[..];
        if skip_last {
            skip_last = false;
            if hay.last() == Some(&b'\n') {
                hay = &hay[..hay.len() - 1];
            }
        }
        for nl in memchr::memrchr_iter(b'\n', hay) {
            seen += 1;
            if seen == n {
                let start = from + nl as u64 + 1;
                let out = chunk.split_off(nl + 1);
                return Ok(Some((start, join(out, &parts))));
            }
        }
        parts.push(chunk);
        end = from;
    }
    if end == 0 {
        return Ok(Some((0, join(Vec::new(), &parts))));
    }
    Ok(None)
}

/// Newlines in the file's first `upto` bytes.
fn count_newlines(file: &File, upto: u64) -> std::io::Result<u64> {
    let mut buf = vec![0u8; lines::CHUNK];
    let mut at = 0u64;
    let mut count = 0u64;
    while at < upto {
        let want = ((upto - at) as usize).min(buf.len());
        let got = file.read_at(&mut buf[..want], at)?;
        if got == 0 {
            break;
        }
        count += memchr::memchr_iter(b'\n', &buf[..got]).count() as u64;
        at += got as u64;
    }
    Ok(count)
}
