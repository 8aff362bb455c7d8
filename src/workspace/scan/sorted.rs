//! The parallel walk ([`walk`]: ignore's parallel walker on the scan's thread
//! count, with the plan's filters, ignore rules, budget and tx overlay) whose
//! workers each sort what they kept by [`path_order`] on their own thread as
//! they end; the calling thread then merges the sorted runs in one linear pass.
//! Sorting every result on the calling thread after the walk was a quarter of
//! `overview`'s main-thread time on a 16k-file tree, paid while the other cores
//! idled.

use super::*;
use std::cmp::Ordering;

/// One worker's results, sorted on the worker's thread when the walker drops
/// it, then handed over as a run (`Local`'s own drop then hands over nothing).
struct SortedLocal<'s, T, V> {
    local: Local<'s, T, V>,
    runs: &'s Mutex<Vec<Acc<T>>>,
}

impl<T, V> Drop for SortedLocal<'_, T, V> {
    fn drop(&mut self) {
        let mut run = Acc {
            items: std::mem::take(&mut self.local.acc.items),
            skipped: std::mem::take(&mut self.local.acc.skipped),
        };
        sort_dedup(&mut run.items);
        sort_dedup(&mut run.skipped);
        match self.runs.lock() {
            Ok(mut runs) => runs.push(run),
            Err(poisoned) => poisoned.into_inner().push(run),
        }
    }
}

/// Sorts by path and keeps the first of equal paths.
pub(super) fn sort_dedup<X>(v: &mut Vec<(PathBuf, X)>) {
    v.sort_by(|a, b| path_order(&a.0, &b.0));
    v.dedup_by(|a, b| path_order(&a.0, &b.0).is_eq());
}

/// See [`super::walk`]'s doc: items and skipped paths in path order, each path
/// once.
pub fn walk<T, B, V>(
    root: &Path,
    starts: &[PathBuf],
    opts: &ScanOptions,
    make_visitor: B,
) -> Result<Walked<T>, ScanError>
where
    T: Send,
    B: Fn() -> V + Sync,
    V: FnMut(&Entry) -> Option<T> + Send,
{
    let mut plan = Plan::new(root, starts, opts)?;
    let shared = Mutex::new(Acc::empty());
    let runs: Mutex<Vec<Acc<T>>> = Mutex::new(Vec::new());
    if let Some(b) = plan.builder.take() {
        let filters_ref = &*plan.filters;
        let shared_ref = &shared;
        let runs_ref = &runs;
        let make_ref = &make_visitor;
        let meter_ref = &plan.meter;
        b.build_parallel().run(|| {
            let mut sorted = SortedLocal {
                local: Local::new(make_ref(), filters_ref, meter_ref, shared_ref),
                runs: runs_ref,
            };
            Box::new(move |res| sorted.local.handle(res.map(Dent::Walk)))
        });
    }
    let mut runs = runs.into_inner().unwrap_or_else(|p| p.into_inner());
    // Nothing reaches `shared` (each run took its worker's results), but
    // whatever does is merged as one more run.
    let mut rest = shared.into_inner().unwrap_or_else(|p| p.into_inner());
    if !rest.items.is_empty() || !rest.skipped.is_empty() {
        sort_dedup(&mut rest.items);
        sort_dedup(&mut rest.skipped);
        runs.push(rest);
    }
    let items = merge_runs(
        runs.iter_mut()
            .map(|r| std::mem::take(&mut r.items))
            .collect(),
    );
    let mut skipped = merge_runs(runs.into_iter().map(|r| r.skipped).collect());
    if plan.overlay.is_some() {
        // A tx's staged files join in `Plan::finish` (which sorts again).
        return Ok(plan.finish(Acc { items, skipped }, starts, opts, &make_visitor));
    }
    // What `Plan::finish` does without a tx, but the merged items are in path
    // order and each path once already: only the special paths (rare) are
    // sorted in.
    let special = plan.special.lock().map(|v| v.clone()).unwrap_or_default();
    if !special.is_empty() {
        skipped.extend(special.into_iter().map(|p| (p, SkipReason::Special)));
        sort_dedup(&mut skipped);
    }
    Ok(Walked {
        items,
        skipped,
        ignore_source: plan.source,
        cut: plan.meter.cut(),
    })
}

/// The worker threads a scan with `opts` runs on, for work beside a walk
/// that should spread the same way (overview's samples).
pub fn threads(opts: &ScanOptions) -> usize {
    thread_count(opts)
}

/// Sorted runs, each path once in each, merged into one sorted vector with
/// each path once (the first run's), pairwise: log2(runs) linear passes.
fn merge_runs<X>(mut runs: Vec<Vec<(PathBuf, X)>>) -> Vec<(PathBuf, X)> {
    runs.retain(|r| !r.is_empty());
    while runs.len() > 1 {
        let mut next = Vec::with_capacity(runs.len().div_ceil(2));
        let mut it = runs.into_iter();
        while let Some(a) = it.next() {
            match it.next() {
                Some(b) => next.push(merge_two(a, b)),
                None => next.push(a),
            }
        }
        runs = next;
    }
    runs.pop().unwrap_or_default()
}

fn merge_two<X>(a: Vec<(PathBuf, X)>, b: Vec<(PathBuf, X)>) -> Vec<(PathBuf, X)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut a = a.into_iter().peekable();
    let mut b = b.into_iter().peekable();
    loop {
        let order = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => path_order(&x.0, &y.0),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        if order.is_eq() {
            // The same path in both runs: the first run's stays.
            b.next();
        }
        let next = if order.is_le() { a.next() } else { b.next() };
        if let Some(item) = next {
            out.push(item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(paths: &[&str]) -> Vec<(PathBuf, usize)> {
        let mut v: Vec<(PathBuf, usize)> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| (PathBuf::from(p), i))
            .collect();
        sort_dedup(&mut v);
        v
    }

    #[test]
    fn merged_runs_are_one_sort() {
        let all = [
            "/r/a", "/r/a-b", "/r/a/b", "/r/a.b", "/r/b", "/r/a/b/c", "/r/ab", "/r/a/c", "/r/z",
            "/r/a b", "/r/é", "/r/a/b-c",
        ];
        for k in 1..=5 {
            // Deal the paths round-robin into k runs (each also holding
            // `/r/a/b`, one twice), sort each, merge: each path once.
            let mut runs = vec![vec!["/r/a/b"]; k];
            for (i, p) in all.iter().enumerate() {
                runs[i % k].push(*p);
            }
            let merged = merge_runs(runs.iter().map(|r| run(r)).collect());
            let got: Vec<&Path> = merged.iter().map(|(p, _)| p.as_path()).collect();
            let mut want: Vec<&Path> = all.iter().map(Path::new).collect();
            want.sort();
            assert_eq!(got, want, "{k} runs");
        }
        assert!(merge_runs::<()>(Vec::new()).is_empty());
    }

    /// On any thread count the walk gives every entry once, in the order one
    /// sort by `path_order` gives (the workers' runs merged).
    #[test]
    fn the_walk_is_one_sort_on_any_thread_count() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().to_path_buf();
        for d in ["a/b", "a-b", "a.b/c", "z"] {
            std::fs::create_dir_all(dir.join(d)).expect("mkdir");
        }
        for f in [
            "a/b/x", "a/y", "a-b/x", "a.b/c/x", "ab", "z/1", "z/10", "z/2", "a b",
        ] {
            std::fs::write(dir.join(f), f).expect("write");
        }
        let mut want: Vec<PathBuf> = [
            "", "a", "a/b", "a/b/x", "a/y", "a-b", "a-b/x", "a.b", "a.b/c", "a.b/c/x", "ab", "z",
            "z/1", "z/10", "z/2", "a b",
        ]
        .iter()
        .map(|p| dir.join(p))
        .collect();
        want.sort_by(|a, b| path_order(a, b));
        for threads in [1, 2, 3] {
            let opts = ScanOptions {
                include_dirs: true,
                threads,
                ..ScanOptions::default()
            };
            let got = walk(&dir, std::slice::from_ref(&dir), &opts, || {
                |e: &Entry| Some(e.kind)
            })
            .map_err(|e| e.message())
            .expect("walk");
            let paths: Vec<PathBuf> = got.items.into_iter().map(|(p, _)| p).collect();
            // The root itself may or may not be an item; every other path is.
            let want_here: Vec<PathBuf> = want
                .iter()
                .filter(|p| *p != &dir || paths.first() == Some(&dir))
                .cloned()
                .collect();
            assert_eq!(paths, want_here, "{threads} threads");
            assert!(got.skipped.is_empty());
        }
    }
}
