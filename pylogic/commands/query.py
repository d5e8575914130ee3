"""``pathlogic query PROGRAM.dl (--facts DIR | --on DIR)``: run an ad hoc Soufflé-dialect program
over a facts directory (or over facts extracted from the PIR programs in a directory) and print
each output relation as a table."""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from pylogic.errors import DatalogError


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("query", help="run a Datalog (Soufflé dialect) program over facts",
                              description=__doc__)
    p.add_argument("program", help="the .dl program")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--facts", metavar="FACTSDIR", help="directory of NAME.facts files")
    src.add_argument("--on", metavar="DIR", help="extract facts from the PIR programs in DIR first")
    p.add_argument("--engine", default="auto", choices=("auto", "clingo", "souffle"))
    p.add_argument("--compiled", action="store_true", help="souffle: compile and cache the program")
    p.add_argument("--out", metavar="RESULTDIR", help="write NAME.csv per output relation")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="print at most N rows per relation")
    p.add_argument("--json", action="store_true", help="print {relation: {columns, rows}} as JSON")
    p.set_defaults(func=run)


def _extract(directory: str, facts_dir: Path) -> None:
    """Write the facts of every program under ``directory``; report inputs that were skipped."""
    if not Path(directory).is_dir():
        raise DatalogError(f"--on: {directory} is not a directory")
    try:
        from facts_gen.directory import extract_directory
    except ImportError:
        try:
            from facts_gen.extract import extract_directory
        except ImportError as exc:
            raise DatalogError(f"--on needs the facts extractor (facts_gen): {exc}") from None
    result = extract_directory(directory, facts_dir)
    loaded = result[1] if isinstance(result, tuple) and len(result) == 2 else None
    for problem in getattr(loaded, "problems", []):
        print(f"pathlogic: {problem.message}", file=sys.stderr)


def format_table(name: str, columns: list[str], rows: list[tuple], limit: int | None) -> str:
    """An aligned text table: a title line with the row count, a header, the rows."""
    shown = rows if limit is None else rows[:limit]
    cells = [[str(v) for v in row] for row in shown]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    lines = [f"{name} ({len(rows)} row{'s' if len(rows) != 1 else ''})"]
    if columns:
        lines.append("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
        lines.append("  ".join("-" * w for w in widths))
        for r in cells:
            lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
    elif rows:
        lines.append("()")
    if limit is not None and len(rows) > limit:
        lines.append(f"... {len(rows) - limit} more")
    return "\n".join(lines)


def run(args) -> int:
    from pylogic.engines import load_program, run_checked

    checked = load_program(args.program)
    with tempfile.TemporaryDirectory(prefix="pathlogic-facts-") as tmp:
        facts_dir = Path(args.facts) if args.facts else Path(tmp)
        if args.facts and not facts_dir.is_dir():
            raise DatalogError(f"facts directory {facts_dir} does not exist")
        if args.on:
            _extract(args.on, facts_dir)
        result = run_checked(checked, facts_dir, args.engine, output_dir=args.out,
                             compiled=args.compiled, extra=list(checked.printsize))
    columns = {r: [c[0] for c in checked.relations[r].columns] for r in result}
    if args.json:
        doc = {r: {"columns": columns[r],
                   "rows": [list(t) for t in (rows if args.limit is None else rows[:args.limit])],
                   "count": len(rows)}
               for r, rows in result.items()}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    blocks = []
    for rel in checked.outputs:
        blocks.append(format_table(rel, columns[rel], result[rel], args.limit))
    for rel in checked.printsize:
        if rel in result:
            blocks.append(f"{rel}\t{len(result[rel])}")
    print("\n\n".join(blocks))
    return 0
