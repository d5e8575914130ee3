"""``pathlogic explain PROGRAM.dl 'relation(v1, ...)' (--facts DIR | --on DIR)``: why a row holds
(its derivation tree down to input facts, one rule instance per node with the rule's file:line)
or, when it does not hold, why not (per rule that could derive it, the first body literal no
instance satisfies). The shipped ``datalog/`` is on the include path, as for ``query``:
``explain dominance.dl ...`` works from any directory.

Values are bare (``idom(f.pir::main, entry, b1)``) or quoted (``"a, b"``). Exit status: 0 when
the row holds, 3 when it does not (the why-not answer is printed), 1 after an error.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from pylogic.commands.query import extract_into
from pylogic.engines import engine_choices
from pylogic.errors import DatalogError, PathlogicError
from pylogic.report.explain import derivation_text, why_not_text

#: Exit status when the row does not hold.
NOT_HOLDS = 3


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("explain", help="why a Datalog row holds (or does not)",
                              description=__doc__)
    p.add_argument("program", help="the .dl program")
    p.add_argument("row", help="relation(v1, v2, ...)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--facts", metavar="FACTSDIR", help="directory of NAME.facts files")
    src.add_argument("--on", metavar="DIR",
                     help="extract facts from the programs (.pir, .ll, .c) in DIR first")
    p.add_argument("--function", metavar="NAME",
                   help="with --on: only the facts of the functions named NAME")
    p.add_argument("--engine", default="clingo", choices=engine_choices(),
                   help="the engine whose rows are explained (default clingo, which returns "
                        "intermediate relations directly; souffle runs a copy of the program "
                        "with an .output for each)")
    p.add_argument("--missing-as-empty", action="store_true",
                   help="read a missing .input facts file as an empty relation")
    p.add_argument("--expand", action="store_true",
                   help="show every step inside a library rule set (datalog/lib/: the "
                        "dominator-tree walk's _dt_* and the dominance queries' _dq_* "
                        "relations) instead of one step naming the rule set")
    p.add_argument("--json", action="store_true", help="print the tree (or why-not) as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from pylogic.analysis.explain import explainer, user_level, why_not_user_level
    from pylogic.analysis.query import inputs_needed, load_query
    from pylogic.engines.explain import parse_row, show_atom
    from pylogic.engines.run import check_input_files
    if args.function and not args.on:
        raise PathlogicError("--function selects the functions of --on DIR")
    checked = load_query(path=args.program)
    rel, row = parse_row(args.row, checked)
    needed = inputs_needed(checked, [rel])       # only these facts must exist
    with tempfile.TemporaryDirectory(prefix="pathlogic-facts-") as tmp:
        left_out = False
        if args.facts:
            facts_dir = Path(args.facts)
            if not facts_dir.is_dir():
                raise DatalogError(f"facts directory {facts_dir} does not exist")
        else:
            facts_dir = Path(tmp) / "facts"
            left_out = extract_into(args.on, facts_dir, args.function, relations=needed)
        check_input_files(checked, facts_dir, missing_ok=args.missing_as_empty,
                          skip=set(checked.inputs) - needed)
        ex = explainer(checked, rel, facts_dir=facts_dir, engine=args.engine)
    atom = show_atom(rel, row)
    if ex.holds(rel, row):
        tree = user_level(ex.explain(rel, row), checked, expand=args.expand)
        if args.json:
            json.dump({"holds": True, "tree": tree}, sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            print(derivation_text(tree))
        return 1 if left_out else 0
    answers = why_not_user_level(ex.why_not(rel, row))
    if args.json:
        json.dump({"holds": False, "atom": atom, "rules": answers}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(why_not_text(atom, answers, rel in checked.inputs and not answers))
    return NOT_HOLDS
