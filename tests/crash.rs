//! Crash safety proven from outside the process: the real binary is killed with
//! SIGKILL (strace fault injection) at every file syscall of a write — or an even
//! sample of at least 200 of them — and the next command must leave every touched
//! file wholly before or wholly after (all the same way), no temp file in the tree,
//! the journal holding the op exactly when the files show it, and `undo` working.
//! Also: kills inside the recovery that follows a kill, EIO on every fsync, 16
//! concurrent writers, and a held lock.
//!
//! Scenarios are rows of a table: add one by adding a row to `scenarios()`.

#[path = "support/crash.rs"]
mod harness;
#[path = "support/mod.rs"]
mod support;

use harness::{Baseline, Case, argv, counts, inject, points};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use support::{TestEnv, bin};

/// Kill points per scenario (`AITOOLS_CRASH_POINTS` overrides).
fn max_points() -> usize {
    harness::max_points(240)
}

/// One crash scenario: prepares the workspace (files, earlier ops) and returns the
/// argv to crash, and the stdin it gets.
struct Scenario {
    name: &'static str,
    setup: fn(&Case) -> Vec<String>,
    stdin: Option<&'static [u8]>,
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "write a new file in new directories",
            setup: |c| {
                c.put("keep.txt", "keep\n");
                argv(&["write", "new/dir/a.txt", "--content", "hello\nworld\n"])
            },
            stdin: None,
        },
        Scenario {
            // The state directory is made by this op (its syncs ride on the intent's).
            name: "first op in a fresh state dir: overwrite (a blob)",
            setup: |c| {
                c.put("a.txt", "before\n");
                // `info` reads no state: the directory is still missing.
                let h = c.ok(&["info", "a.txt"])["hash"]
                    .as_str()
                    .unwrap()
                    .to_string();
                assert!(c.ws_state().is_none());
                argv(&[
                    "write",
                    "a.txt",
                    "--overwrite",
                    "--expect-hash",
                    &h,
                    "--content",
                    "after\n",
                ])
            },
            stdin: None,
        },
        Scenario {
            name: "a state dir missing commit/ and blobs/ (old or partly removed)",
            setup: |c| {
                c.put("a.txt", "before\n");
                c.ok(&["write", "b.txt", "--content", "b\n"]);
                let ws = c.ws_state().expect("the state directory");
                for d in ["commit", "blobs", "journal/ids"] {
                    std::fs::remove_dir_all(ws.join(d)).unwrap();
                }
                let h = c.ok(&["info", "a.txt"])["hash"]
                    .as_str()
                    .unwrap()
                    .to_string();
                argv(&[
                    "write",
                    "a.txt",
                    "--overwrite",
                    "--expect-hash",
                    &h,
                    "--content",
                    "after\n",
                ])
            },
            stdin: None,
        },
        Scenario {
            name: "overwrite one file from stdin",
            setup: |c| {
                let body: String = (1..=300).map(|i| format!("line {i}\r\n")).collect();
                c.put("a.txt", &body);
                std::fs::set_permissions(
                    c.ws().join("a.txt"),
                    std::fs::Permissions::from_mode(0o640),
                )
                .unwrap();
                let h = c.run(&["info", "a.txt"]).json["hash"]
                    .as_str()
                    .unwrap()
                    .to_string();
                argv(&[
                    "write",
                    "a.txt",
                    "--overwrite",
                    "--expect-hash",
                    &h,
                    "--stdin",
                ])
            },
            stdin: Some(b"replaced\r\nin full\r\n"),
        },
        Scenario {
            name: "copy a tree (multi-file)",
            setup: |c| {
                c.put("src/one.txt", "1\n");
                c.put("src/two.txt", "2\n");
                c.put("src/deep/three.txt", "3\n");
                argv(&["copy", "src", "dst", "--recursive"])
            },
            stdin: None,
        },
        Scenario {
            name: "archive extract (multi-file)",
            setup: |c| {
                c.put("src/one.txt", "1\n");
                c.put("src/deep/two.txt", "2\n");
                let ok = std::process::Command::new("tar")
                    .args(["-cf", "a.tar", "src"])
                    .current_dir(c.ws())
                    .status()
                    .unwrap();
                assert!(ok.success());
                argv(&["archive", "extract", "a.tar", "--to", "dst"])
            },
            stdin: None,
        },
        Scenario {
            name: "archive create",
            setup: |c| {
                c.put("src/one.txt", "1\n");
                c.put("src/deep/two.txt", "2\n");
                argv(&["archive", "create", "a.tar.gz", "src"])
            },
            stdin: None,
        },
        Scenario {
            name: "move over an existing file (multi-file)",
            setup: |c| {
                c.put("from.txt", "moving\n");
                c.put("to.txt", "replaced\n");
                let h = c.run(&["info", "to.txt"]).json["hash"]
                    .as_str()
                    .unwrap()
                    .to_string();
                argv(&[
                    "move",
                    "from.txt",
                    "to.txt",
                    "--overwrite",
                    "--expect-hash",
                    &format!("to.txt={h}"),
                ])
            },
            stdin: None,
        },
        Scenario {
            name: "undo of a multi-file op",
            setup: |c| {
                c.put("src/one.txt", "1\n");
                c.put("src/two.txt", "2\n");
                c.put("old.txt", "old\n");
                let r = c.run(&["copy", "src", "dst", "--recursive"]);
                assert_eq!(r.code, 0, "{}", r.stdout);
                let del = c.run(&["delete", "old.txt"]);
                assert_eq!(del.code, 0);
                let op = r.json["op_id"].as_str().unwrap().to_string();
                argv(&["undo", &op])
            },
            stdin: None,
        },
        Scenario {
            name: "edit one file",
            setup: |c| {
                let body: String = (1..=200).map(|i| format!("line {i}\n")).collect();
                c.put("e.txt", &body);
                c.put("other.txt", "untouched\n");
                argv(&[
                    "edit",
                    "e.txt",
                    "--old",
                    "line 120\n",
                    "--new",
                    "edited\nline\n",
                ])
            },
            stdin: None,
        },
        Scenario {
            // Over 2 MiB: the new hash resumes from a midstate, and the temp file
            // is written as head, new text and tail (`Change::Splice`).
            name: "edit a large file (spliced in pieces)",
            setup: |c| {
                let body: String = (0..70_000)
                    .map(|i| format!("{i:06} a line of a large file\n"))
                    .collect();
                c.put("big.txt", &body);
                argv(&[
                    "edit",
                    "big.txt",
                    "--old",
                    "041000 a line",
                    "--new",
                    "041000 an edited\nline",
                ])
            },
            stdin: None,
        },
        Scenario {
            name: "replace across three files (multi-file)",
            setup: |c| {
                c.put("r/a.rs", "let old_name = 1;\nold_name += 2;\n");
                c.put("r/sub/b.rs", "fn old_name() {}\r\n");
                c.put("r/c.rs", "// old_name\nno match\nold_name");
                c.put("r/none.rs", "nothing here\n");
                argv(&[
                    "replace",
                    "old_(\\w+)",
                    "new_$1",
                    "r",
                    "--expect-count",
                    "5",
                ])
            },
            stdin: None,
        },
        Scenario {
            name: "apply that creates, modifies and deletes (multi-file)",
            setup: |c| {
                c.put("keep.txt", "k1\nk2\nk3\n");
                c.put("gone.txt", "bye\n");
                argv(&["apply", "--stdin"])
            },
            stdin: Some(
                concat!(
                    "diff --git a/keep.txt b/keep.txt\n",
                    "--- a/keep.txt\n",
                    "+++ b/keep.txt\n",
                    "@@ -1,3 +1,3 @@\n",
                    " k1\n",
                    "-k2\n",
                    "+K2\n",
                    " k3\n",
                    "diff --git a/gone.txt b/gone.txt\n",
                    "deleted file mode 100644\n",
                    "--- a/gone.txt\n",
                    "+++ /dev/null\n",
                    "@@ -1 +0,0 @@\n",
                    "-bye\n",
                    "diff --git a/made/new.sh b/made/new.sh\n",
                    "new file mode 100755\n",
                    "--- /dev/null\n",
                    "+++ b/made/new.sh\n",
                    "@@ -0,0 +1,2 @@\n",
                    "+#!/bin/sh\n",
                    "+echo hi\n",
                )
                .as_bytes(),
            ),
        },
        Scenario {
            name: "json set a member (span edit)",
            setup: |c| {
                c.put("cfg.json", "{\n  \"a\": 1,\n  \"b\": [true, false]\n}\n");
                argv(&["json", "set", "cfg.json", "/b/1", "{\"x\": null}"])
            },
            stdin: None,
        },
        Scenario {
            name: "table set one cell (span edit)",
            setup: |c| {
                c.put("t.csv", "k,v\r\na,\"x,1\"\r\nb,2\r\n");
                argv(&[
                    "table", "set", "t.csv", "--row", "1", "--column", "v", "--value", "y",
                ])
            },
            stdin: None,
        },
        Scenario {
            name: "json patch from stdin",
            setup: |c| {
                c.put("p.json", "{\"keep\": 0, \"list\": [1, 2, 3]}");
                argv(&["json", "patch", "p.json", "--stdin"])
            },
            stdin: Some(
                br#"[{"op":"remove","path":"/list/0"},{"op":"add","path":"/new","value":"v"}]"#,
            ),
        },
        Scenario {
            name: "transform sort and unique",
            setup: |c| {
                let body: String = (1..=120)
                    .rev()
                    .map(|i| format!("line {}\r\n", i % 40))
                    .collect();
                c.put("t.txt", &body);
                argv(&["transform", "t.txt", "--op", "sort", "--op", "unique"])
            },
            stdin: None,
        },
        Scenario {
            name: "transcode utf-8 to shift_jis",
            setup: |c| {
                c.put("ja.txt", &"日本語のテキスト\n".repeat(50));
                argv(&["transcode", "ja.txt", "--to", "shift_jis"])
            },
            stdin: None,
        },
        Scenario {
            name: "split into three new pieces (multi-file)",
            setup: |c| {
                let body: String = (1..=30).map(|i| format!("line {i}\n")).collect();
                c.put("s.txt", &body);
                argv(&["split", "s.txt", "--lines", "10"])
            },
            stdin: None,
        },
        Scenario {
            name: "move-lines into another file (multi-file)",
            setup: |c| {
                c.put("from.txt", "a\nmove me\nb\nmove me too\nc");
                c.put("into.txt", "x\ny\n");
                argv(&[
                    "move-lines",
                    "from.txt",
                    "--match",
                    "^move",
                    "--expect-count",
                    "2",
                    "--to",
                    "into.txt",
                ])
            },
            stdin: None,
        },
    ]
}

/// The scenario of that name.
fn scenario(name: &str) -> Scenario {
    scenarios()
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no scenario {name:?}"))
}

/// Prepares the scenario, then runs it cleanly under trace and restores.
fn baseline(c: &Case, s: &Scenario) -> Baseline {
    let argv = (s.setup)(c);
    c.save();
    let b = c.baseline(argv, s.stdin, s.name);
    c.restore();
    b
}

/// The invariant after a disturbed run and one recovering command; true when the
/// op ended up applied (and was then undone).
fn check(c: &Case, b: &Baseline, label: &str) -> bool {
    let r = c.run(&["info", "."]);
    assert_eq!(r.code, 0, "{label}: the next command failed: {}", r.stderr);
    let after = c.before_or_after(b, label);
    if after {
        c.undo_restores(b, label);
    }
    after
}

/// How many before-images the scenario keeps as links of the replaced inodes
/// (`linkat` of a `/proc/self/fd` name): every file it replaces or removes, when
/// nothing else names it.
fn links_expected(name: &str) -> usize {
    match name {
        "edit one file" | "edit a large file (spliced in pieces)" => 1,
        "apply that creates, modifies and deletes (multi-file)" => 2,
        "replace across three files (multi-file)" => 3,
        _ => 0,
    }
}

/// The before-image links of a traced run.
fn links_made(seq: &[harness::Call]) -> usize {
    seq.iter()
        .filter(|(s, _, l)| s == "linkat" && l.contains("/proc/self/fd/"))
        .count()
}

/// What in the state's `blobs/` is not a published blob: names that start with
/// a dot (temps), and blobs with more than one name (a link still sharing a tree
/// file's inode) or not private (a link never published).
fn blob_strays(c: &Case) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let Some(ws) = c.ws_state() else {
        return Vec::new();
    };
    std::fs::read_dir(ws.join("blobs"))
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    let m = e.metadata().ok()?;
                    if n.starts_with('.') {
                        Some(n)
                    } else if m.is_file() && (m.nlink() != 1 || m.mode() & 0o7777 != 0o600) {
                        Some(format!(
                            "{n} ({} names, mode {:o})",
                            m.nlink(),
                            m.mode() & 0o7777
                        ))
                    } else {
                        None
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sigkill_at_every_syscall_leaves_before_or_after() {
    let mut report = Vec::new();
    for s in scenarios() {
        let c = Case::new();
        let b = baseline(&c, &s);
        let want = links_expected(s.name);
        if want > 0 {
            assert_eq!(links_made(&b.seq), want, "{}: before-images linked", s.name);
        }
        let counts = counts(&b.seq);
        let pts = points(&counts, max_points());
        let (mut saw_before, mut saw_after) = (0, 0);
        for (sys, n) in &pts {
            c.restore();
            let code = c.kill_at(sys, *n, &b.argv, s.stdin);
            let label = format!("{} / kill at {sys} #{n} (exit {code})", s.name);
            if check(&c, &b, &label) {
                saw_after += 1;
            } else {
                saw_before += 1;
            }
        }
        let total = b.seq.len();
        report.push(format!(
            "{}: {total} syscalls, {} kill points ({saw_before} ended before, {saw_after} ended after)",
            s.name,
            pts.len()
        ));
        assert!(saw_before > 0 && saw_after > 0, "{}: {report:?}", s.name);
    }
    // Shown with --nocapture: the kill-point counts the report quotes.
    eprintln!("{}", report.join("\n"));
}

/// A file past the streaming size (32 MiB): 600,000 lines, 34 MB.
fn put_huge(c: &Case) {
    let body: String = (0..600_000)
        .map(|i| format!("line {i:09} some filler text to make the line longer\n"))
        .collect();
    c.put("huge.txt", &body);
}

const HUGE_EDIT: [&str; 6] = [
    "edit",
    "huge.txt",
    "--old",
    "line 000300000 some",
    "--new",
    "line 000300000 EDITED",
];

/// A one-line edit of a file past the streaming size (32 MiB; `Change::SpliceStream`:
/// one pass reads it, the temp file is its head and tail copied around the new
/// text): a kill at an even sample of its syscalls (48: each point copies the
/// 34 MB file) leaves it wholly before or after, recovered, and undo works.
#[test]
fn a_kill_in_a_streamed_edit_leaves_before_or_after() {
    streamed_kills(Scenario {
        name: "edit a file past the streaming size (streamed)",
        setup: |c| {
            put_huge(c);
            argv(&HUGE_EDIT)
        },
        stdin: None,
    });
}

/// The undo of that edit (`Change::PutStream`: the current file hashed by one
/// pass, the before-image copied from its blob through the temp file): the
/// same sample of kills leaves it wholly edited or wholly undone, and undoing
/// the undo (streamed too) works.
#[test]
fn a_kill_in_a_streamed_undo_leaves_before_or_after() {
    streamed_kills(Scenario {
        name: "undo of a streamed edit",
        setup: |c| {
            put_huge(c);
            let r = c.run(&HUGE_EDIT);
            assert_eq!(r.code, 0, "{}", r.stdout);
            argv(&["undo", r.json["op_id"].as_str().unwrap()])
        },
        stdin: None,
    });
}

/// `write --overwrite --content-file` of a file past the streaming size
/// (`Change::PutStream`: the content file hashed by one pass and copied
/// through the temp file, the file replaced hashed by one pass for the guard).
#[test]
fn a_kill_in_a_streamed_write_leaves_before_or_after() {
    streamed_kills(Scenario {
        name: "write from a content file past the streaming size (streamed)",
        setup: |c| streamed_write(c, "line 000300000 some"),
        stdin: None,
    });
}

/// The huge file and a copy of it, `new.txt`, with the line starting `line`
/// changed; the guarded `write --overwrite --content-file new.txt` of it.
fn streamed_write(c: &Case, line: &str) -> Vec<String> {
    put_huge(c);
    let body = std::fs::read_to_string(c.ws().join("huge.txt")).unwrap();
    let changed = line.replace(" some", " NEW");
    c.put("new.txt", &body.replace(line, &changed));
    let h = c.ok(&["info", "huge.txt"])["hash"]
        .as_str()
        .unwrap()
        .to_string();
    argv(&[
        "write",
        "huge.txt",
        "--overwrite",
        "--expect-hash",
        &h,
        "--content-file",
        "new.txt",
    ])
}

/// The bytes `pread64` returned on the descriptor the first read-only open of
/// `name` gave (in a `strace -f` log of `openat,openat2,pread64`).
fn pread_bytes(log: &str, name: &str) -> u64 {
    // `strace -f` splits a call another thread interrupted: `PID pread64(3,
    // <unfinished ...>`, later `PID <... pread64 resumed>..., 0) = 1048576`
    // (an `openat2` too): each call is joined whole before it is read.
    let mut open: std::collections::HashMap<&str, &str> = Default::default();
    let mut calls = Vec::new();
    for l in log.lines() {
        let pid = l.split_whitespace().next().unwrap_or("");
        if let Some(head) = l.strip_suffix("<unfinished ...>") {
            open.insert(pid, head);
        } else if l.contains("resumed>") {
            calls.push(format!("{}{l}", open.remove(pid).unwrap_or("")));
        } else {
            calls.push(l.to_string());
        }
    }
    let fd = calls
        .iter()
        .find(|l| {
            l.contains(&format!("/{name}\"")) && l.contains("O_RDONLY") && !l.contains("O_PATH")
        })
        .and_then(|l| l.rsplit("= ").next())
        .and_then(|n| n.trim().parse::<i64>().ok())
        .unwrap_or_else(|| panic!("{name} was not opened:\n{log}"));
    let call = format!("pread64({fd}, ");
    calls
        .iter()
        .filter(|l| l.contains(&call))
        .filter_map(|l| l.rsplit("= ").next()?.trim().parse::<u64>().ok())
        .sum()
}

/// A streamed `write --overwrite --content-file` of a one-line change near the
/// end of a file past the streaming size reads each file about once: the
/// hash passes, then only a block or two for the diff window (the common head
/// is known from the passes' hash states; it was read again, a second time
/// over most of both files).
#[test]
fn a_streamed_write_reads_each_file_about_once() {
    let c = Case::new();
    let args = streamed_write(&c, "line 000599990 some");
    let size = std::fs::metadata(c.ws().join("huge.txt")).unwrap().len();
    let (code, out, log) = c.trace_log("openat,openat2,pread64", &args, None);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("line 000599990 NEW"),
        "the diff shows the line: {out}"
    );
    for name in ["huge.txt", "new.txt"] {
        let read = pread_bytes(&log, name);
        assert!(
            read >= size && read < size + size / 8,
            "{name}: {read} bytes read for a {size}-byte file"
        );
    }
}

/// `insert --at end` of a file past the streaming size (`Change::SpliceStream`
/// at the file's end: its whole body copied, then the lines).
#[test]
fn a_kill_in_a_streamed_insert_leaves_before_or_after() {
    streamed_kills(Scenario {
        name: "insert at the end of a file past the streaming size (streamed)",
        setup: |c| {
            put_huge(c);
            argv(&["insert", "huge.txt", "--at", "end", "--content", "one\ntwo"])
        },
        stdin: None,
    });
}

/// Whether a run of `argv` in `c` (then restored) copies a file in the kernel
/// (`copy_file_range`): the streaming paths do, the whole-file ones never.
fn copies_in_kernel(c: &Case, argv: &[String], stdin: Option<&[u8]>) -> bool {
    let (code, out, log) = c.trace_log("copy_file_range", argv, stdin);
    c.restore();
    assert_eq!(code, 0, "{out}");
    log.lines()
        .any(|l| l.contains("copy_file_range(") && !l.contains("= -1"))
}

/// Kills at an even sample of 48 of the scenario's syscalls, each followed by
/// the `check` of before or after; the run links one before-image and took
/// the streaming path (the file copied in the kernel, never held).
fn streamed_kills(s: Scenario) {
    let c = Case::new();
    let b = baseline(&c, &s);
    assert_eq!(links_made(&b.seq), 1, "the before-image is linked");
    assert!(
        copies_in_kernel(&c, &b.argv, s.stdin),
        "{}: the streaming path (copy_file_range) was not taken",
        s.name
    );
    let pts = points(&counts(&b.seq), harness::max_points(48).min(48));
    let (mut saw_before, mut saw_after) = (0, 0);
    for (sys, n) in &pts {
        c.restore();
        let code = c.kill_at(sys, *n, &b.argv, s.stdin);
        let label = format!("{} / kill at {sys} #{n} (exit {code})", s.name);
        if check(&c, &b, &label) {
            saw_after += 1;
        } else {
            saw_before += 1;
        }
    }
    assert!(
        saw_before > 0 && saw_after > 0,
        "{}: {saw_before} before, {saw_after} after",
        s.name
    );
}

/// The file an undo of a streamed edit puts back over is written to (in
/// place, same size) after the undo hashed it and linked it as its own
/// before-image, at the temp file's creation just before the blob is copied
/// (the run stopped there by strace): the guard refuses, the file keeps the
/// other program's bytes, and no temp, no journal entry and no stray blob
/// link is left. The run takes the streaming path (copied in the kernel).
#[test]
fn a_file_changed_between_a_streamed_undos_hash_and_its_copy_is_refused() {
    use std::io::{Seek, SeekFrom, Write};
    let c = Case::new();
    put_huge(&c);
    let r = c.run(&HUGE_EDIT);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let undo = argv(&["undo", r.json["op_id"].as_str().unwrap()]);
    c.save();
    assert!(copies_in_kernel(&c, &undo, None), "the streaming path");
    let (code, out, seq) = c.trace(&undo, None);
    assert_eq!(code, 0, "{out}");
    c.restore();
    let n = seq
        .iter()
        .find(|(s, _, l)| s == "openat" && l.contains(".aitools-op-") && l.contains("O_CREAT"))
        .map(|(_, n, _)| *n)
        .expect("the temp file's openat");
    let opts = inject(&format!("openat:signal=STOP:when={n}"));
    let child = c.strace_spawn(&opts, &undo, false);
    let stopped = || -> Option<u32> {
        let kids = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", child.id()));
        let pid: u32 = kids.ok()?.split_whitespace().next()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let state = stat.rsplit(')').next()?.split_whitespace().next()?;
        matches!(state, "t" | "T").then_some(pid)
    };
    let mut pid = None;
    for _ in 0..600 {
        pid = stopped();
        if pid.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pid = pid.expect("the undo stopped at its temp file");
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(c.ws().join("huge.txt"))
        .unwrap();
    f.seek(SeekFrom::Start(100)).unwrap();
    f.write_all(b"XXXX").unwrap();
    drop(f);
    let changed = std::fs::read(c.ws().join("huge.txt")).unwrap();
    let ok = Command::new("kill")
        .args(["-CONT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let out = child.wait_with_output().unwrap();
    // An error's envelope is on stderr.
    let text = String::from_utf8_lossy(&out.stderr);
    let v: serde_json::Value = serde_json::from_str(text.trim()).expect("one envelope");
    assert_eq!(v["error"]["code"], "refusal.target-changed", "{text}");
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        std::fs::read(c.ws().join("huge.txt")).unwrap() == changed,
        "the other program's bytes"
    );
    let temps: Vec<_> = std::fs::read_dir(c.ws())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".aitools"))
        .collect();
    assert!(temps.is_empty(), "temps left: {temps:?}");
    assert_eq!(c.ok(&["history"])["total"], 1, "the undo is not journaled");
    assert_eq!(blob_strays(&c), Vec::<String>::new());
}

/// A kill at every syscall from the first before-image link (made at its blob
/// name) to the last publish of one (its chmod to 0600): before the
/// commit point recovery removes the link and the file is untouched; after it,
/// recovery publishes the blob and undo works. No temp and no unpublished link
/// is left either way.
#[test]
fn a_kill_between_a_link_and_its_publish_leaves_no_stray_link() {
    for name in [
        "edit one file",
        "apply that creates, modifies and deletes (multi-file)",
    ] {
        let s = scenario(name);
        let c = Case::new();
        let b = baseline(&c, &s);
        let first = b
            .seq
            .iter()
            .position(|(s, _, l)| s == "linkat" && l.contains("/proc/self/fd/"))
            .unwrap_or_else(|| panic!("{name}: no before-image was linked"));
        // The publish makes the link private (the scenarios' files are not 0600
        // yet), then closes it.
        let last = b
            .seq
            .iter()
            .rposition(|(s, _, l)| s == "fchmod" && l.contains("0600"))
            .unwrap_or_else(|| panic!("{name}: no link was published"))
            + 1;
        let last = last.min(b.seq.len() - 1);
        assert!(first < last);
        let (mut before, mut after) = (0, 0);
        for (sys, n, _) in &b.seq[first..=last] {
            c.restore();
            let code = c.kill_at(sys, *n, &b.argv, s.stdin);
            let label = format!("{name} / kill at {sys} #{n} (exit {code})");
            if check(&c, &b, &label) {
                after += 1;
            } else {
                before += 1;
            }
            let left = blob_strays(&c);
            assert!(left.is_empty(), "{label}: left in blobs/: {left:?}");
        }
        assert!(
            before > 0 && after > 0,
            "{name}: {before} before, {after} after"
        );
    }
}

#[test]
fn a_kill_inside_recovery_is_recovered_too() {
    let s = &scenario("copy a tree (multi-file)");
    let c = Case::new();
    let b = baseline(&c, s);
    let pts = points(&counts(&b.seq), usize::MAX);
    // Kill points that leave an intent record behind (some before, some after the commit point).
    let mut pending = Vec::new();
    for (sys, n) in &pts {
        c.restore();
        c.kill_at(sys, *n, &b.argv, s.stdin);
        if !c.intent_records().is_empty() {
            pending.push((sys.clone(), *n, c.tree() != b.before));
        }
    }
    assert!(!pending.is_empty());
    let mut chosen: Vec<_> = pending
        .iter()
        .step_by((pending.len() / 6).max(1))
        .cloned()
        .collect();
    // Always include the last one (a committed record: roll-forward is exercised).
    if let Some(last) = pending.last() {
        chosen.push(last.clone());
    }
    let mut kills = 0;
    for (sys, n, _) in chosen {
        c.restore();
        c.kill_at(&sys, n, &b.argv, s.stdin);
        c.save_as("2");
        let info = argv(&["info", "."]);
        let (_, _, rec) = c.trace(&info, None);
        let rec_points = points(&counts(&rec), 40);
        for (rs, rn) in rec_points {
            c.restore_from("2");
            c.kill_at(&rs, rn, &info, None);
            kills += 1;
            let _ = check(
                &c,
                &b,
                &format!("kill at {sys} #{n}, then in recovery at {rs} #{rn}"),
            );
        }
    }
    assert!(kills > 20, "only {kills} recovery kill points");
}

#[test]
fn eio_on_any_fsync_is_never_success() {
    for name in [
        "overwrite one file from stdin",
        "copy a tree (multi-file)",
        "undo of a multi-file op",
        "edit one file",
        "apply that creates, modifies and deletes (multi-file)",
        // Six files to sync: one syncfs instead of an fsync each.
        "replace across three files (multi-file)",
    ] {
        let s = &scenario(name);
        let c = Case::new();
        let b = baseline(&c, s);
        let counts = counts(&b.seq);
        for sys in ["fsync", "fdatasync", "syncfs"] {
            let n = counts.get(sys).copied().unwrap_or(0);
            for k in 1..=n {
                c.restore();
                let (code, out) = c.strace(
                    &inject(&format!("{sys}:error=EIO:when={k}")),
                    &b.argv,
                    s.stdin,
                );
                assert_ne!(
                    code, 0,
                    "{}: EIO on {sys} #{k} was reported as success: {out}",
                    s.name
                );
                let _ = check(&c, &b, &format!("{}: EIO on {sys} #{k}", s.name));
            }
        }
        assert!(
            counts.get("fsync").copied().unwrap_or(0)
                + counts.get("fdatasync").copied().unwrap_or(0)
                >= 3,
            "{}: {:?}",
            s.name,
            counts
        );
    }
}

#[test]
fn sixteen_concurrent_writers_lose_no_update() {
    let env = TestEnv::new();
    env.write("log.txt", "");
    let root = env.root().to_path_buf();
    let state = env.state.path().to_path_buf();
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let (root, state) = (root.clone(), state.clone());
            std::thread::spawn(move || {
                let run = |args: &[&str]| {
                    let out = Command::new(bin())
                        .args(args)
                        .current_dir(&root)
                        .env("XDG_STATE_HOME", &state)
                        .stdin(Stdio::null())
                        .output()
                        .unwrap();
                    support::parse(out)
                };
                for _attempt in 0..500 {
                    let r = run(&["read", "log.txt", "--max-lines", "1000"]);
                    let hash = r.json["hash"].as_str().unwrap_or("").to_string();
                    let mut body: String = r.lines().iter().map(|l| format!("{l}\n")).collect();
                    body.push_str(&format!("writer {i}\n"));
                    let w = run(&[
                        "write",
                        "log.txt",
                        "--overwrite",
                        "--expect-hash",
                        &hash,
                        "--content",
                        &body,
                        "--lock-timeout",
                        "30s",
                    ]);
                    match w.code {
                        0 => return,
                        _ if w.error_code() == "refusal.target-changed"
                            || w.error_code() == "environment.busy" => {}
                        _ => panic!("writer {i}: {}", w.stderr),
                    }
                }
                panic!("writer {i} never got its write in");
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let text = String::from_utf8(env.read("log.txt")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 16, "{text}");
    lines.sort();
    lines.dedup();
    assert_eq!(lines.len(), 16, "{text}");
    let h = env.run(&["history", "--limit", "100"]);
    assert_eq!(h.json["total"], 16);
}

#[test]
fn a_held_lock_gives_busy_within_the_timeout() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    // Create the state directory and its lock file.
    assert_eq!(env.run(&["touch", "b.txt"]).code, 0);
    let ws_state = std::fs::read_dir(env.state.path().join("aitools"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let lock = ws_state.join("lock");
    // --no-fork: the process we kill is the one holding the lock.
    let mut holder = Command::new("flock")
        .args(["-x", "--no-fork"])
        .arg(&lock)
        .args(["sleep", "20"])
        .spawn()
        .expect("flock");
    // Wait until the holder has it.
    let start = std::time::Instant::now();
    loop {
        let probe = Command::new("flock")
            .args(["-n", "-x"])
            .arg(&lock)
            .arg("true")
            .status()
            .unwrap();
        if !probe.success() || start.elapsed().as_secs() > 10 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let t = std::time::Instant::now();
    let r = env.run(&[
        "write",
        "c.txt",
        "--content",
        "c",
        "--lock-timeout",
        "300ms",
    ]);
    let took = t.elapsed();
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(r.error_code(), "environment.busy", "{}", r.stderr);
    assert!(
        took.as_millis() >= 300 && took.as_millis() < 3000,
        "{took:?}"
    );
    let repair = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(
        repair,
        "aitools write c.txt --content c --lock-timeout 300ms"
    );
    assert!(!env.path("c.txt").exists());
    // Free again: the same command succeeds.
    assert_eq!(env.run(&["write", "c.txt", "--content", "c"]).code, 0);
}

#[test]
fn a_write_reads_its_target_once() {
    let c = Case::new();
    let body: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
    let patch = "--- a/t.txt\n+++ b/t.txt\n@@ -2 +2 @@\n-line 2\n+two\n";
    let cases: Vec<(Vec<String>, Option<&[u8]>)> = vec![
        (
            argv(&["edit", "t.txt", "--old", "line 7\n", "--new", "x\n"]),
            None,
        ),
        (
            argv(&["insert", "t.txt", "--at", "end", "--content", "end"]),
            None,
        ),
        (
            argv(&[
                "replace",
                "^line 9$",
                "nine",
                "t.txt",
                "--expect-count",
                "1",
            ]),
            None,
        ),
        (argv(&["apply", "--stdin"]), Some(patch.as_bytes())),
        (
            argv(&[
                "write",
                "t.txt",
                "--overwrite",
                "--expect-hash",
                "HASH",
                "--content",
                "new\n",
            ]),
            None,
        ),
    ];
    for (mut args, stdin) in cases {
        c.put("t.txt", &body);
        let hash = c.run(&["info", "t.txt"]).json["hash"]
            .as_str()
            .unwrap()
            .to_string();
        for a in &mut args {
            if a == "HASH" {
                *a = hash.clone();
            }
        }
        let (code, out, text) = c.trace_log("openat,open,openat2", &args, stdin);
        assert_eq!(code, 0, "{args:?}: {out}");
        let reads = text
            .lines()
            // An O_PATH open (the write's re-check of its target) reads nothing.
            .filter(|l| l.contains("/t.txt\"") && l.contains("O_RDONLY") && !l.contains("O_PATH"))
            .count();
        assert_eq!(
            reads, 1,
            "{args:?} opened t.txt for reading {reads} times:\n{text}"
        );
    }
}

/// Every op `gc` did not mark collected still has each before-state blob it
/// needs, whole (the store is consistent whatever point a kill hit).
fn kept_ops_have_their_blobs(c: &Case, label: &str) {
    let ws = c.ws_state().unwrap();
    let collected: Vec<(u64, u64)> = std::fs::read_to_string(ws.join("journal/collected"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (a, b) = l.split_once('-')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .collect();
    for line in c.journal().lines() {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        let seq = e["seq"].as_u64().unwrap();
        if collected.iter().any(|&(a, b)| a <= seq && seq <= b) {
            continue;
        }
        for ch in e["changes"].as_array().unwrap() {
            if ch["before"]["kind"] != "file" {
                continue;
            }
            let h = ch["before"]["hash"].as_str().unwrap();
            let blob = ws.join("blobs").join(h);
            if blob.exists() {
                assert_eq!(support::sha256sum(&blob), h, "{label}: blob {h} is torn");
                continue;
            }
            assert!(
                packed_blob_is_whole(&ws, h),
                "{label}: kept op {seq} lost its blob {h} (neither loose nor in a pack)"
            );
        }
    }
}

/// Whether some pack in `blobs/packs/` holds `hash` with bytes that hash to it.
/// Read with this test's own reading of the format (`aitools-pack 1`, then
/// `<sha256> <offset> <length>` lines, an empty line, the bytes), not the tool's.
fn packed_blob_is_whole(ws: &std::path::Path, hash: &str) -> bool {
    use sha2::{Digest, Sha256};
    let Ok(rd) = std::fs::read_dir(ws.join("blobs/packs")) else {
        return false;
    };
    for e in rd.flatten() {
        let Ok(bytes) = std::fs::read(e.path()) else {
            continue;
        };
        let Some(end) = bytes.windows(2).position(|w| w == b"\n\n") else {
            continue;
        };
        let index = String::from_utf8_lossy(&bytes[..end]).into_owned();
        let mut lines = index.lines();
        if lines.next() != Some("aitools-pack 1") {
            continue;
        }
        let body = &bytes[end + 2..];
        for l in lines {
            let f: Vec<&str> = l.split(' ').collect();
            if f.len() != 3 || f[0] != hash {
                continue;
            }
            let (Ok(off), Ok(len)) = (f[1].parse::<usize>(), f[2].parse::<usize>()) else {
                continue;
            };
            if let Some(b) = body.get(off..off + len)
                && format!("{:x}", Sha256::digest(b)) == hash
            {
                return true;
            }
        }
    }
    false
}

#[test]
fn a_kill_inside_gc_leaves_every_kept_op_undoable() {
    gc_kill_case(false);
}

/// The same over ops of two files each, whose before-images go into one pack
/// per op: gc removes the collected ops' packs, and a kill at any point leaves
/// every kept op's images readable.
#[test]
fn a_kill_inside_gc_of_packed_ops_leaves_every_kept_op_undoable() {
    gc_kill_case(true);
}

fn gc_kill_case(packed: bool) {
    let c = Case::new();
    c.put("a.txt", "v0\n");
    if packed {
        // Not a.txt's bytes: an op packs two or more distinct images.
        c.put("b.txt", "w0\n");
    }
    let mut ops = Vec::new();
    // Packed ops: each file has a second name outside the workspace while the
    // op runs, so its before-image is not kept as a link but in the pack.
    let pins = tempfile::tempdir().unwrap();
    for i in 0..26 {
        if packed {
            for f in ["a.txt", "b.txt"] {
                let pin = pins.path().join(f);
                let _ = std::fs::remove_file(&pin);
                std::fs::hard_link(c.ws().join(f), &pin).unwrap();
            }
        }
        let r = if packed {
            let pattern = format!("^([vw]){i}$");
            let new = format!("${{1}}{}", i + 1);
            c.ok(&[
                "replace",
                &pattern,
                &new,
                "a.txt",
                "b.txt",
                "--expect-count",
                "2",
            ])
        } else {
            let (old, new) = (format!("v{i}\n"), format!("v{}\n", i + 1));
            c.ok(&["edit", "a.txt", "--old", &old, "--new", &new])
        };
        ops.push(r["op_id"].as_str().unwrap().to_string());
    }
    let packs = |c: &Case| {
        std::fs::read_dir(c.ws_state().unwrap().join("blobs/packs"))
            .map(|rd| rd.count())
            .unwrap_or(0)
    };
    assert_eq!(packs(&c), if packed { 26 } else { 0 }, "packs made");
    // An aborted tx leaves a blob nothing names.
    let tx = c.ok(&["tx", "begin"])["tx"].as_str().unwrap().to_string();
    c.ok(&["write", "t.txt", "--content", "aborted\n", "--tx", &tx]);
    c.ok(&["tx", "abort", &tx]);
    c.save();
    let gc = argv(&["gc", "--budget", "0"]);
    let (code, out, seq) = c.trace(&gc, None);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ops_collected"], 6, "{out}");
    let before = c.tree();
    let pts = points(&counts(&seq), max_points());
    let mut saw = 0;
    for (sys, n) in &pts {
        c.restore();
        c.kill_at(sys, *n, &gc, None);
        let label = format!("gc killed at {sys} #{n}");
        kept_ops_have_their_blobs(&c, &label);
        assert_eq!(c.tree(), before, "{label}: gc touched the tree");
        let again = c.run(&["gc", "--budget", "0"]);
        assert_eq!(again.code, 0, "{label}: {}", again.stderr);
        kept_ops_have_their_blobs(&c, &label);
        if packed {
            assert_eq!(packs(&c), 20, "{label}: the collected ops' packs stay");
        }
        // The newest op still undoes; the oldest is refused clearly.
        let u = c.run(&["undo", ops.last().unwrap()]);
        assert_eq!(u.code, 0, "{label}: {}", u.stderr);
        assert_eq!(
            c.run(&["undo", &ops[0]]).error_code(),
            "refusal.op-collected"
        );
        saw += 1;
    }
    assert!(saw > 10, "only {saw} kill points");
}
