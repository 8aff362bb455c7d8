//! Adversarial black-box tests of the scanning commands over a hostile tree:
//! files swapped for FIFOs while `search`, `overview` and the jsonl search
//! walk them. A listed regular file that is a FIFO by the time it is opened
//! must be passed over (or read as what it is), never waited on: each call
//! answers one envelope within a bounded time.

use super::adversary_state::{mkfifo, run_bounded};
use crate::support::{self, TestEnv};
use std::time::{Duration, Instant};

#[test]
fn a_file_swapped_for_a_fifo_mid_walk_never_blocks_a_scan() {
    let env = TestEnv::new();
    let n = 40;
    for i in 0..n {
        env.write(&format!("f{i:02}.txt"), format!("needle {i}\n"));
    }
    let root = env.root().to_path_buf();
    // Each rename is atomic: the path is always a file or a FIFO.
    let (fifo, file) = (root.join(".fifo.tmp"), root.join(".file.tmp"));
    let swapper = support::swap_in_thread(move || {
        for i in 0..n {
            let p = root.join(format!("f{i:02}.txt"));
            mkfifo(&fifo);
            let _ = std::fs::rename(&fifo, &p);
            std::thread::sleep(Duration::from_micros(300));
            let _ = std::fs::write(&file, format!("needle {i}\n"));
            let _ = std::fs::rename(&file, &p);
        }
        true
    });
    let calls: [&[&str]; 4] = [
        &["search", "needle"],
        &["search", "needle", "--count"],
        &["overview"],
        &["find", ".", "--limit", "1000"],
    ];
    let t = Instant::now();
    let mut runs = 0;
    while runs < 30 * calls.len() && t.elapsed() < Duration::from_secs(60) {
        for args in calls {
            let r = run_bounded(&env, args, 10);
            assert!(r.code == 0 || r.code == 3, "{args:?}: {}", r.stderr);
            runs += 1;
        }
    }
    swapper.finish();
    assert!(runs >= 40, "only {runs} calls ran");
}

/// The same swap under a write: `edit` and `replace` stat their target, then
/// open it under the workspace lock; a FIFO there by then must fail the write
/// (or it runs on the regular file), never block it with the lock held.
#[test]
fn a_write_target_swapped_for_a_fifo_never_blocks_the_write() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    let root = env.root().to_path_buf();
    let (fifo, file) = (root.join(".fifo.tmp"), root.join(".file.tmp"));
    let p = root.join("a.txt");
    let swapper = support::swap_in_thread(move || {
        mkfifo(&fifo);
        let _ = std::fs::rename(&fifo, &p);
        std::thread::sleep(Duration::from_micros(200));
        let _ = std::fs::write(&file, "alpha\n");
        let _ = std::fs::rename(&file, &p);
        std::thread::sleep(Duration::from_micros(200));
        true
    });
    let calls: [&[&str]; 3] = [
        &["edit", "a.txt", "--old", "alpha", "--new", "alpha"],
        &["replace", "alpha", "alpha", "a.txt", "--expect-count", "1"],
        &["read", "a.txt"],
    ];
    let t = Instant::now();
    let mut runs = 0;
    while runs < 60 * calls.len() && t.elapsed() < Duration::from_secs(60) {
        for args in calls {
            run_bounded(&env, args, 10);
            runs += 1;
        }
    }
    swapper.finish();
    assert!(runs >= 30, "only {runs} calls ran");
}
