//! `archive create`: a new zip, tar, tar.gz or gz file of workspace files,
//! symlinks and empty directories (the scan's filters and ignore rules; links
//! stored, never followed; absolute targets inside the root made relative),
//! written through the store as one journaled
//! op; an existing file is replaced only with --overwrite and its --expect-hash.

use super::format::{Format, Kind as Member};
use super::zip;
use crate::handler;
use crate::protocol::args::Guard;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::files::Kind as ViewKind;
use crate::store::guard;
use crate::store::write::{self, Change, WriteRequest};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use crate::workspace::scan::skipped::{kept_and_left, skipped_list};
use crate::workspace::scan::{self, Entry, Kind, strip_root};
use crate::workspace::scan_args::{ScanArgs, scan_error};
use clap::Args;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct CreateArgs {
    /// The archive to write.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Files or directories to put in it (default: the working directory).
    #[arg(value_name = "SRC")]
    pub src: Vec<String>,
    /// zip, tar, tar.gz or gz (default: from PATH's extension).
    #[arg(long, value_parser = ["zip", "tar", "tar.gz", "gz"])]
    pub format: Option<String>,
    #[command(flatten)]
    pub scan: ScanArgs,
    /// Replace an existing PATH (needs --expect-hash with its hash).
    #[arg(long)]
    pub overwrite: bool,
    #[command(flatten)]
    pub guard: Guard,
}

/// The most bytes of files one archive takes in.
const MAX_INPUT: u64 = 1024 * 1024 * 1024;

pub const SPEC: CommandSpec = CommandSpec {
    name: "archive create",
    summary: "Create a zip, tar, tar.gz or gz archive from workspace files (ignored files excluded).",
    description: "Members are the regular files and symlinks the scan finds under each SRC, directories walked (ignore rules, --glob, --lang, --skip-larger-than, --newer), named relative to the workspace root, with their mode and mtime, and every directory no other member lies below (an empty one stays in the tree); the archive itself is left out. A symlink (walked, or named as SRC) is stored as a link, never followed: a relative target as written, an absolute one inside the workspace rewritten relative to the link (so it extracts the same anywhere); one whose target leaves the workspace is left out; skipped says what was left out and why. zip switches to zip64 past 65,535 members or 4 GiB. gz takes exactly one file. An existing PATH is refusal.exists unless --overwrite with --expect-hash. One journaled op: undo removes (or restores) the archive.",
    args: <CreateArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        write::FIELD_NEXT,
        field("entries", "Members written."),
        field("format", "zip, tar, tar.gz or gz."),
        field(
            "skipped",
            "Only when a path was left out: [{reason,count,examples}], one per reason, examples the first 3 paths; reason is link-outside (a symlink whose target leaves the workspace), too-large (--skip-larger-than), unreadable, not-a-file (a FIFO, socket or device), non-utf8-name or special (procfs/sysfs).",
        ),
    ],
    error_codes: crate::write_error_codes![code::TOO_LARGE],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(CreateArgs, run),
};

/// One member to write: a file's bytes, a symlink's target text, or nothing
/// for a directory (stored only when no other member lies below it).
struct In {
    name: String,
    bytes: Vec<u8>,
    mode: u32,
    mtime: i64,
    kind: Member,
}

/// What the walk keeps of an entry: its size, mode and mtime, and its kind
/// (a symlink is never followed: its target text is what goes in).
type Walked = (u64, u32, i64, Member);

fn invalid(ctx: &Ctx, m: impl Into<String>) -> CmdError {
    CmdError::invalid_argument(&ctx.command, m)
}

/// The absolute paths the sources name (the working directory by default),
/// each inside the workspace and present: the ones to walk, and the symlinks
/// named themselves (stored as links, as tar stores them without -h).
fn starts(ctx: &Ctx, a: &CreateArgs) -> Result<(Vec<PathBuf>, Vec<PathBuf>), CmdError> {
    let (mut starts, mut links) = (Vec::new(), Vec::new());
    for s in &a.src {
        let abs = ctx.path_arg(s)?;
        let real = crate::workspace::paths::real_path(ctx.dirs(), &abs);
        // A named symlink is a member itself: its own place must be inside.
        let link = ctx.files().stat(&abs, false)?.kind == ViewKind::Symlink;
        let at = match (link, abs.parent(), abs.file_name()) {
            (true, Some(dir), Some(base)) => {
                crate::workspace::paths::real_path(ctx.dirs(), dir).join(base)
            }
            _ => real,
        };
        if !ctx.inside(&at) {
            return Err(CmdError::new(
                code::OUTSIDE_WORKSPACE,
                format!("{s} is outside the workspace; an archive takes workspace files."),
                Repair::new("find", "List what is here.", shell::aitools(["find", "."])),
            ));
        }
        if link {
            links.push(abs);
            continue;
        }
        if !ctx.files().exists(&abs)? {
            return Err(CmdError::new(
                code::NOT_FOUND,
                format!("{s} does not exist."),
                Repair::new("find", "List what is here.", shell::aitools(["find", "."])),
            ));
        }
        starts.push(abs);
    }
    if a.src.is_empty() {
        starts.push(ctx.cwd.clone());
    }
    Ok((starts, links))
}

/// The member for the symlink `p` (named `name`): its target text, never
/// followed; `Err(name)` when the target leaves the workspace.
fn link_member(
    ctx: &Ctx,
    p: &Path,
    name: String,
    mtime: i64,
) -> Result<Result<In, String>, CmdError> {
    let st = ctx.files().stat(p, false)?;
    let text = ctx
        .files()
        .link_text(p, &st)
        .map_err(|e| crate::protocol::error::io_error(&ctx.command, &name, &e))?;
    let mut text = text.to_string_lossy().into_owned();
    if text.starts_with('/') {
        let at = Path::new(&name);
        match relative_target(&ctx.root, at, &text).or_else(|| {
            let real = real_spelling(ctx, &text)?;
            relative_target(&ctx.root, at, &real.to_string_lossy())
        }) {
            Some(rel) => text = rel,
            None => return Ok(Err(name)),
        }
    }
    if !super::link_inside(Path::new(&name), &text) {
        return Ok(Err(name));
    }
    Ok(Ok(In {
        name,
        bytes: text.into_bytes(),
        mode: 0o777,
        mtime,
        kind: Member::Symlink,
    }))
}

/// An absolute symlink target inside `root`, rewritten relative to the link
/// at `at` (relative to the root), so the archive holds no absolute target
/// and extracts the same anywhere; `None` when the target leaves the root.
/// Lexical, as `link_inside` is: `.` and `..` are resolved on the text.
fn relative_target(root: &Path, at: &Path, target: &str) -> Option<String> {
    let mut abs: Vec<&std::ffi::OsStr> = Vec::new();
    for c in Path::new(target).components() {
        match c {
            std::path::Component::Normal(p) => abs.push(p),
            std::path::Component::ParentDir => {
                abs.pop();
            }
            _ => {}
        }
    }
    let root: Vec<&std::ffi::OsStr> = root.iter().skip(1).collect();
    let inner = abs.strip_prefix(root.as_slice())?;
    let from: Vec<&std::ffi::OsStr> = at.parent().map(|p| p.iter().collect()).unwrap_or_default();
    let common = from.iter().zip(inner).take_while(|(a, b)| a == b).count();
    let mut out: Vec<String> = vec!["..".into(); from.len() - common];
    out.extend(
        inner[common..]
            .iter()
            .map(|p| p.to_string_lossy().into_owned()),
    );
    if out.is_empty() {
        out.push(".".into());
    }
    Some(out.join("/"))
}

/// An absolute target written through another spelling of the root (a
/// symlinked `/tmp`, a bind of the home directory): its directory's real path,
/// with its last name as written (a link to a missing file is still a link).
/// What it names through links is judged by `relative_target` on the real
/// path, so a directory link leading out of the root still leads out.
fn real_spelling(ctx: &Ctx, target: &str) -> Option<std::path::PathBuf> {
    let t = Path::new(target);
    let (dir, last) = (t.parent()?, t.file_name()?);
    Some(crate::workspace::paths::real_path(ctx.dirs(), dir).join(last))
}

fn too_large(ctx: &Ctx) -> CmdError {
    CmdError::new(
        code::TOO_LARGE,
        format!("The files come to more than {MAX_INPUT} bytes; an archive takes at most that."),
        Repair::new(
            "narrow",
            "Leave out large files.",
            shell::aitools(shell::rerun(
                &ctx.argv,
                &[],
                &[],
                &["--skip-larger-than".into(), "1MiB".into()],
            )),
        ),
    )
}

/// A path left out, and why (a `skipped` reason).
type Left = (PathBuf, &'static str);

/// The entries the scan finds under `walk_from`, and each start that is a
/// directory other than the root (the scan does not yield its starts); and
/// what it left out: the scan's own (too-large, unreadable, ...), an entry it
/// could not stat (unreadable), a FIFO, socket or device (not-a-file).
fn walk(
    ctx: &Ctx,
    a: &CreateArgs,
    walk_from: &[PathBuf],
) -> Result<(Vec<(PathBuf, Walked)>, Vec<Left>), CmdError> {
    if walk_from.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut opts = a.scan.options(ctx, ctx.files().overlay()?)?;
    opts.include_dirs = true;
    let walked = scan::walk(&ctx.root, walk_from, &opts, || {
        |e: &Entry| -> Option<Result<Walked, &'static str>> {
            let kind = match e.kind {
                Kind::File => Member::File,
                Kind::Symlink => Member::Symlink,
                Kind::Dir => Member::Dir,
                _ => return Some(Err("not-a-file")),
            };
            let Ok(st) = e.stat() else {
                return Some(Err("unreadable"));
            };
            Some(Ok((st.len, st.mode, st.mtime.0, kind)))
        }
    })
    .map_err(|e| scan_error(&ctx.command, &ctx.argv, &e))?;
    let (mut items, left) = kept_and_left(walked.items, walked.skipped);
    for p in walk_from.iter().filter(|p| **p != ctx.root) {
        if let Ok(m) = ctx.files().disk(p).symlink_metadata()
            && m.is_dir()
        {
            items.push((p.clone(), (0, m.mode(), m.mtime(), Member::Dir)));
        }
    }
    Ok((items, left))
}

/// The directories among `dirs` with no member below them (deepest first, so
/// a directory holding only empty ones is itself left out), added to `out`.
fn empty_dirs(out: &mut Vec<In>, mut dirs: Vec<In>) {
    let mut names: std::collections::BTreeSet<String> =
        out.iter().map(|m| m.name.clone()).collect();
    dirs.sort_by(|x, y| y.name.cmp(&x.name));
    dirs.dedup_by(|x, y| x.name == y.name);
    for mut d in dirs {
        let below = format!("{}/", d.name);
        let holds = names
            .range(below.clone()..)
            .next()
            .is_some_and(|n| n.starts_with(&below));
        if !holds {
            names.insert(below.clone());
            d.name = below;
            out.push(d);
        }
    }
}

/// The members: the files and symlinks the scan finds under the sources, and
/// the directories that would otherwise be lost (empty ones), sorted by name;
/// and what was left out: the walk's, and the symlinks that lead out of the
/// root (link-outside).
fn inputs(ctx: &Ctx, a: &CreateArgs, target: &Path) -> Result<(Vec<In>, Vec<Left>), CmdError> {
    let (walk_from, links) = starts(ctx, a)?;
    let (items, mut left) = walk(ctx, a, &walk_from)?;
    let target_real = crate::workspace::paths::real_path(ctx.dirs(), target);
    let (mut out, mut dirs) = (Vec::new(), Vec::new());
    let mut total = 0u64;
    let named = links.into_iter().map(|p| {
        let mtime = ctx.files().disk(&p).symlink_metadata();
        let mtime = mtime.map_or_else(|_| crate::protocol::time::now().0, |m| m.mtime());
        (p, (0, 0o777, mtime, Member::Symlink))
    });
    for (p, (len, mode, mtime, kind)) in items.into_iter().chain(named) {
        let name = strip_root(&p, &ctx.root).to_string_lossy().into_owned();
        match kind {
            Member::Symlink => {
                match link_member(ctx, &p, name, mtime)? {
                    Ok(m) => out.push(m),
                    Err(_) => left.push((p, "link-outside")),
                }
                continue;
            }
            Member::Dir => {
                let bytes = Vec::new();
                let mode = mode & 0o777;
                dirs.push(In {
                    name,
                    bytes,
                    mode,
                    mtime,
                    kind,
                });
                continue;
            }
            _ => {}
        }
        if crate::workspace::paths::real_path(ctx.dirs(), &p) == target_real {
            continue;
        }
        total += len;
        if total > MAX_INPUT {
            return Err(too_large(ctx));
        }
        // A file the walk listed, read at its real path, refused outside the
        // workspace and never through a symlink swapped in since the walk
        // (`Files::load_target`): an archive takes workspace files only.
        let bytes = match ctx.files().load_target(&p) {
            Ok(snap) => snap.bytes.clone(),
            // Mode 000, or a directory above it the caller cannot search: left out
            // and named, like a file the walk could not stat.
            Err(e) if e.is_permission_denied() => {
                left.push((p, "unreadable"));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let mode = mode & 0o777;
        out.push(In {
            name,
            bytes,
            mode,
            mtime,
            kind,
        });
    }
    empty_dirs(&mut out, dirs);
    out.sort_by(|x, y| x.name.cmp(&y.name));
    Ok((out, left))
}

fn tar_bytes(files: &[In], gz: bool) -> std::io::Result<Vec<u8>> {
    let mut b = tar::Builder::new(Vec::new());
    for f in files {
        let mut h = tar::Header::new_gnu();
        h.set_mode(f.mode);
        h.set_mtime(u64::try_from(f.mtime).unwrap_or(0));
        match f.kind {
            Member::Symlink => {
                h.set_entry_type(tar::EntryType::Symlink);
                h.set_size(0);
                let target = String::from_utf8_lossy(&f.bytes).into_owned();
                b.append_link(&mut h, &f.name, target)?;
            }
            Member::Dir => {
                h.set_entry_type(tar::EntryType::Directory);
                h.set_size(0);
                b.append_data(&mut h, &f.name, std::io::empty())?;
            }
            _ => {
                h.set_size(f.bytes.len() as u64);
                h.set_entry_type(tar::EntryType::Regular);
                b.append_data(&mut h, &f.name, f.bytes.as_slice())?;
            }
        }
    }
    let raw = b.into_inner()?;
    if !gz {
        return Ok(raw);
    }
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&raw)?;
    e.finish()
}

/// The archive's bytes in `fmt`.
fn encode(ctx: &Ctx, fmt: Format, files: &[In]) -> Result<Vec<u8>, CmdError> {
    let io = |e: std::io::Error| crate::protocol::error::io_error(&ctx.command, "the archive", &e);
    match fmt {
        Format::Tar => tar_bytes(files, false).map_err(io),
        Format::TarGz => tar_bytes(files, true).map_err(io),
        Format::Gz => {
            // gz holds one file's bytes: a directory has no place in it.
            let files: Vec<&In> = files.iter().filter(|f| f.kind != Member::Dir).collect();
            let [one] = files.as_slice() else {
                return Err(invalid(
                    ctx,
                    format!(
                        "gz holds exactly one file; the sources give {}.",
                        files.len()
                    ),
                ));
            };
            if one.kind == Member::Symlink {
                return Err(invalid(
                    ctx,
                    format!(
                        "gz holds a file's bytes; {} is a symlink (tar keeps links).",
                        one.name
                    ),
                ));
            }
            let base = one.name.rsplit('/').next().unwrap_or(&one.name);
            let mut e = flate2::GzBuilder::new()
                .filename(base)
                .mtime(u32::try_from(one.mtime).unwrap_or(0))
                .write(Vec::new(), flate2::Compression::default());
            e.write_all(&one.bytes).map_err(io)?;
            e.finish().map_err(io)
        }
        Format::Zip => {
            let mut z = zip::Writer::new();
            for f in files {
                z.add(&zip::NewMember {
                    name: &f.name,
                    data: &f.bytes,
                    mode: f.mode,
                    mtime: f.mtime,
                    kind: f.kind,
                })
                .map_err(io)?;
            }
            Ok(z.finish())
        }
    }
}

pub fn run(ctx: &Ctx, a: &CreateArgs) -> Result<Output, CmdError> {
    let fmt = match &a.format {
        Some(f) => Format::from_name(f),
        None => Format::from_extension(&a.path),
    }
    .ok_or_else(|| {
        invalid(
            ctx,
            format!(
                "{}: name the format with --format (zip, tar, tar.gz or gz), or end the name so.",
                a.path
            ),
        )
    })?;
    let expect = guard::parse_expect_hash(&ctx.command, &a.guard.expect_hash)?;
    let target = ctx.write_path_arg(&a.path, Final::Follow)?;
    let mut entries = 0u64;
    let mut left = Vec::new();
    let done = write::submit(
        ctx,
        &WriteRequest::new(ctx).dry_run(a.guard.dry.dry_run),
        || {
            let shown = ctx.display_path(&target);
            if ctx.files().exists(&target)? {
                let now = ctx.files().current_hash(&target)?;
                let Some(h) = expect.for_target(&a.path, &shown, true) else {
                    let mut words =
                        shell::rerun(&ctx.argv, &["--expect-hash"], &["--overwrite"], &[]);
                    words.extend([
                        "--overwrite".to_string(),
                        "--expect-hash".into(),
                        now.clone().unwrap_or_default(),
                    ]);
                    return Err(CmdError::new(
                        code::EXISTS,
                        format!("{shown} already exists."),
                        Repair::new(
                            "overwrite",
                            "Replace it, guarded by its current hash.",
                            shell::aitools(&words),
                        ),
                    ));
                };
                if !a.overwrite {
                    return Err(invalid(
                        ctx,
                        "--expect-hash replaces an existing archive only with --overwrite.",
                    ));
                }
                guard::check_hash(&shown, h, now.as_deref())?;
            }
            let (files, out) = inputs(ctx, a, &target)?;
            left = out;
            let bytes = encode(ctx, fmt, &files)?;
            entries = match fmt {
                Format::Gz => 1,
                _ => files.len() as u64,
            };
            Ok(vec![Change::Put {
                path: target.clone(),
                bytes,
                mode: None,
            }])
        },
    )?;
    let mut fields = vec![
        ("entries", Json::UInt(entries)),
        ("format", Json::str(fmt.name())),
    ];
    if !left.is_empty() {
        let groups = skipped_list(&ctx.root, left);
        fields.push(("skipped", Json::from_serialize(&groups)));
    }
    Ok(done.into_output(fields))
}
