//! `split`: cut a file into numbered pieces beside it (`<path>.000`, ...) by
//! line count, byte count, or before each line a regex matches (`split -l`,
//! `split -b`, `csplit`): one guarded op creating every piece, undone as one.

use super::common;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::files::Kind;
use crate::store::request::Change;
use crate::store::write::{self, WriteRequest};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use clap::Args;
use serde::Serialize;

/// The most pieces one call creates (a larger split is refused with the
/// piece size that keeps within it).
const MAX_PIECES: usize = 10_000;

#[derive(Args, Debug)]
pub struct SplitArgs {
    /// The file to split.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Lines per piece.
    #[arg(long, value_name = "N")]
    pub lines: Option<usize>,
    /// Bytes per piece.
    #[arg(long, value_name = "N")]
    pub bytes: Option<usize>,
    /// Start a piece at each line matching this regex.
    #[arg(long, value_name = "REGEX", allow_hyphen_values = true)]
    pub at_match: Option<String>,
    /// Piece path prefix (default <path>.).
    #[arg(long)]
    pub prefix: Option<String>,
    /// Digits of the piece number.
    #[arg(long, default_value_t = 3)]
    pub suffix_digits: u32,
    #[command(flatten)]
    pub dry: crate::protocol::args::DryRun,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "split",
    summary: "Split a file into numbered pieces (split, csplit).",
    description: "Exactly one of --lines N, --bytes N, --at-match REGEX. Pieces are <prefix>000, <prefix>001, ... (--suffix-digits), the prefix <path>. by default, as split -d -a 3 names them; --at-match starts a piece at every matching line, the lines before the first match being the first piece (csplit -z). The source is kept. All pieces are one op (undo removes them all); a piece that exists already is refused, and so is a split into more than 10000 pieces or more than the digits can number.",
    args: <SplitArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field(
            "pieces",
            "[{path,start_line,lines,bytes}]: each piece, its first source line (1-based) and size.",
        ),
        write::FIELD_NEXT,
    ],
    error_codes: crate::write_error_codes![code::TOO_LARGE, code::SYNTAX_ERROR],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(SplitArgs, run),
};

#[derive(Serialize)]
struct Piece {
    path: String,
    start_line: usize,
    lines: usize,
    bytes: usize,
}

enum By {
    Lines(usize),
    Bytes(usize),
    Match(regex::bytes::Regex),
}

/// The source's lines, each with its newline.
fn lines_of(b: &[u8]) -> Vec<&[u8]> {
    b.split_inclusive(|&c| c == b'\n').collect()
}

/// The byte ranges of the pieces.
fn cut(bytes: &[u8], by: &By) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    match by {
        By::Bytes(n) => {
            let mut s = 0;
            while s < bytes.len() {
                let e = (s + n).min(bytes.len());
                out.push(s..e);
                s = e;
            }
        }
        By::Lines(n) => {
            let (mut s, mut pos) = (0, 0);
            for (i, l) in lines_of(bytes).iter().enumerate() {
                pos += l.len();
                if (i + 1) % n == 0 {
                    out.push(s..pos);
                    s = pos;
                }
            }
            if s < bytes.len() {
                out.push(s..bytes.len());
            }
        }
        By::Match(re) => {
            let (mut s, mut pos) = (0, 0);
            for l in lines_of(bytes) {
                let body = l.strip_suffix(b"\n").unwrap_or(l);
                if re.is_match(body) && pos > s {
                    out.push(s..pos);
                    s = pos;
                }
                pos += l.len();
            }
            if s < bytes.len() {
                out.push(s..bytes.len());
            }
        }
    }
    out
}

fn positive(flag: &str, v: Option<usize>) -> Result<Option<usize>, CmdError> {
    match v {
        Some(0) => Err(CmdError::invalid_argument(
            "split",
            format!("{flag} must be 1 or more."),
        )),
        v => Ok(v),
    }
}

pub fn run(ctx: &Ctx, a: &SplitArgs) -> Result<Output, CmdError> {
    let cmd = "split";
    let by = match (
        positive("--lines", a.lines)?,
        positive("--bytes", a.bytes)?,
        &a.at_match,
    ) {
        (Some(n), None, None) => By::Lines(n),
        (None, Some(n), None) => By::Bytes(n),
        (None, None, Some(re)) => By::Match(regex::bytes::Regex::new(re).map_err(|e| {
            CmdError::bad_pattern(
                "--at-match",
                re,
                &e,
                Repair::new(
                    "fixed",
                    "Match the text literally.",
                    shell::aitools(["split", &a.path, "--at-match", &regex::escape(re)]),
                ),
            )
        })?),
        _ => {
            return Err(CmdError::new(
                code::ARGUMENT_INVALID,
                "split takes exactly one of --lines N, --bytes N, --at-match REGEX.",
                Repair::new(
                    "lines",
                    "Split into pieces of 1000 lines.",
                    shell::aitools(["split", &a.path, "--lines", "1000"]),
                ),
            ));
        }
    };
    if !(1..=5).contains(&a.suffix_digits) {
        return Err(CmdError::invalid_argument(
            cmd,
            "--suffix-digits is 1 to 5.",
        ));
    }
    let prefix = a.prefix.clone().unwrap_or_else(|| format!("{}.", a.path));
    let name = |p: &str, i: usize| format!("{p}{i:0w$}", w = a.suffix_digits as usize);
    let mut pieces = Vec::new();
    let committed = write::submit(ctx, &WriteRequest::new(ctx).dry_run(a.dry.dry_run), || {
        let (_real, _display, snap) = common::locate(ctx, &a.path)?;
        let bytes = &snap.bytes[..];
        let ranges = cut(bytes, &by);
        let limit = MAX_PIECES.min(10usize.pow(a.suffix_digits));
        if ranges.len() > limit {
            return Err(too_many(ctx, a, ranges.len(), limit, bytes));
        }
        let mut exists = None;
        let mut changes = Vec::with_capacity(ranges.len());
        pieces.clear();
        let mut line = 1;
        for (i, r) in ranges.iter().enumerate() {
            let arg = name(&prefix, i);
            let abs = ctx.write_path_arg(&arg, Final::Follow)?;
            if exists.is_none() && ctx.files().stat(&abs, false)?.kind != Kind::Missing {
                exists = Some(ctx.display_path(&abs));
            }
            let chunk = &bytes[r.clone()];
            let nl = chunk.iter().filter(|&&c| c == b'\n').count();
            let lines = nl + usize::from(!chunk.ends_with(b"\n") && !chunk.is_empty());
            pieces.push(Piece {
                path: ctx.display_path(&abs),
                start_line: line,
                lines,
                bytes: chunk.len(),
            });
            line += nl;
            changes.push(Change::Put {
                path: abs,
                bytes: chunk.to_vec(),
                mode: None,
            });
        }
        if let Some(shown) = exists {
            return Err(taken(ctx, a, &shown, &prefix, ranges.len(), &name));
        }
        Ok(changes)
    })?;
    let list = pieces.iter().map(Json::from_serialize).collect::<Vec<_>>();
    Ok(committed.into_output(vec![("pieces", Json::Arr(list))]))
}

/// `refusal.exists`: a piece's name is taken; the repair names a prefix none
/// of whose pieces exist.
fn taken(
    ctx: &Ctx,
    a: &SplitArgs,
    shown: &str,
    prefix: &str,
    count: usize,
    name: &dyn Fn(&str, usize) -> String,
) -> CmdError {
    let free = (1..100)
        .map(|k| format!("{prefix}{k}."))
        .find(|p| {
            (0..count).all(|i| {
                ctx.path_arg(&name(p, i))
                    .ok()
                    .and_then(|abs| ctx.files().stat(&abs, false).ok())
                    .is_some_and(|m| m.kind == Kind::Missing)
            })
        })
        .unwrap_or_else(|| format!("{prefix}new."));
    let words = shell::rerun(&ctx.argv, &["--prefix"], &[], &["--prefix".into(), free]);
    CmdError::new(
        code::EXISTS,
        format!(
            "{shown} exists already; split creates its pieces new and never overwrites. {} is unchanged.",
            a.path
        ),
        Repair::new(
            "prefix",
            "Split under a prefix whose pieces are all free (or delete the old pieces first).",
            shell::aitools(&words),
        ),
    )
}

/// `refusal.too-large`: more pieces than `limit`; the repair splits into
/// pieces large enough to stay within it.
fn too_many(ctx: &Ctx, a: &SplitArgs, count: usize, limit: usize, bytes: &[u8]) -> CmdError {
    let (flag, total) = match a.bytes {
        Some(_) => ("--bytes", bytes.len()),
        None => ("--lines", lines_of(bytes).len()),
    };
    let per = total.div_ceil(limit).max(1).to_string();
    let words = shell::rerun(
        &ctx.argv,
        &["--lines", "--bytes", "--at-match"],
        &[],
        &[flag.into(), per],
    );
    CmdError::new(
        code::TOO_LARGE,
        format!(
            "That split makes {count} pieces; one call creates at most {limit} (--suffix-digits {} and the {MAX_PIECES}-piece bound). {} is unchanged.",
            a.suffix_digits, a.path
        ),
        Repair::new(
            "larger-pieces",
            "Split into larger pieces, within the bound.",
            shell::aitools(&words),
        ),
    )
}
