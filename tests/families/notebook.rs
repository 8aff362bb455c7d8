//! The nb family: notebooks read as cells, cells edited, inserted, deleted and
//! moved by id or index, and search hits told by cell. The oracle is PyPI
//! `nbformat` (AITOOLS_NBFORMAT_PYTHON names a Python that has it; .ci/run
//! installs it): it validates every result and checks the file is laid out
//! exactly as nbformat writes it. Untouched cells are compared byte for byte.

use crate::support::{Run, TestEnv};
use serde_json::Value;

/// Written by nbformat 5.11 (`nbformat.writes` plus the final newline that
/// `nbformat.write` adds); @PNG@ stands for a 12 KB base64 image.
const FIXTURE: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Sales report\n",
    "Loads the data."
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "load",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"
     ]
    }
   ],
   "source": [
    "import os\n",
    "token = os.environ['TOKEN']\n",
    "print(token)"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 2,
   "id": "plot",
   "metadata": {},
   "outputs": [
    {
     "data": {
      "image/png": "@PNG@",
      "text/plain": [
       "<Figure size 640x480 with 1 Axes>"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    }
   ],
   "source": [
    "plot(df)"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "fail",
   "metadata": {},
   "outputs": [
    {
     "ename": "ZeroDivisionError",
     "evalue": "division by zero",
     "output_type": "error",
     "traceback": [
      "\u001b[0;31m---------------------------------------------------------------------------\u001b[0m",
      "\u001b[0;31mZeroDivisionError\u001b[0m: division by zero"
     ]
    }
   ],
   "source": [
    "total = sum(rows)\n",
    "total / 0"
   ]
  },
  {
   "cell_type": "markdown",
   "id": "end",
   "metadata": {},
   "source": [
    "Done."
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

fn fixture() -> String {
    FIXTURE.replace("@PNG@", &"QUJD".repeat(4096))
}

fn env_with_notebook() -> TestEnv {
    let env = TestEnv::new();
    env.write("nb.ipynb", fixture());
    env
}

fn text(env: &TestEnv) -> String {
    String::from_utf8(env.read("nb.ipynb")).expect("utf-8")
}

/// The cells' texts of an nbformat-laid-out notebook.
fn cells_of(t: &str) -> Vec<String> {
    let body = t
        .split_once("\"cells\": [\n")
        .and_then(|(_, r)| r.split_once("\n ],\n \"metadata\""))
        .map(|(b, _)| b)
        .unwrap_or("");
    body.split("\n  },\n  {\n")
        .map(|c| {
            let c = c.strip_prefix("  {\n").unwrap_or(c);
            c.strip_suffix("\n  }").unwrap_or(c).to_string()
        })
        .collect()
}

/// What nbformat says about the file: it validates, whether nbformat would
/// write it byte for byte, and each cell's id, type, source, output count and
/// execution count. None (the test says it skipped the oracle) without Python.
fn nbformat_view(env: &TestEnv) -> Option<Value> {
    let Some(python) = std::env::var_os("AITOOLS_NBFORMAT_PYTHON") else {
        eprintln!(
            "skipped the nbformat oracle: AITOOLS_NBFORMAT_PYTHON is not set (.ci/run installs nbformat)"
        );
        return None;
    };
    let script = r#"
import json, sys, nbformat
t = open(sys.argv[1], encoding="utf-8").read()
nb = nbformat.reads(t, as_version=4)
nbformat.validate(nb)
print(json.dumps({
    "same_layout": nbformat.writes(nb) + "\n" == t,
    "ids": [c.get("id") for c in nb.cells],
    "types": [c.cell_type for c in nb.cells],
    "sources": [c.source for c in nb.cells],
    "outputs": [len(c.get("outputs", [])) for c in nb.cells],
    "counts": [c.get("execution_count") for c in nb.cells],
}))
"#;
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .arg(env.path("nb.ipynb"))
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "nbformat rejects the notebook:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).expect("oracle json"))
}

fn ids(r: &Run) -> Vec<String> {
    r.json["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| c["id"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn nb_read_shows_cells_with_outputs_cut_masked_and_images_named() {
    let env = env_with_notebook();
    // The fixture is nbformat's own layout (what the byte comparisons rely on).
    if let Some(v) = nbformat_view(&env) {
        assert_eq!(v["same_layout"], true);
    }
    let r = env.run(&["nb", "read", "nb.ipynb"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["nbformat"], "4.5");
    assert_eq!(r.json["language"], "python");
    assert_eq!(r.json["total_cells"], 5);
    assert_eq!(ids(&r), ["intro", "load", "plot", "fail", "end"]);
    let cells = &r.json["cells"];
    assert_eq!(cells[0]["type"], "markdown");
    assert_eq!(
        cells[0]["source"],
        serde_json::json!(["# Sales report", "Loads the data."])
    );
    assert_eq!(cells[1]["execution_count"], 1);
    // The token printed by the cell is masked; the image is named, not shown.
    assert!(!r.stdout.contains("ghp_abc"), "{}", r.stdout);
    assert_eq!(cells[1]["outputs"][0]["name"], "stdout");
    assert_eq!(
        cells[2]["outputs"][0]["data"],
        serde_json::json!(["image/png 12 KB"])
    );
    assert_eq!(
        cells[2]["outputs"][0]["text"],
        serde_json::json!(["<Figure size 640x480 with 1 Axes>"])
    );
    assert!(!r.stdout.contains("QUJD"));
    // The traceback without its terminal colours.
    assert_eq!(
        cells[3]["outputs"][0]["error"],
        "ZeroDivisionError: division by zero"
    );
    assert!(!r.stdout.contains("\\u001b") && !r.stdout.contains("[0;31m"));
    assert!(
        r.stdout.len() * 10 < fixture().len(),
        "{} bytes",
        r.stdout.len()
    );
    // One cell by id; outputs cut to a budget.
    let one = env.run(&[
        "nb",
        "read",
        "nb.ipynb",
        "--cell",
        "fail",
        "--max-output-lines",
        "1",
    ]);
    assert_eq!(ids(&one), ["fail"]);
    assert_eq!(one.json["cells"][0]["outputs_cut"], 1);
}

#[test]
fn nb_read_pages_a_long_notebook() {
    let env = TestEnv::new();
    let cells: Vec<String> = (0..30)
        .map(|i| {
            format!(
                "  {{\n   \"cell_type\": \"markdown\",\n   \"id\": \"m{i}\",\n   \"metadata\": {{}},\n   \"source\": [\n    \"cell {i}\"\n   ]\n  }}"
            )
        })
        .collect();
    let nb = format!(
        "{{\n \"cells\": [\n{}\n ],\n \"metadata\": {{}},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}}\n",
        cells.join(",\n")
    );
    env.write("nb.ipynb", &nb);
    let first = env.run(&["nb", "read", "nb.ipynb"]);
    assert_eq!(first.code, 3, "{}", first.stdout);
    assert_eq!(first.json["cells"].as_array().map(Vec::len), Some(25));
    let next = first.json["next_commands"][0]
        .as_str()
        .expect("next")
        .to_string();
    assert_eq!(next, "aitools nb read nb.ipynb --from 25");
    let rest = env.run_line(&next);
    assert_eq!(rest.code, 0);
    assert_eq!(ids(&rest), ["m25", "m26", "m27", "m28", "m29"]);
    let asked = env.run(&["nb", "read", "nb.ipynb", "--limit", "10", "--from", "10"]);
    assert_eq!(asked.code, 0);
    assert_eq!(asked.json["more"], "--from 20");
    let args = ["nb", "read", "nb.ipynb", "--limit", "10", "--from", "10"];
    let on = crate::support::run_more(&env, &args, &asked);
    assert_eq!(ids(&on)[0], "m20", "{}", on.stdout);
}

#[test]
fn nb_edit_clears_a_code_cells_outputs_and_leaves_the_other_cells_byte_identical() {
    let env = env_with_notebook();
    let before = text(&env);
    let r = env.run(&[
        "nb",
        "edit",
        "nb.ipynb",
        "load",
        "--old",
        "print(token)",
        "--new",
        "print(len(token))\nprint('ok')",
    ]);
    let op = r.op_id();
    assert_eq!(
        r.json["cell"],
        serde_json::json!({"index": 1, "id": "load"})
    );
    assert_eq!(
        r.json["cleared"],
        serde_json::json!(["outputs", "execution_count"])
    );
    let after = text(&env);
    let (old, new) = (cells_of(&before), cells_of(&after));
    assert_eq!(new.len(), 5);
    for i in [0, 2, 3, 4] {
        assert_eq!(old[i], new[i], "cell {i} changed");
    }
    assert!(new[1].contains("\"execution_count\": null") && new[1].contains("\"outputs\": []"));
    assert!(after.ends_with("}\n") && after.starts_with("{\n \"cells\": [\n"));
    if let Some(v) = nbformat_view(&env) {
        assert_eq!(v["same_layout"], true);
        assert_eq!(
            v["sources"][1],
            "import os\ntoken = os.environ['TOKEN']\nprint(len(token))\nprint('ok')"
        );
        assert_eq!(v["outputs"], serde_json::json!([0, 0, 1, 1, 0]));
        assert_eq!(v["counts"][1], Value::Null);
    }
    // A markdown cell keeps nothing to clear; the whole source by id.
    let md = env.run(&["nb", "edit", "nb.ipynb", "end", "--source", "All done."]);
    md.op_id();
    assert!(md.json.get("cleared").is_none());
    env.run(&["undo", &md.op_id()]);
    let u = env.run(&["undo", &op]);
    assert_eq!(u.code, 0, "{}", u.stdout);
    assert_eq!(text(&env), before, "undo restores the bytes exactly");
}

#[test]
fn nb_edit_type_turns_a_code_cell_markdown_dropping_its_run_state_and_back() {
    let env = env_with_notebook();
    let before = text(&env);
    let r = env.run(&["nb", "edit", "nb.ipynb", "fail", "--type", "markdown"]);
    let op = r.op_id();
    assert_eq!(r.json["type"], "markdown", "{}", r.stdout);
    assert_eq!(
        r.json["cleared"],
        serde_json::json!(["execution_count", "outputs"])
    );
    let after = text(&env);
    let (old, new) = (cells_of(&before), cells_of(&after));
    for i in [0, 1, 2, 4] {
        assert_eq!(old[i], new[i], "cell {i} changed");
    }
    assert_eq!(
        new[3],
        "   \"cell_type\": \"markdown\",\n   \"id\": \"fail\",\n   \"metadata\": {},\n   \"source\": [\n    \"total = sum(rows)\\n\",\n    \"total / 0\"\n   ]"
    );
    // Back to code with a new source: empty outputs and count, at nbformat's places.
    let back = env.run(&[
        "nb",
        "edit",
        "nb.ipynb",
        "fail",
        "--type",
        "code",
        "--source",
        "total = sum(rows)",
    ]);
    back.op_id();
    assert!(back.json.get("cleared").is_none(), "{}", back.stdout);
    let code = cells_of(&text(&env))[3].clone();
    assert_eq!(
        code,
        "   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"fail\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"total = sum(rows)\"\n   ]"
    );
    if let Some(v) = nbformat_view(&env) {
        assert_eq!(v["same_layout"], true);
        assert_eq!(v["types"][3], "code");
        assert_eq!(v["outputs"], serde_json::json!([0, 1, 1, 0, 0]));
    }
    // By index it is a whole-cell change: the guard is required.
    let idx = env.run(&["nb", "edit", "nb.ipynb", "4", "--type", "raw"]);
    assert_eq!(
        idx.json["error"]["code"], "argument.invalid",
        "{}",
        idx.stdout
    );
    env.run(&["undo", &back.op_id()]);
    let u = env.run(&["undo", &op]);
    assert_eq!(u.code, 0, "{}", u.stdout);
    assert_eq!(text(&env), before, "undo restores the bytes exactly");
}

#[test]
fn nb_insert_delete_and_move_keep_cells_bytes_and_nbformats_layout() {
    let env = env_with_notebook();
    let before = text(&env);
    let orig = cells_of(&before);
    let ins = env.run(&[
        "nb",
        "insert",
        "nb.ipynb",
        "--after",
        "intro",
        "--type",
        "markdown",
        "--source",
        "## Setup\nFirst steps.",
    ]);
    let op1 = ins.op_id();
    let new_id = ins.json["cell"]["id"].as_str().expect("new id").to_string();
    assert_eq!(ins.json["cell"]["index"], 1);
    assert_eq!(new_id.len(), 8);
    if let Some(v) = nbformat_view(&env) {
        assert_eq!(v["same_layout"], true);
        assert_eq!(
            v["ids"],
            serde_json::json!(["intro", new_id, "load", "plot", "fail", "end"])
        );
        assert_eq!(v["sources"][1], "## Setup\nFirst steps.");
    }
    let code = env.run(&[
        "nb", "insert", "nb.ipynb", "--source", "x = 1", "--before", "0",
    ]);
    let op2 = code.op_id();
    let mv = env.run(&["nb", "move", "nb.ipynb", "fail", "--after", "end"]);
    let op3 = mv.op_id();
    assert_eq!(mv.json["cell"]["index"], 6);
    let del = env.run(&["nb", "delete", "nb.ipynb", "plot"]);
    let op4 = del.op_id();
    assert_eq!(
        del.json["cell"],
        serde_json::json!({"index": 4, "id": "plot", "type": "code"})
    );
    let now = cells_of(&text(&env));
    // Every original cell that is still there has its bytes, in the new order.
    assert_eq!(now[1], orig[0]);
    assert_eq!(now[3], orig[1]);
    assert_eq!(now[4], orig[4]);
    assert_eq!(now[5], orig[3]);
    if let Some(v) = nbformat_view(&env) {
        assert_eq!(v["same_layout"], true);
        assert_eq!(
            v["types"],
            serde_json::json!(["code", "markdown", "markdown", "code", "markdown", "code"])
        );
        assert_eq!(v["sources"][0], "x = 1");
        assert_eq!(v["counts"][0], Value::Null);
    }
    for op in [op4, op3, op2, op1] {
        let u = env.run(&["undo", &op]);
        assert_eq!(u.code, 0, "{}", u.stdout);
    }
    assert_eq!(text(&env), before);
}

#[test]
fn nb_writes_are_guarded_and_write_nothing_when_refused() {
    let env = env_with_notebook();
    let before = text(&env);
    // A cell named by its position needs the hash; the repair names it by id.
    let r = env.run(&["nb", "delete", "nb.ipynb", "2"]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert_eq!(
        r.json["error"]["repairs"][0]["command"],
        "aitools nb delete nb.ipynb plot"
    );
    let r = env.run(&[
        "nb",
        "edit",
        "nb.ipynb",
        "2",
        "--source",
        "x",
        "--expect-hash",
        "000000000000",
    ]);
    assert_eq!(r.error_code(), "refusal.target-changed");
    let r = env.run(&[
        "nb", "edit", "nb.ipynb", "fail", "--old", "total", "--new", "t",
    ]);
    assert_eq!(r.error_code(), "selection.ambiguous");
    let r = env.run(&[
        "nb", "edit", "nb.ipynb", "fail", "--old", "absent", "--new", "t",
    ]);
    assert_eq!(r.error_code(), "selection.no-match");
    let r = env.run(&["nb", "move", "nb.ipynb", "nosuch", "--before", "0"]);
    assert_eq!(r.error_code(), "selection.no-match");
    assert_eq!(text(&env), before);
    let hash = env.run(&["nb", "read", "nb.ipynb"]).json["hash"]
        .as_str()
        .unwrap()
        .to_string();
    let ok = env.run(&[
        "nb",
        "move",
        "nb.ipynb",
        "0",
        "--after",
        "4",
        "--expect-hash",
        &hash,
    ]);
    ok.op_id();
    if let Some(v) = nbformat_view(&env) {
        assert_eq!(
            v["ids"],
            serde_json::json!(["load", "plot", "fail", "end", "intro"])
        );
    }
}

#[test]
fn a_file_that_is_not_an_nbformat_4_notebook_is_refused_with_a_repair() {
    let env = TestEnv::new();
    let broken = fixture().replacen(
        "   \"outputs\": [\n    {\n     \"name\"",
        "   \"outs\": [\n    {\n     \"name\"",
        1,
    );
    env.write("nb.ipynb", &broken);
    let r = env.run(&["nb", "edit", "nb.ipynb", "load", "--source", "x"]);
    assert_eq!(r.error_code(), "input.syntax-error", "{}", r.stdout);
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/cells/1/outputs")
    );
    assert_eq!(text(&env), broken, "nothing written");
    let fix = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        fix,
        "aitools json set nb.ipynb /cells/1/outputs '[]' --create"
    );
    env.run_line(&fix).op_id();
    assert_eq!(env.run(&["nb", "read", "nb.ipynb"]).code, 0);
    env.write(
        "old.ipynb",
        "{\"nbformat\": 3, \"nbformat_minor\": 0, \"worksheets\": [], \"metadata\": {}}\n",
    );
    assert_eq!(
        env.run(&["nb", "read", "old.ipynb"]).error_code(),
        "input.unsupported-format"
    );
    env.write("bad.ipynb", "{\"cells\": [\n");
    assert_eq!(
        env.run(&["nb", "insert", "bad.ipynb", "--source", "x"])
            .error_code(),
        "input.syntax-error"
    );
    assert_eq!(env.read("bad.ipynb"), b"{\"cells\": [\n");
}

#[test]
fn search_tells_notebook_hits_by_cell_and_line() {
    let env = env_with_notebook();
    env.write("plain.py", "token = 1\n");
    let r = env.run(&["search", "token", "nb.ipynb", "plain.py", "-C", "1"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let blocks = r.json["blocks"].as_array().expect("blocks");
    let nb: Vec<&Value> = blocks.iter().filter(|b| b["path"] == "nb.ipynb").collect();
    assert_eq!(nb.len(), 1, "{}", r.stdout);
    assert_eq!(nb[0]["cell"], 1);
    assert_eq!(nb[0]["id"], "load");
    // The cell's source lines, numbered in the cell: `N:` selected, `N-` context.
    assert_eq!(
        nb[0]["lines"],
        serde_json::json!([
            "1-import os",
            "2:token = os.environ['TOKEN']",
            "3:print(token)"
        ])
    );
    let plain: Vec<&Value> = blocks.iter().filter(|b| b["path"] == "plain.py").collect();
    assert!(plain[0].get("cell").is_none());
    let m = env.run(&["search", "environ", "nb.ipynb", "--output", "matches"]);
    let item = &m.json["matches"][0];
    assert_eq!(
        (
            item["cell"].clone(),
            item["line"].clone(),
            item["col"].clone()
        ),
        (
            serde_json::json!(1),
            serde_json::json!(2),
            serde_json::json!(12)
        )
    );
    // A hit in a cell's outputs names the cell and the part.
    let o = env.run(&["search", "Figure size", "nb.ipynb"]);
    assert_eq!(o.json["blocks"][0]["cell"], 2);
    assert_eq!(o.json["blocks"][0]["in"], "outputs");
    // Streamed blocks (--output jsonl) are told by cell too.
    let out = env
        .command(&["search", "token", "nb.ipynb", "--output", "jsonl"])
        .output()
        .expect("run");
    let block = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "block")
        .expect("a block event");
    assert_eq!(
        (block["cell"].clone(), block["match_lines"].clone()),
        (serde_json::json!(1), serde_json::json!([2, 3]))
    );
}

/// A match crossing an escaped quote in a source line's JSON string
/// (`token = "Zq8v\"2LmP…"` is written `\"Zq8v\\\"2LmP…\"` in the file) is
/// masked as the cell's text says it, escapes included: the whole value, a piece
/// of it, and a capture group, with a count.
#[test]
fn search_masks_a_notebook_match_across_an_escaped_quote() {
    let env = TestEnv::new();
    let src = [
        "password = \"Tr0ub4dor3xyzQ\"\n",
        "token = \"Zq8v\\\"2LmP0xA1Wk3n9RtY7uB2\"\n",
        "API_KEY=\"He said \\\"Hj5Tk8Lm2Qp9Xz4W\\\"\"\n",
    ];
    let nb = serde_json::json!({"cells": [{"cell_type": "code", "execution_count": null,
        "id": "c1", "metadata": {}, "outputs": [], "source": src}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    env.write("s.ipynb", serde_json::to_string_pretty(&nb).expect("json"));
    for (pattern, secret) in [
        ("Zq8v.*uB2", "2LmP0xA1Wk3n9RtY7uB2"),
        ("Zq8v....2LmP", "2LmP"),
        ("(Zq8v.*Wk3n)", "2LmP0xA1Wk3n"),
        ("said.*", "Hj5Tk8Lm2Qp9Xz4W"),
        ("= ..Tr0ub", "Tr0ub"),
    ] {
        let r = env.run(&["search", pattern, "s.ipynb", "--output", "matches"]);
        let m = &r.json["matches"][0];
        assert_eq!(m["cell"], 0, "{pattern}: {}", r.stdout);
        assert!(!r.stdout.contains(secret), "{pattern} leaked: {}", r.stdout);
        assert!(
            m["text"]
                .as_str()
                .unwrap_or("")
                .contains("[REDACTED_SECRET]"),
            "{pattern}: {}",
            r.stdout
        );
        assert!(
            r.json["redactions"].as_u64().unwrap_or(0) >= 1,
            "{pattern}: {}",
            r.stdout
        );
    }
    // Text around the value stays as the file writes it.
    let r = env.run(&["search", "token = ..Zq8v", "s.ipynb", "--output", "matches"]);
    assert_eq!(
        r.json["matches"][0]["text"],
        "token = \\\"[REDACTED_SECRET]"
    );
}
