//! `git log`: the newest commits (optionally only those touching paths), a page at
//! a time; the total when the page reaches the end (or with `--total`).

use super::{git, log_filter};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, code, shell, values};
use crate::workspace::Ctx;
use clap::{Args, ValueEnum};
use serde::Serialize;

#[derive(Args, Debug, Clone)]
pub struct LogArgs {
    /// Only commits touching these paths (relative to the working directory).
    pub path: Vec<String>,
    /// Maximum number of commits (default 20). A page cut by a limit given here is
    /// what was asked for: status ok, `more` continues.
    #[arg(long, value_name = "N", value_parser = values::parse_count)]
    pub limit: Option<u64>,
    /// Skip this many newest commits first (next_commands use it to continue).
    #[arg(long, value_name = "N", default_value = "0", value_parser = values::parse_count)]
    pub skip: u64,
    /// Start from this revision instead of HEAD (a branch, tag, sha, or A..B).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// List the paths each commit changed (files[] per item, at most 50 each).
    #[arg(long)]
    pub files: bool,
    /// Also count every matching commit (a walk of the whole history) when the
    /// page does not reach the end.
    #[arg(long)]
    pub total: bool,
    /// Only commits whose author (`Name <email>`) matches this pattern (git's
    /// regular expression, as git log --author).
    #[arg(long, value_name = "PATTERN")]
    pub author: Option<String>,
    /// Only commits made at or after WHEN: YYYY-MM-DD[THH:MM[:SS]] (UTC),
    /// @SECONDS, N days ago (seconds, minutes, hours, days, weeks, months of
    /// 30 days, years of 365), or git's yesterday, today (00:00 UTC), noon,
    /// yesterday noon, this week (Monday 00:00 UTC), last UNIT, last WEEKDAY.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only commits made at or before WHEN (the forms of --since).
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Each item's fields, in this order (sha always, first when left out):
    /// sha, author, date, subject, email (the author's, only when asked).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "FIELD,...")]
    pub fields: Vec<LogField>,
    /// The full 40-hex sha and the date with its time and offset (git's %H and
    /// %aI) instead of the short sha and YYYY-MM-DD (%h and %as).
    #[arg(long)]
    pub full: bool,
    /// Each commit's patch (git log -p) as its last value: its files
    /// [{path,hunks}] (a merge's: none; counts only for a file without hunks), 400 hunk lines a page.
    #[arg(short = 'p', long = "patch")]
    pub patch: bool,
}

/// A field of a git log item `--fields` keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogField {
    Sha,
    Author,
    Date,
    Subject,
    Email,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "git log",
    summary: "Newest commits, optionally those touching a path.",
    description: "Commits newest first from HEAD (or --rev), --limit at a time (default 20). Each item is one commit as an array of the values `fields` names (sha, author, date, subject by default; --fields picks and orders them; --files adds the paths it changed; -p its patch, git diff's files with hunks, 400 hunk lines a page, the page stopping before a commit that does not fit): the short sha git prints (%h) and the author date as YYYY-MM-DD in the author's offset (%as), or with --full the 40-hex sha and ISO 8601 with time (%H, %aI). total counts the matching commits when this page reaches the end or with --total (absent otherwise: counting walks the whole history). A page cut by the default limit is partial and next_commands continues with --skip; a page cut by an explicit --limit is ok and more holds the flag to add to the call for the next page (--skip N). An unborn branch has no commits: items is empty.",
    args: <LogArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "fields",
            "What each item's values are, in order: sha, author, date, subject (--fields picks; email too), then files with --files, then patch with -p.",
        ),
        field(
            "items",
            "One array per commit, newest first: its values in the order of fields (files: an array of paths; patch: [{path,from?,mode?,added?,deleted?,binary?,hunks?}] as git diff's files, a merge's empty).",
        ),
        field(
            "total",
            "Number of matching commits; absent when more follow this page and --total was not given.",
        ),
        field(
            "truncated",
            "True when more commits follow this page (status partial, exit 3).",
        ),
        field(
            "next_commands",
            "The call for the next page, when cut by the default limit or -p's budget (after the calls that show files -p left without hunks).",
        ),
        field(
            "more",
            "When an explicit --limit left commits out (status ok): the flag that pages on, `--skip N`, to add to this call, before any --, in place of its own --skip.",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::UNAVAILABLE,
        code::TIMEOUT,
        code::TOO_LARGE,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(LogArgs, run),
};

impl LogField {
    fn name(self) -> &'static str {
        match self {
            LogField::Sha => "sha",
            LogField::Author => "author",
            LogField::Date => "date",
            LogField::Subject => "subject",
            LogField::Email => "email",
        }
    }
}

/// The fields of each item in the caller's order, each once; sha first when
/// the caller left it out. No --fields: all four.
fn order(asked: &[LogField]) -> Vec<LogField> {
    use LogField::{Author, Date, Sha, Subject};
    if asked.is_empty() {
        return vec![Sha, Author, Date, Subject];
    }
    let mut out = Vec::new();
    if !asked.contains(&Sha) {
        out.push(Sha);
    }
    for f in asked {
        if !out.contains(f) {
            out.push(*f);
        }
    }
    out
}

/// One commit as git printed it.
#[derive(Debug)]
pub struct Item {
    pub sha: String,
    pub author: String,
    pub date: String,
    pub subject: String,
    pub email: String,
    /// The full 40-hex id (what `git diff-tree --stdin` reads).
    pub id: String,
    pub files: Option<Vec<String>>,
}

impl Item {
    /// The sha as the page shows it, and the full id.
    fn ids(&self) -> (&str, &str) {
        (&self.sha, &self.id)
    }

    /// The item's values in the order of `fields`, then its files, then its
    /// patch (-p).
    fn row(self, fields: &[LogField], patch: Option<Json>) -> Json {
        let mut row: Vec<Json> = fields
            .iter()
            .map(|f| {
                Json::str(match f {
                    LogField::Sha => self.sha.as_str(),
                    LogField::Author => self.author.as_str(),
                    LogField::Date => self.date.as_str(),
                    LogField::Subject => self.subject.as_str(),
                    LogField::Email => self.email.as_str(),
                })
            })
            .collect();
        if let Some(files) = self.files {
            row.push(Json::Arr(files.into_iter().map(Json::Str).collect()));
        }
        row.extend(patch);
        Json::Arr(row)
    }
}

/// A record separator git never prints in a subject line.
const RS: char = '\u{1e}';
const MAX_FILES_PER_COMMIT: usize = 50;

fn unborn(e: &CmdError) -> bool {
    e.code == code::NOT_FOUND
        && (e.message.contains("does not have any commits")
            || e.message.contains("bad revision 'HEAD'")
            || e.message.contains("bad default revision"))
}

/// The default page size when --limit is not given.
const DEFAULT_LIMIT: u64 = 20;

pub fn run(ctx: &Ctx, a: &LogArgs) -> Result<Output, CmdError> {
    // git's spellings where a path stands: `-5` (a count), `v1.0` (a revision).
    let mut taken = a.clone();
    if let Some((i, n)) = super::take_count(ctx, &taken.path, a.limit.is_some()) {
        taken.path.remove(i);
        taken.limit = Some(n);
    }
    if let Some((rev, used)) = super::take_revision(ctx, &taken.path, a.rev.is_some(), "--rev") {
        taken.path.drain(..used);
        taken.rev = Some(rev);
    }
    let a = &taken;
    let limit = a.limit.unwrap_or(DEFAULT_LIMIT);
    let rev = a.rev.clone().unwrap_or_else(|| "HEAD".into());
    if rev.starts_with('-') {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("--rev {rev:?} is not a revision."),
        ));
    }
    let mut paths = Vec::new();
    for p in &a.path {
        paths.push(super::pathspec(ctx, p)?);
    }
    // The filters, then the revision: the words before `--` of each git call.
    let (since, until) = (a.since.as_deref(), a.until.as_deref());
    let mut revs = log_filter::filters(ctx, a.author.as_deref(), since, until)?;
    revs.push(rev);
    // One commit past the page says whether more follow; the count of them all
    // walks the whole history (a second git process), so only with --total.
    let mut items = page(ctx, a, &revs, &paths, limit.saturating_add(1))
        .map_err(|e| log_filter::author_error(ctx, a.author.as_deref(), e))?;
    let mut left = items.len() as u64 > limit;
    items.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let patches = match a.patch {
        true => {
            let shas: Vec<(&str, &str)> = items.iter().map(Item::ids).collect();
            let p = log_filter::patches(ctx, &shas, &paths)?;
            left |= p.stopped;
            items.truncate(p.values.len());
            Some(p)
        }
        false => None,
    };
    // A patch the budget cut is no limit the caller chose.
    let over = patches
        .as_ref()
        .is_some_and(|p| p.stopped || !p.next.is_empty());
    if items.is_empty() && a.skip == 0 {
        super::unknown_path(ctx, &a.path, &paths)?;
    }
    let total = if a.total {
        Some(count(ctx, a, &revs, &paths)?)
    } else {
        // Known without counting when this page reaches the end.
        (!left && (a.skip == 0 || !items.is_empty())).then(|| a.skip + items.len() as u64)
    };
    // A limit the caller chose is an answer, not a cut to chase: `more` is
    // then the flag to add to the caller's own call, not the call again.
    let cut = left && a.limit.is_none() || over;
    let (mut next, more) = page_on(ctx, left, cut, a.skip + items.len() as u64);
    let fields = order(&a.fields);
    let mut names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
    if a.files {
        names.push("files");
    }
    let (mut values, mut masked) = (Vec::new().into_iter(), 0);
    if let Some(p) = patches {
        names.push("patch");
        next.splice(0..0, p.next);
        (values, masked) = (p.values.into_iter(), p.masked);
    }
    let items = items
        .into_iter()
        .map(|it| it.row(&fields, values.next()))
        .collect();
    Ok(Output::cut(
        &Out {
            fields: names,
            items,
            total,
            truncated: cut,
            next_commands: next,
            more,
        },
        cut,
    )
    .premasked(masked))
}

/// What follows a page: the call in `next_commands` when the page is a cut,
/// the flag alone in `more` when the caller's own --limit ended it.
fn page_on(ctx: &Ctx, left: bool, cut: bool, skip: u64) -> (Vec<String>, Option<String>) {
    let skip = ["--skip".to_string(), skip.to_string()];
    match (left, cut) {
        (false, _) => (Vec::new(), None),
        (true, false) => (Vec::new(), Some(skip.join(" "))),
        (true, true) => {
            let call = shell::rerun(&ctx.argv, &["--skip"], &[], &skip);
            (vec![shell::aitools(call)], None)
        }
    }
}

#[derive(Serialize)]
struct Out<'a> {
    fields: Vec<&'a str>,
    items: Vec<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<u64>,
    truncated: bool,
    next_commands: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    more: Option<String>,
}

/// Whether a failed call only says the branch has no commits yet (HEAD unborn).
fn no_commits(a: &LogArgs, e: &CmdError) -> bool {
    a.rev.is_none() && (unborn(e) || e.message.contains("unknown revision"))
}

/// Every commit that matches (`git rev-list --count`).
fn count(ctx: &Ctx, a: &LogArgs, revs: &[String], paths: &[String]) -> Result<u64, CmdError> {
    let mut args = vec!["rev-list".to_string(), "--count".into()];
    args.extend(revs.iter().cloned());
    args.push("--".into());
    args.extend(paths.iter().cloned());
    match git(ctx, &args, "history") {
        Ok(o) => Ok(String::from_utf8_lossy(&o.stdout)
            .trim()
            .parse()
            .unwrap_or(0)),
        Err(e) if no_commits(a, &e) => Ok(0),
        Err(e) => Err(e),
    }
}

/// At most `most` commits after `--skip`, newest first.
fn page(
    ctx: &Ctx,
    a: &LogArgs,
    revs: &[String],
    paths: &[String],
    most: u64,
) -> Result<Vec<Item>, CmdError> {
    let mut args = vec![
        "log".to_string(),
        // With --full the id (%H) is the sha shown: git is asked once.
        if a.full {
            format!("--format={RS}%H%x00%an%x00%aI%x00%ae%x00%s")
        } else {
            format!("--format={RS}%H%x00%an%x00%as%x00%ae%x00%h%x00%s")
        },
        format!("--max-count={most}"),
        format!("--skip={}", a.skip),
    ];
    if a.files {
        args.push("--name-only".into());
        args.push("-z".into());
    }
    args.extend(revs.iter().cloned());
    args.push("--".into());
    args.extend(paths.iter().cloned());
    let out = match git(ctx, &args, "history") {
        Ok(o) => o,
        Err(e) if no_commits(a, &e) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let (text, _) = super::lossy(&out.stdout);
    Ok(text
        .split(RS)
        .filter(|r| !r.is_empty())
        .map(|rec| item(rec, a.files, a.full))
        .collect())
}

/// One commit's record: `id\0author\0date\0email\0sha\0subject` (without
/// `sha\0` when `full`: the sha shown is the id), then (with --files) its paths,
/// NUL-separated.
fn item(rec: &str, files: bool, full: bool) -> Item {
    let head = match rec.split_once('\n') {
        Some((h, _)) if !files => h,
        _ => rec,
    };
    let mut f = head.split('\0');
    let id = f.next().unwrap_or("").to_string();
    let author = f.next().unwrap_or("").to_string();
    let date = f.next().unwrap_or("").to_string();
    let email = f.next().unwrap_or("").to_string();
    let sha = if full {
        id.clone()
    } else {
        f.next().unwrap_or("").to_string()
    };
    let subject_and_files = f.next().unwrap_or("");
    let (subject, first_file) = match subject_and_files.split_once('\n') {
        Some((s, r)) => (s.to_string(), r.trim_start_matches('\n').to_string()),
        None => (subject_and_files.to_string(), String::new()),
    };
    let files = files.then(|| {
        let mut all: Vec<String> = std::iter::once(first_file)
            .chain(f.map(|s| s.trim_matches('\n').to_string()))
            .filter(|s| !s.is_empty())
            .collect();
        all.truncate(MAX_FILES_PER_COMMIT);
        all
    });
    Item {
        sha,
        author,
        date,
        subject,
        email,
        id,
        files,
    }
}
