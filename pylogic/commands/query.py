"""``pathlogic query PROGRAM.dl (--facts DIR | --on DIR)``: run an ad hoc Soufflé-dialect program
over a facts directory (or over facts extracted from the programs in a directory) and print
each output relation as a table."""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from facts_gen.extract import extract_directory
from pylogic.commands import nonnegative_int
from pylogic.engines import engine_choices, load_program, run_checked
from pylogic.errors import DatalogError, PathlogicError
from pylogic.report.table import relation_table


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("query", help="run a Datalog (Soufflé dialect) program over facts",
                              description=__doc__)
    p.add_argument("program", help="the .dl program")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--facts", metavar="FACTSDIR", help="directory of NAME.facts files")
    src.add_argument("--on", metavar="DIR",
                     help="extract facts from the programs (.pir, .ll, .c) in DIR first")
    p.add_argument("--engine", default="auto", choices=engine_choices())
    p.add_argument("--compiled", action="store_true", help="souffle: compile and cache the program")
    p.add_argument("--out", metavar="RESULTDIR", help="write NAME.csv per output relation")
    p.add_argument("--limit", type=nonnegative_int, default=None, metavar="N",
                   help="print at most N rows per relation")
    p.add_argument("--json", action="store_true", help="print {relation: {columns, rows}} as JSON")
    p.set_defaults(func=run)


def extract_into(directory: str, facts_dir: Path) -> None:
    """Write the facts of every program under ``directory`` to ``facts_dir``; print the inputs
    that were skipped (or loaded with notes) to stderr.

    Raises
    ------
    PathlogicError
        If ``directory`` does not exist.
    """
    if not Path(directory).exists():
        raise PathlogicError(f"--on: {directory}: no such file or directory")
    _, loaded = extract_directory(directory, facts_dir)
    for problem in loaded.problems:
        print(f"pathlogic: {problem.message}", file=sys.stderr)


def run(args) -> int:
    checked = load_program(args.program)
    with tempfile.TemporaryDirectory(prefix="pathlogic-facts-") as tmp:
        facts_dir = Path(args.facts) if args.facts else Path(tmp)
        if args.facts and not facts_dir.is_dir():
            raise DatalogError(f"facts directory {facts_dir} does not exist")
        if args.on:
            extract_into(args.on, facts_dir)
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
        if rel in result:
            blocks.append(relation_table(rel, columns[rel], result[rel], args.limit))
    for rel in checked.printsize:
        if rel in result:
            blocks.append(f"{rel}\t{len(result[rel])}")
    print("\n\n".join(blocks))
    return 0
