"""``pathlogic predicates FILE``: the relation matrix of each function's predicate registers
(disjoint / implies / equivalent / covers / unknown) from the BDD (PAS), SAT and the PPG side by
side. References: pas.md §2.10, ppg.md §4.8; pylogic.predicates.relation_matrix."""
from __future__ import annotations

import json
from pathlib import Path

from pylogic.report.table import format_table


def add_parser(sub) -> None:
    p = sub.add_parser("predicates", help="relation matrix of predicates: BDD vs SAT vs PPG",
                       description="For every pair of predicate registers (each read at the end "
                       "of the block that defines it last, or at the end of --at BLOCK): "
                       "disjoint, implies, equivalent, covers (a or b always true), from the BDD, "
                       "the SAT encoding (--check sat) and the predicate partition graph.")
    p.add_argument("file", help="program (.pir, .ll or .c)")
    p.add_argument("--function", help="only this function (default: every defined function; "
                                      "main and @main are the same)")
    p.add_argument("--check", choices=["sat"], help="also answer with the SAT encoding")
    p.add_argument("--at", metavar="BLOCK", help="read every predicate at the end of BLOCK")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--mode", choices=["family", "basic"], default="family",
                   help="PAS condition analysis (default: family)")
    p.set_defaults(func=run)


def _load(path: str):
    from pylogic.errors import PathlogicError, SourceLoc
    from pylogic.ir.load import load_program
    if not Path(path).is_file():
        raise PathlogicError("no such file", SourceLoc(path))
    module, _ = load_program(path)
    return module


def run(args) -> int:
    from facts_gen.naming import same_function
    from pylogic.analysis.predicate_matrix import predicate_matrices
    from pylogic.errors import PathlogicError, SourceLoc
    from pylogic.predicates.ppg import check_function_name
    from pylogic.predicates.relation_matrix import describe

    module = _load(args.file)
    fns = module.defined_functions()
    if args.function:
        fns = [f for f in fns if same_function(f.name, args.function)][:1] \
            or [check_function_name(module, args.function)]   # (raises: no such function)
    if args.at is not None:
        for fn in fns:
            if args.at not in {b.label for b in fn.blocks}:
                raise PathlogicError(f"no block {args.at!r} in function {fn.name}",
                                     fn.loc or SourceLoc(args.file))
    result = predicate_matrices(module, Path(args.file).name, [fn.name for fn in fns],
                                at=args.at, check=args.check, mode=args.mode)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    for name, rows in result.items():
        print(f"function {name}: {len(rows)} pairs"
              + (f" at the end of {args.at}" if args.at else " (each at its last defining block)"))
        if not rows:
            continue
        head = ["a", "b", "BDD"] + (["SAT"] if args.check else []) + ["PPG"]
        table = []
        for r in rows:
            cells = [r["a"], r["b"], describe(r["bdd"])]
            if args.check:
                cells.append(describe(r["sat"]) + ("" if r["sat"] == r["bdd"] else " (DISAGREES)"))
            cells.append(describe(r["ppg"]))
            table.append(cells)
        print(format_table(head, table, right_align_numbers=False, rule=False, indent="  "))
        facts = [(k, r) for r in rows for k in ("disjoint", "a_implies_b", "b_implies_a", "covers")
                 if r["bdd"][k]]
        by_ppg = sum(1 for k, r in facts if r["ppg"] is not None and r["ppg"][k])
        modelled = sum(1 for r in rows if r["ppg"] is not None)
        print(f"  PPG proves {by_ppg} of the {len(facts)} relations the BDD proves "
              f"({modelled}/{len(rows)} pairs modelled)")
    return 0
