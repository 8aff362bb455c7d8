//! `transform` and `move-lines`, black-box, with sort, uniq, sed, awk and
//! python's textwrap as oracles; line endings and a missing final newline kept.

use crate::support::TestEnv;
use crate::support::fixtures::ok;
use std::process::Command;

fn sh(env: &TestEnv, script: &str) -> Vec<u8> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env.root())
        .output()
        .expect("sh");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn hash(env: &TestEnv, rel: &str) -> String {
    env.run(&["info", rel]).json["hash"]
        .as_str()
        .unwrap()
        .to_string()
}

const WORDS: &str = "pear\nApple\n10 z\n9 b\napple\npear\n\n  banana\n-3 x\n2.5 y\nzeta\npear\n";

#[test]
fn transform_sort_unique_match_sort_and_awk() {
    let env = TestEnv::new();
    for (ops, oracle) in [
        (&["sort"][..], "LC_ALL=C sort w.txt"),
        (&["sort-numeric"][..], "LC_ALL=C sort -n w.txt"),
        (&["sort", "unique"][..], "LC_ALL=C sort -u w.txt"),
        (&["unique"][..], "awk '!seen[$0]++' w.txt"),
        (&["reverse"][..], "tac w.txt"),
        (&["delete-blank"][..], "sed '/^[[:space:]]*$/d' w.txt"),
        (&["upper"][..], "tr a-z A-Z < w.txt"),
    ] {
        env.write("w.txt", WORDS);
        let want = sh(&env, oracle);
        let mut argv = vec!["transform", "w.txt"];
        for o in ops {
            argv.extend(["--op", o]);
        }
        ok(&env.run(&argv));
        assert_eq!(
            String::from_utf8(env.read("w.txt")).unwrap(),
            String::from_utf8(want).unwrap(),
            "{ops:?}"
        );
    }
    // sort by the second field, as sort -k2,2 does.
    env.write("k.txt", "a 3\nb 1\nc 2\n");
    ok(&env.run(&["transform", "k.txt", "--op", "sort", "--key", "2"]));
    assert_eq!(
        env.read("k.txt"),
        sh(&env, "printf 'a 3\\nb 1\\nc 2\\n' | LC_ALL=C sort -k2,2")
    );
}

#[test]
fn transform_on_a_selection_keeps_crlf_and_no_final_newline() {
    let env = TestEnv::new();
    env.write("c.txt", "keep\r\nz\r\ny\r\nx\r\nlast");
    let h = hash(&env, "c.txt");
    let r = env.run(&[
        "transform",
        "c.txt",
        "--op",
        "sort",
        "--range",
        "2:5",
        "--expect-hash",
        &h,
    ]);
    ok(&r);
    assert_eq!(env.read("c.txt"), b"keep\r\nlast\r\nx\r\ny\r\nz");
    // A range needs the hash; a whole-file op refuses a selector.
    let r = env.run(&["transform", "c.txt", "--op", "sort", "--range", "1:2"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let r = env.run(&[
        "transform",
        "c.txt",
        "--op",
        "eol-lf",
        "--match",
        "x",
        "--expect-count",
        "1",
    ]);
    assert_eq!(r.error_code(), "argument.invalid");
    ok(&env.run(&[
        "transform",
        "c.txt",
        "--op",
        "eol-lf",
        "--op",
        "final-newline",
    ]));
    assert_eq!(env.read("c.txt"), b"keep\nlast\nx\ny\nz\n");
    let op = env.run(&["transform", "c.txt", "--op", "eol-crlf"]);
    ok(&op);
    assert_eq!(
        env.read("c.txt"),
        sh(&env, "printf 'keep\\nlast\\nx\\ny\\nz\\n' | sed 's/$/\\r/'")
    );
    ok(&env.run(&["undo", op.json["op_id"].as_str().unwrap()]));
    assert_eq!(env.read("c.txt"), b"keep\nlast\nx\ny\nz\n");
}

#[test]
fn transform_whitespace_comment_and_wrap() {
    let env = TestEnv::new();
    env.write("t.txt", "    a  \n      b\t\n\n\n\n    c\n");
    ok(&env.run(&[
        "transform",
        "t.txt",
        "--op",
        "strip-trailing",
        "--op",
        "dedent",
        "--op",
        "squeeze-blank",
    ]));
    assert_eq!(env.read("t.txt"), b"a\n  b\n\nc\n");
    ok(&env.run(&["transform", "t.txt", "--op", "indent", "--width", "4"]));
    assert_eq!(
        env.read("t.txt"),
        sh(
            &env,
            "printf 'a\\n  b\\n\\nc\\n' | sed 's/^\\(.\\)/    \\1/'"
        )
    );
    env.write("m.py", "def f():\n    x = 1\n    return x\n");
    ok(&env.run(&[
        "transform",
        "m.py",
        "--op",
        "comment",
        "--match",
        "^    ",
        "--expect-count",
        "2",
    ]));
    assert_eq!(env.read("m.py"), b"def f():\n    # x = 1\n    # return x\n");
    ok(&env.run(&["transform", "m.py", "--op", "uncomment"]));
    assert_eq!(env.read("m.py"), b"def f():\n    x = 1\n    return x\n");
    env.write("m.rs", "let a = 1;\n");
    ok(&env.run(&["transform", "m.rs", "--op", "comment"]));
    assert_eq!(env.read("m.rs"), b"// let a = 1;\n");
    let long = "  the quick brown fox jumps over the lazy dog and keeps running far away\n";
    env.write("w.txt", long);
    ok(&env.run(&["transform", "w.txt", "--op", "wrap", "--columns", "20"]));
    let py = sh(
        &env,
        "python3 -c 'import textwrap,sys; l=sys.stdin.read(); print(\"\\n\".join(textwrap.wrap(l.strip(), 20, initial_indent=\"  \", subsequent_indent=\"  \", break_long_words=False, break_on_hyphens=False)))' < w.txt",
    );
    assert_eq!(env.read("w.txt"), py);
}

#[test]
fn move_lines_within_a_file_matches_sed() {
    let env = TestEnv::new();
    let body: String = (1..=8).map(|i| format!("l{i}\n")).collect();
    env.write("a.txt", &body);
    env.write("b.txt", &body);
    let h = hash(&env, "a.txt");
    ok(&env.run(&[
        "move-lines",
        "a.txt",
        "--range",
        "2:3",
        "--to-position",
        "after:6",
        "--expect-hash",
        &h,
    ]));
    // sed: hold lines 2-3, print them after line 6.
    sh(&env, "sed -i -e '2,3{H;d}' -e '6{G;s/\\n\\n/\\n/}' b.txt");
    assert_eq!(env.read("a.txt"), env.read("b.txt"));
    // A place inside the moved lines is refused.
    let h = hash(&env, "a.txt");
    let r = env.run(&[
        "move-lines",
        "a.txt",
        "--range",
        "2:4",
        "--to-position",
        "before:3",
        "--expect-hash",
        &h,
    ]);
    assert_eq!(r.error_code(), "argument.invalid");
}

#[test]
fn move_lines_to_another_file_is_one_undoable_op() {
    let env = TestEnv::new();
    env.write("src.txt", "keep 1\nmove a\nkeep 2\nmove b\nlast");
    env.write("dst.txt", "d1\r\nd2\r\n");
    let r = env.run(&[
        "move-lines",
        "src.txt",
        "--match",
        "^move",
        "--expect-count",
        "2",
        "--to",
        "dst.txt",
        "--to-position",
        "start",
    ]);
    ok(&r);
    assert_eq!(r.json["moved_lines"], 2);
    assert_eq!(env.read("src.txt"), b"keep 1\nkeep 2\nlast");
    // The moved lines take the destination's CR LF.
    assert_eq!(env.read("dst.txt"), b"move a\r\nmove b\r\nd1\r\nd2\r\n");
    let hist = env.run(&["history", "--limit", "1"]);
    let mut paths: Vec<String> = hist.json["items"][0]["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    paths.sort();
    assert_eq!(paths, ["dst.txt", "src.txt"]);
    ok(&env.run(&["undo", r.json["op_id"].as_str().unwrap()]));
    assert_eq!(env.read("src.txt"), b"keep 1\nmove a\nkeep 2\nmove b\nlast");
    assert_eq!(env.read("dst.txt"), b"d1\r\nd2\r\n");
    // A --to file placed by line number needs its own hash.
    let h = hash(&env, "src.txt");
    let r = env.run(&[
        "move-lines",
        "src.txt",
        "--range",
        "1",
        "--expect-hash",
        &h,
        "--to",
        "dst.txt",
        "--to-position",
        "after:1",
    ]);
    assert_eq!(r.error_code(), "argument.invalid", "{}", r.stdout);
}

#[test]
fn move_lines_with_encoding_keeps_latin1_byte_exact_like_iconv_and_sed() {
    let env = TestEnv::new();
    // Latin-1 with bytes 0x80-0xFF, CRLF on one line, no final newline.
    let text = "caf\u{e9} 1\nna\u{ef}ve 2\r\nz\u{fc}rich 3\n\u{80}\u{ff} end";
    let latin1 = |t: &str| {
        sh(
            &env,
            &format!("printf '%s' '{t}' | iconv -f UTF-8 -t ISO-8859-1"),
        )
    };
    env.write("l1.txt", latin1(text));
    // Without --encoding: not UTF-8, and the first repair is the call with it.
    let argv = [
        "move-lines",
        "l1.txt",
        "--match",
        "ve 2",
        "--expect-count",
        "1",
    ];
    let r = env.run(&argv);
    assert_eq!(r.error_code(), "input.not-utf8", "{}", r.stderr);
    let first = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(
        first,
        "aitools move-lines l1.txt --match 've 2' --expect-count 1 --encoding iso-8859-1"
    );
    ok(&env.run_line(first));
    // The oracle: the same move on the UTF-8 text (sed), encoded back by iconv; the
    // file lacked a final newline and still does (sed ends the moved line's CR LF).
    let want = sh(
        &env,
        &format!(
            "printf '%s' '{text}' | sed -e '2{{h;d}}' -e '$G' | iconv -f UTF-8 -t ISO-8859-1 | head -c -2"
        ),
    );
    assert_eq!(env.read("l1.txt"), want);
    // Across files: the rest of the source stays byte for byte, and a new --to file
    // is written in the same encoding.
    env.write("l1.txt", latin1(text));
    ok(&env.run(&[
        "move-lines",
        "l1.txt",
        "--match",
        "^z\u{fc}rich",
        "--expect-count",
        "1",
        "--to",
        "new.txt",
        "--encoding",
        "iso-8859-1",
    ]));
    assert_eq!(
        env.read("l1.txt"),
        latin1("caf\u{e9} 1\nna\u{ef}ve 2\r\n\u{80}\u{ff} end")
    );
    assert_eq!(env.read("new.txt"), latin1("z\u{fc}rich 3\n"));
    // Into an existing Latin-1 file (its CRLF taken by the moved line).
    env.write("d.txt", latin1("\u{e0}\r\n"));
    ok(&env.run(&[
        "move-lines",
        "l1.txt",
        "--match",
        "^caf\u{e9}",
        "--expect-count",
        "1",
        "--to",
        "d.txt",
        "--encoding",
        "iso-8859-1",
    ]));
    assert_eq!(env.read("d.txt"), latin1("\u{e0}\r\ncaf\u{e9} 1\r\n"));
    assert_eq!(
        env.read("l1.txt"),
        latin1("na\u{ef}ve 2\r\n\u{80}\u{ff} end")
    );
    // transform offers the same way in, and it works.
    let r = env.run(&["transform", "l1.txt", "--op", "reverse"]);
    assert_eq!(r.error_code(), "input.not-utf8", "{}", r.stderr);
    let first = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(
        first,
        "aitools transform l1.txt --op reverse --encoding iso-8859-1"
    );
    ok(&env.run_line(first));
    // The oracle: the same transform of the UTF-8 text, encoded by iconv.
    env.write("u.txt", "na\u{ef}ve 2\r\n\u{80}\u{ff} end");
    ok(&env.run(&["transform", "u.txt", "--op", "reverse"]));
    let want = sh(&env, "iconv -f UTF-8 -t ISO-8859-1 u.txt");
    assert_eq!(env.read("l1.txt"), want);
}
