//! What answers leave out because the caller already knows it. The store reports
//! everything it knows about each change; a write's answer keeps what is news: a
//! field at its usual value is left out (`action` when `modified`, a dry run's
//! `op_id`), a hash is shown by its first `SHOWN_HASH` digits (`--expect-hash` takes
//! a prefix; `aitools info` gives the whole digest), a dry run shows no hashes
//! (nothing was written), a change whose whole diff is shown has no `added` /
//! `deleted` (the diff's lines count them), and a cut diff is said once for the
//! answer, not per change.

use super::Json;

/// Hex digits of a hash an answer shows (a write's and `read`'s `hash`): 48 bits,
/// the least a guard takes (`store::guard::MIN_HASH_PREFIX`), under a fifth of
/// the bytes.
pub const SHOWN_HASH: usize = 12;

/// The first `SHOWN_HASH` digits of a hex digest.
pub fn shown_hash(mut hash: String) -> String {
    hash.truncate(SHOWN_HASH);
    hash
}

/// The op id an answer shows: `op-<8 hex>`, the random part of the journal's
/// `op-<UTC time>-<8 hex>` (every command that takes an op id takes either; the
/// journal keeps the whole id). Any other text is returned as it is.
pub fn short_op_id(id: &str) -> String {
    let b = id.as_bytes();
    if id.len() == 28 && id.starts_with("op-") && b[19] == b'-' {
        format!("op-{}", &id[20..])
    } else {
        id.to_string()
    }
}

/// Compacts a write answer's members in place; `dry_run` when nothing was written.
pub fn compact(fields: &mut Json, dry_run: bool) {
    let full = match fields.get("op_id") {
        Some(Json::Str(id)) => id.clone(),
        _ => String::new(),
    };
    let short = short_op_id(&full);
    if short != full {
        if let Some(Json::Str(s)) = fields.get_mut("op_id") {
            *s = short.clone();
        }
        // The continuation (`aitools diff --op <id>`) names it the same way.
        if let Some(Json::Arr(next)) = fields.get_mut("next_commands") {
            for n in next.iter_mut() {
                if let Json::Str(s) = n {
                    *s = s.replace(&full, &short);
                }
            }
        }
    }
    let mut cut = false;
    if let Some(Json::Arr(changes)) = fields.get_mut("changes") {
        for c in changes.iter_mut() {
            cut |= compact_change(c, dry_run);
        }
    }
    if dry_run && matches!(fields.get("op_id"), Some(Json::Null)) {
        fields.remove("op_id");
    }
    if cut {
        insert_before(fields, "next_commands", "diff_truncated", Json::Bool(true));
    }
}

/// One `changes[]` entry; true when its diff was cut.
fn compact_change(c: &mut Json, dry_run: bool) -> bool {
    if c.get("action").and_then(Json::as_str) == Some("modified") {
        c.remove("action");
    }
    // The file's hash after the write, named `hash` as `read` names it: the
    // value `--expect-hash` takes either way.
    match c.remove("hash_after") {
        Some(Json::Str(mut h)) if !dry_run => {
            h.truncate(SHOWN_HASH);
            rename_at(c, "path", "hash", Json::Str(h));
        }
        _ => {}
    }
    let cut = matches!(c.remove("diff_truncated"), Some(Json::Bool(true)));
    // A whole diff shows its own counts.
    if !cut && c.get("diff").is_some() {
        c.remove("added");
        c.remove("deleted");
    }
    cut
}

/// Puts `key` just after `after` (at the end when `after` is absent), where the
/// renamed member stood.
fn rename_at(c: &mut Json, after: &str, key: &str, value: Json) {
    if let Json::Obj(members) = c {
        let at = members
            .iter()
            .rposition(|(k, _)| k == after || k == "action" || k == "from")
            .map_or(members.len(), |i| i + 1);
        members.insert(at, (key.to_string(), value));
    }
}

/// Puts `key` just before `before` (at the end when `before` is absent), so
/// `next_commands` stays last among the command's fields.
fn insert_before(fields: &mut Json, before: &str, key: &str, value: Json) {
    if let Json::Obj(members) = fields {
        let at = members
            .iter()
            .position(|(k, _)| k == before)
            .unwrap_or(members.len());
        members.insert(at, (key.to_string(), value));
    }
}

/// Drops every change's diff and line counts (the caller wrote them, as `apply`'s
/// patch or an exact `edit --old/--new`) and the continuation that would show the
/// diff. `lines[i]`, when given, says where change `i` landed (`S` or `S:E`).
pub fn drop_diffs(fields: &mut Json, lines: &[String]) {
    if let Some(Json::Arr(changes)) = fields.get_mut("changes") {
        for (i, c) in changes.iter_mut().enumerate() {
            c.remove("diff");
            c.remove("added");
            c.remove("deleted");
            if let Some(l) = lines.get(i) {
                c.push("lines", Json::str(l.as_str()));
            }
        }
    }
    fields.remove("diff_truncated");
    if let Some(Json::Arr(cmds)) = fields.get_mut("next_commands") {
        // The op's full diff, or (a dry run) the same call with a larger budget.
        cmds.retain(|c| {
            !c.as_str().is_some_and(|s| {
                s.starts_with("aitools diff --op ") || s.contains(" --max-diff-lines ")
            })
        });
        if cmds.is_empty() {
            fields.remove("next_commands");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Json {
        Json::parse(s).unwrap_or(Json::Null)
    }

    #[test]
    fn defaults_go_and_the_cut_is_said_once() {
        let mut j = parse(
            r#"{"changes":[{"path":"a","action":"modified","hash_after":"0123456789abcdef0123","added":1,"deleted":1,"diff_truncated":true},{"path":"b","action":"created","hash_after":"fedcba9876543210ff","added":1,"deleted":0}],"op_id":"op-1","next_commands":["aitools diff --op op-1"]}"#,
        );
        compact(&mut j, false);
        assert_eq!(
            j.to_string_compact(),
            r#"{"changes":[{"path":"a","hash":"0123456789ab","added":1,"deleted":1},{"path":"b","action":"created","hash":"fedcba987654","added":1,"deleted":0}],"op_id":"op-1","diff_truncated":true,"next_commands":["aitools diff --op op-1"]}"#
        );
    }

    #[test]
    fn a_whole_diff_counts_its_own_lines() {
        let mut j = parse(
            r#"{"changes":[{"path":"a","hash_after":"0123456789abcdef","added":1,"deleted":1,"diff":"@@ -1 +1 @@\n-x\n+y\n"},{"path":"b","hash_after":"fedcba9876543210","added":3,"deleted":0,"diff":"@@ -0,0 +1 @@\n+p\n","diff_truncated":true}],"op_id":"op-1"}"#,
        );
        compact(&mut j, false);
        assert_eq!(
            j.to_string_compact(),
            r#"{"changes":[{"path":"a","hash":"0123456789ab","diff":"@@ -1 +1 @@\n-x\n+y\n"},{"path":"b","hash":"fedcba987654","added":3,"deleted":0,"diff":"@@ -0,0 +1 @@\n+p\n"}],"op_id":"op-1","diff_truncated":true}"#
        );
    }

    #[test]
    fn a_dry_run_has_no_hashes_and_no_op() {
        let mut j = parse(
            r#"{"changes":[{"path":"a","action":"modified","hash_after":"0123456789abcdef0123"}],"op_id":null,"dry_run":true}"#,
        );
        compact(&mut j, true);
        assert_eq!(
            j.to_string_compact(),
            r#"{"changes":[{"path":"a"}],"dry_run":true}"#
        );
    }
}
