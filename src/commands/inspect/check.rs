//! `check PATH...`: syntax of JSON, TOML and YAML files, source files by their
//! grammar (else their delimiter balance), with line and column, so an edit can be verified without
//! running the project.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::files::Kind;
use crate::text::syntax::grammar;
use crate::text::{lang, syntax};
use crate::workspace::Ctx;
use crate::workspace::candidates::{self, Offer};
use clap::Args;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files to check.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,
    /// Format: json, toml, yaml, lisp or source (delimiter balance); default from each file's extension.
    #[arg(long, value_parser = ["json", "toml", "yaml", "lisp", "source"])]
    pub format: Option<String>,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "check",
    summary: "Syntax check: JSON, TOML, YAML, brackets.",
    description: "JSON is checked strictly (RFC 8259), TOML by its grammar, escapes and duplicate keys, YAML structurally (tabs in indentation, quotes, flow brackets; not a full YAML parser). Source files of Rust, Python, Go, JavaScript, TypeScript/TSX, Java, C, C++ and Ruby are parsed by their tree-sitter grammar (first error, with `missing X` when the grammar names the token); other source files have their (), [], {} balance checked outside strings, comments and character literals. Any problem is input.syntax-error with diagnostics [{path,line,column,message}] for every file checked.",
    args: <CheckArgs as clap::Args>::augment_args,
    output_fields: &[
        field("valid", "Always true on success."),
        field(
            "format",
            "The first file's format: json, toml, yaml, lisp or source.",
        ),
        field("files", "[{path,format}] of the files checked."),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::SYNTAX_ERROR,
        code::UNSUPPORTED_FORMAT,
        code::NOT_FOUND,
        code::NOT_A_FILE,
        code::NOT_UTF8,
        code::TOO_LARGE,
        code::BUSY,
        code::IO,
    ],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(CheckArgs, run),
};

#[derive(Serialize)]
struct Checked {
    path: String,
    format: String,
}

#[derive(Serialize)]
struct CheckOut {
    valid: bool,
    format: String,
    files: Vec<Checked>,
}

/// The format a file is checked as, and for source files the language.
fn format_of(name: &str, forced: Option<&str>) -> Option<(String, Option<&'static str>)> {
    let language = lang::of_file(name).map(|l| l.name);
    let f = match forced {
        Some(f) => f.to_string(),
        None => match language {
            Some("json") => "json".into(),
            Some("toml") => "toml".into(),
            Some("yaml") => "yaml".into(),
            Some("common-lisp" | "emacs-lisp" | "scheme" | "clojure") => "lisp".into(),
            Some(l) if syntax::lexis_of(l).is_some() => "source".into(),
            _ => return None,
        },
    };
    Some((f, language))
}

/// The delimiter balance of a source (or Lisp) file.
fn balance(language: Option<&str>, format: &str, text: &str) -> Vec<syntax::Diag> {
    let lx = language
        .and_then(syntax::lexis_of)
        .or_else(|| syntax::lexis_of(if format == "lisp" { "common-lisp" } else { "c" }));
    match lx {
        Some(lx) => syntax::balance(text, &lx),
        None => Vec::new(),
    }
}

/// A source file's first syntax error by its compiled-in grammar; `None` when
/// no grammar covers it or the parse gave up (the delimiter balance decides).
fn grammar_diag(name: &str, body: &[u8]) -> Option<Vec<syntax::Diag>> {
    let first = grammar::check_file(name, body).ok()?;
    Some(
        first
            .map(|e| syntax::Diag {
                line: e.line,
                column: e.column,
                message: e.message,
            })
            .into_iter()
            .collect(),
    )
}

pub fn run(ctx: &Ctx, a: &CheckArgs) -> Result<Output, CmdError> {
    let mut files = Vec::new();
    let mut problems: Vec<Json> = Vec::new();
    for arg in &a.paths {
        files.push(check_file(ctx, a, arg, &mut problems)?);
    }
    if !problems.is_empty() {
        return Err(syntax_error(problems));
    }
    let format = files.first().map(|f| f.format.clone()).unwrap_or_default();
    Ok(Output::ok(&CheckOut {
        valid: true,
        format,
        files,
    }))
}

/// Checks the file `arg` names (a regular UTF-8 file of a format with a known
/// check), adding what is wrong with it to `problems`.
fn check_file(
    ctx: &Ctx,
    a: &CheckArgs,
    arg: &str,
    problems: &mut Vec<Json>,
) -> Result<Checked, CmdError> {
    let abs = ctx.path_arg(arg)?;
    let display = ctx.display_path(&abs);
    let meta = ctx.files().stat(&abs, true)?;
    match meta.kind {
        Kind::Missing => {
            let e = std::io::Error::from(std::io::ErrorKind::NotFound);
            return Err(candidates::not_found_or_io(ctx, arg, &abs, &e, Offer::Retry).into());
        }
        Kind::File => {}
        _ => {
            return Err(CmdError::new(
                code::NOT_A_FILE,
                format!("{display} is not a regular file."),
                Repair::new(
                    "find",
                    "List the files under it.",
                    shell::aitools(["find", &display, "--type", "file"]),
                ),
            ));
        }
    }
    let name = abs.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let Some((format, language)) = format_of(name, a.format.as_deref()) else {
        return Err(CmdError::new(
            code::UNSUPPORTED_FORMAT,
            format!("{display}: no syntax check is known for this kind of file."),
            Repair::new(
                "format",
                "Name the format to check it as.",
                shell::aitools(["check", &display, "--format", "source"]),
            ),
        ));
    };
    crate::workspace::input::whole_file_budget(&display, meta.len)?;
    let snap = ctx.files().load_follow(&abs)?;
    ctx.files().record_read(&abs)?;
    let body = snap
        .bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(&snap.bytes);
    let text = std::str::from_utf8(body).map_err(|e| {
        CmdError::new(
            code::NOT_UTF8,
            format!("{display} is not valid UTF-8 (byte {}).", e.valid_up_to()),
            Repair::new(
                "info",
                "See the file's encoding.",
                shell::aitools(["info", &display]),
            ),
        )
    })?;
    let diags = match format.as_str() {
        "json" => syntax::json(text),
        "toml" => syntax::toml(text),
        "yaml" => syntax::yaml(text),
        "source" if grammar::Grammar::of_file(name).is_some() => {
            grammar_diag(name, body).unwrap_or_else(|| balance(language, &format, text))
        }
        _ => balance(language, &format, text),
    };
    for d in diags {
        let mut o = Json::obj();
        o.push("path", Json::str(display.clone()));
        o.push("line", Json::UInt(d.line as u64));
        o.push("column", Json::UInt(d.column as u64));
        o.push("message", Json::str(d.message));
        problems.push(o);
    }
    Ok(Checked {
        path: display,
        format,
    })
}

/// `input.syntax-error` for the problems found, naming the first.
fn syntax_error(problems: Vec<Json>) -> CmdError {
    let first = problems.first();
    let path = first
        .and_then(|f| f.get("path"))
        .and_then(Json::as_str)
        .unwrap_or("")
        .to_string();
    let line = match first.and_then(|f| f.get("line")) {
        Some(Json::UInt(l)) => *l,
        _ => 1,
    };
    let msg = first
        .and_then(|f| f.get("message"))
        .and_then(Json::as_str)
        .unwrap_or("");
    let col = match first.and_then(|f| f.get("column")) {
        Some(Json::UInt(c)) => *c,
        _ => 1,
    };
    CmdError::new(
        code::SYNTAX_ERROR,
        format!(
            "{} problem(s); first: {path} line {line}, column {col}: {msg}.",
            problems.len()
        ),
        Repair::new(
            "read",
            "Read the lines around the first problem.",
            shell::aitools([
                "read",
                &path,
                "--range",
                &format!("{}:{}", line.saturating_sub(2).max(1), line + 2),
            ]),
        ),
    )
    .with_diagnostics(Json::Arr(problems))
}
