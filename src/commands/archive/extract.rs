//! `archive extract`: every member validated first (no absolute name, no `..`,
//! no link leading out of the destination or a member reached through one, no
//! device or FIFO), every byte decompressed through the byte, entry and ratio
//! budgets as it comes; then all members written through the store as one
//! journaled op (undo removes them), or none.

use super::format::{Budget, Flow, Kind, Member, Stop};
use crate::handler;
use crate::protocol::args::DryRun;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell, values};
use crate::store::write::{self, Change, WriteRequest};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use clap::Args;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// Archive file.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Destination directory, inside the workspace (created when missing).
    #[arg(long, value_name = "DIR", required = true)]
    pub to: String,
    /// Member to extract (as archive list shows it); repeat. Default: all.
    #[arg(long, value_name = "ENTRY")]
    pub entry: Vec<String>,
    /// Largest total decompressed size.
    #[arg(long, value_name = "SIZE", default_value = "1GiB")]
    pub max_bytes: String,
    /// Most members in the archive.
    #[arg(long, value_name = "N", default_value = "100000", value_parser = values::parse_count)]
    pub max_entries: u64,
    #[command(flatten)]
    pub dry: DryRun,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "archive extract",
    summary: "Extract a zip, tar, tar.gz or gz archive after validating every member.",
    description: "All or nothing, one journaled op (undo removes what it wrote). Refused before anything is written: an absolute name or one with .. (refusal.outside-workspace), a symlink whose target is absolute or leads out of --to, a member under a symlink member, a hard link to no earlier file member (refusal.outside-workspace), a device or FIFO (refusal.not-a-file), an existing file in the way (refusal.exists), and past --max-bytes decompressed, --max-entries members, or 200:1 compression past 16 MiB (refusal.too-large; counted as the bytes come, never taken from headers). Modes keep their rwx bits only.",
    args: <ExtractArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        write::FIELD_NEXT,
        field("total", "Changes in the op (files, directories, links)."),
    ],
    error_codes: crate::write_error_codes![
        code::UNSUPPORTED_FORMAT,
        code::SYNTAX_ERROR,
        code::TOO_LARGE
    ],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(ExtractArgs, run),
};

/// A member's name as a relative path under the destination, or why not.
fn safe_name(name: &str) -> Result<Option<PathBuf>, &'static str> {
    if name.starts_with('/') || name.starts_with('\\') {
        return Err("an absolute name");
    }
    let mut out = PathBuf::new();
    for c in Path::new(name).components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::ParentDir => return Err("a '..' component"),
            Component::RootDir | Component::Prefix(_) => return Err("an absolute name"),
        }
    }
    Ok((!out.as_os_str().is_empty()).then_some(out))
}

fn refused(ctx: &Ctx, a: &ExtractArgs, code: &'static str, msg: String) -> CmdError {
    CmdError::new(
        code,
        msg,
        Repair::new(
            "list",
            "See every member's name, kind and link target.",
            shell::aitools(["archive", "list", &a.path]),
        ),
    )
    .with_repair(Repair::new(
        "entries",
        "Extract only the members that are safe, by name.",
        shell::aitools(shell::rerun(
            &ctx.argv,
            &[],
            &[],
            &["--entry".into(), "NAME".into()],
        )),
    ))
}

/// What the walk has planned so far.
#[derive(Default)]
struct Plan {
    /// Relative path → its change (a later member of one name replaces the earlier).
    changes: BTreeMap<PathBuf, Change>,
    links: BTreeSet<PathBuf>,
    files: BTreeMap<PathBuf, (Vec<u8>, u32)>,
    wanted_seen: BTreeSet<String>,
}

/// Why planning a member failed: a refusal, or reading its data (which the walk
/// words: a budget its meter saw, or damage).
enum Fail {
    Cmd(CmdError),
    Read(std::io::Error),
}

impl From<CmdError> for Fail {
    fn from(e: CmdError) -> Fail {
        Fail::Cmd(e)
    }
}

/// Plans one member (or refuses the archive).
fn member(
    ctx: &Ctx,
    a: &ExtractArgs,
    dest: &Path,
    plan: &mut Plan,
    m: &Member,
    r: &mut dyn Read,
) -> Result<(), Fail> {
    let shown = m.path.trim_start_matches("./").trim_end_matches('/');
    if !a.entry.is_empty() {
        let want = a
            .entry
            .iter()
            .find(|e| e.trim_start_matches("./").trim_end_matches('/') == shown);
        match want {
            Some(w) => plan.wanted_seen.insert(w.clone()),
            None => return Ok(()),
        };
    }
    let out = |msg: String| Fail::Cmd(refused(ctx, a, code::OUTSIDE_WORKSPACE, msg));
    let rel = match safe_name(&m.path) {
        Ok(Some(p)) => p,
        Ok(None) => return Ok(()),
        Err(why) => {
            return Err(out(format!(
                "{}: member {:?} has {why}; nothing was extracted.",
                a.path, m.path
            )));
        }
    };
    if let Some(l) = rel.ancestors().skip(1).find(|p| plan.links.contains(*p)) {
        return Err(out(format!(
            "{}: member {:?} lies under the symlink member {:?}; nothing was extracted.",
            a.path,
            m.path,
            l.display()
        )));
    }
    let abs = dest.join(&rel);
    let mode = m.mode.map(|x| x & 0o777);
    let change = match m.kind {
        Kind::Other => {
            return Err(Fail::Cmd(refused(
                ctx,
                a,
                code::NOT_A_FILE,
                format!(
                    "{}: member {:?} is a device, FIFO or other special file; nothing was extracted.",
                    a.path, m.path
                ),
            )));
        }
        Kind::Dir => Change::Mkdir { path: abs },
        Kind::Symlink => {
            let target = m.link.clone().unwrap_or_default();
            if !super::link_inside(&rel, &target) {
                return Err(out(format!(
                    "{}: symlink member {:?} leads to {target:?}, outside {}; nothing was extracted.",
                    a.path, m.path, a.to
                )));
            }
            plan.links.insert(rel.clone());
            Change::Symlink { path: abs, target }
        }
        Kind::Hardlink => {
            let target = m.link.clone().unwrap_or_default();
            let from = safe_name(&target).ok().flatten();
            let Some((bytes, fmode)) = from.and_then(|f| plan.files.get(&f).cloned()) else {
                return Err(out(format!(
                    "{}: hard link member {:?} names {target:?}, no earlier file of the archive; nothing was extracted.",
                    a.path, m.path
                )));
            };
            Change::Put {
                path: abs,
                bytes,
                mode: Some(fmode),
            }
        }
        Kind::File => {
            let mut bytes = Vec::new();
            r.read_to_end(&mut bytes).map_err(Fail::Read)?;
            let fmode = mode.unwrap_or(0o644);
            plan.files.insert(rel.clone(), (bytes.clone(), fmode));
            Change::Put {
                path: abs,
                bytes,
                mode: Some(fmode),
            }
        }
    };
    plan.changes.insert(rel, change);
    Ok(())
}

pub fn run(ctx: &Ctx, a: &ExtractArgs) -> Result<Output, CmdError> {
    let max_bytes = values::parse_size(&a.max_bytes)
        .map_err(|m| CmdError::invalid_argument(&ctx.command, format!("--max-bytes: {m}")))?;
    let dest = ctx.write_path_arg(&a.to, Final::Follow)?;
    let budget = Budget {
        max_bytes,
        max_entries: a.max_entries,
        max_ratio: super::MAX_RATIO,
    };
    let mut total = 0u64;
    let done = write::submit(ctx, &WriteRequest::new(ctx).dry_run(a.dry.dry_run), || {
        let mut ar = super::open(ctx, &a.path)?;
        let mut plan = Plan::default();
        let mut failed: Option<CmdError> = None;
        let walked = super::walk(&mut ar, budget, &mut |m, r| match member(
            ctx, a, &dest, &mut plan, m, r,
        ) {
            Ok(()) => Ok(Flow::Next),
            Err(Fail::Read(e)) => Err(Stop::Io(e)),
            Err(Fail::Cmd(e)) => {
                failed = Some(e);
                Ok(Flow::Done)
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        walked.map_err(|s| super::stop_error(ctx, &a.path, s))?;
        if let Some(missing) = a.entry.iter().find(|e| !plan.wanted_seen.contains(*e)) {
            return Err(CmdError::new(
                code::NOT_FOUND,
                format!("{} has no member {missing}.", a.path),
                Repair::new(
                    "list",
                    "List the members.",
                    shell::aitools(["archive", "list", &a.path]),
                ),
            ));
        }
        let mut changes = vec![Change::Mkdir { path: dest.clone() }];
        for (rel, c) in plan.changes {
            if !matches!(c, Change::Mkdir { .. }) && ctx.files().exists(&dest.join(&rel))? {
                let shown = ctx.display_path(&dest.join(&rel));
                return Err(CmdError::new(
                    code::EXISTS,
                    format!("{shown} already exists; extract never overwrites."),
                    Repair::new(
                        "elsewhere",
                        "Extract into a new directory.",
                        shell::aitools(shell::rerun(
                            &ctx.argv,
                            &["--to"],
                            &[],
                            &["--to".into(), format!("{}.new", a.to.trim_end_matches('/'))],
                        )),
                    ),
                ));
            }
            changes.push(c);
        }
        total = changes.len() as u64;
        Ok(changes)
    })?;
    Ok(done.into_output(vec![("total", Json::UInt(total))]))
}
