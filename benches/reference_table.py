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
"""

import argparse
import json
import pathlib
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=str(HERE.parent / "target/debug/aitools"))
    p.add_argument("--ref", default=str(HERE / "ref/commands-4b60ff51.tsv"))
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
    if a.totals:
        print(summary)
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
    print("† Left out on purpose:")
    print()
    for (cmd, k, name), w in sorted(why.items()):
        print(f"- `{cmd}` {k[:-1]} `{name}`: {w}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
