//! `insert`: content as whole lines at the start or end of a file, or before or
//! after the lines a selector picks (every `--match` line, guarded by a count).

use super::common::{self, SelectorArgs};
use super::edit_cmd::put_if_changed;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::guard;
use crate::store::write::{self, WriteRequest};
use crate::text::doc::Doc;
use crate::text::doc::split_plain;
use crate::text::select;
use crate::workspace::Ctx;
use clap::Args;

#[derive(Args, Debug)]
pub struct InsertArgs {
    /// The file to insert into.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// start or end.
    #[arg(long, value_parser = ["start", "end"])]
    pub at: Option<String>,
    /// Insert before the selection.
    #[arg(long)]
    pub before: bool,
    /// Insert after the selection.
    #[arg(long)]
    pub after: bool,
    #[command(flatten)]
    pub sel: SelectorArgs,
    /// Content text.
    #[arg(long, allow_hyphen_values = true)]
    pub content: Option<String>,
    /// Content read as bytes from this file.
    #[arg(long, value_name = "FILE")]
    pub content_file: Option<String>,
    #[command(flatten)]
    pub guarded: common::GuardedInput,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "insert",
    summary: "Insert lines at an end or around a selection.",
    description: "Content is inserted as whole lines (a missing final newline is added) in the file's line ending; --at start goes after a BOM; --at end ends a last line lacking a newline before appending. --before/--after with --match inserts at every matching line and needs --expect-count; with --range or --symbol it needs --expect-hash.",
    args: <InsertArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field(
            "expect_count",
            "With --dry-run of a --match selection: the lines it selected, the value a real run passes as --expect-count.",
        ),
        field(
            "inserted_at",
            "Line numbers (after the write) where each inserted block starts.",
        ),
        write::FIELD_NEXT,
    ],
    error_codes: common::TEXT_EDIT_ERRORS,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(InsertArgs, run),
};

pub fn run(ctx: &Ctx, args: &InsertArgs) -> Result<Output, CmdError> {
    let cmd = "insert";
    let sel = args.sel.parse(cmd)?;
    let expect = args.guarded.expect_hash(cmd)?;
    let expect_count = args.guarded.expect_count(cmd)?;
    check_place(args, sel.is_some())?;
    let content = content(ctx, args)?;
    guard::refuse_redacted("The content", Some(&args.path), content.as_bytes())?;
    if content.is_empty() {
        return Err(CmdError::invalid_argument(
            cmd,
            "The content is empty; there is nothing to insert.",
        ));
    }
    common::require_hash(cmd, sel.as_ref(), &expect, &args.path)?;

    let mut inserted_at: Vec<u64> = Vec::new();
    let mut selected: Option<u64> = None;
    let committed = write::submit(
        ctx,
        &WriteRequest::new(ctx).dry_run(args.guarded.guard.dry.dry_run),
        || {
            if let Some((changes, line)) = streamed(ctx, args, &content, &expect)? {
                inserted_at = vec![line];
                return Ok(changes);
            }
            let t = common::load(ctx, &args.path, args.sel.encoding())?;
            common::check_target_hash(&expect, &t, true)?;
            let doc = &t.doc;
            let points: Vec<usize> = match (&args.at, &sel) {
                (Some(at), _) => vec![if at == "start" { 0 } else { doc.line_count() }],
                (None, Some(s)) => {
                    let blocks = select::select(doc, &t.display, s)?;
                    if s.is_many() {
                        let n = blocks.len() as u64;
                        guard::check_count(
                            cmd,
                            &ctx.argv,
                            expect_count,
                            n,
                            args.guarded.guard.dry.dry_run,
                        )?;
                        selected = Some(n);
                    } else if blocks.len() > 1 {
                        return Err(CmdError::new(
                            code::AMBIGUOUS,
                            format!(
                                "{} selects {} places in {}; insert at one.",
                                s.flag(),
                                blocks.len(),
                                t.display
                            ),
                            Repair::new(
                                "read",
                                "Read the places, then pick one with --range (and --expect-hash).",
                                shell::aitools(["read", &t.display]),
                            ),
                        )
                        .with_candidates(select::candidates(doc, blocks.iter().map(|b| b.start))));
                    }
                    blocks
                        .iter()
                        .map(|b| if args.before { b.start } else { b.end })
                        .collect()
                }
                (None, None) => {
                    return Err(CmdError::internal("insert: no place after validation"));
                }
            };
            let per = split_plain(&content).len();
            let mut d: Option<Doc> = None;
            for p in points.iter().rev() {
                d = Some(d.as_ref().unwrap_or(doc).insert_lines(*p, &content));
            }
            inserted_at = points
                .iter()
                .enumerate()
                .map(|(k, p)| (p + k * per + 1) as u64)
                .collect();
            match d {
                Some(d) => put_if_changed(&t, d),
                None => Ok(Vec::new()),
            }
        },
    )?;
    let mut extra: Vec<(&str, Json)> = Vec::new();
    if let (true, Some(n)) = (args.guarded.guard.dry.dry_run, selected) {
        extra.push(("expect_count", Json::UInt(n)));
    }
    extra.push((
        "inserted_at",
        Json::Arr(inserted_at.into_iter().map(Json::UInt).collect()),
    ));
    Ok(committed.into_output(extra))
}

/// One place given: `--at`, or `--before`/`--after` with a selector.
fn check_place(args: &InsertArgs, has_sel: bool) -> Result<(), CmdError> {
    let cmd = "insert";
    let places = [args.at.is_some(), args.before, args.after]
        .iter()
        .filter(|b| **b)
        .count();
    if places != 1 {
        return Err(CmdError::invalid_argument(
            cmd,
            "Say where: one of --at start|end, --before or --after (with a selector).",
        ));
    }
    if args.at.is_some() && has_sel {
        return Err(CmdError::invalid_argument(
            cmd,
            "--at places by file end; a selector goes with --before or --after.",
        ));
    }
    if (args.before || args.after) && !has_sel {
        return Err(CmdError::invalid_argument(
            cmd,
            "--before/--after need a selector: --range, --symbol, --between or --match.",
        ));
    }
    Ok(())
}

/// `--at` of a large file: streamed, never held (`stream::insert_at`).
fn streamed(
    ctx: &Ctx,
    args: &InsertArgs,
    content: &str,
    expect: &guard::ExpectHash,
) -> Result<Option<(Vec<crate::store::write::Change>, u64)>, CmdError> {
    match (&args.at, args.sel.encoding()) {
        (Some(at), None) => super::stream::insert_at(ctx, &args.path, at == "end", content, expect),
        _ => Ok(None),
    }
}

/// The one content source given.
fn content(ctx: &Ctx, args: &InsertArgs) -> Result<String, CmdError> {
    let cmd = "insert";
    let n = [
        args.content.is_some(),
        args.content_file.is_some(),
        args.guarded.stdin,
        args.guarded.stdin_data.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if n != 1 {
        return Err(CmdError::invalid_argument(
            cmd,
            "Give the content once: --content, --content-file, --stdin or --stdin-data.",
        ));
    }
    if let Some(c) = &args.content {
        return Ok(c.clone());
    }
    if let Some(f) = &args.content_file {
        let abs = ctx.path_arg(f)?;
        let limit = args.guarded.input_limit.bytes(cmd)?;
        let bytes = crate::workspace::input::read_file(ctx, f, &abs, limit)?;
        return String::from_utf8(bytes).map_err(|e| {
            CmdError::new(
                code::NOT_UTF8,
                format!(
                    "--content-file {f} is not valid UTF-8 (byte {}).",
                    e.utf8_error().valid_up_to()
                ),
                Repair::new(
                    "info",
                    "See the file's encoding.",
                    shell::aitools(["info", f]),
                ),
            )
        });
    }
    Ok(args.guarded.input(ctx, cmd)?.unwrap_or_default())
}
