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
