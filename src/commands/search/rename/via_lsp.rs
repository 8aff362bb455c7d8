//! `code rename --lsp`: the language server's rename at the picked definition
//! made the op's changes, or the reason the grammars rename instead.

use super::{Outcome, Parsed, RenameArgs, split_qualified};
use crate::commands::search::show;
use crate::protocol::CmdError;
use crate::store::request::Change;
use crate::text::syntax::defs::TreeDef;
use crate::workspace::Ctx;
use std::path::{Path, PathBuf};

/// The language server's rename at the picked definition: its changes, or
/// `None` (the reason in `out.lsp`) for the grammar to rename instead.
pub(super) fn lsp_rename(
    ctx: &Ctx,
    args: &RenameArgs,
    files: &[(PathBuf, Parsed)],
    (tpath, tdef): (&Path, &TreeDef),
    out: &mut Outcome,
) -> Result<Option<Vec<Change>>, CmdError> {
    let asked = crate::commands::search::lsp::ask(
        ctx,
        &args.lsp,
        tpath,
        tdef.start_line,
        split_qualified(&args.name).0,
        &crate::workspace::lsp::Ask::Rename(args.new.clone()),
        &files.iter().map(|(p, _)| p.as_path()).collect::<Vec<_>>(),
    );
    let reason = match asked {
        Ok((server, locs)) if !locs.is_empty() => {
            let mut changes = Vec::new();
            for e in crate::commands::search::lsp::apply(ctx, &locs)? {
                let occ = files.iter().find(|(p, _)| *p == e.path);
                for s in &e.starts {
                    let kind = occ
                        .and_then(|(_, f)| f.occ.iter().find(|o| o.start == *s))
                        .map_or("other", |o| o.kind.name());
                    out.renamed.add(kind);
                }
                out.counts
                    .push((show(&ctx.root, &e.path), e.starts.len() as u64));
                changes.push(Change::Put {
                    path: e.path,
                    bytes: e.bytes,
                    mode: None,
                });
            }
            out.lsp = Some(crate::commands::search::lsp::LspOut {
                used: true,
                server: Some(server),
                reason: None,
            });
            return Ok(Some(changes));
        }
        Ok((server, _)) => format!("{server} proposed no edits"),
        Err(reason) => reason,
    };
    if args.lsp.required() {
        return Err(crate::commands::search::lsp::required(ctx, &reason));
    }
    out.lsp = Some(crate::commands::search::lsp::LspOut {
        used: false,
        server: None,
        reason: Some(reason),
    });
    Ok(None)
}
