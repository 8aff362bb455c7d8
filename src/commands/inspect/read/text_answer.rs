//! `read --as text`'s answer: a binary file's facts, else the lines the selector
//! picked (`pick`), decoded, cut, escaped and masked.

use super::bytes::read_at;
use super::lines_view::{Fail, Opened, lossy};
use super::pick::{Picked, Source};
use super::{BinaryOut, ReadArgs, Selector, TextOut, hex_dump_command, next_command};
use crate::protocol::{Output, redact, shell};
use crate::store::files::{Content, File};
use crate::text::decode::Encoding;
use crate::text::{self, MAX_LINE_BYTES, invisible, lines};
use crate::workspace::Ctx;
use std::io::{Seek, SeekFrom};

pub(super) fn text_view(
    ctx: &Ctx,
    args: &ReadArgs,
    src: &Content,
    shown: String,
    sel: Selector,
    enc: Option<Encoding>,
) -> Result<Output, Fail> {
    // The sniff's descriptor is the first pass's: the file is opened once.
    let mut first = None;
    if enc.is_none() {
        match binary_view(ctx, args, src, &shown)? {
            Sniffed::Binary(out) => return Ok(out),
            Sniffed::Text(f) => first = Some(f),
        }
    }
    let opened = Opened {
        src,
        first: std::cell::RefCell::new(first),
    };
    let picked = Source {
        ctx,
        args,
        src: &opened,
        enc,
    }
    .pick(sel)?;
    Ok(shown_lines(ctx, args, shown, enc, picked))
}

/// What the sniff of a file's head found.
enum Sniffed {
    Binary(Output),
    /// Text: the file as opened for the sniff.
    Text(File),
}

/// The binary answer (size, mime, hash) when the file's head sniffs as binary,
/// with `--encoding` offered for a UTF-16 byte order mark.
fn binary_view(ctx: &Ctx, args: &ReadArgs, src: &Content, shown: &str) -> Result<Sniffed, Fail> {
    let mut file = src.open()?;
    let head = read_at(&mut file, 0, text::sniff::SNIFF_BYTES as u64)?;
    if !text::sniff::is_binary(&head) {
        return Ok(Sniffed::Text(file));
    }
    file.seek(SeekFrom::Start(0))?;
    let scan = lines::scan(file, &mut lines::Span { first: 0, last: 0 }, |_| {})?;
    let utf16 = match head.get(..2) {
        Some([0xFF, 0xFE]) => Some("utf-16le"),
        Some([0xFE, 0xFF]) => Some("utf-16be"),
        _ => None,
    };
    let next_commands = utf16
        .map(|e| next_command(ctx, args, &["--encoding".into(), e.into()], false))
        .into_iter()
        .collect();
    Ok(Sniffed::Binary(Output::ok(&BinaryOut {
        mode: "text",
        path: shown.to_string(),
        binary: true,
        size: scan.size,
        mime: text::sniff::mime(&head, args.path(), true),
        hash: scan.hash,
        next_commands,
    })))
}

/// The picked lines decoded, cut, escaped and masked, as the text answer.
fn shown_lines(
    ctx: &Ctx,
    args: &ReadArgs,
    shown: String,
    enc: Option<Encoding>,
    p: Picked,
) -> Output {
    let Picked {
        got,
        scan,
        start_line,
        line_numbers,
        next_words,
        fast_hash,
        counted,
        truncated,
        lead,
        apart,
    } = p;
    // Decode, cut, escape.
    let mut encoding_errors = 0u64;
    let mut cut_lines = Vec::new();
    let mut first_cut_offset: Option<u64> = None;
    let mut out_lines = Vec::with_capacity(got.len());
    let mut anchors = args.anchors.then(|| Vec::with_capacity(got.len()));
    for g in &got {
        let mut text = if enc.is_some() {
            // Decoded text is UTF-8 already; its U+FFFD are the decoder's replacements.
            let t = String::from_utf8_lossy(&g.bytes).into_owned();
            encoding_errors += t.matches('\u{FFFD}').count() as u64;
            t
        } else {
            lossy(&g.bytes, &mut encoding_errors)
        };
        let mut cut = g.cut;
        if enc.is_some() {
            if let Some((i, _)) = text.char_indices().nth(MAX_LINE_BYTES) {
                text.truncate(i);
                cut = true;
            }
        } else if cut && first_cut_offset.is_none() {
            first_cut_offset = Some(g.offset + g.bytes.len() as u64);
        }
        if cut {
            cut_lines.push(g.number);
        }
        if let Some(a) = anchors.as_mut() {
            a.push(crate::text::anchor::tag(&text));
        }
        if args.escape_invisible {
            text = invisible::escape(&text, g.cr);
        }
        out_lines.push(text);
    }
    let mut premasked = redact::mask_after_lead(&lead, &mut out_lines);
    let shown_numbers = line_numbers.as_deref().unwrap_or_default();
    premasked += apart.mask(|n| shown_numbers.binary_search(&n).is_ok(), &mut out_lines);
    // A one-line file whose name is its value's key (`secrets/db_password`).
    if let [only] = &mut out_lines[..]
        && counted
        && scan.total_lines == 1
        && cut_lines.is_empty()
        && redact::path_names_secret(args.path())
    {
        premasked += redact::mask_named_by_path(args.path(), only);
    }
    let mut next_commands = Vec::new();
    if let Some(words) = next_words {
        next_commands.push(next_command(ctx, args, &words, true));
    }
    let hash = match fast_hash {
        Some(h) => h,
        None => Some(scan.hash),
    };
    if hash.is_none() {
        next_commands.push(shell::aitools(["info", args.path()]));
    }
    if let Some(off) = first_cut_offset {
        next_commands.push(hex_dump_command(ctx, args, off, off + 256));
    }
    let truncated = truncated || !cut_lines.is_empty();
    let out = TextOut {
        mode: "text",
        path: shown,
        start_line: counted.then_some(start_line),
        lines: out_lines,
        anchors,
        line_numbers,
        cut_lines: (!cut_lines.is_empty()).then_some(cut_lines),
        total_lines: counted.then_some(scan.total_lines),
        hash: hash.map(crate::protocol::compact::shown_hash),
        truncated,
        encoding_errors,
        encoding: enc.map(Encoding::name),
        next_commands,
    };
    Output::cut(&out, truncated).premasked(premasked)
}
