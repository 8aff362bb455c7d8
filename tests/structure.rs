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
