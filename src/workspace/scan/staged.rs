//! What the scan does beyond the disk walk: asking whether a path is ignored,
//! and visiting a tx's staged files under the same rules (`Ignorer` evaluates
//! `.gitignore` from the tx's view when the tx changes one).

#[allow(unused_imports)]
use super::*;

/// Whether the scan's rules leave `path` (an existing path below `root`) out: it,
/// or a directory above it, is not listed when its parent is walked. Each
/// ancestor's listing is asked, so the answer is the scan's own, rule for rule.
pub fn is_ignored(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let opts = ScanOptions {
        include_dirs: true,
        max_depth: Some(1),
        threads: 1,
        ..ScanOptions::default()
    };
    let mut dir = root.to_path_buf();
    let mut names = rel.components().peekable();
    while let Some(name) = names.next() {
        let next = dir.join(name);
        if !fsx_exists(&next) {
            // Not on disk (a path a tx creates): no walk lists it, so its
            // `.gitignore` rules decide, as they will once it exists.
            let rules = Ignorer::new(root, None);
            let mut p = next;
            loop {
                let last = names.peek().is_none();
                if rules.ignored_one(&p, !last) {
                    return true;
                }
                match names.next() {
                    Some(n) => p = p.join(n),
                    None => return false,
                }
            }
        }
        let listed = walk(root, std::slice::from_ref(&dir), &opts, || {
            |e: &Entry| (e.depth == 1).then_some(())
        });
        match listed {
            Ok(w) if w.items.iter().any(|(p, ())| *p == next) => {}
            Ok(_) => return true,
            Err(_) => return false,
        }
        dir = next;
    }
    false
}

pub(super) fn fsx_exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

/// Visits the overlay's files (and, with `include_dirs`, its new directories and
/// symlinks) below the starts, through the same filters as the disk walk.
#[allow(clippy::too_many_arguments)]
pub(super) fn visit_staged<T, B, V>(
    o: &Overlay,
    starts: &[PathBuf],
    opts: &ScanOptions,
    filters: &Filters,
    ignorer: &Ignorer,
    use_git: bool,
    make_visitor: &B,
    acc: &mut Acc<T>,
) where
    B: Fn() -> V,
    V: FnMut(&Entry) -> Option<T>,
{
    let mut visit = make_visitor();
    for (p, node) in &o.nodes {
        let kind = match node {
            OverlayNode::Missing => continue,
            OverlayNode::File { .. } => Kind::File,
            OverlayNode::Symlink => Kind::Symlink,
            OverlayNode::Dir => {
                if fsx_exists(p) {
                    continue;
                }
                Kind::Dir
            }
        };
        // Under a removed ancestor, or replaced by a later node: not there.
        if p.ancestors()
            .skip(1)
            .any(|a| matches!(o.nodes.get(a), Some(n) if !matches!(n, OverlayNode::Dir)))
        {
            continue;
        }
        let Some(start) = starts.iter().find(|s| p.starts_with(s)) else {
            continue;
        };
        let depth = p
            .strip_prefix(start)
            .map(|r| r.components().count())
            .unwrap_or(0);
        if depth == 0 && kind == Kind::Dir {
            continue;
        }
        if opts.max_depth.is_some_and(|m| depth > m) {
            continue;
        }
        // Pruning rules on every level below the start, as the walk applies them.
        let mut pruned = false;
        for a in p.ancestors() {
            if a == start.as_path() || !a.starts_with(start) {
                break;
            }
            let is_dir = a != p.as_path() || kind == Kind::Dir;
            if filters.prune_path(a, is_dir)
                || (use_git && ignorer.ignored_one(a, is_dir) && a != start.as_path())
            {
                pruned = true;
                break;
            }
        }
        if pruned && p != start {
            continue;
        }
        let len = match node {
            OverlayNode::File { bytes, .. } => bytes.len() as u64,
            _ => 0,
        };
        match filters.admits(p, kind, len) {
            None => continue,
            Some(false) => {
                acc.skipped.push((p.clone(), SkipReason::TooLarge));
                continue;
            }
            Some(true) => {}
        }
        let entry = Entry {
            path: p,
            kind,
            depth,
            meta: None,
            dent: None,
            staged: Some(node),
        };
        if let Some(t) = visit(&entry) {
            acc.items.push((p.clone(), t));
        }
    }
}

/// `.gitignore` rules evaluated from the tx's view of every `.gitignore` (the
/// staged one where the tx has one, else the disk's), deepest directory first.
pub(super) struct Ignorer {
    top: PathBuf,
    overlay: Option<Arc<Overlay>>,
    cache: Mutex<HashMap<PathBuf, Arc<ignore::gitignore::Gitignore>>>,
}

impl Ignorer {
    pub(super) fn new(root: &Path, overlay: Option<Arc<Overlay>>) -> Ignorer {
        // Only a scan with a tx's overlay evaluates ignore rules itself.
        let top = match overlay {
            Some(_) => crate::workspace::git::work_tree(root).unwrap_or_else(|| root.to_path_buf()),
            None => root.to_path_buf(),
        };
        Ignorer {
            top,
            overlay,
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn matcher(&self, dir: &Path) -> Arc<ignore::gitignore::Gitignore> {
        if let Some(m) = self.cache.lock().ok().and_then(|c| c.get(dir).cloned()) {
            return m;
        }
        let file = dir.join(".gitignore");
        let text: Option<Vec<u8>> = match self.overlay.as_ref().and_then(|o| o.node(&file)) {
            Some(OverlayNode::File { bytes, .. }) => Some(bytes.to_vec()),
            Some(_) => None,
            None => std::fs::read(&file).ok(),
        };
        let mut b = ignore::gitignore::GitignoreBuilder::new(dir);
        if let Some(t) = text {
            for line in String::from_utf8_lossy(&t).lines() {
                let _ = b.add_line(None, line);
            }
        }
        let m = Arc::new(
            b.build()
                .unwrap_or_else(|_| ignore::gitignore::Gitignore::empty()),
        );
        if let Ok(mut c) = self.cache.lock() {
            c.insert(dir.to_path_buf(), m.clone());
        }
        m
    }

    /// Whether `.gitignore` rules ignore `p` itself (its ancestors not considered).
    pub(super) fn ignored_one(&self, p: &Path, is_dir: bool) -> bool {
        for dir in p.ancestors().skip(1) {
            if !dir.starts_with(&self.top) {
                break;
            }
            let m = self.matcher(dir);
            match m.matched(p, is_dir) {
                ignore::Match::Ignore(_) => return true,
                ignore::Match::Whitelist(_) => return false,
                ignore::Match::None => {}
            }
        }
        false
    }
}
