//! `read`'s byte views: the hex dump of a byte span (`--hex`) and the printable
//! strings of a binary file (`--strings`).

#[allow(unused_imports)]
use super::*;

pub(super) fn read_at(file: &mut File, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(offset))?;
    let mut buf = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut buf)?;
    Ok(buf)
}

pub(super) fn hex_view(
    ctx: &Ctx,
    args: &ReadArgs,
    src: &Content,
    shown: String,
    size: u64,
    (start, end): (u64, Option<u64>),
) -> Result<Output, CmdError> {
    let io = |e: std::io::Error| error::io_error("read", args.path(), &e);
    let start = start.min(size);
    let want_end = end.unwrap_or(size).min(size);
    let rows_bytes = args.max_lines.saturating_mul(16).min(MAX_HEX_BYTES);
    let shown_end = want_end.min(start.saturating_add(rows_bytes));
    let truncated = shown_end < want_end;
    let low = start.saturating_sub(HEX_MARGIN);
    let high = shown_end.saturating_add(HEX_MARGIN).min(size);
    let mut file = src.open().map_err(io)?;
    let mut buf = read_at(&mut file, low, high - low).map_err(io)?;
    // The file may have shrunk since stat: show what is there.
    let shown_end = shown_end.min(low + buf.len() as u64);
    let (a, b) = ((start - low) as usize, (shown_end - low) as usize);
    let mut masked = 0;
    if a < b {
        // Whole lines around the window, so a secret crossing its edge is seen whole.
        let ws = memchr::memrchr(b'\n', &buf[..a]).map_or(0, |i| i + 1);
        let we = memchr::memchr(b'\n', &buf[b..]).map_or(buf.len(), |i| b + i);
        // UTF-16 text (`41 00 4b 00 ...`) has its zero bytes, not its newlines,
        // between characters: it is masked over the whole margin.
        let mut spans = redact::secret_spans_wide(&buf);
        spans.extend(
            redact::secret_spans_bytes(&buf[ws..we])
                .into_iter()
                .map(|r| ws + r.start..ws + r.end),
        );
        // A file named for its one value (`secrets/db_password`), read whole.
        if low == 0 && low + buf.len() as u64 == size {
            spans.extend(redact::value_named_by_path(args.path(), &buf));
        }
        masked = shown_spans(&spans, a..b);
        for span in spans {
            for byte in buf.get_mut(span).unwrap_or_default() {
                *byte = b'*';
            }
        }
    }
    let window = buf.get(a..b).unwrap_or(&[]);
    let rows: Vec<HexRow> = window
        .chunks(16)
        .enumerate()
        .map(|(i, row)| HexRow {
            offset: start + 16 * i as u64,
            hex: row
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect::<Vec<_>>()
                .join(" "),
        })
        .collect();
    let mut next_commands = Vec::new();
    if shown_end < size {
        let next_end = if truncated {
            end.map(|e| e.to_string()).unwrap_or_default()
        } else {
            (shown_end + 256).min(size).to_string()
        };
        let words = vec![
            "--as".to_string(),
            "hex".into(),
            "--bytes".into(),
            format!("{shown_end}:{next_end}"),
        ];
        next_commands.push(next_command(ctx, args, &words, false));
    }
    let out = HexOut {
        mode: "hex",
        path: shown,
        size,
        start,
        end: shown_end,
        rows,
        truncated,
        next_commands,
    };
    Ok(Output::cut(&out, truncated).premasked(masked))
}

/// How many secrets the overwritten `spans` show in `window`: spans that overlap
/// are one secret (the wide and the byte pass may both find it).
fn shown_spans(spans: &[std::ops::Range<usize>], window: std::ops::Range<usize>) -> usize {
    let mut sorted: Vec<_> = spans.iter().filter(|r| r.start < r.end).cloned().collect();
    sorted.sort_by_key(|r| r.start);
    let mut n = 0;
    let mut end = 0;
    for r in sorted {
        let fresh = n == 0 || r.start >= end;
        end = if fresh { r.end } else { end.max(r.end) };
        if fresh && r.start < window.end && r.end > window.start {
            n += 1;
        }
    }
    n
}

/// The runs cut by the window's edges (the first, the last) lose the context that
/// makes their text a secret (`password = "` before a window that starts in the
/// value): mask them by the whole lines around them, as `hex_view` does. Runs
/// inside the window are whole and the envelope mask sees them as they are.
pub(super) fn mask_edge_runs(
    file: &mut File,
    items: &mut [StringItem],
    start: u64,
    stop_at: u64,
    size: u64,
) -> std::io::Result<()> {
    let n = items.len();
    for i in [0, n.saturating_sub(1)] {
        let Some(item) = items.get_mut(i) else {
            continue;
        };
        let len = item.text.len() as u64;
        let run_end = item.offset.saturating_add(len);
        let at_edge = (item.offset == start && start > 0) || (run_end >= stop_at && stop_at < size);
        if !at_edge || (i > 0 && n == 1) {
            continue;
        }
        let low = item.offset.saturating_sub(HEX_MARGIN);
        let high = run_end.saturating_add(HEX_MARGIN).min(size);
        let buf = read_at(file, low, high.saturating_sub(low))?;
        let (a, b) = ((item.offset - low) as usize, (run_end - low) as usize);
        // Only a run whose text is its bytes can be masked in place; others whole.
        if buf.get(a..b) != Some(item.text.as_bytes()) {
            continue;
        }
        let ws = memchr::memrchr(b'\n', &buf[..a]).map_or(0, |k| k + 1);
        let we = memchr::memchr(b'\n', &buf[b..]).map_or(buf.len(), |k| b + k);
        let spans: Vec<std::ops::Range<usize>> = redact::secret_spans_bytes(&buf[ws..we])
            .into_iter()
            .map(|r| r.start + ws..r.end + ws)
            .collect();
        if spans.iter().any(|r| r.start < b && a < r.end) {
            item.text = redact::mask_part(&buf, &spans, a..b);
        }
    }
    Ok(())
}

/// A file named for its one value (`secrets/db_password`): the runs inside the
/// value show the mask, as `read` shows it.
fn mask_named_runs(file: &mut File, path: &str, items: &mut [StringItem], size: u64) {
    if items.is_empty() || size > redact::NAMED_MAX_BYTES as u64 || !redact::path_names_secret(path)
    {
        return;
    }
    let Ok(whole) = read_at(file, 0, size) else {
        return;
    };
    let Some(r) = redact::value_named_by_path(path, &whole) else {
        return;
    };
    for item in items.iter_mut() {
        let at = item.offset as usize;
        if at < r.end && r.start < at + item.text.len() && item.text != redact::PLACEHOLDER {
            item.text = redact::PLACEHOLDER.to_string();
            redact::tally_shown(1);
        }
    }
}

pub(super) fn strings_view(
    ctx: &Ctx,
    args: &ReadArgs,
    src: &Content,
    shown: String,
    size: u64,
    (start, end): (u64, Option<u64>),
) -> Result<Output, CmdError> {
    let io = |e: std::io::Error| error::io_error("read", args.path(), &e);
    let start = start.min(size);
    let stop_at = end.unwrap_or(size).min(size);
    let mut file = src.open().map_err(io)?;
    file.seek(SeekFrom::Start(start)).map_err(io)?;
    let mut reader = file.take(stop_at - start);
    let mut scanner = strings::Scanner::new(args.min_length as usize, MAX_LINE_BYTES, start);
    let mut items: Vec<StringItem> = Vec::new();
    let mut resume: Option<u64> = None;
    let mut first_cut: Option<u64> = None;
    let mut last_end = start;
    let max = args.max_lines as usize;
    let mut buf = vec![0u8; lines::CHUNK];
    let mut emit = |r: strings::Run| {
        if items.len() >= max {
            resume = Some(last_end);
            return false;
        }
        if r.cut_at.is_some() && first_cut.is_none() {
            first_cut = r.cut_at;
        }
        last_end = r.end;
        items.push(StringItem {
            offset: r.offset,
            text: r.text,
            cut: r.cut_at.is_some(),
        });
        true
    };
    loop {
        let n = match reader.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        if !scanner.feed(&buf[..n], n == 0, &mut emit) || n == 0 {
            break;
        }
    }
    let mut file = reader.into_inner();
    mask_edge_runs(&mut file, &mut items, start, stop_at, size).map_err(io)?;
    mask_named_runs(&mut file, args.path(), &mut items, size);
    let truncated = resume.is_some() || first_cut.is_some();
    let mut next_commands = Vec::new();
    if let Some(at) = resume {
        let mut words = vec![
            "--as".to_string(),
            "strings".into(),
            "--bytes".into(),
            format!("{at}:{}", end.map(|e| e.to_string()).unwrap_or_default()),
        ];
        if args.min_length != 4 {
            words.push("--min-length".into());
            words.push(args.min_length.to_string());
        }
        next_commands.push(next_command(ctx, args, &words, false));
    }
    if let Some(cut) = first_cut {
        next_commands.push(hex_dump_command(ctx, args, cut, (cut + 256).min(size)));
    }
    let out = StringsOut {
        mode: "strings",
        path: shown,
        size,
        strings: items,
        truncated,
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}
