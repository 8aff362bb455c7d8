//! `find`: list files and directories by name or path pattern — ls, find, tree and
//! du in one, over the same scan (and ignore rules) as `search`.

use super::{ScanArgs, Skipped, default_start, scan_error, show, skipped_list, with_limit};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, code, time, values};
use crate::workspace::Ctx;
use crate::workspace::scan::{self, Entry, Kind};
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod top;
use top::{Top, sort};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TypeArg {
    File,
    Dir,
    Symlink,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    Path,
    Mtime,
    Size,
}

/// A value of a flat find item `--fields` keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FindField {
    Path,
    Kind,
    Size,
    Mode,
    Mtime,
}

impl FindField {
    fn name(self) -> &'static str {
        match self {
            FindField::Path => "path",
            FindField::Kind => "kind",
            FindField::Size => "size",
            FindField::Mode => "mode",
            FindField::Mtime => "mtime",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FindOutput {
    Flat,
    Tree,
}

#[derive(Args, Debug)]
pub struct FindArgs {
    /// A glob (when it holds *, ?, or [) or a substring. Without `/` it matches the last path component; with `/`, the workspace-relative path. Omit to list everything.
    #[arg(value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Case-insensitive matching (Unicode simple case folding).
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Where to start; default the working directory (or the root when it is outside the workspace).
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// Only entries of this kind.
    #[arg(long = "type", value_enum)]
    pub kind: Option<TypeArg>,
    /// Only entries at most this many levels below the start (1: its direct entries, like ls -la).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// path order; mtime newest first; size largest first. Flat output only.
    #[arg(long, value_enum, default_value = "path")]
    pub sort: SortArg,
    /// Only entries at least this large (directories only with --sizes).
    #[arg(long, value_name = "SIZE")]
    pub min_size: Option<String>,
    /// Only entries at most this large (directories only with --sizes).
    #[arg(long, value_name = "SIZE")]
    pub max_size: Option<String>,
    /// Only empty files and directories with no listed entries.
    #[arg(long)]
    pub empty: bool,
    /// Only files with an execute bit.
    #[arg(long)]
    pub executable: bool,
    /// flat items, or a nested tree.
    #[arg(long, value_enum, default_value = "flat")]
    pub output: FindOutput,
    /// Give directories the total size of the files listed below them (du).
    #[arg(long)]
    pub sizes: bool,
    /// Add each entry's kind, size, mode and mtime, as ls -l does.
    #[arg(long)]
    pub long: bool,
    /// Each flat item's values, in this order (path always, first when left
    /// out): path, kind, size, mode, mtime.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "FIELD,...")]
    pub fields: Vec<FindField>,
    /// Entries returned.
    #[arg(long, value_name = "N", default_value = "50")]
    pub limit: u64,
    #[command(flatten)]
    pub scan: ScanArgs,
    #[command(flatten)]
    pub budget: crate::workspace::scan_args::BudgetArgs,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "find",
    summary: "List paths by name or glob (find, ls, tree, du).",
    description: "The scan of search (ignore rules, --glob, --lang, --newer). Symlinks are listed, never followed. The start itself is not listed. Entries come in path order unless --sort says otherwise; --output tree nests the first --limit entries in path order and counts the rest as omitted on the deepest listed directory above them.",
    args: <FindArgs as clap::Args>::augment_args,
    output_fields: &[
        field("mode", "tree (left out for flat, the default)."),
        field(
            "fields",
            "flat: what each item's values are, in order: path, then kind when an item is neither a file nor a directory, size with --long, --sizes, --sort size, --min-size or --max-size, mode with --long, mtime with --long or --sort mtime (--fields picks).",
        ),
        field(
            "items",
            "flat: one per entry, its values in the order of fields; a bare path when fields is only path (left out). Without kind, a directory's path ends in /. kind is file, dir, symlink or other; size is null for a directory without --sizes; mode is octal text, mtime UTC ISO 8601.",
        ),
        field(
            "tree",
            "tree: {name,kind,size?,children[],omitted?}; omitted counts matching entries past --limit below that node.",
        ),
        field(
            "total",
            "Matching entries before --limit, when --limit left some out.",
        ),
        field(
            "skipped",
            "Only when a path was passed over: [{reason,count,examples}], one per reason, examples the first 3 paths; reason is non-utf8-name (a path aitools cannot name), unreadable, too-large (--skip-larger-than), or special (a procfs/sysfs directory, never scanned).",
        ),
        field(
            "ignore_source",
            "builtin (outside git) or none (--no-ignore); left out inside git (gitignore).",
        ),
        field(
            "truncated",
            "True when --limit cut the result (status partial, exit 3).",
        ),
        crate::workspace::scan_args::FIELD_SCAN_CUT,
        field(
            "next_commands",
            "The call again with a --limit that lists everything, or (scan_cut) with the spent scan budget raised.",
        ),
    ],
    error_codes: &[code::ARGUMENT_INVALID, code::NOT_FOUND, code::INTERNAL],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(FindArgs, run),
};

#[derive(Serialize)]
struct Node {
    name: String,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    children: Option<Vec<Node>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted: Option<u64>,
}

/// `mode` at its default: left out.
fn is_flat(s: &&'static str) -> bool {
    *s == "flat"
}

/// `ignore_source` at its default, inside git: left out (the caller has the
/// paths it paid for, so no approx_tokens either).
fn is_gitignore(s: &&'static str) -> bool {
    *s == "gitignore"
}

#[derive(Serialize)]
struct FindOut {
    #[serde(skip_serializing_if = "is_flat")]
    mode: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fields: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    items: Option<Vec<Json>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tree: Option<Node>,
    /// Said only when --limit left entries out (else it is the items' count).
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<Skipped>,
    #[serde(skip_serializing_if = "is_gitignore")]
    ignore_source: &'static str,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    scan_cut: Option<scan::Cut>,
    next_commands: Vec<String>,
}

struct Raw {
    kind: Kind,
    size: u64,
    mode: u32,
    mtime: (i64, u32),
    /// False when the walk left the stat to the listing (only listed entries
    /// need size, mode and mtime).
    stated: bool,
}

enum Pattern {
    None,
    Glob {
        m: globset::GlobMatcher,
        whole: bool,
    },
    Sub {
        s: String,
        whole: bool,
        /// Compared in lower case (--ignore-case; `s` is lower case then).
        fold: bool,
    },
}

impl Pattern {
    fn matches(&self, rel: &str, base: &str) -> bool {
        match self {
            Pattern::None => true,
            Pattern::Glob { m, whole } => m.is_match(if *whole { rel } else { base }),
            Pattern::Sub { s, whole, fold } => {
                let name = if *whole { rel } else { base };
                if *fold {
                    name.to_lowercase().contains(s.as_str())
                } else {
                    name.contains(s.as_str())
                }
            }
        }
    }
}

fn size_arg(command: &str, flag: &str, v: &Option<String>) -> Result<Option<u64>, CmdError> {
    match v {
        Some(s) => values::parse_size(s)
            .map(Some)
            .map_err(|m| CmdError::invalid_argument(command, format!("{flag}: {m}"))),
        None => Ok(None),
    }
}

/// The name pattern (a glob when it holds *, ? or [, else a substring).
fn pattern_of(args: &FindArgs) -> Result<Pattern, CmdError> {
    Ok(match &args.pattern {
        None => Pattern::None,
        Some(p) => {
            let whole = p.contains('/');
            let body = p.trim_start_matches('/').to_string();
            if p.contains(['*', '?', '[']) {
                let m = globset::GlobBuilder::new(&body)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .case_insensitive(args.ignore_case)
                    .build()
                    .map_err(|e| {
                        CmdError::invalid_argument(
                            "find",
                            format!("{p:?} is not a glob: {}.", e.kind()),
                        )
                    })?
                    .compile_matcher();
                Pattern::Glob { m, whole }
            } else {
                let fold = args.ignore_case;
                let s = if fold { body.to_lowercase() } else { body };
                Pattern::Sub { s, whole, fold }
            }
        }
    })
}

pub fn run(ctx: &Ctx, args: &FindArgs) -> Result<Output, CmdError> {
    if matches!(args.output, FindOutput::Tree) && !matches!(args.sort, SortArg::Path) {
        return Err(CmdError::invalid_argument(
            "find",
            "--sort applies to --output flat only; a tree is always in path order.",
        ));
    }
    let sizes = (
        size_arg("find", "--min-size", &args.min_size)?,
        size_arg("find", "--max-size", &args.max_size)?,
    );
    let pattern = pattern_of(args)?;
    let start = match &args.path {
        Some(a) => super::start_path(ctx, a)?,
        None => default_start(ctx),
    };
    let budget = args.budget.budget("find")?;
    let (opts, stat_all) = scan_options(ctx, args, budget, sizes)?;
    let (walked, top) = if bounded(args, &opts) {
        let (w, t) = walk_top(ctx, args, &pattern, &start, &opts, (stat_all, sizes))?;
        (w, Some(t))
    } else {
        let walked = scan::walk(&ctx.root, std::slice::from_ref(&start), &opts, || {
            move |e: &Entry| raw_of(e, stat_all)
        })
        .map_err(|e| scan_error("find", &ctx.argv, &e))?;
        (walked, None)
    };
    let (mut matched, total) = match &top {
        Some(t) => (t.listed(), t.total),
        None => {
            let facts = DirFacts::of(args, &walked.items, &start);
            let m = facts.select(ctx, args, &pattern, &start, &walked.items, sizes);
            let n = m.len() as u64;
            (m, n)
        }
    };
    let limit = args.limit as usize;
    let truncated = total > limit as u64;
    let (mode, items, tree) = match args.output {
        FindOutput::Flat => {
            sort(&mut matched, args.sort);
            let listed = &matched[..limit.min(matched.len())];
            let fields = fields_of(args, listed);
            let items: Vec<_> = listed.iter().map(|m| row(ctx, &fields, m)).collect();
            let names = match fields[..] {
                [FindField::Path] => Vec::new(),
                _ => fields.iter().map(|f| f.name()).collect(),
            };
            ("flat", Some((names, items)), None)
        }
        FindOutput::Tree => ("tree", None, Some(tree_of(ctx, &start, &matched, limit))),
    };
    let (fields, items) = match items {
        Some((f, i)) => (f, Some(i)),
        None => (Vec::new(), None),
    };
    let mut out = FindOut {
        mode,
        fields,
        items,
        tree,
        total: truncated.then_some(total),
        skipped: Vec::new(),
        ignore_source: walked.ignore_source,
        truncated,
        scan_cut: None,
        next_commands: Vec::new(),
    };
    // A skipped path is reported when its (lossily shown) name fits the pattern,
    // and a directory that could not be listed always: it may hold matches.
    let skipped = walked
        .skipped
        .iter()
        .filter(|(p, why)| {
            if *why == crate::workspace::scan::SkipReason::Unreadable {
                return true;
            }
            let base = p.file_name().map(|b| b.to_string_lossy().into_owned());
            pattern.matches(&show(&ctx.root, p), &base.unwrap_or_default())
        })
        .map(|(p, r)| (p.clone(), r.name()))
        .collect();
    out.skipped = skipped_list(&ctx.root, skipped);
    if let Some(cut) = &walked.cut {
        out.scan_cut = Some(cut.clone());
        out.truncated = true;
        out.next_commands
            .push(crate::workspace::scan_args::raise_budget(ctx, &budget, cut));
    } else if truncated {
        out.next_commands.push(with_limit(ctx, total, None));
    }
    let truncated = out.truncated;
    Ok(Output::cut(&out, truncated))
}

/// The walk's options, and whether every entry needs its stat (only a filter or
/// an order on size, mode or mtime does; otherwise only the entries listed are
/// stat'ed, and a tx's staged entries carry theirs in the walk).
fn scan_options(
    ctx: &Ctx,
    args: &FindArgs,
    budget: scan::Budget,
    (min_size, max_size): (Option<u64>, Option<u64>),
) -> Result<(scan::ScanOptions, bool), CmdError> {
    let mut opts = args.scan.options(ctx, ctx.files().overlay()?)?;
    opts.include_dirs = true;
    opts.budget = budget;
    // A directory's --sizes total counts every file below it, however deep:
    // the walk goes all the way down and --depth only limits what is listed.
    opts.max_depth = if args.sizes { None } else { args.depth };
    let stat_all = args.sizes
        || min_size.is_some()
        || max_size.is_some()
        || args.empty
        || args.executable
        || !matches!(args.sort, SortArg::Path)
        || !matches!(args.output, FindOutput::Flat)
        || opts.overlay.is_some();
    // find reads no content: without stats, the default bytes budget would cost
    // a stat per file to guard nothing; an explicit --max-scan-bytes still binds.
    if !stat_all && args.budget.max_scan_bytes.is_none() {
        opts.budget.bytes = u64::MAX;
    }
    Ok((opts, stat_all))
}

/// Directory totals (du) and whether a directory has any listed entry.
struct DirFacts<'w> {
    dir_size: HashMap<&'w Path, u64>,
    has_child: HashMap<&'w Path, bool>,
}

impl<'w> DirFacts<'w> {
    fn of(args: &FindArgs, items: &'w [(PathBuf, Raw)], start: &Path) -> DirFacts<'w> {
        let mut facts = DirFacts {
            dir_size: HashMap::new(),
            has_child: HashMap::new(),
        };
        for (p, r) in items {
            if args.empty
                && let Some(parent) = p.parent()
            {
                facts.has_child.insert(parent, true);
            }
            if args.sizes && r.kind == Kind::File {
                for a in p.ancestors().skip(1) {
                    if !a.starts_with(start) || a == start {
                        break;
                    }
                    *facts.dir_size.entry(a).or_insert(0) += r.size;
                }
            }
        }
        facts
    }

    /// The entries every filter keeps (type, pattern, size, empty,
    /// executable, and --depth under --sizes), with their sizes.
    fn select(
        &self,
        ctx: &Ctx,
        args: &FindArgs,
        pattern: &Pattern,
        start: &Path,
        items: &'w [(PathBuf, Raw)],
        bounds: (Option<u64>, Option<u64>),
    ) -> Vec<Listed<'w>> {
        let too_deep = |p: &Path| {
            args.depth.is_some_and(|d| {
                p.strip_prefix(start)
                    .map_or(0, |rel| rel.components().count())
                    > d
            })
        };
        let mut matched = Vec::new();
        for (p, r) in items {
            if args.sizes && too_deep(p) {
                continue;
            }
            let size = match r.kind {
                Kind::Dir if args.sizes => {
                    Some(self.dir_size.get(p.as_path()).copied().unwrap_or(0))
                }
                Kind::Dir => None,
                _ => Some(r.size),
            };
            if !fits(args, &ctx.root, pattern, (p, r, size), bounds)
                || (args.empty && !self.empty(p, r))
            {
                continue;
            }
            matched.push((p, r, size));
        }
        matched
    }

    /// An empty file, or a directory with no entry listed below it.
    fn empty(&self, p: &Path, r: &Raw) -> bool {
        match r.kind {
            Kind::Dir => !self.has_child.contains_key(p),
            Kind::File => r.size == 0,
            _ => false,
        }
    }
}

/// The filters one entry meets alone: type, pattern, size bounds (`size` is
/// None for a directory without --sizes) and executable.
fn fits(
    args: &FindArgs,
    root: &Path,
    pattern: &Pattern,
    (p, r, size): (&Path, &Raw, Option<u64>),
    (min_size, max_size): (Option<u64>, Option<u64>),
) -> bool {
    let kind_ok = match args.kind {
        None => true,
        Some(TypeArg::File) => r.kind == Kind::File,
        Some(TypeArg::Dir) => r.kind == Kind::Dir,
        Some(TypeArg::Symlink) => r.kind == Kind::Symlink,
    };
    if !kind_ok || !name_fits(root, pattern, p) {
        return false;
    }
    if min_size.is_some() || max_size.is_some() {
        let Some(s) = size else { return false };
        if min_size.is_some_and(|m| s < m) || max_size.is_some_and(|m| s > m) {
            return false;
        }
    }
    !args.executable || (r.kind == Kind::File && r.mode & 0o111 != 0)
}

/// Whether `p`'s workspace path or base name fits the pattern (any without one).
fn name_fits(root: &Path, pattern: &Pattern, p: &Path) -> bool {
    if matches!(pattern, Pattern::None) {
        return true;
    }
    let rel = show(root, p);
    let base = p
        .file_name()
        .map(|b| b.to_string_lossy().into_owned())
        .unwrap_or_default();
    pattern.matches(&rel, &base)
}

/// The entries as a tree below `start`: the first `limit` listed, the others
/// counted as omitted in their directories.
fn tree_of(ctx: &Ctx, start: &Path, matched: &[Listed], limit: usize) -> Node {
    let mut root = Node {
        name: show(&ctx.root, start),
        kind: "dir",
        size: None,
        children: Some(Vec::new()),
        omitted: None,
    };
    for (i, (p, r, size)) in matched.iter().enumerate() {
        let rel: Vec<String> = p
            .strip_prefix(start)
            .unwrap_or(p)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if i < limit {
            insert(&mut root, &rel, r.kind.name(), *size);
        } else {
            omit(&mut root, &rel);
        }
    }
    root
}

/// A listed entry: its path, what the walk saw, its size (None: a directory
/// without --sizes).
type Listed<'a> = (&'a PathBuf, &'a Raw, Option<u64>);

/// The values of each flat item: the caller's --fields (path first when left
/// out), else path, then kind when a listed entry is neither a file nor a
/// directory (without kind a directory's path ends in `/`), then what --long,
/// --sizes, --sort and the size filters ask for.
fn fields_of(args: &FindArgs, listed: &[Listed]) -> Vec<FindField> {
    use FindField::{Kind as K, Mode, Mtime, Path as P, Size};
    let mut out = vec![P];
    if !args.fields.is_empty() {
        for f in &args.fields {
            if !out.contains(f) {
                out.push(*f);
            }
        }
        return out;
    }
    let mixed = listed
        .iter()
        .any(|(_, r, _)| !matches!(r.kind, Kind::File | Kind::Dir));
    let sized = args.sizes || args.min_size.is_some() || args.max_size.is_some();
    let wanted = [
        (K, mixed || args.long),
        (Size, args.long || sized || args.sort == SortArg::Size),
        (Mode, args.long),
        (Mtime, args.long || args.sort == SortArg::Mtime),
    ];
    out.extend(wanted.iter().filter(|(_, on)| *on).map(|(f, _)| *f));
    out
}

/// One flat item: a bare path when `fields` is only path, else its values.
fn row(ctx: &Ctx, fields: &[FindField], (p, r, size): &Listed) -> Json {
    let mut path = show(&ctx.root, p);
    if r.kind == Kind::Dir && !fields.contains(&FindField::Kind) {
        path.push('/');
    }
    if fields == [FindField::Path] {
        return Json::Str(path);
    }
    // The walk left the stat to the listing unless a filter or order needed it.
    let stat = !r.stated
        && fields
            .iter()
            .any(|f| f != &FindField::Path && f != &FindField::Kind);
    let (size, mode, mtime) = match stat.then(|| scan::lstat(p)) {
        Some(Ok(m)) => (size.map(|_| m.len), m.mode, m.mtime.0),
        _ => (*size, r.mode, r.mtime.0),
    };
    let mut path = Some(path);
    let values = fields.iter().map(|f| match f {
        FindField::Path => Json::Str(path.take().unwrap_or_default()),
        FindField::Kind => Json::str(r.kind.name()),
        FindField::Size => size.map_or(Json::Null, Json::UInt),
        FindField::Mode => Json::Str(format!("{:04o}", mode & 0o7777)),
        FindField::Mtime => Json::Str(time::iso8601(mtime)),
    });
    Json::Arr(values.collect())
}

/// Puts an entry at `rel` below `node`, creating the directories on the way.
fn insert(node: &mut Node, rel: &[String], kind: &'static str, size: Option<u64>) {
    let Some((first, rest)) = rel.split_first() else {
        return;
    };
    let children = node.children.get_or_insert_with(Vec::new);
    let pos = match children.iter().position(|c| &c.name == first) {
        Some(p) => p,
        None => {
            let leaf = rest.is_empty();
            children.push(Node {
                name: first.clone(),
                kind: if leaf { kind } else { "dir" },
                size: if leaf { size } else { None },
                children: if leaf && kind != "dir" {
                    None
                } else {
                    Some(Vec::new())
                },
                omitted: None,
            });
            children.len() - 1
        }
    };
    if let Some(child) = children.get_mut(pos) {
        if rest.is_empty() {
            child.kind = kind;
            child.size = size;
        } else {
            insert(child, rest, kind, size);
        }
    }
}

/// Counts an entry past the limit on the deepest listed directory above it.
fn omit(node: &mut Node, rel: &[String]) {
    if let Some((first, rest)) = rel.split_first()
        && !rest.is_empty()
        && let Some(child) = node
            .children
            .as_mut()
            .and_then(|c| c.iter_mut().find(|c| &c.name == first))
    {
        return omit(child, rest);
    }
    *node.omitted.get_or_insert(0) += 1;
}

/// What the walk keeps of an entry (its stat only when `stat_all`).
fn raw_of(e: &Entry, stat_all: bool) -> Option<Raw> {
    if !stat_all {
        return Some(Raw {
            kind: e.kind,
            size: 0,
            mode: 0,
            mtime: (0, 0),
            stated: false,
        });
    }
    let m = e.stat().ok()?;
    Some(Raw {
        kind: e.kind,
        size: m.len,
        mode: m.mode,
        mtime: m.mtime,
        stated: true,
    })
}

/// Whether the answer needs only the first --limit entries in the --sort order
/// and their count: a flat list whose filters each look at one entry (--sizes
/// and --empty look at what is below a directory; a tx's staged entries join
/// after the walk).
fn bounded(args: &FindArgs, opts: &scan::ScanOptions) -> bool {
    matches!(args.output, FindOutput::Flat) && !args.sizes && !args.empty && opts.overlay.is_none()
}

/// The walk of a [`bounded`] find: each worker filters its entries and offers
/// them to one [`Top`]; the walk itself keeps none.
fn walk_top(
    ctx: &Ctx,
    args: &FindArgs,
    pattern: &Pattern,
    start: &Path,
    opts: &scan::ScanOptions,
    (stat_all, bounds): (bool, (Option<u64>, Option<u64>)),
) -> Result<(scan::Walked<Raw>, Top), CmdError> {
    let top = std::sync::Mutex::new(Top::new(args.sort, args.limit as usize));
    let root = ctx.root.as_path();
    let walked = scan::walk(
        root,
        std::slice::from_ref(&start.to_path_buf()),
        opts,
        || {
            let top = &top;
            move |e: &Entry| -> Option<Raw> {
                let r = raw_of(e, stat_all)?;
                let size = (r.kind != Kind::Dir).then_some(r.size);
                if fits(args, root, pattern, (e.path, &r, size), bounds) {
                    let mut t = top.lock().unwrap_or_else(|p| p.into_inner());
                    t.offer(e.path, r, size);
                }
                None
            }
        },
    )
    .map_err(|e| scan_error("find", &ctx.argv, &e))?;
    let top = top.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok((walked, top))
}
