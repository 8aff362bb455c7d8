//! `read`: a bounded, numbered, hashed view of one file's lines.

use crate::handler;
use crate::protocol::registry::{CommandSpec, field};
use crate::protocol::{CmdError, Output, Repair, code, error, shell};
use crate::store::view;
use crate::text::{self, lines};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;
use std::io::Read;

#[derive(Args, Debug)]
pub struct ReadArgs {
    /// File to read (relative to the working directory).
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Selector: lines S:E, S: (to the end), or N (1-based, inclusive).
    #[arg(long)]
    pub range: Option<String>,
    /// The last N lines.
    #[arg(long, value_name = "N")]
    pub tail: Option<u64>,
    /// Maximum lines (text), rows of 16 bytes (hex), or strings returned.
    #[arg(long, value_name = "N", default_value = "80")]
    pub max_lines: u64,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "read",
    summary: "Read a file's lines with line numbers, a selector, and a line limit.",
    description: "One of: a selector, --tail. --max-lines always applies; when the output stops before the end of the file, next_commands holds the exact command that continues. A binary file returns {binary,size,mime} instead of lines. A UTF-8 BOM is never part of line 1 and a CR before LF is never part of a line.",
    args: <ReadArgs as clap::Args>::augment_args,
    output_fields: &[
        field("mode", "text (the --as value)."),
        field(
            "path",
            "The file, relative to the workspace root when inside it, else its absolute real path.",
        ),
        field("start_line", "Number of the first returned line."),
        field("lines", "Line texts without terminators or BOM."),
        field("total_lines", "Lines in the file."),
        field(
            "hash",
            "SHA-256 of the file bytes (the value --expect-hash compares).",
        ),
        field(
            "truncated",
            "True when --max-lines cut the output (status partial, exit 3).",
        ),
        field(
            "encoding_errors",
            "Invalid UTF-8 sequences replaced in the returned lines.",
        ),
        field(
            "binary",
            "On a binary file: true, with size and mime instead of lines.",
        ),
        field("approx_tokens", "ceil(characters of returned text / 4)."),
        field(
            "next_commands",
            "The command reading the next part, when there is one.",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::NO_MATCH,
        code::NOT_A_FILE,
        code::BUSY,
        code::IO,
    ],
    writes: false,
    tx: true,
    workspace: true,
    run: handler!(ReadArgs, run),
};

#[derive(Serialize)]
struct TextOut {
    mode: &'static str,
    path: String,
    start_line: u64,
    lines: Vec<String>,
    total_lines: u64,
    hash: String,
    truncated: bool,
    encoding_errors: u64,
    approx_tokens: usize,
    next_commands: Vec<String>,
}

#[derive(Serialize)]
struct BinaryOut {
    mode: &'static str,
    path: String,
    binary: bool,
    size: u64,
    mime: &'static str,
    hash: String,
}

pub fn run(ctx: &Ctx, args: &ReadArgs) -> Result<Output, CmdError> {
    if args.range.is_some() && args.tail.is_some() {
        return Err(CmdError::invalid_argument(
            "read",
            "--range and --tail are two selections; use one.",
        ));
    }
    if args.max_lines == 0 {
        return Err(CmdError::invalid_argument(
            "read",
            "--max-lines must be at least 1.",
        ));
    }
    let range = match &args.range {
        Some(r) => Some(
            crate::protocol::values::parse_range(r)
                .map_err(|m| CmdError::invalid_argument("read", m))?,
        ),
        None => None,
    };
    let abs = ctx.path_arg(&args.path)?;
    let shown = ctx.display_path(&abs);
    let st = view::stat(ctx, &abs, true)?;
    if st.kind == view::Kind::Missing {
        let e = std::io::Error::from(std::io::ErrorKind::NotFound);
        return Err(error::io_error("read", &args.path, &e));
    }
    if st.kind != view::Kind::File {
        return Err(CmdError::new(
            code::NOT_A_FILE,
            format!("{} is not a regular file.", args.path),
            Repair::new(
                "find",
                "List the directory's entries instead.",
                shell::aitools(["find", &args.path, "--depth", "1"]),
            ),
        ));
    }
    view::record_read(ctx, &abs)?;
    // A file the tx changed is read from its staged bytes.
    let staged = match st.staged {
        Some(_) => Some(view::load(ctx, &abs)?),
        None => None,
    };
    let open = || -> Result<Box<dyn Read>, CmdError> {
        match &staged {
            Some(s) => Ok(Box::new(std::io::Cursor::new(s.bytes.clone()))),
            None => Ok(Box::new(
                std::fs::File::open(&abs).map_err(|e| error::io_error("read", &args.path, &e))?,
            )),
        }
    };
    let mut file = open()?;
    let mut head = vec![0u8; text::sniff::SNIFF_BYTES];
    let head_len =
        read_full(&mut file, &mut head).map_err(|e| error::io_error("read", &args.path, &e))?;
    head.truncate(head_len);
    if text::sniff::is_binary(&head) {
        let hash = lines::scan(
            head.as_slice().chain(file),
            &mut lines::Span { first: 0, last: 0 },
            |_| {},
        )
        .map_err(|e| error::io_error("read", &args.path, &e))?
        .hash;
        let mime = text::sniff::mime(&head, &args.path, true);
        return Ok(Output::ok(&BinaryOut {
            mode: "text",
            path: shown,
            binary: true,
            size: st.len,
            mime,
            hash,
        }));
    }

    // With --tail the first wanted line depends on the total: count first.
    let (first, last) = match (range, args.tail) {
        (Some(r), _) => (r.start, r.end.unwrap_or(u64::MAX)),
        (None, Some(n)) => {
            let total = lines::scan(
                head.as_slice().chain(&mut file),
                &mut lines::Span { first: 0, last: 0 },
                |_| {},
            )
            .map_err(|e| error::io_error("read", &args.path, &e))?
            .total_lines;
            file = open()?;
            head.clear();
            (total.saturating_sub(n) + 1, u64::MAX)
        }
        (None, None) => (1, u64::MAX),
    };
    let cap_last = last.min(first.saturating_add(args.max_lines - 1));
    let mut out_lines = Vec::new();
    let mut encoding_errors = 0u64;
    let scan = lines::scan(
        head.as_slice().chain(file),
        &mut lines::Span {
            first,
            last: cap_last,
        },
        |l| {
            let text = String::from_utf8_lossy(l.bytes);
            if let std::borrow::Cow::Owned(_) = text {
                encoding_errors += text.matches('\u{FFFD}').count() as u64;
            }
            out_lines.push(text.into_owned());
        },
    )
    .map_err(|e| error::io_error("read", &args.path, &e))?;

    if first > scan.total_lines && !(first == 1 && scan.total_lines == 0) {
        return Err(CmdError::new(
            code::NO_MATCH,
            format!(
                "{} has {} lines; line {first} does not exist.",
                args.path, scan.total_lines
            ),
            Repair::new(
                "read",
                "Read the end of the file.",
                shell::aitools(["read", &args.path, "--tail", "20"]),
            ),
        ));
    }
    let wanted_last = last.min(scan.total_lines);
    let returned_last = first + out_lines.len() as u64 - 1;
    let truncated = !out_lines.is_empty() && returned_last < wanted_last;
    let mut next_commands = Vec::new();
    if truncated {
        let next_start = returned_last + 1;
        let next_end = (next_start + args.max_lines - 1).min(wanted_last);
        let mut words = vec![
            "read".to_string(),
            args.path.clone(),
            "--range".to_string(),
            format!("{next_start}:{next_end}"),
        ];
        if args.max_lines != 80 {
            words.push("--max-lines".to_string());
            words.push(args.max_lines.to_string());
        }
        next_commands.push(shell::aitools(&words));
    }
    let chars: usize = out_lines.iter().map(|l| l.chars().count()).sum::<usize>()
        + out_lines.len().saturating_sub(1);
    let out = TextOut {
        mode: "text",
        path: shown,
        start_line: first,
        lines: out_lines,
        total_lines: scan.total_lines,
        hash: scan.hash,
        truncated,
        encoding_errors,
        approx_tokens: crate::protocol::approx_tokens_chars(chars),
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}

/// Reads until `buf` is full or the file ends; returns the bytes read.
fn read_full(file: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
