//! Issue 29, round five. An answer's `redactions` equals the number of values it
//! masked on the git paths that mask a patch line by line (`git show <commit>`,
//! `git diff --ref`), counted as `read` counts them. A bad pattern's echo masks a
//! value its key names (`password: x(`, `/password~x(`). JSON nested under a key
//! strongly naming a secret is masked at any depth, as YAML is.

use crate::support::TestEnv;

/// Eight values: three list elements, two under `credentials:`, two in a one-line
/// list, one block scalar.
const YAML: &str = "api_keys:\n  - Zq8v2LmP0xA1Wk3n9RtY7uB1\n  - Zq8v2LmP0xA1Wk3n9RtY7uB2\n  - Zq8v2LmP0xA1Wk3n9RtY7uB3\ncredentials:\n  a: Hj5Tk8Lm2Qp9Xz4WvB7nR3s1\n  b: Hj5Tk8Lm2Qp9Xz4WvB7nR3s2\ntokens: [\"Pq7w3MnQ1yB2Xl4o8SuZ6vC1\", \"Pq7w3MnQ1yB2Xl4o8SuZ6vC2\"]\npassword: |\n  Tr0ub4dor3xyzQ1\n";

/// Two block scalars one after the other and a list: four values.
const BLOCKS: &str = "a_password: |\n  Tr0ub4dor3xyzQ1\nb_password: |\n  Tr0ub4dor3xyzQ2\n  Tr0ub4dor3xyzQ3\ntokens:\n  - Pq7w3MnQ1yB2Xl4o8SuZ6vC1\n  - Pq7w3MnQ1yB2Xl4o8SuZ6vC2\nother: 1\n";

fn masks(stdout: &str) -> usize {
    stdout.matches("[REDACTED_SECRET]").count()
}

#[test]
fn git_show_and_diff_of_an_added_file_count_every_masked_value() {
    let env = TestEnv::new();
    env.write("README", "x\n");
    env.commit_all("base");
    env.write("k.yaml", YAML);
    env.write("m.yaml", BLOCKS);
    env.commit_all("secrets");
    for (file, n) in [("k.yaml", 8), ("m.yaml", 4)] {
        let r = env.run(&["read", file]);
        assert_eq!(r.field("redactions").as_u64(), Some(n), "{}", r.stdout);
        // The blob's lines, each value's lines masked.
        let blob = format!("HEAD:{file}");
        let r = env.run(&["git", "show", &blob]);
        assert_eq!(r.field("redactions").as_u64(), Some(n), "{}", r.stdout);
    }
    for argv in [
        &["git", "show", "HEAD"][..],
        &["git", "diff", "--ref", "HEAD~1"],
    ] {
        let r = env.run(argv);
        assert_eq!(r.code, 0, "{argv:?}: {}", r.stdout);
        assert!(!r.stdout.contains("Zq8v2LmP0x"), "{argv:?}: {}", r.stdout);
        // 13 masks for 12 values: m.yaml's second block scalar shows two lines.
        assert_eq!(masks(&r.stdout), 13, "{argv:?}: {}", r.stdout);
        assert_eq!(
            r.field("redactions").as_u64(),
            Some(12),
            "{argv:?}: {}",
            r.stdout
        );
    }
}

/// A bad pattern holding a secret after its key, in the shapes a regex takes
/// (a space after the sign, `.*`, a class escape, a `--where` match on a pointer
/// naming the value): no error, repair or diagnostic echoes the value.
#[test]
fn an_echoed_bad_pattern_masks_the_value_its_key_names() {
    let env = TestEnv::new();
    env.write("a.txt", "hello\n");
    env.write("j.json", "[{\"a\": 1}]\n");
    env.write("t.csv", "name,password\nbob,x\n");
    const V: &str = "Hunter2SecretValue";
    let calls: [&[&str]; 8] = [
        &["search", "password: Hunter2SecretValue(", "."],
        &["search", "password = Hunter2SecretValue(", "."],
        &["search", "api_token:\\s*Hunter2SecretValue[", "."],
        &["read", "a.txt", "--match", "password: Hunter2SecretValue("],
        &["read", "a.txt", "--match", "password=Hunter2SecretValue.*"],
        &[
            "json",
            "select",
            "j.json",
            "",
            "--where",
            "/password~Hunter2SecretValue(",
        ],
        &[
            "json",
            "select",
            "j.json",
            "",
            "--where",
            "password: Hunter2SecretValue(",
        ],
        &[
            "table",
            "read",
            "t.csv",
            "--where",
            "password~Hunter2SecretValue(",
        ],
    ];
    for argv in calls {
        let r = env.run(argv);
        assert!(!r.stdout.contains(V), "{argv:?} leaked: {}", r.stdout);
        assert!(!r.stderr.contains(V), "{argv:?} leaked: {}", r.stderr);
    }
    let batch = r#"[["search","token: Hunter2SecretValue(","."]]"#;
    let r = env.run_stdin(&["batch", "--stdin"], batch.as_bytes());
    assert!(!r.stdout.contains(V), "batch leaked: {}", r.stdout);
    assert!(!r.stderr.contains(V), "batch leaked: {}", r.stderr);
    // A pattern with regex signs and no secret is echoed as it is.
    let r = env.run(&["search", "fn main\\(x: (", "."]);
    assert!(r.stderr.contains("fn main\\\\(x: ("), "{}", r.stderr);
}

/// A bad pattern holding a bare high-entropy password (no key name) is caller
/// input: the echo in the message and in every repair masks the word the file
/// rules would mask as a value, counts it, and keeps the rest of the pattern and
/// of the corrected call; a plain pattern's words are echoed as they are.
#[test]
fn an_echoed_bad_pattern_masks_a_bare_random_word() {
    let env = TestEnv::new();
    env.write("a.txt", "hello\n");
    env.write("t.csv", "name,x\nbob,y\n");
    const V: &str = "Tr0ub4dor&3xyzQ";
    for argv in [
        &["search", "Tr0ub4dor&3xyzQ(", "."][..],
        &[
            "search",
            "-w",
            "-e",
            "ok",
            "-e",
            "it's Tr0ub4dor&3xyzQ[",
            ".",
        ],
        &["read", "a.txt", "--match", "Tr0ub4dor&3xyzQ("],
        &["table", "read", "t.csv", "--where", "x~Tr0ub4dor&3xyzQ("],
        &[
            "wait",
            "--file",
            "a.txt",
            "--pattern",
            "Tr0ub4dor&3xyzQ(",
            "--timeout",
            "1s",
        ],
    ] {
        let r = env.run(argv);
        assert!(!r.stdout.contains(V), "{argv:?} leaked: {}", r.stdout);
        assert!(!r.stderr.contains(V), "{argv:?} leaked: {}", r.stderr);
        let v = &r.json;
        assert!(v["redactions"].as_u64().unwrap_or(0) >= 1, "{argv:?}: {v}");
    }
    let r = env.run(&["search", "Tr0ub4dor&3xyzQ(", "."]);
    let v = &r.json;
    assert_eq!(
        v["error"]["repairs"][0]["command"],
        "aitools search '[REDACTED_SECRET](' . --fixed"
    );
    assert_eq!(v["redactions"], 2);
    // Words the value rules leave alone stay, in the message and the repair.
    let r = env.run(&["search", "parse_config(value_2", "."]);
    assert!(!r.stderr.contains("REDACTED"), "{}", r.stderr);
    assert!(
        r.stderr.contains("'parse_config(value_2' . --fixed"),
        "{}",
        r.stderr
    );
}

/// A pattern that matched nothing is echoed in the error (`read --match`,
/// `--between` START and END, `replace`): a random-looking word of it is masked as
/// in a pattern that does not parse. Code words and lowercase words are echoed
/// (`Base64Encoder`, `toUTF8String`, `utf8string`, `hunter2hunter2`): their shape
/// cannot tell them from code, in an echo that does not parse either.
#[test]
fn an_echoed_pattern_that_matched_nothing_masks_a_random_word_not_a_code_word() {
    let env = TestEnv::new();
    env.write("a.txt", "hello\nworld\n");
    const V: &str = "Zq8v2LmP0xA1Wk3n9RtY";
    for argv in [
        &["read", "a.txt", "--match", V][..],
        &["read", "a.txt", "--between", V, "world"],
        &["read", "a.txt", "--between", "hello", V],
        &["replace", V, "x", "a.txt", "--dry-run"],
    ] {
        let r = env.run(argv);
        assert_eq!(r.json["error"]["code"], "selection.no-match", "{argv:?}");
        assert!(!r.stderr.contains(V), "{argv:?} leaked: {}", r.stderr);
        assert!(r.json["redactions"].as_u64().unwrap_or(0) >= 1, "{argv:?}");
    }
    for word in [
        "Base64Encoder",
        "toUTF8String",
        "utf8string",
        "hunter2hunter2",
    ] {
        let bad = format!("{word}(");
        for argv in [
            &["read", "a.txt", "--match", word][..],
            &["search", &bad, "."],
        ] {
            let r = env.run(argv);
            assert!(
                r.stderr.contains(word),
                "{argv:?} over-masked: {}",
                r.stderr
            );
            assert!(!r.stderr.contains("REDACTED"), "{argv:?}: {}", r.stderr);
        }
    }
}

/// `{"credentials": {...}}`: every random-looking value nested under a key that
/// strongly names a secret is masked at any depth, in lists too, pretty-printed
/// and on one line, by read, search, json get/select and diffs; the names and
/// plain words under it stay.
#[test]
fn json_nested_under_a_secret_key_is_masked_at_any_depth() {
    const SECRETS: [&str; 4] = [
        "q8Zf3LmP0xA1Wk3n9RtY7uB2",
        "Hj5Tk8Lm2Qp9Xz4WvB7nR3sD",
        "Zq8v2LmP0xA1Wk3n9RtY7uB4",
        "Pq7w3MnQ1yB2Xl4o8SuZ6vC3",
    ];
    let pretty = format!(
        "{{\n  \"name\": \"svc\",\n  \"credentials\": {{\n    \"primary\": {{\"value\": \"{}\", \"kind\": \"static\"}},\n    \"backup\": {{\n      \"value\": \"{}\"\n    }},\n    \"list\": [\"{}\", \"{}\"]\n  }},\n  \"other\": \"hello-world-long-label\"\n}}\n",
        SECRETS[0], SECRETS[1], SECRETS[2], SECRETS[3]
    );
    let one: String = pretty.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    let env = TestEnv::new();
    env.write("c.json", &pretty);
    env.write("one.json", format!("{one}\n"));
    env.write("arr.json", format!("[{one}]\n"));
    env.commit_all("c");
    let check = |argv: &[&str], n: usize| {
        let r = env.run(argv);
        assert!(r.code == 0, "{argv:?}: {}{}", r.stdout, r.stderr);
        for s in SECRETS.iter().take(n) {
            assert!(!r.stdout.contains(s), "{argv:?} leaked {s}: {}", r.stdout);
        }
        assert!(r.stdout.contains("static"), "{argv:?}: {}", r.stdout);
        assert!(
            r.field("redactions").as_u64().unwrap_or(0) >= 1,
            "{}",
            r.stdout
        );
    };
    check(&["read", "c.json"], 4);
    check(&["read", "one.json"], 4);
    check(&["search", "primary|kind", ".", "-C", "8"], 4);
    check(&["json", "get", "c.json", "/credentials"], 4);
    check(&["json", "select", "arr.json", ""], 4);
    for (ptr, s) in [
        ("/credentials/primary/value", SECRETS[0]),
        ("/credentials/list/1", SECRETS[3]),
    ] {
        let r = env.run(&["json", "get", "c.json", ptr]);
        assert!(!r.stdout.contains(s), "{ptr} leaked: {}", r.stdout);
    }
    let r = env.run(&["read", "c.json"]);
    assert!(r.stdout.contains("hello-world-long-label"), "{}", r.stdout);
    // A schema describing a secret holds none: its patterns and member paths stay.
    env.write(
        "schema.json",
        "{\n  \"Credentials\": {\n    \"properties\": {\n      \"SecretArn\": {\"type\": \"string\", \"pattern\": \"^arn:aws:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:.+$\"},\n      \"Role\": {\"format\": \"AWS::IAM::Role.Arn\"}\n    }\n  },\n  \"AccessKeyPair\": {\n    \"ids\": [{\"target\": \"Secret\", \"path\": \"AccessKey.SecretAccessKey\"}]\n  }\n}\n",
    );
    for argv in [
        &["read", "schema.json"][..],
        &["json", "get", "schema.json", "/Credentials"],
    ] {
        let r = env.run(argv);
        assert!(!r.stdout.contains("REDACTED"), "{argv:?}: {}", r.stdout);
    }
    // A diff of a changed value under the key, in git and between files.
    env.write(
        "c.json",
        pretty.replace(SECRETS[1], "Hj5Tk8Lm2Qp9Xz4WvB7nR3sE"),
    );
    env.write(
        "d.json",
        pretty.replace(SECRETS[0], "q8Zf3LmP0xA1Wk3n9RtY7uB3"),
    );
    for argv in [&["git", "diff"][..], &["diff", "c.json", "d.json"]] {
        let r = env.run(argv);
        for s in [SECRETS[0], SECRETS[1], "q8Zf3LmP0xA1Wk3n9RtY7uB3"] {
            assert!(!r.stdout.contains(s), "{argv:?} leaked {s}: {}", r.stdout);
        }
    }
}

/// `batch` masks only its commit's members itself (the results are the inner
/// envelopes, masked and counted by their calls): a path naming a secret is
/// masked in the commit's `changes` and counted once at the top, the inner count
/// stays the inner call's.
#[test]
fn a_batch_masks_its_commits_changes_and_trusts_its_results() {
    let env = TestEnv::new();
    let data = r#"[["write","d/password=Tr0ub4dor3xyzQ/a.txt","--content","x\n"]]"#;
    let r = env.run(&["batch", "--atomic", "--stdin-data", data]);
    assert!(!r.stdout.contains("Tr0ub4dor3xyzQ"), "{}", r.stdout);
    let v = &r.json;
    let masks = |j: &serde_json::Value| j.to_string().matches("[REDACTED_SECRET]").count();
    // The commit names the new directory and the file: two masks, each counted.
    assert_eq!(masks(&v["changes"]), 2, "{v}");
    assert_eq!(v["redactions"], 2, "{v}");
    assert_eq!(v["results"][0]["redactions"], 2, "{v}");
    assert_eq!(masks(&v["results"][0]), 2, "{v}");
}

/// A search's matches are masked once, as one pass over the answer: a match the
/// pass masked (`[REDACTED_SECRET]`) is not read again as the text it hides. A
/// second pass read it as a list's `[` still open under `secret = [l` and masked
/// the next, harmless match (`token=token,`), whose group was shown in clear.
#[test]
fn search_matches_are_masked_once_not_judged_again_after_a_mask() {
    let env = TestEnv::new();
    env.write(
        "s.py",
        "token: Hj5Tk8Lm2Qp9Xz4WbN7cR1sV\nsecret = [l for l in lines]\npassword\"`\\n\\tAPIKey\nclient = Client(token=token, timeout=30)\n",
    );
    let r = env.run(&[
        "search",
        r#"(password|token|secret)[=:"\s]+(\S+)"#,
        "s.py",
        "--output",
        "matches",
    ]);
    assert!(
        !r.stdout.contains("Hj5Tk8Lm2Qp9Xz4WbN7cR1sV"),
        "{}",
        r.stdout
    );
    let texts: Vec<&str> = (r.json["matches"].as_array().into_iter().flatten())
        .filter_map(|m| m["text"].as_str())
        .collect();
    assert_eq!(
        texts,
        [
            "token: [REDACTED_SECRET]",
            "secret = [l",
            "[REDACTED_SECRET]",
            "token=token,"
        ],
        "{}",
        r.stdout
    );
    assert_eq!(masks(&r.stdout), 3, "{}", r.stdout);
    assert_eq!(r.json["redactions"], 3, "{}", r.stdout);
}

/// A failed batch's diagnostics are the envelopes of the calls it ran, each masked
/// and counted by its call: the error's answer masks only its own members. A
/// second pass over them read a match the first had masked as a list still open
/// under `secret = [l`, masked the harmless match after it and counted it at the top.
#[test]
fn a_failed_batch_nests_each_answer_as_its_call_printed_it() {
    let env = TestEnv::new();
    env.write(
        "s.py",
        "secret = [l for l in lines]\npassword\"`\\n\\tAPIKey\nclient = Client(token=token, timeout=30)\n",
    );
    let search = [
        "search",
        r#"(password|token|secret)[=:"\s]+(\S+)"#,
        "s.py",
        "--output",
        "matches",
    ];
    let alone = env.run(&search);
    assert_eq!(
        alone.json["matches"][2]["text"], "token=token,",
        "{}",
        alone.stdout
    );
    let data = serde_json::json!([search, ["bogus"]]).to_string();
    let r = env.run(&["batch", "--stdin-data", &data]);
    let v = &r.json;
    assert_eq!(v["error"]["diagnostics"][0], alone.json, "{v}");
    assert_eq!(v["redactions"], serde_json::Value::Null, "{v}");
}

/// A command line's option strongly naming a secret, its value the next word
/// (`--password VALUE`), masks the value in a file's lines and in a failed batch's
/// echo of the element; options about a secret and values naming one elsewhere
/// stay shown.
#[test]
fn an_options_value_after_a_space_is_masked_as_after_its_key() {
    let env = TestEnv::new();
    let shown = [
        "docker login --password-stdin",
        "app --password-file /run/secrets/db --token $TOKEN",
        "docker build --secret id=npm,src=.npmrc .",
        "see --password for details",
        "tool --token-count 500",
    ];
    let text = format!(
        "mysql -u root --password Hj5Tk8Lm2Qp9Xz4W\n{}\n",
        shown.join("\n")
    );
    env.write("deploy.sh", text);
    let r = env.run(&["read", "deploy.sh"]);
    assert!(!r.stdout.contains("Hj5Tk8Lm2Qp9Xz4W"), "{}", r.stdout);
    assert_eq!(r.json["redactions"], 1, "{}", r.stdout);
    for (i, line) in shown.iter().enumerate() {
        assert_eq!(r.json["lines"][i + 1], *line, "{}", r.stdout);
    }
    let data = r#"[["read","deploy.sh"],["bogus","--password","Tr0ub4dor&3xyzQ"]]"#;
    let r = env.run(&["batch", "--stdin-data", data]);
    assert!(!r.stdout.contains("Tr0ub4dor&3xyzQ"), "{}", r.stdout);
    assert!(!r.stdout.contains("Hj5Tk8Lm2Qp9Xz4W"), "{}", r.stdout);
    assert_eq!(r.json["redactions"], 1, "{}", r.stdout);
}
