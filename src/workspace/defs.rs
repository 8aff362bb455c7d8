//! Definitions and mentions of a name across the workspace: the scan `code defs`
//! and `code refs` share, and the lookup `read --symbol NAME` (no PATH) makes to
//! find the one file that defines NAME.

use crate::text::outline::{self, Definition};
use crate::text::sniff;
use crate::workspace::Ctx;
use crate::workspace::error::WorkspaceError;
use crate::workspace::scan::{self, Budget, Entry, Overlay, ScanOptions};
use crate::workspace::scan_args::scan_error;
use memchr::memmem::Finder;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The default start: the working directory, or the root when the working
/// directory is outside the workspace.
pub fn default_start(ctx: &Ctx) -> PathBuf {
    let cwd = scan::real_start(&ctx.cwd).unwrap_or_else(|_| ctx.cwd.clone());
    if cwd.starts_with(&ctx.root) {
        cwd
    } else {
        ctx.root.clone()
    }
}

/// A text file's contents; `Ok(None)` for a binary file, one that vanished
/// since the walk listed it, or one whose bytes lack `needle` (checked before
/// the UTF-8 decode: a needle without U+FFFD is in the lossy text only where
/// its bytes are in the file); `Err("unreadable")` for one that could not be
/// read (its mode): a caller must not take it for a file without the name.
fn read_text(e: &Entry, needle: Option<&Finder>) -> Result<Option<String>, &'static str> {
    let bytes = match e.read() {
        Ok(b) => b,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(_) => return Err("unreadable"),
    };
    if needle.is_some_and(|f| f.find(&bytes).is_none()) || sniff::is_binary(&bytes) {
        return Ok(None);
    }
    Ok(Some(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }))
}

/// A path's last component.
pub fn base_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What [`scan_mentions`] found.
pub struct Mentions<T> {
    /// The files with a mention, in path order.
    pub items: Vec<(PathBuf, T)>,
    /// Where the budget cut the scan.
    pub cut: Option<scan::Cut>,
    /// The files passed over unread, with the reason (`unreadable`, `too-large`, ...).
    pub left: Vec<(PathBuf, &'static str)>,
}

/// The scan of [`scan_mentions`] and [`find`]: within `budget`, seeing `overlay`
/// (a tx's changes, from the store's view) over the disk.
pub fn seeing(overlay: Option<Arc<Overlay>>, budget: Budget) -> ScanOptions {
    ScanOptions {
        overlay,
        budget,
        ..ScanOptions::default()
    }
}

/// Every file under `starts` whose base name passes `wanted` and whose text
/// contains `needle`, handed to `visit` as (base name, text); results in path
/// order. `opts` from [`seeing`].
pub fn scan_mentions<T: Send>(
    ctx: &Ctx,
    command: &str,
    needle: &str,
    starts: &[PathBuf],
    opts: ScanOptions,
    wanted: fn(&str) -> bool,
    visit: impl Fn(&str, &str) -> Option<T> + Sync,
) -> Result<Mentions<T>, Box<WorkspaceError>> {
    let visit = &visit;
    // The bytes are searched first (memchr's finder, far quicker than decoding
    // every file); a needle holding U+FFFD could match a replaced byte, so it
    // is searched in the decoded text alone.
    let finder = (!needle.contains('\u{FFFD}')).then(|| Finder::new(needle.as_bytes()));
    let finder = finder.as_ref();
    let walked = scan::walk(&ctx.root, starts, &opts, || {
        move |e: &Entry| {
            let base = base_name(e.path);
            if !wanted(&base) {
                return None;
            }
            let text = match read_text(e, finder) {
                Ok(t) => t?,
                Err(why) => return Some(Err(why)),
            };
            if !text.contains(needle) {
                return None;
            }
            visit(&base, &text).map(Ok)
        }
    })
    .map_err(|e| scan_error(command, &ctx.argv, &e))?;
    // The walk's own passes (too-large, ...) count only for files `wanted` names;
    // a directory it could not list (unreadable) may hold any file.
    let own = walked
        .skipped
        .into_iter()
        .filter(|(p, why)| *why == scan::SkipReason::Unreadable || wanted(&base_name(p)));
    let (items, left) = scan::skipped::kept_and_left(walked.items, own.collect());
    Ok(Mentions {
        items,
        cut: walked.cut,
        left,
    })
}

/// The definitions of `name` (or `Container.name`) under `starts`, per file.
pub fn find(
    ctx: &Ctx,
    command: &str,
    name: &str,
    kind: Option<&str>,
    prefix: bool,
    starts: &[PathBuf],
    opts: ScanOptions,
) -> Result<Mentions<Vec<Definition>>, Box<WorkspaceError>> {
    let parts = outline::qualified_parts(name);
    let needle = parts.last().copied().unwrap_or(name);
    scan_mentions(
        ctx,
        command,
        needle,
        starts,
        opts,
        |base| outline::language_of(base).is_some(),
        |base, text| {
            let all = outline::outline_parsed(base, text).ok()?;
            let defs: Vec<Definition> = outline::pick(&all, name, kind, prefix);
            (!defs.is_empty()).then_some(defs)
        },
    )
}
