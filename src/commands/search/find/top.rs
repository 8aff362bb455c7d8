//! `find`'s bounded list: the first --limit entries in the --sort order and
//! their count, kept while the walk goes (the walk itself keeps none).

use super::{Listed, Raw, SortArg};
use std::path::{Path, PathBuf};

/// The --sort key: newest or largest first (by `Reverse`); ties in path order.
type SortKey = std::cmp::Reverse<(Option<(i64, u32)>, Option<u64>)>;

/// An entry's --sort key (the one ordering of `Top` and `sort`).
fn key(by: SortArg, raw: &Raw, size: Option<u64>) -> SortKey {
    std::cmp::Reverse(match by {
        SortArg::Path => (None, None),
        SortArg::Mtime => (Some(raw.mtime), None),
        SortArg::Size => (None, size),
    })
}

/// A flat list in the --sort order (path order is the walk's).
pub(super) fn sort(matched: &mut [Listed], by: SortArg) {
    if by != SortArg::Path {
        matched.sort_by(|a, b| (key(by, a.1, a.2), a.0).cmp(&(key(by, b.1, b.2), b.0)));
    }
}

/// An entry a [`Top`] keeps.
struct Ranked {
    key: SortKey,
    path: PathBuf,
    raw: Raw,
    size: Option<u64>,
}

impl Ranked {
    fn rank(&self) -> (&SortKey, &Path) {
        (&self.key, self.path.as_path())
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.rank() == other.rank()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

/// The `limit` entries first in the --sort order (a max-heap: the last of
/// them on top, pushed out by anything before it), and how many were offered.
pub(super) struct Top {
    heap: std::collections::BinaryHeap<Ranked>,
    sort: SortArg,
    limit: usize,
    pub(super) total: u64,
}

impl Top {
    pub(super) fn new(sort: SortArg, limit: usize) -> Top {
        Top {
            heap: std::collections::BinaryHeap::new(),
            sort,
            limit,
            total: 0,
        }
    }

    pub(super) fn offer(&mut self, path: &Path, raw: Raw, size: Option<u64>) {
        self.total += 1;
        let key = key(self.sort, &raw, size);
        if self.heap.len() >= self.limit {
            match self.heap.peek() {
                Some(last) if (&key, path) < last.rank() => {}
                _ => return,
            }
        }
        self.heap.push(Ranked {
            key,
            path: path.to_path_buf(),
            raw,
            size,
        });
        if self.heap.len() > self.limit {
            self.heap.pop();
        }
    }

    /// The kept entries in the --sort order.
    pub(super) fn listed(&self) -> Vec<Listed<'_>> {
        let mut v: Vec<&Ranked> = self.heap.iter().collect();
        v.sort();
        v.into_iter().map(|r| (&r.path, &r.raw, r.size)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::sort as full_sort;
    use super::*;
    use crate::workspace::scan::Kind;

    fn raw(size: u64, mtime: i64) -> Raw {
        Raw {
            kind: Kind::File,
            size,
            mode: 0,
            mtime: (mtime, 0),
            stated: true,
        }
    }

    /// The kept entries are those a full sort puts first, whatever the order offered.
    #[test]
    fn top_keeps_what_a_full_sort_puts_first() {
        let names = ["b/x", "a", "c", "a/b", "b", "a.b", "a/c", "d"];
        for sort in [SortArg::Path, SortArg::Size, SortArg::Mtime] {
            for limit in 0..=names.len() + 1 {
                let mut top = Top::new(sort, limit);
                let owned: Vec<(PathBuf, Raw)> = names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| (PathBuf::from(n), raw((i % 3) as u64, (i % 2) as i64)))
                    .collect();
                let mut all: Vec<Listed> =
                    owned.iter().map(|(p, r)| (p, r, Some(r.size))).collect();
                all.sort_by(|a, b| a.0.cmp(b.0));
                full_sort(&mut all, sort);
                for (p, r) in &owned {
                    top.offer(p, raw(r.size, r.mtime.0), Some(r.size));
                }
                let want: Vec<&PathBuf> = all.iter().take(limit).map(|l| l.0).collect();
                let got: Vec<&PathBuf> = top.listed().iter().map(|l| l.0).collect();
                assert_eq!(got, want, "{sort:?} --limit {limit}");
                assert_eq!(top.total, names.len() as u64);
            }
        }
    }
}
