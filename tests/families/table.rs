//! `table read|agg|set`, black-box, with Python's csv module as the oracle:
//! rows read equal what csv.reader reads, aggregates equal what Python
//! computes, and a set cell changes only that cell's bytes (undo restores them).

use crate::support::fixtures::ok;
use crate::support::{Run, TestEnv};
use serde_json::{Value, json};
use std::process::Command;

/// Runs a Python oracle in the test repository; its stdout parsed as JSON.
fn py(env: &TestEnv, script: &str) -> Value {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .current_dir(env.root())
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("oracle json")
}

/// RFC 4180 edge cases: quoted delimiters, doubled quotes, a newline in a
/// cell, CR LF and LF row ends, an empty cell, a short row.
const TRICKY: &str = "name,age,city\r\n\"Smith, J\",42,\"New\nYork\"\nBob,7,\"say \"\"hi\"\"\"\r\nAnn,,Paris\nZed,3\n";

fn oracle_rows(env: &TestEnv, rel: &str, delim: &str) -> Value {
    py(
        env,
        &format!(
            "import csv,json; rows=[r for r in csv.reader(open({rel:?},newline=''),delimiter={delim:?}) if r]; print(json.dumps(rows))"
        ),
    )
}

#[test]
fn table_read_matches_python_csv() {
    let env = TestEnv::new();
    env.write("t.csv", TRICKY);
    let r = env.run(&["table", "read", "t.csv"]);
    ok(&r);
    assert_eq!(r.json["format"], "csv");
    let want = oracle_rows(&env, "t.csv", ",");
    let header = &want[0];
    let names: Vec<Value> = r.json["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c["name"].clone())
        .collect();
    assert_eq!(&Value::Array(names), header);
    // Cells equal csv.reader's; a short row's missing cells are null.
    let rows = r.json["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), want.as_array().expect("rows").len() - 1);
    for (got, exp) in rows
        .iter()
        .zip(want.as_array().expect("rows").iter().skip(1))
    {
        let exp = exp.as_array().expect("row");
        for (i, cell) in got.as_array().expect("row").iter().enumerate() {
            match exp.get(i) {
                Some(e) => assert_eq!(cell, e),
                None => assert!(cell.is_null()),
            }
        }
    }
    assert_eq!(r.json["columns"][1]["type"], "integer");
    assert_eq!(r.json["columns"][0]["type"], "string");
    assert_eq!(r.json["total_rows"], 4);
}

#[test]
fn table_read_tsv_where_columns_and_continuation() {
    let env = TestEnv::new();
    let mut body = String::from("id\tscore\tnote\n");
    for i in 1..=30 {
        body.push_str(&format!("{i}\t{}\tn,{i}\n", i * 7 % 11));
    }
    env.write("s.tsv", &body);
    let want = py(
        &env,
        "import csv,json; r=list(csv.DictReader(open('s.tsv',newline=''),delimiter='\\t')); print(json.dumps([[x['note'],x['id']] for x in r if float(x['score'])>=5]))",
    );
    let total = want.as_array().expect("rows").len();
    let r = env.run(&[
        "table",
        "read",
        "s.tsv",
        "--where",
        "score>=5",
        "--columns",
        "note,1",
        "--limit",
        "4",
    ]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert_eq!(r.json["format"], "tsv");
    assert_eq!(r.json["total_rows"], total);
    assert_eq!(r.json["rows"], json!(want.as_array().expect("rows")[..4]));
    // The continuation reads the rest, page by page, to the same rows.
    let mut got: Vec<Value> = r.json["rows"].as_array().expect("rows").clone();
    let mut next = r.json["next_commands"][0]
        .as_str()
        .expect("next")
        .to_string();
    loop {
        let n = env.run_line(&next);
        got.extend(n.json["rows"].as_array().expect("rows").iter().cloned());
        match n.json["next_commands"][0].as_str() {
            Some(c) => next = c.to_string(),
            None => break,
        }
    }
    assert_eq!(Value::Array(got), want);
    let one = env.run(&["table", "read", "s.tsv", "--range", "3", "--columns", "id"]);
    ok(&one);
    assert_eq!(one.json["rows"], json!([["3"]]));
    assert_eq!(one.json["start_row"], 3);
}

#[test]
fn table_read_masks_secret_cells_and_refuses_bad_quotes() {
    let env = TestEnv::new();
    env.write(
        "k.csv",
        "name,token\nci,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\n",
    );
    let r = env.run(&["table", "read", "k.csv"]);
    ok(&r);
    assert!(!r.stdout.contains("ghp_F6J7"), "{}", r.stdout);
    assert!(r.stdout.contains("REDACTED"), "{}", r.stdout);
    env.write("bad.csv", "a,b\n\"open,1\n");
    let b = env.run(&["table", "read", "bad.csv"]);
    assert_eq!(b.error_code(), "input.syntax-error");
    let n = env.run(&["table", "read", "k.csv", "--no-header", "--columns", "2"]);
    ok(&n);
    assert_eq!(n.json["columns"][0]["name"], "2");
    assert_eq!(n.json["rows"][0], json!(["token"]));
}

#[test]
fn table_agg_matches_python() {
    let env = TestEnv::new();
    env.write(
        "s.csv",
        "dept,name,salary\neng,a,100\neng,b,250\nops,c,50.5\nops,d,\nhr,e,70\neng,a,-3\n",
    );
    let want = py(
        &env,
        r#"
import csv,json
g={}
for r in csv.DictReader(open('s.csv',newline='')):
    g.setdefault(r['dept'],[]).append(r)
out=[]
for k in sorted(g):
    v=[float(r['salary']) for r in g[k] if r['salary']]
    out.append({'key':{'dept':k},'count':len(g[k]),'sum':sum(v),'min':min(v),'max':max(v),'distinct':len({r['name'] for r in g[k]})})
print(json.dumps(out))
"#,
    );
    for (i, w) in want.as_array().expect("groups").iter().enumerate() {
        let r = env.run(&[
            "table",
            "agg",
            "s.csv",
            "--group-by",
            "dept",
            "--count",
            "--sum",
            "salary",
            "--min",
            "salary",
            "--max",
            "salary",
        ]);
        ok(&r);
        let g = &r.json["groups"][i];
        assert_eq!(g["key"], w["key"]);
        assert_eq!(g["count"], w["count"]);
        for f in ["sum", "min", "max"] {
            assert_eq!(g[f].as_f64(), w[f].as_f64(), "{f} of {}", w["key"]);
        }
        let d = env.run(&[
            "table",
            "agg",
            "s.csv",
            "--group-by",
            "dept",
            "--distinct",
            "name",
        ]);
        assert_eq!(d.json["groups"][i]["distinct"], w["distinct"]);
    }
    // Sorted by a figure, cut by --limit: partial, and the whole list one call away.
    let s = env.run(&[
        "table",
        "agg",
        "s.csv",
        "--group-by",
        "dept",
        "--sort",
        "count",
        "--desc",
        "--limit",
        "1",
    ]);
    assert_eq!(s.code, 3);
    assert_eq!(s.json["groups"][0]["key"]["dept"], "eng");
    assert_eq!(s.json["total_groups"], 3);
    // Integer sums stay exact past 2^53.
    env.write("big.csv", "n\n9007199254740993\n1\n");
    let b = env.run(&["table", "agg", "big.csv", "--sum", "n"]);
    ok(&b);
    assert!(
        b.stdout.contains("\"sum\":9007199254740994"),
        "{}",
        b.stdout
    );
    let bad = env.run(&["table", "agg", "s.csv", "--sum", "name"]);
    assert_eq!(bad.error_code(), "argument.invalid");
    assert_eq!(bad.json["error"]["diagnostics"][0]["line"], 2);
}

#[test]
fn table_set_changes_one_cell_and_undoes() {
    let env = TestEnv::new();
    env.write("t.csv", TRICKY);
    let before = env.read("t.csv");
    let r = env.run(&[
        "table",
        "set",
        "t.csv",
        "--row",
        "2",
        "--column",
        "city",
        "--value",
        "Rome, \"IT\"",
    ]);
    ok(&r);
    let after = env.read("t.csv");
    let want = py(
        &env,
        &format!(
            "import csv,io,json; rows=list(csv.reader(io.StringIO({:?},newline=''))); rows[2][2]='Rome, \"IT\"'; print(json.dumps(rows))",
            TRICKY
        ),
    );
    assert_eq!(oracle_rows(&env, "t.csv", ","), want);
    // Only the cell's bytes changed: the other rows (CR LF, quoting) are byte-identical.
    let old_cell = b"\"say \"\"hi\"\"\"";
    let at = before
        .windows(old_cell.len())
        .position(|w| w == old_cell)
        .expect("cell");
    assert_eq!(after[..at], before[..at]);
    let tail = &before[at + old_cell.len()..];
    assert!(after.ends_with(tail));
    let u = env.run(&["undo", &r.op_id()]);
    ok(&u);
    assert_eq!(env.read("t.csv"), before);
    // A stale hash and a row past the end write nothing.
    let g = env.run(&[
        "table",
        "set",
        "t.csv",
        "--row",
        "1",
        "--column",
        "2",
        "--value",
        "1",
        "--expect-hash",
        "0000000000000000",
    ]);
    assert_eq!(g.error_code(), "refusal.target-changed");
    let p = env.run(&[
        "table", "set", "t.csv", "--row", "9", "--column", "2", "--value", "1",
    ]);
    assert_eq!(p.error_code(), "argument.invalid");
    assert_eq!(env.read("t.csv"), before);
}

#[test]
fn table_set_stages_in_a_tx() {
    let env = TestEnv::new();
    env.write("a.tsv", "k\tv\nx\t1\n");
    let tx = env.tx_begin();
    let r = env.run(&[
        "table", "set", "a.tsv", "--row", "1", "--column", "v", "--value", "2", "--tx", &tx,
    ]);
    ok(&r);
    assert_eq!(env.read("a.tsv"), b"k\tv\nx\t1\n");
    let seen = env.run(&["table", "read", "a.tsv", "--tx", &tx]);
    assert_eq!(seen.json["rows"], json!([["x", "2"]]));
    ok(&env.run(&["tx", "commit", &tx]));
    assert_eq!(env.read("a.tsv"), b"k\tv\nx\t2\n");
}

/// Rows as `table read` returns them, the header row first (column names).
fn named_rows(r: &Run) -> Value {
    let mut all = vec![Value::Array(
        r.json["columns"]
            .as_array()
            .expect("columns")
            .iter()
            .map(|c| c["name"].clone())
            .collect(),
    )];
    all.extend(r.json["rows"].as_array().expect("rows").iter().cloned());
    Value::Array(all)
}

#[test]
fn table_read_jsonl_and_json_match_python_json() {
    let env = TestEnv::new();
    env.write(
        "t.jsonl",
        "{\"a\":1,\"b\":\"x\"}\n{\"a\":2.5,\"c\":[1,{\"d\":null}]}\r\n\n{\"b\":null,\"a\":-3,\"e\":true}\n",
    );
    // The oracle: keys in first-seen order, a missing key is null, values as JSON.
    let oracle = "import json\nrows=[json.loads(l) for l in open(F) if l.strip()]\nif P is not None:\n  d=json.load(open(F))\n  for k in P: d=d[k]\n  rows=d\nks=[]\nfor r in rows:\n  ks+=[k for k in r if k not in ks]\nprint(json.dumps([ks]+[[r.get(k) for k in ks] for r in rows]))";
    let want = py(&env, &format!("F='t.jsonl';P=None\n{oracle}"));
    let r = env.run(&["table", "read", "t.jsonl"]);
    ok(&r);
    assert_eq!(r.json["format"], "jsonl");
    assert_eq!(named_rows(&r), want);
    assert_eq!(r.json["columns"][0]["type"], "number");
    assert_eq!(r.json["columns"][2]["type"], "mixed");
    // A JSON document: the array of rows at --pointer; an object root without
    // one is refused with a repair that reads the array it holds.
    env.write(
        "d.json",
        "{\"meta\":{\"n\":2},\"items\":[{\"id\":7,\"tag\":\"x,y\"},{\"tag\":\"z\",\"id\":8}]}",
    );
    let bare = env.run(&["table", "read", "d.json"]);
    assert_eq!(
        bare.error_code(),
        "input.unsupported-format",
        "{}",
        bare.stdout
    );
    let repair = bare.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    let fixed = env.run_line(repair);
    ok(&fixed);
    let want = py(&env, &format!("F='d.json';P=['items']\n{oracle}"));
    assert_eq!(named_rows(&fixed), want);
    let agg = env.run(&["table", "agg", "t.jsonl", "--sum", "a", "--where", "a>0"]);
    ok(&agg);
    assert_eq!(agg.json["groups"][0]["sum"], json!(3.5));
    // table set writes CSV and TSV only.
    let set = env.run(&[
        "table", "set", "t.jsonl", "--row", "1", "--column", "a", "--value", "2",
    ]);
    assert_eq!(set.error_code(), "input.unsupported-format");
}

#[test]
fn table_read_ws_sep_and_lines_match_python_split() {
    let env = TestEnv::new();
    let text = "USER  PID COMMAND\nroot    1 /sbin/init  splash \n\nbob 22\tvim a.txt\r\n";
    env.write("ps.txt", text);
    for (extra, split) in [
        (vec![], "l.split()"),
        (vec!["--ws-columns", "3"], "l.split(None, 2)"),
    ] {
        let mut args = vec!["table", "read", "ps.txt", "--format", "ws"];
        args.extend(extra);
        let r = env.run(&args);
        ok(&r);
        let want = py(
            &env,
            &format!(
                "import json; print(json.dumps([{split} for l in open('ps.txt', newline='').read().replace('\\r\\n', '\\n').split('\\n') if l.strip()]))"
            ),
        );
        let got = named_rows(&r);
        let rows = got.as_array().expect("rows");
        assert_eq!(rows.len(), want.as_array().expect("rows").len());
        for (i, (g, w)) in rows.iter().zip(want.as_array().expect("rows")).enumerate() {
            // Data rows pad with null; the header names the extra columns 4, 5, ...
            let mut g: Vec<&Value> = g
                .as_array()
                .expect("row")
                .iter()
                .filter(|c| !c.is_null())
                .collect();
            let w: Vec<&Value> = w.as_array().expect("row").iter().collect();
            if i == 0 {
                g.truncate(w.len());
            }
            assert_eq!(g, w, "{args:?}");
        }
        assert_eq!(r.json["format"], "ws");
    }
    env.write("s.txt", "k::v::\nalpha::1::x\n");
    let s = env.run(&["table", "read", "s.txt", "--delimiter", "::", "--no-header"]);
    ok(&s);
    assert_eq!(s.json["format"], "sep");
    let want = py(
        &env,
        "import json; print(json.dumps([l.split('::') for l in open('s.txt').read().splitlines() if l]))",
    );
    assert_eq!(s.json["rows"], want);
    let l = env.run(&[
        "table", "read", "ps.txt", "--format", "lines", "--where", "1~vim",
    ]);
    ok(&l);
    assert_eq!(l.json["rows"], json!([["bob 22\tvim a.txt"]]));
    let bad = env.run(&[
        "table",
        "read",
        "s.txt",
        "--delimiter",
        "::",
        "--format",
        "csv",
    ]);
    assert_eq!(bad.error_code(), "argument.invalid");
}

#[test]
fn table_read_encoding_matches_python_decode() {
    let env = TestEnv::new();
    // Shift_JIS: 名前,都市 / 山田,東京
    let sjis: &[u8] = b"\x96\xbc\x91\x4f,\x93\x73\x8e\x73\n\x8eR\x93c,\x93\x8c\x8b\x9e\n";
    env.write("j.csv", sjis);
    let plain = env.run(&["table", "read", "j.csv"]);
    assert_eq!(plain.error_code(), "input.not-utf8");
    let repair = plain.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    let r = env.run_line(repair);
    ok(&r);
    let want = py(
        &env,
        "import csv,json; print(json.dumps(list(csv.reader(open('j.csv', encoding='shift_jis', newline='')))))",
    );
    assert_eq!(named_rows(&r), want);
    env.write("l.tsv", b"name\tcity\nJos\xe9\tM\xfcnchen\n");
    let l = env.run(&["table", "read", "l.tsv", "--encoding", "iso-8859-1"]);
    ok(&l);
    let want = py(
        &env,
        "import csv,json; print(json.dumps(list(csv.reader(open('l.tsv', encoding='latin-1', newline=''), delimiter='\\t'))))",
    );
    assert_eq!(named_rows(&l), want);
}

#[test]
fn table_set_answers_the_cells_previous_text_as_pythons_csv_reads_it_masked() {
    let env = TestEnv::new();
    env.write(
        "t.csv",
        "name,note,key\nann,\"a, \"\"quoted\"\" b\",ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n",
    );
    let want = py(
        &env,
        "import csv, json; print(json.dumps(list(csv.reader(open('t.csv', newline='')))[1][1]))",
    );
    let r = env.run(&[
        "table", "set", "t.csv", "--row", "1", "--column", "note", "--value", "plain",
    ]);
    ok(&r);
    assert_eq!(r.json["previous"], want);
    // A secret cell's previous text is masked like every other output.
    let r = env.run(&[
        "table", "set", "t.csv", "--row", "1", "--column", "key", "--value", "none",
    ]);
    ok(&r);
    let prev = r.json["previous"].as_str().unwrap();
    assert!(!prev.contains("ghp_aBcDeF"), "{prev}");
    assert!(r.json["redactions"].as_u64().unwrap() >= 1, "{}", r.stdout);
}
