//! The envelope: what a handler returns (`Output`), and the one function that turns
//! an output or an error into the exact bytes printed, in the fixed member order
//! `schema_version, status, command, <fields>, took?, recovered?, pending_recovery?,
//! redactions?`.
//!
//! The secret mask runs over the whole object here, so no command can forget it.

use super::error::CmdError;
use super::json::Json;
use super::redact;
use serde::Serialize;
use std::ops::Range;

/// Envelopes above this many characters are refused (`refusal.too-large`).
pub const MAX_ENVELOPE_CHARS: usize = 16 * 1024 * 1024;

/// A handler's success: its fields in schema order, and whether a limit cut them.
#[derive(Debug, Clone)]
pub struct Output {
    pub fields: Json,
    pub partial: bool,
    /// Secrets the handler masked itself (`redact::mask_after_lead`): counted in
    /// `redactions` with the envelope pass's.
    pub premasked: usize,
    /// Strings the command generated itself (`util random`): never a user's
    /// secret, so the mask leaves them as they are (see [`hide_own`]).
    pub own: Vec<String>,
    /// The fields were masked by the command itself, all in one pass over one tree,
    /// their secrets tallied (`Output::masked`): the envelope's pass masks only the
    /// members the envelope adds, so each byte of the fields is masked once.
    pub fields_masked: bool,
}

impl Output {
    /// A complete result (`status: ok`, exit 0).
    pub fn ok<T: Serialize + ?Sized>(value: &T) -> Output {
        Output {
            fields: Json::from_serialize(value),
            partial: false,
            premasked: 0,
            own: Vec::new(),
            fields_masked: false,
        }
    }

    /// `ok` or `partial` (exit 3) depending on whether a limit cut the result.
    pub fn cut<T: Serialize + ?Sized>(value: &T, partial: bool) -> Output {
        Output {
            fields: Json::from_serialize(value),
            partial,
            premasked: 0,
            own: Vec::new(),
            fields_masked: false,
        }
    }

    pub fn from_json(fields: Json, partial: bool) -> Output {
        Output {
            fields,
            partial,
            premasked: 0,
            own: Vec::new(),
            fields_masked: false,
        }
    }

    /// This output with `values` exempt from the mask: strings the command made
    /// itself from its own random source, never read from the user's data.
    pub fn own_values(mut self, values: Vec<String>) -> Output {
        self.own = values;
        self
    }

    /// This output with every field already masked by the command (one
    /// `redact::mask_tree` over all of them, tallied with `redact::tally_shown`);
    /// nothing is masked twice.
    pub fn masked(mut self) -> Output {
        self.fields_masked = true;
        self
    }

    /// This output with `n` secrets its handler masked itself.
    pub fn premasked(mut self, n: usize) -> Output {
        self.premasked = n;
        self
    }
}

/// Bytes ready to print, and where and with which exit code.
#[derive(Debug)]
pub struct Rendered {
    pub text: String,
    pub exit_code: i32,
    pub to_stderr: bool,
}

/// The envelope's shape version: it moves whenever a breaking change renames,
/// removes, moves or retypes a member of any answer (a **Breaking** CHANGELOG
/// entry about a field or shape), never for additions.
pub const SCHEMA_VERSION: i64 = 9;

fn header(status: &str, command: &str) -> Json {
    let mut env = Json::obj();
    env.push("schema_version", Json::Int(SCHEMA_VERSION));
    env.push("status", Json::str(status));
    env.push("command", Json::str(command));
    env
}

/// Masks, counts and serializes; refuses an envelope over the size cap.
/// `premasked`: secrets the handler masked itself, counted with the pass's.
/// `trusted`: the members (by index) the command masked itself (`Output::masked`),
/// written as they are.
fn finish(
    mut env: Json,
    command: &str,
    premasked: usize,
    own: &[String],
    trusted: Range<usize>,
) -> Result<String, Box<TooLarge>> {
    hide_own(&mut env, own);
    let (mut text, redactions) = redact::write_masked_trusting(&env, trusted);
    restore_own_text(&mut text, own);
    // What the command masked itself (run's output, a premasked range) counts
    // with the rest.
    append_redactions(&mut text, redactions + premasked + redact::take_tally());
    if text.len() > MAX_ENVELOPE_CHARS && text.chars().count() > MAX_ENVELOPE_CHARS {
        return Err(Box::new(TooLarge {
            command: command.to_string(),
            chars: text.chars().count(),
        }));
    }
    text.push('\n');
    Ok(text)
}

/// The stand-in for the command's own value `i` while the mask runs: a control
/// character no detector takes for a secret.
fn own_marker(i: usize) -> String {
    format!("\u{1}aitools-own-{i}\u{1}")
}

/// Swaps each string equal to one of `own` for its marker, so the mask never
/// sees the command's own generated values (`restore_own*` puts them back).
pub fn hide_own(value: &mut Json, own: &[String]) {
    if own.is_empty() {
        return;
    }
    match value {
        Json::Str(s) => {
            if let Some(i) = own.iter().position(|o| o == s) {
                *s = own_marker(i);
            }
        }
        Json::Arr(items) => items.iter_mut().for_each(|v| hide_own(v, own)),
        Json::Obj(members) => members.iter_mut().for_each(|(_, v)| hide_own(v, own)),
        _ => {}
    }
}

/// The tree with [`hide_own`]'s markers replaced by the values again.
pub fn restore_own(value: &mut Json, own: &[String]) {
    if own.is_empty() {
        return;
    }
    match value {
        Json::Str(s) => {
            if let Some(i) = (0..own.len()).find(|&i| *s == own_marker(i)) {
                *s = own[i].clone();
            }
        }
        Json::Arr(items) => items.iter_mut().for_each(|v| restore_own(v, own)),
        Json::Obj(members) => members.iter_mut().for_each(|(_, v)| restore_own(v, own)),
        _ => {}
    }
}

/// The printed text with [`hide_own`]'s markers replaced by the values again.
fn restore_own_text(text: &mut String, own: &[String]) {
    for (i, o) in own.iter().enumerate() {
        let marker = Json::str(own_marker(i)).to_string_compact();
        *text = text.replace(&marker, &Json::str(o.clone()).to_string_compact());
    }
}

/// An answer over [`MAX_ENVELOPE_CHARS`] characters (`refusal.too-large`); the
/// wording is `command_error`'s.
#[derive(Debug)]
pub struct TooLarge {
    pub command: String,
    pub chars: usize,
}

/// `AITOOLS_INLINE_CONTEXT=1`: rules, skills and feedback after the command fields of
/// every envelope, except where the command already answered with one of them.
fn push_inline_context(env: &mut Json) {
    for (k, v) in super::agent_docs::inline_context() {
        if env.get(k).is_none() {
            env.push(k, v);
        }
    }
}

/// `redactions` goes last: before the object's closing brace.
fn append_redactions(text: &mut String, redactions: usize) {
    if redactions > 0 && text.ends_with('}') {
        text.pop();
        let sep = if text.ends_with('{') { "" } else { "," };
        text.push_str(&format!("{sep}\"redactions\":{redactions}}}"));
    }
}

/// A success envelope's tree, unmasked and without inline context: what an
/// outer answer (batch's `results`) nests, and what `render_ok` prints.
/// With the members (by index) the command masked itself (`Output::masked`).
pub fn ok_tree(command: &str, out: Output, recovery: Vec<(String, Json)>) -> (Json, Range<usize>) {
    let mut env = header(if out.partial { "partial" } else { "ok" }, command);
    let trusted = push_fields(&mut env, out);
    for (k, v) in recovery {
        env.push(&k, v);
    }
    (env, trusted)
}

/// Pushes the fields; returns the members (by index) the command masked itself.
fn push_fields(env: &mut Json, out: Output) -> Range<usize> {
    let len = |env: &Json| match env {
        Json::Obj(members) => members.len(),
        _ => 0,
    };
    let first = len(env);
    let masked = out.fields_masked;
    if let Json::Obj(members) = out.fields {
        for (k, v) in members {
            // An empty next_commands is omitted (spec: "omitted when empty").
            if k == "next_commands" && matches!(&v, Json::Arr(a) if a.is_empty()) {
                continue;
            }
            // `truncated` is news only when true: status ok already says nothing was cut.
            if k == "truncated" && v == Json::Bool(false) {
                continue;
            }
            env.push(&k, v);
        }
    }
    if masked { first..len(env) } else { 0..0 }
}

/// An error envelope's tree, unmasked and without inline context.
pub fn error_tree(command: &str, err: &CmdError) -> Json {
    let mut env = header("error", command);
    env.push("error", err.to_json());
    env
}

/// `error_tree`, and its members (by index) masked already: an error whose
/// diagnostics are masked answers (`CmdError::with_masked_diagnostics`) has its
/// `error` member masked here, all but the diagnostics (a value the rest hides
/// is masked in them too), and tallied; the envelope's pass leaves it.
pub fn error_tree_trusting(command: &str, err: &CmdError) -> (Json, Range<usize>) {
    let mut env = error_tree(command, err);
    let Json::Obj(members) = &mut env else {
        return (env, 0..0);
    };
    let at = members.len() - 1;
    let Some((_, Json::Obj(error))) = members.last_mut() else {
        return (env, 0..0);
    };
    let diagnostics = error.iter().position(|(k, _)| k == "diagnostics");
    let Some(d) = diagnostics.filter(|_| err.diagnostics_masked) else {
        return (env, 0..0);
    };
    let mut error = Json::Obj(std::mem::take(error));
    redact::tally_shown(redact::mask_tree_trusting(&mut error, d..d + 1));
    members[at].1 = error;
    (env, at..at + 1)
}

/// An answer made only of the binary's own constants (`--version`): nothing in
/// it can hold a secret, so it skips the mask, whose tables are half the cost of
/// a start-up. With the inline context on, the ordinary (masked) path.
pub fn render_constant(command: &str, out: Output) -> Rendered {
    if super::agent_docs::inline_enabled() {
        return render_ok(command, out, vec![], vec![]);
    }
    let mut env = header("ok", command);
    if let Json::Obj(members) = out.fields {
        for (k, v) in members {
            env.push(&k, v);
        }
    }
    let mut text = env.to_string_compact();
    text.push('\n');
    Rendered {
        text,
        exit_code: 0,
        to_stderr: false,
    }
}

/// A success envelope. `extra` members follow the command fields (inline context);
/// `recovery` is the recovery report (`recovered`, `pending_recovery`), each
/// member omitted when empty.
pub fn render_ok(
    command: &str,
    out: Output,
    extra: Vec<(String, Json)>,
    recovery: Vec<(String, Json)>,
) -> Rendered {
    let exit_code = if out.partial { 3 } else { 0 };
    let premasked = out.premasked;
    let own = out.own.clone();
    let mut env = header(if out.partial { "partial" } else { "ok" }, command);
    let trusted = push_fields(&mut env, out);
    for (k, v) in extra {
        env.push(&k, v);
    }
    push_inline_context(&mut env);
    for (k, v) in recovery {
        env.push(&k, v);
    }
    match finish(env, command, premasked, &own, trusted) {
        Ok(text) => Rendered {
            text,
            exit_code,
            to_stderr: false,
        },
        Err(e) => render_error(command, &CmdError::from(e)),
    }
}

/// An error envelope, for stderr, with the catalog's exit code.
pub fn render_error(command: &str, err: &CmdError) -> Rendered {
    let (mut env, trusted) = error_tree_trusting(command, err);
    push_inline_context(&mut env);
    let text = match finish(env, command, 0, &[], trusted) {
        Ok(t) => t,
        Err(too_large) => {
            // The error itself is too large (huge candidates): drop the extras.
            let mut slim = header("error", command);
            slim.push("error", CmdError::from(too_large).to_json());
            let mut t = slim.to_string_compact();
            t.push('\n');
            t
        }
    };
    Rendered {
        text,
        exit_code: err.exit_code(),
        to_stderr: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[derive(Serialize)]
    struct R {
        path: &'static str,
        next_commands: Vec<String>,
    }
    #[test]
    fn a_constant_answer_reads_as_the_masked_one() {
        let version = || {
            let mut v = Json::obj();
            v.push("name", Json::str("aitools"));
            v.push("version", Json::str(env!("CARGO_PKG_VERSION")));
            Output::from_json(v, false)
        };
        let masked = render_ok("version", version(), vec![], vec![]);
        let constant = render_constant("version", version());
        assert_eq!(constant.text, masked.text);
        assert_eq!(constant.exit_code, masked.exit_code);
    }

    #[test]
    fn order_and_redactions() {
        let r = render_ok(
            "read",
            Output::ok(&R {
                path: "password=hunter2",
                next_commands: vec![],
            }),
            vec![],
            vec![],
        );
        assert_eq!(
            r.text,
            format!(
                "{{\"schema_version\":{SCHEMA_VERSION},\"status\":\"ok\",\"command\":\"read\",\"path\":\"password=[REDACTED_SECRET]\",\"redactions\":1}}\n"
            )
        );
        assert_eq!(r.exit_code, 0);
    }
    /// Fields a command masked itself (`Output::masked`) are printed as they are
    /// (a numbered line is not judged again), the members the envelope adds are
    /// masked, and both printing paths (text, tree) agree.
    #[test]
    fn masked_fields_are_masked_once() {
        let fields = || {
            let mut v = Json::obj();
            v.push("lines", Json::Arr(vec![Json::str("1:password=x1y2z3w4v5")]));
            v
        };
        let took = || vec![("took".to_string(), Json::str("token=Qw3rty9Uiop5Asdf"))];
        let trusted = render_ok(
            "search",
            Output::from_json(fields(), false).masked(),
            vec![],
            took(),
        );
        assert!(
            trusted.text.contains("1:password=x1y2z3w4v5"),
            "{}",
            trusted.text
        );
        assert!(
            trusted.text.contains("token=[REDACTED_SECRET]"),
            "{}",
            trusted.text
        );
        let judged = render_ok("search", Output::from_json(fields(), false), vec![], took());
        assert!(
            judged.text.contains("1:password=[REDACTED_SECRET]"),
            "{}",
            judged.text
        );
        let (mut tree, range) = ok_tree(
            "search",
            Output::from_json(fields(), false).masked(),
            took(),
        );
        let n = redact::mask_tree_trusting(&mut tree, range);
        assert_eq!(n, 1);
        assert_eq!(
            format!(
                "{},\"redactions\":1}}\n",
                tree.to_string_compact().trim_end_matches('}')
            ),
            trusted.text
        );
    }

    #[test]
    fn error_shape() {
        let e = CmdError::invalid_argument("read", "bad");
        let r = render_error("read", &e);
        assert!(r.to_stderr);
        assert_eq!(r.exit_code, 1);
        assert!(r.text.starts_with(&format!("{{\"schema_version\":{SCHEMA_VERSION},\"status\":\"error\",\"command\":\"read\",\"error\":{{\"code\":\"argument.invalid\",\"message\":\"bad\",\"exit_code\":1,\"repairs\":[{{\"action\":\"schema\"")));
    }
}
