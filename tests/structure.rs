//! The architecture rules, checked on the sources: core never names a command
//! family or the composition root; a family never reaches into another; nothing but
//! `src/dispatch.rs` prints or exits; every module opens with a doc comment. A
//! fixture tree that breaks each rule proves the check can fail.

use std::path::{Path, PathBuf};

#[path = "structure/functions.rs"]
mod functions;
#[path = "structure/global_state.rs"]
mod global_state;

const CORE: &[&str] = &["protocol", "workspace", "text", "store"];
const ROOT_MODULES: &[&str] = &[
    "commands",
    "cli",
    "command_error",
    "registry",
    "dispatch",
    "discovery",
    "mcp",
    "oui",
    "console",
];
/// Core paths (a module folder, or a file) that speak only their own typed
/// errors: no `CmdError`, the CLI's error, which `command_error/` maps them to.
/// Only grows, as the rest of the core is converted; the store is whole.
const TYPED_ERRORS: &[&str] = &["workspace/", "store/"];

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
        if TYPED_ERRORS.iter().any(|t| rel.starts_with(t)) && code.contains("CmdError") {
            found.push(format!(
                "{rel}: names CmdError; return the module's typed error (worded in command_error/)"
            ));
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

/// Files over this many lines are hard to read whole; split them by concern.
const MAX_LINES: usize = 800;

/// Files still over `MAX_LINES`, each with the engineer splitting it. Remove an
/// entry when its file is split; the test fails on an entry that is no longer needed.
const LONG_FILES: &[&str] = &[];

/// Import cycles still to untangle: a cycle is allowed when every module of its
/// group starts with one of an entry's prefixes. The test fails on an entry no
/// cycle needs any more.
const ALLOWED_CYCLES: &[&[&str]] = &[
    // Empty: the composition root (registry, dispatch) hands the command list and
    // its call runners to schema, --help, the machine modes and mcp through
    // `protocol::host::Host`, the way `workspace::Invoker` serves batch.
];

/// The module a file under `src` is (`store/write.rs` → `store::write`,
/// `protocol/mod.rs` → `protocol`, `lib.rs` → ``).
fn module_of(rel: &str) -> String {
    let path = rel.trim_end_matches(".rs");
    let path = path.strip_suffix("/mod").unwrap_or(path);
    match path {
        "lib" | "main" => String::new(),
        p => p.replace('/', "::"),
    }
}

/// The `crate::` paths a source names (in `use` lines, groups expanded one level
/// deep, and inline), each as its words.
fn crate_paths(code: &str, module: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    // `super::x` in `store::write` is `crate::store::x`.
    let parent: Vec<String> = {
        let mut w: Vec<String> = module
            .split("::")
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect();
        w.pop();
        w
    };
    let starts = code
        .match_indices("crate::")
        .map(|(i, m)| (i, m, Vec::new()))
        .chain(
            code.match_indices("super::")
                .map(|(i, m)| (i, m, parent.clone())),
        );
    for (i, m, base) in starts {
        if i > 0
            && code[..i]
                .ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == ':')
        {
            continue;
        }
        let rest = &code[i + m.len()..];
        let mut words: Vec<String> = base;
        let mut cur = rest;
        loop {
            let w: String = cur
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if w.is_empty() {
                break;
            }
            cur = &cur[w.len()..];
            words.push(w);
            match cur.strip_prefix("::") {
                Some(r) => cur = r,
                None => break,
            }
        }
        if let Some(group) = cur.strip_prefix('{') {
            let body: String = group.chars().take_while(|c| *c != '}').collect();
            for item in body.split(',') {
                let mut w = words.clone();
                w.extend(
                    item.trim()
                        .split("::")
                        .map(|x| x.trim().trim_start_matches('{').to_string())
                        .filter(|x| !x.is_empty()),
                );
                out.push(w);
            }
        }
        out.push(words);
    }
    out
}

/// The file-level import graph: module → the modules it names through `crate::`
/// (the longest prefix of each path that is a module).
fn import_graph(
    src: &Path,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut sources = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap_or_default();
        // Tests inside a file are not part of the module's dependencies.
        let text = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        sources.push((module_of(&rel), code));
    }
    let modules: std::collections::BTreeSet<String> =
        sources.iter().map(|(m, _)| m.clone()).collect();
    let mut graph = std::collections::BTreeMap::new();
    for (m, code) in &sources {
        let mut to = std::collections::BTreeSet::new();
        for words in crate_paths(code, m) {
            for n in (1..=words.len()).rev() {
                let target = words[..n].join("::");
                if modules.contains(&target) {
                    if &target != m && !m.starts_with(&format!("{target}::")) {
                        to.insert(target);
                    }
                    break;
                }
            }
        }
        graph.insert(m.clone(), to);
    }
    graph
}

/// Every import cycle, one per strongly connected group of modules, written from
/// its smallest module along the shortest way back to it.
fn import_cycles(src: &Path) -> Vec<(String, Vec<String>)> {
    let graph = import_graph(src);
    let reach = |from: &str| {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(n) = stack.pop() {
            for t in graph.get(&n).into_iter().flatten() {
                if seen.insert(t.clone()) {
                    stack.push(t.clone());
                }
            }
        }
        seen
    };
    let mut done = std::collections::BTreeSet::new();
    let mut cycles = Vec::new();
    for m in graph.keys() {
        if done.contains(m) || !reach(m).contains(m) {
            continue;
        }
        let group: Vec<String> = graph
            .keys()
            .filter(|o| reach(m).contains(*o) && reach(o).contains(m))
            .cloned()
            .collect();
        done.extend(group.iter().cloned());
        // The shortest way from m back to m (breadth first).
        let mut prev: std::collections::BTreeMap<String, String> = Default::default();
        let mut queue = std::collections::VecDeque::from([m.clone()]);
        let mut path = Vec::new();
        'bfs: while let Some(n) = queue.pop_front() {
            for t in graph.get(&n).into_iter().flatten() {
                if t == m {
                    let mut at = n.clone();
                    path.push(at.clone());
                    while let Some(p) = prev.get(&at) {
                        path.push(p.clone());
                        at = p.clone();
                    }
                    break 'bfs;
                }
                if !prev.contains_key(t) && t != m {
                    prev.insert(t.clone(), n.clone());
                    queue.push_back(t.clone());
                }
            }
        }
        path.reverse();
        path.push(m.clone());
        cycles.push((
            format!("{} (group: {})", path.join(" -> "), group.join(", ")),
            group,
        ));
    }
    cycles
}

fn long_files(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).ok()?.lines().count();
            let rel = f
                .strip_prefix(src)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            (n > MAX_LINES).then_some(rel)
        })
        .collect()
}

#[test]
fn no_file_over_800_lines_but_the_listed_ones() {
    let long = long_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let new: Vec<&String> = long
        .iter()
        .filter(|f| !LONG_FILES.contains(&f.as_str()))
        .collect();
    assert!(new.is_empty(), "files over {MAX_LINES} lines: {new:?}");
    let stale: Vec<&&str> = LONG_FILES
        .iter()
        .filter(|f| !long.iter().any(|l| l == *f))
        .collect();
    assert!(
        stale.is_empty(),
        "no longer over {MAX_LINES} lines, drop from LONG_FILES: {stale:?}"
    );
}

#[test]
fn no_import_cycles_but_the_listed_ones() {
    let cycles = import_cycles(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let allowed = |entry: &[&str], c: &(String, Vec<String>)| {
        c.1.iter().all(|m| entry.iter().any(|p| m.starts_with(p)))
    };
    let new: Vec<&String> = cycles
        .iter()
        .filter(|c| !ALLOWED_CYCLES.iter().any(|a| allowed(a, c)))
        .map(|c| &c.0)
        .collect();
    assert!(
        new.is_empty(),
        "import cycles:\n{}",
        new.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let stale: Vec<&&[&str]> = ALLOWED_CYCLES
        .iter()
        .filter(|a| !cycles.iter().any(|c| allowed(a, c)))
        .collect();
    assert!(
        stale.is_empty(),
        "no cycle needs these ALLOWED_CYCLES entries: {stale:?}"
    );
}

#[test]
fn the_size_and_cycle_checks_catch_a_fixture_that_breaks_them() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let put = |rel: &str, body: &str| {
        let p = src.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    put("lib.rs", "//! root\npub mod a;\npub mod b;\n");
    put("a/mod.rs", "//! a\npub mod x;\n");
    put("a/x.rs", "//! x\nuse crate::b::{y::Thing, z};\n");
    put("b/mod.rs", "//! b\npub mod y;\n");
    put("b/y.rs", "//! y\nfn f() { crate::a::x::g(); }\n");
    put("b/z.rs", "//! z\nuse crate::b::y;\n");
    put("big.rs", &"// line\n".repeat(MAX_LINES + 1));
    let cycles = import_cycles(src);
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(
        cycles[0].0.starts_with("a::x -> b::y -> a::x"),
        "{cycles:?}"
    );
    // z is in it too: x names z (a group member), z names y.
    assert_eq!(cycles[0].1, ["a::x", "b::y", "b::z"]);
    assert_eq!(long_files(src), ["big.rs"]);
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
    put(
        "workspace/loud.rs",
        "//! core\nfn f() -> Result<(), crate::protocol::CmdError> { Ok(()) }\n",
    );
    // Any store file, however deep (the write protocol, tx commit).
    put(
        "store/write/plan.rs",
        "//! store\nuse crate::protocol::CmdError;\nfn f() -> Result<(), CmdError> { Ok(()) }\n",
    );
    let v = violations(src);
    let has = |needle: &str| v.iter().any(|l| l.contains(needle));
    assert!(has("protocol/bad.rs: core uses crate::commands"), "{v:?}");
    assert!(has("family edit reaches into search"), "{v:?}");
    assert!(has("commands/search/loud.rs: prints"), "{v:?}");
    assert!(has("text/undocumented.rs: no module doc comment"), "{v:?}");
    assert!(has("store/exit.rs: prints or exits"), "{v:?}");
    assert!(!has("dispatch.rs:"), "{v:?}");
    assert!(has("workspace/loud.rs: names CmdError"), "{v:?}");
    assert!(has("store/write/plan.rs: names CmdError"), "{v:?}");
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
    let code = non_test(code);
    // `std::fs` in any spelling, and opening a file without naming the module
    // (`File::open` on an imported `File`): handlers open through `ctx.files()`.
    let uses = [
        "std::fs",
        "std::{fs",
        "File::open",
        "File::create",
        "OpenOptions",
    ]
    .iter()
    .any(|p| code.contains(p));
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
const FS_DEBT: &[&str] = &[];

/// Handlers reach the tx-aware view only through the handle `ctx.files()`
/// (`store::files`): no `view::` path (`store::view`, an imported `view`) in
/// src/commands/. `known` lists the files that still do (debt that only
/// shrinks: a listed file that no longer names the view is reported too).
fn view_in_commands(rel: &str, code: &str, known: &[&str]) -> Option<String> {
    if !rel.starts_with("commands/") {
        return None;
    }
    let code = non_test(code);
    // `view::` as a path of its own, not the tail of a name (`lines_view::`).
    let uses = code.match_indices("view::").any(|(i, _)| {
        code[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    });
    match (uses, known.contains(&rel)) {
        (true, false) => Some(format!(
            "{rel}: uses store::view in a command (read through ctx.files())"
        )),
        (false, true) => Some(format!(
            "{rel}: listed in VIEW_DEBT but no longer uses store::view"
        )),
        _ => None,
    }
}

/// Files of src/commands/ that still call `store::view` directly.
const VIEW_DEBT: &[&str] = &[];

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

/// The store never decides anything by a command's name (what went wrong is
/// data, `store::error::StoreError`, worded in `src/command_error/store.rs`).
fn store_words_errors(rel: &str, code: &str) -> Vec<String> {
    if !rel.starts_with("store/") {
        return Vec::new();
    }
    let code = non_test(code);
    let mut found = Vec::new();
    for pat in ["command ==", "command !=", "command.as_str()"] {
        if code.contains(pat) {
            found.push(format!("{rel}: decides by a command's name (`{pat}`)"));
        }
    }
    found
}

/// What words a user-facing error: the error, its repair, an `aitools` command line.
const ERROR_WORDING: &[&str] = &["CmdError::new(", "Repair::new(", "shell::aitools("];

/// Core files that still word their own errors (debt that only shrinks: a listed
/// file that no longer does is reported too). The core returns typed errors and
/// `src/command_error/` words them; `protocol/error.rs` is the type's home.
const ERROR_DEBT: &[&str] = &[];

/// Core files that spell an `aitools` line that is no error: a continuation in
/// `next_commands` or a rewritten command. They may call `shell::aitools(`, but
/// never build a `CmdError` or a `Repair`.
const NEXT_COMMANDS: &[&str] = &[
    // `without_tx`: an inner command's repair with the tx option taken out.
    "protocol/invoke.rs",
    // `raise_budget`: a cut scan's call again with the budget raised.
    "workspace/scan_args.rs",
    // `reapply`: the command that appends a kept tail again.
    "store/appends.rs",
    // The call again with more diff lines.
    "store/write/answer.rs",
    // `diff --op` / `tx diff` when a write's diffs were cut.
    "store/write/mod.rs",
];

/// Core (protocol, workspace, text, store) returns typed errors: no `CmdError::new(`,
/// `Repair::new(` or `shell::aitools(` outside protocol/error.rs, `debt` and (for
/// `shell::aitools(` only) `next`.
fn error_wording_in_core(rel: &str, code: &str, debt: &[&str], next: &[&str]) -> Option<String> {
    let top = rel.split('/').next().unwrap_or("");
    if !CORE.contains(&top) || rel == "protocol/error.rs" {
        return None;
    }
    let code = non_test(code);
    let used: Vec<&str> = ERROR_WORDING
        .iter()
        .copied()
        .filter(|w| code.contains(w))
        .filter(|w| !(*w == "shell::aitools(" && next.contains(&rel)))
        .collect();
    match (used.first(), debt.contains(&rel)) {
        (Some(w), false) => Some(format!(
            "{rel}: core words a user-facing error ({w}); return a typed error and map it in src/command_error/"
        )),
        (None, true) => Some(format!(
            "{rel}: listed in ERROR_DEBT but no longer words an error"
        )),
        _ => None,
    }
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
        found.extend(view_in_commands(&rel, &code, VIEW_DEBT));
        found.extend(static_in_store(&rel, &code));
        found.extend(store_words_errors(&rel, &code));
        found.extend(error_wording_in_core(
            &rel,
            &code,
            ERROR_DEBT,
            NEXT_COMMANDS,
        ));
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
    let listed = &["commands/inspect/old.rs"];
    assert!(fs_in_commands("commands/inspect/old.rs", "//! clean\n", listed).is_some());
    assert!(fs_in_commands("commands/inspect/old.rs", handler, listed).is_none());
    // Other spellings: an imported module, an opened file, open options.
    for open in [
        "use std::{fs, io};\nfn f() { fs::read(\"a\"); }\n",
        "use x::File;\nfn f() { File::open(\"a\"); }\n",
        "fn f() { let o = OpenOptions::new(); }\n",
    ] {
        assert!(
            fs_in_commands("commands/edit/x.rs", open, FS_DEBT).is_some(),
            "{open}"
        );
    }
    // The handle is fine.
    let via = "//! h\nfn f(c: &Ctx, p: &Path) { c.files().disk(p).open(); }\n";
    assert!(fs_in_commands("commands/inspect/x.rs", via, FS_DEBT).is_none());
    // The view only through the handle.
    for direct in [
        "fn f(c: &Ctx, p: &Path) { crate::store::view::stat(c, p, true); }\n",
        "use crate::store::{lock, view};\nfn f(c: &Ctx) { view::forget(c); }\n",
        "use crate::store::view::{self, Kind};\n",
        "fn f(c: &Ctx, p: &Path) -> bool { view::exists(c, p).is_ok() }\n",
    ] {
        assert!(
            view_in_commands("commands/inspect/x.rs", direct, VIEW_DEBT).is_some(),
            "{direct}"
        );
        assert!(view_in_commands("store/files.rs", direct, VIEW_DEBT).is_none());
    }
    let handle = "use lines_view::*;\nfn f(c: &Ctx, p: &Path) { c.files().stat(p, true); }\n";
    assert!(view_in_commands("commands/inspect/x.rs", handle, VIEW_DEBT).is_none());
    let view_tests = "//! h\n#[cfg(test)]\nmod t { fn f(c: &Ctx) { view::forget(c); } }\n";
    assert!(view_in_commands("commands/inspect/x.rs", view_tests, VIEW_DEBT).is_none());
    // A view debt entry that was paid must leave the list.
    let listed = &["commands/edit/old.rs"];
    assert!(view_in_commands("commands/edit/old.rs", handle, listed).is_some());
    assert!(view_in_commands("commands/edit/old.rs", "view::forget(c);\n", listed).is_none());
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
    let by_name = "//! n\nfn f(e: &Entry) -> bool { e.command == \"tx commit\" }\n";
    assert_eq!(store_words_errors("store/tx/markers.rs", by_name).len(), 1);
    // And through the tree walk, as the real sources are checked.
    let dir = tempfile::tempdir().unwrap();
    let put = |rel: &str, body: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    };
    put("commands/inspect/peek.rs", handler);
    put(
        "commands/json/glance.rs",
        "//! g\nfn f(c: &Ctx, p: &Path) { crate::store::view::load(c, p); }\n",
    );
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
            .any(|l| l.starts_with("commands/json/glance.rs: uses store::view")),
        "{v:?}"
    );
    assert!(
        v.iter()
            .any(|l| l.starts_with("store/cache.rs: process-wide state")),
        "{v:?}"
    );
}

#[test]
fn the_error_rule_catches_its_fixtures() {
    // A debt list of its own, so the fixture does not move with the real one.
    let debt: &[&str] = &["store/undo.rs"];
    let worded = "//! w\nfn f() -> CmdError { CmdError::new(code::IO, \"m\", r) }\n";
    let repair = "//! w\nfn f() -> Repair { Repair::new(\"a\", \"d\", \"aitools x\") }\n";
    let line = "//! w\nfn f() -> String { shell::aitools([\"read\", \"a\"]) }\n";
    for code in [worded, repair, line] {
        for rel in [
            "workspace/root.rs",
            "store/guard.rs",
            "protocol/envelope.rs",
            "text/x.rs",
        ] {
            assert!(
                error_wording_in_core(rel, code, debt, NEXT_COMMANDS).is_some(),
                "{rel}: {code}"
            );
        }
        // Outside core, and in the type's home, wording is where it belongs.
        assert!(error_wording_in_core("command_error/x.rs", code, debt, NEXT_COMMANDS).is_none());
        assert!(
            error_wording_in_core("commands/inspect/read.rs", code, debt, NEXT_COMMANDS).is_none()
        );
        assert!(error_wording_in_core("protocol/error.rs", code, debt, NEXT_COMMANDS).is_none());
        // A listed debt may keep it.
        assert!(error_wording_in_core("store/undo.rs", code, debt, NEXT_COMMANDS).is_none());
    }
    // A continuation line may be spelled where listed, an error may not.
    assert!(error_wording_in_core("store/appends.rs", line, debt, NEXT_COMMANDS).is_none());
    assert!(error_wording_in_core("store/appends.rs", worded, debt, NEXT_COMMANDS).is_some());
    // Unit tests may build errors.
    let tests_only =
        "//! t\n#[cfg(test)]\nmod t { fn f() { CmdError::new(code::IO, \"m\", r); } }\n";
    assert!(error_wording_in_core("workspace/input.rs", tests_only, debt, NEXT_COMMANDS).is_none());
    // A debt entry that was paid must leave the list.
    assert!(error_wording_in_core("store/undo.rs", "//! clean\n", debt, NEXT_COMMANDS).is_some());
    // And through the tree walk, as the real sources are checked.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("workspace/boundary.rs");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, worded).unwrap();
    let v = new_rules(dir.path());
    assert!(
        v.iter()
            .any(|l| l.starts_with("workspace/boundary.rs: core words a user-facing error")),
        "{v:?}"
    );
}

/// What a command is (a write or a read) reaches the AOI mode and the MCP tools
/// through one declaration, `CommandSpec::writes_files` (`read_only`): neither
/// reads the `writes` flag (the shared write options) on its own.
fn reads_writes_flag(rel: &str, code: &str) -> bool {
    (rel.starts_with("aoi/") || rel.starts_with("mcp/"))
        && non_test(code).match_indices(".writes").any(|(i, _)| {
            let next = code[i + ".writes".len()..].chars().next();
            next.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        })
}

#[test]
fn aoi_and_mcp_read_the_declared_nature_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let bad: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let rel = f
                .strip_prefix(&src)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            let code = std::fs::read_to_string(f).ok()?;
            reads_writes_flag(&rel, &code).then_some(rel)
        })
        .collect();
    assert!(
        bad.is_empty(),
        "read spec.writes, not writes_files(): {bad:?}"
    );
    let old = "fn f(s: &CommandSpec) { events_of(s.name, s.writes); }\n";
    assert!(reads_writes_flag("aoi/commands.rs", old));
    assert!(!reads_writes_flag(
        "aoi/commands.rs",
        "fn f(s: &S) -> bool { s.writes_files() }\n"
    ));
    assert!(!reads_writes_flag("commands/tx/batch.rs", old));
}
