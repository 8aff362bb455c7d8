//! The errors the core returns as typed values (the workspace's root, paths,
//! boundary, inputs and scan filters; the store's guards) and `src/command_error/`
//! words: each case's `error` member, byte for byte, as it was when the core built
//! it. `{root}` is the workspace root, `{parent}` the directory holding it.

use crate::support::TestEnv;

const CASES: &[(&[&str], &str)] = &[
    (
        &["--root", "/nonexistent", "read", "a.txt"],
        r#"{"code":"argument.invalid","message":"--root /nonexistent is not an existing directory.","exit_code":1,"repairs":[{"action":"root","detail":"Pass an existing directory as --root, or leave it out to use the enclosing git work tree.","command":"aitools read"}]}"#,
    ),
    (
        &["--root", ".git", "read", "a.txt"],
        r#"{"code":"argument.invalid","message":"The workspace root .git is inside a .git directory; aitools never writes git's own files, so it does not work there.","exit_code":1,"repairs":[{"action":"root","detail":"Use the work tree that holds this .git directory as the root (git's own files are changed with git).","command":"aitools --root {root} read a.txt"}]}"#,
    ),
    (
        &["read", ""],
        r#"{"code":"argument.invalid","message":"The path argument is empty.","exit_code":1,"repairs":[{"action":"find","detail":"Find the file to name.","command":"aitools find --type file"},{"action":"schema","detail":"Show the arguments `read` accepts.","command":"aitools schema read"}]}"#,
    ),
    (
        &["write", "../outside.txt", "--content", "x"],
        r#"{"code":"refusal.outside-workspace","message":"{parent}/outside.txt resolves to {parent}/outside.txt, outside the workspace root {root}; writes stay inside the workspace.","exit_code":1,"repairs":[{"action":"root","detail":"Write to a path inside the workspace, or run from (or pass --root for) the workspace that holds it.","command":"aitools info {parent}/outside.txt"}]}"#,
    ),
    (
        &["write", ".git/config", "--content", "x"],
        r#"{"code":"refusal.outside-workspace","message":"{root}/.git/config is inside .git, which aitools never writes; writes stay inside the workspace.","exit_code":1,"repairs":[{"action":"root","detail":"Git's own files are changed with git, not aitools; check which path was meant.","command":"aitools info {root}/.git/config"}]}"#,
    ),
    (
        &["write", ".", "--content", "x"],
        r#"{"code":"refusal.outside-workspace","message":"{root} is the workspace root itself; writes stay inside the workspace.","exit_code":1,"repairs":[{"action":"root","detail":"Write to a path inside the workspace, or run from (or pass --root for) the workspace that holds it.","command":"aitools info {root}"}]}"#,
    ),
    (
        &["read", "/dev/zero"],
        r#"{"code":"refusal.not-a-file","message":"/dev/zero is a device, not a regular file on disk: its size is unknown and reading it could block or never end; it was not opened.","exit_code":1,"repairs":[{"action":"info","detail":"See what kind of path it is.","command":"aitools info /dev/zero"}]}"#,
    ),
    (
        &[
            "write",
            "c.txt",
            "--content-file",
            "big.bin",
            "--max-input",
            "1KiB",
        ],
        r#"{"code":"refusal.too-large","message":"big.bin is larger than the input limit of 1024 bytes (--max-input, default 256MiB).","exit_code":1,"repairs":[{"action":"max-input","detail":"Raise --max-input if an input this large is intended.","command":"aitools write c.txt --content-file big.bin --max-input 1MiB"}]}"#,
    ),
    (
        &["search", "x", "--newer", "nonexistentpath"],
        r#"{"code":"argument.invalid","message":"--newer \"nonexistentpath\" is neither a duration (<n>ms|s|m|h|d) nor an existing path.","exit_code":1,"repairs":[{"action":"newer","detail":"Give a duration such as 1h, or a path whose mtime is the threshold.","command":"aitools search x --newer 1h"}]}"#,
    ),
    (
        &["search", "x", "--glob", "["],
        r#"{"code":"argument.invalid","message":"--glob \"[\" is not a glob: unclosed character class; missing ']'.","exit_code":1,"repairs":[{"action":"glob","detail":"Use wildmatch syntax: * within a name, ** across directories, [abc], ?, and a leading ! to exclude (--glob '*.rs'); this shows the command's other filters.","command":"aitools schema search"}]}"#,
    ),
    (
        &["read", "mian.rs"],
        r#"{"code":"input.not-found","message":"mian.rs does not exist.","exit_code":1,"repairs":[{"action":"retry","detail":"The nearest existing path, in the same invocation.","command":"aitools read main.rs"},{"action":"find","detail":"List the workspace's files to find the right name.","command":"aitools find --type file"}],"candidates":["main.rs"]}"#,
    ),
    (
        &["delete", "mian.rs"],
        r#"{"code":"input.not-found","message":"mian.rs does not exist.","exit_code":1,"repairs":[{"action":"find","detail":"List the workspace's files to find the right name.","command":"aitools find --type file"},{"action":"info","detail":"The nearest existing path: check it is the one meant, then run the write on it.","command":"aitools info main.rs"}],"candidates":["main.rs"]}"#,
    ),
    (
        &[
            "edit",
            "a.txt",
            "--old",
            "a x",
            "--new",
            "y",
            "--expect-hash",
            "000000000000",
        ],
        r#"{"code":"refusal.target-changed","message":"a.txt changed: --expect-hash is 000000000000 but the file's hash is now 33357c020c983eda60d392f3824ed59173dba4efcc8a473c76303e32a143d22b.","exit_code":2,"repairs":[{"action":"read","detail":"Read the file again, then redo the write against what it holds now.","command":"aitools read a.txt"}]}"#,
    ),
    (
        &["write", "a.txt", "--content", "y", "--overwrite"],
        r#"{"code":"argument.invalid","message":"--overwrite requires --expect-hash with a.txt's current hash.","exit_code":1,"repairs":[{"action":"info","detail":"Get the file's current hash, then pass it as --expect-hash.","command":"aitools info a.txt"},{"action":"schema","detail":"Show the arguments `write` accepts.","command":"aitools schema write"}]}"#,
    ),
    (
        &["replace", "x", "y", "a.txt", "--expect-count", "5"],
        r#"{"code":"selection.count-mismatch","message":"--expect-count is 5 but the selection matches 2 time(s) now.","exit_code":2,"repairs":[{"action":"dry-run","detail":"See what the selection matches now, then pass that count.","command":"aitools replace x y a.txt --dry-run"}]}"#,
    ),
    (
        &["replace", "x", "y", "a.txt"],
        r#"{"code":"argument.invalid","message":"This selection can match more than once; replace requires --expect-count (it matches 2 now).","exit_code":1,"repairs":[{"action":"dry-run","detail":"Run it with --dry-run: it writes nothing and reports expect_count.","command":"aitools replace x y a.txt --dry-run"}]}"#,
    ),
    (
        &[
            "edit",
            "a.txt",
            "--old",
            "a x",
            "--new",
            "[REDACTED_SECRET]",
        ],
        r#"{"code":"refusal.redacted-input","message":"--new contains [REDACTED_SECRET], the mask aitools prints in place of a secret; writing it would destroy the real value.","exit_code":1,"repairs":[{"action":"edit-around","detail":"Select text that does not include the masked secret, and leave the secret's line unchanged.","command":"aitools schema edit"},{"action":"select-by-line","detail":"To change or delete the secret's line itself: find its number here, then edit PATH --range N (--new '' deletes it).","command":"aitools read a.txt"}]}"#,
    ),
    (
        &[
            "edit",
            "a.txt",
            "--old",
            "a x",
            "--new",
            "y",
            "--expect-hash",
            "zz",
        ],
        r#"{"code":"argument.invalid","message":"--expect-hash \"zz\" is not a SHA-256 hex digest (or its first 12+ digits) or PATH=HASH.","exit_code":1,"repairs":[{"action":"schema","detail":"Show the arguments `edit` accepts.","command":"aitools schema edit"}]}"#,
    ),
    (
        &[
            "edit",
            "a.txt",
            "--old",
            "a x",
            "--new",
            "y",
            "--expect-hash",
            "000000000000",
            "--expect-hash",
            "111111111111",
        ],
        r#"{"code":"argument.invalid","message":"A bare --expect-hash may be given once; name other files as PATH=HASH.","exit_code":1,"repairs":[{"action":"schema","detail":"Show the arguments `edit` accepts.","command":"aitools schema edit"}]}"#,
    ),
    (
        &["write", "d.txt", "--content", "x", "--max-input", "foo"],
        r#"{"code":"argument.invalid","message":"--max-input: \"foo\" is not a size: write <n>, <n>KiB, <n>MiB or <n>GiB (ASCII digits).","exit_code":1,"repairs":[{"action":"schema","detail":"Show the arguments `write` accepts.","command":"aitools schema write"}]}"#,
    ),
    (
        &["search", "x", "--max-files", "abc"],
        r#"{"code":"argument.invalid","message":"--max-files: \"abc\" is not a whole number in ASCII digits (0 to 18446744073709551615).","exit_code":1,"repairs":[{"action":"schema","detail":"Show the arguments `search` accepts.","command":"aitools schema search"}]}"#,
    ),
    (
        &["search", "x", "--skip-larger-than", "huge"],
        r#"{"code":"argument.invalid","message":"--skip-larger-than: \"huge\" is not a size: write <n>, <n>KiB, <n>MiB or <n>GiB (ASCII digits).","exit_code":1,"repairs":[{"action":"schema","detail":"Show the arguments `search` accepts.","command":"aitools schema search"}]}"#,
    ),
    (
        &["read", "dangling.txt"],
        r#"{"code":"input.not-found","message":"dangling.txt is a symlink whose target does not exist.","exit_code":1,"repairs":[{"action":"info","detail":"Describe the link itself (its hash is that of its target text).","command":"aitools info dangling.txt --allow-missing"},{"action":"find","detail":"List the workspace's files to find the right name.","command":"aitools find --type file"}]}"#,
    ),
];

#[test]
fn typed_errors_keep_their_exact_words() {
    let env = TestEnv::new();
    env.write("main.rs", "fn main() {}\n");
    env.write("a.txt", "a x\nb x\n");
    env.write("big.bin", vec![0u8; 3000]);
    std::os::unix::fs::symlink("nowhere", env.path("dangling.txt")).expect("symlink");
    let root = std::fs::canonicalize(env.root()).expect("root");
    let parent = root.parent().expect("parent").to_string_lossy().to_string();
    let root = root.to_string_lossy().to_string();
    for (args, want) in CASES {
        let want = want.replace("{root}", &root).replace("{parent}", &parent);
        let r = env.run(args);
        let line = if r.stderr.is_empty() {
            &r.stdout
        } else {
            &r.stderr
        };
        assert!(
            line.contains(&format!("\"error\":{want}")),
            "{args:?}\nwant {want}\ngot  {line}"
        );
    }
}
