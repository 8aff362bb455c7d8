//! The error catalog: every error code and its exit code, read from `data/errors.tsv`.
//!
//! A command never picks an exit code; it names a code and the catalog decides.

const CATALOG: &str = include_str!("../../data/errors.tsv");

/// One row of the catalog.
pub struct CatalogEntry {
    pub code: &'static str,
    pub exit_code: i32,
    pub meaning: &'static str,
}

/// Every row, in file order. Malformed rows are skipped here and caught by a test.
pub fn entries() -> impl Iterator<Item = CatalogEntry> {
    CATALOG
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|line| {
            let mut cols = line.split('\t');
            let code = cols.next()?;
            let exit_code = cols.next()?.parse().ok()?;
            let meaning = cols.next().unwrap_or("");
            Some(CatalogEntry {
                code,
                exit_code,
                meaning,
            })
        })
}

/// The exit code of a catalog code, or `None` when the code is not in the catalog.
pub fn exit_code(code: &str) -> Option<i32> {
    entries().find(|e| e.code == code).map(|e| e.exit_code)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn every_row_parses_and_exit_codes_follow_the_spec() {
        let rows = CATALOG
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count();
        assert_eq!(rows, entries().count(), "a catalog row does not parse");
        for e in entries() {
            let expected = match e.code {
                "selection.no-match"
                | "selection.ambiguous"
                | "selection.count-mismatch"
                | "refusal.target-changed" => 2,
                _ => 1,
            };
            assert_eq!(e.exit_code, expected, "{}", e.code);
            assert!(e.code.contains('.'), "{}", e.code);
        }
    }
}
