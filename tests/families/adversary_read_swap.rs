//! Reads never leave the workspace through an entry swapped after the walk
//! listed it: a regular file replaced by a symlink to a secret outside, or a
//! directory replaced by a symlink to an outside directory, is passed over
//! (`unreadable`, like an entry that vanished), never read. A thread swaps while
//! the scanning commands (`search`, `code refs`, `overview`, `find`) run again
//! and again; no output may carry the outside content.
//!
//! `AITOOLS_RACE_TRIES` sets the runs per command (default 40); `AITOOLS_TEST_BIN`
//! runs them against another binary (an older build, to see them find leaks).

use crate::support::{self, TestEnv};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What only the outside file holds.
const SECRET: &str = "OUTSIDE-SECRET-7f3a";
/// The outside file's lines: an overview that counted it shows at least this many.
const SECRET_LINES: u64 = 3001;
/// Files swapped in turn (more chances per run).
const SWAPPED: usize = 8;

fn tries() -> usize {
    std::env::var("AITOOLS_RACE_TRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

fn race_bin() -> PathBuf {
    std::env::var_os("AITOOLS_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(support::bin)
}

/// Writes the secret (lines that match what the commands look for) at `path`.
/// A workspace and a directory outside it, both by their real paths (the
/// outside one is removed when the `TempDir` drops).
fn inside_and_outside() -> (TestEnv, PathBuf, tempfile::TempDir, PathBuf) {
    let env = TestEnv::new();
    let ws = std::fs::canonicalize(env.root()).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let out = std::fs::canonicalize(outside.path()).unwrap();
    (env, ws, outside, out)
}

fn plant_secret(path: &Path) {
    let mut text = String::new();
    for i in 0..SECRET_LINES {
        text.push_str(&format!("NEEDLE {SECRET} {i} needle_fn\n"));
    }
    std::fs::write(path, text).unwrap();
}

/// Each scanning command `tries()` times while `swapper` runs; the outputs that
/// carried the outside content (a leak), as `command: excerpt`.
fn leaks(env: &TestEnv, ws: &Path) -> Vec<String> {
    let bin = race_bin();
    let calls: [&[&str]; 4] = [
        &["search", "--pattern", "NEEDLE"],
        &["code", "refs", "needle_fn"],
        &["overview"],
        &["find", "--type", "file"],
    ];
    let mut found = Vec::new();
    for _ in 0..tries() {
        for args in calls {
            let out = env
                .isolate(Command::new(&bin))
                .args(args)
                .current_dir(ws)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output()
                .expect("spawn aitools");
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            // overview prints counts, not text: the secret's lines counted leak it.
            let counted = args[0] == "overview"
                && serde_json::from_slice::<serde_json::Value>(&out.stdout)
                    .ok()
                    .and_then(|j| j["languages"].as_array().cloned())
                    .is_some_and(|ls| {
                        ls.iter()
                            .any(|l| l["lines"].as_u64().unwrap_or(0) >= SECRET_LINES)
                    });
            if text.contains(SECRET) || counted {
                let at = text.find(SECRET).unwrap_or(0);
                let excerpt: String = text[at..].chars().take(120).collect();
                found.push(format!("{}: {excerpt}", args.join(" ")));
            }
        }
    }
    found
}

#[test]
fn a_listed_file_swapped_for_a_symlink_outside_is_never_read() {
    let (env, ws, _outside, out) = inside_and_outside();
    plant_secret(&out.join("secret.txt"));
    std::fs::create_dir(ws.join("s")).unwrap();
    // The swap partners live outside, so the walk meets the links only where a
    // listed file was.
    for k in 0..SWAPPED {
        std::fs::write(ws.join(format!("s/f{k}.txt")), "NEEDLE inside needle_fn\n").unwrap();
        std::os::unix::fs::symlink(out.join("secret.txt"), out.join(format!("l{k}"))).unwrap();
    }
    let (w, o) = (ws.clone(), out.clone());
    let mut k = 0;
    let swapper = support::swap_in_thread(move || {
        k = (k + 1) % SWAPPED;
        support::exchange(&w.join(format!("s/f{k}.txt")), &o.join(format!("l{k}")))
    });
    let found = leaks(&env, &ws);
    let swaps = swapper.finish();
    assert!(swaps > 0, "the swapping thread never swapped");
    assert!(
        found.is_empty(),
        "{} of {} runs read the outside file through a swapped-in symlink ({swaps} swaps): {:#?}",
        found.len(),
        tries() * 4,
        found.iter().take(8).collect::<Vec<_>>()
    );
    // Once the swapping stops the files are read as before.
    for k in 0..SWAPPED {
        let f = ws.join(format!("s/f{k}.txt"));
        if std::fs::symlink_metadata(&f)
            .unwrap()
            .file_type()
            .is_symlink()
        {
            assert!(support::exchange(&f, &out.join(format!("l{k}"))));
        }
    }
    let r = env.run(&["search", "--pattern", "NEEDLE", "--count"]);
    assert_eq!(
        crate::support::total_matches(&r.json),
        SWAPPED as u64,
        "{}",
        r.stdout
    );
}

#[test]
fn a_listed_directory_swapped_for_a_symlink_outside_is_never_read() {
    let (env, ws, _outside, out) = inside_and_outside();
    // The outside directory holds the same names as the inside one, so a path
    // listed inside is there too once the link is in place.
    std::fs::create_dir(out.join("sec")).unwrap();
    std::fs::create_dir(ws.join("d")).unwrap();
    for k in 0..SWAPPED {
        std::fs::write(ws.join(format!("d/f{k}.txt")), "NEEDLE inside needle_fn\n").unwrap();
        plant_secret(&out.join(format!("sec/f{k}.txt")));
    }
    std::os::unix::fs::symlink(out.join("sec"), out.join("dl")).unwrap();
    let (d, dl) = (ws.join("d"), out.join("dl"));
    let swapper = support::swap_in_thread(move || support::exchange(&d, &dl));
    let found = leaks(&env, &ws);
    let swaps = swapper.finish();
    assert!(swaps > 0, "the swapping thread never swapped");
    assert!(
        found.is_empty(),
        "{} of {} runs read the outside directory through a swapped-in symlink ({swaps} swaps): {:#?}",
        found.len(),
        tries() * 4,
        found.iter().take(8).collect::<Vec<_>>()
    );
}

/// One call of a race: its arguments and what it reads on stdin.
type Call = (Vec<String>, Option<String>);

/// Each call of `calls(i)`, for `i` in `0..tries()`; the outputs that carried the
/// outside content, as `command: excerpt` (`leak`).
fn call_leaks(env: &TestEnv, ws: &Path, calls: impl Fn(usize) -> Vec<Call>) -> Vec<String> {
    let mut found = Vec::new();
    for i in 0..tries() {
        for (args, stdin) in calls(i) {
            let (text, json) = call(env, ws, &args, stdin);
            found.extend(leak(&args, &text, &json));
        }
    }
    found
}

/// Runs one call of the race binary in `ws`: its stdout and stderr, and the
/// answer parsed (null when it is no JSON).
fn call(
    env: &TestEnv,
    ws: &Path,
    args: &[String],
    stdin: Option<String>,
) -> (String, serde_json::Value) {
    use std::io::Write;
    let mut child = env
        .isolate(Command::new(race_bin()))
        .args(args)
        .current_dir(ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn aitools");
    let mut input = child.stdin.take().expect("stdin");
    let _ = input.write_all(stdin.unwrap_or_default().as_bytes());
    drop(input);
    let out = child.wait_with_output().expect("wait aitools");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let json = serde_json::from_slice(&out.stdout).unwrap_or_default();
    (text, json)
}

/// `command: excerpt` when the output `text` (answer `json`) of the call `args` carried the
/// outside content. A `read PATH` whose answer names an outside path read a
/// link the path already was when it was resolved (reads follow links by
/// design) and is no leak; one that shows the content under an inside name is.
fn leak(args: &[String], text: &str, json: &serde_json::Value) -> Option<String> {
    let shown = json["path"].as_str().unwrap_or_default();
    let followed = args[0] == "read" && !args[1].starts_with('-') && shown.starts_with('/');
    if !text.contains(SECRET) || followed {
        return None;
    }
    let at = text.find(SECRET).unwrap_or(0);
    let excerpt: String = text[..at]
        .chars()
        .rev()
        .take(100)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<String>()
        + &text[at..].chars().take(40).collect::<String>();
    Some(format!("{}: {excerpt}", args.join(" ")))
}

/// Stops `swapper` and asserts it swapped and no answer in `found` (as
/// `call_leaks` lists them) showed the outside content; `what` says which runs.
fn no_leak(swapper: support::Swapper, what: &str, found: &[String]) {
    let swaps = swapper.finish();
    assert!(swaps > 0, "the swapping thread never swapped");
    assert!(
        found.is_empty(),
        "{} {what} ({swaps} swaps): {:#?}",
        found.len(),
        found.iter().take(8).collect::<Vec<_>>()
    );
}

fn strs(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// A patch that turns `rel`'s one line `NEEDLE <from> needle_fn` into `<to>`.
fn patch(rel: &str, from: &str, to: &str) -> String {
    format!(
        "--- a/{rel}\n+++ b/{rel}\n@@ -1 +1 @@\n-NEEDLE {from} needle_fn\n+NEEDLE {to} needle_fn\n"
    )
}

/// The calls that read or write `rel` (a file in the swapped place) on run `i`:
/// replace's dry run over `dir`, read, edit and apply (their direction turning
/// each run, so the writes keep finding what they change).
fn reading_calls(i: usize, dir: &str, rel: &str) -> Vec<Call> {
    let (from, to) = if i.is_multiple_of(2) {
        ("inside", "INSIDE")
    } else {
        ("INSIDE", "inside")
    };
    vec![
        (
            strs(&["replace", "NEEDLE", "CHANGED", dir, "--dry-run"]),
            None,
        ),
        (strs(&["read", rel]), None),
        (strs(&["read", "--symbol", "needle_sym"]), None),
        (strs(&["edit", rel, "--old", from, "--new", to]), None),
        (strs(&["apply", "--stdin"]), Some(patch(rel, to, from))),
    ]
}

/// Every file below `dir` with its bytes (symlinks as their target text).
fn tree_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                todo.push(p);
            } else if m.file_type().is_symlink() {
                let t = std::fs::read_link(&p).unwrap();
                out.push((p, t.as_os_str().as_encoded_bytes().to_vec()));
            } else {
                let b = std::fs::read(&p).unwrap();
                out.push((p, b));
            }
        }
    }
    out.sort();
    out
}

/// The outside secret files are as planted (whatever the inside files became).
fn secrets_of(tree: &[(PathBuf, Vec<u8>)]) -> Vec<(PathBuf, Vec<u8>)> {
    tree.iter()
        .filter(|(_, b)| b.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()))
        .cloned()
        .collect()
}

#[test]
fn a_file_swapped_for_a_symlink_outside_is_never_read_or_written_by_a_path_command() {
    let (env, ws, _outside, out) = inside_and_outside();
    plant_secret(&out.join("secret.txt"));
    std::fs::write(
        out.join("secret.rs"),
        format!("fn needle_sym() {{\n    // {SECRET}\n}}\n"),
    )
    .unwrap();
    std::fs::create_dir(ws.join("s")).unwrap();
    std::fs::write(ws.join("s/sym.rs"), "fn needle_sym() {}\n").unwrap();
    std::os::unix::fs::symlink(out.join("secret.rs"), out.join("ls")).unwrap();
    for k in 0..SWAPPED {
        std::fs::write(ws.join(format!("s/f{k}.txt")), "NEEDLE inside needle_fn\n").unwrap();
        std::os::unix::fs::symlink(out.join("secret.txt"), out.join(format!("l{k}"))).unwrap();
    }
    let before = secrets_of(&tree_bytes(&out));
    let (w, o) = (ws.clone(), out.clone());
    let mut k = 0;
    let swapper = support::swap_in_thread(move || {
        // The file the calls name most often (f0) every other swap; the symbol's
        // file, and the others in turn.
        k = (k + 1) % (2 * SWAPPED);
        let (a, b) = match k {
            k if k.is_multiple_of(2) => ("s/f0.txt".to_string(), "l0".to_string()),
            1 => ("s/sym.rs".to_string(), "ls".to_string()),
            k => (format!("s/f{}.txt", k / 2), format!("l{}", k / 2)),
        };
        support::exchange(&w.join(a), &o.join(b))
    });
    let found = call_leaks(&env, &ws, |i| reading_calls(i, "s", "s/f0.txt"));
    no_leak(
        swapper,
        "runs showed the outside file through a swapped-in symlink",
        &found,
    );
    assert_eq!(
        secrets_of(&tree_bytes(&out)),
        before,
        "a write went through a swapped-in symlink to the outside file"
    );
}

#[test]
fn a_parent_directory_swapped_for_a_symlink_outside_is_never_read_or_written_through() {
    let (env, ws, _outside, out) = inside_and_outside();
    std::fs::create_dir(out.join("sec")).unwrap();
    std::fs::create_dir(ws.join("d")).unwrap();
    std::fs::write(ws.join("d/sym.rs"), "fn needle_sym() {}\n").unwrap();
    std::fs::write(
        out.join("sec/sym.rs"),
        format!("fn needle_sym() {{\n    // {SECRET}\n}}\n"),
    )
    .unwrap();
    for k in 0..SWAPPED {
        std::fs::write(ws.join(format!("d/f{k}.txt")), "NEEDLE inside needle_fn\n").unwrap();
        plant_secret(&out.join(format!("sec/f{k}.txt")));
    }
    std::os::unix::fs::symlink(out.join("sec"), out.join("dl")).unwrap();
    let before = secrets_of(&tree_bytes(&out.join("sec")));
    let (d, dl) = (ws.join("d"), out.join("dl"));
    let swapper = support::swap_in_thread(move || support::exchange(&d, &dl));
    let found = call_leaks(&env, &ws, |i| reading_calls(i, ".", "d/f0.txt"));
    no_leak(
        swapper,
        "runs showed an outside file through a swapped-in directory link",
        &found,
    );
    // Wherever the swapping left the directory, the secret files are unchanged.
    let sec = out.join("sec");
    assert_eq!(
        secrets_of(&tree_bytes(&sec)),
        before,
        "a write went through a swapped-in directory link to an outside file"
    );
}

/// A workspace whose directory `d` holds `f0.txt`..`f7.txt` and `c.json`, and an
/// outside directory `sec` with the same names holding the secret, linked from
/// `out/dl`, which a swapper exchanges with `d` (so `ws/d` is, in turn, the
/// directory and a link to `sec`); and the bytes of `sec` as planted.
fn parent_swap_setup() -> (
    TestEnv,
    PathBuf,
    tempfile::TempDir,
    PathBuf,
    Vec<(PathBuf, Vec<u8>)>,
) {
    let (env, ws, outside, out) = inside_and_outside();
    std::fs::create_dir(out.join("sec")).unwrap();
    std::fs::create_dir(ws.join("d")).unwrap();
    for k in 0..SWAPPED {
        std::fs::write(ws.join(format!("d/f{k}.txt")), "NEEDLE inside needle_fn\n").unwrap();
        plant_secret(&out.join(format!("sec/f{k}.txt")));
    }
    std::fs::write(ws.join("d/c.json"), "{\"k\": \"inside\"}\n").unwrap();
    std::fs::write(out.join("sec/c.json"), format!("{{\"k\": \"{SECRET}\"}}\n")).unwrap();
    std::os::unix::fs::symlink(out.join("sec"), out.join("dl")).unwrap();
    let before = tree_bytes(&out.join("sec"));
    (env, ws, outside, out, before)
}

/// The workspace's directory `d` wherever the swapping left it (`ws/d`, or
/// `out/dl` while the two are exchanged).
fn inside_dir(ws: &Path, out: &Path) -> PathBuf {
    let d = ws.join("d");
    match std::fs::symlink_metadata(&d) {
        Ok(m) if m.file_type().is_symlink() => out.join("dl"),
        _ => d,
    }
}

/// `write REL --overwrite` of a line that changes each run, guarded by the hash
/// of the file as the test reads it now (a swap in between only makes the
/// write refuse).
fn overwrite(ws: &Path, out: &Path, rel: &str, i: usize) -> Vec<String> {
    use sha2::{Digest, Sha256};
    let name = rel.trim_start_matches("d/");
    let now = std::fs::read(inside_dir(ws, out).join(name)).unwrap_or_default();
    let hash: String = Sha256::digest(&now)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let line = format!("NEEDLE w{i} needle_fn\n");
    strs(&[
        "write",
        rel,
        "--overwrite",
        "--content",
        &line,
        "--expect-hash",
        &hash,
    ])
}

/// After a parent swap race: no outside file changed (nor was one added next to
/// them), and no file of the workspace holds the outside content.
fn assert_nothing_crossed(ws: &Path, out: &Path, before: &[(PathBuf, Vec<u8>)]) {
    assert_eq!(
        tree_bytes(&out.join("sec")),
        before,
        "a write went through a swapped-in directory link to the outside directory"
    );
    let mut inside = secrets_of(&tree_bytes(ws));
    if std::fs::symlink_metadata(out.join("dl")).is_ok_and(|m| m.is_dir()) {
        inside.extend(secrets_of(&tree_bytes(&out.join("dl"))));
    }
    let names: Vec<_> = inside.iter().map(|(p, _)| p).collect();
    assert!(
        names.is_empty(),
        "outside bytes were written into the workspace: {names:?}"
    );
}

#[test]
fn a_parent_directory_swapped_for_a_symlink_outside_is_never_read_or_written_by_a_write() {
    let (env, ws, _outside, out, before) = parent_swap_setup();
    let (d, dl) = (ws.join("d"), out.join("dl"));
    let swapper = support::swap_in_thread(move || support::exchange(&d, &dl));
    let (w, o) = (ws.clone(), out.clone());
    // Each write turns its target one way or back; what it would show or write
    // of an outside file (its diff, the lines around an insert) holds the secret.
    let found = call_leaks(&env, &ws, |i| {
        let (from, to) = if i.is_multiple_of(2) {
            ("needle_fn", "NEEDLE_FN")
        } else {
            ("NEEDLE_FN", "needle_fn")
        };
        let value = format!("\"v{i}\"");
        vec![
            (
                strs(&["insert", "d/f1.txt", "--at", "end", "--content", "NEEDLE +"]),
                None,
            ),
            (overwrite(&w, &o, "d/f2.txt", i), None),
            (strs(&["replace", from, to, "d/f3.txt", "d/f4.txt"]), None),
            (strs(&["json", "set", "d/c.json", "/k", &value]), None),
            (
                strs(&["json", "set", "d/c.json", "/k", "\"dry\"", "--dry-run"]),
                None,
            ),
        ]
    });
    no_leak(
        swapper,
        "write runs showed an outside file through a swapped-in directory link",
        &found,
    );
    assert_nothing_crossed(&ws, &out, &before);
}

#[test]
fn a_parent_directory_swapped_for_a_symlink_outside_is_never_crossed_by_undo_or_tx_commit() {
    let (env, ws, _outside, out, before) = parent_swap_setup();
    let (d, dl) = (ws.join("d"), out.join("dl"));
    let swapper = support::swap_in_thread(move || support::exchange(&d, &dl));
    let mut found = Vec::new();
    let mut run = |args: Vec<String>| {
        let (text, json) = call(&env, &ws, &args, None);
        found.extend(leak(&args, &text, &json));
        json
    };
    for i in 0..tries() {
        // A write, then its undo (which reads the file now and puts the
        // before-image back): each may meet the swap.
        let wrote = run(overwrite(&ws, &out, "d/f5.txt", i));
        if let Some(op) = wrote["op_id"].as_str() {
            run(strs(&["undo", op]));
        }
        // An edit staged in a tx, then the commit (which checks the target for
        // drift and writes it).
        let begun = run(strs(&["tx", "begin"]));
        if let Some(tx) = begun["tx"].as_str() {
            let (from, to) = if i.is_multiple_of(2) {
                ("needle_fn", "NEEDLE_FN")
            } else {
                ("NEEDLE_FN", "needle_fn")
            };
            run(strs(&[
                "edit", "d/f6.txt", "--old", from, "--new", to, "--tx", tx,
            ]));
            let done = run(strs(&["tx", "commit", tx]));
            if done["status"] != "ok" {
                run(strs(&["tx", "abort", tx]));
            }
        }
    }
    no_leak(
        swapper,
        "undo/tx runs showed an outside file through a swapped-in directory link",
        &found,
    );
    assert_nothing_crossed(&ws, &out, &before);
}

/// `files` files `s/f0.txt`.. in the workspace and a link to the secret outside
/// for each; a thread exchanges the first `swapped` of them with their links in
/// turn (so a listed file is, now and then, a link to the secret).
fn listed_swap(ws_out: (&Path, &Path), files: usize, swapped: usize) -> support::Swapper {
    let (ws, out) = ws_out;
    plant_secret(&out.join("secret.txt"));
    std::fs::create_dir(ws.join("s")).unwrap();
    for k in 0..files {
        std::fs::write(ws.join(format!("s/f{k}.txt")), "NEEDLE inside needle_fn\n").unwrap();
        std::os::unix::fs::symlink(out.join("secret.txt"), out.join(format!("l{k}"))).unwrap();
    }
    let (w, o) = (ws.to_path_buf(), out.to_path_buf());
    let mut k = 0;
    support::swap_in_thread(move || {
        k = (k + 1) % swapped;
        support::exchange(&w.join(format!("s/f{k}.txt")), &o.join(format!("l{k}")))
    })
}

/// The files of the workspace that hold the secret.
fn secrets_inside(ws: &Path) -> Vec<PathBuf> {
    secrets_of(&tree_bytes(ws))
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn a_listed_file_swapped_for_a_symlink_outside_never_goes_into_an_archive() {
    let (env, ws, _outside, out) = inside_and_outside();
    let swapper = listed_swap((&ws, &out), SWAPPED, SWAPPED);
    // The walk lists each file; by its read it may be a link to the secret.
    let found = call_leaks(&env, &ws, |i| {
        let to = format!("a{i}.tar");
        vec![(
            strs(&["archive", "create", &to, "s", "--format", "tar"]),
            None,
        )]
    });
    no_leak(swapper, "runs showed the outside file", &found);
    let archived = secrets_inside(&ws);
    assert!(
        archived.is_empty(),
        "archives hold the outside file read through a swapped-in symlink: {archived:?}"
    );
}

#[test]
fn a_listed_file_swapped_for_a_symlink_outside_never_goes_into_a_copy() {
    let (env, ws, _outside, out) = inside_and_outside();
    // Two files, one swapped: a copy that meets no other change completes.
    let swapper = listed_swap((&ws, &out), 2, 1);
    let found = call_leaks(&env, &ws, |i| {
        vec![(strs(&["copy", "s", &format!("c{i}"), "--recursive"]), None)]
    });
    no_leak(swapper, "runs showed the outside file", &found);
    let copied = secrets_inside(&ws);
    assert!(
        copied.is_empty(),
        "copies hold the outside file read through a swapped-in symlink: {copied:?}"
    );
}
