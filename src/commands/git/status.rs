//! `git status`: the branch, its upstream distance, and the staged, unstaged and
//! untracked paths, read from `git status --porcelain=v2 --branch -z`.

use super::git;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, code, shell, values};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// Only paths under these (relative to the working directory).
    pub path: Vec<String>,
    /// Most entries listed in each of staged, unstaged and untracked.
    #[arg(long, value_name = "N", default_value = "200", value_parser = values::parse_count)]
    pub limit: u64,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "git status",
    summary: "Branch, upstream distance, staged/unstaged/untracked paths.",
    description: "Runs git status --porcelain=v2 (no shell, GIT_OPTIONAL_LOCKS=0: it never takes the index lock). Paths are relative to the repository's top level; status is git's one-letter code (M, A, D, R, C, T, U). Untracked directories are listed once, as git status does. Each list stops at --limit; truncated then says so and next_commands raises it.",
    args: <StatusArgs as clap::Args>::augment_args,
    output_fields: &[
        field("branch", "Current branch, or \"(detached)\"."),
        field("upstream", "Tracked upstream branch; absent without one."),
        field(
            "ahead",
            "Commits ahead of upstream; absent without one (or when it is gone).",
        ),
        field(
            "behind",
            "Commits behind upstream; absent without one (or when it is gone).",
        ),
        field(
            "staged",
            "[{path,status,from?}] index changes against HEAD; from is a rename's or copy's source.",
        ),
        field(
            "unstaged",
            "[{path,status}] work-tree changes against the index; unmerged paths have status U.",
        ),
        field("untracked", "Untracked paths."),
        field(
            "truncated",
            "True when a list stopped at --limit (status partial, exit 3).",
        ),
        field("next_commands", "The call with a larger --limit, when cut."),
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
    run: handler!(StatusArgs, run),
};

#[derive(Serialize, Debug, PartialEq)]
pub struct Entry {
    pub path: String,
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

#[derive(Serialize, Debug, Default)]
pub struct Parsed {
    pub branch: String,
    pub upstream: Option<String>,
    pub ahead: Option<u64>,
    pub behind: Option<u64>,
    pub staged: Vec<Entry>,
    pub unstaged: Vec<Entry>,
    pub untracked: Vec<String>,
}

/// The `n`th space-separated field of a record and the rest after it (the path,
/// which may hold spaces).
fn path_after(rec: &str, fields: usize) -> &str {
    let mut rest = rec;
    for _ in 0..fields {
        rest = rest.split_once(' ').map(|(_, r)| r).unwrap_or("");
    }
    rest
}

/// Parses porcelain v2 with `-z`.
pub fn parse(out: &str) -> Parsed {
    let mut p = Parsed {
        branch: "(detached)".into(),
        ..Parsed::default()
    };
    let mut recs = out.split('\0');
    while let Some(rec) = recs.next() {
        if let Some(h) = rec.strip_prefix("# branch.head ") {
            p.branch = h.to_string();
        } else if let Some(u) = rec.strip_prefix("# branch.upstream ") {
            p.upstream = Some(u.to_string());
        } else if let Some(ab) = rec.strip_prefix("# branch.ab ") {
            let mut it = ab.split(' ');
            p.ahead = it
                .next()
                .and_then(|a| a.trim_start_matches('+').parse().ok());
            p.behind = it
                .next()
                .and_then(|b| b.trim_start_matches('-').parse().ok());
        } else if let Some(path) = rec.strip_prefix("? ") {
            p.untracked.push(path.to_string());
        } else if rec.starts_with("1 ") || rec.starts_with("2 ") {
            let xy: Vec<char> = rec.get(2..4).unwrap_or("..").chars().collect();
            let renamed = rec.starts_with("2 ");
            let path = path_after(rec, if renamed { 9 } else { 8 }).to_string();
            let from = if renamed {
                recs.next().map(str::to_string)
            } else {
                None
            };
            if let Some(&x) = xy.first().filter(|c| **c != '.') {
                p.staged.push(Entry {
                    path: path.clone(),
                    status: x.to_string(),
                    from: from.clone(),
                });
            }
            if let Some(&y) = xy.get(1).filter(|c| **c != '.') {
                p.unstaged.push(Entry {
                    path,
                    status: y.to_string(),
                    from: None,
                });
            }
        } else if rec.starts_with("u ") {
            p.unstaged.push(Entry {
                path: path_after(rec, 10).to_string(),
                status: "U".into(),
                from: None,
            });
        }
    }
    p
}

pub fn run(ctx: &Ctx, a: &StatusArgs) -> Result<Output, CmdError> {
    let mut args: Vec<String> = ["status", "--porcelain=v2", "--branch", "-z"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut specs = Vec::new();
    for p in &a.path {
        specs.push(super::pathspec(ctx, p)?);
    }
    if !specs.is_empty() {
        args.push("--".into());
        args.extend(specs.iter().cloned());
    }
    let out = git(ctx, &args, "overview")?;
    let (text, _) = super::lossy(&out.stdout);
    let mut p = parse(&text);
    if p.staged.is_empty() && p.unstaged.is_empty() && p.untracked.is_empty() {
        super::unknown_path(ctx, &a.path, &specs)?;
    }
    let limit = usize::try_from(a.limit).unwrap_or(usize::MAX);
    let cut = p.staged.len() > limit || p.unstaged.len() > limit || p.untracked.len() > limit;
    p.staged.truncate(limit);
    p.unstaged.truncate(limit);
    p.untracked.truncate(limit);
    #[derive(Serialize)]
    struct Out<'a> {
        branch: &'a str,
        // No upstream (a local branch): nothing to say, not three nulls.
        #[serde(skip_serializing_if = "Option::is_none")]
        upstream: &'a Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ahead: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        behind: Option<u64>,
        staged: &'a [Entry],
        unstaged: &'a [Entry],
        untracked: &'a [String],
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        truncated: bool,
        next_commands: Vec<String>,
    }
    let mut next = Vec::new();
    if cut {
        let words = shell::rerun(
            &ctx.argv,
            &["--limit"],
            &[],
            &["--limit".into(), (a.limit.saturating_mul(4)).to_string()],
        );
        next.push(shell::aitools(&words));
    }
    Ok(Output::cut(
        &Out {
            branch: &p.branch,
            upstream: &p.upstream,
            ahead: p.ahead,
            behind: p.behind,
            staged: &p.staged,
            unstaged: &p.unstaged,
            untracked: &p.untracked,
            truncated: cut,
            next_commands: next,
        },
        cut,
    ))
}
