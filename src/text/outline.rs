//! Definitions in source files, found with the language table: what `code outline`
//! lists and what `read --symbol` / `edit --symbol` select.
//!
//! SKELETON: the signatures are the contract; the language table and the scanner
//! land with the navigation work.

/// One definition: its name, kind (function, struct, class, heading, ...) and lines.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Definition {
    pub name: String,
    pub kind: String,
    pub start_line: u64,
    pub end_line: u64,
}

/// Why a file has no outline.
#[derive(Debug, Clone)]
pub enum OutlineError {
    /// No language of the table covers this file name.
    UnsupportedLanguage(String),
}

/// The definitions of `text`, the file being named `file_name` (for its language).
pub fn outline(file_name: &str, text: &str) -> Result<Vec<Definition>, OutlineError> {
    let _ = text;
    Err(OutlineError::UnsupportedLanguage(file_name.to_string()))
}

/// The definitions named `symbol` (optionally of `kind`).
pub fn find_symbol(
    file_name: &str,
    text: &str,
    symbol: &str,
    kind: Option<&str>,
) -> Result<Vec<Definition>, OutlineError> {
    Ok(outline(file_name, text)?
        .into_iter()
        .filter(|d| d.name == symbol && kind.is_none_or(|k| d.kind == k))
        .collect())
}
