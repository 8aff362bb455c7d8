//! `move-lines`: selected lines cut from a file and put at another place in the
//! same file or in another one — both files in one journaled op, all or nothing.

use super::common::{self, SelectorArgs, Target};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::guard::{self, ExpectHash};
use crate::store::write::{self, Change, WriteRequest};
use crate::text::decode::Encoding;
use crate::text::doc::Doc;
use crate::text::select::{self, Block, Selector};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use clap::Args;
use std::path::Path;

#[derive(Args, Debug)]
pub struct MoveLinesArgs {
    /// The file the lines are taken from.
    #[arg(value_name = "SRC")]
    pub src: String,
    /// Destination file (default: the same file); created when missing.
    #[arg(long, value_name = "PATH")]
    pub to: Option<String>,
    /// start, end, after:N, before:N, after-symbol:NAME or before-symbol:NAME (line numbers of the destination before the move).
    #[arg(long, default_value = "end")]
    pub to_position: String,
    #[command(flatten)]
    pub sel: SelectorArgs,
    /// Guard: how many lines a --match selects.
    #[arg(long, value_name = "N")]
    pub expect_count: Option<String>,
    #[command(flatten)]
    pub guard: crate::protocol::args::Guard,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "move-lines",
    summary: "Move lines, within or across files.",
    description: "A selector is required. Positions count the destination's lines before the move; a place inside the moved lines is refused. Moved lines take the destination's line ending; a file lacking a final newline still lacks it after. With --to, both files change in one op (one undo). --encoding is both files' encoding (a new --to file is written in it).",
    args: <MoveLinesArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        crate::protocol::registry::field(
            "expect_count",
            "With --dry-run of a --match selection: the lines it selected.",
        ),
        crate::protocol::registry::field("moved_lines", "Lines moved."),
        write::FIELD_NEXT,
    ],
    error_codes: common::LINE_EDIT_ERRORS,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(MoveLinesArgs, run),
};

enum Place {
    Start,
    End,
    After(usize),
    Before(usize),
    AfterSymbol(String),
    BeforeSymbol(String),
}

fn parse_place(s: &str) -> Result<Place, CmdError> {
    let num = |v: &str| {
        crate::protocol::values::parse_count(v)
            .ok()
            .filter(|n| *n >= 1)
            .map(|n| n as usize)
            .ok_or_else(|| {
                CmdError::invalid_argument(
                    "move-lines",
                    format!("--to-position {s:?}: a line number from 1."),
                )
            })
    };
    Ok(match s.split_once(':') {
        None if s == "start" => Place::Start,
        None if s == "end" => Place::End,
        Some(("after", n)) => Place::After(num(n)?),
        Some(("before", n)) => Place::Before(num(n)?),
        Some(("after-symbol", n)) if !n.is_empty() => Place::AfterSymbol(n.to_string()),
        Some(("before-symbol", n)) if !n.is_empty() => Place::BeforeSymbol(n.to_string()),
        _ => {
            return Err(CmdError::invalid_argument(
                "move-lines",
                format!(
                    "--to-position {s:?}: start, end, after:N, before:N, after-symbol:NAME or before-symbol:NAME."
                ),
            ));
        }
    })
}

/// The 0-based line index the moved lines go before.
fn resolve(doc: &Doc, display: &str, p: &Place) -> Result<usize, CmdError> {
    let n = doc.line_count();
    let past = |k: usize| {
        CmdError::new(
            code::ARGUMENT_INVALID,
            format!("{display} has {n} lines; line {k} is past its end."),
            Repair::new(
                "read",
                "Read the destination's end.",
                shell::aitools(["read", display, "--tail", "20"]),
            ),
        )
    };
    Ok(match p {
        Place::Start => 0,
        Place::End => n,
        Place::After(k) if *k <= n => *k,
        Place::Before(k) if *k <= n => k - 1,
        Place::After(k) | Place::Before(k) => return Err(past(*k)),
        Place::AfterSymbol(name) | Place::BeforeSymbol(name) => {
            let s = Selector::Symbol {
                name: name.clone(),
                kind: None,
            };
            let b = select::select(doc, display, &s)?;
            let Some(first) = b.first() else {
                return Err(past(0));
            };
            if matches!(p, Place::AfterSymbol(_)) {
                first.end
            } else {
                first.start
            }
        }
    })
}

/// Every line with its terminator, a missing last terminator supplied.
fn raw_lines(doc: &Doc) -> Vec<String> {
    let eol = doc.dominant_eol();
    (0..doc.line_count())
        .map(|i| {
            let mut s = doc.content(i).to_string();
            let e = doc.eol(i);
            s.push_str(if e.is_empty() { eol } else { e });
            s
        })
        .collect()
}

/// Joins lines back, leaving off the final terminator when the file had none.
fn join(doc_before: &Doc, lines: &[String]) -> Doc {
    let mut t: String = lines.concat();
    if !doc_before.text.is_empty() && !doc_before.ends_with_newline() {
        let cut = t
            .strip_suffix("\r\n")
            .or_else(|| t.strip_suffix('\n'))
            .map(str::len);
        if let Some(n) = cut {
            t.truncate(n);
        }
    }
    Doc::from_text(doc_before.bom, t)
}

/// The moved lines in the destination's line ending.
fn retarget(lines: &[String], dst: &Doc) -> Vec<String> {
    let eol = if dst.line_count() == 0 {
        "\n"
    } else {
        dst.dominant_eol()
    };
    lines
        .iter()
        .map(|l| {
            let body = l
                .strip_suffix("\r\n")
                .or_else(|| l.strip_suffix('\n'))
                .unwrap_or(l);
            format!("{body}{eol}")
        })
        .collect()
}

/// The source's lines, which of them move, and the moved ones in order.
struct Cut {
    lines: Vec<String>,
    moved: Vec<bool>,
    taken: Vec<String>,
}

impl Cut {
    fn new(doc: &Doc, blocks: &[Block]) -> Cut {
        let mut moved = vec![false; doc.line_count()];
        for b in blocks {
            for f in moved.iter_mut().take(b.end).skip(b.start) {
                *f = true;
            }
        }
        let lines = raw_lines(doc);
        let taken = Self::pick(&lines, &moved, true);
        Cut {
            lines,
            moved,
            taken,
        }
    }

    /// The lines whose moved flag is `moved`, in order.
    fn pick(lines: &[String], flags: &[bool], moved: bool) -> Vec<String> {
        lines
            .iter()
            .zip(flags)
            .filter(|(_, m)| **m == moved)
            .map(|(l, _)| l.clone())
            .collect()
    }

    /// The lines that stay.
    fn kept(&self) -> Vec<String> {
        Self::pick(&self.lines, &self.moved, false)
    }

    /// Within one file: the moved lines put back at `place`, which may not be
    /// inside them.
    fn within(
        &self,
        t: &Target,
        blocks: &[Block],
        place: &Place,
        position: &str,
    ) -> Result<Vec<Change>, CmdError> {
        let at = resolve(&t.doc, &t.display, place)?;
        let moved = &self.moved;
        let inside = (at > 0 && at < moved.len() && moved[at - 1] && moved[at])
            || blocks.iter().any(|b| at > b.start && at < b.end);
        if inside {
            return Err(CmdError::invalid_argument(
                "move-lines",
                format!("--to-position {position} is inside the lines being moved."),
            ));
        }
        let mut out = Vec::with_capacity(self.lines.len());
        for (i, l) in self.lines.iter().enumerate() {
            if i == at {
                out.extend(self.taken.iter().cloned());
            }
            if !moved[i] {
                out.push(l.clone());
            }
        }
        if at >= self.lines.len() {
            out.extend(self.taken.iter().cloned());
        }
        super::edit_cmd::put_if_changed(t, join(&t.doc, &out))
    }
}

/// Where the moved lines go in another file: its argument and path, the place,
/// and the hashes that guard it.
struct Destination<'a> {
    arg: &'a str,
    abs: &'a Path,
    place: &'a Place,
    expect: &'a ExpectHash,
    enc: Option<Encoding>,
}

impl Destination<'_> {
    /// The destination's new bytes: the moved lines placed in it, or, when it is
    /// missing, a new file holding just them (start or end only).
    fn bytes(&self, ctx: &Ctx, t: &Target, taken: &[String]) -> Result<Vec<u8>, CmdError> {
        let (cmd, to_arg, place) = ("move-lines", self.arg, self.place);
        if !ctx.files().exists(self.abs)? {
            if !matches!(place, Place::Start | Place::End) {
                return Err(CmdError::invalid_argument(
                    cmd,
                    format!(
                        "{to_arg} does not exist yet; only start or end places lines in a new file."
                    ),
                ));
            }
            let doc = Doc::from_text(false, String::new());
            let text = retarget(taken, &doc).concat();
            // A new file takes the source's --encoding (and that encoding's BOM).
            return t.encoded(Doc::from_text(false, text));
        }
        let d = common::load(ctx, to_arg, self.enc)?;
        common::check_target_hash(self.expect, &d, false)?;
        if matches!(place, Place::After(_) | Place::Before(_))
            && self.expect.for_target(to_arg, &d.display, false).is_none()
        {
            return Err(CmdError::from(guard::missing_hash(
                cmd,
                &d.display,
                "A --to file placed by line number",
            ))
            .with_first_repair(Repair::new(
                "hash",
                "Get the destination's hash, then pass --expect-hash PATH=HASH.",
                shell::aitools(["info", &d.display]),
            )));
        }
        let at = resolve(&d.doc, &d.display, place)?;
        let mut lines = raw_lines(&d.doc);
        lines.splice(at..at, retarget(taken, &d.doc));
        d.encoded(join(&d.doc, &lines))
    }
}

pub fn run(ctx: &Ctx, a: &MoveLinesArgs) -> Result<Output, CmdError> {
    let cmd = "move-lines";
    let Some(sel) = a.sel.parse(cmd)? else {
        return Err(CmdError::invalid_argument(
            cmd,
            "Say which lines: --range, --symbol, --between or --match.",
        ));
    };
    let place = parse_place(&a.to_position)?;
    let expect = guard::parse_expect_hash(cmd, &a.guard.expect_hash)?;
    let expect_count = common::parse_count(cmd, "--expect-count", a.expect_count.as_deref())?;
    common::require_hash(cmd, Some(&sel), &expect, &a.src)?;
    let to_abs =
        a.to.as_deref()
            .map(|t| ctx.write_path_arg(t, Final::Follow))
            .transpose()?;
    let enc = a.sel.encoding();
    let mut selected = None;
    let mut moved = 0usize;
    let committed = write::submit(
        ctx,
        &WriteRequest::new(ctx).dry_run(a.guard.dry.dry_run),
        || {
            let t = common::load(ctx, &a.src, enc)?;
            common::check_target_hash(&expect, &t, true)?;
            let blocks = select::select(&t.doc, &t.display, &sel)?;
            if sel.is_many() {
                let n = blocks.iter().map(|r| (r.end - r.start) as u64).sum();
                guard::check_count(cmd, &ctx.argv, expect_count, n, a.guard.dry.dry_run)?;
                selected = Some(n);
            }
            let cut = Cut::new(&t.doc, &blocks);
            moved = cut.taken.len();
            let same = match &to_abs {
                None => true,
                Some(p) => crate::workspace::paths::real_path(ctx.dirs(), p) == t.real,
            };
            if same {
                return cut.within(&t, &blocks, &place, &a.to_position);
            }
            let Some(to_arg) = a.to.as_deref() else {
                return Err(CmdError::internal("move-lines: no destination"));
            };
            let Some(to_abs) = to_abs.as_deref() else {
                return Err(CmdError::internal("move-lines: no destination path"));
            };
            let src_doc = join(&t.doc, &cut.kept());
            let dst = Destination {
                arg: to_arg,
                abs: to_abs,
                place: &place,
                expect: &expect,
                enc,
            };
            let dst_bytes = dst.bytes(ctx, &t, &cut.taken)?;
            let mut changes = super::edit_cmd::put_if_changed(&t, src_doc)?;
            changes.push(Change::Put {
                path: crate::workspace::paths::real_path(ctx.dirs(), to_abs),
                bytes: dst_bytes,
                mode: None,
            });
            Ok(changes)
        },
    )?;
    let mut extra: Vec<(&str, Json)> = Vec::new();
    if let (true, Some(n)) = (a.guard.dry.dry_run, selected) {
        extra.push(("expect_count", Json::UInt(n)));
    }
    extra.push(("moved_lines", Json::UInt(moved as u64)));
    Ok(committed.into_output(extra))
}
