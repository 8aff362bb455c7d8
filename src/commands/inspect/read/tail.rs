//! `read --tail`'s short path: the last lines read backwards from the end, the
//! line count and hash taken from the store's hash cache when it knows the file's
//! exact bytes. On a miss a small file takes the ordinary forward pass (which
//! fills the cache); a large one is counted (newlines only, no hash) and answered
//! with hash null and the `info` command that hashes it.

#[allow(unused_imports)]
use super::*;
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
    pub(super) got: Vec<Got>,
    pub(super) start_line: u64,
    pub(super) total_lines: u64,
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
pub(super) fn fast(ctx: &Ctx, src: &Content, n: u64) -> std::io::Result<Tail> {
    let stamp_ns = hashcache::now_ns();
    let file = src.open()?;
    let meta = file.metadata()?;
    let size = meta.len();
    if size < CACHE_MIN || n == 0 {
        return Ok(Tail::Forward(None));
    }
    let Some(cache) = HashCache::open(&ctx.root) else {
        return Ok(Tail::Forward(None));
    };
    let key = Key::of(&meta);
    let known = cache.get(&key).and_then(|f| Some((f.lines?, f.hash)));
    if known.is_none() && size <= HASH_INLINE_MAX {
        return Ok(Tail::Forward(Some(Pending {
            cache,
            key,
            stamp_ns,
        })));
    }
    let Some((start, tail)) = back(&file, size, n)? else {
        return Ok(Tail::Forward(None));
    };
    // A leading "\n" makes the slice's first line an empty line 1 that is not
    // wanted, and keeps a line starting with EF BB BF from being taken for a BOM.
    let mut got = Vec::new();
    let scan = lines::scan(
        std::io::Read::chain(&b"\n"[..], &tail[..]),
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
    let k = scan.total_lines.saturating_sub(1);
    let (total_lines, hash) = match known {
        Some(known) => known,
        None => {
            let before = count_newlines(&file, start)?;
            let total = before + k;
            // Re-checked: bytes that changed under the count are not remembered.
            if Key::of(&src.metadata()?) == key {
                cache.put(
                    &key,
                    stamp_ns,
                    Facts {
                        lines: Some(total),
                        hash: None,
                    },
                );
            }
            (total, None)
        }
    };
    let first = total_lines + 1 - k.min(total_lines);
    for g in &mut got {
        g.number += first - 1;
    }
    Ok(Tail::Done(Fast {
        got,
        start_line: first,
        total_lines,
        hash,
    }))
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
/// start; None when the lines reach the file's start (no line before them to
/// count from) or are longer than `MAX_BACK`.
fn back(file: &File, size: u64, n: u64) -> std::io::Result<Option<(u64, Vec<u8>)>> {
    // Chunks from the end backwards, joined once the start is found.
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let mut end = size;
    let mut seen = 0u64;
    // The file's final LF ends the last line; it does not start one.
    let mut skip_last = true;
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
                let mut out = chunk.split_off(nl + 1);
                for p in parts.iter().rev() {
                    out.extend_from_slice(p);
                }
                return Ok(Some((start, out)));
            }
        }
        parts.push(chunk);
        end = from;
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
