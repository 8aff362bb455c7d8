//! Issue 29, round seven: a value masked once is masked everywhere it is shown,
//! also when `--output jsonl` streams it before the file whose key names it, and
//! when it is (part of) a file's name in any listing of paths.

use crate::support::TestEnv;

const K: &str = "Zq8v2LmP0xA1Wk3n9RtY7uB2";
const PW: &str = "Tr0ub4dor&3xyzQ";

/// `a/bare.csv` is streamed before `b/keyed.env`, whose keyed lines reveal its
/// bare values: the stream masks them as the one envelope does.
#[test]
fn a_stream_masks_a_twin_shown_before_its_key() {
    let env = TestEnv::new();
    env.write("a/bare.csv", format!("name,v\nprod,{PW}\nci,{K}\n"));
    env.write("b/keyed.env", format!("DB_PASSWORD={PW}\nAPI_SECRET={K}\n"));
    for args in [
        &["search", r"\S+", ".", "--output", "matches"][..],
        &["search", r"\S+", "."][..],
    ] {
        let r = env.run(args);
        assert!(
            !r.stdout.contains(K) && !r.stdout.contains("Tr0ub4dor"),
            "{}",
            r.stdout
        );
        let mut argv = vec!["--output", "jsonl"];
        argv.extend_from_slice(args);
        let out = env.command(&argv).output().expect("spawn aitools");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("\"ok\":true"), "{text}");
        assert!(text.contains("[REDACTED_SECRET]"), "{text}");
        assert!(
            !text.contains(K) && !text.contains("Tr0ub4dor"),
            "{args:?}: {text}"
        );
    }
}

/// A binary file whose first NUL is past the searcher's first buffer shows its
/// lines before it: the stream's first pass notes their keyed values too, so a
/// bare twin streamed before it is masked as the envelope masks it.
#[test]
fn a_stream_masks_a_twin_named_in_a_binary_files_text() {
    let env = TestEnv::new();
    env.write("a.txt", format!("v = \"{K}\" # seen\n"));
    let mut bin = format!("api_key = \"{K}\" # seen\n").into_bytes();
    bin.extend("filler line\n".repeat(30_000).bytes());
    bin.extend_from_slice(b"x\0y\n");
    env.write("b.bin", bin);
    let r = env.run(&["search", "seen", "."]);
    assert_eq!(r.json["redactions"], 2, "{}", r.stdout);
    let out = env
        .command(&["--output", "jsonl", "search", "seen", "."])
        .output()
        .expect("spawn aitools");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"path\":\"b.bin\""), "{text}");
    assert!(!text.contains(K), "{text}");
}

/// A secret in a file's or a directory's name, in every answer that lists paths:
/// each path is masked as a path (each name on its own, its extension out of the
/// value), never as a file's line, so the value and its bare twin (`K.log`) are
/// masked wherever they are listed.
#[test]
fn a_secret_in_a_path_is_masked_in_every_listing_of_paths() {
    let env = TestEnv::new();
    let deep = format!("d/api_key={K}/api_key={K}.txt");
    env.write(&deep, "x\n");
    env.write(&format!("{K}.log"), "x\n");
    env.write("e/password=/Tr0ub4dor3xyzQ", "x\n");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-qm", "c"]);
    env.run(&["snapshot", "create"]);
    env.write(&deep, "y\n");
    env.write(&format!("{K}.log"), "y\n");
    env.write(&format!("s/api_key={K}.yml"), "x\n");
    env.write(&format!("{K}.yml"), "x\n");
    env.git(&["add", "s", &format!("{K}.yml")]);
    env.write(&format!("new_api_key={K}.json"), "x\n");
    env.write(&format!("{K}.new"), "x\n");
    env.write(&format!("x1/api_key={K}.txt"), "x\n");
    env.write(&format!("x1/{K}.log"), "x\n");
    env.write(&format!("x2/api_key={K}.txt"), "y\n");
    let calls: &[&[&str]] = &[
        &["find"],
        &["find", "--fields", "path,size"],
        &["git", "status"],
        &["git", "show", "--stat", "HEAD"],
        &["git", "log", "--files"],
        &["diff", "x1", "x2"],
        &["snapshot", "diff", "snap-1"],
        &["search", "x|y", ".", "--output", "files"],
        &["search", "x|y", ".", "--output", "count"],
        &["search", "x|y", "."],
        &["overview"],
    ];
    let mut leaks = Vec::new();
    for call in calls {
        let r = env.run(call);
        assert!(r.json["status"] == "ok", "{call:?}: {}", r.stdout);
        if r.stdout.contains(K) || r.stdout.contains("Tr0ub4dor") {
            leaks.push(format!("{call:?}: {}", r.stdout));
        }
    }
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
}

/// A file named for its one value (`secrets/db_password`) is masked in every view
/// of it: `git blame`, `read --as hex|strings`, and an archive's member read as
/// text or hex.
#[test]
fn a_file_named_for_its_value_is_masked_in_every_view() {
    let env = TestEnv::new();
    env.write("secrets/db_password", format!("{K}\n"));
    env.git(&["add", "-A"]);
    env.git(&["commit", "-qm", "c"]);
    let r = env.run(&["archive", "create", "a.tar", "secrets"]);
    assert_eq!(r.json["status"], "ok", "{}", r.stdout);
    let hex_of = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    let calls: &[&[&str]] = &[
        &["git", "blame", "secrets/db_password"],
        &["read", "secrets/db_password", "--as", "hex"],
        &["read", "secrets/db_password", "--as", "strings"],
        &["archive", "read", "a.tar", "secrets/db_password"],
        &[
            "archive",
            "read",
            "a.tar",
            "secrets/db_password",
            "--as",
            "hex",
        ],
    ];
    for call in calls {
        let r = env.run(call);
        let flat = r.stdout.replace(' ', "");
        assert!(
            !r.stdout.contains(&K[4..16]) && !flat.contains(&hex_of(&K[4..12])),
            "{call:?}: {}",
            r.stdout
        );
        assert_eq!(r.json["redactions"], 1, "{call:?}: {}", r.stdout);
    }
}

/// A path with no extension can be made of base64's characters alone
/// (`tests/fixtures/nonsecret/hashes/SHA256SUMS`: letters of both cases, digits
/// and `/`); it is no key's body line, and stays shown. A name that is one
/// (random base64 under a directory) and a secret in a name are still masked.
#[test]
fn a_path_spelled_in_base64_letters_is_no_key_body() {
    let env = TestEnv::new();
    let plain = "tests/fixtures/nonsecret/hashes/SHA256SUMS";
    let body = "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4bC6dE8fG0hJ2";
    env.write(plain, "x\n");
    env.write(&format!("k/{body}"), "x\n");
    env.write(&format!("d/api_key={K}/x.txt"), "x\n");
    env.write("secrets/db_password", format!("{K}\n"));
    env.write(
        "list.txt",
        format!("{plain}\nsrc/Vendor/OpenSSL3/include/x509v3\n"),
    );
    let r = env.run(&["find"]);
    assert_eq!(r.json["status"], "ok", "{}", r.stdout);
    let items: Vec<&str> = r.json["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(items.contains(&plain), "{}", r.stdout);
    assert!(items.contains(&"secrets/db_password"), "{}", r.stdout);
    assert!(
        !r.stdout.contains(K) && !r.stdout.contains(body),
        "{}",
        r.stdout
    );
    let r = env.run(&["read", "list.txt"]);
    assert_eq!(
        r.lines(),
        vec![plain, "src/Vendor/OpenSSL3/include/x509v3"],
        "{}",
        r.stdout
    );
}

/// `find --tree` shows each name apart from its directory's: a name under a
/// directory named for its key (`password=`) is masked there as in flat `find`,
/// at every depth, and a plain name under one stays shown.
#[test]
fn a_tree_masks_a_name_under_a_key_named_directory() {
    let env = TestEnv::new();
    env.write("e/password=/Tr0ub4dor3xyzQ", "x\n");
    env.write("e/f/api_key:/Tr0ub4dor3xyzR", "x\n");
    env.write("e/password=/README.md", "x\n");
    for args in [
        &["find", "--output", "tree"][..],
        &["find", "--output", "tree", "--long"][..],
        &["find", "--output", "tree", "*", "e/password="][..],
        &["find", "--output", "tree", "*", "e/f/api_key:"][..],
        &["find"][..],
    ] {
        let r = env.run(args);
        assert_eq!(r.json["status"], "ok", "{}", r.stdout);
        assert!(!r.stdout.contains("Tr0ub4dor"), "{args:?}: {}", r.stdout);
    }
    let r = env.run(&["find", "--output", "tree", "*", "e"]);
    assert!(r.stdout.contains("README.md"), "{}", r.stdout);
    // Flat, the masked name keeps its directory's slash.
    let r = env.run(&["find"]);
    assert!(
        r.stdout.contains("\"e/password=/[REDACTED_SECRET]\""),
        "{}",
        r.stdout
    );
}

/// A key-named directory's key goes on down past a name that is not its value
/// (`api_key=/g/K`): a random name deeper in a `find --tree` is masked as in a
/// flat listing; plain names below it (`src/app/main.py`) stay shown.
#[test]
fn a_tree_masks_a_random_name_deeper_below_a_key_named_directory() {
    let env = TestEnv::new();
    env.write(&format!("e/api_key=/g/{K}"), "x\n");
    env.write(&format!("e/password:/x/y/{K}.txt"), "x\n");
    env.write("e/password=/src/app/main.py", "x\n");
    for args in [
        &["find", "--output", "tree"][..],
        &["find", "--output", "tree", "*", "e/api_key="][..],
        &["find", "--output", "tree", "*", "e/password:/x"][..],
    ] {
        let r = env.run(args);
        assert_eq!(r.json["status"], "ok", "{}", r.stdout);
        assert!(!r.stdout.contains(K), "{args:?}: {}", r.stdout);
        let mut argv = vec!["--output", "jsonl"];
        argv.extend_from_slice(args);
        let out = env.command(&argv).output().expect("spawn aitools");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains(K), "{args:?}: {text}");
    }
    let r = env.run(&["find", "--output", "tree", "*", "e/password="]);
    for name in ["\"src\"", "\"app\"", "\"main.py\""] {
        assert!(r.stdout.contains(name), "{}", r.stdout);
    }
    assert_eq!(r.json.get("redactions"), None, "{}", r.stdout);
}
