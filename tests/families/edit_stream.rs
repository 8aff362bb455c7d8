//! One `--old` edit of a file past the streaming size (32 MiB): one pass finds
//! the place, the new file is the old one's head and tail copied around the new
//! text (`Change::SpliceStream`), so memory stays flat: the same bytes as `sed`,
//! peak RSS under 64 MiB for a 200 MB file, the hash of what was written, the
//! diff of the lines touched, the guards, and an undo byte for byte.

use crate::support::fixtures::{ok, peak_rss};
use crate::support::{TestEnv, sha256sum};
use std::io::Write;
use std::process::Command;

/// A file of `lines` numbered lines (56 bytes each), written in pieces.
fn generate(env: &TestEnv, rel: &str, lines: usize) {
    let f = std::fs::File::create(env.path(rel)).expect("create");
    let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
    for i in 0..lines {
        writeln!(w, "line {i:09} some filler text to make the line longer").expect("write");
    }
    w.flush().expect("flush");
}

#[test]
fn a_200mb_edit_streams_in_64mib_matches_sed_and_undoes() {
    let env = TestEnv::new();
    // 3,400,000 lines of 56 bytes: 190 MB.
    generate(&env, "big.txt", 3_400_000);
    let before = sha256sum(&env.path("big.txt"));
    std::fs::copy(env.path("big.txt"), env.path("sed.txt")).expect("copy");
    let (r, kib) = peak_rss(
        &env,
        &[
            "edit",
            "big.txt",
            "--old",
            "line 002000000 some",
            "--new",
            "line 002000000 EDITED",
            "--max-diff-lines",
            "10",
        ],
    );
    ok(&r);
    assert!(kib < 64 * 1024, "peak RSS {kib} KiB");
    let st = Command::new("sed")
        .args(["-i", "s/line 002000000 some/line 002000000 EDITED/"])
        .arg(env.path("sed.txt"))
        .status()
        .expect("sed");
    assert!(st.success());
    let after = sha256sum(&env.path("big.txt"));
    assert_eq!(
        after,
        sha256sum(&env.path("sed.txt")),
        "the same bytes as sed"
    );
    let change = &r.json["changes"][0];
    assert_eq!(change["hash"].as_str(), Some(&after[..12]), "{}", r.stdout);
    assert_eq!(
        change["diff"].as_str(),
        Some(concat!(
            "@@ -2000001 +2000001 @@\n",
            "-line 002000000 some filler text to make the line longer\n",
            "+line 002000000 EDITED filler text to make the line longer\n",
        )),
        "{}",
        r.stdout
    );
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    ok(&env.run(&["undo", &op]));
    assert_eq!(
        sha256sum(&env.path("big.txt")),
        before,
        "undo restores the bytes"
    );
}

/// Past the streaming size the guards hold: a stale --expect-hash refuses and
/// writes nothing; the right one edits; a dry run writes nothing and answers
/// the line; a text found twice is still never an edit of the first.
#[test]
fn a_streamed_edit_keeps_its_guards() {
    let env = TestEnv::new();
    // 600,000 lines: 33.6 MB, past the streaming size.
    generate(&env, "g.txt", 600_000);
    let hash = sha256sum(&env.path("g.txt"));
    let edit = |extra: &[&str]| {
        let mut a = vec![
            "edit",
            "g.txt",
            "--old",
            "line 000400000 some",
            "--new",
            "X",
        ];
        a.extend_from_slice(extra);
        env.run(&a)
    };
    let r = edit(&["--expect-hash", "0123456789ab"]);
    assert_eq!(r.error_code(), "refusal.target-changed", "{}", r.stdout);
    assert_eq!(sha256sum(&env.path("g.txt")), hash);
    let r = edit(&["--dry-run"]);
    ok(&r);
    assert_eq!(
        r.json["changes"][0]["diff"].as_str(),
        Some(concat!(
            "@@ -400001 +400001 @@\n",
            "-line 000400000 some filler text to make the line longer\n",
            "+X filler text to make the line longer\n",
        )),
        "{}",
        r.stdout
    );
    assert_eq!(
        sha256sum(&env.path("g.txt")),
        hash,
        "a dry run writes nothing"
    );
    let r = edit(&["--expect-hash", &hash[..12]]);
    ok(&r);
    assert_eq!(r.json["changes"][0]["lines"].as_str(), Some("400001"));
    // "filler text" is on every line: several places, never the first.
    let r = env.run(&["edit", "g.txt", "--old", "filler text", "--new", "Y"]);
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(
        std::fs::read(env.path("g.txt"))
            .expect("read")
            .windows(2)
            .any(|w| w == b"X ")
    );
}

/// Undo of a streamed edit puts the before-image back by copying it from its
/// blob through the temp file (`Change::PutStream`): peak RSS under 64 MiB
/// for a 67 MB file (whole, it held the blob and the file, ~140 MB), the
/// dry run's diff is the edit's line inverted, undoing the undo redoes it the
/// same way, a file changed since is refused and left alone, and a large
/// file deleted is put back from its blob in as little.
#[test]
fn a_streamed_edit_undoes_and_redoes_in_64mib() {
    let env = TestEnv::new();
    // 1,200,000 lines of 56 bytes: 67 MB, past 64 MiB.
    generate(&env, "big.txt", 1_200_000);
    let before = sha256sum(&env.path("big.txt"));
    let r = env.run(&[
        "edit",
        "big.txt",
        "--old",
        "line 000600000 some",
        "--new",
        "line 000600000 EDITED",
    ]);
    ok(&r);
    let edited = sha256sum(&env.path("big.txt"));
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    let (r, kib) = peak_rss(&env, &["undo", &op, "--dry-run"]);
    ok(&r);
    assert!(kib < 64 * 1024, "dry run peak RSS {kib} KiB");
    assert_eq!(
        r.json["changes"][0]["diff"].as_str(),
        Some(concat!(
            "@@ -600001 +600001 @@\n",
            "-line 000600000 EDITED filler text to make the line longer\n",
            "+line 000600000 some filler text to make the line longer\n",
        )),
        "{}",
        r.stdout
    );
    assert_eq!(
        sha256sum(&env.path("big.txt")),
        edited,
        "a dry run writes nothing"
    );
    let (r, kib) = peak_rss(&env, &["undo", &op]);
    ok(&r);
    assert!(kib < 64 * 1024, "undo peak RSS {kib} KiB");
    assert_eq!(
        sha256sum(&env.path("big.txt")),
        before,
        "undo restores the bytes"
    );
    assert_eq!(
        r.json["changes"][0]["hash"].as_str(),
        Some(&before[..12]),
        "{}",
        r.stdout
    );
    let undo_op = r.json["op_id"].as_str().expect("op_id").to_string();
    let (r, kib) = peak_rss(&env, &["undo", &undo_op]);
    ok(&r);
    assert!(kib < 64 * 1024, "redo peak RSS {kib} KiB");
    assert_eq!(
        sha256sum(&env.path("big.txt")),
        edited,
        "undoing the undo redoes"
    );
    let redo_op = r.json["op_id"].as_str().expect("op_id").to_string();
    // Changed since: refused, nothing written.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(env.path("big.txt"))
        .expect("open");
    f.write_all(b"more\n").expect("append");
    drop(f);
    let changed = sha256sum(&env.path("big.txt"));
    let (r, kib) = peak_rss(&env, &["undo", &redo_op]);
    assert_eq!(r.error_code(), "refusal.target-changed", "{}", r.stdout);
    assert!(kib < 64 * 1024, "refusal peak RSS {kib} KiB");
    assert_eq!(sha256sum(&env.path("big.txt")), changed);
    // A large file deleted comes back from its blob the same way.
    let r = env.run(&["delete", "big.txt"]);
    ok(&r);
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    let (r, kib) = peak_rss(&env, &["undo", &op]);
    ok(&r);
    assert!(kib < 64 * 1024, "undo of a delete peak RSS {kib} KiB");
    assert_eq!(sha256sum(&env.path("big.txt")), changed);
}

/// Undo of a move of one large file over another: the file moved back, and
/// the one it replaced put back from its blob (streamed past the move, which
/// the inverse makes first: the path is no longer the file the undo hashed).
#[test]
fn undo_of_a_move_over_a_large_file_puts_both_back() {
    let env = TestEnv::new();
    generate(&env, "a.txt", 600_000);
    generate(&env, "b.txt", 610_000);
    let (a, b) = (sha256sum(&env.path("a.txt")), sha256sum(&env.path("b.txt")));
    let expect = format!("b.txt={}", &b[..12]);
    let r = env.run(&[
        "move",
        "a.txt",
        "b.txt",
        "--overwrite",
        "--expect-hash",
        &expect,
    ]);
    ok(&r);
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    ok(&env.run(&["undo", &op]));
    assert_eq!(sha256sum(&env.path("a.txt")), a);
    assert_eq!(sha256sum(&env.path("b.txt")), b);
}

/// `write --overwrite --content-file` of a file past the streaming size: the
/// content file is read by one pass (hashed, and looked at for the mask) and
/// copied through the temp file, the file replaced by one pass too (its hash
/// for the guard): peak RSS under 64 MiB for 39 MB (whole, it held both, ~90
/// MB), the same bytes, the diff of the one line that differs, the guards (a
/// wrong hash, the mask in the content, a dry run) and an undo byte for byte.
#[test]
fn a_streamed_write_from_a_file_keeps_its_guards_and_undoes() {
    let env = TestEnv::new();
    // 700,000 lines of 56 bytes: 39 MB.
    generate(&env, "big.txt", 700_000);
    let before = sha256sum(&env.path("big.txt"));
    let body = std::fs::read(env.path("big.txt")).expect("read");
    let new = String::from_utf8(body)
        .expect("utf-8")
        .replace("line 000400000 some", "line 000400000 EDITED");
    std::fs::write(env.path("new.txt"), &new).expect("write new");
    let want = sha256sum(&env.path("new.txt"));
    let write = |hash: &str, extra: &[&str]| {
        let mut a = vec![
            "write",
            "big.txt",
            "--overwrite",
            "--expect-hash",
            hash,
            "--content-file",
            "new.txt",
        ];
        a.extend_from_slice(extra);
        peak_rss(&env, &a)
    };
    let (r, _) = write("0123456789ab", &[]);
    assert_eq!(r.error_code(), "refusal.target-changed", "{}", r.stdout);
    assert_eq!(sha256sum(&env.path("big.txt")), before);
    let (r, kib) = write(&before[..12], &["--dry-run"]);
    ok(&r);
    assert!(kib < 64 * 1024, "dry run peak RSS {kib} KiB");
    assert_eq!(
        sha256sum(&env.path("big.txt")),
        before,
        "a dry run writes nothing"
    );
    let (r, kib) = write(&before[..12], &[]);
    ok(&r);
    assert!(kib < 64 * 1024, "write peak RSS {kib} KiB");
    assert_eq!(sha256sum(&env.path("big.txt")), want, "the content's bytes");
    let change = &r.json["changes"][0];
    assert_eq!(change["hash"].as_str(), Some(&want[..12]), "{}", r.stdout);
    assert_eq!(
        change["diff"].as_str(),
        Some(concat!(
            "@@ -400001 +400001 @@\n",
            "-line 000400000 some filler text to make the line longer\n",
            "+line 000400000 EDITED filler text to make the line longer\n",
        )),
        "{}",
        r.stdout
    );
    assert_eq!(r.json["bytes"].as_u64(), Some(new.len() as u64));
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    let (r, kib) = peak_rss(&env, &["undo", &op]);
    ok(&r);
    assert!(kib < 64 * 1024, "undo peak RSS {kib} KiB");
    assert_eq!(sha256sum(&env.path("big.txt")), before, "undo restores");
    // The mask in the content, past the first block and split across none.
    let masked = format!("{new}key = \\u005BREDACTED_SECRET]\n");
    std::fs::write(env.path("new.txt"), masked).expect("write masked");
    let (r, _) = write(&before[..12], &[]);
    assert_eq!(r.error_code(), "refusal.redacted-input", "{}", r.stdout);
    assert_eq!(sha256sum(&env.path("big.txt")), before);
    // A new file from a large content file: created, streamed the same way.
    std::fs::write(env.path("new.txt"), &new).expect("write new");
    let (r, kib) = peak_rss(&env, &["write", "made.txt", "--content-file", "new.txt"]);
    ok(&r);
    assert!(kib < 64 * 1024, "create peak RSS {kib} KiB");
    assert_eq!(sha256sum(&env.path("made.txt")), want);
}

/// `insert --at start|end` of a file past the streaming size: one pass, the
/// content spliced in at the file's start or end in the file's line ending
/// (CR LF here; a last line without one is ended first), peak RSS under 64
/// MiB for 40 MB (whole, ~130 MB), `inserted_at`, the guard, and undo.
#[test]
fn a_streamed_insert_at_either_end_matches_the_whole_file_path() {
    let env = TestEnv::new();
    let f = std::fs::File::create(env.path("c.txt")).expect("create");
    let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
    for i in 0..700_000 {
        write!(
            w,
            "line {i:09} some filler text to make the line longer\r\n"
        )
        .expect("write");
    }
    w.write_all(b"a last line without its ending")
        .expect("write");
    w.flush().expect("flush");
    drop(w);
    let orig = std::fs::read(env.path("c.txt")).expect("read");
    let hash = sha256sum(&env.path("c.txt"));
    let r = env.run(&[
        "insert",
        "c.txt",
        "--at",
        "end",
        "--content",
        "x",
        "--expect-hash",
        "0123456789ab",
    ]);
    assert_eq!(r.error_code(), "refusal.target-changed", "{}", r.stdout);
    let (r, kib) = peak_rss(
        &env,
        &[
            "insert",
            "c.txt",
            "--at",
            "end",
            "--content",
            "one\ntwo",
            "--expect-hash",
            &hash[..12],
        ],
    );
    ok(&r);
    assert!(kib < 64 * 1024, "insert --at end peak RSS {kib} KiB");
    assert_eq!(
        r.json["inserted_at"][0].as_u64(),
        Some(700_002),
        "{}",
        r.stdout
    );
    let end = [&orig[..], b"\r\none\r\ntwo\r\n"].concat();
    assert!(
        std::fs::read(env.path("c.txt")).expect("read") == end,
        "--at end bytes"
    );
    assert_eq!(
        r.json["changes"][0]["hash"].as_str(),
        Some(&sha256sum(&env.path("c.txt"))[..12])
    );
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    let (r, kib) = peak_rss(
        &env,
        &["insert", "c.txt", "--at", "start", "--content", "top"],
    );
    ok(&r);
    assert!(kib < 64 * 1024, "insert --at start peak RSS {kib} KiB");
    assert_eq!(r.json["inserted_at"][0].as_u64(), Some(1));
    assert_eq!(
        r.json["changes"][0]["diff"].as_str(),
        Some("@@ -0,0 +1 @@\n+top\r\n"),
        "{}",
        r.stdout
    );
    let start = [&b"top\r\n"[..], &end].concat();
    assert!(
        std::fs::read(env.path("c.txt")).expect("read") == start,
        "--at start bytes"
    );
    let top = r.json["op_id"].as_str().expect("op_id").to_string();
    ok(&env.run(&["undo", &top]));
    ok(&env.run(&["undo", &op]));
    assert_eq!(sha256sum(&env.path("c.txt")), hash, "both undone");
}
