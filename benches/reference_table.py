#!/usr/bin/env python3
"""Compare our commands with the reference tool's, command by command.

Reads the reference facts (benches/ref/commands-*.tsv: names of positionals,
options, output fields and error codes, with the reference commit as
provenance) and our own `aitools schema --all --full`, and prints a Markdown
table: for each of the reference's commands, whether we have it, and the
options, output fields and error codes it has that we lack (missing) or we have
that it lacks (extra). Totals come last.

    python3 benches/reference_table.py [--bin target/debug/aitools | --schema FILE] \
        [--ref benches/ref/commands-4b60ff51.tsv] [--totals]

Options are compared by name (global --root/--lock-timeout left out on both
sides); positionals are not compared (names differ by style only). Output
fields and codes are compared as sets. A missing name listed in
benches/ref/deliberate.tsv (left out on purpose, with the reason) is marked
with a dagger and counted apart from the open gaps. Extras every command of a
kind shares (SHARED: recovery fields, the write protocol's flags, the state
and output-lost codes) are named once below the table, not in every row.

A second table compares each reference option's default and accepted values
(benches/ref/defaults-*.tsv, --values) with our schema's args[].default and
args[].values. Spelling is normalised only where the meaning is equal: a
duration in any unit (10s = 10000ms), a size in any unit (16KiB = 16384), a
number as text or not, no default and an empty one. Where our `default` is
empty, a "(default X)" in our description is shown beside it. A row is listed
when the defaults differ or a reference value is not among our values; values only
we declare are listed too but counted apart. deliberate.tsv rows of kind
`default` or `values` (NAME: the option) mark the differences kept on purpose.
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
GLOBAL = {"--root", "--lock-timeout"}
# Ours on every command (or every write, or every scanning command): said once.
SHARED = {
    "flags": {"--max-diff-lines", "--syntax-guard", "--max-input", "--max-files",
              "--max-scan-bytes", "--scan-timeout"},
    "fields": {"recovered", "pending_recovery", "next_commands", "diff_truncated",
               "concurrent_appends", "scan_cut"},
    "codes": {"environment.state-untrusted", "environment.output-lost",
              "environment.recovery-pending", "refusal.syntax-broken"},
}


def load_deliberate(path):
    out = {}
    for line in pathlib.Path(path).read_text().splitlines():
        if line and not line.startswith("#"):
            cmd, kind, name, why = line.split("\t")
            out[(cmd, kind, name)] = why
    return out


def load_ref(path):
    macros, rows, order = {}, {}, []
    for line in pathlib.Path(path).read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        cmd, kind, names = (line.split("\t") + [""])[:3]
        if kind == "macro":
            macros[cmd] = names.split()
            continue
        if cmd not in rows:
            rows[cmd] = {}
            order.append(cmd)
        rows[cmd][kind] = expand(names.split(), macros)
    return order, rows


def expand(words, macros):
    out = []
    for w in words:
        if w.startswith("$"):
            out.extend(expand(macros[w], macros))
        else:
            out.append(w)
    return out


def load_ours(binary, saved=None):
    if saved:
        text = pathlib.Path(saved).read_text()
    else:
        res = subprocess.run(
            [binary, "schema", "--all", "--full"], capture_output=True, check=True
        )
        text = res.stdout
    ours = {}
    for c in json.loads(text)["commands"]:
        ours[c["name"]] = {
            "args": {a["name"]: a for a in c["args"]},
            "flags": [a["name"] for a in c["args"] if not a.get("positional")],
            "fields": [f["name"] for f in c["output_fields"]],
            "codes": list(c["error_codes"]),
        }
    return ours


def diff(ref, ours, kind):
    r = [x for x in ref.get(kind, []) if x not in GLOBAL]
    o = [x for x in ours.get(kind, []) if x not in GLOBAL]
    return [x for x in r if x not in o], [x for x in o if x not in r]


def cell(xs, marked=()):
    return " ".join(f"`{x}`" + ("†" if x in marked else "") for x in xs)


def load_values(path):
    """The reference's (command, option, default, values) rows, macros expanded."""
    macros, rows = {}, []
    for line in pathlib.Path(path).read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if cols[1] == "macro":
            macros[cols[0]] = cols[2].split()
            continue
        cmd, opt, default, values = cols
        vals = None if values == "-" else expand(values.split(), macros)
        rows.append((cmd, opt, None if default == "-" else default, vals))
    return rows


UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000,
         "": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
SIZE = re.compile(r"(\d+(?:\.\d+)?)(KiB|MiB|GiB)?")


def norm(v):
    """A default as a comparable value: equal meaning, equal result."""
    if v is None or v == "":
        return None
    v = str(v)
    m = DURATION.fullmatch(v)
    if m:
        return ("duration", float(m[1]) * UNITS[m[2]])
    m = SIZE.fullmatch(v)
    if m:
        return ("number", float(m[1]) * UNITS[m[2] or ""])
    return ("text", v)


def described_default(arg):
    """A "(default X)" in our description, for an option whose `default` is empty."""
    m = re.search(r"\(default (\S+?)\)", arg.get("description", ""))
    return m[1] if m else None


def compare_values(rows, ours, why):
    """Rows that differ, and the counts for the summary."""
    tot = {k: 0 for k in ("defaults", "defaults_same", "defaults_open", "defaults_deliberate",
                          "values", "values_same", "values_open", "values_deliberate",
                          "values_extra", "absent")}
    out = []
    for cmd, opt, rdef, rvals in rows:
        arg = ours.get(cmd, {}).get("args", {}).get(opt)
        if arg is None:
            tot["absent"] += 1
            out.append((cmd, opt, rdef, "(no such option)", rvals or [], [], False, False))
            continue
        odef = arg.get("default")
        def_differs = False
        if rdef is not None:
            tot["defaults"] += 1
            def_differs = norm(rdef) != norm(odef)
            key = "defaults_" + ("same" if not def_differs else
                                 "deliberate" if (cmd, "default", opt) in why else "open")
            tot[key] += 1
        ovals = arg.get("values") if arg.get("type") != "flag" else None
        missing, extra = [], []
        if rvals is not None:
            tot["values"] += 1
            missing = [v for v in rvals if v not in (ovals or [])]
            extra = [v for v in (ovals or []) if v not in rvals]
            key = "values_" + ("same" if not missing else
                               "deliberate" if (cmd, "values", opt) in why else "open")
            tot[key] += 1
            tot["values_extra"] += len(extra)
        if def_differs or missing or extra:
            shown = "" if odef is None else odef
            if odef is None and described_default(arg):
                shown = f"(description: {described_default(arg)})"
            out.append((cmd, opt, rdef if def_differs else None, shown if def_differs else None,
                        missing, extra, (cmd, "default", opt) in why,
                        (cmd, "values", opt) in why))
    return out, tot


def code(v):
    if v is None:
        return ""
    if v == "":
        return "(none)"
    return v if v.startswith("(") else f"`{v}`"


def values_table(diffs, tot):
    lines = [
        "| Command | Option | Reference default | Our default | Reference values not in our `values` | Our `values` the reference lacks |",
        "|---|---|---|---|---|---|",
    ]
    for cmd, opt, rdef, odef, missing, extra, ddel, vdel in diffs:
        dagger = "†" if ddel else ""
        lines.append(
            f"| `{cmd}` | `{opt}` | {code(rdef)}{dagger if rdef else ''} | {code(odef)} | "
            f"{cell(missing, set(missing) if vdel else ())} | {cell(extra)} |"
        )
    summary = (
        f"Reference defaults: {tot['defaults']}; same {tot['defaults_same']}, "
        f"differ {tot['defaults_open']} open + {tot['defaults_deliberate']} deliberate. "
        f"Reference value lists: {tot['values']}; all taken {tot['values_same']}, "
        f"missing {tot['values_open']} open + {tot['values_deliberate']} deliberate; "
        f"values only we take: {tot['values_extra']}. Options absent here: {tot['absent']}."
    )
    return lines, summary


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=str(HERE.parent / "target/debug/aitools"))
    p.add_argument("--ref", default=str(HERE / "ref/commands-4b60ff51.tsv"))
    p.add_argument("--values", default=str(HERE / "ref/defaults-4b60ff51.tsv"))
    p.add_argument("--deliberate", default=str(HERE / "ref/deliberate.tsv"))
    p.add_argument("--schema", help="a saved `aitools schema --all --full` answer instead of --bin")
    p.add_argument("--totals", action="store_true", help="print the totals only")
    a = p.parse_args()
    order, ref = load_ref(a.ref)
    ours = load_ours(a.bin, a.schema)
    why = load_deliberate(a.deliberate)
    kinds = ["flags", "fields", "codes"]
    keys = ["missing", "deliberate", "extra", "shared"]
    tot = {"present": 0, **{f"{k}_{s}": 0 for k in kinds for s in keys}}
    lines = [
        "| Command | Present | Flags missing | Flags extra | Fields missing | Fields extra | Codes missing | Codes extra |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cmd in order:
        have = cmd in ours
        cols = []
        for k in kinds:
            miss, extra = diff(ref[cmd], ours.get(cmd, {}), k)
            marked = {m for m in miss if (cmd, k, m) in why}
            shared = [x for x in extra if x in SHARED[k]]
            extra = [x for x in extra if x not in SHARED[k]]
            if have:
                tot[f"{k}_missing"] += len(miss) - len(marked)
                tot[f"{k}_deliberate"] += len(marked)
                tot[f"{k}_extra"] += len(extra)
                tot[f"{k}_shared"] += len(shared)
                cols += [cell(miss, marked), cell(extra)]
            else:
                cols += ["(all)", ""]
        tot["present"] += have
        lines.append(f"| `{cmd}` | {'yes' if have else 'no'} | " + " | ".join(cols) + " |")
    only_ours = sorted(set(ours) - set(order))
    summary = (
        f"Reference commands: {len(order)}; present: {tot['present']}. "
        + "; ".join(
            f"{k}: missing {tot[k + '_missing']} open + {tot[k + '_deliberate']} deliberate, "
            f"extra {tot[k + '_extra']} (+ {tot[k + '_shared']} shared)"
            for k in kinds
        )
        + f". Our commands the reference lacks: {len(only_ours)}."
    )
    vdiffs, vtot = compare_values(load_values(a.values), ours, why)
    vlines, vsummary = values_table(vdiffs, vtot)
    if a.totals:
        print(summary)
        print(vsummary)
        return 0
    print("\n".join(lines))
    print()
    print(summary)
    print()
    for k in kinds:
        print(f"Shared extras ({k}), left out of the rows: {cell(sorted(SHARED[k]))}.")
    print()
    print("Ours only: " + cell(only_ours))
    print()
    print("## Defaults and values that differ")
    print()
    print("\n".join(vlines))
    print()
    print(vsummary)
    print()
    print("† Left out on purpose:")
    print()
    said = {"flags": "flag", "fields": "field", "codes": "code", "default": "default of",
            "values": "values of"}
    for (cmd, k, name), w in sorted(why.items()):
        print(f"- `{cmd}` {said.get(k, k)} `{name}`: {w}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
