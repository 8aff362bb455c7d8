//! The AOI data tables, compiled in: each aitools error code's category, retry
//! disposition and exit code in this mode (`data/aoi-categories.tsv`), which answer
//! lists become which domain events (`data/aoi-events.tsv`), and, from the
//! registry, which commands are destructive (`CommandSpec::effects`).

const CATEGORIES: &str = include_str!("../../data/aoi-categories.tsv");
const EVENTS: &str = include_str!("../../data/aoi-events.tsv");

/// The seed's closed category enum (section 9.2).
pub const CATEGORY_NAMES: &[&str] = &[
    "usage",
    "validation",
    "config",
    "authn",
    "authz",
    "not_found",
    "conflict",
    "precondition_failed",
    "unsupported",
    "rate_limited",
    "unavailable",
    "timeout",
    "cancelled",
    "io",
    "internal",
];

/// How one aitools code reads in the AOI stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Category {
    pub code: &'static str,
    pub category: &'static str,
    pub retryable: bool,
    pub retry_after_ms: Option<u64>,
    pub exit: u8,
}

fn rows(text: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
}

/// Every row of the category table, in file order (malformed rows are skipped
/// here and caught by a test).
pub fn categories() -> impl Iterator<Item = Category> {
    rows(CATEGORIES).filter_map(|c| {
        Some(Category {
            code: c.first()?,
            category: c.get(1)?,
            retryable: *c.get(2)? == "true",
            retry_after_ms: c.get(3)?.parse().ok(),
            exit: c.get(4)?.parse().ok()?,
        })
    })
}

/// The row of `code`; a code without one (a bug the table test catches) reads as
/// an internal error rather than failing the stream.
pub fn category(code: &str) -> Category {
    categories().find(|c| c.code == code).unwrap_or(Category {
        code: "internal.unexpected",
        category: "internal",
        retryable: false,
        retry_after_ms: None,
        exit: 70,
    })
}

/// One row of the events table.
#[derive(Debug, Clone, Copy)]
pub struct EventRow {
    pub command: &'static str,
    pub field: &'static str,
    pub event: &'static str,
    pub shape: &'static str,
}

pub fn event_rows() -> impl Iterator<Item = EventRow> {
    rows(EVENTS).filter_map(|c| {
        Some(EventRow {
            command: c.first()?,
            field: c.get(1)?,
            event: c.get(2)?,
            shape: c.get(3)?,
        })
    })
}

/// The rows that apply to a command: its own, and the `@writes` rows when its
/// declared nature is a write (`CommandSpec::writes_files`, what `capabilities`
/// and the MCP annotations read) and its answer declares the row's field.
pub fn events_of(spec: &crate::protocol::registry::CommandSpec) -> Vec<EventRow> {
    let write = spec.writes_files();
    let declares = |field: &str| spec.all_fields().any(|f| f.name == field);
    event_rows()
        .filter(|r| {
            r.command == spec.name || (write && r.command == "@writes" && declares(r.field))
        })
        .collect()
}

/// Whether a command is destructive: in this mode it runs only with `--confirm`
/// (or as a `--dry-run` plan).
/// Declared in the command's spec (`Effects::destructive`).
pub fn destructive(spec: &crate::protocol::registry::CommandSpec) -> bool {
    spec.effects.destructive
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_code_has_one_category_row() {
        let rows: Vec<Category> = categories().collect();
        let lines = CATEGORIES
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count();
        assert_eq!(
            rows.len(),
            lines,
            "a malformed row in data/aoi-categories.tsv"
        );
        for e in crate::protocol::catalog::entries() {
            let n = rows.iter().filter(|r| r.code == e.code).count();
            assert_eq!(
                n, 1,
                "{} needs exactly one row in data/aoi-categories.tsv",
                e.code
            );
        }
        for r in &rows {
            assert!(
                crate::protocol::catalog::exit_code(r.code).is_some(),
                "{} is not a code of data/errors.tsv",
                r.code
            );
            assert!(
                CATEGORY_NAMES.contains(&r.category),
                "{}: {}",
                r.code,
                r.category
            );
            assert!(r.retryable || r.retry_after_ms.is_none(), "{}", r.code);
            assert!(r.exit > 0, "{}", r.code);
        }
    }

    #[test]
    fn event_rows_name_commands() {
        for r in event_rows() {
            assert!(
                r.command == "@writes" || crate::registry::find(r.command).is_some(),
                "{}",
                r.command
            );
        }
    }
}
