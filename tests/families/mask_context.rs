//! The mask judges a value by what names it and by its format, whatever part of the
//! answer shows it (issue 29 items 1, 2 and 6): a JSON pointer's last token is the
//! key of the value `json get` prints; a provider's prefix, alphabet and length make
//! a secret whatever its letters look like; and files that only look like secrets
//! (tests/fixtures/nonsecret, written by its generate.py) come back unchanged.

use crate::support::{Run, TestEnv};
use std::path::Path;

const MASK: &str = "[REDACTED_SECRET]";

fn hidden(r: &Run, secrets: &[&str]) {
    for s in secrets {
        assert!(!r.stdout.contains(s), "{s} leaked: {}", r.stdout);
    }
    assert!(
        r.json["redactions"].as_u64().unwrap_or(0) >= 1,
        "{}",
        r.stdout
    );
}

#[test]
fn a_json_pointer_carries_its_key_name_into_the_mask() {
    let env = TestEnv::new();
    env.write(
        "c.json",
        r#"{"db":{"host":"db.internal","password":"Tr0ub4dor&3xyz","api_key":"q8ZfX2mK9pL4vB7n"}}"#,
    );
    env.write(
        "t.json",
        r#"[{"Name":"prod","Secret":"Wz4kP9qL2mXv7RtB"},{"Name":"dev","Secret":"Hb3nQ8sK1jYc6UwE"}]"#,
    );
    let r = env.run(&["json", "get", "c.json", "/db/password"]);
    hidden(&r, &["Tr0ub4dor"]);
    assert_eq!(r.json["value"], MASK, "{}", r.stdout);
    let r = env.run(&["json", "get", "c.json", "/db/api_key", "--raw"]);
    hidden(&r, &["q8ZfX2mK9pL4vB7n"]);
    let r = env.run(&["json", "get", "t.json", "/0/Secret"]);
    hidden(&r, &["Wz4kP9qL2mXv7RtB"]);
    let r = env.run(&["json", "get", "t.json", "/1/Secret", "--max-bytes", "4"]);
    hidden(&r, &["Hb3n"]);
    // A value named by a key that names no secret is shown.
    let r = env.run(&["json", "get", "c.json", "/db/host"]);
    assert_eq!(r.json["value"], "db.internal", "{}", r.stdout);
    assert!(r.json.get("redactions").is_none(), "{}", r.stdout);
}

#[test]
fn prefixed_formats_are_secrets_whatever_their_letters() {
    let env = TestEnv::new();
    let secrets = [
        "AKIAQWERTYUIOPASDFGH",
        "ASIAZXCVBNMLKJHGFDSA",
        "sk-qwertyuiopasdfghjklzxcvbnmqwertyuiopasdfghjk",
        "qwertyuiopasdfgh",
        "abc.def.ghi",
    ];
    env.write(
        "notes.md",
        format!(
            "id {}\ntemp {}\nthe key {} works\nAuthorization: Bearer {}\ncurl -H 'X-Auth: Bearer {}' https://api.internal/\n",
            secrets[0], secrets[1], secrets[2], secrets[3], secrets[4]
        ),
    );
    let r = env.run(&["read", "notes.md"]);
    hidden(&r, &secrets);
    assert_eq!(r.json["redactions"], 5, "{}", r.stdout);
}

#[test]
fn words_after_a_scheme_and_classes_with_a_prefix_stay_shown() {
    let env = TestEnv::new();
    let text = "Bearer authentication is in RFC 6750.\n\
                .sk-fading-circle-container-large { width: 40px }\n\
                $sk-spinner-color-primary: #333;\n\
                !function(a,b,c){b.token=c,a.password=e.target.value}(w,{},null);\n\
                PWD=/home/dev/projects/aitools\n\
                AKIAIOSFODNN7EXAMPLE\n";
    env.write("look.txt", text);
    let r = env.run(&["read", "look.txt"]);
    assert_eq!(r.lines().join("\n") + "\n", text, "{}", r.stdout);
    assert!(r.json.get("redactions").is_none(), "{}", r.stdout);
}

fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("fixture dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else if p.file_name().is_some_and(|n| n != "generate.py") {
            out.push(p);
        }
    }
}

/// Every file of tests/fixtures/nonsecret comes back from `read` unchanged, and so
/// does a range that starts inside its wrapped base64.
#[test]
fn nonsecret_fixture_is_never_masked() {
    let env = TestEnv::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nonsecret");
    let mut files = Vec::new();
    files_under(&root, &mut files);
    files.sort();
    assert!(files.len() >= 60, "{} fixture files", files.len());
    let mut masked = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .expect("under root")
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(f).expect("fixture text");
        env.write(&rel, &text);
        let r = env.run(&["read", &rel, "--max-lines", "100000"]);
        assert_eq!(r.code, 0, "{rel}: {}", r.stdout);
        if r.stdout.contains(MASK) || r.lines().join("\n") + "\n" != text {
            masked.push(rel);
        }
    }
    let r = env.run(&["read", "img/mail.eml", "--range", "8:12"]);
    if r.stdout.contains(MASK) {
        masked.push("img/mail.eml 8:12".into());
    }
    assert!(
        masked.is_empty(),
        "{} of {} masked: {masked:?}",
        masked.len(),
        files.len()
    );
}

/// A range that starts inside a key's multi-line value masks the value's lines it
/// shows, in `read` and `git show REV:file`; the lines after the value stay shown.
#[test]
fn a_range_inside_a_multi_line_value_is_judged_by_the_key_above_it() {
    let env = TestEnv::new();
    let text = "db:\n  host: db.internal\n  password: |\n    correct horse battery\n    staple Tr0ub4dor\n    one more line\n  user: app\n";
    env.write("c.yaml", text);
    let secrets = ["correct horse", "Tr0ub4dor", "one more line"];
    for range in ["4:7", "5:6"] {
        let r = env.run(&["read", "c.yaml", "--range", range]);
        hidden(&r, &secrets);
    }
    let r = env.run(&["read", "c.yaml", "--range", "4:7"]);
    assert_eq!(r.lines().last().map(String::as_str), Some("  user: app"));
    for args in [
        &["add", "c.yaml"][..],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "c",
        ],
    ] {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(env.root())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?}");
    }
    let r = env.run(&["git", "show", "HEAD:c.yaml", "--range", "5:6"]);
    hidden(&r, &secrets);
}

/// The elements of a list under a secret-named key are judged by that key, whole
/// (`json get f ""`) or one by one (`/api_keys/0`, `json select`); a list of names
/// (`secrets: ["db-password"]`) stays shown.
#[test]
fn a_list_under_a_secret_key_masks_its_machine_made_elements() {
    let env = TestEnv::new();
    env.write(
        "k.json",
        r#"{"api_keys":["q8ZfX2mK9pL4vB7n","Wz4kP9qL2mXv7RtB"],"passwords":["hunter2hunter2"],"secrets":["db-password"]}"#,
    );
    let r = env.run(&["json", "get", "k.json", ""]);
    hidden(
        &r,
        &["q8ZfX2mK9pL4vB7n", "Wz4kP9qL2mXv7RtB", "hunter2hunter2"],
    );
    assert_eq!(r.json["redactions"], 3, "{}", r.stdout);
    assert_eq!(r.json["value"]["secrets"][0], "db-password", "{}", r.stdout);
    let r = env.run(&["json", "get", "k.json", "/api_keys/1"]);
    hidden(&r, &["Wz4kP9qL2mXv7RtB"]);
    let r = env.run(&["json", "select", "k.json", "/passwords"]);
    hidden(&r, &["hunter2hunter2"]);
    let r = env.run(&["json", "get", "k.json", "/secrets/0"]);
    assert_eq!(r.json["value"], "db-password", "{}", r.stdout);
}
