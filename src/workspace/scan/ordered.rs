//! The ordered streaming walk: the calling thread lists and visits the first
//! files itself (the first event waits for no other thread); then one thread
//! lists the rest of the starts in path order and hands each admitted entry to
//! the workers the moment it is found; the caller receives each result in path
//! order as soon as every earlier entry is done. The results arrive while the
//! listing and the other workers are still going, and the caller's work on them
//! (a search's listing pass) overlaps the scan.

use super::*;
use std::cell::{Cell, RefCell};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Files whose results go to the caller one by one (the first events).
const EARLY: usize = 64;

/// The calling thread visits the first files itself, before any other thread
/// starts, until the caller has shown something (`on_item` returned true), or
/// this many files, or this much time: the first event then waits for no thread
/// hand-off (on a busy machine each costs a wait for a core).
const INLINE_FILES: usize = 64;
const INLINE_TIME: Duration = Duration::from_millis(10);

/// The size of the batch that holds the `n`th entry (1-based): 1 up to the
/// first few, then doubling up to 64.
fn batch_size(n: usize) -> usize {
    if n <= 8 {
        1
    } else {
        (n / 8).next_power_of_two().min(64)
    }
}

/// The listing in path order: the ignore crate's walker or our own lister.
type Listing = Box<dyn Iterator<Item = Result<Dent, ignore::Error>> + Send>;

/// One admitted entry, on its way from the lister to a worker.
struct Job {
    idx: usize,
    dent: Dent,
    kind: Kind,
    depth: usize,
    meta: Option<Metadata>,
}

/// [`walk`], with each kept result handed to `on_item` on the calling thread, in
/// path order, as soon as it and every entry before it are visited; `on_item`
/// returns whether the caller has shown something (the first files are visited
/// on the calling thread until it has: see [`INLINE_FILES`]). The returned
/// `Walked` has no items (they went to `on_item`); its skipped paths, ignore
/// source and cut are those `walk` reports. Under a tx (an overlay) or with nested
/// starts the walk runs first and its results are handed over after it.
pub fn walk_ordered<T, B, V, F>(
    root: &Path,
    starts: &[PathBuf],
    opts: &ScanOptions,
    make_visitor: B,
    mut on_item: F,
) -> Result<Walked<T>, ScanError>
where
    T: Send,
    B: Fn() -> V + Sync,
    V: FnMut(&Entry) -> Option<T> + Send,
    F: FnMut(&Path, T) -> bool,
{
    let mut sorted = starts.to_vec();
    sorted.sort();
    sorted.dedup();
    let nested = sorted.windows(2).any(|w| w[1].starts_with(&w[0]));
    if opts.overlay.is_some() || nested {
        let mut walked = walk(root, starts, opts, make_visitor)?;
        for (p, t) in std::mem::take(&mut walked.items) {
            let _ = on_item(&p, t);
        }
        return Ok(walked);
    }
    let mut plan = Plan::new(root, &sorted, opts)?;
    let shared = Mutex::new(Acc::empty());
    if let Some(mut b) = plan.builder.take() {
        let mut listing: Listing = match plan.own_lister.take().and_then(|o| o.ready()) {
            Some((starts, explicit)) => Box::new(
                super::lister::Lister::new(&starts, explicit, plan.filters.clone())
                    .map(|r| r.map(Dent::Listed)),
            ),
            None => {
                // Sorting each directory by name makes the depth-first listing
                // path order.
                b.sort_by_file_name(|x, y| x.cmp(y));
                Box::new(b.build().map(|r| r.map(Dent::Walk)))
            }
        };
        let filters = &*plan.filters;
        let meter = &plan.meter;
        // The first files, visited here (no thread is started for them).
        let started = Instant::now();
        let inline = Cell::new(0usize);
        let shown = Cell::new(false);
        let mut more = true;
        {
            let mut visit = make_visitor();
            let on_item = &mut on_item;
            let mut local = Local::new(
                |e: &Entry| -> Option<()> {
                    inline.set(inline.get() + 1);
                    if let Some(t) = visit(e)
                        && on_item(e.path, t)
                    {
                        shown.set(true);
                    }
                    None
                },
                filters,
                meter,
                &shared,
            );
            while !shown.get() && inline.get() < INLINE_FILES && started.elapsed() < INLINE_TIME {
                match listing.next() {
                    None => more = false,
                    Some(res) => more = !matches!(local.handle(res), ignore::WalkState::Quit),
                }
                if !more {
                    break;
                }
            }
        }
        let first = inline.get();
        if more {
            ordered_rest(
                listing,
                first,
                &plan,
                &shared,
                opts,
                &make_visitor,
                &mut on_item,
            );
        }
    }
    let listed = match shared.into_inner() {
        Ok(a) => a,
        Err(poisoned) => poisoned.into_inner(),
    };
    let acc = Acc {
        items: Vec::new(),
        skipped: listed.skipped,
    };
    Ok(plan.finish(acc, &sorted, opts, &make_visitor))
}

/// The rest of the ordered walk, past the `first` files visited inline: one
/// thread lists, the workers visit, and the calling thread takes the results in
/// path order.
fn ordered_rest<T, B, V, F>(
    listing: Listing,
    first: usize,
    plan: &Plan,
    shared: &Mutex<Acc<()>>,
    opts: &ScanOptions,
    make_visitor: &B,
    on_item: &mut F,
) where
    T: Send,
    B: Fn() -> V + Sync,
    V: FnMut(&Entry) -> Option<T> + Send,
    F: FnMut(&Path, T) -> bool,
{
    // Entries go to the workers in batches, and results come back in batches
    // past the first ones: a hand-off per file cost three futex calls a file.
    // The first batches are small, so the first files in path order (and
    // their events) are not held back.
    let (job_tx, job_rx) = mpsc::channel::<Vec<Job>>();
    let job_rx = Mutex::new(job_rx);
    let (res_tx, res_rx) = mpsc::channel::<Vec<Visited<T>>>();
    let filters = &*plan.filters;
    let meter = &plan.meter;
    let jobs = &job_rx;
    std::thread::scope(|s| {
        s.spawn(move || list_jobs(listing, first, filters, meter, shared, job_tx));
        for _ in 0..thread_count(opts) {
            let res_tx = res_tx.clone();
            s.spawn(move || visit_jobs(jobs, first, make_visitor, res_tx));
        }
        drop(res_tx);
        let mut pending = BTreeMap::new();
        let mut next = first;
        for batch in res_rx {
            for (idx, p, t) in batch {
                pending.insert(idx, (p, t));
            }
            while let Some((p, t)) = pending.remove(&next) {
                next += 1;
                if let Some(t) = t {
                    let _ = on_item(&p, t);
                }
            }
        }
    });
}

/// A visited file: its place in path order, its path, what the visitor made of it.
type Visited<T> = (usize, PathBuf, Option<T>);

/// The lister: filters the listing and hands the files out as numbered jobs, in
/// batches that grow past the first files.
fn list_jobs(
    listing: Listing,
    first: usize,
    filters: &Filters,
    meter: &Meter,
    shared: &Mutex<Acc<()>>,
    job_tx: mpsc::Sender<Vec<Job>>,
) {
    let batch: RefCell<Vec<Job>> = RefCell::new(Vec::new());
    let mut next = first;
    let mut local = Local::new(
        |e: &Entry| -> Option<()> {
            if let Some(d) = e.dent {
                let job = Job {
                    idx: next,
                    dent: d.clone(),
                    kind: e.kind,
                    depth: e.depth,
                    meta: e.meta.clone(),
                };
                next += 1;
                let mut b = batch.borrow_mut();
                b.push(job);
                if b.len() >= batch_size(next - first) {
                    let _ = job_tx.send(std::mem::take(&mut *b));
                }
            }
            None
        },
        filters,
        meter,
        shared,
    );
    for res in listing {
        if let ignore::WalkState::Quit = local.handle(res) {
            break;
        }
    }
    drop(local);
    let rest = batch.take();
    if !rest.is_empty() {
        let _ = job_tx.send(rest);
    }
}

/// A worker: visits the jobs it takes and sends the results back, the first
/// files' one by one.
fn visit_jobs<T, B, V>(
    jobs: &Mutex<mpsc::Receiver<Vec<Job>>>,
    first: usize,
    make_visitor: &B,
    res_tx: mpsc::Sender<Vec<Visited<T>>>,
) where
    B: Fn() -> V,
    V: FnMut(&Entry) -> Option<T>,
{
    let mut visit = make_visitor();
    loop {
        let batch = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(p) => p.into_inner().recv(),
        };
        let Ok(batch) = batch else { break };
        let mut out = Vec::with_capacity(batch.len());
        for job in batch {
            let Job {
                idx,
                dent,
                kind,
                depth,
                meta,
            } = job;
            let t = visit(&Entry {
                path: dent.path(),
                kind,
                depth,
                meta,
                dent: Some(&dent),
                staged: None,
            });
            out.push((idx, dent.into_path(), t));
            if idx - first < EARLY && res_tx.send(std::mem::take(&mut out)).is_err() {
                return;
            }
        }
        if !out.is_empty() && res_tx.send(out).is_err() {
            return;
        }
    }
}
