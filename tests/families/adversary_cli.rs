//! Adversarial black-box tests of the repairs an error names: an agent runs the
//! command a repair gives as is, so it must never do the opposite of what the
//! failed call asked.

use crate::support::{self, TestEnv};

/// `apply -R` is patch's and git apply's "reverse": the repair must reverse,
/// never drop `-R` (which applies the patch forward, undoing nothing).
#[test]
fn apply_dash_capital_r_is_repaired_as_reverse_not_dropped() {
    let env = TestEnv::new();
    env.write("a.txt", "one\nTWO\nthree\n");
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    let r = env.run_stdin(&["apply", "--stdin", "--strip", "1", "-R"], diff.as_bytes());
    assert_eq!(r.error_code(), "argument.invalid", "{}", r.stderr);
    let repairs = r.json["error"]["repairs"].as_array().expect("repairs");
    let retry = repairs
        .iter()
        .filter_map(|x| x["command"].as_str())
        .find(|c| c.starts_with("aitools apply"))
        .unwrap_or_else(|| panic!("no corrected apply: {}", r.stderr));
    assert!(retry.contains("--reverse"), "{}", r.stderr);
    // The corrected call, as an agent runs it, reverses the patch.
    let rest = retry.strip_prefix("aitools ").unwrap();
    let args: Vec<&str> = rest.split(' ').collect();
    let fixed = env.run_stdin(&args, diff.as_bytes());
    assert_eq!(fixed.code, 0, "{}", fixed.stderr);
    assert_eq!(env.read("a.txt"), b"one\ntwo\nthree\n");
}

/// `copy -r` (cp's habit) is `--recursive`, which copy does not do by default:
/// the repair must keep it (dropping it fails again on a directory).
#[test]
fn copy_dash_r_is_repaired_as_recursive() {
    let env = TestEnv::new();
    env.write("src/a.txt", "a\n");
    for flag in ["-r", "-R"] {
        let r = env.run(&["copy", flag, "src", "dst"]);
        assert_eq!(r.error_code(), "argument.invalid", "{}", r.stderr);
        let cmd = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
        assert_eq!(cmd, "aitools copy --recursive src dst", "{}", r.stderr);
    }
    let ok = env.run_line("aitools copy --recursive src dst");
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert_eq!(env.read("dst/a.txt"), b"a\n");
    // `ln -s`: link always makes a symlink, so -s is taken, left out.
    let l = env.run(&["link", "-s", "src/a.txt", "l"]);
    assert_eq!(l.code, 0, "{}", l.stderr);
    assert_eq!(
        l.json["took"],
        serde_json::json!({"-s": ""}),
        "{}",
        l.stdout
    );
}

/// The sentences aitools builds from its static tables read without doubled
/// punctuation: the catalog's meanings and the correspondence table's reasons
/// are whole sentences, and short_flags' `why`, which a message ends with its
/// own full stop (`... does not take -R: <why>.`), ends without one.
#[test]
fn no_static_table_doubles_its_punctuation() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    // (file, column of prose, whether the code ends it with its own punctuation)
    for (file, col, ended_by_code) in [
        ("errors.tsv", 2, false),
        ("correspondence.tsv", 2, false),
        ("short_flags.tsv", 3, true),
    ] {
        let text = std::fs::read_to_string(data.join(file)).expect(file);
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let cell = line.split('\t').nth(col).unwrap_or("");
            assert!(!cell.is_empty(), "{file}: no column {col} in {line:?}");
            assert_eq!(
                support::doubled_punctuation(cell),
                None,
                "{file}: doubled punctuation in {cell:?}"
            );
            if ended_by_code {
                assert!(
                    !cell.ends_with(['.', ',', ';', ':']),
                    "{file}: {cell:?} ends with punctuation the message adds again"
                );
            }
        }
    }
}
