//! `archive list`: an archive's members (path, kind, size, mode, mtime), read
//! from its headers as the walk streams past them, bounded by --limit with the
//! call that lists the next ones.

use super::format::{Budget, Flow};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, code, shell, time, values};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Archive file (zip, tar, tar.gz or gz; told by its first bytes).
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Maximum members returned.
    #[arg(long, value_name = "N", default_value = "200", value_parser = values::parse_count)]
    pub limit: u64,
    /// Members skipped first (next_commands use it to continue a cut list).
    #[arg(long, value_name = "N", default_value = "0", value_parser = values::parse_count)]
    pub offset: u64,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "archive list",
    summary: "List the members of a zip, tar, tar.gz or gz archive.",
    description: "The format is told from the first bytes (a gzip stream holding a tar is tar.gz). Every member is walked to count total; decompression stops at 256 MiB, or at a ratio over 200:1 past 16 MiB (refusal.too-large). Zip64 and encrypted zips are input.unsupported-format.",
    args: <ListArgs as clap::Args>::augment_args,
    output_fields: &[
        field("path", "The archive, relative to the workspace root."),
        field("format", "zip, tar, tar.gz or gz."),
        field(
            "items",
            "[{path,kind,size,mode,mtime,link?}]; kind is file, directory, symlink, hardlink or other; mode four octal digits or null; mtime ISO 8601 UTC or null.",
        ),
        field("total", "Members in the archive."),
        field(
            "truncated",
            "True when --limit cut the list (status partial, exit 3).",
        ),
        field(
            "next_commands",
            "The call listing the next members, when cut.",
        ),
    ],
    error_codes: &[
        code::NOT_FOUND,
        code::UNSUPPORTED_FORMAT,
        code::SYNTAX_ERROR,
        code::TOO_LARGE,
        code::NOT_A_FILE,
    ],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(ListArgs, run),
};

#[derive(Serialize)]
pub struct Item {
    pub path: String,
    pub kind: &'static str,
    pub size: u64,
    pub mode: Option<String>,
    pub mtime: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

#[derive(Serialize)]
struct Out {
    path: String,
    format: &'static str,
    items: Vec<Item>,
    total: u64,
    truncated: bool,
    next_commands: Vec<String>,
}

pub fn run(ctx: &Ctx, a: &ListArgs) -> Result<Output, CmdError> {
    if a.limit == 0 {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--limit must be at least 1.",
        ));
    }
    let mut ar = super::open(ctx, &a.path)?;
    let budget = Budget {
        max_bytes: super::READ_BYTES,
        max_entries: u64::MAX,
        max_ratio: super::MAX_RATIO,
    };
    let mut items = Vec::new();
    let mut seen = 0u64;
    let fmt = ar.format;
    let total = super::walk(&mut ar, budget, &mut |m, r| {
        seen += 1;
        let mut size = m.size;
        if fmt == super::format::Format::Gz {
            size = std::io::copy(r, &mut std::io::sink()).map_err(super::format::Stop::Io)?;
        }
        if seen > a.offset && (items.len() as u64) < a.limit {
            items.push(Item {
                path: m.path.clone(),
                kind: m.kind.name(),
                size,
                mode: m.mode.map(|x| format!("{:04o}", x & 0o7777)),
                mtime: m.mtime.map(time::iso8601),
                link: m.link.clone(),
            });
        }
        Ok(Flow::Next)
    })
    .map_err(|s| super::stop_error(ctx, &a.path, s))?;
    let shown_to = a.offset + items.len() as u64;
    let truncated = shown_to < total;
    let mut next_commands = Vec::new();
    if truncated {
        let words = shell::rerun(
            &ctx.argv,
            &["--offset"],
            &[],
            &["--offset".into(), shown_to.to_string()],
        );
        next_commands.push(shell::aitools(&words));
    }
    let out = Out {
        path: ar.shown,
        format: ar.format.name(),
        items,
        total,
        truncated,
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}
