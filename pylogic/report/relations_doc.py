"""Generate docs/relations.md from the shipped Datalog programs, read through the engines' front
end: every public relation (no leading ``_``) with its columns, its kind and the one-line comment
above its ``.decl`` (STYLE.md: "declaration right above its rules, with a one-line comment").

``python -m pylogic.report.relations_doc`` rewrites the file; tests/report/test_relations_doc.py
fails when the committed file is stale.
"""
from __future__ import annotations

import sys
from pathlib import Path

from pylogic.analysis import catalog
from pylogic.engines import load_program_cached

DOC = Path(__file__).resolve().parents[2] / "docs" / "relations.md"


def declarations() -> dict[str, list[dict]]:
    """Declaring file (relative to ``datalog/``) -> its public relations: name, columns,
    meaning, kind (input / output / derived), in declaration order."""
    root = catalog.datalog_dir().resolve()
    programs = [load_program_cached(root / "schema.dl")] + [a.program() for a in catalog.CATALOG]
    by_file: dict[str, dict[str, dict]] = {}
    for program in programs:
        for rel in program.relations.values():
            if rel.name.startswith("_"):
                continue
            file = Path(rel.loc.file).resolve().relative_to(root).as_posix()
            kind = ("input" if rel.name in program.inputs else
                    "output" if rel.name in program.outputs else "derived")
            entry = by_file.setdefault(file, {}).setdefault(rel.name, {
                "name": rel.name, "line": rel.loc.line, "meaning": rel.doc, "kind": kind,
                "columns": ", ".join(f"{a}: {t}" for a, t, _ in rel.columns)})
            if kind == "output":            # output in some program that includes it
                entry["kind"] = "output" if entry["kind"] != "input" else "input"
    return {f: sorted(rels.values(), key=lambda d: d["line"]) for f, rels in by_file.items()}


def render() -> str:
    out = ["# Relations", "",
           "Generated from `datalog/` by `python -m pylogic.report.relations_doc`; do not edit.",
           "Every relation's first column is the function id `<file relative to DIR>::<name>`",
           "(module-level relations: the file path). Input relations are written by `facts_gen` to",
           "`OUT/facts/NAME.facts`; output relations by the analyses to `OUT/results/NAME.tsv`",
           "(tab-separated, no header line: the columns are the ones listed here).",
           "`derived` relations are public helpers that other analyses use but do not write out.",
           "Each section names the catalogued analysis (`pylogic/analysis/catalog.py`) of its file",
           "and the functions `pathlogic analyze` runs it on (scope).", ""]
    analyses = {a.file: a for a in catalog.CATALOG}
    decls = declarations()
    for file in ["schema.dl"] + sorted(f for f in decls if f != "schema.dl"):
        if file not in decls:
            continue
        out.append(f"## `{file}`")
        out.append("")
        if file in analyses:
            a = analyses[file]
            out += [f"Analysis `{a.name}` (scope: {a.scope}): {a.summary}.", ""]
        else:
            part = [a for a in catalog.CATALOG if (catalog.datalog_dir() / file).resolve()
                    in {Path(f).resolve() for f in a.program().files}]
            if part and file != "schema.dl":
                # the family's own analysis (ppg/ -> ppg.dl) first, then the smallest includer
                a = min(part, key=lambda a: (not file.startswith(Path(a.file).stem + "/"),
                                             len(a.program().files)))
                out += [f"Part of analysis `{a.name}` (scope: {a.scope}): {a.summary}.", ""]
        out += ["| relation | kind | columns | meaning |", "|---|---|---|---|"]
        for d in decls[file]:
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
