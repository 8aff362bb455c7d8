//! Unit tests of the notebook model: parsing, line mapping, splices.

use super::edit::{Item, new_cell, rebuild, set_source};
use super::*;
use crate::text::json_doc::Style;

/// Written by nbformat 5.11 (`nbformat.writes`): indent 1, keys sorted.
const NB: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Title\n",
    "text"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "c1",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "hi\n"
     ]
    }
   ],
   "source": [
    "print('hi')"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

#[test]
fn cells_are_read_with_their_parts() {
    let nb = Notebook::parse(NB).unwrap();
    assert_eq!(nb.cells.len(), 2);
    assert_eq!(nb.language.as_deref(), Some("python"));
    assert_eq!(nb.cells[0].source, "# Title\ntext");
    assert_eq!(nb.cells[1].count(NB), Some(3));
    assert!(nb.cells[1].has_run_state());
    assert_eq!(nb.find("c1").unwrap().index, 1);
    assert_eq!(nb.find("0").unwrap().index, 0);
    assert!(nb.find("9").is_err());
}

#[test]
fn lines_map_to_cells() {
    let nb = Notebook::parse(NB).unwrap();
    let (c, p) = nb.locate(NB, 8).unwrap();
    assert_eq!((c.index, p), (0, Part::Source(1)));
    let (c, p) = nb.locate(NB, 9).unwrap();
    assert_eq!((c.index, p), (0, Part::Source(2)));
    let (c, p) = nb.locate(NB, 24).unwrap();
    assert_eq!((c.index, p), (1, Part::Outputs));
}

#[test]
fn a_source_edit_touches_only_its_cell() {
    let nb = Notebook::parse(NB).unwrap();
    let out = set_source(NB, &nb, &nb.cells[1], "x = 1\ny = 2\n", true);
    let want = NB
        .replace("\"execution_count\": 3", "\"execution_count\": null")
        .replace(
            "   \"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"hi\\n\"\n     ]\n    }\n   ],",
            "   \"outputs\": [],",
        )
        .replace("    \"print('hi')\"", "    \"x = 1\\n\",\n    \"y = 2\\n\"");
    assert_eq!(out, want);
    Notebook::parse(&out).unwrap();
}

#[test]
fn new_cells_are_laid_out_like_nbformat() {
    let nb = Notebook::parse(NB).unwrap();
    let st = Style::of(NB, &nb.root);
    let cell = new_cell(&st, "  ", CellType::Code, Some("abc"), "a\n");
    assert_eq!(
        cell,
        "{\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"abc\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"a\\n\"\n   ]\n  }"
    );
    let out = rebuild(
        NB,
        &nb,
        &[
            Item::Keep(&nb.cells[1]),
            Item::New(cell),
            Item::Keep(&nb.cells[0]),
        ],
    );
    let again = Notebook::parse(&out).unwrap();
    assert_eq!(again.cells.len(), 3);
    assert_eq!(again.cells[0].id.as_deref(), Some("c1"));
    let none = rebuild(NB, &nb, &[]);
    assert!(none.starts_with("{\n \"cells\": [],\n \"metadata\""));
}

#[test]
fn not_notebooks_say_where() {
    assert!(matches!(
        Notebook::parse("{\"nbformat\": 3}"),
        Err(NbError::Version { .. })
    ));
    match Notebook::parse(&NB.replace("\"outputs\": [", "\"outs\": [")) {
        Err(NbError::Invalid { pointer, fix, .. }) => {
            assert_eq!(pointer, "/cells/1/outputs");
            assert_eq!(fix.as_deref(), Some("[]"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn lines_split_as_python_does() {
    assert_eq!(split_lines("a\nb"), ["a\n", "b"]);
    assert_eq!(split_lines("a\r\nb\r"), ["a\r\n", "b\r"]);
    assert!(split_lines("").is_empty());
}
