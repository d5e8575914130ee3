"""``pathlogic query (PROGRAM.dl | -e TEXT) (--facts DIR | --on DIR)``: run an ad hoc
Soufflé-dialect program over a facts directory (or over facts extracted from the programs in a
directory) and print the program's own output relations as tables (``--all-outputs``: also
those of the files it includes; a program with no ``.output`` of its own shows every output).

The shipped analyses are on the include path (as Soufflé's ``-I``): ``#include "schema.dl"``
and ``#include "dominance.dl"`` work from any directory, as does ``query dominance.dl`` (a file
of that name in the current directory first). ``-e TEXT`` (repeatable, one line
each) is a program given on the command line, its includes found from the current directory.
``--csv`` prints one ``relation,value,...`` line per row (column names: ``--json``).

Every ``.input`` relation needs its facts file (``--missing-as-empty`` reads a missing one as
empty, as Soufflé does). With ``--on``, a program file that cannot be loaded or whose facts
cannot be extracted is reported (``file:line:col``) and left out; the query runs on the rest and
the exit status is 1. Exit status: 0, 1 after an error or a left-out file, 124 when
``--timeout`` stopped the engine, 2 for a usage error.
"""
from __future__ import annotations

import csv
import json
import sys
import tempfile
from pathlib import Path

from pylogic.analysis.output import check_output_path, output_directory
from pylogic.commands import nonnegative_int, only_function, positive_float
from pylogic.engines import engine_choices
from pylogic.engines.budget import TIMEOUT_STATUS, call_with_budget
from pylogic.errors import DatalogError, PathlogicError, SourceLoc, printable_name
from pylogic.report.table import relation_table


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("query", help="run a Datalog (Soufflé dialect) program over facts",
                              description=__doc__)
    p.add_argument("program", nargs="?", help="the .dl program (or -e TEXT)")
    p.add_argument("-e", dest="text", action="append", metavar="TEXT",
                   help="program text instead of a file (repeat for more lines)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--facts", metavar="FACTSDIR", help="directory of NAME.facts files")
    src.add_argument("--on", metavar="DIR",
                     help="extract facts from the programs (.pir, .ll, .c) in DIR first")
    p.add_argument("--function", metavar="NAME",
                   help="with --on: only the facts of the functions named NAME (in any file)")
    p.add_argument("--engine", default="auto", choices=engine_choices())
    p.add_argument("--compiled", action="store_true", help="souffle: compile and cache the program")
    p.add_argument("--out", metavar="RESULTDIR",
                   help="write NAME.csv per output relation (RESULTDIR is replaced at the end, "
                        "all at once)")
    p.add_argument("--missing-as-empty", action="store_true",
                   help="read a missing .input facts file as an empty relation (default: error)")
    p.add_argument("--timeout", type=positive_float, metavar="SECONDS",
                   help=f"stop the engine after SECONDS (exit status {TIMEOUT_STATUS})")
    p.add_argument("--limit", type=nonnegative_int, default=None, metavar="N",
                   help="print at most N rows per relation")
    p.add_argument("--all-outputs", action="store_true",
                   help="also print the output relations of included files")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print {relation: {columns, rows}} as JSON")
    fmt.add_argument("--csv", action="store_true",
                     help="print one CSV line per row: relation,value,...")
    p.set_defaults(func=run)


def extract_into(directory: str, facts_dir: Path, function: str | None = None,
                 relations=None) -> bool:
    """Write the facts of every program under ``directory`` to ``facts_dir`` (only the functions
    named ``function``, if given; only the fact families writing ``relations``, if given); print the inputs that were left out (or loaded with notes) to
    stderr. Returns whether a file was left out.

    Raises
    ------
    PathlogicError
        ``directory`` does not exist or holds no input; no function is named ``function``.
    """
    from facts_gen.extract import write_facts
    from pylogic.analysis.directory import facts_directory
    work = facts_dir.parent / f"{facts_dir.name}-all" if function else facts_dir
    facts, loaded, failures = facts_directory(directory, work, relations=relations)
    for problem in loaded.problems:
        print(f"pathlogic: {problem.message}", file=sys.stderr)
    for relpath, message in sorted(failures.items()):
        print(f"pathlogic: {printable_name(relpath)}: {message}", file=sys.stderr)
    if function:
        facts, found = only_function(facts, function)
        if not found:
            raise PathlogicError(f"--function: no function '{function}' in {directory}")
        write_facts(facts, facts_dir)
    return bool(failures) or any(p.skipped for p in loaded.problems)


def _missing_hint(error, args) -> str:
    """What to do about a missing facts file (``error.missing``, set by ``check_input_files``):
    a relation pathlogic extracts was left out by ``analyze`` (it writes the families its
    analyses read); any other may be read as empty."""
    relation = getattr(error, "missing", None)
    if args.missing_as_empty or relation is None:
        return ""
    from facts_gen.extract import RELATIONS
    if relation in RELATIONS:
        return (f" ({relation} is a fact pathlogic extracts, but not one `analyze` writes unless "
                "asked: analyze --all-facts, `pathlogic facts DIR OUT`, or query --on DIR)")
    return " (--missing-as-empty reads it as an empty relation)"


def evaluate(checked, facts_dir: Path, args) -> dict:
    """The engine call, under ``--timeout`` when given."""
    from pylogic.analysis.query import run_query, shown_outputs
    options = dict(compiled=args.compiled, extra=list(checked.printsize))
    if args.out is None:  # an engine may skip what the shown relations do not need
        options["only"] = shown_outputs(checked, args.all_outputs) + list(checked.printsize)
    if args.timeout is None:
        return run_query(checked, facts_dir, engine=args.engine, **options)
    return call_with_budget(run_query, (checked, facts_dir), dict(options, engine=args.engine),
                            seconds=args.timeout, what=f"query ({args.engine} engine)",
                            loc=SourceLoc(checked.main_file))


def run(args) -> int:
    from pylogic.analysis.query import inputs_needed, load_query, shown_outputs
    from pylogic.engines import write_outputs
    from pylogic.engines.run import check_input_files
    out = check_output_path(args.out) if args.out else None   # before any work
    if args.function and not args.on:
        raise PathlogicError("--function selects the functions of --on DIR (with --facts, "
                             "filter in the program)")
    if (args.program is None) == (args.text is None):
        raise PathlogicError("query: give a program file or -e TEXT (one of them)")
    checked = (load_query(path=args.program) if args.text is None
               else load_query(text="\n".join(args.text) + "\n"))
    # what the printed (or, with --out, written) relations read: only those facts must exist
    needed = inputs_needed(checked, (shown_outputs(checked, args.all_outputs) if args.out is None
                                     else list(checked.outputs)) + list(checked.printsize))
    with tempfile.TemporaryDirectory(prefix="pathlogic-facts-") as tmp:
        left_out = False
        if args.facts:
            facts_dir = Path(args.facts)
            if not facts_dir.is_dir():
                raise DatalogError(f"facts directory {facts_dir} does not exist"
                                   if not facts_dir.exists() else
                                   f"--facts {facts_dir}: not a directory")
        else:
            facts_dir = Path(tmp) / "facts"
            left_out = extract_into(args.on, facts_dir, args.function, relations=needed)
        try:
            check_input_files(checked, facts_dir, missing_ok=args.missing_as_empty,
                              skip=set(checked.inputs) - needed)
        except DatalogError as exc:
            raise DatalogError(exc.message + _missing_hint(exc, args), exc.loc) from None
        result = evaluate(checked, facts_dir, args)
    if out is not None:
        with output_directory(out) as tmp_out:   # all of RESULTDIR replaced at once, or not at all
            write_outputs(checked, result, tmp_out)
    status = 1 if left_out else 0
    if hasattr(sys.stdout, "reconfigure"):  # a string cut inside a UTF-8 character: its bytes
        sys.stdout.reconfigure(errors="surrogateescape")      # (functors.py), as Soufflé
    shown = [r for r in shown_outputs(checked, args.all_outputs) if r in result]
    columns = {r: [c[0] for c in checked.relations[r].columns] for r in result}
    if args.json:
        doc = {r: {"columns": columns[r],
                   "rows": [list(t) for t in (result[r] if args.limit is None
                                              else result[r][:args.limit])],
                   "count": len(result[r])}
               for r in shown + [r for r in checked.printsize if r in result]}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return status
    if args.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        for rel in shown:
            for row in (result[rel] if args.limit is None else result[rel][:args.limit]):
                writer.writerow((rel,) + tuple(row))
        return status
    blocks = []
    for rel in shown:
        if rel in result:
            blocks.append(relation_table(rel, columns[rel], result[rel], args.limit))
    for rel in checked.printsize:
        if rel in result:
            blocks.append(f"{rel}\t{len(result[rel])}")
    print("\n\n".join(blocks))
    return status
