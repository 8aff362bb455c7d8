//! The refusals of `code rename` that name what stopped it: a scan the budget
//! cut, a file it could not read, a NEW already in use. Nothing is renamed in
//! any of them; each hands back the call that gets past it.

use super::{Parsed, RenameArgs};
use crate::protocol::{CmdError, Repair, code, shell};
use crate::text::syntax::refs;
use crate::workspace::Ctx;
use std::path::{Path, PathBuf};

/// A scan the budget cut: nothing renamed, the call with the budget raised.
pub(super) fn scan_cut(
    ctx: &Ctx,
    budget: &crate::workspace::scan::Budget,
    c: &crate::workspace::scan::Cut,
) -> CmdError {
    CmdError::new(
        code::TOO_LARGE,
        format!(
            "The scan's {} budget ran out after {} files; a partial rename would leave uses behind, so nothing was renamed.",
            c.budget, c.files
        ),
        Repair::new(
            "raise",
            "Run it again with the spent scan budget raised (or name a narrower PATH).",
            crate::workspace::scan_args::raise_budget(ctx, budget, c),
        ),
    )
}

/// A source file the scan passed over unread (`why`; `n` in all): nothing is
/// renamed, and the repairs show why and what uses the name.
pub(super) fn passed_over(ctx: &Ctx, p: &Path, why: &str, n: usize) -> CmdError {
    let shown = ctx.display_path(p);
    let others = match n {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    CmdError::new(
        code::IO,
        format!(
            "{shown}{others} was passed over ({why}); it may use the name, so nothing was renamed."
        ),
        Repair::new(
            "info",
            "See its mode and size; make it readable, or name a PATH that leaves it out.",
            format!("aitools info {}", crate::protocol::shell::quote(&shown)),
        ),
    )
}

/// The refusal of a NEW already used in a file the rename changes, with a free
/// name to use instead.
pub(super) fn name_taken(
    ctx: &Ctx,
    args: &RenameArgs,
    path: &str,
    line: u64,
    files: &[(PathBuf, Parsed)],
) -> CmdError {
    let new = &args.new;
    let free = (2..1000)
        .map(|i| format!("{new}{i}"))
        .find(|c| {
            files
                .iter()
                .all(|(_, f)| refs::word_hits(f.text.as_bytes(), c.as_bytes()).is_empty())
        })
        .unwrap_or_else(|| format!("{new}_renamed"));
    let mut argv: Vec<String> = ctx.argv.clone();
    if let Some(pos) = argv.iter().position(|a| a == new) {
        argv[pos] = free.clone();
    }
    CmdError::new(
        code::NAME_TAKEN,
        format!(
            "{new} already names something at {path}:{line}, a file the rename changes: the renamed {} would be captured by it (or capture it). Nothing was renamed.",
            args.name
        ),
        Repair::new(
            "other-name",
            format!("Rename to {free}, a name no file involved uses."),
            shell::aitools(argv),
        ),
    )
    .with_repair(Repair::new(
        "see",
        format!("See where {new} is used."),
        shell::aitools(["code", "refs", new.as_str()]),
    ))
}
