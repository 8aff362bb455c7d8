//! The `skipped` answer of a scan: the paths it passed over, grouped by reason,
//! each group counted with its first few paths (search, find, snapshot create,
//! archive create say what they left out the same way).

use std::path::{Path, PathBuf};

/// The paths a scan passed over for one reason: how many, and the first few.
#[derive(serde::Serialize, Debug, PartialEq)]
pub struct Skipped {
    pub reason: &'static str,
    pub count: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
}

/// Example paths shown per reason: 150 skipped images cost one line, not 150.
const SKIPPED_EXAMPLES: usize = 3;

/// The `skipped` groups, one per reason (sorted by reason), each with its first
/// paths in path order.
pub fn skipped_list(root: &Path, mut skipped: Vec<(PathBuf, &'static str)>) -> Vec<Skipped> {
    skipped.sort();
    let mut groups: Vec<Skipped> = Vec::new();
    let mut order: Vec<&'static str> = skipped.iter().map(|(_, r)| *r).collect();
    order.sort_unstable();
    order.dedup();
    for reason in order {
        let mut g = Skipped {
            reason,
            count: 0,
            examples: Vec::new(),
        };
        for (p, _) in skipped.iter().filter(|(_, r)| *r == reason) {
            g.count += 1;
            if g.examples.len() < SKIPPED_EXAMPLES {
                g.examples.push(show(root, p));
            }
        }
        groups.push(g);
    }
    groups
}

/// How a scanned path is shown: root-relative inside the workspace, else absolute.
pub fn show(root: &Path, path: &Path) -> String {
    // strip_root hands back `path` itself when it is not below `root`.
    let rel = super::strip_root(path, root);
    if rel.as_os_str().is_empty() {
        ".".to_string()
    } else {
        rel.to_string_lossy().into_owned()
    }
}

/// A walk's items whose visitor answered `Err(reason)` for a path it passed over,
/// split into what was kept and every path left out (the walk's own skips and
/// the visitor's) with its reason, ready for `skipped_list`.
pub fn kept_and_left<T>(
    items: Vec<(PathBuf, Result<T, &'static str>)>,
    skipped: Vec<(PathBuf, super::SkipReason)>,
) -> (Vec<(PathBuf, T)>, Vec<(PathBuf, &'static str)>) {
    let mut left: Vec<(PathBuf, &'static str)> =
        skipped.into_iter().map(|(p, r)| (p, r.name())).collect();
    let mut kept = Vec::with_capacity(items.len());
    for (p, got) in items {
        match got {
            Ok(t) => kept.push((p, t)),
            Err(reason) => left.push((p, reason)),
        }
    }
    (kept, left)
}
