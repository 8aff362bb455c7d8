//! What the text-editing commands share: the selector and guard arguments, the
//! `--stdin`/`--stdin-data` input, and loading a target as editable text (inside
//! the workspace, a regular file, not binary, valid UTF-8 or decoded from its
//! `--encoding` and encoded back) under the write lock.

use crate::protocol::args::Guard;
use crate::protocol::values;
use crate::protocol::{CmdError, Repair, code, error, shell};
use crate::store::guard::{self, ExpectHash};
use crate::text::decode::{self, Encoding};
use crate::text::doc::{DecodeError, Doc};
use crate::text::select::Selector;
use crate::workspace::candidates::{self, Offer};
use crate::workspace::input::{self, InputLimit};
use crate::workspace::{Ctx, paths};
use clap::Args;
use regex::{Regex, RegexBuilder};
use std::path::PathBuf;

/// The selectors: at most one per call.
#[derive(Args, Debug, Default, Clone)]
pub struct SelectorArgs {
    /// Lines S:E, S: or N (1-based, inclusive).
    #[arg(long)]
    pub range: Option<String>,
    /// A definition's lines (Outer.name picks it by the definition around it).
    #[arg(long)]
    pub symbol: Option<String>,
    /// Definition kind for --symbol.
    #[arg(long)]
    pub kind: Option<String>,
    /// From a START-RE line to the next END-RE line.
    #[arg(long, num_args = 2, value_names = ["START", "END"], allow_hyphen_values = true, action = clap::ArgAction::Set)]
    pub between: Option<Vec<String>>,
    /// With --between: no end lines.
    #[arg(long)]
    pub exclusive: bool,
    /// Every line matching RE.
    #[arg(long = "match", value_name = "RE", allow_hyphen_values = true)]
    pub match_re: Option<String>,
    /// With --match: the lines that do not match.
    #[arg(long)]
    pub invert: bool,
    /// A non-UTF-8 file's encoding. Decoded as read does it; it is decoded to edit and encoded back, byte for byte elsewhere.
    #[arg(long, value_parser = crate::protocol::values::encoding_names(), ignore_case = true)]
    pub encoding: Option<String>,
}

impl SelectorArgs {
    /// The one selector given, if any; `argument.invalid` for two, or for a
    /// modifier (--kind, --exclusive, --invert) without its selector.
    pub fn parse(&self, command: &str) -> Result<Option<Selector>, CmdError> {
        let given: Vec<&str> = [
            self.range.as_ref().map(|_| "--range"),
            self.symbol.as_ref().map(|_| "--symbol"),
            self.between.as_ref().map(|_| "--between"),
            self.match_re.as_ref().map(|_| "--match"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if given.len() > 1 {
            return Err(CmdError::invalid_argument(
                command,
                format!("{} are two selectors; use one.", given.join(" and ")),
            ));
        }
        if self.kind.is_some() && self.symbol.is_none() {
            return Err(CmdError::invalid_argument(
                command,
                "--kind goes with --symbol.",
            ));
        }
        if self.exclusive && self.between.is_none() {
            return Err(CmdError::invalid_argument(
                command,
                "--exclusive goes with --between.",
            ));
        }
        if self.invert && self.match_re.is_none() {
            return Err(CmdError::invalid_argument(
                command,
                "--invert goes with --match.",
            ));
        }
        if let Some(r) = &self.range {
            let r = values::parse_range(r).map_err(|m| CmdError::invalid_argument(command, m))?;
            return Ok(Some(Selector::Range(r)));
        }
        if let Some(name) = &self.symbol {
            if name.is_empty() {
                return Err(CmdError::invalid_argument(command, "--symbol is empty."));
            }
            return Ok(Some(Selector::Symbol {
                name: name.clone(),
                kind: self.kind.clone(),
            }));
        }
        if let Some(b) = &self.between {
            let (Some(s), Some(e)) = (b.first(), b.get(1)) else {
                return Err(CmdError::invalid_argument(
                    command,
                    "--between takes START and END.",
                ));
            };
            return Ok(Some(Selector::Between {
                start: compile(command, "--between START", s, false)?,
                end: compile(command, "--between END", e, false)?,
                exclusive: self.exclusive,
            }));
        }
        if let Some(m) = &self.match_re {
            return Ok(Some(Selector::Match {
                re: compile(command, "--match", m, false)?,
                invert: self.invert,
            }));
        }
        Ok(None)
    }

    /// The `--encoding` given, UTF-8 being no encoding at all.
    pub fn encoding(&self) -> Option<Encoding> {
        self.encoding
            .as_deref()
            .and_then(Encoding::from_name)
            .filter(|e| *e != Encoding::Utf8)
    }
}

/// A regular expression from an argument; a syntax error is `input.syntax-error`.
pub fn compile(
    command: &str,
    what: &str,
    pattern: &str,
    ignore_case: bool,
) -> Result<Regex, CmdError> {
    RegexBuilder::new(pattern)
        .case_insensitive(ignore_case)
        .size_limit(64 << 20)
        .build()
        .map_err(|e| CmdError::bad_pattern(what, pattern, &e, error::schema_repair(command)))
}

/// The input and guard options the text edits share (`edit`, `insert`, `replace`),
/// declared once so their flags, help and order cannot drift apart.
#[derive(Args, Debug)]
pub struct GuardedInput {
    /// Read the input from stdin (never read otherwise).
    #[arg(long)]
    pub stdin: bool,
    /// The --stdin input given inline (history records --stdin writes this way).
    #[arg(long, allow_hyphen_values = true)]
    pub stdin_data: Option<String>,
    /// Guard: how many lines or matches are selected.
    #[arg(long, value_name = "N")]
    pub expect_count: Option<String>,
    #[command(flatten)]
    pub guard: Guard,
    #[command(flatten)]
    pub input_limit: InputLimit,
}

impl GuardedInput {
    /// The `--stdin` / `--stdin-data` payload, if any.
    pub fn input(&self, ctx: &Ctx, command: &str) -> Result<Option<String>, CmdError> {
        read_input(
            ctx,
            command,
            self.stdin,
            self.stdin_data.as_deref(),
            &self.input_limit,
        )
    }

    pub fn expect_hash(&self, command: &str) -> Result<ExpectHash, CmdError> {
        Ok(guard::parse_expect_hash(command, &self.guard.expect_hash)?)
    }

    pub fn expect_count(&self, command: &str) -> Result<Option<u64>, CmdError> {
        parse_count(command, "--expect-count", self.expect_count.as_deref())
    }
}

/// The error codes of the edits that change text inside files, after any codes
/// a list puts first: every write's and those of their selections and guards.
/// Both lists below are written through it, so they differ only in what they add.
macro_rules! edit_error_codes {
    ($($first:expr),*) => {
        crate::write_error_codes![
            $($first,)*
            code::COUNT_MISMATCH,
            code::NO_MATCH,
            code::AMBIGUOUS,
            code::SYNTAX_ERROR,
            code::UNSUPPORTED_LANGUAGE,
            code::NOT_UTF8,
            code::UNSUPPORTED_FORMAT
        ]
    };
}

/// The error codes of the commands that change text inside files (edit, insert,
/// replace): the line edits' and their `--stdin` input's size cap.
pub const TEXT_EDIT_ERRORS: &[&str] = edit_error_codes![code::TOO_LARGE];

/// The same for the line edits that read no input (transform, move-lines):
/// their files have the whole-file size cap too, so the same list.
pub const LINE_EDIT_ERRORS: &[&str] = TEXT_EDIT_ERRORS;

/// A count flag (`--expect-count`, `--nth`, `--fuzz`, `--strip`): the one count
/// syntax of every command, with the flag named in the message.
pub fn parse_count(command: &str, flag: &str, v: Option<&str>) -> Result<Option<u64>, CmdError> {
    v.map(|s| {
        crate::protocol::values::parse_count(s)
            .map_err(|m| CmdError::invalid_argument(command, format!("{flag} {m}")))
    })
    .transpose()
}

/// The `--stdin` / `--stdin-data` payload: stdin is read only with `--stdin`,
/// and at most `--max-input` of it.
pub fn read_input(
    ctx: &Ctx,
    command: &str,
    stdin: bool,
    stdin_data: Option<&str>,
    limit: &InputLimit,
) -> Result<Option<String>, CmdError> {
    match (stdin, stdin_data) {
        (true, Some(_)) => Err(CmdError::invalid_argument(
            command,
            "--stdin and --stdin-data are two inputs; use one.",
        )),
        (false, Some(d)) => Ok(Some(d.to_string())),
        (true, None) => {
            let buf = input::read_stdin(ctx, limit.bytes(command)?)?;
            String::from_utf8(buf).map(Some).map_err(|e| {
                CmdError::new(
                    code::NOT_UTF8,
                    format!(
                        "Standard input is not valid UTF-8 (byte {}).",
                        e.utf8_error().valid_up_to()
                    ),
                    Repair::new(
                        "stdin-data",
                        "Send UTF-8 text, or pass it inline with --stdin-data.",
                        format!("aitools schema {command}"),
                    ),
                )
            })
        }
        (false, None) => Ok(None),
    }
}

/// An editable text file, read under the lock.
#[derive(Debug, Clone)]
pub struct Target {
    /// The path as given on the command line.
    pub arg: String,
    /// The file the path leads to (symlinks resolved): what is written.
    pub real: PathBuf,
    /// Root-relative form for output.
    pub display: String,
    pub hash: String,
    pub doc: Doc,
    /// With `--encoding`: the file's encoding and BOM; the doc holds the decoded
    /// text and a change is encoded back (`encoded`).
    pub encoding: Option<(Encoding, &'static [u8])>,
}

impl Target {
    /// The bytes that write `doc` to this file: UTF-8, or encoded back into the
    /// file's `--encoding`, `argument.invalid` when the new text has a character
    /// that encoding lacks.
    pub fn encoded(&self, doc: Doc) -> Result<Vec<u8>, CmdError> {
        let Some((enc, bom)) = self.encoding else {
            return Ok(doc.into_bytes());
        };
        let text = doc.into_bytes();
        let text = String::from_utf8_lossy(&text);
        decode::encode_all(&text, enc)
            .map(|body| [bom, &body[..]].concat())
            .map_err(|c| {
                CmdError::new(
                    code::ARGUMENT_INVALID,
                    format!(
                        "The new text has {c:?} (U+{:04X}), which {} cannot encode; {} is unchanged.",
                        u32::from(c),
                        enc.name(),
                        self.display
                    ),
                    Repair::new(
                        "read",
                        "Read the file decoded, then write text its encoding can hold.",
                        shell::aitools(["read", &self.display, "--encoding", enc.name()]),
                    ),
                )
            })
    }
}

/// `refusal.outside-workspace` unless `real` is the root or lies inside it, outside `.git/`.
pub fn check_inside(ctx: &Ctx, real: &std::path::Path, display: &str) -> Result<(), CmdError> {
    // The root itself is fine here: a scan (`replace x y .`) starts there.
    if real == ctx.root {
        return Ok(());
    }
    // The workspace boundary's own refusal (outside, inside .git); for a path
    // outside, the other workspace that holds it is a way forward.
    crate::workspace::boundary::check(ctx, std::path::Path::new(display), real).map_err(|e| {
        let e = CmdError::from(e);
        if ctx.inside(real) {
            e
        } else {
            e.with_first_repair(Repair::new(
                "root",
                "Run the command with --root set to the directory that holds the file (fill in the placeholder).",
                format!("aitools --root '<dir>' {}", shell::join(&ctx.argv)),
            ))
        }
    })
}

/// A target's real path, display form and snapshot (`locate`).
pub type Located = (
    PathBuf,
    String,
    std::sync::Arc<crate::store::snapshot::Snapshot>,
);

/// The target's real path, display form and snapshot, refused unless it is a
/// regular file inside the root; nothing decoded yet, so a caller that can work
/// on the raw bytes holds no second copy of them.
pub fn locate(ctx: &Ctx, arg: &str) -> Result<Located, CmdError> {
    let abs = ctx.path_arg(arg)?;
    let (real, lstat) = paths::real_path_lstat(ctx.dirs(), &abs);
    let display = ctx.display_real(&real);
    if let Some(snap) = load_by_lstat(ctx, &abs, (&real, &display), lstat.as_ref())? {
        return Ok((real, display, snap));
    }
    // Through the view: with --tx, the tx's staged content where it has some.
    let meta = ctx.files().stat(&abs, true)?;
    locate_at(ctx, arg, &abs, (real, display), meta)
}

/// `locate_at`'s checks and load for a path whose lstat on the way to its real
/// path (`paths::real_path_lstat`) found a regular file, when no tx decides what
/// is there: the file is inside the workspace and loaded with that lstat, no stat
/// asked again (the read checks the open file's identity against it). `None`
/// when that does not apply: ask the view (`stat`, then `locate_at`).
pub fn load_by_lstat(
    ctx: &Ctx,
    _abs: &std::path::Path,
    (real, display): (&std::path::Path, &str),
    lstat: Option<&crate::store::files::Metadata>,
) -> Result<Option<std::sync::Arc<crate::store::snapshot::Snapshot>>, CmdError> {
    match lstat {
        Some(m) if ctx.tx.is_none() && m.file_type().is_file() => {
            check_inside(ctx, real, display)?;
            crate::workspace::input::whole_file_budget(display, m.len())?;
            Ok(ctx.files().load_lstat(real, m)?)
        }
        _ => Ok(None),
    }
}

/// `locate` for a caller that resolved `arg` already: `abs`, its real path and
/// display form, and its `stat` in the view (followed).
pub fn locate_at(
    ctx: &Ctx,
    arg: &str,
    _abs: &std::path::Path,
    (real, display): (PathBuf, String),
    meta: crate::store::files::Stat,
) -> Result<Located, CmdError> {
    if meta.kind == crate::store::files::Kind::Missing {
        let e = std::io::Error::from(std::io::ErrorKind::NotFound);
        return Err(not_found_or_io(ctx, arg, &e));
    }
    check_inside(ctx, &real, &display)?;
    if meta.kind != crate::store::files::Kind::File {
        return Err(not_a_file(&display, "is not a regular file"));
    }
    crate::workspace::input::whole_file_budget(&display, meta.len)?;
    // Through the store's view (the tx's staged content, else the disk's snapshot):
    // the write that follows reuses these bytes and this hash for its before-state,
    // blob and diff instead of reading the file again.
    let snap = ctx.files().load(&real)?;
    Ok((real, display, snap))
}

/// Reads `arg` as editable text: inside the workspace, a regular file, not binary,
/// valid UTF-8, or valid in `enc` (decoded, and only when encoding the text again
/// gives the file's bytes back, so what an edit leaves alone stays byte for byte).
pub fn load(ctx: &Ctx, arg: &str, enc: Option<Encoding>) -> Result<Target, CmdError> {
    let (real, display, snap) = locate(ctx, arg)?;
    load_located(ctx, arg, real, display, snap, enc)
}

/// `load` of what `locate`/`locate_at` found.
pub fn load_located(
    ctx: &Ctx,
    arg: &str,
    real: PathBuf,
    display: String,
    snap: std::sync::Arc<crate::store::snapshot::Snapshot>,
    enc: Option<Encoding>,
) -> Result<Target, CmdError> {
    let Some(enc) = enc else {
        let doc = Doc::decode(&snap.bytes).map_err(|e| decode_error(ctx, &display, e))?;
        return Ok(Target {
            arg: arg.to_string(),
            real,
            display,
            hash: snap.hash.clone(),
            doc,
            encoding: None,
        });
    };
    let bom = decode::bom_of(&snap.bytes, enc);
    let (text, errors) = decode::decode_all(&snap.bytes, enc);
    let back = decode::encode_all(&text, enc).map(|b| [bom, &b[..]].concat());
    if errors > 0 || back.as_deref() != Ok(&snap.bytes[..]) {
        return Err(CmdError::new(
            code::UNSUPPORTED_FORMAT,
            format!(
                "{display} is not {} that decodes and encodes back to the same bytes; editing it in {} would change more than the edit.",
                enc.name(),
                enc.name()
            ),
            Repair::new(
                "info",
                "See which encoding the file looks like.",
                shell::aitools(["info", &display]),
            ),
        ));
    }
    let doc = Doc::decode(text.as_bytes()).map_err(|e| decode_error(ctx, &display, e))?;
    Ok(Target {
        arg: arg.to_string(),
        real,
        display,
        hash: snap.hash.clone(),
        doc,
        encoding: Some((enc, bom)),
    })
}

/// The refusal that says why bytes are not editable text.
fn decode_error(ctx: &Ctx, display: &str, e: DecodeError) -> CmdError {
    match e {
        DecodeError::Binary => not_a_file(display, "is binary; text edits would corrupt it"),
        DecodeError::NotUtf8(at) => with_encoding_repair(ctx, CmdError::new(
            code::NOT_UTF8,
            format!(
                "{display} is not valid UTF-8 (byte {at}); editing it as text would corrupt it."
            ),
            Repair::new(
                "read",
                "Read it decoded (ISO-8859-1 here; `aitools info` may name another encoding); edit, insert, replace, transform and move-lines take the same --encoding.",
                shell::aitools(["read", display, "--encoding", "iso-8859-1"]),
            ),
        )
        .with_repair(Repair::new(
            "info",
            "See the file's encoding.",
            shell::aitools(["info", display]),
        ))),
    }
}

/// The same call with `--encoding iso-8859-1`, first, for the commands that take it:
/// every byte is a Latin-1 character, so the edit lands and the rest stays as it is.
fn with_encoding_repair(ctx: &Ctx, err: CmdError) -> CmdError {
    let takes =
        ["edit", "insert", "replace", "transform", "move-lines"].contains(&ctx.command.as_str());
    if !takes
        || ctx
            .argv
            .iter()
            .any(|a| a == "--" || a.starts_with("--encoding"))
    {
        return err;
    }
    err.with_first_repair(Repair::new(
        "encoding",
        "Edit it in place as ISO-8859-1 (`aitools info` may name its real encoding).",
        format!("aitools {} --encoding iso-8859-1", shell::join(&ctx.argv)),
    ))
}

fn not_a_file(display: &str, why: &str) -> CmdError {
    CmdError::new(
        code::NOT_A_FILE,
        format!("{display} {why}."),
        Repair::new(
            "info",
            "Check what the path is.",
            shell::aitools(["info", display]),
        ),
    )
}

/// `input.not-found` (with near paths as candidates) for a missing `arg`, or
/// `environment.io` for any other failure.
pub fn not_found_or_io(ctx: &Ctx, arg: &str, e: &std::io::Error) -> CmdError {
    candidates::not_found_or_io(ctx, arg, &ctx.resolve(arg), e, Offer::Look).into()
}

/// Checks `--expect-hash` for a target (a bare hash guards the first one).
pub fn check_target_hash(expect: &ExpectHash, t: &Target, first: bool) -> Result<(), CmdError> {
    match expect.for_target(&t.arg, &t.display, first) {
        Some(h) => Ok(guard::check_hash(&t.display, h, Some(&t.hash))?),
        None => Ok(()),
    }
}

/// Refuses a position-based selector without `--expect-hash`.
pub fn require_hash(
    command: &str,
    sel: Option<&Selector>,
    expect: &ExpectHash,
    arg: &str,
) -> Result<(), CmdError> {
    match sel {
        Some(s) if s.is_positional() && expect.is_empty() => Err(guard::missing_hash(
            command,
            arg,
            &format!("A position-based selector ({})", s.flag()),
        )
        .into()),
        _ => Ok(()),
    }
}

/// The call with one word (a positional argument) swapped for another.
fn with_word(argv: &[String], old: &str, new: &str) -> Vec<String> {
    let mut out = argv.to_vec();
    if let Some(w) = out.iter_mut().rev().find(|w| *w == old) {
        *w = new.to_string();
    }
    out
}

/// A path that ends in '/' names a directory, as the shell reads it: a command
/// that makes a file or a symlink there (`write`, `touch`, `link`) refuses it
/// instead of dropping the '/' and making `dir` a file.
/// `allow_dir` lets an existing directory through (`touch dir/` sets its time).
pub fn refuse_dir_slash(
    ctx: &Ctx,
    command: &str,
    arg: &str,
    allow_dir: bool,
) -> Result<(), CmdError> {
    let Some(trimmed) = arg.strip_suffix('/').filter(|t| !t.is_empty()) else {
        return Ok(());
    };
    let abs = ctx.resolve(arg);
    let shown = ctx.display_path(&abs);
    match ctx.files().stat(&abs, true)?.kind {
        crate::store::files::Kind::Dir if allow_dir => Ok(()),
        crate::store::files::Kind::Dir => Err(CmdError::new(
            code::NOT_A_FILE,
            format!("{shown} is a directory; {command} needs a file path inside it, such as {arg}NAME."),
            Repair::new(
                "find",
                "See what the directory holds, then name the file in full.",
                shell::aitools(["find", &shown, "--depth", "1"]),
            ),
        )),
        crate::store::files::Kind::Missing => Err(CmdError::new(
            code::ARGUMENT_INVALID,
            format!(
                "{arg} ends in '/', which names a directory, but {trimmed} does not exist and {command} does not create directories."
            ),
            Repair::new(
                "mkdir",
                format!("To make the directory, create it (then name a path inside it, {arg}NAME)."),
                shell::aitools(["mkdir", trimmed]),
            ),
        )
        .with_repair(Repair::new(
            "file",
            format!("To make a file named {trimmed}, drop the '/'."),
            shell::aitools(with_word(&ctx.argv, arg, trimmed)),
        ))),
        _ => Err(CmdError::new(
            code::NOT_A_FILE,
            format!("{arg} ends in '/', but {shown} is not a directory."),
            Repair::new(
                "info",
                "Check what the path is.",
                shell::aitools(["info", &shown]),
            ),
        )),
    }
}

/// The destination of a `move`/`copy` whose argument ends in '/': inside that
/// existing directory, under the source's name (as `mv`/`cp` do). A '/' after a
/// missing path or a file is refused rather than dropped.
pub fn into_dir(
    ctx: &Ctx,
    command: &str,
    src_arg: &str,
    dst_arg: &str,
) -> Result<Option<String>, CmdError> {
    let Some(trimmed) = dst_arg.strip_suffix('/').filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let name = std::path::Path::new(src_arg)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let abs = ctx.resolve(dst_arg);
    let shown = ctx.display_path(&abs);
    match ctx.files().stat(&abs, true)?.kind {
        crate::store::files::Kind::Dir => match name {
            Some(n) => Ok(Some(format!("{dst_arg}{n}"))),
            None => Err(CmdError::invalid_argument(
                command,
                format!(
                    "{src_arg} has no name to give it inside {shown}; name the destination in full."
                ),
            )),
        },
        crate::store::files::Kind::Missing => {
            let full = format!("{dst_arg}{}", name.as_deref().unwrap_or("NAME"));
            Err(CmdError::new(
                code::ARGUMENT_INVALID,
                format!(
                    "{dst_arg} ends in '/', which names a directory, but {trimmed} does not exist; {command} does not rename onto a path ending in '/'."
                ),
                Repair::new(
                    "into",
                    format!("Put it inside a new directory {trimmed} (missing parents are created)."),
                    shell::aitools(with_word(&ctx.argv, dst_arg, &full)),
                ),
            )
            .with_repair(Repair::new(
                "rename",
                format!("To rename it to {trimmed}, drop the '/'."),
                shell::aitools(with_word(&ctx.argv, dst_arg, trimmed)),
            )))
        }
        _ => Err(CmdError::new(
            code::NOT_A_FILE,
            format!("{dst_arg} ends in '/', but {shown} is not a directory."),
            Repair::new(
                "info",
                "Check what the path is.",
                shell::aitools(["info", &shown]),
            ),
        )),
    }
}
