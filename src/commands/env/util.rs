//! `util encode|decode|redact|tokens|uuid`: what agents otherwise pipe through
//! base64, xxd, python or uuidgen: byte encodings, the one secret mask over any
//! text, a size and token estimate, and RFC 9562 UUIDs from the OS random source.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, redact, shell, time};
use crate::store::{files, guard};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use crate::workspace::host;
use crate::workspace::input::{self, InputLimit};
use clap::{Args, ValueEnum};

/// The input of every util command but uuid: exactly one source.
#[derive(Args, Debug)]
pub struct Input {
    /// Input text (its UTF-8 bytes).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub content: Option<String>,
    /// Read the input as bytes from this file (not limited to the workspace).
    #[arg(long, value_name = "PATH")]
    pub content_file: Option<String>,
    /// Read the input from standard input (never read otherwise).
    #[arg(long)]
    pub stdin: bool,
    #[command(flatten)]
    pub limit: InputLimit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scheme {
    Base64,
    Url,
    Hex,
}

#[derive(Args, Debug)]
pub struct CodecArgs {
    /// base64 (RFC 4648, standard alphabet, padded), url (RFC 3986 percent-encoding; unreserved bytes kept) or hex (lowercase pairs).
    #[arg(value_enum)]
    pub scheme: Scheme,
    #[command(flatten)]
    pub input: Input,
}

#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// base64 (RFC 4648, standard alphabet, padded), url (RFC 3986 percent-encoding) or hex (lowercase pairs).
    #[arg(value_enum)]
    pub scheme: Scheme,
    #[command(flatten)]
    pub input: Input,
    /// Write the decoded bytes, as they are, to this new file in the workspace (journaled; undo deletes it).
    #[arg(long, value_name = "PATH")]
    pub to: Option<String>,
    #[command(flatten)]
    pub dry: crate::protocol::args::DryRun,
}

#[derive(Args, Debug)]
pub struct TextArgs {
    #[command(flatten)]
    pub input: Input,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    V4,
    V7,
}

#[derive(Args, Debug)]
pub struct UuidArgs {
    /// v4: random; v7: Unix milliseconds then a counter, strictly increasing within a call.
    #[arg(long, value_enum, default_value = "v4")]
    pub kind: Kind,
    /// How many, 1 to 1000.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub count: u32,
}

// A --content-file that is a directory or a device is refused before it is read.
const INPUT_CODES: &[&str] = &[code::NOT_FOUND, code::NOT_A_FILE];

pub const ENCODE: CommandSpec = CommandSpec {
    name: "util encode",
    summary: "Encode bytes as base64, URL percent-encoding or hex.",
    description: "Exactly one of --content, --content-file, --stdin.",
    args: <CodecArgs as clap::Args>::augment_args,
    output_fields: &[field("output", "The encoded ASCII text.")],
    error_codes: INPUT_CODES,
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(CodecArgs, encode),
};

pub const DECODE: CommandSpec = CommandSpec {
    name: "util decode",
    summary: "Decode base64, URL percent-encoding or hex.",
    description: "ASCII whitespace in base64 and hex input is ignored. Decoded bytes that are not UTF-8 come back as hex. With --to they are written, as they are, to a new workspace file through the store (refusal.exists when it exists; --dry-run, --tx; undo deletes it) and not shown.",
    args: <DecodeArgs as clap::Args>::augment_args,
    output_fields: &[
        field("bytes", "Decoded byte count."),
        field(
            "output",
            "The decoded bytes as text, when they are UTF-8 (not with --to).",
        ),
        field(
            "binary",
            "True when the decoded bytes are not UTF-8 (not with --to).",
        ),
        field(
            "output_hex",
            "With binary: the decoded bytes as lowercase hex.",
        ),
        crate::store::write::FIELD_CHANGES,
        crate::store::write::FIELD_OP_ID,
        crate::store::write::FIELD_DRY_RUN,
        crate::store::write::FIELD_NEXT,
    ],
    error_codes: crate::write_error_codes![code::SYNTAX_ERROR],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DecodeArgs, decode),
};

pub const REDACT: CommandSpec = CommandSpec {
    name: "util redact",
    summary: "Mask known secrets in text, as every answer is masked.",
    description: "The one secret mask every envelope goes through, over the input; redactions counts the masked regions. Invalid UTF-8 becomes U+FFFD.",
    args: <TextArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "text",
            "The input, each secret replaced by [REDACTED_SECRET].",
        ),
        field("redactions", "Masked regions (present when any)."),
    ],
    error_codes: INPUT_CODES,
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(TextArgs, redact_text),
};

pub const TOKENS: CommandSpec = CommandSpec {
    name: "util tokens",
    summary: "Measure input: approximate tokens, chars, bytes, lines, words.",
    description: "approx_tokens is ceil(chars / 4), the estimate aitools' own answers use; no model's tokenizer.",
    args: <TextArgs as clap::Args>::augment_args,
    output_fields: &[
        field("approx_tokens", "ceil(chars / 4)."),
        field(
            "chars",
            "Unicode scalar values (an invalid UTF-8 sequence counts one U+FFFD).",
        ),
        field("bytes", "Input size in bytes."),
        field(
            "lines",
            "Newlines, plus one for an unterminated last line (wc -l counts newlines only).",
        ),
        field("words", "Runs of non-whitespace (wc -w)."),
        field(
            "max_line_chars",
            "Longest line in characters, without CR LF.",
        ),
    ],
    error_codes: INPUT_CODES,
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(TextArgs, tokens),
};

pub const UUID: CommandSpec = CommandSpec {
    name: "util uuid",
    summary: "RFC 9562 UUIDs (v4, v7) from the OS random source.",
    description: "v7 takes the aitools clock (AITOOLS_FIXED_TIME respected).",
    args: <UuidArgs as clap::Args>::augment_args,
    output_fields: &[field("values", "Lowercase 8-4-4-4-12 UUID strings.")],
    error_codes: &[],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(UuidArgs, uuid),
};

fn read_input(ctx: &Ctx, i: &Input) -> Result<Vec<u8>, CmdError> {
    let given = usize::from(i.content.is_some())
        + usize::from(i.content_file.is_some())
        + usize::from(i.stdin);
    if given != 1 {
        return Err(CmdError::new(
            code::ARGUMENT_INVALID,
            "Give exactly one input: --content TEXT, --content-file PATH or --stdin.",
            Repair::new(
                "content",
                "Pass the input inline.",
                shell::aitools(
                    [ctx.command.as_str(), "--content", "TEXT"]
                        .iter()
                        .flat_map(|w| w.split(' ')),
                ),
            ),
        ));
    }
    let limit = i.limit.bytes(&ctx.command)?;
    if let Some(c) = &i.content {
        return Ok(c.as_bytes().to_vec());
    }
    if let Some(f) = &i.content_file {
        let abs = ctx.path_arg(f)?;
        return Ok(input::read_file(ctx, f, &abs, limit)?);
    }
    Ok(input::read_stdin(ctx, limit)?)
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for c in b.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(char::from(B64[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn unbase64(s: &[u8]) -> Option<Vec<u8>> {
    let s: Vec<u8> = s
        .iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    if !s.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    for (k, q) in s.chunks(4).enumerate() {
        let last = k == s.len() / 4 - 1;
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &q[..4 - pad] {
            let v = B64.iter().position(|&x| x == c)? as u32;
            n = (n << 6) | v;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

fn hex(b: &[u8]) -> String {
    crate::text::lines::hex(b)
}

fn unhex(s: &[u8]) -> Option<Vec<u8>> {
    let s: Vec<u8> = s
        .iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

fn url(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    for &c in b {
        if c.is_ascii_alphanumeric() || b"-._~".contains(&c) {
            out.push(char::from(c));
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
    }
    out
}

fn unurl(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' {
            let h = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The input with its secrets masked before it is encoded: base64 or hex of a
/// secret is the secret, out of the reach of the mask every answer goes through
/// (`util encode base64 --content-file .env` would print it).
/// The input with its secrets masked, and how many it held (not tallied).
fn masked(b: Vec<u8>) -> (Vec<u8>, usize) {
    match String::from_utf8(b) {
        Ok(s) => match redact::mask_untallied(&s) {
            Some((m, n)) => (m.into_bytes(), n),
            None => (s.into_bytes(), 0),
        },
        Err(e) => redact::mask_bytes_untallied(e.as_bytes()),
    }
}

pub fn encode(ctx: &Ctx, a: &CodecArgs) -> Result<Output, CmdError> {
    let (b, secrets) = masked(read_input(ctx, &a.input)?);
    let out = match a.scheme {
        Scheme::Base64 => base64(&b),
        Scheme::Url => url(&b),
        Scheme::Hex => hex(&b),
    };
    // The envelope's pass may mask the encoding again (a text's base64 looks like a
    // generic random value): what it finds there stands for the input's secrets,
    // so each is counted once.
    redact::tally_shown(secrets.saturating_sub(redact::count_in(&out)));
    let mut o = Json::obj();
    o.push("output", Json::str(out));
    Ok(Output::from_json(o, false))
}

pub fn decode(ctx: &Ctx, a: &DecodeArgs) -> Result<Output, CmdError> {
    let b = read_input(ctx, &a.input)?;
    let (decoded, name) = match a.scheme {
        Scheme::Base64 => (unbase64(&b), "base64"),
        Scheme::Url => (unurl(&b), "url"),
        Scheme::Hex => (unhex(&b), "hex"),
    };
    let Some(d) = decoded else {
        return Err(CmdError::new(
            code::SYNTAX_ERROR,
            format!("The input is not valid {name}."),
            Repair::new(
                "encode",
                "See what valid input looks like: encode a sample.",
                shell::aitools(["util", "encode", name, "--content", "sample"]),
            ),
        ));
    };
    if let Some(to) = &a.to {
        return decode_to(ctx, a, to, d);
    }
    if a.dry.dry_run {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--dry-run goes with --to (without it nothing is written).",
        ));
    }
    let mut o = Json::obj();
    o.push("bytes", Json::UInt(d.len() as u64));
    match String::from_utf8(d) {
        Ok(s) => o.push("output", Json::str(s)),
        Err(e) => {
            o.push("binary", Json::Bool(true));
            let shown = redact::mask_bytes(e.as_bytes());
            o.push("output_hex", Json::str(hex(&shown)));
        }
    }
    Ok(Output::from_json(o, false))
}

/// `util decode --to`: the decoded bytes as a new file, through the store.
fn decode_to(ctx: &Ctx, a: &DecodeArgs, to: &str, bytes: Vec<u8>) -> Result<Output, CmdError> {
    use crate::store::write::{self, Change, WriteRequest};
    let there = ctx.files().exists(&ctx.resolve(to)).unwrap_or(false);
    guard::refuse_redacted("The decoded bytes", there.then_some(to), &bytes)?;
    let abs = ctx.write_path_arg(to, Final::Entry)?;
    let n = bytes.len();
    let done = write::submit(ctx, &WriteRequest::new(ctx).dry_run(a.dry.dry_run), || {
        let shown = ctx.display_path(&abs);
        if ctx.files().stat(&abs, false)?.kind != files::Kind::Missing {
            return Err(CmdError::new(
                code::EXISTS,
                format!("{shown} already exists; util decode --to writes a new file only."),
                Repair::new(
                    "elsewhere",
                    "Write to a new name (or delete the old file first).",
                    shell::aitools(shell::rerun(
                        &ctx.argv,
                        &["--to"],
                        &[],
                        &["--to".into(), format!("{to}.new")],
                    )),
                ),
            ));
        }
        Ok(vec![Change::Put {
            path: abs.clone(),
            bytes: bytes.clone(),
            mode: None,
        }])
    })?;
    Ok(done.into_output(vec![("bytes", Json::UInt(n as u64))]))
}

pub fn redact_text(ctx: &Ctx, a: &TextArgs) -> Result<Output, CmdError> {
    let b = read_input(ctx, &a.input)?;
    let text = String::from_utf8_lossy(&b).to_string();
    let text = redact::mask_str(&text).map_or(text, |(m, _)| m);
    let mut o = Json::obj();
    o.push("text", Json::str(text));
    Ok(Output::from_json(o, false))
}

pub fn tokens(ctx: &Ctx, a: &TextArgs) -> Result<Output, CmdError> {
    let b = read_input(ctx, &a.input)?;
    let text = String::from_utf8_lossy(&b);
    let chars = text.chars().count() as u64;
    let newlines = b.iter().filter(|&&c| c == b'\n').count() as u64;
    let lines = newlines + u64::from(!b.is_empty() && !b.ends_with(b"\n"));
    let words = b
        .split(|c| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .count() as u64;
    let max_line = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).chars().count() as u64)
        .max()
        .unwrap_or(0);
    let mut o = Json::obj();
    o.push("approx_tokens", Json::UInt(chars.div_ceil(4)));
    o.push("chars", Json::UInt(chars));
    o.push("bytes", Json::UInt(b.len() as u64));
    o.push("lines", Json::UInt(lines));
    o.push("words", Json::UInt(words));
    o.push("max_line_chars", Json::UInt(max_line));
    Ok(Output::from_json(o, false))
}

fn format_uuid(b: &[u8; 16]) -> String {
    let h = hex(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

pub fn uuid(ctx: &Ctx, a: &UuidArgs) -> Result<Output, CmdError> {
    if !(1..=1000).contains(&a.count) {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--count must be 1 to 1000.",
        ));
    }
    let n = a.count as usize;
    let mut rnd = vec![0u8; 16 * n + 2];
    host::random_bytes(&mut rnd)
        .map_err(|e| crate::store::io_fault(ctx, "the OS random source", &e))?;
    let (secs, nanos) = time::now();
    let ms = (secs.max(0) as u64) * 1000 + u64::from(nanos / 1_000_000);
    // v7: a counter in rand_a from a random start below 2048, so 1000 values
    // stay below 4096 and strictly increase within the millisecond.
    let start = u64::from(u16::from_be_bytes([rnd[16 * n], rnd[16 * n + 1]]) & 0x7ff);
    let mut values = Vec::with_capacity(n);
    for i in 0..n {
        let mut b = [0u8; 16];
        b.copy_from_slice(&rnd[16 * i..16 * i + 16]);
        if a.kind == Kind::V7 {
            b[..6].copy_from_slice(&ms.to_be_bytes()[2..8]);
            let counter = start + i as u64;
            b[6] = 0x70 | ((counter >> 8) as u8 & 0x0f);
            b[7] = counter as u8;
        } else {
            b[6] = 0x40 | (b[6] & 0x0f);
        }
        b[8] = 0x80 | (b[8] & 0x3f);
        values.push(Json::str(format_uuid(&b)));
    }
    let mut o = Json::obj();
    o.push("values", Json::Arr(values));
    Ok(Output::from_json(o, false))
}
