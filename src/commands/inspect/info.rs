//! `info`: what a path is, where it really is, and what its bytes look like (the
//! `stat`, `wc`, `file`, `realpath` and `sha256sum` replacement), from one pass.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, code, error, time};
use crate::store::files::{Content, Found, Metadata};
use crate::store::journal::State;
use crate::text::lines;
use crate::text::stats::{self, Algorithm};
use crate::workspace::candidates::{self, Offer};
use crate::workspace::{Ctx, paths};
use clap::Args;
use std::os::unix::fs::PermissionsExt;

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Path to describe.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Add {algorithm,value} for this digest of the file bytes.
    #[arg(long, value_parser = ["sha256", "sha1", "md5"])]
    pub digest: Option<String>,
    /// Succeed with exists:false when the path does not exist.
    #[arg(long)]
    pub allow_missing: bool,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "info",
    summary: "Size, lines, encoding, mode, hash (wc, stat).",
    description: "Path fields always; content fields for an existing file, counted in one pass over its bytes. --allow-missing turns a missing path into exists:false with the path fields only. digest uses a standard algorithm (compare with sha256sum and friends); hash is the change-detection hash. A FIFO, device or procfs/sysfs file is described from its metadata and never opened.",
    args: <InfoArgs as clap::Args>::augment_args,
    output_fields: &[
        field("absolute", "Lexical absolute path."),
        field("real", "Path with every symlink resolved."),
        field(
            "relative",
            "Path relative to the workspace root, or null outside it.",
        ),
        field(
            "exists",
            "Whether the path exists (a dangling symlink does not).",
        ),
        field(
            "kind",
            "file, directory, symlink (dangling), other, or null.",
        ),
        field(
            "inside_workspace",
            "Whether the real path is below the real workspace root.",
        ),
        field(
            "ignored",
            "Whether the workspace ignore rules exclude the path.",
        ),
        field("size", "Bytes."),
        field(
            "lines",
            "Line count (a final line without a newline counts); null for binary files.",
        ),
        field(
            "words",
            "Whitespace-separated words, as wc -w; null for binary files.",
        ),
        field(
            "max_line_chars",
            "Characters in the longest line; null for binary files.",
        ),
        field("binary", "NUL in the first 8 KiB."),
        field("mime", "MIME type from magic bytes, then the extension."),
        field("utf8_valid", "Whether the bytes are valid UTF-8."),
        field(
            "encoding_guess",
            "utf-8, shift_jis, euc-jp, utf-16le, utf-16be, or unknown.",
        ),
        field(
            "line_ending",
            "lf, crlf, mixed, or none; null for binary files.",
        ),
        field(
            "trailing_newline",
            "Whether the file ends with a line feed.",
        ),
        field("bom", "Whether the file starts with a UTF-8 BOM."),
        field("mode", "Permission bits as four octal digits."),
        field("mtime", "Modification time, ISO 8601 UTC."),
        field(
            "hash",
            "SHA-256 of the bytes of the regular file the path leads to (the value --expect-hash compares); for a symlink that leads to no regular file (dangling, or to a directory), SHA-256 of its target text; absent for a directory.",
        ),
        field(
            "approx_tokens",
            "ceil(characters / 4); null for binary files.",
        ),
        field("digest", "{algorithm,value} with --digest."),
        field(
            "readable",
            "false when the file cannot be opened for its mode (the content fields are left out); absent otherwise.",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::BUSY,
        code::IO,
    ],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(InfoArgs, run),
};

fn link_hash(link: &Content) -> Option<String> {
    link.read_link()
        .ok()
        .map(|t| lines::sha256_hex(t.as_os_str().as_encoded_bytes()))
}

/// Mode and mtime: the tx's staged state for a path it staged (the blob file's
/// own metadata is the store's, not the path's), else the file's.
fn stat_fields(obj: &mut Json, meta: &Metadata, staged: Option<&State>) {
    let mode = match staged.and_then(|s| s.mode) {
        Some(m) => m,
        None => meta.permissions().mode(),
    };
    obj.push("mode", Json::str(format!("{:04o}", mode & 0o7777)));
    let secs = match staged {
        // As a scan through the tx reports a staged entry: touch's time, else now.
        Some(s) => Some(s.mtime.unwrap_or_else(|| time::now().0)),
        None => meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs() as i64),
    };
    obj.push(
        "mtime",
        secs.map_or(Json::Null, |s| Json::str(time::iso8601(s))),
    );
}

fn null_or<T: Into<Json>>(binary: bool, v: T) -> Json {
    if binary { Json::Null } else { v.into() }
}

pub fn run(ctx: &Ctx, args: &InfoArgs) -> Result<Output, CmdError> {
    let abs = ctx.path_arg(&args.path)?;
    // With --tx a staged file's statistics come from its blob (the staged bytes).
    let files = ctx.files();
    let (content, gone) = match files.find(&abs)? {
        Found::At(c) => (c, false),
        Found::Removed => (files.disk(&abs), true),
        Found::NotFile { .. } => (files.disk(&abs), false),
    };
    files.record_read(&abs)?;
    let staged = match ctx.tx {
        Some(_) => files.stat(&abs, true)?.staged,
        None => None,
    };
    let (link_meta, target_meta) = metadata_pair(&content, gone, &args.path)?;
    let is_link = link_meta
        .as_ref()
        .is_some_and(|m| m.file_type().is_symlink());
    let real = paths::real_path(ctx.dirs(), &abs);
    let mut obj = Json::obj();
    obj.push("absolute", Json::str(paths::display(&abs)));
    obj.push("real", Json::str(paths::display(&real)));
    obj.push(
        "relative",
        paths::relative_to(&abs, &ctx.root).map_or(Json::Null, Json::Str),
    );
    let Some(meta) = target_meta else {
        if !args.allow_missing {
            if gone {
                return Err(ctx.files().removed_error(&args.path, &abs).into());
            }
            return Err(not_there(ctx, &args.path, &abs, is_link));
        }
        obj.push("exists", Json::Bool(false));
        obj.push(
            "kind",
            if is_link {
                Json::str("symlink")
            } else {
                Json::Null
            },
        );
        obj.push("inside_workspace", Json::Bool(ctx.inside(&real)));
        obj.push("ignored", Json::Bool(false));
        if is_link && let Some(h) = link_hash(&files.disk(&abs)) {
            obj.push("hash", Json::str(h));
        }
        return Ok(Output::from_json(obj, false));
    };
    let kind = if meta.is_file() {
        "file"
    } else if meta.is_dir() {
        "directory"
    } else {
        "other"
    };
    obj.push("exists", Json::Bool(true));
    obj.push("kind", Json::str(kind));
    obj.push("inside_workspace", Json::Bool(ctx.inside(&real)));
    obj.push(
        "ignored",
        Json::Bool(ctx.inside(&real) && crate::workspace::scan::is_ignored(&ctx.root, &real)),
    );
    if !meta.is_file() || content.special_kind(&meta).is_some() {
        // Never opened: a FIFO would block, a device could be endless, a procfs
        // file (/proc/kmsg) can block on its read.
        obj.push("size", Json::UInt(meta.len()));
        stat_fields(&mut obj, &meta, staged.as_ref());
        if is_link
            && meta.is_dir()
            && let Some(h) = link_hash(&files.disk(&abs))
        {
            obj.push("hash", Json::str(h));
        }
        return Ok(Output::from_json(obj, false));
    }
    content_fields(ctx, args, &content, &mut obj, &meta, staged.as_ref())?;
    Ok(Output::from_json(obj, false))
}

/// The path's own metadata and its target's (None where there is none: the
/// path is missing or the tx removed it, or the symlink dangles).
fn metadata_pair(
    content: &Content,
    gone: bool,
    arg: &str,
) -> Result<(Option<Metadata>, Option<Metadata>), CmdError> {
    let io = |e: std::io::Error| error::io_error("info", arg, &e);
    let missing = |e: &std::io::Error| {
        matches!(
            e.kind(),
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
        )
    };
    let link_meta = match content.symlink_metadata() {
        _ if gone => None,
        Ok(m) => Some(m),
        Err(e) if missing(&e) => None,
        Err(e) => return Err(io(e)),
    };
    let target_meta = match content.metadata() {
        _ if gone => None,
        Ok(m) => Some(m),
        Err(e) if missing(&e) || link_meta.is_some() => None,
        Err(e) => return Err(io(e)),
    };
    Ok((link_meta, target_meta))
}

/// A regular file's content fields, from one pass over its bytes (its hash
/// left in the hash cache when the file is large), then mode and mtime.
fn content_fields(
    ctx: &Ctx,
    args: &InfoArgs,
    content: &Content,
    obj: &mut Json,
    meta: &Metadata,
    staged: Option<&State>,
) -> Result<(), CmdError> {
    let io = |e: std::io::Error| error::io_error("info", &args.path, &e);
    let algorithm = args.digest.as_deref().and_then(Algorithm::from_name);
    let stamp_ns = crate::store::hashcache::now_ns();
    let file = match content.open() {
        Ok(f) => f,
        // Mode 000 or the like: what stat tells is still the answer (and the
        // repair that sent the caller here), with the content fields left out.
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            obj.push("size", Json::UInt(meta.len()));
            stat_fields(obj, meta, staged);
            obj.push("readable", Json::Bool(false));
            return Ok(());
        }
        Err(e) => return Err(io(e)),
    };
    let key = file
        .metadata()
        .map(|m| crate::store::hashcache::Key::of(&m));
    let st = stats::gather(file, algorithm).map_err(io)?;
    let lines = (!st.binary).then_some(st.lines);
    remember_hash(ctx, content, key, stamp_ns, &st.hash, lines);
    let bin = st.binary;
    obj.push("size", Json::UInt(st.size));
    obj.push("lines", null_or(bin, st.lines));
    obj.push("words", null_or(bin, st.words));
    obj.push("max_line_chars", null_or(bin, st.max_line_chars));
    obj.push("binary", Json::Bool(bin));
    obj.push(
        "mime",
        Json::str(crate::text::sniff::mime(&st.head, &args.path, bin)),
    );
    obj.push("utf8_valid", Json::Bool(st.utf8_valid));
    obj.push("encoding_guess", Json::str(st.encoding_guess));
    obj.push("line_ending", null_or(bin, st.line_ending()));
    obj.push("trailing_newline", Json::Bool(st.trailing_newline));
    obj.push("bom", Json::Bool(st.bom));
    stat_fields(obj, meta, staged);
    obj.push("hash", Json::str(st.hash.clone()));
    obj.push(
        "approx_tokens",
        null_or(
            bin,
            crate::protocol::approx_tokens_chars(st.chars as usize) as u64,
        ),
    );
    if let (Some(a), Some(value)) = (algorithm, st.digest) {
        let mut d = Json::obj();
        d.push("algorithm", Json::str(a.name()));
        d.push("value", Json::str(value));
        obj.push("digest", d);
    }
    Ok(())
}

/// `input.not-found` for a path `info` was asked about; a symlink whose target
/// is missing says so.
fn not_there(ctx: &Ctx, arg: &str, abs: &std::path::Path, is_link: bool) -> CmdError {
    let mut err: CmdError = candidates::not_found(ctx, arg, abs, Offer::Retry).into();
    if is_link {
        err.message = format!("{arg} is a symlink to a path that does not exist.");
    }
    err
}

/// Leaves a large file's hash and line count in the store's hash cache (what a
/// `read --tail` that answered them null sends the caller here for), unless it
/// changed under us.
fn remember_hash(
    ctx: &Ctx,
    content: &Content,
    key: std::io::Result<crate::store::hashcache::Key>,
    stamp_ns: i128,
    hash: &str,
    lines: Option<u64>,
) {
    use crate::store::hashcache::{Facts, HashCache, Key};
    let Ok(key) = key else { return };
    if key.size < 1 << 20 {
        return;
    }
    let same = content.metadata().map(|m| Key::of(&m) == key);
    if let (Ok(true), Some(cache)) = (same, HashCache::open(&ctx.root, ctx.session.kept.clone())) {
        cache.put(
            &key,
            stamp_ns,
            Facts {
                lines,
                hash: Some(hash.to_string()),
            },
        );
    }
}
