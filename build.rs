//! Compiles `agent/` into the binary: every `agent/rules/*.md` and
//! `agent/skills/*.md` becomes an entry of `$OUT_DIR/agent_docs.rs`, so dropping a
//! file in registers it. A malformed file panics here, which fails the build.

#[path = "build/front_matter.rs"]
mod front_matter;

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=data");
    println!("cargo:rerun-if-changed=agent");
    println!("cargo:rerun-if-changed=build/front_matter.rs");
    // A non-PIE executable on Linux: the loader has no ~17k relative relocations to
    // apply and no RELRO pages to copy at start-up (`--version` 609k → 378k
    // instructions, 174 → 97 page faults; benches/RESULTS.md, issue 12). The cost
    // is address randomisation of the executable's own code; a packager who wants
    // it back builds with `AITOOLS_PIE=1`.
    println!("cargo:rerun-if-env-changed=AITOOLS_PIE");
    let pie = std::env::var_os("AITOOLS_PIE").is_some_and(|v| v == "1");
    if !pie && std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    let agent = Path::new("agent");
    let brief_text = read(&agent.join("brief.md"));
    let brief =
        front_matter::check_brief(&brief_text).unwrap_or_else(|e| panic!("agent/brief.md: {e}"));
    let rules = folder(&agent.join("rules"));
    let skills = folder(&agent.join("skills"));
    if let Err(e) = front_matter::check_rules(&rules) {
        panic!("{e}");
    }
    if skills.is_empty() {
        panic!("agent/skills/ has no skill");
    }
    let feedback = rules
        .iter()
        .find(|r| r.name == "writeback")
        .map(|r| r.description.clone())
        .unwrap_or_default();
    let mut out = String::new();
    out.push_str(&format!("pub const BRIEF: &str = {brief:?};\n"));
    out.push_str(&format!("pub const FEEDBACK_LINE: &str = {feedback:?};\n"));
    for (name, docs) in [("RULES", &rules), ("SKILLS", &skills)] {
        out.push_str(&format!("pub const {name}: &[Doc] = &[\n"));
        for d in docs.iter() {
            out.push_str(&format!(
                "    Doc {{ name: {:?}, description: {:?}, content: {:?} }},\n",
                d.name, d.description, d.body
            ));
        }
        out.push_str("];\n");
    }
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("agent_docs.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}

fn read(path: &Path) -> String {
    println!("cargo:rerun-if-changed={}", path.display());
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `.md` of a folder, parsed and validated, sorted by name.
fn folder(dir: &Path) -> Vec<front_matter::Doc> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    let mut docs: Vec<front_matter::Doc> = Vec::new();
    for p in paths {
        if p.is_dir() {
            panic!(
                "{}: agent folders hold .md files only, no subfolders",
                p.display()
            );
        }
        if p.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let stem = p
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let doc = front_matter::parse(&stem, &read(&p))
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        docs.push(doc);
    }
    docs.sort_by(|a, b| a.name.cmp(&b.name));
    docs
}
