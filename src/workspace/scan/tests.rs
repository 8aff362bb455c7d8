//! Unit tests of the scan: ignore rules, filters, overlays and budgets.

use super::*;
#[test]
fn every_exclude_row_parses() {
    for line in EXCLUDES.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (kind, glob) = line.split_once('\t').expect("two columns");
        assert!(kind == "always" || kind == "no-git", "{line}");
        compile_glob(glob).map_err(|e| e.message()).expect("glob");
    }
}
#[test]
fn globs_base_name_or_path() {
    let g = compile_glob("*.rs").map_err(|e| e.message()).expect("glob");
    assert!(g.is_match(Path::new("a/b/c.rs"), std::ffi::OsStr::new("c.rs")));
    let g = compile_glob("src/*.rs")
        .map_err(|e| e.message())
        .expect("glob");
    assert!(g.whole);
    assert!(g.is_match(Path::new("src/c.rs"), std::ffi::OsStr::new("c.rs")));
    assert!(!g.is_match(Path::new("src/a/c.rs"), std::ffi::OsStr::new("c.rs")));
    let g = compile_glob("src/**/*.rs")
        .map_err(|e| e.message())
        .expect("glob");
    assert!(g.is_match(Path::new("src/a/b/c.rs"), std::ffi::OsStr::new("c.rs")));
    let g = compile_glob("src/main.rs")
        .map_err(|e| e.message())
        .expect("glob");
    assert!(matches!(g.how, GlobMatch::Exact(_)));
    assert!(g.is_match(Path::new("src/main.rs"), std::ffi::OsStr::new("main.rs")));
    assert!(!g.is_match(Path::new("main.rs"), std::ffi::OsStr::new("main.rs")));
    assert!(!g.is_match(Path::new("src/main.rsx"), std::ffi::OsStr::new("main.rsx")));
    let g = compile_glob(".git/")
        .map_err(|e| e.message())
        .expect("glob");
    assert!(g.is_match(Path::new("a/.git"), std::ffi::OsStr::new(".git")));
    assert!(!g.is_match(Path::new("a/.gitx"), std::ffi::OsStr::new(".gitx")));
}
#[test]
fn one_star_globs_match_as_globset_does() {
    let names = [
        "",
        "a",
        ".aitools-op-1.tmp",
        ".aitools-.tmp",
        ".aitools-x.tmpx",
        "x.aitools-1.tmp",
        "main.rs",
        ".rs",
        "rs",
        "a.rs.bak",
        "sub/a.rs",
        "a.r",
        "README",
        "READ.ME",
    ];
    for pat in ["*.rs", ".aitools-*.tmp", "*", "READ*", "*ME", "/*.rs"] {
        let ours = compile_glob(pat).map_err(|e| e.message()).expect("glob");
        assert!(matches!(ours.how, GlobMatch::Star(..)), "{pat}");
        let body = pat.trim_start_matches('/');
        let reference = GlobBuilder::new(body)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .expect("glob")
            .compile_matcher();
        for n in names {
            let path = Path::new(n);
            let base = path.file_name().unwrap_or_default();
            let subject = if ours.whole { path.as_os_str() } else { base };
            assert_eq!(
                ours.is_match(path, base),
                reference.is_match(subject),
                "{pat} on {n:?}"
            );
        }
    }
}
#[test]
fn a_listing_that_fails_part_way_keeps_what_it_read_and_names_the_rest() {
    use std::ffi::OsString;
    let dir = Path::new("/w/d");
    let ft = std::fs::symlink_metadata("/").expect("/").file_type();
    let failed = || io::Error::from_raw_os_error(2);
    let entries: Vec<io::Result<(OsString, io::Result<std::fs::FileType>)>> = vec![
        Ok(("b".into(), Ok(ft))),
        Ok(("gone".into(), Err(failed()))),
        Ok(("a".into(), Ok(ft))),
        Err(failed()),
        Ok(("never".into(), Ok(ft))),
    ];
    let mut got = lister::collect(dir, entries.into_iter());
    let names: Vec<_> = got.names.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(names, vec![OsString::from("a"), OsString::from("b")]);
    let errors = got.errors(dir, 3);
    let paths: Vec<_> = errors.iter().filter_map(error_path).collect();
    assert_eq!(paths, vec![dir.join("gone"), dir.to_path_buf()]);
}

/// A listed file swapped for a FIFO: with no writer it reads as empty at once;
/// with a writer streaming without end it is refused once past the check
/// point, not read forever; a regular file reads whole.
#[test]
fn a_listed_fifo_never_blocks_nor_streams_without_end() {
    use std::io::{Read, Write};
    let tmp = tempfile::tempdir().expect("temp dir");
    // A walk's paths are real paths (no symlink on the way: see `open_walked`).
    let real = std::fs::canonicalize(tmp.path()).expect("real path");
    let file = real.join("f");
    std::fs::write(&file, vec![b'x'; 3 << 20]).expect("write");
    let mut got = Vec::new();
    open_listed(&file)
        .and_then(|mut f| f.read_to_end(&mut got))
        .expect("a regular file reads");
    assert_eq!(got.len(), 3 << 20);
    let fifo = real.join("p");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let mut got = Vec::new();
    open_listed(&fifo)
        .and_then(|mut f| f.read_to_end(&mut got))
        .expect("no writer: end of file");
    assert!(got.is_empty());
    let mut reader = open_listed(&fifo).expect("open");
    let w = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&w)
            .expect("writer");
        let chunk = vec![b'y'; 64 << 10];
        // Ends when the reader closes its end (EPIPE).
        while f.write_all(&chunk).is_ok() {}
    });
    let mut total = 0u64;
    let mut buf = vec![0u8; 64 << 10];
    let t = std::time::Instant::now();
    let end = loop {
        match reader.read(&mut buf) {
            // Before the writer has opened its end: no writer yet.
            Ok(0) if total == 0 && t.elapsed() < std::time::Duration::from_secs(10) => {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Ok(0) => break None,
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Err(e) => break Some(e.kind()),
        }
        assert!(total <= 4 << 20, "read {total} bytes of an endless pipe");
    };
    drop(reader);
    writer.join().expect("writer thread");
    assert_eq!(
        end,
        Some(std::io::ErrorKind::InvalidData),
        "after {total} bytes"
    );
}

/// A listed file or directory swapped for a symlink is refused (`ELOOP`), never
/// followed: not a final symlink, not one on the way.
#[test]
fn a_listed_path_through_a_symlink_is_refused() {
    use std::io::Read;
    let tmp = tempfile::tempdir().expect("temp dir");
    let real = std::fs::canonicalize(tmp.path()).expect("real path");
    std::fs::create_dir(real.join("d")).expect("mkdir");
    std::fs::write(real.join("d/secret"), "outside\n").expect("write");
    std::os::unix::fs::symlink(real.join("d/secret"), real.join("f")).expect("symlink");
    std::os::unix::fs::symlink(real.join("d"), real.join("l")).expect("symlink");
    let mut got = String::new();
    open_listed(&real.join("d/secret"))
        .and_then(|mut f| f.read_to_string(&mut got))
        .expect("the file itself reads");
    assert_eq!(got, "outside\n");
    let mut refused = vec![real.join("f")];
    // Where the kernel has no openat2 (found out by the open above), only a
    // final symlink is refused.
    if disk::refuses_any_symlink() {
        refused.push(real.join("l/secret"));
    }
    for p in refused {
        let listed = open_listed(&p).map(|_| ());
        assert_eq!(
            listed.map_err(|e| e.raw_os_error()),
            Err(Some(libc::ELOOP)),
            "{p:?}"
        );
        assert!(open_sized(&p).is_err(), "{p:?}");
    }
}
