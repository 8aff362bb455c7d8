//! Compiles `agent/` into the binary: every `agent/rules/*.md` and
//! `agent/skills/*.md` becomes an entry of `$OUT_DIR/agent_docs.rs`, so dropping a
//! file in registers it. A malformed file panics here, which fails the build.
//! It also picks how the binary is linked (`link_bin`, build/link.rs: static and
//! non-PIE on Linux with glibc; `AITOOLS_PIE=1`, `AITOOLS_STATIC=0` opt out), and
//! writes the secret mask's tables from data/ as Rust (build/secret_tables.rs).
//! `AITOOLS_COMMIT` names the commit built (build/commit.rs), for `--version`.

#[path = "build/commit.rs"]
mod commit;
#[path = "build/front_matter.rs"]
mod front_matter;
#[path = "build/link.rs"]
mod link;
#[path = "build/secret_tables.rs"]
mod secret_tables;

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=data");
    println!("cargo:rerun-if-changed=agent");
    println!("cargo:rerun-if-changed=build/front_matter.rs");
    println!("cargo:rerun-if-changed=build/link.rs");
    println!("cargo:rerun-if-changed=build/secret_tables.rs");
    println!("cargo:rerun-if-changed=build/commit.rs");
    commit_env();
    link_bin();
    secret_tables();
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

/// `AITOOLS_COMMIT`: the checkout's short HEAD, `-dirty` after it when tracked
/// files differ from HEAD, or "unknown" outside a git checkout. Re-run when HEAD
/// or its ref moves, and when the sources change (they may make the tree dirty).
fn commit_env() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let c = commit::read(Path::new(&dir));
    for p in c
        .watch
        .iter()
        .map(String::as_str)
        .chain(["src", "Cargo.toml", "Cargo.lock"])
    {
        println!("cargo:rerun-if-changed={p}");
    }
    let dirty = if c.dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=AITOOLS_COMMIT={}{dirty}", c.hash);
}

/// The secret mask's tables (build/secret_tables.rs) into `$OUT_DIR`.
fn secret_tables() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    for (data, dest, emit) in [
        (
            "data/secret-formats.tsv",
            "secret_formats.rs",
            secret_tables::formats as fn(&str) -> Result<String, String>,
        ),
        (
            "data/redaction.txt",
            "secret_policy.rs",
            secret_tables::policy,
        ),
    ] {
        let code = emit(&read(Path::new(data))).unwrap_or_else(|e| panic!("{e}"));
        let dest = out.join(dest);
        std::fs::write(&dest, code).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
    }
}

/// Links the binary as `link::choose` says (static non-PIE on Linux with glibc;
/// see build/link.rs, benches/RESULTS.md row 10).
fn link_bin() {
    for var in ["AITOOLS_PIE", "AITOOLS_STATIC", "CC"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let (pie, static_) = (var("AITOOLS_PIE"), var("AITOOLS_STATIC"));
    let os = var("CARGO_CFG_TARGET_OS");
    let env = var("CARGO_CFG_TARGET_ENV");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    // `cc -print-file-name=X` answers X's path, or X itself when not found.
    let locate = |archive: &str| {
        let out = std::process::Command::new(&cc)
            .arg(format!("-print-file-name={archive}"))
            .output()
            .ok()?;
        let path = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (out.status.success() && Path::new(&path).is_absolute() && Path::new(&path).exists())
            .then_some(path)
    };
    let wanted = os == "linux" && env == "gnu" && pie != "1" && static_ != "0";
    let files = if wanted {
        link::stand_ins(&locate)
    } else {
        None
    };
    let choice = link::choose(link::Inputs {
        os: &os,
        env: &env,
        cross: var("TARGET") != var("HOST"),
        pie: Some(pie.as_str()).filter(|v| !v.is_empty()),
        static_: Some(static_.as_str()).filter(|v| !v.is_empty()),
        archives: files.is_some(),
    });
    let dir = Path::new(&var("OUT_DIR")).join("static-link");
    if choice == link::Link::Static {
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for (name, script) in files.unwrap_or_default() {
            let p = dir.join(name);
            std::fs::write(&p, script).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        }
    }
    for arg in choice.args(&dir.to_string_lossy()) {
        println!("cargo:rustc-link-arg-bins={arg}");
    }
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
