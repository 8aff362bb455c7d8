//! Loading a notebook for the nb family: through the store's view (a tx's staged
//! bytes under `--tx`), UTF-8 with an optional BOM, checked as nbformat 4; what
//! is wrong with a file that is not one is worded here with the call that
//! repairs it. Also the CELL argument's lookup and its errors.

use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::text::json_doc;
use crate::text::notebook::{Cell, NbError, Notebook};
use crate::workspace::Ctx;
use std::path::PathBuf;

/// The codes a command that reads a notebook can answer.
pub const READ_CODES: &[&str] = &[
    code::ARGUMENT_INVALID,
    code::NOT_FOUND,
    code::NO_MATCH,
    code::AMBIGUOUS,
    code::SYNTAX_ERROR,
    code::UNSUPPORTED_FORMAT,
    code::NOT_UTF8,
    code::NOT_A_FILE,
    code::TOO_LARGE,
    code::BUSY,
    code::IO,
];

pub struct NbFile {
    pub abs: PathBuf,
    pub display: String,
    pub hash: String,
    pub bom: bool,
    pub text: String,
    pub nb: Notebook,
}

impl NbFile {
    /// The bytes a write puts back: the BOM kept when the file had one.
    pub fn bytes_of(&self, text: &str) -> Vec<u8> {
        let mut b = Vec::with_capacity(text.len() + 3);
        if self.bom {
            b.extend_from_slice(crate::text::BOM);
        }
        b.extend_from_slice(text.as_bytes());
        b
    }

    /// The cell CELL names (an id, or a 0-based index); selection.no-match with
    /// the cells there are, or selection.ambiguous when digits name one cell by
    /// index and another by id.
    pub fn cell(&self, arg: &str) -> Result<&Cell, CmdError> {
        self.nb.find(arg).map_err(|hits| {
            let brief = |c: &Cell| {
                let mut j = Json::obj();
                j.push("index", Json::UInt(c.index as u64));
                if let Some(id) = &c.id {
                    j.push("id", Json::str(id.clone()));
                }
                j.push("type", Json::str(c.cell_type.name()));
                j
            };
            let read = Repair::new(
                "read",
                "List the cells with their indexes and ids.",
                shell::aitools(["nb", "read", &self.display, "--max-output-lines", "0"]),
            );
            if hits.is_empty() {
                let n = self.nb.cells.len();
                let range = if n == 0 {
                    "it has no cells".to_string()
                } else {
                    format!("its cells are 0-{}", n - 1)
                };
                CmdError::new(
                    code::NO_MATCH,
                    format!(
                        "{} has no cell {arg:?} (an id, or a 0-based index; {range}).",
                        self.display
                    ),
                    read,
                )
                .with_candidates(Json::Arr(self.nb.cells.iter().take(10).map(brief).collect()))
            } else {
                CmdError::new(
                    code::AMBIGUOUS,
                    format!(
                        "{arg:?} in {} is the id of one cell and the index of another; name the cell by an id no index shares.",
                        self.display
                    ),
                    read,
                )
                .with_candidates(Json::Arr(hits.into_iter().map(brief).collect()))
            }
        })
    }
}

/// Reads and checks `arg` (a write calls this inside its closure, under the lock).
pub fn load(ctx: &Ctx, arg: &str, abs: PathBuf) -> Result<NbFile, CmdError> {
    load_as(ctx, arg, abs, false)
}

/// `load` of the file a write rewrites: read at its real path, refused outside
/// the workspace and never through a symlink swapped in on the way
/// (`Files::load_target`), so the new content is computed from the file the
/// write replaces, never from one a swapped parent directory leads to.
pub fn load_target(ctx: &Ctx, arg: &str, abs: PathBuf) -> Result<NbFile, CmdError> {
    load_as(ctx, arg, abs, true)
}

fn load_as(ctx: &Ctx, arg: &str, abs: PathBuf, target: bool) -> Result<NbFile, CmdError> {
    let display = ctx.files().whole_regular(arg, &abs)?;
    let snap = if target {
        ctx.files().load_target(&abs)?
    } else {
        ctx.files().load_follow(&abs)?
    };
    let (bom, body) = match snap.bytes.strip_prefix(crate::text::BOM) {
        Some(rest) => (true, rest),
        None => (false, &snap.bytes[..]),
    };
    let text = String::from_utf8(body.to_vec()).map_err(|e| {
        CmdError::new(
            code::NOT_UTF8,
            format!(
                "{display} is not valid UTF-8 (byte {}); a notebook is UTF-8 JSON.",
                e.utf8_error().valid_up_to()
            ),
            Repair::new(
                "info",
                "See the file's encoding.",
                shell::aitools(["info", &display]),
            ),
        )
    })?;
    let nb = Notebook::parse(&text).map_err(|e| not_notebook(&display, e))?;
    Ok(NbFile {
        abs,
        display,
        hash: snap.hash.clone(),
        bom,
        text,
        nb,
    })
}

/// The error for a file that is not an nbformat 4 notebook, with the call that
/// repairs it where one is plain (a missing member set to its empty value).
pub fn not_notebook(display: &str, e: NbError) -> CmdError {
    match e {
        NbError::Json(e) => {
            let mut d = Json::obj();
            d.push("line", Json::UInt(e.line as u64));
            d.push("column", Json::UInt(e.column as u64));
            d.push("message", Json::str(e.message.clone()));
            CmdError::new(
                if e.over_budget {
                    code::TOO_LARGE
                } else {
                    code::SYNTAX_ERROR
                },
                format!(
                    "{display} is not a notebook: it is not valid JSON ({} at line {}, column {}); nothing was done.",
                    e.message, e.line, e.column
                ),
                Repair::new(
                    "read",
                    "Read the lines around the error.",
                    shell::aitools([
                        "read",
                        display,
                        "--range",
                        &format!("{}:{}", e.line.saturating_sub(2).max(1), e.line + 2),
                    ]),
                ),
            )
            .with_diagnostics(Json::Arr(vec![d]))
        }
        NbError::Version { found } => CmdError::new(
            code::UNSUPPORTED_FORMAT,
            format!(
                "{display} is nbformat {found}; the nb commands read and edit nbformat 4 notebooks (upgrade it with `jupyter nbconvert --to notebook --nbformat 4`). Nothing was done."
            ),
            Repair::new(
                "read",
                "Read it as JSON lines instead.",
                shell::aitools(["read", display]),
            ),
        ),
        NbError::Invalid {
            pointer,
            line,
            why,
            fix,
        } => {
            let mut d = Json::obj();
            d.push("pointer", Json::str(pointer.clone()));
            d.push("line", Json::UInt(line as u64));
            let look = {
                let tokens = json_doc::parse_pointer(&pointer).unwrap_or_default();
                let up = json_doc::pointer_of(&tokens[..tokens.len().saturating_sub(1)]);
                Repair::new(
                    "look",
                    "See what is there.",
                    shell::aitools(["json", "get", display, &up]),
                )
            };
            let err = CmdError::new(
                code::SYNTAX_ERROR,
                format!(
                    "{display} is not a valid nbformat 4 notebook: {why} (at {pointer}, line {line}); nothing was done."
                ),
                look.clone(),
            )
            .with_diagnostics(Json::Arr(vec![d]));
            match fix {
                Some(v) => err.with_first_repair(Repair::new(
                    "repair",
                    format!("Set {pointer} to {v}, what nbformat expects there."),
                    shell::aitools(["json", "set", display, &pointer, &v, "--create"]),
                )),
                None => err,
            }
        }
    }
}
