//! What a walk starts from: the starts it walks on disk, and git's excludes
//! file for its ignore rules.

use super::{Overlay, OverlayNode, fsx_exists};
use std::path::{Path, PathBuf};

/// The starts walked on disk, and apart from them the kernel file systems'
/// (reported as `special`) when in reach. Starts the tx removed, replaced or
/// created are not walked on disk.
pub(super) fn disk_starts(
    starts: &[PathBuf],
    overlay: Option<&Overlay>,
    guard_pseudo: bool,
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut special: Vec<PathBuf> = Vec::new();
    let disk = starts
        .iter()
        .filter(|s| match overlay.and_then(|o| o.node(s)) {
            None | Some(OverlayNode::Dir) => fsx_exists(s),
            Some(_) => false,
        })
        .filter(|s| {
            let pseudo = guard_pseudo && crate::workspace::input::pseudo_fs(s).is_some();
            if pseudo {
                special.push(s.to_path_buf());
            }
            !pseudo
        })
        .cloned()
        .collect();
    (disk, special)
}

/// The git work tree around `root` and its excludes file; the walker `b` then
/// matches from the work tree's top.
///
/// Git reads core.excludesFile from the repository's config before the user's
/// (and honours GIT_CONFIG_GLOBAL), and matches it from the top of the work
/// tree; the ignore crate only reads the user's and matches from the process cwd.
/// The user's excludes file is found here too rather than by the ignore
/// crate (it compiles a regex and reads four config files before the walk's
/// first entry). Its rules then apply as explicit ones, which the crate also
/// applies outside a work tree: so only when every start is inside it.
pub(super) fn git_excludes(
    b: &mut ignore::WalkBuilder,
    root: &Path,
    manual: bool,
    disk_starts: &[PathBuf],
) -> (Option<PathBuf>, Option<crate::workspace::git::ExcludesFile>) {
    let work_tree = crate::workspace::git::work_tree(root);
    let excludes = work_tree.as_ref().map(|wt| {
        b.current_dir(wt);
        match crate::workspace::git::excludes_file(wt) {
            crate::workspace::git::ExcludesFile::UserConfig
                if !manual && disk_starts.iter().all(|s| s.starts_with(wt)) =>
            {
                crate::workspace::git::ExcludesFile::Path(
                    crate::workspace::git::user_excludes_file(wt),
                )
            }
            e => e,
        }
    });
    (work_tree, excludes)
}
