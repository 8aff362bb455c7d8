//! Definitions and mentions of a name across the workspace: the scan `code defs`
//! and `code refs` share, and the lookup `read --symbol NAME` (no PATH) makes to
//! find the one file that defines NAME.

use crate::text::outline::{self, Definition};
use crate::text::sniff;
use crate::workspace::Ctx;
use crate::workspace::error::WorkspaceError;
use crate::workspace::scan::{self, Budget, Entry, Overlay, ScanOptions};
use crate::workspace::scan_args::scan_error;
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

/// A text file's contents; `None` for binary or unreadable files.
fn read_text(e: &Entry) -> Option<String> {
    let bytes = e.read().ok()?;
    if sniff::is_binary(&bytes) {
        return None;
    }
    Some(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// A path's last component.
pub fn base_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Files found by [`scan_mentions`], in path order, and where the budget cut the scan.
pub type Mentions<T> = (Vec<(PathBuf, T)>, Option<scan::Cut>);

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
    let walked = scan::walk(&ctx.root, starts, &opts, || {
        move |e: &Entry| {
            let base = base_name(e.path);
            if !wanted(&base) {
                return None;
            }
            let text = read_text(e)?;
            if !text.contains(needle) {
                return None;
            }
            visit(&base, &text)
        }
    })
    .map_err(|e| scan_error(command, &ctx.argv, &e))?;
    Ok((walked.items, walked.cut))
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
