//! Every command's real answers, one representative call each (ok, partial and
//! error envelopes), validated against its MCP `outputSchema`, which declares
//! every member at every level and closes every object it declares
//! (`additionalProperties: false`): an undeclared or mistyped member anywhere
//! in any answer fails here.

use crate::support::fixtures::{PATCH, tar_czf};
use crate::support::{TestEnv, bin, check_output_schema};
use serde_json::Value;
use std::collections::BTreeSet;

const NOTEBOOK: &str = r##"{
 "cells": [
  {"cell_type": "markdown", "id": "c1", "metadata": {}, "source": ["# T"]},
  {"cell_type": "code", "execution_count": 1, "id": "c2", "metadata": {},
   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["hi\n"]},
    {"output_type": "execute_result", "execution_count": 1, "metadata": {},
     "data": {"text/plain": ["3"]}},
    {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["tb"]}],
   "source": ["print('hi')"]}
 ],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5
}
"##;

fn fixture() -> TestEnv {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\nthree two\n");
    env.write("b.txt", "one\n2\nthree two\n");
    env.write("d.json", "{\"a\": 1, \"list\": [{\"k\": 1}, {\"k\": 2}]}\n");
    env.write("e.json", "{\"a\": 2, \"b\": true}\n");
    env.write("t.csv", "a,b\n1,x\n2,y\n1,z\n");
    env.write("n.ipynb", NOTEBOOK);
    env.write(
        "m.rs",
        "fn main() {\n    helper();\n    let s = \"helper\";\n}\n\nfn helper() {}\n",
    );
    env.write("p.diff", PATCH);
    env.write("sub/c.txt", "see\n");
    env.git(&["add", "."]);
    env.git(&["commit", "-qm", "init"]);
    env.write("a.txt", "one\ntwo\nthree two\nfour\n");
    tar_czf(&env, "a.tgz", &["a.txt", "sub"]);
    env
}

/// The calls: each command's words and arguments, `@TX`/`@OP` standing for
/// the tx, `@RTX` for the `--review` tx and `@OP` for the op made first.
#[rustfmt::skip]
const CALLS: &[&[&str]] = &[
    &["read", "a.txt"],
    &["read", "a.txt", "--max-lines", "1"],
    &["read", "a.txt", "--as", "hex"],
    &["read", "a.txt", "--as", "strings"],
    &["read", "a.txt", "--match", "two", "--anchors"],
    &["read", "m.rs", "--symbol", "helper"],
    &["read", "nope.txt"],
    &["info", "a.txt", "--digest", "sha256"],
    &["check", "d.json", "m.rs"],
    &["diff", "a.txt", "b.txt"],
    &["diff", "a.txt", "b.txt", "--output", "stat"],
    &["search", "two"],
    &["search", "two", "--output", "matches"],
    &["search", "two", "--count"],
    &["search", "two", "--files-with-matches"],
    &["search", "("],
    &["find", "."],
    &["find", "txt", "--sizes"],
    &["overview"],
    &["code", "outline", "m.rs"],
    &["code", "defs", "helper"],
    &["code", "refs", "helper"],
    &["code", "rename", "helper", "assist", "--dry-run"],
    &["edit", "a.txt", "--old", "four", "--new", "4", "--dry-run"],
    &["edit", "a.txt", "--old", "absent", "--new", "4"],
    &["insert", "a.txt", "--at", "end", "--content", "x", "--dry-run"],
    &["replace", "two", "2", "a.txt", "--dry-run"],
    &["apply", "--stdin-data", PATCH, "--dry-run"],
    &["transform", "a.txt", "--op", "sort", "--dry-run"],
    &["transcode", "a.txt", "--to", "utf-16le", "--dry-run"],
    &["split", "a.txt", "--lines", "2", "--dry-run"],
    &["move-lines", "a.txt", "--match", "four", "--to", "z.txt", "--dry-run"],
    &["write", "w.txt", "--content", "hi"],
    &["delete", "b.txt", "--dry-run"],
    &["move", "b.txt", "b2.txt", "--dry-run"],
    &["copy", "b.txt", "b3.txt"],
    &["mkdir", "newdir"],
    &["chmod", "b.txt", "--exec", "--dry-run"],
    &["link", "b.txt", "l.txt", "--dry-run"],
    &["touch", "b.txt", "--mtime", "2024-02-03", "--dry-run"],
    &["history"],
    &["history", "w.txt"],
    &["undo", "@OP", "--dry-run"],
    &["recover"],
    &["gc", "--dry-run"],
    &["json", "get", "d.json", "/list"],
    &["json", "get", "d.json", "", "--keys"],
    &["json", "get", "d.json", "/list/9"],
    &["json", "select", "d.json", "/list", "--where", "/k=1"],
    &["json", "diff", "d.json", "e.json"],
    &["json", "set", "d.json", "/a", "5", "--dry-run"],
    &["json", "delete", "d.json", "/a", "--dry-run"],
    &["json", "merge", "d.json", "--stdin-data", "{\"z\":1}", "--dry-run"],
    &["json", "patch", "d.json", "--stdin-data", "[{\"op\":\"add\",\"path\":\"/y\",\"value\":1}]", "--dry-run"],
    &["json", "fmt", "d.json", "--dry-run"],
    &["table", "read", "t.csv"],
    &["table", "agg", "t.csv", "--group-by", "a", "--count"],
    &["table", "set", "t.csv", "--row", "1", "--column", "b", "--value", "q", "--dry-run"],
    &["nb", "read", "n.ipynb"],
    &["nb", "edit", "n.ipynb", "c2", "--source", "print(1)", "--dry-run"],
    &["nb", "insert", "n.ipynb", "--after", "c2", "--source", "x = 1", "--dry-run"],
    &["nb", "delete", "n.ipynb", "c1", "--dry-run"],
    &["nb", "move", "n.ipynb", "c1", "--after", "c2", "--dry-run"],
    &["schema"],
    &["schema", "read"],
    &["schema", "read", "--full"],
    &["schema", "bogus"],
    &["skills"],
    &["skills", "guarded-edits"],
    &["feedback", "create", "--type", "idea", "--message", "more"],
    &["feedback", "list"],
    &["feedback", "show", "nope"],
    &["feedback", "transition", "nope", "--status", "done"],
    &["tx", "begin", "--name", "other"],
    &["tx", "status"],
    &["tx", "status", "@TX"],
    &["tx", "diff", "@TX"],
    &["tx", "commit", "@TX", "--dry-run"],
    &["tx", "drop", "@TX", "9"],
    &["tx", "approve", "@RTX"],
    &["tx", "deny", "@RTX", "--reason", "no"],
    &["tx", "reviews"],
    &["tx", "rebase", "@TX"],
    &["tx", "abort", "nope"],
    &["batch", "--stdin-data", "[[\"write\",\"n1.txt\",\"--content\",\"1\"],[\"read\",\"a.txt\"]]"],
    &["batch", "--atomic", "--stdin-data", "[[\"write\",\"n2.txt\",\"--content\",\"1\"]]"],
    &["git", "status"],
    &["git", "diff"],
    &["git", "diff", "--output", "stat"],
    &["git", "log"],
    &["git", "log", "--files"],
    &["git", "show", "HEAD"],
    &["git", "show", "HEAD:a.txt"],
    &["git", "blame", "a.txt"],
    &["run", "echo", "hi"],
    &["run", "sh", "-c", "exit 2"],
    &["wait", "--file", "a.txt", "--pattern", "one"],
    &["bg", "start", "true"],
    &["bg", "status"],
    &["bg", "logs", "nope"],
    &["bg", "stop", "nope"],
    &["mktemp"],
    &["archive", "list", "a.tgz"],
    &["archive", "read", "a.tgz", "a.txt"],
    &["archive", "extract", "a.tgz", "--to", "out", "--dry-run"],
    &["archive", "create", "o.tgz", "sub", "--dry-run"],
    &["snapshot", "create", "sub"],
    &["snapshot", "diff", "nope"],
    &["sys", "info"],
    &["sys", "env", "PATH"],
    &["sys", "tools", "git"],
    &["sys", "procs"],
    &["sys", "ports"],
    &["time", "now"],
    &["time", "convert", "2024-01-02T03:04:05Z", "--tz", "UTC"],
    &["time", "diff", "2024-01-01", "2024-02-01"],
    &["util", "encode", "base64", "--content", "hi"],
    &["util", "decode", "base64", "--content", "aGk="],
    &["util", "redact", "--content", "key=AKIAIOSFODNN7EXAMPLE"],
    &["util", "tokens", "--content", "some words"],
    &["util", "uuid"],
    &["util", "calc", "1+2"],
    &["util", "random"],
    &["oui", "manifest"],
    &["oui", "connect", "http://127.0.0.1:9"],
    &["capabilities"],
    &["doctor"],
    &["search", "(?P<w>t)(w)o", "--output", "matches"],
    &["search", "two", "--output", "blocks"],
    &["search", "two", "--output", "files-without-match"],
    &["find", ".", "--output", "tree"],
    &["code", "refs", "helper", "--include", "string"],
    &["feedback", "create", "--type", "bug", "--message", "m"],
    &["feedback", "show", "001"],
    &["feedback", "transition", "001", "--status", "closed"],
    &["tx", "begin", "--review"],
    &["bg", "start", "--name", "j", "sh", "-c", "echo out"],
    &["wait", "--bg", "bg-2", "--exit"],
    &["bg", "logs", "bg-2"],
    &["bg", "stop", "bg-2"],
    &["run", "--grep", "o", "sh", "-c", "echo one; echo two; exit 1"],
    &["snapshot", "create"],
    &["snapshot", "diff", "snap-1"],
    &["table", "agg", "t.csv", "--group-by", "b", "--sum", "a", "--min", "a"],
    &["json", "get", "d.json", "/list", "--keys"],
    &["sys", "tools"],
];

/// Runs `args` and checks its one JSON line against the command's schema:
/// the command that answered, and the problem, if any.
fn checked(env: &TestEnv, args: &[String]) -> (String, Option<String>) {
    let out = env.command(&[]).args(args).output().expect("spawn aitools");
    let text = String::from_utf8_lossy(if out.stdout.is_empty() {
        &out.stderr
    } else {
        &out.stdout
    })
    .to_string();
    let json: Value = match serde_json::from_str(text.trim_end()) {
        Ok(j) => j,
        Err(e) => {
            let why = format!("{args:?}: not one JSON answer ({e}): {text}");
            return (String::new(), Some(why));
        }
    };
    let command = json["command"].as_str().unwrap_or("").to_string();
    eprintln!(
        "STATUS {} {args:?} {}",
        json["status"], json["error"]["message"]
    );
    let caught = std::panic::catch_unwind(|| check_output_schema(&json));
    let problem = caught.err().map(|e| {
        let why = e
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "schema check failed".into());
        format!("{args:?}: {}", why.lines().next().unwrap_or(""))
    });
    (command, problem)
}

#[test]
fn every_commands_answers_match_their_closed_output_schema() {
    let env = fixture();
    // The op and the tx the calls name (their answers are checked below).
    let answer = |args: &[&str], key: &str| {
        let out = env.command(args).output().expect("spawn aitools");
        let j: Value = serde_json::from_slice(&out.stdout).expect("an answer");
        j[key].as_str().expect("an id").to_string()
    };
    let op = answer(&["write", "o.txt", "--content", "x"], "op_id");
    let tx = answer(&["tx", "begin"], "tx");
    answer(&["write", "x.txt", "--content", "hi", "--tx", &tx], "tx");
    let review = answer(&["tx", "begin", "--review"], "tx");
    answer(
        &["write", "y.txt", "--content", "hi", "--tx", &review],
        "tx",
    );
    let mut problems = Vec::new();
    let mut answered = BTreeSet::new();
    for call in CALLS {
        let args: Vec<String> = call
            .iter()
            .map(|a| {
                a.replace("@RTX", &review)
                    .replace("@TX", &tx)
                    .replace("@OP", &op)
            })
            .collect();
        let (command, problem) = checked(&env, &args);
        problems.extend(problem);
        answered.insert(command);
    }
    // An error envelope of every command, and every command answered.
    let all = env.run(&["schema", "--all"]).json;
    for c in all["commands"].as_array().expect("commands") {
        let name = c["name"].as_str().expect("name");
        let mut args: Vec<String> = name.split(' ').map(str::to_string).collect();
        args.push("--zz-undeclared-option".into());
        problems.extend(checked(&env, &args).1);
        let server = ["mcp", "console"].contains(&name);
        if !server && !answered.contains(name) {
            problems.push(format!("{name}: no call answered it"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} answers outside their schema ({}):\n{}",
        problems.len(),
        bin().display(),
        problems.join("\n")
    );
}
