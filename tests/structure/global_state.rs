//! No process-wide mutable state outside a short allow-list: no `static` whose
//! type can change after start-up (a `Mutex`, `RwLock`, `Cell`, an atomic), no
//! `thread_local!`, and no `set_current_dir` (a server runs each call with an
//! explicit directory; one call moving the process would move every other).
//! What an invocation caches lives in its context (`ctx.session`). The list is
//! exact: an entry no source needs any more fails too.

/// (file under src/, the item's name, why it must be process-wide).
pub const ALLOWED: &[(&str, &str, &str)] = &[
    // A signal handler can only reach a static.
    (
        "aoi/mod.rs",
        "CAUGHT",
        "SIGINT/SIGTERM flag set by the handler",
    ),
    (
        "console/signals.rs",
        "CAUGHT",
        "SIGINT/SIGTERM flag set by the handler",
    ),
    // Tags must differ across every call of the process, not only one call's.
    (
        "workspace/proctree.rs",
        "N",
        "counter making each started program's tag unique",
    ),
    // The process's own children, which the subreaper must never kill as orphans.
    (
        "workspace/subreaper.rs",
        "OWN",
        "children this process supervises",
    ),
    // Which run this process reaps itself: a property of the process (its subreaper
    // status), shared by concurrent calls of a server, not of one call.
    (
        "workspace/subreaper.rs",
        "PLAIN",
        "the one run reaped by this process itself",
    ),
    // Masks a command counted on its thread before its envelope (taken per call).
    (
        "protocol/redact/mod.rs",
        "TALLY",
        "thread_local mask tally, taken by each call",
    ),
];

const MUTABLE: &[&str] = &["Mutex", "RwLock", "Cell<", "RefCell", "Atomic"];

/// The process-wide mutable items of one file's non-test code: (name, line).
pub fn found_in(code: &str) -> Vec<(String, String)> {
    let code = code.split("#[cfg(test)]").next().unwrap_or(code);
    let mut out = Vec::new();
    let mut in_thread_local = false;
    for l in code.lines() {
        let t = l.trim_start();
        if t.starts_with("//") {
            continue;
        }
        if t.contains("set_current_dir") {
            out.push(("set_current_dir".to_string(), l.trim().to_string()));
        }
        if t.starts_with("thread_local!") {
            in_thread_local = true;
        }
        let item = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        let Some(rest) = item.strip_prefix("static ") else {
            continue;
        };
        let name: String = rest
            .trim_start_matches("mut ")
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if in_thread_local || MUTABLE.iter().any(|m| rest.contains(m)) {
            out.push((name, l.trim().to_string()));
        }
        in_thread_local = false;
    }
    out
}

/// Every finding of `files` (path under src/, source) the allow-list does not
/// name, and every allow-list entry nothing needs.
pub fn check(files: &[(String, String)], allowed: &[(&str, &str, &str)]) -> Vec<String> {
    let mut bad = Vec::new();
    let mut used = vec![false; allowed.len()];
    for (rel, code) in files {
        for (name, line) in found_in(code) {
            match allowed.iter().position(|(f, n, _)| f == rel && *n == name) {
                Some(i) => used[i] = true,
                None => bad.push(format!(
                    "{rel}: process-wide mutable state `{line}` (keep it in the invocation's \
                     context, ctx.session, or justify it in ALLOWED)"
                )),
            }
        }
    }
    for (i, (f, n, _)) in allowed.iter().enumerate() {
        if !used[i] {
            bad.push(format!("{f}: ALLOWED names `{n}`, which no longer exists"));
        }
    }
    bad
}

fn sources() -> Vec<(String, String)> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    super::rust_files(&src, &mut files);
    files
        .iter()
        .map(|f| {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(f).unwrap_or_default())
        })
        .collect()
}

#[test]
fn no_process_wide_mutable_state_but_the_allowed() {
    let bad = check(&sources(), ALLOWED);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_global_state_rule_catches_its_fixtures() {
    let file = |rel: &str, code: &str| vec![(rel.to_string(), code.to_string())];
    for code in [
        "//! c\nstatic DIRS: Mutex<Option<HashMap<PathBuf, PathBuf>>> = Mutex::new(None);\n",
        "pub(crate) static SEEN: RwLock<u8> = RwLock::new(0);\n",
        "fn f() {\n    static N: AtomicU64 = AtomicU64::new(0);\n}\n",
        "thread_local! {\n    /// doc\n    static T: Cell<u8> = const { Cell::new(0) };\n}\n",
        "fn f(d: &Path) { let _ = std::env::set_current_dir(d); }\n",
    ] {
        assert_eq!(check(&file("workspace/x.rs", code), &[]).len(), 1, "{code}");
    }
    // Immutable tables, `&'static`, and test code are no state.
    for code in [
        "fn f() {\n    static T: OnceLock<Table> = OnceLock::new();\n}\n",
        "fn f(s: &'static str) {}\n",
        "#[cfg(test)]\nmod t { static M: Mutex<u8> = Mutex::new(0); }\n",
        "// std::env::set_current_dir(d) is never called\n",
    ] {
        assert!(
            check(&file("workspace/x.rs", code), &[]).is_empty(),
            "{code}"
        );
    }
    // Allowed by file and name; an entry nothing needs fails.
    let allowed = &[("workspace/x.rs", "N", "why")];
    let counter = "fn f() {\n    static N: AtomicU64 = AtomicU64::new(0);\n}\n";
    assert!(check(&file("workspace/x.rs", counter), allowed).is_empty());
    assert_eq!(check(&file("workspace/y.rs", counter), allowed).len(), 2);
    assert_eq!(
        check(&file("workspace/x.rs", "//! none\n"), allowed).len(),
        1
    );
}
