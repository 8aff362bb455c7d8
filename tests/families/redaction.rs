//! The secret mask, proved from outside: every format the contract names is masked
//! in `read` output (lines, hex, strings) and in error messages, the look-alikes it
//! must leave alone are left alone, `redactions` counts the masked regions, and a
//! property test embeds known secrets in random text.

use crate::support::TestEnv;
use proptest::prelude::*;

const P: &str = "[REDACTED_SECRET]";

const PEM_RSA: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAwJ1mbodyline1\nQ2hpY2tlbnNvdXBib2R5bGluZTI=\n-----END RSA PRIVATE KEY-----";
const PGP: &str = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGPgpbodyline1xyz\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----";

fn read_all(env: &TestEnv, name: &str, content: &str) -> crate::support::Run {
    env.write(name, content);
    env.run(&["read", name, "--max-lines", "1000"])
}

#[test]
fn pem_blocks_split_across_read_lines_are_masked_whole() {
    let env = TestEnv::new();
    let body = format!("before\n{PEM_RSA}\nafter password=x1\n");
    let r = read_all(&env, "k.pem", &body);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.lines(),
        vec!["before", P, P, P, P, &format!("after password={P}")]
    );
    assert_eq!(r.json["redactions"], 2);
    assert!(!r.stdout.contains("MIIEow") && !r.stdout.contains("Q2hpY2tl"));
    // A window that starts on BEGIN but ends before END is masked to its end.
    let part = env.run(&["read", "k.pem", "--range", "2:3"]);
    assert_eq!(part.lines(), vec![P, P]);
    // A window inside the block, without its BEGIN line, still hides nothing? The
    // body alone is base64 with no format: the contract masks formats only.
    let pgp = read_all(&env, "k.asc", &format!("{PGP}\n"));
    // The blank line after the armor header is not part of the key: it stays blank.
    assert!(
        pgp.lines().iter().all(|l| l == P || l.is_empty()),
        "{}",
        pgp.stdout
    );
    assert_eq!(pgp.json["redactions"], 1);
    assert!(!pgp.stdout.contains("lQOYBG"));
}

#[test]
fn pem_block_inside_one_string_is_masked() {
    let env = TestEnv::new();
    // A path argument is one string: the not-found message holds the whole block.
    let r = env.run(&["read", PEM_RSA]);
    assert_eq!(r.code, 1);
    assert!(!r.stderr.contains("MIIEow"), "{}", r.stderr);
    assert!(!r.stderr.contains("Q2hpY2tl"), "{}", r.stderr);
    assert!(r.json["redactions"].as_u64().unwrap() >= 1);
}

#[test]
fn token_formats_are_masked() {
    let env = TestEnv::new();
    let secrets = [
        "ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5",
        "gho_16charsAtLeast0123456789",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "sk-proj0123456789abcdefghijKLMN",
        "xoxb-123456789012-abcdefghij",
        "xoxp-123456789012-abcdefghij",
        "xoxa-123456789012-abcdefghij",
        "xoxr-123456789012-abcdefghij",
        "xoxs-123456789012-abcdefghij",
        "xoxo-123456789012-abcdefghij",
        "AKIAQ3EGRT5KXJ7PLW2M",
        "ASIAY34FZKBOKMUTVV7A",
    ];
    let body: String = secrets.iter().map(|s| format!("x {s} y\n")).collect();
    let r = read_all(&env, "t.txt", &body);
    for s in secrets {
        assert!(!r.stdout.contains(s), "{s} leaked: {}", r.stdout);
    }
    assert!(
        r.lines().iter().all(|l| *l == format!("x {P} y")),
        "{}",
        r.stdout
    );
    assert_eq!(r.json["redactions"], secrets.len());
    let b = read_all(
        &env,
        "h.txt",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def\n",
    );
    assert_eq!(b.lines(), vec![format!("Authorization: Bearer {P}")]);
}

#[test]
fn every_key_name_in_every_spelling() {
    let env = TestEnv::new();
    let keys = [
        "password",
        "passwd",
        "secret",
        "token",
        "api_key",
        "apikey",
        "access_key",
        "access_token",
        "auth_token",
        "client_secret",
        "secret_key",
        "private_key",
    ];
    let shapes: [fn(&str, &str) -> String; 8] = [
        |k, v| format!("{k}={v}"),
        |k, v| format!("{k}: {v}"),
        |k, v| format!("\"{k}\": \"{v}\","),
        |k, v| format!("{k} = '{v}'"),
        |k, v| format!("{k}\t:\t{v}"),
        |k, v| format!("{}={v}", k.to_uppercase()),
        |k, v| format!("export MY_{}=\"{v}\"", k.to_uppercase()),
        |k, v| format!("{k}   =   `{v}`"),
    ];
    let mut body = String::new();
    let mut values = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        for (j, shape) in shapes.iter().enumerate() {
            let v = format!("Val{i}x{j}Q");
            body.push_str(&shape(k, &v));
            body.push('\n');
            values.push(v);
        }
    }
    let r = read_all(&env, "cfg.env", &body);
    for v in &values {
        assert!(!r.stdout.contains(v.as_str()), "{v} leaked: {}", r.stdout);
    }
    assert_eq!(r.json["redactions"], values.len());
    assert!(r.lines().iter().all(|l| l.contains(P)));
}

#[test]
fn look_alikes_are_not_masked() {
    let env = TestEnv::new();
    let body = "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----\n\
-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n\
commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad\n\
id 123e4567-e89b-12d3-a456-426614174000\n\
the risk-assessment-framework-document is ready\n\
tokens: 5\nif password == other:\nask-me-anything-0123456789\nAKIAQ3EGRT5KXJ7PLW2MX\n";
    let r = read_all(&env, "plain.txt", body);
    assert_eq!(r.code, 0);
    assert!(r.json.get("redactions").is_none(), "{}", r.stdout);
    let want: Vec<&str> = body.lines().collect();
    assert_eq!(r.lines(), want);
}

#[test]
fn error_messages_and_arguments_are_masked() {
    let env = TestEnv::new();
    let r = env.run(&["read", "missing-password=hunter2.txt"]);
    assert_eq!(r.error_code(), "input.not-found");
    assert!(!r.stderr.contains("hunter2"), "{}", r.stderr);
    let bad = env.run(&["read", "x", "--match", "(ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9"]);
    assert_eq!(bad.error_code(), "input.syntax-error");
    assert!(
        !bad.stderr.contains("ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9"),
        "{}",
        bad.stderr
    );
}

#[test]
fn hex_and_strings_views_are_masked() {
    let env = TestEnv::new();
    let secret = "ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5";
    let mut content = vec![0u8; 40];
    content.extend_from_slice(format!("key {secret} end\n").as_bytes());
    content.extend_from_slice(PEM_RSA.as_bytes());
    content.push(b'\n');
    std::fs::write(env.path("blob.bin"), &content).unwrap();
    let hexed: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
    // The window starts inside the token: the mask still sees it whole.
    let h = env.run(&["read", "blob.bin", "--as", "hex", "--bytes", "50:400"]);
    let all: String = h.json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["hex"].as_str().unwrap().replace(' ', ""))
        .collect();
    assert!(!all.contains(&hexed[20..]), "{all}");
    assert!(all.contains("2a2a2a2a"), "{all}");
    // The PEM body lines are masked too.
    let body_hex: String = "MIIEowIBAAKC".bytes().map(|b| format!("{b:02x}")).collect();
    assert!(!all.contains(&body_hex), "{all}");
    assert!(
        all.contains(&"656e64".to_string()),
        "the text around stays: {all}"
    );
    let s = env.run(&["read", "blob.bin", "--as", "strings"]);
    assert!(!s.stdout.contains(secret), "{}", s.stdout);
    assert!(!s.stdout.contains("MIIEow"), "{}", s.stdout);
    assert!(!s.stdout.contains("Q2hpY2tl"), "{}", s.stdout);
}

fn secret_strategy() -> impl Strategy<Value = String> {
    let alnum = "[A-Za-z0-9]{36}";
    prop_oneof![
        alnum.prop_map(|b| format!("ghp_{b}")),
        "[A-Z0-9]{16}".prop_map(|b| format!("AKIA{b}")),
        "[a-z]{10}[0-9]{10}".prop_map(|b| format!("sk-{b}")),
        "[0-9]{10}-[a-z]{10}".prop_map(|b| format!("xoxb-{b}")),
        "[A-Za-z0-9]{20}".prop_map(|b| format!("Bearer {b}")),
        "[A-Za-z0-9]{12}".prop_map(|b| format!("api_key={b}")),
        "[A-Za-z0-9]{12}".prop_map(|b| format!("\"client_secret\": \"{b}\"")),
        "[A-Za-z0-9+/]{40}".prop_map(|b| format!(
            "-----BEGIN EC PRIVATE KEY-----\n{b}\n-----END EC PRIVATE KEY-----"
        )),
    ]
}

/// The part of a secret that must never appear (the scheme or key name may).
fn body_of(secret: &str) -> &str {
    for sep in ["Bearer ", "api_key=", "\"client_secret\": \""] {
        if let Some(rest) = secret.strip_prefix(sep) {
            return rest.trim_end_matches('"');
        }
    }
    if let Some(rest) = secret.strip_prefix("-----BEGIN EC PRIVATE KEY-----\n") {
        return &rest[..40];
    }
    secret
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn masked_output_never_holds_an_embedded_secret(
        before in "\\PC{0,40}",
        after in "\\PC{0,40}",
        secret in secret_strategy(),
        sep in prop_oneof![Just(" "), Just("\n"), Just("\t"), Just(" ; ")],
    ) {
        let text = format!("{before}{sep}{secret}{sep}{after}");
        let mut tree = aitools::protocol::Json::Arr(vec![
            aitools::protocol::Json::str(text.clone()),
            aitools::protocol::Json::Arr(text.split('\n').map(aitools::protocol::Json::str).collect()),
        ]);
        let n = aitools::protocol::redact::mask_tree(&mut tree);
        let out = tree.to_string_compact();
        prop_assert!(n >= 2);
        prop_assert!(!out.contains(body_of(&secret)), "{} leaked in {}", secret, out);
    }
}

#[test]
fn a_few_random_cases_black_box() {
    // The same property through the binary, on a handful of fixed seeds.
    let env = TestEnv::new();
    let cases = [
        ("héllo wörld", "ghp_ZZZZaaaa1111bbbb2222cccc3333dddd4444"),
        ("日本語のテキスト", "AKIAZZZZ1111YYYY2222"),
        ("{\"a\":1}", "sk-abcdefghij0123456789"),
    ];
    for (i, (noise, secret)) in cases.iter().enumerate() {
        let name = format!("r{i}.txt");
        let r = read_all(&env, &name, &format!("{noise} {secret} {noise}\n"));
        assert!(!r.stdout.contains(secret), "{}", r.stdout);
        assert_eq!(r.json["redactions"], 1);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// The batched tree mask finds exactly what masking each string alone finds.
    #[test]
    fn tree_mask_equals_per_string_mask(
        parts in proptest::collection::vec(
            prop_oneof![
                "\\PC{0,30}",
                "[a-zA-Z_]{0,8}(password|TOKEN|Secret_Key|api_key)[ '\"]{0,2}[=:] ?[a-z0-9]{1,12}",
                "x ghp_[A-Za-z0-9]{20} y",
                "AKIA[A-Z0-9]{16}",
            ],
            0..40,
        )
    ) {
        use aitools::protocol::{Json, redact};
        let mut tree = Json::Arr(parts.iter().map(|p| Json::str(p.clone())).collect());
        let n = redact::mask_tree(&mut tree);
        let mut want = Vec::new();
        let mut count = 0;
        for p in &parts {
            match redact::mask_str(p) {
                Some((m, k)) => { want.push(Json::str(m)); count += k; }
                None => want.push(Json::str(p.clone())),
            }
        }
        prop_assert_eq!(n, count);
        prop_assert_eq!(tree, Json::Arr(want));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// The envelope writer's fused path (serialize, scan, splice) prints exactly what
    /// masking the tree and serializing it prints.
    #[test]
    fn fused_writer_equals_mask_then_serialize(
        parts in proptest::collection::vec(
            prop_oneof![
                "\\PC{0,20}",
                Just("-----BEGIN RSA PRIVATE KEY-----".to_string()),
                Just("-----END RSA PRIVATE KEY-----".to_string()),
                Just("password=abc -----BEGIN RSA PRIVATE KEY-----".to_string()),
                Just("-----END RSA PRIVATE KEY----- token: zz9".to_string()),
                Just("-----BEGIN CERTIFICATE-----".to_string()),
                Just(BODY1.to_string()),
                Just(format!("+{BODY2}")),
                Just("password = \"Hunter2Hunter2\" and".to_string()),
                Just("hunter2hunter2 again HUNTER2HUNTER2".to_string()),
                "[a-z]{0,4}(password|Token)[\"' ]?[=:] ?\"?[a-z0-9]{1,8}",
                "ghp_[A-Za-z0-9]{20}",
                Just("password=".to_string()),
                Just("Tr0ub4dor3xyzQ".to_string()),
            ],
            0..30,
        ),
        key in prop_oneof![Just("name"), Just("DB_PASSWORD"), Just("api_key=abc123"), Just("text"), Just("path")],
        with_objects in any::<bool>(),
        listed in prop_oneof![Just("lines"), Just("files"), Just("items"), Just("tree")],
    ) {
        use aitools::protocol::{Json, redact};
        let mut tree = Json::obj();
        // `items` rows under `fields` naming a path column (a table of paths).
        if listed == "items" {
            tree.push("fields", Json::Arr(vec![Json::str("path"), Json::str("text")]));
            let rows = parts.chunks(2).map(|c| Json::Arr(c.iter().map(|p| Json::str(p.clone())).collect()));
            tree.push("items", Json::Arr(rows.collect()));
        } else if listed == "tree" {
            // `find --tree` nodes, each part a directory of the one before.
            let mut node = Json::obj();
            node.push("name", Json::str("leaf"));
            for p in parts.iter().rev() {
                let mut file = Json::obj();
                file.push("name", Json::str(p.clone()));
                let mut dir = Json::obj();
                dir.push("name", Json::str(p.clone()));
                dir.push("children", Json::Arr(vec![node, file]));
                node = dir;
            }
            tree.push("tree", node);
        } else {
            tree.push(listed, Json::Arr(parts.iter().map(|p| Json::str(p.clone())).collect()));
        }
        let items = parts
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut o = Json::obj();
                o.push("offset", Json::UInt(i as u64));
                o.push("text", Json::str(p.clone()));
                o
            })
            .collect();
        if with_objects {
            tree.push("strings", Json::Arr(items));
        }
        tree.push(key, Json::str(parts.first().cloned().unwrap_or_default()));
        let mut a = tree.clone();
        let n = redact::mask_tree_reference(&mut a);
        let mut b = tree.clone();
        let (text, m) = redact::write_masked(&mut b);
        prop_assert_eq!(n, m);
        prop_assert_eq!(&text, &a.to_string_compact());
        // The prefiltered tree pass too.
        let mut c = tree.clone();
        prop_assert_eq!(redact::mask_tree(&mut c), n);
        prop_assert_eq!(c, a);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// The streaming writer on envelopes larger than its scan window, with keys in
    /// any case, tabs and quotes between key and sign (escaped in JSON), blocks
    /// opened in one window and closed in another, and object items with `text`:
    /// byte for byte what masking the tree and serializing it prints.
    #[test]
    fn streaming_writer_equals_tree_pass_on_large_envelopes(
        parts in proptest::collection::vec(
            prop_oneof![
                6 => "[ -~]{0,60}",
                2 => "[a-z ]{0,10}(pAsSwOrD|TOKEN|Api_Key|client_SECRET|passwd|x_token|tokens)[ \t\"'`]{0,3}[=:]{1,2}[ \t]?[\"']?[a-z0-9]{0,10}",
                1 => "[a-z ]{0,6}(ghp_|sk-|xoxb-|AKIA|Bearer |github_pat_)[A-Za-z0-9]{0,24}",
                1 => Just("k -----BEGIN RSA PRIVATE KEY-----".to_string()),
                1 => Just("-----END RSA PRIVATE KEY----- token: t1".to_string()),
                1 => Just("-----BEGIN PGP PRIVATE KEY BLOCK----- -----END PGP x-----".to_string()),
                1 => Just("  password: |".to_string()),
                1 => "    [A-Za-z0-9]{4,12}",
                1 => Just("AwEH".to_string()),
                1 => Just("-----END EC PRIVATE KEY-----".to_string()),
                1 => Just(BODY1.to_string()),
                1 => Just("=+eCu".to_string()),
                1 => "(Authorization: (Basic|Bearer|Token) |GITLAB=glpat-|x-ghs_|AccountKey=)[A-Za-z0-9+/=]{2,24};?",
                1 => "(db|https)://[a-z]{1,5}:[!-~]{1,10}@[a-z.]{1,10}",
                1 => "<add key=\"(DB_PASSWORD|name)\" value=\"[a-z0-9]{1,10}\" />",
            ],
            150..400,
        ),
        copies in 1usize..4,
        with_objects in any::<bool>(),
    ) {
        use aitools::protocol::{Json, redact};
        let lines: Vec<String> = (0..copies).flat_map(|_| parts.iter().cloned()).collect();
        let mut tree = Json::obj();
        tree.push("path", Json::str("a.rs"));
        tree.push("lines", Json::Arr(lines.iter().map(|p| Json::str(p.clone())).collect()));
        if with_objects {
            let items = lines
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let mut o = Json::obj();
                    o.push("line", Json::UInt(i as u64));
                    o.push("text", Json::str(p.clone()));
                    o.push("context", Json::Arr(vec![Json::str(p.clone()), Json::Int(1)]));
                    o
                })
                .collect();
            tree.push("matches", Json::Arr(items));
        }
        tree.push("Secret_Key", Json::str("v"));
        let mut a = tree.clone();
        let n = redact::mask_tree_reference(&mut a);
        let mut b = tree.clone();
        let (text, m) = redact::write_masked(&mut b);
        prop_assert_eq!(&text, &a.to_string_compact());
        prop_assert_eq!(n, m);
        let mut c = tree.clone();
        prop_assert_eq!(redact::mask_tree(&mut c), n);
        prop_assert_eq!(c, a);
    }
}

#[test]
fn secrets_in_files_never_come_back_from_writes_searches_diffs_or_undo() {
    // The contract masks every envelope, not only read's: a secret on an edited
    // line travels in the write's diff, in search lines, in diff and tx diff, and
    // in undo's diff.
    let env = TestEnv::new();
    let token = "ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5";
    env.write("c.txt", format!("one\ntoken = {token}\nthree\n"));
    env.write("d.txt", format!("one\ntoken = {token}\nTHREE\n"));
    let check = |r: &crate::support::Run| {
        assert!(!r.stdout.contains(token), "{}", r.stdout);
        assert!(!r.stderr.contains(token), "{}", r.stderr);
        assert!(r.stdout.contains(P) || r.stderr.contains(P), "{}", r.stdout);
    };
    // An exact edit shows its diff only when asked (the caller wrote both sides).
    let edit = env.run(&[
        "edit",
        "c.txt",
        "--old",
        "token =",
        "--new",
        "tok =",
        "--max-diff-lines",
        "10",
    ]);
    assert_eq!(edit.code, 0, "{}", edit.stderr);
    check(&edit);
    let op = edit.json["op_id"].as_str().unwrap().to_string();
    check(&env.run(&["search", "token"]));
    check(&env.run(&["diff", "c.txt", "d.txt"]));
    check(&env.run(&["diff", "--op", &op]));
    check(&env.run(&["undo", &op, "--dry-run"]));
    let tx = env.run(&["tx", "begin"]);
    let id = tx.json["tx"].as_str().unwrap().to_string();
    let staged = env.run(&[
        "edit",
        "d.txt",
        "--old",
        "token =",
        "--new",
        "tok =",
        "--tx",
        &id,
        "--max-diff-lines",
        "10",
    ]);
    assert_eq!(staged.code, 0, "{}", staged.stderr);
    check(&staged);
    check(&env.run(&["tx", "diff", &id]));
    // The file itself keeps the secret: only output is masked.
    assert!(String::from_utf8_lossy(&env.read("c.txt")).contains(token));
}

/// Two 64-character body lines, as a real RSA key has them.
const BODY1: &str = "MIIERIgP/58waM+Dx3A5idNoDCDBwb2Dc4/dsdc6lC1MXlPq2Ymk/yE9fz1WuvL4";
const BODY2: &str = "MIIENUyv+D8FnyVVdBZdzst6iAxQa2H9uZ0+t1sAq6DdWXLgEJKC5BjfiOXslIVU";

/// The exploratory test's repository: `secrets.txt` (a key block, an AWS key id and
/// a password; `hunter2hunter2` starts at byte 258) and `key.pem`, committed.
fn leak_env() -> TestEnv {
    let env = TestEnv::new();
    let pem = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{BODY1}\n{BODY2}\n-----END RSA PRIVATE KEY-----\n"
    );
    env.write(
        "secrets.txt",
        format!(
            "config start\n{pem}aws_access_key_id = AKIAQ3EGRT5KXJ7PLW2M\npassword = \"hunter2hunter2\"\n"
        ),
    );
    env.write("key.pem", &pem);
    env
}

/// None of `secrets` (nor the lower-case spelling) appears on stdout or stderr.
fn hides(r: &crate::support::Run, secrets: &[&str]) {
    for s in secrets {
        for form in [s.to_string(), s.to_ascii_lowercase()] {
            assert!(
                !r.stdout.contains(&form) && !r.stderr.contains(&form),
                "{form} leaked:\n{}{}",
                r.stdout,
                r.stderr
            );
        }
    }
}

const KNOWN: [&str; 5] = [
    "hunter2hunter2",
    "AKIAQ3EGRT5KXJ7PLW2M",
    "Q3EGRT5KXJ7PLW2M",
    BODY1,
    BODY2,
];

#[test]
fn search_matches_are_masked_by_their_whole_line() {
    let env = leak_env();
    for pat in [
        "hunter2hunter2",
        r#"password = "(?P<pw>.*)""#,
        r"AKIA(\w+)",
        "MIIE.*",
    ] {
        let r = env.run(&["search", pat, "--output", "matches"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.contains(P), "{pat}: {}", r.stdout);
        hides(&r, &KNOWN);
    }
}

#[test]
fn a_masked_value_is_masked_wherever_else_it_appears() {
    let env = leak_env();
    env.write(
        "src/app.py",
        "password = \"hunter2hunter2\"\nAWS_KEY = \"AKIAQ3EGRT5KXJ7PLW2M\"\n",
    );
    let r = env.run(&[
        "replace",
        r#"^(\w+) = "(.*)"$"#,
        r#"$1 = os.environ.get("$1", "$2")"#,
        "src/app.py",
        "--dry-run",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    hides(&r, &KNOWN);
    let r = env.run(&[
        "replace",
        r#"= "(.*)""#,
        r#"= "${1:lower}""#,
        "src/app.py",
        "--dry-run",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    hides(&r, &KNOWN);
}

#[test]
fn key_body_lines_are_masked_without_their_begin_line() {
    let env = leak_env();
    let runs = [
        env.run(&["read", "key.pem", "--range", "3:4"]),
        env.run(&["read", "secrets.txt", "--match", "MIIE"]),
        env.run(&["search", "MIIE", "--context", "0"]),
        env.run(&[
            "edit",
            "key.pem",
            "--old",
            "-----END RSA",
            "--new",
            "-----END  RSA",
            "--dry-run",
        ]),
    ];
    for r in &runs {
        assert_eq!(r.code, 0, "{}", r.stderr);
        hides(r, &KNOWN);
        hides(r, &["MIIERIgP", "MIIENUyv"]);
    }
    // A hex window inside a body line shows only stars.
    let h = env.run(&["read", "key.pem", "--as", "hex", "--bytes", "50:60"]);
    let rows = h.json["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        let hex = row["hex"].as_str().unwrap();
        assert!(hex.split(' ').all(|b| b == "2a"), "{hex}");
    }
    // Lower-case hex (a sha256, a commit id) and prose lines stay as they are.
    let sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let commit = "1ac2068f4d5e6b7c8d9e0f1a2b3c4d5e6f7a8b9c";
    let plain = "ThisIsAVeryLongIdentifierWithoutAnyDigitsInItAtAll";
    env.write("h.txt", format!("{sha}\n{commit}\n{plain}\n"));
    let r = env.run(&["read", "h.txt"]);
    assert_eq!(r.lines(), vec![sha, commit, plain]);
}

#[test]
fn strings_window_inside_a_secret_is_masked() {
    let env = leak_env();
    let r = env.run(&[
        "read",
        "secrets.txt",
        "--as",
        "strings",
        "--bytes",
        "258:272",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    hides(&r, &["hunter2hunter2", "hunter2"]);
    let r = env.run(&[
        "read",
        "secrets.txt",
        "--as",
        "strings",
        "--bytes",
        "226:240",
    ]);
    hides(&r, &["KIAQ3EGRT5KXJ7", "Q3EGRT5KX"]);
}

#[test]
fn url_credentials_and_stripe_keys_are_masked() {
    let env = TestEnv::new();
    let url = "postgres://admin:Sup3rS3cret@db.example/x";
    let live = "sk_live_51H8abcdefGHIJKLmnopQRST0123";
    let restricted = "rk_live_51H8abcdefGHIJKLmnopQRST0123";
    env.write(
        "c.txt",
        format!("db {url}\nstripe {live}\nr {restricted}\n"),
    );
    let r = env.run(&["read", "c.txt"]);
    hides(&r, &["Sup3rS3cret", live, restricted]);
    assert_eq!(
        r.lines(),
        vec![
            format!("db postgres://admin:{P}@db.example/x"),
            format!("stripe {P}"),
            format!("r {P}"),
        ]
    );
    // A URL without a password is left alone.
    env.write(
        "u.txt",
        "see https://user@example.com/a and http://example.com:8080/b\n",
    );
    let r = env.run(&["read", "u.txt"]);
    assert!(!r.stdout.contains(P), "{}", r.stdout);
}

#[test]
fn hex_of_utf16_text_is_masked() {
    let env = TestEnv::new();
    let text = "id = 1\naws_access_key_id = AKIAQ3EGRT5KXJ7PLW2M\npassword = \"hunter2hunter2\"\n";
    for (name, bom, unit) in [
        (
            "le.txt",
            [0xff, 0xfe],
            (|c: u16| c.to_le_bytes()) as fn(u16) -> [u8; 2],
        ),
        ("be.txt", [0xfe, 0xff], |c: u16| c.to_be_bytes()),
    ] {
        let mut bytes = bom.to_vec();
        for c in text.encode_utf16() {
            bytes.extend_from_slice(&unit(c));
        }
        std::fs::write(env.path(name), &bytes).unwrap();
        let h = env.run(&["read", name, "--as", "hex", "--bytes", "0:400"]);
        assert_eq!(h.code, 0, "{}", h.stderr);
        let all: String = h.json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["hex"].as_str().unwrap().replace(' ', ""))
            .collect();
        for secret in ["AKIAQ3EGRT5KXJ7PLW2M", "hunter2hunter2"] {
            let wide: String = secret
                .encode_utf16()
                .flat_map(unit)
                .map(|b| format!("{b:02x}"))
                .collect();
            assert!(!all.contains(&wide[8..24]), "{name} {secret}: {all}");
        }
        assert!(all.contains("2a2a2a2a"), "{all}");
        // The text around stays readable: "id = 1".
        let id: String = "id"
            .encode_utf16()
            .flat_map(unit)
            .map(|b| format!("{b:02x}"))
            .collect();
        assert!(all.contains(&id), "{all}");
    }
}

#[test]
fn every_spelling_of_the_mask_is_refused_on_write() {
    let env = TestEnv::new();
    env.write("a.txt", "token = SECRET\n");
    for new in [
        "[redacted_secret]",
        "[Redacted_Secret]",
        "\\u005bREDACTED_SECRET\\u005d",
        "\\u005Bredacted_secret]",
        "%5BREDACTED_SECRET%5D",
    ] {
        let r = env.run(&["edit", "a.txt", "--old", "SECRET", "--new", new]);
        assert_eq!(
            r.error_code(),
            "refusal.redacted-input",
            "{new}: {}",
            r.stdout
        );
    }
    // A template that builds the mask from the file's own text.
    let r = env.run(&["replace", "(SECRET)", "[REDACTED_$1]", "a.txt"]);
    assert_eq!(r.error_code(), "refusal.redacted-input", "{}", r.stdout);
    let r = env.run(&["replace", "S(ECRET)", "[redacted_s$1]", "a.txt"]);
    assert_eq!(r.error_code(), "refusal.redacted-input", "{}", r.stdout);
    assert_eq!(env.read("a.txt"), b"token = SECRET\n");
    // A file that already holds the mask can still be edited elsewhere.
    env.write("doc.md", "The mask is [REDACTED_SECRET].\nold\n");
    let r = env.run(&["replace", "old", "new", "doc.md", "--expect-count", "1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// A GitHub token in the format's length, a GitLab token, HTTP Basic credentials and
/// a PKCS#8 key whose last body line is short: one set every output path must hide.
const GH: &str = "ghs_R7kQ2mX9pL4vN8sT1wY6zB3cD5fH0jK2aQ9e";
const GL: &str = "glpat-aB3dE5gH7jK9mN1pQ3sT";
const BASIC: &str = "dXNlcjpodW50ZXIyMjI5OTk=";
const TAIL: &str = "Zk3q9XwA";

fn paths_env() -> TestEnv {
    let env = TestEnv::new();
    env.write(
        "s.txt",
        format!(
            "line one\nGITLAB={GL}\nAuthorization: Basic {BASIC}\n-----BEGIN PRIVATE KEY-----\n{BODY1}\n{BODY2}\n{TAIL}\n-----END PRIVATE KEY-----\nlast '{GH}'\n"
        ),
    );
    env
}

#[test]
fn every_output_path_masks_the_same_set() {
    let env = paths_env();
    let all = [GH, GL, BASIC, BODY1, BODY2];
    // read: text (counting every mask), --tail, a range ending inside the key (its
    // short last line), hex, strings.
    let r = env.run(&["read", "s.txt"]);
    hides(&r, &all);
    assert!(!r.lines().iter().any(|l| l == TAIL), "{}", r.stdout);
    assert_eq!(r.json["redactions"], 4, "{}", r.stdout);
    for args in [
        &["read", "s.txt", "--tail", "4"][..],
        &["read", "s.txt", "--range", "6:7"],
        &["read", "s.txt", "--range", "7:8"],
        &["read", "s.txt", "--as", "hex"],
        &["read", "s.txt", "--as", "strings"],
    ] {
        let r = env.run(args);
        assert!(r.code == 0 || r.code == 3, "{args:?}: {}", r.stderr);
        hides(&r, &all);
        assert!(
            !r.lines().iter().any(|l| l == TAIL),
            "{args:?}: {}",
            r.stdout
        );
    }
    // search: matches, groups, and next_commands quoting the pattern (the secret).
    env.write("t.txt", format!("again '{GH}'\nand {GH}\n"));
    for pat in [GH, "ghs_\\w+", "GITLAB=(\\S+)"] {
        let r = env.run(&["search", pat, "--limit", "1"]);
        assert!(r.code == 0 || r.code == 3, "{pat}: {}", r.stderr);
        hides(&r, &all);
    }
    // An error message echoing an argument.
    let r = env.run(&["read", &format!("no-such-{GH}.txt")]);
    assert_eq!(r.error_code(), "input.not-found");
    hides(&r, &all);
    // A write, its diff, history and undo.
    let r = env.run(&[
        "edit",
        "s.txt",
        "--old",
        "line one",
        "--new",
        &format!("line {GL}"),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    hides(&r, &all);
    let op = r.json["op_id"].as_str().unwrap().to_string();
    for args in [&["history"][..], &["undo", &op]] {
        let r = env.run(args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        hides(&r, &all);
    }
    // batch: each element's answer is masked like a call of its own.
    let input = format!(r#"[["read","s.txt"],["search","{GH}"]]"#);
    let r = env.run_stdin(&["batch", "--stdin"], input.as_bytes());
    hides(&r, &all);
    assert!(r.stdout.contains(P), "{}", r.stdout);
}

#[test]
fn a_line_cut_at_its_limit_does_not_show_half_a_token() {
    let env = TestEnv::new();
    // The cut (16,384 bytes) falls 8 bytes into the token.
    let line = format!("{} {GH} tail", "a".repeat(16_375));
    env.write("long.txt", format!("{line}\n"));
    let r = env.run(&["read", "long.txt"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        !r.stdout.contains(&GH[..8]),
        "{}",
        &r.stdout[r.stdout.len().saturating_sub(300)..]
    );
    assert!(r.stdout.contains(P));
    assert_eq!(r.json["redactions"], 1);
}

#[test]
fn feedback_is_stored_masked_and_private() {
    let env = TestEnv::new();
    let r = env.run(&[
        "feedback",
        "create",
        "--type",
        "bug",
        "--message",
        &format!("read printed GITLAB={GL} and {GH}"),
        "--context-command",
        &format!("aitools read x --match {GH}"),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    hides(&r, &[GH, GL]);
    let path = std::path::PathBuf::from(r.json["path"].as_str().unwrap());
    let stored = std::fs::read_to_string(&path).unwrap();
    assert!(!stored.contains(GH) && !stored.contains(GL), "{stored}");
    assert!(stored.contains(P), "{stored}");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
}

#[test]
fn code_that_names_secrets_is_not_masked() {
    let env = TestEnv::new();
    let body = "self.user, self.password = user, password\n\
userid = passwd = acct = ''\n\
passwd = passwd + 'anonymous@'\n\
auth_header = 'Proxy-Authorization'\n\
from nturl2path import url2pathname, pathname2url\n\
Author: Test User\n\
pub password: String,\n\
token: string;\n\
password = get_password(u)\n\
api_key: Optional[str] = None\n\
const apiKey = process.env.API_KEY;\n\
password: str = \"\"\n\
Fingerprint: cd5226711335c68be1e720b318b7bc3135a30eb2:rules/sidekiq.go:sidekiq-secret:23\n\
    \"token\": \"REPLACE_ME\",\n\
s := \"-----BEGIN RSA PRIVATE KEY-----\"\n\
fmt.Println(s)\n";
    let r = read_all(&env, "code.txt", body);
    assert_eq!(r.code, 0);
    let want: Vec<&str> = body.lines().collect();
    let got = r.lines();
    for (g, w) in got.iter().zip(&want) {
        if w.contains("BEGIN RSA") {
            continue;
        }
        assert_eq!(g, w);
    }
    assert_eq!(r.json["redactions"], 1, "{}", r.stdout);
}

/// A replace that renames a secret's key: the dry run's sample shows the line as
/// it reads after, where no key marks the value any more. The envelope's mask
/// alone shows such a line (the read below), so the sample masks the values the
/// line held before (replace.rs `mask_like`).
#[test]
fn a_replace_sample_masks_a_secret_whose_key_the_replacement_renamed() {
    let env = TestEnv::new();
    env.write("conf.py", "import os\npassword = \"hunter2hunter2\"\n");
    env.write("plain.py", "colour = \"hunter2hunter2\"\n");
    let plain = env.run(&["read", "plain.py"]);
    assert!(plain.stdout.contains("hunter2hunter2"), "{}", plain.stdout);
    let dry = env.run(&["replace", "password", "colour", "conf.py", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_eq!(
        dry.json["sample"][0], "conf.py:2: colour = \"[REDACTED_SECRET]\"",
        "{}",
        dry.stdout
    );
    assert!(!dry.stdout.contains("hunter2"), "{}", dry.stdout);
}

/// The journal records a write's argv with its secrets masked (`redact::mask_str`,
/// which passes over what the prefilter rules out): a secret typed in `--new` never
/// reaches the state directory's journal; plain arguments stay as typed.
#[test]
fn argv_secrets_are_masked_in_the_journal() {
    let env = TestEnv::new();
    env.write("c.txt", "one\nplain words\nthree\n");
    let secret = "hunter2hunter2x9";
    let new = format!("password = \"{secret}\"");
    let r = env.run(&["edit", "c.txt", "--old", "plain words", "--new", &new]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut stack = vec![env.state.path().to_path_buf()];
    let mut journal = None;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if e.file_name() == "journal.jsonl" {
                journal = Some(std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let journal = journal.expect("a journal.jsonl under the state directory");
    assert!(!journal.contains(secret), "{journal}");
    assert!(journal.contains(P), "{journal}");
    assert!(journal.contains("\"plain words\""), "{journal}");
}
