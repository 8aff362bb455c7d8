//! `read`'s text view underneath: the streaming line pass (plain or decoded),
//! the line a selector collects, and the errors and definition spans the
//! selectors (`pick`) report.

#[allow(unused_imports)]
use super::*;

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

/// The file a text read reads, with the descriptor its binary sniff opened:
/// the first pass takes that one (from its start), a later pass opens anew.
/// Everything else is the `Content`'s (`Deref`).
pub(super) struct Opened<'a> {
    pub(super) src: &'a Content,
    pub(super) first: std::cell::RefCell<Option<File>>,
}

impl Opened<'_> {
    pub(super) fn open(&self) -> std::io::Result<File> {
        match self.first.borrow_mut().take() {
            Some(mut f) => {
                f.seek(SeekFrom::Start(0))?;
                Ok(f)
            }
            None => self.src.open(),
        }
    }
}

impl std::ops::Deref for Opened<'_> {
    type Target = Content;
    fn deref(&self) -> &Content {
        self.src
    }
}

/// One pass over the file's text (decoded when `enc` is set): the scan facts
/// and the file's hash.
pub(super) fn pass<W: lines::Want>(
    src: &Opened,
    enc: Option<Encoding>,
    want: &mut W,
    sink: impl FnMut(lines::Line<'_>),
) -> std::io::Result<lines::Scan> {
    pass_holding(src, enc, 0, want, sink)
}

/// `pass` whose lines carry up to `hold` bytes in `Line::whole` (what a
/// selector's pattern is matched against; the display is still cut).
pub(super) fn pass_holding<W: lines::Want>(
    src: &Opened,
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

/// A selection that matched nothing. The message echoes the caller's `--match` or
/// `--between` pattern: a word of it that looks like a secret is masked, as in a
/// pattern that does not parse (`CmdError::bad_pattern`).
pub(super) fn no_match(args: &ReadArgs, message: String) -> CmdError {
    let err = CmdError::new(
        code::NO_MATCH,
        message,
        Repair::new(
            "read",
            "Read the file to choose another selection.",
            shell::aitools(["read", args.path()]),
        ),
    );
    let patterns = args.pattern.iter().chain(args.between.iter().flatten());
    patterns.fold(err, |err, p| err.masking_pattern(p))
}

/// The lines of the one definition `--symbol` (and `--kind`) name.
pub(super) fn symbol_span(
    args: &ReadArgs,
    src: &Opened,
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
        Err(e) => Err(symbol_error(args, name, e).into()),
    }
}

/// The error of a `--symbol` that names no one definition: the file's language
/// has no outline, nothing is named so, or several are.
fn symbol_error(args: &ReadArgs, name: &str, e: select::SymbolError) -> CmdError {
    let kind = args.kind.as_deref();
    match e {
        select::SymbolError::UnsupportedLanguage => CmdError::new(
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
        ),
        select::SymbolError::NoSymbol { .. } => CmdError::new(
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
        )),
        select::SymbolError::Ambiguous {
            defs,
            qualified,
            kinds,
        } => {
            let Some(first) = defs.first() else {
                return CmdError::internal("an ambiguous --symbol without definitions");
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
            err
        }
    }
}
