//! `read`'s text view: the streaming line pass (plain or decoded), the
//! selectors applied to it, and the errors and definition spans it reports.

#[allow(unused_imports)]
use super::*;
use crate::protocol::redact;

pub(super) enum Fail {
    Io(std::io::Error),
    Cmd(CmdError),
}

impl From<std::io::Error> for Fail {
    fn from(e: std::io::Error) -> Fail {
        Fail::Io(e)
    }
}

impl From<CmdError> for Fail {
    fn from(e: CmdError) -> Fail {
        Fail::Cmd(e)
    }
}

/// A collected line, before decoding.
pub(super) struct Got {
    pub(super) number: u64,
    pub(super) offset: u64,
    pub(super) bytes: Vec<u8>,
    pub(super) cut: bool,
    pub(super) cr: bool,
}

impl Got {
    pub(super) fn of(l: &lines::Line<'_>) -> Got {
        Got {
            number: l.number,
            offset: l.offset,
            bytes: l.bytes.to_vec(),
            cut: l.cut,
            cr: l.had_cr,
        }
    }
}

/// Lines from `from` on while `stop` is unset.
pub(super) struct Until<'a> {
    from: u64,
    stop: &'a Cell<bool>,
}

impl lines::Want for Until<'_> {
    fn wants(&mut self, line: u64) -> bool {
        line >= self.from && !self.stop.get()
    }
    fn done_after(&self, _: u64) -> bool {
        self.stop.get()
    }
}

/// One pass over the file's text (decoded when `enc` is set): the scan facts
/// and the file's hash.
pub(super) fn pass<W: lines::Want>(
    src: &Content,
    enc: Option<Encoding>,
    want: &mut W,
    sink: impl FnMut(lines::Line<'_>),
) -> std::io::Result<lines::Scan> {
    pass_holding(src, enc, 0, want, sink)
}

/// `pass` whose lines carry up to `hold` bytes in `Line::whole` (what a
/// selector's pattern is matched against; the display is still cut).
pub(super) fn pass_holding<W: lines::Want>(
    src: &Content,
    enc: Option<Encoding>,
    hold: usize,
    want: &mut W,
    sink: impl FnMut(lines::Line<'_>),
) -> std::io::Result<lines::Scan> {
    let file = src.open()?;
    match enc {
        None => lines::scan_holding(file, want, MAX_LINE_BYTES, hold, sink),
        Some(e) => {
            let mut dec = DecodeReader::new(file, e);
            // Decoded lines are cut by characters: up to 4 bytes each.
            let mut scan = lines::scan_holding(&mut dec, want, 4 * MAX_LINE_BYTES, hold, sink)?;
            scan.hash = dec.hash();
            scan.size = dec.size();
            Ok(scan)
        }
    }
}

pub(super) fn text_view(
    ctx: &Ctx,
    args: &ReadArgs,
    src: &Content,
    shown: String,
    sel: Selector,
    enc: Option<Encoding>,
) -> Result<Output, Fail> {
    let max = args.max_lines;
    if enc.is_none() {
        let mut file = src.open()?;
        let head = read_at(&mut file, 0, text::sniff::SNIFF_BYTES as u64)?;
        if text::sniff::is_binary(&head) {
            drop(file);
            let scan = lines::scan(src.open()?, &mut lines::Span { first: 0, last: 0 }, |_| {})?;
            let utf16 = match head.get(..2) {
                Some([0xFF, 0xFE]) => Some("utf-16le"),
                Some([0xFE, 0xFF]) => Some("utf-16be"),
                _ => None,
            };
            let next_commands = utf16
                .map(|e| next_command(ctx, args, &["--encoding".into(), e.into()], false))
                .into_iter()
                .collect();
            return Ok(Output::ok(&BinaryOut {
                mode: "text",
                path: shown,
                binary: true,
                size: scan.size,
                mime: text::sniff::mime(&head, args.path(), true),
                hash: scan.hash,
                next_commands,
            }));
        }
    }
    let mut got: Vec<Got> = Vec::new();
    let mut line_numbers: Option<Vec<u64>> = None;
    let mut next_words: Option<Vec<String>> = None;
    let scan;
    let start_line;
    // Set by the short --tail path: the cached hash, or null when not known yet.
    let mut fast_hash: Option<Option<String>> = None;
    // False when the short --tail path did not count the file's lines.
    let mut counted = true;
    let mut truncated = false;
    // The lines just before a range, for the mask (`redact::mask_after_lead`).
    let mut lead: Vec<String> = Vec::new();
    // Shown lines (by index) that start inside a multi-line value, and the mask's
    // state before each (`read --match`).
    let mut apart = redact::Apart::default();
    match sel {
        Selector::All | Selector::Range(_) | Selector::Symbol(_) => {
            let (first, last) = match &sel {
                Selector::Range(r) => (r.start, r.end.unwrap_or(u64::MAX)),
                Selector::Symbol(name) => symbol_span(args, src, enc, name)?,
                _ => (1, u64::MAX),
            };
            let cap_last = last.min(first.saturating_add(max - 1));
            let from = match sel {
                Selector::Range(_) => first.saturating_sub(redact::LEAD_LINES as u64).max(1),
                _ => first,
            };
            scan = pass(
                src,
                enc,
                &mut lines::Span {
                    first: from,
                    last: cap_last,
                },
                |l| got.push(Got::of(&l)),
            )?;
            let before = got.iter().take_while(|g| g.number < first).count();
            let mut errors = 0;
            lead = got
                .drain(..before)
                .map(|g| lossy(&g.bytes, &mut errors))
                .collect();
            if first > scan.total_lines && !(first == 1 && scan.total_lines == 0) {
                return Err(beyond_end(args, first, scan.total_lines).into());
            }
            start_line = first;
            let wanted_last = last.min(scan.total_lines);
            let returned_last = first + got.len() as u64 - 1;
            truncated = !got.is_empty() && returned_last < wanted_last;
            // A whole definition is the answer: nothing past it is offered.
            let whole_symbol = matches!(sel, Selector::Symbol(_)) && !truncated;
            if got.len() as u64 > 0 && returned_last < scan.total_lines && !whole_symbol {
                // A cut selection continues to its own end (the next call pages it
                // again, partial until done); a complete one offers the next page.
                let end = if truncated {
                    wanted_last
                } else {
                    scan.total_lines.min(returned_last + max)
                };
                next_words = Some(vec![
                    "--range".into(),
                    format!("{}:{end}", returned_last + 1),
                ]);
            }
        }
        Selector::Tail(n) if n <= max => {
            let short = match enc {
                Some(_) => tail::Tail::Forward(None),
                None => tail::fast(ctx, src, n)?,
            };
            match short {
                tail::Tail::Done(f) => {
                    fast_hash = Some(f.hash);
                    counted = f.total_lines.is_some();
                    let mut errors = 0;
                    lead = f
                        .lead
                        .iter()
                        .map(|g| lossy(&g.bytes, &mut errors))
                        .collect();
                    got = f.got;
                    start_line = got.first().map_or(1, |g| g.number);
                    scan = lines::Scan {
                        total_lines: f.total_lines.unwrap_or_default(),
                        ..Default::default()
                    };
                }
                tail::Tail::Forward(pending) => {
                    // The lines before the tail too, for the mask.
                    let keep = n.saturating_add(redact::LEAD_LINES as u64);
                    let mut ring: VecDeque<Got> = VecDeque::with_capacity(keep as usize);
                    scan = pass(src, enc, &mut lines::All, |l| {
                        if ring.len() as u64 == keep
                            && let Some(mut slot) = ring.pop_front()
                        {
                            slot.number = l.number;
                            slot.offset = l.offset;
                            slot.bytes.clear();
                            slot.bytes.extend_from_slice(l.bytes);
                            slot.cut = l.cut;
                            slot.cr = l.had_cr;
                            ring.push_back(slot);
                            return;
                        }
                        ring.push_back(Got::of(&l));
                    })?;
                    got = ring.into_iter().collect();
                    let mut errors = 0;
                    let before = got.len().saturating_sub(n as usize);
                    lead = got
                        .drain(..before)
                        .map(|g| lossy(&g.bytes, &mut errors))
                        .collect();
                    start_line = got.first().map_or(1, |g| g.number);
                    if let Some(p) = pending {
                        tail::remember(p, src, &scan);
                    }
                }
            }
        }
        Selector::Tail(n) => {
            let total = pass(src, enc, &mut lines::Span { first: 0, last: 0 }, |_| {})?.total_lines;
            let first = total.saturating_sub(n) + 1;
            let cap_last = first.saturating_add(max - 1);
            scan = pass(
                src,
                enc,
                &mut lines::Span {
                    first: first.saturating_sub(redact::LEAD_LINES as u64).max(1),
                    last: cap_last,
                },
                |l| got.push(Got::of(&l)),
            )?;
            let mut errors = 0;
            let before = got.iter().take_while(|g| g.number < first).count();
            lead = got
                .drain(..before)
                .map(|g| lossy(&g.bytes, &mut errors))
                .collect();
            start_line = first;
            let returned_last = first + got.len() as u64 - 1;
            truncated = !got.is_empty() && returned_last < scan.total_lines;
            if truncated {
                next_words = Some(vec![
                    "--range".into(),
                    format!("{}:{}", returned_last + 1, scan.total_lines),
                ]);
            }
        }
        Selector::Match {
            re,
            invert,
            from,
            within,
        } => {
            let stop = Cell::new(false);
            let mut more = false;
            let mut numbers = Vec::new();
            let last = within.and_then(|r| r.end).unwrap_or(u64::MAX);
            // The mask's line machine goes over every line from up to
            // `LEAD_LINES` before `from`: a matched line inside a key's multi-line
            // value (a YAML block scalar, a private key) is masked as in the file.
            let want = &mut Until {
                from: from.saturating_sub(redact::LEAD_LINES as u64).max(1),
                stop: &stop,
            };
            scan = pass_holding(src, enc, MAX_MATCHED_LINE_BYTES, want, |l| {
                if l.number > last {
                    stop.set(true);
                    return;
                }
                let before = apart.feed(l.number, l.whole);
                // The whole line is matched; only its display is cut.
                if l.number < from || re.is_match(l.whole) == invert {
                    return;
                }
                if (got.len() as u64) < max {
                    numbers.push(l.number);
                    apart.keep(before, got.len());
                    got.push(Got::of(&l));
                } else {
                    more = true;
                    stop.set(true);
                }
            })?;
            if got.is_empty() {
                return Err(no_match(
                    args,
                    format!(
                        "No line{} of {} {} /{}/.",
                        match (from > 1, last) {
                            (_, u64::MAX) if from > 1 => format!(" from {from} on"),
                            (_, u64::MAX) => String::new(),
                            _ => format!(" from {from} to {last}"),
                        },
                        args.path(),
                        if invert { "fails to match" } else { "matches" },
                        args.pattern.as_deref().unwrap_or_default()
                    ),
                )
                .into());
            }
            start_line = numbers.first().copied().unwrap_or(1);
            truncated = more;
            if more {
                let mut words = vec![
                    "--match".to_string(),
                    args.pattern.clone().unwrap_or_default(),
                ];
                if invert {
                    words.push("--invert".into());
                }
                let next = numbers.last().copied().unwrap_or(0) + 1;
                if let Some(r) = within {
                    // The rest of the range, the same bound.
                    words.push("--range".into());
                    words.push(match r.end {
                        Some(e) => format!("{next}:{e}"),
                        None => format!("{next}:"),
                    });
                } else {
                    words.push("--from-line".into());
                    words.push(next.to_string());
                }
                next_words = Some(words);
            }
            line_numbers = Some(numbers);
        }
        Selector::Between {
            start,
            end,
            exclusive,
            from,
        } => {
            let stop = Cell::new(false);
            let mut begin: Option<u64> = None;
            let mut finish: Option<u64> = None;
            scan = pass_holding(
                src,
                enc,
                MAX_MATCHED_LINE_BYTES,
                &mut Until { from, stop: &stop },
                |l| match begin {
                    None => {
                        if start.is_match(l.whole) {
                            begin = Some(l.number);
                            if !exclusive {
                                got.push(Got::of(&l));
                            }
                        }
                    }
                    Some(_) => {
                        if end.is_match(l.whole) {
                            finish = Some(l.number);
                            if !exclusive && (got.len() as u64) < max {
                                got.push(Got::of(&l));
                            }
                            stop.set(true);
                        } else if (got.len() as u64) < max {
                            got.push(Got::of(&l));
                        }
                    }
                },
            )?;
            let pats = args.between.clone().unwrap_or_default();
            let (Some(b), Some(e)) = (begin, finish) else {
                let msg = match begin {
                    None => format!(
                        "No line of {} matches START /{}/.",
                        args.path(),
                        pats.first().cloned().unwrap_or_default()
                    ),
                    Some(b) => format!(
                        "Line {b} matches START, but no later line matches END /{}/.",
                        pats.get(1).cloned().unwrap_or_default()
                    ),
                };
                let mut err = no_match(args, msg);
                if let Some(b) = begin {
                    err = err.with_first_repair(Repair::new(
                        "read",
                        "Read from the START line to the end of the file.",
                        next_command(ctx, args, &["--range".into(), format!("{b}:")], true),
                    ));
                }
                return Err(err.into());
            };
            let (first, last) = if exclusive { (b + 1, e - 1) } else { (b, e) };
            start_line = first;
            let returned_last = first + got.len() as u64 - 1;
            truncated = first <= last && returned_last < last;
            if truncated {
                next_words = Some(vec![
                    "--range".into(),
                    format!("{}:{last}", returned_last + 1),
                ]);
            }
        }
    }

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
    Ok(Output::cut(&out, truncated).premasked(premasked))
}

/// Lossy UTF-8, counting each malformed sequence replaced.
pub(super) fn lossy(bytes: &[u8], errors: &mut u64) -> String {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.to_string();
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            out.push('\u{FFFD}');
            *errors += 1;
        }
    }
    out
}

pub(super) fn beyond_end(args: &ReadArgs, first: u64, total: u64) -> CmdError {
    CmdError::new(
        code::NO_MATCH,
        format!(
            "{} has {total} lines; line {first} does not exist.",
            args.path()
        ),
        Repair::new(
            "read",
            "Read the end of the file.",
            shell::aitools(["read", args.path(), "--tail", "20"]),
        ),
    )
}

pub(super) fn no_match(args: &ReadArgs, message: String) -> CmdError {
    CmdError::new(
        code::NO_MATCH,
        message,
        Repair::new(
            "read",
            "Read the file to choose another selection.",
            shell::aitools(["read", args.path()]),
        ),
    )
}

/// The lines of the one definition `--symbol` (and `--kind`) name.
pub(super) fn symbol_span(
    args: &ReadArgs,
    src: &Content,
    enc: Option<Encoding>,
    name: &str,
) -> Result<(u64, u64), Fail> {
    let size = src.metadata()?.len();
    if size > MAX_SYMBOL_FILE {
        return Err(CmdError::new(
            code::TOO_LARGE,
            format!(
                "{} is {size} bytes; --symbol reads at most {MAX_SYMBOL_FILE}.",
                args.path()
            ),
            Repair::new(
                "read",
                "Find the definition's line with --match instead.",
                shell::aitools(["read", args.path(), "--match", name]),
            ),
        )
        .into());
    }
    let bytes = src.read()?;
    let text = match enc {
        Some(e) => decode::decode_all(&bytes, e).0,
        None => String::from_utf8_lossy(&bytes).into_owned(),
    };
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    let kind = args.kind.as_deref();
    match select::one_definition(args.path(), text, name, kind) {
        Ok(one) => Ok((one.start_line, one.end_line.max(one.start_line))),
        Err(select::SymbolError::UnsupportedLanguage) => Err(CmdError::new(
            code::UNSUPPORTED_LANGUAGE,
            format!(
                "No language of the outline table covers {}, so --symbol cannot find definitions in it.",
                args.path()
            ),
            Repair::new(
                "read",
                "Find the definition's line with --match instead.",
                shell::aitools(["read", args.path(), "--match", name]),
            ),
        )
        .into()),
        Err(select::SymbolError::NoSymbol { .. }) => Err(CmdError::new(
            code::NO_MATCH,
            format!(
                "{} has no definition named {name}{}.",
                args.path(),
                args.kind
                    .as_deref()
                    .map(|k| format!(" of kind {k}"))
                    .unwrap_or_default()
            ),
            Repair::new(
                "outline",
                "List the file's definitions (name, kind, container) and pick one.",
                shell::aitools(["code", "outline", args.path()]),
            ),
        )
        .with_repair(Repair::new(
            "defs",
            "Look for the definition in the other files.",
            shell::aitools([
                "code",
                "defs",
                outline::qualified_parts(name)
                    .last()
                    .copied()
                    .unwrap_or(name),
            ]),
        ))
        .into()),
        Err(select::SymbolError::Ambiguous {
            defs,
            qualified,
            kinds,
        }) => {
            let Some(first) = defs.first() else {
                return Err(CmdError::internal("an ambiguous --symbol without definitions").into());
            };
            let list: Vec<Json> = defs.iter().map(Json::from_serialize).collect();
            let mut err = CmdError::new(
                code::AMBIGUOUS,
                format!(
                    "{} has {} definitions named {name}.",
                    args.path(),
                    defs.len()
                ),
                Repair::new(
                    "read",
                    "Read the first one by its lines.",
                    shell::aitools([
                        "read",
                        args.path(),
                        "--range",
                        &format!("{}:{}", first.start_line, first.end_line),
                    ]),
                ),
            )
            .with_candidates(Json::Arr(list));
            // Same-named definitions inside different ones: the qualified names.
            for q in qualified {
                err = err.with_repair(Repair::new(
                    "qualify",
                    "Pick the definition by the one around it.",
                    shell::aitools(["read", args.path(), "--symbol", &q]),
                ));
            }
            if kinds.len() > 1 && kind.is_none() {
                err = err.with_repair(Repair::new(
                    "narrow",
                    "Name the kind of definition.",
                    shell::aitools(["read", args.path(), "--symbol", name, "--kind", &kinds[0]]),
                ));
            }
            Err(err.into())
        }
    }
}
