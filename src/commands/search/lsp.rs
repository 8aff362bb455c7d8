//! `--lsp` for `code refs` and `code rename`: where the grammar found the
//! symbol's definition, ask a language server (`workspace::lsp`) at that spot;
//! what it answers replaces the grammar's list, and when it cannot answer the
//! grammar's answer stands with `lsp {used:false, reason}` (`--lsp=require`
//! refuses instead).

use crate::protocol::{CmdError, Repair, code, shell};
use crate::workspace::Ctx;
use crate::workspace::lsp::{self, Ask, At, Loc, LspArgs};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The `lsp` member of an answer.
#[derive(Serialize, Debug, Default)]
pub struct LspOut {
    pub used: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The `lsp` field's declaration.
pub const FIELD: &str = "{used, server?, reason?}, with --lsp: used true when a language server answered (its locations or edits are the answer); false with the reason (no server on PATH, it failed or timed out) when the grammar's answer is given instead.";

/// Where NAME stands on 1-based `line` of `text`: the 0-based line and the
/// UTF-16 column of its first whole-word occurrence.
fn column(text: &str, line: u64, name: &str) -> Option<(u32, u32)> {
    let l = text
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let is_id = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = l.get(from..)?.find(name) {
        let at = from + i;
        let before = l[..at].chars().next_back().is_none_or(|c| !is_id(c));
        let after = l[at + name.len()..]
            .chars()
            .next()
            .is_none_or(|c| !is_id(c));
        if before && after {
            return Some((u32::try_from(line - 1).ok()?, lsp::utf16_col(l, at)));
        }
        from = at + name.len();
    }
    None
}

/// Asks the server for `file`'s language at NAME on `line` (1-based).
/// `Err(reason)` when it could not answer.
pub fn ask(
    ctx: &Ctx,
    args: &LspArgs,
    file: &Path,
    line: u64,
    name: &str,
    what: &Ask,
) -> Result<(String, Vec<Loc>), String> {
    let server = lsp::server_for(file)?;
    let snap = ctx.files().load(file).map_err(|e| e.message.clone())?;
    let text = String::from_utf8_lossy(&snap.bytes);
    let (l, c) = column(&text, line, name)
        .ok_or_else(|| format!("NAME is not on line {line} of {}", file.display()))?;
    let at = At {
        root: &ctx.root,
        file,
        text: &text,
        line: l,
        character: c,
    };
    let timeout = Duration::from_secs(args.lsp_timeout.max(1));
    let locs = lsp::ask(&server, &at, what, timeout)?;
    Ok((server.name, locs))
}

/// The refusal of `--lsp=require` when the server could not answer; the
/// repair is the same call with plain `--lsp` (the grammar's fallback).
pub fn required(ctx: &Ctx, reason: &str) -> CmdError {
    let argv: Vec<String> = ctx
        .argv
        .iter()
        .map(|a| {
            if a == "--lsp=require" {
                "--lsp".to_string()
            } else {
                a.clone()
            }
        })
        .collect();
    CmdError::new(
        code::UNAVAILABLE,
        format!("--lsp=require: no language server answered ({reason})."),
        Repair::new(
            "fallback",
            "Run it with the grammar's answer when no server answers.",
            shell::aitools(&argv),
        ),
    )
}

/// Whether `p` lies under the workspace root.
pub fn inside(ctx: &Ctx, p: &Path) -> bool {
    let canon = |q: &Path| std::path::absolute(q).unwrap_or_else(|_| q.to_path_buf());
    let p: PathBuf = canon(p);
    !p.components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
        && p.starts_with(canon(&ctx.root))
}
