//! `nb edit|insert|delete|move`: guarded, journaled writes of a notebook's
//! cells. Each is a splice of the JSON text (`text::notebook::edit`): the cells
//! a call does not name keep their bytes, new text is laid out as nbformat
//! writes it, and the result is checked as a notebook before it is written.

use super::file::{self, NbFile};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::guard;
use crate::store::write::{self, Change, WriteRequest};
use crate::text::notebook::edit::{self, Item};
use crate::text::notebook::{Cell, CellType, Notebook};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use crate::workspace::input::{self, InputLimit};
use clap::{Args, ValueEnum};

const NB_CODES: &[&str] = crate::write_error_codes![
    code::NOT_UTF8,
    code::SYNTAX_ERROR,
    code::UNSUPPORTED_FORMAT,
    code::NO_MATCH,
    code::AMBIGUOUS,
    code::TOO_LARGE,
];

const CELL_FIELD: crate::protocol::registry::Field = field(
    "cell",
    "The cell written: {index,id?} (index after the change; delete: the cell removed, with its type).",
);
const WRITE_NB_FIELDS: &[crate::protocol::registry::Field] = &[
    write::FIELD_CHANGES,
    write::FIELD_OP_ID,
    write::FIELD_DRY_RUN,
    CELL_FIELD,
    write::FIELD_NEXT,
];

/// The new source: inline, or from standard input.
#[derive(Args, Debug)]
pub struct SourceInput {
    /// The cell's whole new source ('' for an empty cell).
    #[arg(long, allow_hyphen_values = true)]
    pub source: Option<String>,
    /// Read the source from stdin (never read otherwise).
    #[arg(long)]
    pub stdin: bool,
    /// The --stdin input given inline (history records --stdin writes this way).
    #[arg(long, allow_hyphen_values = true)]
    pub stdin_data: Option<String>,
    #[command(flatten)]
    pub input_limit: InputLimit,
}

impl SourceInput {
    fn text(&self, ctx: &Ctx) -> Result<Option<String>, CmdError> {
        let given = [self.source.is_some(), self.stdin, self.stdin_data.is_some()];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err(CmdError::invalid_argument(
                &ctx.command,
                "Give the source once: --source, --stdin or --stdin-data.",
            ));
        }
        let bytes = if let Some(s) = &self.source {
            return Ok(Some(s.clone()));
        } else if let Some(d) = &self.stdin_data {
            d.as_bytes().to_vec()
        } else if self.stdin {
            input::read_stdin(ctx, self.input_limit.bytes(&ctx.command)?)?
        } else {
            return Ok(None);
        };
        String::from_utf8(bytes).map(Some).map_err(|e| {
            CmdError::new(
                code::NOT_UTF8,
                format!(
                    "The source is not valid UTF-8 (byte {}); a notebook is UTF-8.",
                    e.utf8_error().valid_up_to()
                ),
                Repair::new(
                    "schema",
                    "Check how this command takes its input.",
                    shell::aitools(["schema", &ctx.command]),
                ),
            )
        })
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TypeArg {
    Code,
    Markdown,
    Raw,
}

impl TypeArg {
    fn cell_type(self) -> CellType {
        match self {
            TypeArg::Code => CellType::Code,
            TypeArg::Markdown => CellType::Markdown,
            TypeArg::Raw => CellType::Raw,
        }
    }
}

/// Where a cell goes: before or after a named cell (default: the end).
#[derive(Args, Debug)]
pub struct Place {
    /// Put it before this cell (an id, or a 0-based index).
    #[arg(long, value_name = "CELL", conflicts_with = "after")]
    pub before: Option<String>,
    /// Put it after this cell (an id, or a 0-based index).
    #[arg(long, value_name = "CELL")]
    pub after: Option<String>,
}

impl Place {
    /// The slot (0..=len) in the cells array, counted before any removal.
    fn slot(&self, f: &NbFile) -> Result<usize, CmdError> {
        Ok(match (&self.before, &self.after) {
            (Some(b), _) => f.cell(b)?.index,
            (None, Some(a)) => f.cell(a)?.index + 1,
            (None, None) => f.nb.cells.len(),
        })
    }
}

/// `{index, id?}` of a cell.
fn brief(index: usize, id: Option<&str>) -> Json {
    let mut j = Json::obj();
    j.push("index", Json::UInt(index as u64));
    if let Some(id) = id {
        j.push("id", Json::str(id.to_string()));
    }
    j
}

/// What a write closure hands back: the new text and the answer's extra fields.
type Edited = (String, Vec<(&'static str, Json)>);

/// The shared write: load under the lock, check the guards, compute, check the
/// result is still a notebook, put.
fn write_nb(
    ctx: &Ctx,
    path: &str,
    g: &crate::protocol::args::Guard,
    edit: impl FnOnce(&NbFile, bool) -> Result<Edited, CmdError>,
) -> Result<Output, CmdError> {
    let expect = guard::parse_expect_hash(&ctx.command, &g.expect_hash)?;
    let abs = ctx.write_path_arg(path, Final::Follow)?;
    let mut extra = Vec::new();
    let done = write::submit(ctx, &WriteRequest::new(ctx).dry_run(g.dry.dry_run), || {
        let f = file::load_target(ctx, path, abs.clone())?;
        let h = expect.for_target(path, &f.display, true);
        if let Some(h) = h {
            guard::check_hash(&f.display, h, Some(&f.hash))?;
        }
        let (new, fields) = edit(&f, h.is_some() || g.dry.dry_run)?;
        extra = fields;
        if new == f.text {
            return Ok::<_, CmdError>(Vec::new());
        }
        // The edit is ours: a notebook it no longer parses is a bug, never written.
        Notebook::parse(&new).map_err(|e| {
            CmdError::internal(format!(
                "nb: the edited notebook no longer checks ({e:?}); nothing was written"
            ))
        })?;
        let bytes = |t: &str| f.bytes_of(t);
        Ok(Change::rewrite(
            ctx,
            "The new notebook",
            &f.display,
            &f.abs,
            (&f.text, &new),
            bytes,
        )?)
    })?;
    Ok(done.into_output(extra))
}

/// A cell named by its index (a position) for a whole-cell change needs
/// --expect-hash; one named by its id does not.
fn positional_guard(
    ctx: &Ctx,
    f: &NbFile,
    c: &Cell,
    arg: &str,
    guarded: bool,
) -> Result<(), CmdError> {
    if guarded || c.id.as_deref() == Some(arg) {
        return Ok(());
    }
    let err: CmdError = guard::missing_hash(
        &ctx.command,
        &f.display,
        &format!("Naming cell {arg} by its index (a position)"),
    )
    .into();
    Err(match &c.id {
        Some(id) => {
            let mut argv = ctx.argv.clone();
            if let Some(w) = argv.iter_mut().find(|w| w.as_str() == arg) {
                *w = id.clone();
            }
            err.with_first_repair(Repair::new(
                "by-id",
                format!("Name the cell by its id {id:?}, which no guard needs."),
                shell::aitools(&argv),
            ))
        }
        None => err,
    })
}

#[derive(Args, Debug)]
pub struct EditArgs {
    /// The notebook (.ipynb).
    #[arg(value_name = "PATH")]
    pub path: String,
    /// The cell: its id, or its 0-based index (an index needs --expect-hash unless --old is given).
    #[arg(value_name = "CELL")]
    pub cell: String,
    /// Text of the cell's source to replace; must occur exactly once in that cell.
    #[arg(long, allow_hyphen_values = true, requires = "new")]
    pub old: Option<String>,
    /// What --old becomes ('' deletes it).
    #[arg(long, allow_hyphen_values = true, requires = "old")]
    pub new: Option<String>,
    #[command(flatten)]
    pub input: SourceInput,
    /// Change the cell's type (with or without a new source); by index it needs --expect-hash.
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub cell_type: Option<TypeArg>,
    #[command(flatten)]
    pub guarded: crate::protocol::args::Guard,
}

pub const EDIT: CommandSpec = CommandSpec {
    name: "nb edit",
    summary: "Replace text in a notebook cell's source, or the whole source.",
    description: "--old/--new replaces text that occurs exactly once in the cell's source (selection.no-match or selection.ambiguous otherwise); --source, --stdin or --stdin-data replaces the whole source. --type code|markdown|raw changes the cell's type: a cell turned markdown or raw loses its outputs and execution_count, one turned code loses its attachments and starts with no outputs. Editing a code cell clears its outputs and execution_count (the kernel's results no longer match the code): the answer's `cleared` says which were cleared or removed. Other cells keep their bytes; the source is written one line per string, as nbformat writes it.",
    args: <EditArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        CELL_FIELD,
        field(
            "cleared",
            "What the edit cleared or removed: outputs, execution_count, attachments (absent when nothing).",
        ),
        field("type", "The cell's new type, when --type changed it."),
        write::FIELD_NEXT,
    ],
    error_codes: NB_CODES,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(EditArgs, edit_cell),
};

pub fn edit_cell(ctx: &Ctx, a: &EditArgs) -> Result<Output, CmdError> {
    let whole = a.input.text(ctx)?;
    match (&a.old, &whole) {
        (Some(_), Some(_)) => {
            return Err(CmdError::invalid_argument(
                &ctx.command,
                "--old/--new edits part of the source, --source/--stdin replaces all of it; give one.",
            ));
        }
        (None, None) if a.cell_type.is_none() => {
            return Err(CmdError::invalid_argument(
                &ctx.command,
                "Say what changes: --old TEXT --new TEXT, the whole source with --source TEXT (or --stdin), or the type with --type code|markdown|raw.",
            ));
        }
        _ => {}
    }
    for t in [&a.new, &whole].into_iter().flatten() {
        guard::refuse_redacted("The source", Some(&a.path), t.as_bytes())?;
    }
    write_nb(ctx, &a.path, &a.guarded, |f, guarded| {
        let c = f.cell(&a.cell)?;
        let src = match (&a.old, &a.new, &whole) {
            (Some(old), Some(new), _) => replace_once(ctx, f, c, old, new)?,
            (_, _, Some(w)) => {
                positional_guard(ctx, f, c, &a.cell, guarded)?;
                w.clone()
            }
            _ => c.source.clone(),
        };
        let mut fields = vec![("cell", brief(c.index, c.id.as_deref()))];
        let to = a
            .cell_type
            .map(TypeArg::cell_type)
            .filter(|t| *t != c.cell_type);
        if let Some(ty) = to {
            if a.old.is_none() {
                positional_guard(ctx, f, c, &a.cell, guarded)?;
            }
            let changed = (src != c.source).then_some(src.as_str());
            let (text, dropped) = edit::retype(&f.text, &f.nb, c, ty, changed);
            if !dropped.is_empty() {
                fields.push((
                    "cleared",
                    Json::Arr(dropped.into_iter().map(Json::str).collect()),
                ));
            }
            fields.push(("type", Json::str(ty.name())));
            return Ok((text, fields));
        }
        if src == c.source {
            return Ok((f.text.clone(), fields));
        }
        if c.cell_type == CellType::Code && c.has_run_state() {
            let mut cleared = Vec::new();
            if c.outputs.as_ref().is_some_and(|o| o.length() != Some(0)) {
                cleared.push(Json::str("outputs"));
            }
            if c.count(&f.text).is_some() {
                cleared.push(Json::str("execution_count"));
            }
            fields.push(("cleared", Json::Arr(cleared)));
        }
        Ok((edit::set_source(&f.text, &f.nb, c, &src, true), fields))
    })
}

/// The source with `old` (which must occur once) replaced by `new`.
fn replace_once(ctx: &Ctx, f: &NbFile, c: &Cell, old: &str, new: &str) -> Result<String, CmdError> {
    let n = if old.is_empty() {
        0
    } else {
        c.source.matches(old).count()
    };
    let read = Repair::new(
        "read",
        "Read the cell's source as it is now.",
        shell::aitools(["nb", "read", &f.display, "--cell", &ctx_cell(c)]),
    );
    match n {
        1 => Ok(c.source.replacen(old, new, 1)),
        0 => Err(CmdError::new(
            code::NO_MATCH,
            format!(
                "--old does not occur in cell {} of {}; nothing was written.",
                ctx_cell(c),
                f.display
            ),
            read,
        )),
        _ => Err(CmdError::new(
            code::AMBIGUOUS,
            format!(
                "--old occurs {n} times in cell {} of {}; give more of the surrounding text so it occurs once. Nothing was written.",
                ctx_cell(c),
                f.display
            ),
            read,
        )
        .with_repair(crate::protocol::error::schema_repair(&ctx.command))),
    }
}

/// How a message names a cell: its id, else its index.
fn ctx_cell(c: &Cell) -> String {
    c.id.clone().unwrap_or_else(|| c.index.to_string())
}

#[derive(Args, Debug)]
pub struct InsertArgs {
    /// The notebook (.ipynb).
    #[arg(value_name = "PATH")]
    pub path: String,
    /// The new cell's type.
    #[arg(long = "type", value_enum, default_value = "code")]
    pub cell_type: TypeArg,
    #[command(flatten)]
    pub place: Place,
    #[command(flatten)]
    pub input: SourceInput,
    #[command(flatten)]
    pub guarded: crate::protocol::args::Guard,
}

pub const INSERT: CommandSpec = CommandSpec {
    name: "nb insert",
    summary: "Insert a notebook cell before or after another, or at the end.",
    description: "The new cell is written as nbformat writes one: keys sorted, an empty metadata, a code cell with no outputs and execution_count null, and (nbformat 4.5+) a fresh 8-hex-digit id the answer gives. Its source comes from --source, --stdin or --stdin-data. Every other cell keeps its bytes.",
    args: <InsertArgs as clap::Args>::augment_args,
    output_fields: WRITE_NB_FIELDS,
    error_codes: NB_CODES,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(InsertArgs, insert),
};

pub fn insert(ctx: &Ctx, a: &InsertArgs) -> Result<Output, CmdError> {
    let Some(src) = a.input.text(ctx)? else {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "Give the new cell's source: --source TEXT ('' for an empty cell), --stdin or --stdin-data.",
        ));
    };
    guard::refuse_redacted("The source", Some(&a.path), src.as_bytes())?;
    write_nb(ctx, &a.path, &a.guarded, |f, _| {
        let slot = a.place.slot(f)?;
        let id = f.nb.wants_ids().then(|| {
            let salt = match &ctx.session.settings.seed {
                Some(s) => format!("seed:{s}:{}:{}", f.display, f.hash),
                None => format!(
                    "{:?}:{}:{}",
                    std::time::SystemTime::now(),
                    std::process::id(),
                    f.hash
                ),
            };
            edit::new_id(&f.nb, &salt)
        });
        let st = crate::text::json_doc::Style::of(&f.text, &f.nb.root);
        let ind = edit::cell_indent(&f.text, &f.nb);
        let cell = edit::new_cell(&st, &ind, a.cell_type.cell_type(), id.as_deref(), &src);
        let mut items: Vec<Item> = f.nb.cells.iter().map(Item::Keep).collect();
        items.insert(slot, Item::New(cell));
        Ok((
            edit::rebuild(&f.text, &f.nb, &items),
            vec![("cell", brief(slot, id.as_deref()))],
        ))
    })
}

#[derive(Args, Debug)]
pub struct DeleteArgs {
    /// The notebook (.ipynb).
    #[arg(value_name = "PATH")]
    pub path: String,
    /// The cell: its id, or its 0-based index (an index needs --expect-hash).
    #[arg(value_name = "CELL")]
    pub cell: String,
    #[command(flatten)]
    pub guarded: crate::protocol::args::Guard,
}

pub const DELETE: CommandSpec = CommandSpec {
    name: "nb delete",
    summary: "Delete a notebook cell.",
    description: "The cell goes with the separator that belongs to it; every other cell keeps its bytes. `aitools undo` brings it back.",
    args: <DeleteArgs as clap::Args>::augment_args,
    output_fields: WRITE_NB_FIELDS,
    error_codes: NB_CODES,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DeleteArgs, delete),
};

pub fn delete(ctx: &Ctx, a: &DeleteArgs) -> Result<Output, CmdError> {
    write_nb(ctx, &a.path, &a.guarded, |f, guarded| {
        let c = f.cell(&a.cell)?;
        positional_guard(ctx, f, c, &a.cell, guarded)?;
        let items: Vec<Item> =
            f.nb.cells
                .iter()
                .filter(|x| x.index != c.index)
                .map(Item::Keep)
                .collect();
        let mut b = brief(c.index, c.id.as_deref());
        b.push("type", Json::str(c.cell_type.name()));
        Ok((edit::rebuild(&f.text, &f.nb, &items), vec![("cell", b)]))
    })
}

#[derive(Args, Debug)]
pub struct MoveArgs {
    /// The notebook (.ipynb).
    #[arg(value_name = "PATH")]
    pub path: String,
    /// The cell: its id, or its 0-based index (an index needs --expect-hash).
    #[arg(value_name = "CELL")]
    pub cell: String,
    #[command(flatten)]
    pub place: Place,
    #[command(flatten)]
    pub guarded: crate::protocol::args::Guard,
}

pub const MOVE: CommandSpec = CommandSpec {
    name: "nb move",
    summary: "Move a notebook cell before or after another, or to the end.",
    description: "The cell's bytes move unchanged (outputs included); every cell keeps its bytes and only the order changes.",
    args: <MoveArgs as clap::Args>::augment_args,
    output_fields: WRITE_NB_FIELDS,
    error_codes: NB_CODES,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(MoveArgs, move_cell),
};

pub fn move_cell(ctx: &Ctx, a: &MoveArgs) -> Result<Output, CmdError> {
    write_nb(ctx, &a.path, &a.guarded, |f, guarded| {
        let c = f.cell(&a.cell)?;
        positional_guard(ctx, f, c, &a.cell, guarded)?;
        let slot = a.place.slot(f)?;
        let mut items: Vec<Item> = Vec::with_capacity(f.nb.cells.len());
        for x in &f.nb.cells {
            if x.index == slot {
                items.push(Item::Keep(c));
            }
            if x.index != c.index {
                items.push(Item::Keep(x));
            }
        }
        if slot >= f.nb.cells.len() {
            items.push(Item::Keep(c));
        }
        let to = items
            .iter()
            .position(|i| matches!(i, Item::Keep(x) if x.index == c.index))
            .unwrap_or(c.index);
        Ok((
            edit::rebuild(&f.text, &f.nb, &items),
            vec![("cell", brief(to, c.id.as_deref()))],
        ))
    })
}
