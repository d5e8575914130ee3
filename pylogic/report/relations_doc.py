"""Generate docs/relations.md from the ``.decl`` lines of datalog/*.dl and the one-line comment
above each (STYLE.md: "declaration right above its rules, with a one-line comment").

``python -m pylogic.report.relations_doc`` rewrites the file; tests/datalog/test_relations_doc.py
fails when the committed file is stale.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

DATALOG_DIR = Path(__file__).resolve().parents[2] / "datalog"
DOC = Path(__file__).resolve().parents[2] / "docs" / "relations.md"

_DECL = re.compile(r"^\s*\.decl\s+(\w+)\s*\(([^)]*)\)")


def declarations(path: Path) -> list[dict]:
    """Public relations declared in one .dl file: name, columns, comment, input/output."""
    lines = path.read_text().splitlines()
    text = "\n".join(lines)
    inputs = set(re.findall(r"^\s*\.input\s+(\w+)", text, re.M))
    outputs = set(re.findall(r"^\s*\.output\s+(\w+)", text, re.M))
    found = []
    for k, line in enumerate(lines):
        m = _DECL.match(line)
        if not m or m.group(1).startswith("_"):
            continue
        comment = []
        j = k - 1
        while j >= 0 and lines[j].strip().startswith("//"):
            comment.insert(0, lines[j].strip()[2:].strip())
            j -= 1
        name = m.group(1)
        cols = ", ".join(c.strip() for c in m.group(2).split(","))
        kind = "input" if name in inputs else "output" if name in outputs else "derived"
        found.append({"name": name, "columns": cols, "meaning": " ".join(comment), "kind": kind})
    return found


def render() -> str:
    out = ["# Relations", "",
           "Generated from `datalog/*.dl` by `python -m pylogic.report.relations_doc`; do not edit.",
           "Every relation's first column is the function id `<file relative to DIR>::<name>`",
           "(module-level relations: the file path). Input relations are written by `facts_gen` to",
           "`OUT/facts/NAME.facts`; output relations by the analyses to `OUT/results/NAME.csv`.",
           "`derived` relations are public helpers that other analyses use but do not write out.", ""]
    order = ["schema.dl"] + sorted(p.name for p in DATALOG_DIR.glob("*.dl") if p.name != "schema.dl")
    for fname in order:
        decls = declarations(DATALOG_DIR / fname)
        if not decls:
            continue
        out += [f"## `{fname}`", "", "| relation | kind | columns | meaning |", "|---|---|---|---|"]
        for d in decls:
            meaning = d["meaning"].replace("|", "\\|")
            out.append(f"| `{d['name']}` | {d['kind']} | {d['columns']} | {meaning} |")
        out.append("")
    return "\n".join(out)


def main() -> int:
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(render())
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
