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
    mentions: &[&Path],
) -> Result<(String, Vec<Loc>), String> {
    let server = lsp::server_for(file)?;
    let snap = ctx
        .files()
        .load(file)
        .map_err(|e| CmdError::from(e).message.clone())?;
    let text = String::from_utf8_lossy(&snap.bytes);
    let (l, c) = column(&text, line, name)
        .ok_or_else(|| format!("NAME is not on line {line} of {}", file.display()))?;
    let at = At {
        root: &ctx.root,
        file,
        text: &text,
        line: l,
        character: c,
        also: mentions
            .iter()
            .filter(|p| p.extension() == file.extension())
            .take(lsp::MAX_OPEN)
            .filter_map(|p| {
                let s = ctx.files().load(p).ok()?;
                Some((p.to_path_buf(), String::from_utf8(s.bytes.clone()).ok()?))
            })
            .collect(),
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

impl LspOut {
    /// The member as the envelope's tree (for answers built as `Json`).
    pub fn json(&self) -> crate::protocol::json::Json {
        use crate::protocol::json::Json;
        let mut o = Json::obj();
        o.push("used", Json::Bool(self.used));
        if let Some(s) = &self.server {
            o.push("server", Json::Str(s.clone()));
        }
        if let Some(r) = &self.reason {
            o.push("reason", Json::Str(r.clone()));
        }
        o
    }
}

/// The byte offset of a server position (0-based line, UTF-16 column).
fn offset(text: &str, line: u32, character: u32) -> Option<usize> {
    let mut start = 0usize;
    for _ in 0..line {
        start += text.get(start..)?.find('\n')? + 1;
    }
    let l = &text[start..];
    let l = &l[..l.find('\n').unwrap_or(l.len())];
    let mut units = 0u32;
    for (i, c) in l.char_indices() {
        if units >= character {
            return Some(start + i);
        }
        units += c.len_utf16() as u32;
    }
    (units >= character).then_some(start + l.len())
}

/// One file a server's rename changes: its new bytes and the byte offsets
/// (in the old text) where each edit started.
pub struct Edited {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub starts: Vec<usize>,
}

/// The server's edits applied file by file: an edit outside the workspace root
/// refuses the whole rename (refusal.outside-workspace), as do overlapping
/// edits or a position past a file's end.
pub fn apply(ctx: &Ctx, locs: &[Loc]) -> Result<Vec<Edited>, CmdError> {
    let mut by_file: std::collections::BTreeMap<&Path, Vec<&Loc>> = Default::default();
    for l in locs {
        if !inside(ctx, &l.path) {
            return Err(CmdError::new(
                code::OUTSIDE_WORKSPACE,
                format!(
                    "The language server's rename edits {}, outside the workspace root; nothing was renamed.",
                    l.path.display()
                ),
                Repair::new(
                    "grammar",
                    "Rename with the grammar only (the workspace's files).",
                    shell::aitools(
                        ctx.argv
                            .iter()
                            .filter(|a| !a.starts_with("--lsp"))
                            .cloned()
                            .chain(["--dry-run".to_string()]),
                    ),
                ),
            ));
        }
        by_file.entry(&l.path).or_default().push(l);
    }
    let bad = |p: &Path, why: &str| {
        CmdError::new(
            code::UNAVAILABLE,
            format!(
                "The language server's rename of {} {why}; nothing was renamed.",
                p.display()
            ),
            Repair::new(
                "grammar",
                "Rename with the grammar only.",
                shell::aitools(
                    ctx.argv
                        .iter()
                        .filter(|a| !a.starts_with("--lsp"))
                        .cloned()
                        .chain(["--dry-run".to_string()]),
                ),
            ),
        )
    };
    let mut out = Vec::new();
    for (path, edits) in by_file {
        // At its real path, refused outside the root and never through a
        // symlink swapped in since (`Files::load_target`): the check above is
        // of the path's words only.
        let snap = ctx.files().load_target(path)?;
        let text = std::str::from_utf8(&snap.bytes)
            .map_err(|_| bad(path, "edits a file that is not UTF-8"))?;
        let mut spans: Vec<(usize, usize, &str)> = Vec::with_capacity(edits.len());
        for e in edits {
            let s = offset(text, e.line, e.character);
            let t = offset(text, e.end_line, e.end_character);
            match (s, t) {
                (Some(s), Some(t)) if s <= t => spans.push((s, t, &e.new_text)),
                _ => return Err(bad(path, "names a position past the file's end")),
            }
        }
        spans.sort_by_key(|s| (s.0, s.1));
        if spans.windows(2).any(|w| w[0].1 > w[1].0) {
            return Err(bad(path, "has overlapping edits"));
        }
        let mut bytes = Vec::with_capacity(text.len());
        let mut at = 0;
        for (s, t, new) in &spans {
            bytes.extend_from_slice(&text.as_bytes()[at..*s]);
            bytes.extend_from_slice(new.as_bytes());
            at = *t;
        }
        bytes.extend_from_slice(&text.as_bytes()[at..]);
        out.push(Edited {
            path: path.to_path_buf(),
            bytes,
            starts: spans.iter().map(|s| s.0).collect(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_edit_is_never_applied_to_a_file_reached_through_a_symlinked_directory() {
        // The server names `d/f.py`, inside the root by its words; `d` is (or
        // was swapped for, since the server looked) a link to a directory
        // outside. The edit must not be made of the outside file's bytes.
        let (_t, ws, _out) =
            crate::store::swapped_parent::parent_linked_out("f.py", "old = 'OUTSIDE-SECRET'\n");
        let root = ws.to_string_lossy().into_owned();
        let timeout = Duration::from_secs(1);
        let ctx = Ctx::new("code rename", Vec::new(), Some(&root), timeout).unwrap();
        let loc = Loc {
            path: ws.join("d/f.py"),
            line: 0,
            character: 0,
            end_line: 0,
            end_character: 3,
            new_text: "new".to_string(),
        };
        let got = apply(&ctx, std::slice::from_ref(&loc));
        assert!(
            got.as_ref()
                .is_err_and(|e| e.code == code::OUTSIDE_WORKSPACE),
            "edited through the link: {:?}",
            got.map(|e| e.iter().map(|x| x.bytes.clone()).collect::<Vec<_>>())
        );
    }
}
