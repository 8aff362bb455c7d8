//! Which definition `code rename` renames: NAME (or a qualified NAME)
//! narrowed by --kind and --in, or the refusal listing the candidates.

use super::{Parsed, RenameArgs, constructor_of, show};
use crate::protocol::json::Json;
use crate::protocol::{CmdError, Repair, code, shell};
use crate::workspace::Ctx;
use std::path::PathBuf;

/// The one definition to rename: (file index, def index), or the refusal that
/// lists the candidates.
pub(super) fn pick(
    ctx: &Ctx,
    args: &RenameArgs,
    (name, qual): (&str, Option<&str>),
    files: &[(PathBuf, Parsed)],
    in_path: Option<&std::path::Path>,
) -> Result<(usize, usize), CmdError> {
    let mut all: Vec<(usize, usize)> = Vec::new();
    for (i, (p, f)) in files.iter().enumerate() {
        for (j, d) in f.defs.iter().enumerate() {
            if args.kind.as_deref().is_some_and(|k| k != d.kind) {
                continue;
            }
            if qual.is_some_and(|q| !qualified_as(&d.qualified, q)) {
                continue;
            }
            if in_path.is_some_and(|ip| !p.starts_with(ip)) {
                continue;
            }
            // A constructor is its class's name: renaming the class renames it.
            if f.defs.iter().any(|c| constructor_of(d, c)) {
                continue;
            }
            // One symbol defined twice in one scope (if/else branches) is one.
            if all
                .iter()
                .any(|&(a, b)| a == i && files[a].1.defs[b].qualified == d.qualified)
            {
                continue;
            }
            all.push((i, j));
        }
    }
    let asked = args.name.as_str();
    match all.len() {
        1 => Ok(all[0]),
        0 => Err(CmdError::new(
            code::NO_MATCH,
            format!(
                "No definition of {asked}{} found below the path{}.",
                args.kind
                    .as_deref()
                    .map(|k| format!(" of kind {k}"))
                    .unwrap_or_default(),
                if args.in_path.is_some() {
                    " and --in"
                } else {
                    ""
                }
            ),
            Repair::new(
                "defs",
                "List the definitions of the name.",
                shell::aitools(["code", "defs", name]),
            ),
        )),
        n => Err(ambiguous(ctx, args, name, n, files, &all)),
    }
}

/// The refusal of a NAME that `n` definitions (`all`) match, with their
/// qualified names as candidates.
fn ambiguous(
    ctx: &Ctx,
    args: &RenameArgs,
    name: &str,
    n: usize,
    files: &[(PathBuf, Parsed)],
    all: &[(usize, usize)],
) -> CmdError {
    let asked = args.name.as_str();
    let shown: Vec<String> = all
        .iter()
        .take(8)
        .map(|&(i, j)| {
            let d = &files[i].1.defs[j];
            format!(
                "{} {} at {}:{}",
                d.kind,
                d.qualified,
                show(&ctx.root, &files[i].0),
                d.start_line
            )
        })
        .collect();
    let quals: Vec<&str> = all
        .iter()
        .map(|&(i, j)| files[i].1.defs[j].qualified.as_str())
        .collect();
    // A qualified name that tells its definition apart is a NAME `code
    // rename` takes; else --kind and --in pick the first.
    let by_name =
        |q: &str| q != name && q.ends_with(name) && quals.iter().filter(|x| **x == q).count() == 1;
    let unique = quals.iter().position(|q| by_name(q));
    let (i, j) = all[unique.unwrap_or(0)];
    let first = &files[i].1.defs[j];
    let path = show(&ctx.root, &files[i].0);
    let mut argv = ctx.argv.clone();
    if unique.is_some()
        && let Some(at) = argv.iter().position(|a| a == asked)
    {
        argv[at] = first.qualified.clone();
    }
    let add: Vec<String> = match unique {
        Some(_) => vec!["--dry-run".into()],
        None => vec![
            "--kind".into(),
            first.kind.into(),
            "--in".into(),
            path.clone(),
            "--dry-run".into(),
        ],
    };
    let argv = shell::rerun(&argv, &["--kind", "--in"], &["--dry-run"], &add);
    let how = if unique.is_some() {
        "Name one by its qualified name (candidates), or pick it with --kind and --in"
    } else {
        "Pick one with --kind and --in"
    };
    CmdError::new(
        code::AMBIGUOUS,
        format!("{name} names {n} definitions: {}. {how}.", shown.join("; ")),
        Repair::new(
            "pick",
            format!(
                "Rename the {} {} in {path} (dry run first).",
                first.kind, first.qualified
            ),
            shell::aitools(argv),
        ),
    )
    .with_candidates(Json::Arr(
        quals.iter().map(|q| Json::Str(q.to_string())).collect(),
    ))
}

/// NAME's last part and, when NAME is qualified (`A.b`, `m::f`), NAME.
pub(super) fn split_qualified(name: &str) -> (&str, Option<&str>) {
    let cut = [
        name.rfind('.').map(|i| i + 1),
        name.rfind("::").map(|i| i + 2),
    ]
    .into_iter()
    .flatten()
    .max();
    match cut {
        Some(at) if at < name.len() && at > 1 => (&name[at..], Some(name)),
        _ => (name, None),
    }
}

/// Whether the qualified name `full` is `q` or ends with it after a separator.
fn qualified_as(full: &str, q: &str) -> bool {
    full == q
        || full
            .strip_suffix(q)
            .is_some_and(|head| head.ends_with('.') || head.ends_with("::"))
}
