//! `transcode`: re-encode a file between utf-8, shift_jis (CP932), euc-jp,
//! iso-8859-1, utf-16le and utf-16be, as one guarded, journaled write. The
//! source encoding is guessed when not given; characters the target cannot
//! hold are refused (or written as `?` with `--replace-unmappable`).

use super::common;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::guard;
use crate::store::request::Change;
use crate::store::write::{self, WriteRequest};
use crate::text::decode::{self, Encoding};
use crate::workspace::Ctx;
use clap::Args;

#[derive(Args, Debug)]
pub struct TranscodeArgs {
    /// The file to convert.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Source encoding (default: guessed): utf-8 shift_jis euc-jp iso-8859-1 utf-16le utf-16be.
    #[arg(long)]
    pub from: Option<String>,
    /// Target encoding.
    #[arg(long, default_value = "utf-8")]
    pub to: String,
    /// Write ? for characters the target cannot represent.
    #[arg(long)]
    pub replace_unmappable: bool,
    #[command(flatten)]
    pub guard: crate::protocol::args::Guard,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "transcode",
    summary: "Convert a file between text encodings (iconv).",
    description: "Encodings: utf-8, shift_jis (CP932), euc-jp, iso-8859-1, utf-16le, utf-16be. Without --from the source is guessed as info's encoding_guess does. Bytes that are not valid in the source are refused; a character the target lacks is refused unless --replace-unmappable writes ? for it. A BOM the source had is written in the target's form when the target has one.",
    args: <TranscodeArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field("from", "Source encoding, when it was guessed (no --from)."),
        field(
            "replaced",
            "Characters written as ? (with --replace-unmappable).",
        ),
        write::FIELD_NEXT,
    ],
    error_codes: crate::write_error_codes![code::UNSUPPORTED_FORMAT, code::TOO_LARGE],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(TranscodeArgs, run),
};

fn encoding(flag: &str, name: &str) -> Result<Encoding, CmdError> {
    Encoding::from_name(name).ok_or_else(|| {
        CmdError::invalid_argument(
            "transcode",
            format!(
                "{flag} {name:?} is not an encoding transcode knows; use one of {}.",
                decode::NAMES.join(", ")
            ),
        )
    })
}

/// The source encoding: given, else the guess `info` reports.
fn guess(bytes: &[u8]) -> Option<Encoding> {
    let mut g = decode::Guesser::new();
    g.update(bytes);
    g.finish();
    Encoding::from_name(g.guess())
}

/// The BOM an encoding writes, when it has one.
fn bom(enc: Encoding) -> &'static [u8] {
    match enc {
        Encoding::Utf8 => b"\xEF\xBB\xBF",
        Encoding::Utf16Le => b"\xFF\xFE",
        Encoding::Utf16Be => b"\xFE\xFF",
        _ => b"",
    }
}

/// Encodes `text`, each character the target lacks as `?` when `replace`;
/// `Err((char, line))` names the first one otherwise.
fn encode(text: &str, to: Encoding, replace: bool) -> Result<(Vec<u8>, u64), (char, usize)> {
    match decode::encode_all(text, to) {
        Ok(b) => Ok((b, 0)),
        Err(c) if !replace => {
            let line = text.split('\n').position(|l| l.contains(c)).unwrap_or(0) + 1;
            Err((c, line))
        }
        Err(_) => {
            let mut out = Vec::with_capacity(text.len());
            let mut replaced = 0;
            let mut buf = [0u8; 4];
            for ch in text.chars() {
                match decode::encode_all(ch.encode_utf8(&mut buf), to) {
                    Ok(b) => out.extend(b),
                    Err(_) => {
                        replaced += 1;
                        out.extend(decode::encode_all("?", to).unwrap_or_else(|_| b"?".to_vec()));
                    }
                }
            }
            Ok((out, replaced))
        }
    }
}

fn no_guess(ctx: &Ctx, display: &str) -> CmdError {
    CmdError::new(
        code::UNSUPPORTED_FORMAT,
        format!(
            "{display}'s encoding could not be guessed (not valid UTF-8, Shift_JIS or EUC-JP, nor UTF-16 by its BOM or zeros)."
        ),
        Repair::new(
            "from",
            "Name the source encoding; every byte is a valid ISO-8859-1 character.",
            shell::aitools(shell::rerun(
                &ctx.argv,
                &["--from"],
                &[],
                &["--from".into(), "iso-8859-1".into()],
            )),
        ),
    )
}

fn not_decodable(display: &str, from: Encoding, errors: u64) -> CmdError {
    CmdError::new(
        code::UNSUPPORTED_FORMAT,
        format!(
            "{display} is not valid {}: {errors} byte sequence(s) do not decode; nothing was written.",
            from.name()
        ),
        Repair::new(
            "info",
            "See which encoding the file looks like, then name it with --from.",
            shell::aitools(["info", display]),
        ),
    )
}

fn unmappable(ctx: &Ctx, display: &str, to: Encoding, c: char, line: usize) -> CmdError {
    CmdError::new(
        code::UNSUPPORTED_FORMAT,
        format!(
            "{display} has {c:?} (U+{:04X}, line {line}), which {} cannot represent; nothing was written.",
            u32::from(c),
            to.name()
        ),
        Repair::new(
            "replace-unmappable",
            "Write ? for every character the target lacks (the count comes back as replaced).",
            shell::aitools(shell::rerun(
                &ctx.argv,
                &[],
                &["--replace-unmappable"],
                &["--replace-unmappable".into()],
            )),
        ),
    )
}

pub fn run(ctx: &Ctx, a: &TranscodeArgs) -> Result<Output, CmdError> {
    let cmd = "transcode";
    let expect = guard::parse_expect_hash(cmd, &a.guard.expect_hash)?;
    let to = encoding("--to", &a.to)?;
    let given = a
        .from
        .as_deref()
        .map(|f| encoding("--from", f))
        .transpose()?;
    let mut from_used = given;
    let mut replaced = 0;
    let req = WriteRequest::new(ctx).dry_run(a.guard.dry.dry_run);
    // The same text in other bytes: a line diff says nothing (and costs a
    // whole-file diff), so none is built unless a character was replaced or
    // --max-diff-lines asks for it.
    let mut quiet = false;
    let committed = write::submit(ctx, &req, || {
        let (real, display, snap) = common::locate(ctx, &a.path)?;
        if let Some(h) = expect.for_target(&a.path, &display, true) {
            guard::check_hash(&display, h, Some(&snap.hash))?;
        }
        let bytes = &snap.bytes[..];
        let from = match given.or_else(|| guess(bytes)) {
            Some(f) => f,
            None => return Err(no_guess(ctx, &display)),
        };
        from_used = Some(from);
        let had_bom = !decode::bom_of(bytes, from).is_empty();
        let (text, errors) = decode::decode_all(bytes, from);
        if errors > 0 {
            return Err(not_decodable(&display, from, errors));
        }
        let (body, n) = encode(&text, to, a.replace_unmappable)
            .map_err(|(c, line)| unmappable(ctx, &display, to, c, line))?;
        replaced = n;
        quiet = n == 0 && ctx.max_diff_lines.is_none();
        req.no_diffs.set(quiet);
        let out = if had_bom {
            [bom(to), &body[..]].concat()
        } else {
            body
        };
        if out == bytes {
            return Ok(Vec::new());
        }
        Ok(vec![Change::Put {
            path: real,
            bytes: out,
            mode: None,
        }])
    })?;
    // The caller's own --from and --to say nothing new: only a guessed source,
    // and the count --replace-unmappable asked for, are answered.
    let mut fields = Vec::new();
    if given.is_none() {
        let from = from_used.map_or("unknown", Encoding::name);
        fields.push(("from", Json::Str(from.to_string())));
    }
    if a.replace_unmappable {
        fields.push(("replaced", Json::UInt(replaced)));
    }
    let mut out = committed.into_output(fields);
    if quiet {
        crate::protocol::compact::drop_diffs(&mut out.fields, &[]);
    }
    Ok(out)
}
