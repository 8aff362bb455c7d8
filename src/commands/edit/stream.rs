//! One `--old` edit of a large file (`store::stream::STREAM_FROM` bytes or more)
//! without holding it: a streaming pass finds `--old` (hashing the file and
//! checking it is UTF-8 text as it goes), the text around the one place it
//! occurs decides what replaces it (as `edit_cmd::splice_old` does), and the
//! store writes the new file from the old one's head and tail
//! (`Change::SpliceStream`). Anything else (no place, several, not UTF-8, a
//! `--new` to re-indent, a line too long to show) is left to the whole-file path.

use super::common;
use super::matching;
use crate::protocol::CmdError;
use crate::store::guard::{self, ExpectHash};
use crate::store::stream::{self, STREAM_FROM};
use crate::store::write::Change;
use crate::workspace::{Ctx, paths};
use std::sync::Arc;

/// The real path and its display name when `arg` is a regular file of
/// `STREAM_FROM` bytes or more inside the root, outside a transaction (which
/// stages whole files); `None` sends the caller to the whole-file path.
fn large_target(ctx: &Ctx, arg: &str) -> Result<Option<(std::path::PathBuf, String)>, CmdError> {
    if ctx.tx.is_some() {
        return Ok(None);
    }
    let abs = ctx.path_arg(arg)?;
    let (real, lstat) = paths::real_path_lstat(ctx.dirs(), &abs);
    if !lstat.is_some_and(|m| m.file_type().is_file() && m.len() >= STREAM_FROM) {
        return Ok(None);
    }
    let display = ctx.display_real(&real);
    common::check_inside(ctx, &real, &display)?;
    Ok(Some((real, display)))
}

/// The changes (none when the edit changes nothing) and where `new` landed
/// (`S` or `S:E`); `None`: not a large file, or not an edit this path makes.
pub fn edit_old(
    ctx: &Ctx,
    arg: &str,
    old: &str,
    new: &str,
    expect: &ExpectHash,
) -> Result<Option<(Vec<Change>, String)>, CmdError> {
    if old.is_empty() {
        return Ok(None);
    }
    let Some((real, display)) = large_target(ctx, arg)? else {
        return Ok(None);
    };
    for v in matching::variants(old) {
        let scan = stream::scan(&real, v.as_bytes())
            .map_err(|e| crate::protocol::error::io_error(&ctx.command, &display, &e))?;
        match scan.count {
            0 => continue,
            1 => {}
            _ => return Ok(None),
        }
        let bom = scan.head.starts_with(crate::text::BOM);
        if !scan.utf8
            || crate::text::sniff::is_binary(&scan.head)
            || (bom && scan.at < crate::text::BOM.len() as u64)
        {
            return Ok(None);
        }
        let Some(ex_at) = scan.excerpt_at else {
            return Ok(None);
        };
        // The excerpt may end inside a character.
        let text = match std::str::from_utf8(&scan.excerpt) {
            Ok(t) => t,
            Err(e) => std::str::from_utf8(&scan.excerpt[..e.valid_up_to()]).unwrap_or_default(),
        };
        let local = (scan.at - ex_at) as usize;
        let range = local..local + v.len();
        if text.get(range.clone()).is_none() {
            return Ok(None);
        }
        let (lf, crlf, to_eof) = (scan.lf, scan.crlf, scan.to_eof);
        // The line has no ending only when it is the file's last.
        let dominant = || to_eof.then_some(if crlf > lf - crlf { "\r\n" } else { "\n" });
        let Some((splice, at)) = place(text, range, old, new, scan.lines_before, dominant) else {
            return Ok(None);
        };
        if let Some(h) = expect.for_target(arg, &display, true) {
            guard::check_hash(&display, h, Some(&scan.hash))?;
        }
        let Some((r, with)) = splice else {
            return Ok(Some((Vec::new(), at)));
        };
        // The answer's diff is of a window of the excerpt: one it holds whole.
        if with.as_bytes().contains(&0) || scan.window(r.clone(), with.as_bytes()).is_none() {
            return Ok(None);
        }
        let range = ex_at + r.start as u64..ex_at + r.end as u64;
        let change = Change::SpliceStream {
            path: real,
            base: Arc::new(scan),
            range,
            with: with.into_bytes(),
        };
        return Ok(Some((vec![change], at)));
    }
    Ok(None)
}

/// `insert --at start|end` of a large file (`STREAM_FROM` bytes or more, UTF-8
/// text without a BOM, outside a tx): one pass hashes it and counts its line
/// endings, and the store writes it with `content` (as whole lines, in the
/// ending `Doc::insert_lines` gives them) spliced in at its start or end
/// (`Change::SpliceStream`). The changes and the line the content starts at;
/// `None` leaves the call to the whole-file path.
pub fn insert_at(
    ctx: &Ctx,
    arg: &str,
    end: bool,
    content: &str,
    expect: &ExpectHash,
) -> Result<Option<(Vec<Change>, u64)>, CmdError> {
    let Some((real, display)) = large_target(ctx, arg)? else {
        return Ok(None);
    };
    let io = |e: std::io::Error| crate::protocol::error::io_error(&ctx.command, &display, &e);
    let mut scan = stream::scan(&real, b"").map_err(io)?;
    if !scan.utf8
        || crate::text::sniff::is_binary(&scan.head)
        || scan.head.starts_with(crate::text::BOM)
    {
        return Ok(None);
    }
    let at = if end { scan.len } else { 0 };
    if !scan.excerpt_around(at).map_err(io)? {
        return Ok(None);
    }
    let ex = &scan.excerpt;
    let tail = scan
        .read(scan.len.saturating_sub(2)..scan.len)
        .map_err(io)?;
    let terminated = tail.last() == Some(&b'\n');
    let dominant = if scan.crlf > scan.lf - scan.crlf {
        "\r\n"
    } else {
        "\n"
    };
    // The ending of the line the content goes before (the first) or after (the last).
    let line_end = |line: &[u8]| match line {
        [.., b'\r', b'\n'] => "\r\n",
        [.., b'\n'] => "\n",
        _ => dominant,
    };
    let (eol, lead) = if end {
        (line_end(&tail), if terminated { "" } else { dominant })
    } else {
        match memchr::memchr(b'\n', ex) {
            Some(i) => (line_end(&ex[..=i]), ""),
            None if scan.to_eof => (dominant, ""),
            None => return Ok(None),
        }
    };
    let with = format!("{lead}{}", crate::text::doc::Doc::as_lines(content, eol));
    if let Some(h) = expect.for_target(arg, &display, true) {
        guard::check_hash(&display, h, Some(&scan.hash))?;
    }
    let local = (at - scan.excerpt_at.unwrap_or(at)) as usize;
    if with.as_bytes().contains(&0) || scan.window(local..local, with.as_bytes()).is_none() {
        return Ok(None);
    }
    // The line it starts at: 1, or past the last line (a final line without
    // an ending counts too).
    let line = if end {
        scan.lf + u64::from(!terminated) + 1
    } else {
        1
    };
    let change = Change::SpliceStream {
        path: real,
        base: Arc::new(scan),
        range: at..at,
        with: with.into_bytes(),
    };
    Ok(Some((vec![change], line)))
}

/// A byte range replaced and the text that replaces it.
pub type Splice = (std::ops::Range<usize>, String);

/// `splice_old` once `--old` was found once at `range` of `text` (the file, or
/// the part of it from a line's start that holds the range and what follows
/// it): the range and text that replace it, and where `new` landed. The line
/// ending `new` takes is the one of the line the match starts on, or when that
/// line has none, `dominant()`'s (the file's most common; `None`: not known).
/// `lines_before`: the lines of the file before `text`.
pub fn place(
    text: &str,
    range: std::ops::Range<usize>,
    old: &str,
    new: &str,
    lines_before: u64,
    dominant: impl FnOnce() -> Option<&'static str>,
) -> Option<(Option<Splice>, String)> {
    // A --new to re-indent: the document path does that and says so.
    if matching::fit_exact(text, range.clone(), old, new).is_some() {
        return None;
    }
    // The ending of the line the match starts on, or the file's dominant one
    // when that line has none (as `Doc::eol_at`).
    let eol = match memchr::memchr(b'\n', text.as_bytes().get(range.start..)?) {
        Some(i) if range.start + i > 0 && text.as_bytes()[range.start + i - 1] == b'\r' => "\r\n",
        Some(_) => "\n",
        None => dominant()?,
    };
    let with = crate::text::doc::with_eol(new, eol);
    let before = memchr::memchr_iter(b'\n', text.as_bytes().get(..range.start)?).count() as u64;
    let start = 1 + lines_before + before;
    let body = with.strip_suffix('\n').unwrap_or(&with);
    let end = start + memchr::memchr_iter(b'\n', body.as_bytes()).count() as u64;
    let at = if end > start {
        format!("{start}:{end}")
    } else {
        start.to_string()
    };
    if text.get(range.clone())? == with {
        return Some((None, at));
    }
    Some((Some((range, with)), at))
}
