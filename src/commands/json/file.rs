//! Loading a JSON file for the json family: through the store's view (a tx's
//! staged bytes when `--tx` is given), UTF-8 with an optional BOM, parsed with
//! spans; a syntax error carries its line and column.

use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::store::files;
use crate::text::json_doc::jq::{jq_each, jq_path};
use crate::text::json_doc::scan::{self, Shape};
use crate::text::json_doc::{self, Node};
use crate::workspace::Ctx;
use crate::workspace::candidates;
use std::path::PathBuf;

/// The codes a command that only reads JSON files can answer (`json get`,
/// `select`, `diff`).
pub const READ_CODES: &[&str] = &[
    code::ARGUMENT_INVALID,
    code::NOT_FOUND,
    code::SYNTAX_ERROR,
    code::NOT_UTF8,
    code::NOT_A_FILE,
    code::TOO_LARGE,
    code::BUSY,
    code::IO,
];

pub struct JsonFile {
    pub abs: PathBuf,
    pub display: String,
    pub hash: String,
    pub bom: bool,
    pub text: String,
    pub root: Node,
}

impl JsonFile {
    /// The bytes a write puts back: the BOM kept when the file had one.
    pub fn bytes_of(&self, text: &str) -> Vec<u8> {
        let mut b = Vec::with_capacity(text.len() + 3);
        if self.bom {
            b.extend_from_slice(b"\xEF\xBB\xBF");
        }
        b.extend_from_slice(text.as_bytes());
        b
    }
}

pub fn not_json(display: &str, text: &str, e: &json_doc::SyntaxError, what: &str) -> CmdError {
    let mut d = Json::obj();
    d.push("line", Json::UInt(e.line as u64));
    d.push("column", Json::UInt(e.column as u64));
    d.push("message", Json::str(e.message.clone()));
    let _ = text;
    if e.over_budget {
        return CmdError::new(
            code::TOO_LARGE,
            format!(
                "{what} is past aitools' budget for a JSON document held whole: {} (line {}, column {}); nothing was done.",
                e.message, e.line, e.column
            ),
            Repair::new(
                "read",
                "Read it in bounded pieces instead.",
                shell::aitools(["read", display, "--range", "1:200"]),
            ),
        );
    }
    CmdError::new(
        code::SYNTAX_ERROR,
        format!(
            "{what} is not valid JSON: {} at line {}, column {}.",
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

/// A JSON file's text as read (not parsed yet).
pub struct JsonSrc {
    pub abs: PathBuf,
    pub display: String,
    /// The SHA-256 a write checks (empty for a read, which needs none).
    pub hash: String,
    pub bom: bool,
    /// The body after the BOM.
    pub text: String,
}

impl JsonSrc {
    /// Parses the whole text (a syntax error is the answer).
    pub fn parse(self) -> Result<JsonFile, CmdError> {
        let root = json_doc::parse(&self.text)
            .map_err(|e| not_json(&self.display, &self.text, &e, &self.display))?;
        Ok(JsonFile {
            abs: self.abs,
            display: self.display,
            hash: self.hash,
            bom: self.bom,
            text: self.text,
            root,
        })
    }
}

/// Reads and parses `arg` (a write calls this inside its closure, under the lock).
pub fn load(ctx: &Ctx, arg: &str, abs: PathBuf) -> Result<JsonFile, CmdError> {
    load_as(ctx, arg, abs, false)
}

/// `load` of the file a write rewrites: read at its real path, refused outside
/// the workspace and never through a symlink swapped in on the way
/// (`Files::load_target`), so the new content is computed from the file the
/// write replaces, never from one a swapped parent directory leads to.
pub fn load_target(ctx: &Ctx, arg: &str, abs: PathBuf) -> Result<JsonFile, CmdError> {
    load_as(ctx, arg, abs, true)
}

fn load_as(ctx: &Ctx, arg: &str, abs: PathBuf, target: bool) -> Result<JsonFile, CmdError> {
    let display = ctx.files().whole_regular(arg, &abs)?;
    let snap = if target {
        ctx.files().load_target(&abs)?
    } else {
        ctx.files().load_follow(&abs)?
    };
    let (bom, body) = match snap.bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (true, rest),
        None => (false, &snap.bytes[..]),
    };
    let text = utf8(&display, body.to_vec())?;
    JsonSrc {
        abs,
        display,
        hash: snap.hash.clone(),
        bom,
        text,
    }
    .parse()
}

/// `arg` read for `json get` and `json select` (`load_src`), the read recorded.
pub fn load_read(ctx: &Ctx, arg: &str) -> Result<JsonSrc, CmdError> {
    let abs = ctx.path_arg(arg)?;
    let f = load_src(ctx, arg, abs)?;
    ctx.files().record_read(&f.abs)?;
    Ok(f)
}

/// Reads `arg` for a read (`json get`, `select`): its bytes once, no hash, no
/// copy kept in the session's snapshots, so the text is the only copy held.
pub fn load_src(ctx: &Ctx, arg: &str, abs: PathBuf) -> Result<JsonSrc, CmdError> {
    let display = ctx.files().whole_regular(arg, &abs)?;
    let mut bytes = match ctx.files().find(&abs)? {
        files::Found::At(c) => c
            .read()
            .map_err(|e| crate::protocol::error::io_error(&ctx.command, &display, &e))?,
        // What the view says instead is the snapshot's answer.
        _ => ctx.files().load_follow(&abs)?.bytes.clone(),
    };
    let bom = bytes.starts_with(b"\xEF\xBB\xBF");
    if bom {
        bytes.drain(..3);
    }
    let text = utf8(&display, bytes)?;
    Ok(JsonSrc {
        abs,
        display,
        hash: String::new(),
        bom,
        text,
    })
}

fn utf8(display: &str, body: Vec<u8>) -> Result<String, CmdError> {
    String::from_utf8(body).map_err(|e| {
        CmdError::new(
            code::NOT_UTF8,
            format!(
                "{display} is not valid UTF-8 (byte {}); JSON is UTF-8.",
                e.utf8_error().valid_up_to()
            ),
            Repair::new(
                "info",
                "See the file's encoding.",
                shell::aitools(["info", display]),
            ),
        )
    })
}

/// `argument.invalid` for a pointer that does not resolve: the part that did, and
/// the keys (an object) or the first and last index (an array) found there.
pub fn no_such_pointer(ctx: &Ctx, f: &JsonFile, tokens: &[String], resolved: usize) -> CmdError {
    let at = json_doc::lookup(&f.root, &tokens[..resolved]).ok();
    let shape = at.map(|n| match &n.kind {
        json_doc::Kind::Obj(m) => Shape::Obj(m.iter().take(20).map(|x| x.key.clone()).collect()),
        json_doc::Kind::Arr(items) => Shape::Arr(items.len()),
        _ => Shape::Other(n.type_name()),
    });
    pointer_error(ctx, &f.display, tokens, resolved, shape)
}

/// The same answer from the text alone (the streaming scan): the longest part
/// of the pointer that resolves and what is there; `None` when the text is not
/// JSON the scan vouches for (the whole parse answers then).
pub fn no_such_pointer_in(ctx: &Ctx, src: &JsonSrc, tokens: &[String]) -> Option<CmdError> {
    let text = &src.text;
    (0..tokens.len()).rev().find_map(|k| {
        let (start, end) = scan::locate(text, &tokens[..k])?;
        let shape = scan::shape(text, start, end, 20);
        Some(pointer_error(ctx, &src.display, tokens, k, Some(shape)))
    })
}

fn pointer_error(
    ctx: &Ctx,
    display: &str,
    tokens: &[String],
    resolved: usize,
    at: Option<Shape>,
) -> CmdError {
    let good = json_doc::pointer_of(&tokens[..resolved]);
    let shown = json_doc::pointer_of(tokens);
    let (keys, range): (Vec<Json>, String) = match &at {
        Some(Shape::Obj(keys)) => (
            keys.iter().map(|k| Json::str(k.clone())).collect(),
            String::new(),
        ),
        // An array's candidates are its first and last index.
        Some(Shape::Arr(0)) => (Vec::new(), "; the array is empty".to_string()),
        Some(Shape::Arr(len)) => {
            let last = len - 1;
            let mut ends = vec![Json::str("0")];
            if last > 0 {
                ends.push(Json::str(last.to_string()));
            }
            (ends, format!("; its indexes are 0-{last}"))
        }
        _ => (Vec::new(), String::new()),
    };
    let what = match &at {
        Some(n) => format!("{} at {:?}", json_doc::with_article(n.type_name()), good),
        None => format!("{good:?}"),
    };
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "{display} has nothing at {shown:?}: the pointer stops at {what} (token {:?}){range}.",
            tokens.get(resolved).map(String::as_str).unwrap_or("")
        ),
        Repair::new(
            "keys",
            "List what is there.",
            shell::aitools(["json", "get", display, &good, "--keys"]),
        ),
    )
    .with_candidates(Json::Arr(keys))
    .with_repair(Repair::new(
        "schema",
        "Check how pointers are written (RFC 6901: /key/0, ~1 for /, ~0 for ~).",
        shell::aitools(["schema", &ctx.command]),
    ))
}

/// Parses a pointer argument (`argument.invalid` naming the rule it breaks; a
/// jq path's repair is the same call with the pointer it means).
pub fn pointer(ctx: &Ctx, p: &str) -> Result<Vec<String>, CmdError> {
    json_doc::parse_pointer(p).map_err(|m| {
        let err = CmdError::invalid_argument(&ctx.command, m);
        let Some(tokens) = jq_path(p) else {
            return err;
        };
        let ptr = json_doc::pointer_of(&tokens);
        let mut fixed = ctx.argv.clone();
        if let Some(w) = fixed.iter_mut().find(|w| *w == p) {
            *w = ptr.clone();
        }
        err.with_first_repair(Repair::new(
            "retry",
            format!("The same call with the pointer {ptr}."),
            shell::aitools(&fixed),
        ))
    })
}

/// A pointer argument, or a jq path taken as the pointer it means (`.a[0].b` is
/// `/a/0/b`): the tokens, and the pointer when it was a jq path.
pub fn pointer_or_jq(ctx: &Ctx, p: &str) -> Result<(Vec<String>, Option<String>), CmdError> {
    if let Some(t) = jq_path(p) {
        let ptr = json_doc::pointer_of(&t);
        return Ok((t, Some(ptr)));
    }
    pointer(ctx, p).map(|t| (t, None))
}

/// A jq path through an array's elements given to json get: refused, and the
/// json select call that answers it is the repair.
pub fn jq_each_error(path: &str, p: &str) -> Option<CmdError> {
    let (array, pick) = jq_each(p)?;
    let mut call = vec!["json", "select", path, array.as_str()];
    if let Some(rel) = &pick {
        call.extend(["--pick", rel.as_str()]);
    }
    let what = match &pick {
        Some(rel) => format!("{rel} of each element"),
        None => "each element".to_string(),
    };
    Some(CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "{p:?} is jq's path through the array at {array:?}: json get answers one value; json select answers {what}."
        ),
        Repair::new(
            "run-instead",
            format!("The same question as json select ({what})."),
            shell::aitools(call),
        ),
    ))
}

/// `json set` of a member the object does not have, without `--create`: a typo
/// (`/misspeled`) must not add a member silently. The close existing keys are the
/// candidates; the repairs are the nearest key's call and the call with --create.
pub fn refuse_new_member(
    ctx: &Ctx,
    f: &JsonFile,
    given: &str,
    tokens: &[String],
) -> Result<(), CmdError> {
    let Some((last, up)) = tokens.split_last() else {
        return Ok(());
    };
    let Ok(parent) = json_doc::lookup(&f.root, up) else {
        return Ok(());
    };
    let json_doc::Kind::Obj(members) = &parent.kind else {
        return Ok(());
    };
    if members.iter().any(|m| &m.key == last) {
        return Ok(());
    }
    let limit = (last.chars().count() / 3).max(2);
    let mut close: Vec<(usize, &str)> = members
        .iter()
        .filter_map(|m| {
            let lower = m.key.to_lowercase();
            candidates::edit_distance(&last.to_lowercase(), &lower, limit)
                .map(|d| (d, m.key.as_str()))
        })
        .collect();
    close.sort();
    close.dedup();
    close.truncate(5);
    if close.is_empty() {
        // Nothing close: the keys that are there (an object's first ten).
        close = members
            .iter()
            .take(10)
            .map(|m| (0, m.key.as_str()))
            .collect();
    }
    let shown = json_doc::pointer_of(tokens);
    let with_flag = |p: &str| {
        let mut argv: Vec<String> = ctx.argv.clone();
        if let Some(slot) = argv.iter_mut().find(|a| a.as_str() == given) {
            *slot = p.to_string();
        }
        argv
    };
    let create = {
        let mut argv = with_flag(given);
        argv.push("--create".into());
        Repair::new(
            "create",
            format!("Add {last:?} as a new member."),
            shell::aitools(&argv),
        )
    };
    let mut err = CmdError::new(
        code::NO_MATCH,
        format!(
            "{} has no member {shown:?}; json set adds a member only with --create.",
            f.display
        ),
        create.clone(),
    )
    .with_candidates(Json::Arr(
        close
            .iter()
            .map(|(_, k)| Json::str(k.to_string()))
            .collect(),
    ));
    if let Some((_, key)) = close.first().filter(|(d, _)| *d > 0) {
        let mut near = up.to_vec();
        near.push(key.to_string());
        let p = json_doc::pointer_of(&near);
        err = err.with_first_repair(Repair::new(
            "retry",
            format!("Set the existing member {key:?}."),
            shell::aitools(with_flag(&p)),
        ));
    }
    Err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_never_loads_its_target_through_a_parent_directory_swapped_for_a_symlink() {
        // The write checked `d/f.json` while `d` was a directory of the
        // workspace; by its read, `d` is a link to an outside directory that
        // holds the same name. The new JSON must not be computed from (nor its
        // diff show) the outside file.
        let (_t, ws, _out) = crate::store::swapped_parent::parent_linked_out(
            "f.json",
            "{\"k\": \"OUTSIDE-SECRET\"}\n",
        );
        let root = ws.to_string_lossy().into_owned();
        let timeout = std::time::Duration::from_secs(1);
        let ctx = Ctx::new("json set", Vec::new(), Some(&root), timeout).unwrap();
        let got = load_target(&ctx, "d/f.json", ws.join("d/f.json"));
        assert!(
            got.as_ref()
                .is_err_and(|e| e.code == code::OUTSIDE_WORKSPACE),
            "read through the swapped-in link: {:?}",
            got.map(|f| f.text)
        );
        // A read (`json get`, `diff`) of the same path follows links as given.
        assert!(load(&ctx, "d/f.json", ws.join("d/f.json")).is_ok());
        // A real directory's file loads as before.
        std::fs::create_dir_all(ws.join("e")).unwrap();
        std::fs::write(ws.join("e/f.json"), "{\"k\": 1}\n").unwrap();
        let f = load_target(&ctx, "e/f.json", ws.join("e/f.json")).unwrap();
        assert_eq!(f.text, "{\"k\": 1}\n");
    }
}
