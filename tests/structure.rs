//! The architecture rules, checked on the sources: core never names a command
//! family or the composition root; a family never reaches into another; nothing but
//! `src/dispatch.rs` prints or exits; every module opens with a doc comment. A
//! fixture tree that breaks each rule proves the check can fail.

use std::path::{Path, PathBuf};

const CORE: &[&str] = &["protocol", "workspace", "text", "store"];
const ROOT_MODULES: &[&str] = &[
    "commands",
    "cli",
    "registry",
    "dispatch",
    "discovery",
    "tx_flow",
    "mcp",
];
const PRINTS: &[&str] = &[
    "println!",
    "print!(",
    "eprintln!",
    "eprint!(",
    "dbg!",
    "process::exit",
    "io::stdout()",
    "io::stderr()",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every rule broken under `src`, one line each.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let top = rel.split('/').next().unwrap_or("");
        if CORE.contains(&top) {
            for m in ROOT_MODULES {
                if code.contains(&format!("crate::{m}")) {
                    found.push(format!("{rel}: core uses crate::{m}"));
                }
            }
        }
        if let Some(rest) = rel.strip_prefix("commands/")
            && let Some((family, _)) = rest.split_once('/')
        {
            for (i, _) in code.match_indices("crate::commands::") {
                let after = &code[i + "crate::commands::".len()..];
                let other: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if other != family {
                    found.push(format!("{rel}: family {family} reaches into {other}"));
                }
            }
            if code.contains("super::super::") {
                found.push(format!(
                    "{rel}: family {family} reaches a sibling through super::super"
                ));
            }
            for m in ["cli", "dispatch", "registry::", "discovery"] {
                if code.contains(&format!("crate::{m}")) {
                    found.push(format!(
                        "{rel}: family uses the composition root crate::{m}"
                    ));
                }
            }
        }
        if rel != "dispatch.rs" {
            for p in PRINTS {
                if code.contains(p) {
                    found.push(format!("{rel}: prints or exits ({p}) outside dispatch.rs"));
                }
            }
        }
        if !text.trim_start().starts_with("//!") {
            found.push(format!("{rel}: no module doc comment"));
        }
    }
    found
}

#[test]
fn the_sources_keep_the_rules() {
    let v = violations(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(v.is_empty(), "architecture rules broken:\n{}", v.join("\n"));
}

#[test]
fn the_check_catches_each_broken_rule() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let put = |rel: &str, body: &str| {
        let p = src.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    put(
        "protocol/bad.rs",
        "//! core\nuse crate::commands::inspect;\n",
    );
    put(
        "commands/edit/bad.rs",
        "//! family\nuse crate::commands::search::scan;\n",
    );
    put(
        "commands/search/loud.rs",
        "//! family\nfn f() { println!(\"hi\"); }\n",
    );
    put("text/undocumented.rs", "fn f() {}\n");
    put(
        "store/exit.rs",
        "//! store\nfn f() { std::process::exit(1); }\n",
    );
    put(
        "dispatch.rs",
        "//! may print\nfn f() { println!(\"ok\"); }\n",
    );
    let v = violations(src);
    let has = |needle: &str| v.iter().any(|l| l.contains(needle));
    assert!(has("protocol/bad.rs: core uses crate::commands"), "{v:?}");
    assert!(has("family edit reaches into search"), "{v:?}");
    assert!(has("commands/search/loud.rs: prints"), "{v:?}");
    assert!(has("text/undocumented.rs: no module doc comment"), "{v:?}");
    assert!(has("store/exit.rs: prints or exits"), "{v:?}");
    assert!(!has("dispatch.rs:"), "{v:?}");
}

/// The code of a file outside its `#[cfg(test)]` part (unit tests may build
/// fixtures with std::fs).
fn non_test(code: &str) -> &str {
    code.split("#[cfg(test)]").next().unwrap_or(code)
}

/// Handlers read and write files only through the store (the tx-aware view and
/// the write protocol): no `std::fs` in src/commands/. `known` lists the files
/// that still do (debt that only shrinks: a listed file that no longer uses
/// std::fs is reported too, so the list is kept exact).
fn fs_in_commands(rel: &str, code: &str, known: &[&str]) -> Option<String> {
    if !rel.starts_with("commands/") {
        return None;
    }
    let uses = non_test(code).contains("std::fs");
    match (uses, known.contains(&rel)) {
        (true, false) => Some(format!(
            "{rel}: uses std::fs in a command (read through store::view)"
        )),
        (false, true) => Some(format!(
            "{rel}: listed in FS_DEBT but no longer uses std::fs"
        )),
        _ => None,
    }
}

/// Files of src/commands/ that still touch the file system directly.
const FS_DEBT: &[&str] = &[
    "commands/agent/feedback_store.rs",
    "commands/edit/files.rs",
    "commands/inspect/diff.rs",
    "commands/inspect/info.rs",
    "commands/inspect/read.rs",
    "commands/search/mod.rs",
    "commands/search/overview.rs",
];

/// The store keeps no process-wide state: no `static` item (a Mutex, Atomic or
/// OnceLock cache, a flag) in src/store/; it lives in the session in `Ctx`.
fn static_in_store(rel: &str, code: &str) -> Option<String> {
    if !rel.starts_with("store/") {
        return None;
    }
    non_test(code).lines().find_map(|l| {
        let t = l.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        t.starts_with("static ")
            .then(|| format!("{rel}: process-wide state `{}`", l.trim()))
    })
}

fn new_rules(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        found.extend(fs_in_commands(&rel, &code, FS_DEBT));
        found.extend(static_in_store(&rel, &code));
    }
    found
}

#[test]
fn the_sources_keep_the_store_rules() {
    let v = new_rules(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(v.is_empty(), "store rules broken:\n{}", v.join("\n"));
}

#[test]
fn the_store_rules_catch_their_fixtures() {
    let handler = "//! h\nfn f(p: &Path) { let b = std::fs::read(p); }\n";
    assert!(fs_in_commands("commands/search/code.rs", handler, FS_DEBT).is_some());
    assert!(fs_in_commands("store/view.rs", handler, FS_DEBT).is_none());
    let tests_only = "//! h\n#[cfg(test)]\nmod t { fn f() { std::fs::write(\"a\", \"\"); } }\n";
    assert!(fs_in_commands("commands/edit/x.rs", tests_only, FS_DEBT).is_none());
    // A debt entry that was paid must leave the list.
    assert!(fs_in_commands("commands/inspect/read.rs", "//! clean\n", FS_DEBT).is_some());
    for state in [
        "static HELD: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());",
        "pub static SEEN: OnceLock<u8> = OnceLock::new();",
        "    static OPENAT2: AtomicU8 = AtomicU8::new(0);",
    ] {
        let code = format!("//! s\n{state}\n");
        assert!(static_in_store("store/lock.rs", &code).is_some(), "{state}");
        assert!(static_in_store("text/lang.rs", &code).is_none(), "{state}");
    }
    assert!(static_in_store("store/x.rs", "fn f(s: &'static str) {}\n").is_none());
    // And through the tree walk, as the real sources are checked.
    let dir = tempfile::tempdir().unwrap();
    let put = |rel: &str, body: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    put("commands/inspect/peek.rs", handler);
    put(
        "store/cache.rs",
        "//! c\nstatic CACHE: Mutex<u8> = Mutex::new(0);\n",
    );
    let v = new_rules(dir.path());
    assert!(
        v.iter()
            .any(|l| l.starts_with("commands/inspect/peek.rs: uses std::fs")),
        "{v:?}"
    );
    assert!(
        v.iter()
            .any(|l| l.starts_with("store/cache.rs: process-wide state")),
        "{v:?}"
    );
}
