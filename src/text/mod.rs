//! The text core: how bytes become lines (BOM, CR LF, long lines), whether bytes are
//! binary, how other encodings decode, and token estimates.

pub mod anchor;
pub mod depth;
pub mod diff;
pub mod doc;
pub mod json_doc;
pub mod json_string;
pub mod lang;
pub mod lines;
pub mod notebook;
pub mod outline;
pub mod select;
pub mod sniff;

/// The longest line returned whole; longer lines are cut here and listed in `cut_lines`.
pub const MAX_LINE_BYTES: usize = 16384;

/// How much of one line a streaming `--match`/`--between` holds to match against:
/// the display is cut at `MAX_LINE_BYTES`, the pattern sees this much.
pub const MAX_MATCHED_LINE_BYTES: usize = 64 * 1024 * 1024;

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";
pub mod decode;
pub mod invisible;
pub mod stats;
pub mod strings;
pub mod syntax;
pub mod toml_model;
