//! The syntax guard (`--syntax-guard`, or `syntax_guard = true` in the
//! workspace's `.aitools.toml`): before a write is planned, each file it puts
//! whose language has a compiled-in grammar, or that is JSON (`*.json`), YAML or
//! TOML (the checks `aitools check` runs), is parsed as it is and as it would
//! be; a file that parsed (or did not exist) and would not parse refuses the
//! whole write, naming the first error. A file that did not parse before, or
//! whose parse is over the budget, is not judged.

use super::Change;
use super::WriteRequest;
use crate::store::error::{StoreError, SyntaxBroken};
use crate::store::files::Kind;
use crate::text::syntax::grammar::{self, Grammar, SyntaxError};
use crate::text::{lang, syntax};
use crate::workspace::Ctx;
use std::borrow::Cow;
use std::path::Path;

/// The workspace file that may turn the guard on by default.
pub const CONFIG_FILE: &str = ".aitools.toml";

/// Whether the guard is on for this request: the call's `--syntax-guard` value
/// when it gave one, else the workspace config (read only when needed).
fn enabled(ctx: &Ctx, req: &WriteRequest) -> Option<bool> {
    // An undo restores what was there, broken or not.
    if req.undoes.is_some() {
        return None;
    }
    match req.syntax_guard {
        Some(on) => on.then_some(false),
        None => config_default(&ctx.root).then_some(true),
    }
}

/// `syntax_guard = true` in `<root>/.aitools.toml` (a line of its own; other
/// keys and tables are left to their readers).
pub fn config_default(root: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(root.join(CONFIG_FILE)) else {
        return false;
    };
    let mut top = true;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            top = false;
        }
        if !top {
            continue;
        }
        let Some((k, v)) = t.split_once('=') else {
            continue;
        };
        if k.trim() == "syntax_guard" {
            let v = v.split('#').next().unwrap_or("").trim();
            return v == "true";
        }
    }
    false
}

/// The bytes a put-like change leaves; `None` for changes that write no text.
fn after_bytes(c: &Change) -> Option<(&Path, Cow<'_, [u8]>)> {
    match c {
        Change::Put { path, bytes, .. } | Change::PutHashed { path, bytes, .. } => {
            Some((path.as_path(), Cow::Borrowed(bytes.as_slice())))
        }
        Change::Splice {
            path,
            base,
            range,
            with,
        } => {
            let head = base.bytes.get(..range.start)?;
            let tail = base.bytes.get(range.end..)?;
            let mut v = Vec::with_capacity(head.len() + with.len() + tail.len());
            v.extend_from_slice(head);
            v.extend_from_slice(with);
            v.extend_from_slice(tail);
            Some((path.as_path(), Cow::Owned(v)))
        }
        _ => None,
    }
}

/// How a file is judged: by its tree-sitter grammar, or as a data format.
#[derive(Clone, Copy)]
enum Judge {
    Grammar(Grammar),
    /// `json`, `yaml` or `toml`, by `text::syntax`'s own checks.
    Data(&'static str),
}

impl Judge {
    /// The judge of file `name`; `None` when none applies. `*.jsonc` (JSON with
    /// comments, which the strict check refuses) is not judged.
    fn of_file(name: &str) -> Option<Judge> {
        if let Some(g) = Grammar::of_file(name) {
            return Some(Judge::Grammar(g));
        }
        let data = match lang::of_file(name)?.name {
            "json" => name
                .rsplit_once('.')
                .is_some_and(|(_, e)| e.eq_ignore_ascii_case("json"))
                .then_some("json")?,
            "yaml" => "yaml",
            "toml" => "toml",
            _ => return None,
        };
        Some(Judge::Data(data))
    }

    fn name(self) -> &'static str {
        match self {
            Judge::Grammar(g) => g.name(),
            Judge::Data(d) => d,
        }
    }

    /// The first error of `bytes` as file `name`; `None` when it parses or
    /// cannot be judged (over the budget, or a data file that is not UTF-8).
    fn first_error(self, name: &str, bytes: &[u8]) -> Option<SyntaxError> {
        let format = match self {
            Judge::Grammar(_) => return grammar::check_file(name, bytes).ok().flatten(),
            Judge::Data(d) => d,
        };
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let text = std::str::from_utf8(bytes).ok()?;
        let diags = match format {
            "json" => syntax::json(text),
            "yaml" => syntax::yaml(text),
            _ => syntax::toml(text),
        };
        diags.into_iter().next().map(|d| SyntaxError {
            line: d.line,
            column: d.column,
            message: d.message,
            missing: None,
        })
    }
}

/// Refuses the write when the guard is on and a change turns a file that parsed
/// into one that does not.
pub fn check(ctx: &Ctx, req: &WriteRequest, changes: &[Change]) -> Result<(), Box<StoreError>> {
    let judged: Vec<(&Path, Cow<'_, [u8]>, Judge)> = changes
        .iter()
        .filter_map(after_bytes)
        .filter_map(|(p, b)| {
            let name = p.file_name()?.to_str()?;
            Some((p, b, Judge::of_file(name)?))
        })
        .collect();
    if judged.is_empty() {
        return Ok(());
    }
    let Some(from_config) = enabled(ctx, req) else {
        return Ok(());
    };
    for (path, after, g) in judged {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let Some(error) = g.first_error(name, &after) else {
            continue;
        };
        let before = match ctx.files().stat(path, true)?.kind {
            Kind::File => Some(ctx.files().load(path)?),
            _ => None,
        };
        if let Some(b) = before
            && g.first_error(name, &b.bytes).is_some()
        {
            continue;
        }
        return Err(Box::new(StoreError::SyntaxBroken(Box::new(SyntaxBroken {
            rel: ctx.display_path(path),
            lang: g.name(),
            error,
            from_config,
            argv: ctx.argv.clone(),
        }))));
    }
    Ok(())
}
