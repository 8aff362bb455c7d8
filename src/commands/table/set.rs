//! `table set`: one cell of a CSV or TSV file, by data row and column, written
//! through the store (guarded, journaled, undoable); only that cell's bytes
//! change, quoted when the new text needs it.

use super::load::{self, Source};
use super::parse;
use crate::handler;
use crate::protocol::args::Guard;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::guard;
use crate::store::write::{self, Change, WriteRequest};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use crate::workspace::input::{self, InputLimit};
use clap::Args;

#[derive(Args, Debug)]
pub struct SetArgs {
    /// The CSV or TSV file to change.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Data row, 1-based after the header.
    #[arg(long, value_name = "N")]
    pub row: usize,
    /// Header name (or 1-based index).
    #[arg(long, value_name = "COL")]
    pub column: String,
    /// New cell text.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub value: Option<String>,
    /// Read the new cell text from stdin (never read otherwise); one trailing newline is dropped.
    #[arg(long)]
    pub stdin: bool,
    /// The --stdin input given inline (history records --stdin writes this way).
    #[arg(long, allow_hyphen_values = true)]
    pub stdin_data: Option<String>,
    #[command(flatten)]
    pub input_limit: InputLimit,
    #[command(flatten)]
    pub source: Source,
    #[command(flatten)]
    pub guarded: Guard,
}

pub const SET: CommandSpec = CommandSpec {
    name: "table set",
    summary: "Set one cell of a CSV or TSV file by row and column.",
    description: "--row counts data rows from 1 after the header. The new text is quoted when it holds the delimiter, a quote, CR or LF, or when the old cell was quoted; every other byte of the file stays as it was (other rows, quoting, CR LF). Undo restores the file.",
    args: <SetArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        write::FIELD_NEXT,
        field("previous", "The cell's text before the write (unquoted)."),
    ],
    error_codes: crate::write_error_codes![
        code::NOT_UTF8,
        code::SYNTAX_ERROR,
        code::TOO_LARGE,
        code::UNSUPPORTED_FORMAT
    ],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(SetArgs, set),
};

fn new_text(ctx: &Ctx, a: &SetArgs) -> Result<String, CmdError> {
    let given =
        usize::from(a.value.is_some()) + usize::from(a.stdin) + usize::from(a.stdin_data.is_some());
    if given != 1 {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "Give the new cell text once: --value TEXT, --stdin or --stdin-data TEXT.",
        ));
    }
    if let Some(v) = &a.value {
        return Ok(v.clone());
    }
    let bytes = match &a.stdin_data {
        Some(d) => d.as_bytes().to_vec(),
        None => input::read_stdin(ctx, a.input_limit.bytes(&ctx.command)?)?,
    };
    let mut s = String::from_utf8(bytes).map_err(|_| {
        CmdError::new(
            code::NOT_UTF8,
            "The new cell text is not valid UTF-8.",
            Repair::new(
                "value",
                "Pass the text with --value.",
                shell::aitools(["schema", &ctx.command]),
            ),
        )
    })?;
    if s.ends_with('\n') {
        s.pop();
        if s.ends_with('\r') {
            s.pop();
        }
    }
    Ok(s)
}

/// table set writes CSV and TSV only: the refusal for another format, with
/// the command that edits it instead.
fn not_delimited(t: &load::Table) -> CmdError {
    CmdError::new(
        code::UNSUPPORTED_FORMAT,
        format!(
            "table set writes CSV and TSV cells; {} reads as {}.",
            t.display,
            t.format.name()
        ),
        if t.format == load::Format::Json {
            Repair::new(
                "json",
                "See the first row, then `json set` its value by pointer.",
                shell::aitools(["json", "get", &t.display, "/0"]),
            )
        } else {
            Repair::new(
                "edit",
                "Read the rows as lines, then `edit` the line.",
                shell::aitools(["read", &t.display, "--max-lines", "5"]),
            )
        },
    )
}

pub fn set(ctx: &Ctx, a: &SetArgs) -> Result<Output, CmdError> {
    let value = new_text(ctx, a)?;
    guard::refuse_redacted("The value", Some(&a.path), value.as_bytes())?;
    if a.row == 0 {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--row counts from 1 (the first data row).",
        ));
    }
    let expect = guard::parse_expect_hash(&ctx.command, &a.guarded.expect_hash)?;
    let abs = ctx.write_path_arg(&a.path, Final::Follow)?;
    let mut previous = String::new();
    let done = write::submit(
        ctx,
        &WriteRequest::new(ctx).dry_run(a.guarded.dry.dry_run),
        || {
            let t = load::load(
                ctx,
                &a.path,
                abs.clone(),
                &a.source,
                &load::Shape::default(),
            )?;
            let Some(delim) = t.format.delim() else {
                return Err(not_delimited(&t));
            };
            if let Some(h) = expect.for_target(&a.path, &t.display, true) {
                guard::check_hash(&t.display, h, Some(&t.hash))?;
            }
            let col = t.column(ctx, &a.column)?;
            let Some(r) = t.rows.get(a.row - 1) else {
                return Err(CmdError::new(
                    code::ARGUMENT_INVALID,
                    format!(
                        "{} has {} data row(s); --row {} is past the end.",
                        t.display,
                        t.rows.len(),
                        a.row
                    ),
                    Repair::new(
                        "read",
                        "Read the last rows.",
                        shell::aitools([
                            "table",
                            "read",
                            &t.display,
                            "--range",
                            &format!("{}:", t.rows.len().saturating_sub(4).max(1)),
                        ]),
                    ),
                ));
            };
            let Some(cell) = r.cells.get(col) else {
                return Err(CmdError::invalid_argument(
                    &ctx.command,
                    format!(
                        "Row {} of {} (line {}) has {} cell(s): it has no column {:?} to set.",
                        a.row,
                        t.display,
                        r.line,
                        r.cells.len(),
                        a.column
                    ),
                ));
            };
            previous = cell.value.clone();
            let with = parse::render_cell(&value, delim, cell.quoted);
            let new = format!("{}{}{}", &t.text[..cell.start], with, &t.text[cell.end..]);
            let bytes = |n: &str| t.bytes_of(n);
            Ok(Change::rewrite(
                ctx,
                "The new table",
                &t.display,
                &t.abs,
                (&t.text, &new),
                bytes,
            )?)
        },
    )?;
    Ok(done.into_output(vec![("previous", Json::str(previous))]))
}
