//! `json select FILE --where ..` without the array's pointer: which array the
//! call means, found by the streaming walk (no tree) or, for a text that is not
//! JSON, the whole parse whose error is the answer.

use super::file::{JsonSrc, load_read};
use crate::protocol::{CmdError, Json, Repair, shell};
use crate::text::json_doc::{self, Kind, Node};
use crate::workspace::Ctx;

/// `json select FILE --where ..` without the array's pointer: the document's
/// one array, or the one array whose elements have the member the first
/// condition, pick or sort key names, is taken (said in `took` as `POINTER`).
/// Otherwise the answer is the same call with the pointer of the array it most
/// likely means (such an array; then the shallowest; then the first in the
/// document), the other arrays as candidates.
/// `key` is the first condition's, pick's or sort key's pointer tokens.
pub(super) fn pointer_meant(
    ctx: &Ctx,
    path: &str,
    key: Option<&[String]>,
    f: &JsonSrc,
) -> Result<String, CmdError> {
    let mut found = arrays_found(ctx, path, f, key)?;
    // A stable sort keeps the document order among equals.
    found.sort_by_key(|(tokens, holds)| (!holds, tokens.len()));
    let holders = found.iter().filter(|(_, holds)| *holds).count();
    if let Some((t, _)) = found.first().filter(|_| holders == 1 || found.len() == 1) {
        let p = json_doc::pointer_of(t);
        if let Ok(mut took) = ctx.took.lock() {
            took.push(("POINTER".to_string(), p.clone()));
        }
        return Ok(p);
    }
    let pointers: Vec<String> = found
        .iter()
        .take(10)
        .map(|(t, _)| json_doc::pointer_of(t))
        .collect();
    let Some(first) = pointers.first() else {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!(
                "json select needs the pointer of an array, and {} holds none; json get reads its values.",
                f.display
            ),
        )
        .with_first_repair(Repair::new(
            "keys",
            "List what the document holds.",
            shell::aitools(["json", "get", path, "", "--keys"]),
        )));
    };
    // The same words, the pointer given after the path.
    let mut fixed: Vec<String> = Vec::with_capacity(ctx.argv.len() + 1);
    let mut done = false;
    for w in &ctx.argv {
        fixed.push(w.clone());
        if !done && fixed.len() > 2 && *w == path {
            fixed.push(first.clone());
            done = true;
        }
    }
    Err(CmdError::invalid_argument(
        &ctx.command,
        "json select needs the pointer of the array to filter, after the file (\"\" is the whole document).",
    )
    .with_first_repair(Repair::new(
        "retry",
        format!("The same call on the array at {first:?}."),
        shell::aitools(&fixed),
    ))
    .with_candidates(Json::Arr(pointers.into_iter().map(Json::str).collect())))
}

/// Each array reached through objects: its pointer tokens, and whether one of
/// its first 64 elements has `key`. Found by the scan (no tree), else by the
/// whole parse, whose error (the text is not JSON) is the answer.
fn arrays_found(
    ctx: &Ctx,
    path: &str,
    f: &JsonSrc,
    key: Option<&[String]>,
) -> Result<Vec<(Vec<String>, bool)>, CmdError> {
    let text = &f.text;
    if let Some(arrays) = json_doc::scan::arrays(text) {
        return Ok(arrays
            .into_iter()
            .map(|(t, s, e)| {
                let holds = key.is_some_and(|k| {
                    json_doc::scan::elements_of(text, s, e, 64)
                        .into_iter()
                        .any(|(es, ee)| json_doc::scan::locate_in(text, es, ee, k).is_some())
                });
                (t, holds)
            })
            .collect());
    }
    let parsed = load_read(ctx, path).and_then(JsonSrc::parse)?;
    let mut arrays = Vec::new();
    arrays_in(&parsed.root, &mut Vec::new(), &mut arrays);
    let has = |el: &Node| key.is_some_and(|k| json_doc::lookup(el, k).is_ok());
    Ok(arrays
        .into_iter()
        .map(|(t, n)| {
            let holds = matches!(&n.kind, Kind::Arr(els) if els.iter().take(64).any(has));
            (t, holds)
        })
        .collect())
}

/// Every array reached through objects, with its pointer (an array's elements
/// are not looked into: their arrays are each element's own).
fn arrays_in<'a>(n: &'a Node, at: &mut Vec<String>, out: &mut Vec<(Vec<String>, &'a Node)>) {
    match &n.kind {
        Kind::Arr(_) => out.push((at.clone(), n)),
        Kind::Obj(members) => {
            for m in members {
                at.push(m.key.clone());
                arrays_in(&m.value, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}
