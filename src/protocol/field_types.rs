//! The JSON type of every output field (`data/field-types.tsv`, compiled in):
//! `schema --full` and the MCP `outputSchema` read it, so a field declared with
//! `registry::field(name, description)` gets its type from one table row.

/// The table: `field<TAB>type[<TAB>command,command…]`, `#` comments.
const TABLE: &str = include_str!("../../data/field-types.tsv");

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub field: &'static str,
    /// JSON Schema type names joined by `|`, or `any`.
    pub ty: &'static str,
    /// The commands the row is for, comma-separated; empty: every other command.
    pub commands: &'static str,
}

/// Every row, in table order.
pub fn rows() -> impl Iterator<Item = Row> {
    index().rows.iter().copied()
}

/// The table split once per process, with its rows by field and by each parent
/// prefix (`error.`, `ops[].`): a full output schema asks for the type and the
/// children of thousands of paths, and a scan of the table for each made
/// `tools/list --tools all` take seconds.
struct Index {
    rows: Vec<Row>,
    by_field: std::collections::HashMap<&'static str, Vec<Row>>,
    by_parent: std::collections::HashMap<&'static str, Vec<Row>>,
}

fn index() -> &'static Index {
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        let rows: Vec<Row> = TABLE
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(row)
            .collect();
        let mut by_field: std::collections::HashMap<_, Vec<Row>> = Default::default();
        let mut by_parent: std::collections::HashMap<_, Vec<Row>> = Default::default();
        for r in &rows {
            by_field.entry(r.field).or_default().push(*r);
            for (i, _) in r.field.match_indices('.') {
                by_parent.entry(&r.field[..=i]).or_default().push(*r);
            }
        }
        Index {
            rows,
            by_field,
            by_parent,
        }
    })
}

fn row(line: &'static str) -> Row {
    let mut cols = line.split('\t');
    Row {
        field: cols.next().unwrap_or(""),
        ty: cols.next().unwrap_or(""),
        commands: cols.next().unwrap_or(""),
    }
}

/// The type of `field` in `command`'s answer (`string`, `integer|null`, `any`),
/// if the table has one: the row naming the command, else the field's general row.
pub fn type_of(command: &str, field: &str) -> Option<&'static str> {
    let mut general = None;
    let own = index()
        .by_field
        .get(field)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for r in own {
        if r.commands.is_empty() {
            general = general.or(Some(r.ty));
        } else if r.commands.split(',').any(|c| c == command) {
            return Some(r.ty);
        }
    }
    general
}

/// The members the table types for the elements of `command`'s array `array`
/// (rows `array[].member`): each member's row naming the command, else its
/// general row; in table order.
pub fn members(command: &str, array: &str) -> Vec<(&'static str, &'static str)> {
    children(command, &format!("{array}[]."))
}

/// The direct children the table types under `prefix` for `command`: an
/// object's members (`error.` → `code`, `repairs`; `*` types a map's values)
/// or an array element's (`matches[].` → `line`); each member's row naming the
/// command, else its general row; in table order. Deeper rows
/// (`ops[].paths[]`) are the children's own, and declare the child an array
/// (or, `x.y`, an object) when it has no row itself.
pub fn children(command: &str, prefix: &str) -> Vec<(&'static str, &'static str)> {
    // Each member with its type and whether its own row (not an element's) gave it.
    let mut out: Vec<(&'static str, &'static str, bool)> = Vec::new();
    // Every row under `prefix` (which ends in `.`) is listed under it.
    let under = index()
        .by_parent
        .get(prefix)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    for r in under {
        let Some(rest) = r.field.strip_prefix(prefix) else {
            continue;
        };
        // `name`, or `name[]…` (an element's row) or `name.…` (a member's).
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        let (member, deeper) = rest.split_at(end);
        let own = deeper.is_empty();
        if member.is_empty() {
            continue;
        }
        let mine = r.commands.split(',').any(|c| c == command);
        if !(mine || r.commands.is_empty()) {
            continue;
        }
        let ty = match deeper.as_bytes().first() {
            None => r.ty,
            Some(b'[') => "array",
            Some(_) => "object",
        };
        match out.iter_mut().find(|(m, _, _)| *m == member) {
            Some(known) if own && (mine || !known.2) => *known = (member, ty, true),
            Some(_) => {}
            None => out.push((member, ty, own)),
        }
    }
    out.into_iter().map(|(m, ty, _)| (m, ty)).collect()
}

/// The JSON Schema `type` keyword's value for a table type: a name, a list of
/// names for a union, none for `any`.
pub fn schema_type(ty: &str) -> Option<Vec<&str>> {
    (ty != "any").then(|| ty.split('|').collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_the_commands_rows_of_an_array() {
        let m = members("search", "matches");
        assert!(m.contains(&("line", "integer")), "{m:?}");
        assert!(members("read", "matches").is_empty());
        assert!(members("tx status", "items").contains(&("ops", "integer")));
        assert!(!members("history", "items").iter().any(|(n, _)| *n == "ops"));
    }

    #[test]
    fn every_row_is_well_formed() {
        const NAMES: &[&str] = &[
            "string", "integer", "number", "boolean", "array", "object", "null",
        ];
        let mut seen = std::collections::BTreeSet::new();
        for r in rows() {
            assert!(!r.field.is_empty(), "{r:?}");
            assert!(
                r.ty == "any" || r.ty.split('|').all(|t| NAMES.contains(&t)),
                "{r:?}: types are JSON Schema names joined by |, or any"
            );
            assert!(seen.insert((r.field, r.commands)), "{r:?} twice");
        }
    }

    #[test]
    fn children_are_an_objects_members_and_an_elements() {
        let error = children("read", "error.");
        assert!(error.contains(&("code", "string")), "{error:?}");
        assert!(error.contains(&("repairs", "array")), "{error:?}");
        assert!(!error.iter().any(|(m, _)| m.contains('.')), "{error:?}");
        // A member declared only by its element row is an array.
        let skipped = children("search", "skipped[].");
        assert!(skipped.contains(&("examples", "array")), "{skipped:?}");
        assert!(children("search", "no-such.").is_empty());
    }

    #[test]
    fn a_commands_row_wins_over_the_general_one() {
        assert_eq!(type_of("read", "hash"), Some("string|null"));
        assert_eq!(type_of("info", "hash"), Some("string"));
        assert_eq!(type_of("info", "no such field"), None);
        assert_eq!(schema_type("integer|null"), Some(vec!["integer", "null"]));
        assert_eq!(schema_type("any"), None);
    }
}
