//! Renames of a symbol whose binding holds in one scope: a definition local
//! to a function or block, a Ruby file-level variable.

use super::{Parsed, RenameArgs};
use crate::text::syntax::refs::{Occurrence, RefKind};

/// Why an occurrence is not the local definition whose binding holds in
/// `scope` (of the target's file), or `None` when it is.
pub(super) fn local_reason(
    o: &Occurrence,
    f: &Parsed,
    scope: (usize, usize),
    in_target_file: bool,
    args: &RenameArgs,
) -> Option<&'static str> {
    let inside = in_target_file && o.start >= scope.0 && o.start < scope.1;
    match o.kind {
        RefKind::String if !(args.strings && inside) => Some("string"),
        RefKind::Comment if !(args.comments && inside) => Some("comment"),
        RefKind::String | RefKind::Comment => None,
        _ if in_target_file && o.scope == Some(scope) => None,
        _ if o.local => Some("local"),
        _ if o.member_of.is_some() => Some("member"),
        _ if f.external.span_module(o.start).is_some()
            || (o.bound_by_import(f.grammar) && f.external_name(&o_name(f, o))) =>
        {
            Some("external")
        }
        _ => Some("shadowed"),
    }
}

/// Why an occurrence is not the Ruby file-level variable of the target's
/// file, or `None` when it is.
pub(super) fn ruby_variable_reason(
    o: &Occurrence,
    f: &Parsed,
    in_target_file: bool,
    args: &RenameArgs,
) -> Option<&'static str> {
    let top = in_target_file
        && !f.scopes.iter().any(|d| {
            matches!(d.kind, "method" | "class" | "module")
                && o.line >= d.start_line
                && o.line <= d.end_line
        });
    match o.kind {
        RefKind::String if !(args.strings && top) => Some("string"),
        RefKind::Comment if !(args.comments && top) => Some("comment"),
        RefKind::String | RefKind::Comment => None,
        _ if o.local => Some("local"),
        _ if o.member_of.is_some() => Some("member"),
        _ if top => None,
        _ => Some("shadowed"),
    }
}

/// The name an occurrence spells.
pub(super) fn o_name(f: &Parsed, o: &Occurrence) -> String {
    f.text.get(o.start..o.end).unwrap_or_default().to_string()
}
