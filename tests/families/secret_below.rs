//! Issue 29, round six: values the key names from elsewhere. A value on the line
//! after its key without block syntax (a `\` continuation, HCL's `token =`, JSON a
//! formatter wrapped), and the same shapes left in clear when the next line is not
//! a value (code, a key of its own, a string built at run time).

use crate::support::TestEnv;

#[test]
fn a_value_on_the_line_after_its_key_is_masked() {
    let env = TestEnv::new();
    let secret = [
        ("cont.py", "password = \\\n    \"Tr0ub4dor&3xyzQ\"\n"),
        (
            "main.tf",
            "resource \"x\" \"y\" {\n  token =\n    \"q8ZfT3kLm9Xp2Rw7\"\n}\n",
        ),
        ("env.sh", "export API_TOKEN=\\\n  Hj5Tk8Lm2Qp9Xz4W\n"),
        ("app.ini", "[db]\npassword =\n  Tr0ub4dor&3xyzQ\n"),
        (
            "w.json",
            "{\"db\": {\"password\":\n  \"correct horse battery staple\"}}\n",
        ),
    ];
    for (file, text) in secret {
        env.write(file, text);
        let r = env.run(&["read", file]);
        assert_eq!(r.json["redactions"], 1, "{file}: {}", r.stdout);
        for v in ["Tr0ub4dor", "q8ZfT3kLm9", "Hj5Tk8Lm2Q", "horse battery"] {
            assert!(!r.stdout.contains(v), "{file}: {}", r.stdout);
        }
    }
    // A read range starting on the value's line still knows its key.
    let r = env.run(&["read", "main.tf", "--range", "3:3"]);
    assert!(!r.stdout.contains("q8ZfT3kLm9"), "{}", r.stdout);
    let clear = "TOKEN =\nOTHER = x\nPASSWORD=\nfi\npassword =\n  get_pw()\n\
                 secret = \\\n  os.environ[\"X\"]\nx = {\"token\":\n  null,\n  \"password\":\n  \"abc\" + y}\n\
                 token =\n\n  Hj5Tk8Lm2Qp9Xz4W\nmy_token=\\\n  --flag\nSTRIPE_KEY=\nGITHUB_TOKEN=\nNPM_TOKEN=\nAWS=\n";
    env.write("clear.py", clear);
    let r = env.run(&["read", "clear.py"]);
    assert_eq!(r.json.get("redactions"), None, "{}", r.stdout);
}

/// `pw` (the shortest spelling of a password) names a secret as a whole word of a
/// key; a directory, a variable or code after it, or `pw` inside a longer word,
/// stays shown.
#[test]
fn a_short_password_key_masks_its_value_not_a_directory_or_code() {
    let env = TestEnv::new();
    let masked = "pw = \"Tr0ub4dor&3xyzQ\"\nPW=Hj5Tk8Lm2Qp9Xz4W\ndb_pw: 'correct horse'\nsmtpPw = \"q8ZfT3kLm9Xp2Rw7\"\n";
    let shown = [
        "PWD=/home/user",
        "pwd: /home/user/src",
        "DB_PWD=/var/lib/app",
        "pw = getpass()",
        "pw = os.environ[\"PW\"]",
        "pw = $PW",
        "pw = \"${PW}\"",
        "pw: ~/notes",
        "upward = \"Zx9Qw8Er7Ty6Ui5Op4\"",
        "UPWARD=Ab3Cd4Ef5Gh6Ij7Kl8",
        "pwm = \"Mn1Op2Qr3St4Uv5Wx6\"",
    ];
    env.write("pw.py", format!("{masked}{}\n", shown.join("\n")));
    let r = env.run(&["read", "pw.py"]);
    assert_eq!(r.json["redactions"], 4, "{}", r.stdout);
    for v in ["Tr0ub4dor", "Hj5Tk8Lm2Q", "correct horse", "q8ZfT3kLm9"] {
        assert!(!r.stdout.contains(v), "{}", r.stdout);
    }
    for (i, line) in shown.iter().enumerate() {
        assert_eq!(r.json["lines"][i + 4], *line, "{}", r.stdout);
    }
}

/// A file whose name is its value's key (`secrets/db_password`, `github_token`,
/// `api_key` holding a JSON string) and whose whole text is that one value: `read`,
/// `json get`, `search` (blocks and matches), `git show REV:PATH` and `diff` mask
/// it. A file of another kind (`token.py`), another name, or more than one line
/// stays shown.
#[test]
fn a_file_named_for_its_one_value_masks_it() {
    let env = TestEnv::new();
    env.write("secrets/db_password", "Tr0ub4dor&3xyzQ\n");
    env.write("github_token", "q8ZfT3kLm9Xp2Rw7Vb");
    env.write("api_key", "\"Zx9Qw8Er7Ty6Ui5Op4\"\n");
    env.write(".env.secret", "Wq3eR5tY7uI9oP1aS3dF\n");
    let shown = [
        ("token.py", "Ab3Cd4Ef5Gh6Ij7Kl8"),
        ("notes.txt", "Mn1Op2Qr3St4Uv5Wx6"),
        ("db_password.md", "Gh6Ij7Kl8Mn1Op2Qr3"),
    ];
    for (file, text) in shown {
        env.write(file, format!("{text}\n"));
    }
    env.write("access_token", "Kl8Mn1Op2Qr3St4Uv5\nsecond line\n");
    let secrets = ["Tr0ub4dor", "q8ZfT3kLm9", "Zx9Qw8Er7T", "Wq3eR5tY7u"];
    for file in [
        "secrets/db_password",
        "github_token",
        "api_key",
        ".env.secret",
    ] {
        let r = env.run(&["read", file]);
        assert_eq!(r.json["redactions"], 1, "{file}: {}", r.stdout);
        for v in secrets {
            assert!(!r.stdout.contains(v), "{file}: {}", r.stdout);
        }
    }
    for argv in [
        &["json", "get", "api_key", ""][..],
        &["json", "get", "api_key", "", "--raw"],
    ] {
        let r = env.run(argv);
        assert_eq!(r.json["redactions"], 1, "{argv:?}: {}", r.stdout);
        assert!(!r.stdout.contains("Zx9Qw8Er7T"), "{argv:?}: {}", r.stdout);
    }
    for argv in [
        &["search", "[0-9]"][..],
        &["search", "--output", "matches", "[A-Za-z0-9&]{8,}"],
    ] {
        let r = env.run(argv);
        for v in secrets {
            assert!(!r.stdout.contains(v), "{argv:?}: {}", r.stdout);
        }
    }
    let r = env.run(&["diff", "github_token", "api_key"]);
    assert_eq!(r.json["redactions"], 2, "{}", r.stdout);
    env.commit_all("secrets");
    let r = env.run(&["git", "show", "HEAD:secrets/db_password"]);
    assert_eq!(r.json["lines"][0], "[REDACTED_SECRET]", "{}", r.stdout);
    let r = env.run(&["git", "show", "HEAD:token.py"]);
    assert_eq!(r.json["lines"][0], "Ab3Cd4Ef5Gh6Ij7Kl8", "{}", r.stdout);
    let r = env.run(&["search", "[0-9]"]);
    for (_, text) in shown {
        assert!(r.stdout.contains(text), "{}", r.stdout);
    }
    assert!(r.stdout.contains("Kl8Mn1Op2Qr3St4Uv5"), "{}", r.stdout);
}

/// A provider token with a character more (an edit's `--old` mistyped, echoed by
/// its error, its repair and a batch's message) shows the token itself: masked,
/// after a prefix ending with its separator (`ghp_`, `xoxb-`). A word of another
/// kind that starts as a token does (`AKIA` and 17 more capitals) stays shown.
#[test]
fn a_token_with_a_character_more_is_masked_where_it_is_echoed() {
    let env = TestEnv::new();
    let token = "ghp_1234567890abcdefghijABCDEFGHIJ123456";
    env.write("conf.py", format!("auth = \"{token}\"\n"));
    let near = format!("{token}7");
    let r = env.run(&["edit", "conf.py", "--old", &near, "--neww", "x"]);
    assert_eq!(r.json["error"]["code"], "argument.invalid", "{}", r.json);
    assert!(
        !format!("{}{}", r.stdout, r.stderr).contains(token),
        "{}",
        r.json
    );
    let data = serde_json::json!([["edit", "conf.py", "--old", near, "--new", "x"]]).to_string();
    let r = env.run(&["batch", "--stdin-data", &data]);
    assert!(
        !format!("{}{}", r.stdout, r.stderr).contains(token),
        "{}",
        r.json
    );
    env.write("notes.md", format!("a {near} b\nAKIAQWERTYUIOPASDFGHJKL\n"));
    let r = env.run(&["read", "notes.md"]);
    assert_eq!(r.json["lines"][0], "a [REDACTED_SECRET] b", "{}", r.stdout);
    assert_eq!(
        r.json["lines"][1], "AKIAQWERTYUIOPASDFGHJKL",
        "{}",
        r.stdout
    );
}

/// Words alone on the line after `password =` (a diceware passphrase, unquoted)
/// are its value; code, a sentence, a path or an option there stays shown.
#[test]
fn an_unquoted_passphrase_on_the_line_after_its_key_is_masked() {
    let env = TestEnv::new();
    env.write(
        "a.ini",
        "[db]\npassword =\n  correct horse battery staple\nuser = app\n",
    );
    env.write(
        "b.sh",
        "export DB_PASSWORD=\\\n  Tr0ub4dor orange 42 kite\n",
    );
    for f in ["a.ini", "b.sh"] {
        let r = env.run(&["read", f]);
        assert_eq!(r.json["redactions"], 1, "{f}: {}", r.stdout);
        assert!(
            !r.stdout.contains("horse battery") && !r.stdout.contains("orange 42"),
            "{}",
            r.stdout
        );
    }
    let shown = "password =\n  get_password(user)\nx = 1\npassword =\n  Set it in the admin panel.\n\
                 password =\n  --from-env DB_PW\nkey =\n  some words here\n";
    // Words at the margin are no continuation of the key's line; an indented
    // instruction (two of prose's small words) is no passphrase.
    let shown = format!(
        "{shown}password =\nsome words here\n[b]\npassword =\n  Set it in the admin panel\n"
    );
    env.write("c.txt", &shown);
    let r = env.run(&["read", "c.txt"]);
    assert_eq!(r.json.get("redactions"), None, "{}", r.stdout);
}

/// A value under a password key that starts with `~/` is a home path only when
/// no name below `~/` is a random token: `password: ~/Xq8f3Lk9Zp2Rv7Wm` is a
/// secret, `key_file: ~/.ssh/id_ed25519` and `pw: ~/notes` are paths.
#[test]
fn a_random_token_after_a_tilde_is_no_home_path() {
    let env = TestEnv::new();
    let masked = "password: ~/Xq8f3Lk9Zp2Rv7Wm\ntoken = \"~/Hj5Tk8Lm2Qp9Xz4W\"\nsecret: ~/keys/Tr0ub4dor3xyzQ8w\n";
    let shown = [
        "key_file: ~/.ssh/id_ed25519",
        "password_file: ~/secrets/db.txt",
        "password: ~/.config/app/password.txt",
        "PW_DIR=~/x",
        "pw: ~/notes",
        "token_path = \"~/.cache/gh/hosts.yml\"",
    ];
    env.write("home.yaml", format!("{masked}{}\n", shown.join("\n")));
    let r = env.run(&["read", "home.yaml"]);
    assert_eq!(r.json["redactions"], 3, "{}", r.stdout);
    for v in ["Xq8f3Lk9", "Hj5Tk8Lm2Q", "Tr0ub4dor"] {
        assert!(!r.stdout.contains(v), "{}", r.stdout);
    }
    for (i, line) in shown.iter().enumerate() {
        assert_eq!(r.json["lines"][i + 3], *line, "{}", r.stdout);
    }
}

/// A `\"` inside a double-quoted value on the line below its key (JSON a
/// formatter wrapped, a YAML scalar, a sequence's item) does not end it: the
/// whole value is masked, its tail after the escape too.
#[test]
fn an_escaped_quote_does_not_end_a_value_below_its_key() {
    let env = TestEnv::new();
    let text = "{\"db\": {\"password\":\n  \"ab\\\"cdQ8zXk3Lm9Wp2\"}}\n\
                x = {\"api_key\":\n  \"Tr0ub\\\"4dor&3xyzQ\"}\n\
                token:\n  \"q8Z\\\"fT3kLm9Xp2Rw7\"\n\
                api_tokens:\n  - \"Hj5\\\"Tk8Lm2Qp9Xz4W\"\n";
    env.write("esc.json", text);
    let r = env.run(&["read", "esc.json"]);
    assert_eq!(r.json["redactions"], 4, "{}", r.stdout);
    for v in ["cdQ8zXk3", "4dor&3xyz", "fT3kLm9X", "Tk8Lm2Qp9"] {
        assert!(!r.stdout.contains(v), "{}", r.stdout);
    }
}
