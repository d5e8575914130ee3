"""``pathlogic optimize FILE|DIR --passes P1,P2,...``: run registered passes in order (like
``opt -passes=``), print what each changed, optionally write the optimized programs and check
them against the originals on the interpreter.

Exit status without ``--validate``: 0, or 1 when a file could not be loaded or a pass failed.
With ``--validate`` the statuses of every validating command (``interp.differential``): 0 every
program identical, 1 a program behaves differently (whatever else happened), 2 could not be
checked (a run stopped on the same run-time error on both sides, ran out of fuel or another
limit, or a file could not be loaded or optimized, so it was not checked).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from pylogic.report.progress import Progress
from pylogic.analysis.output import check_output_path
from pylogic.commands import write_file, positive_int
from pylogic.engines import engine_choices
from pylogic.errors import PathlogicError
from pylogic.interp.differential import (DIFFERENT, EXIT_DIFFERENT, EXIT_HELP, EXIT_IDENTICAL,
                                         EXIT_NOT_CHECKED, IDENTICAL)
from pylogic.transforms.registry import known_names
from pylogic.commands.passes import add_list_option
from pylogic.commands.run import parse_int_list
from pylogic.interp.defaults import DEFAULT_FUEL


def add_parser(sub) -> None:
    p = sub.add_parser("optimize", help="run a pipeline of passes (like opt -passes=)",
                       description="Run the given passes in order on every .pir/.ll/.c input; "
                       f"known passes: {', '.join(sorted(known_names()))}. Exit 0, or 1 when a file "
                       "could not be loaded or a pass failed. With --validate (every program, "
                       "every case): " + EXIT_HELP + "; a file that could not be loaded or "
                       "optimized counts as not checked.")
    p.add_argument("target", help="a program or a directory of programs")
    p.add_argument("--jobs", type=positive_int, default=1,
                   help="worker processes: files are loaded, optimized and checked in parallel")
    p.add_argument("--passes", required=True, help="comma-separated pass names, run in order "
                   "(--list-passes: what each does)")
    add_list_option(p)
    p.add_argument("--out", help="write the optimized program (FILE.pir for one input, else a "
                   "directory receiving <relpath>.pir)")
    p.add_argument("--validate", action="store_true",
                   help="run original and optimized programs on the interpreter and compare")
    p.add_argument("--entry", default="main", help="entry function for --validate")
    p.add_argument("--fuel", type=positive_int, default=DEFAULT_FUEL,
                   help=f"with --validate: maximum executed instructions of each run (default "
                        f"{DEFAULT_FUEL}; a run that needs more is not compared)")
    p.add_argument("--function", metavar="NAME",
                   help="only the functions named NAME are optimized (main = @main)")
    p.add_argument("--args", default="", help="arguments of the entry function (1,2,...)")
    p.add_argument("--input", default="", help="values `input` reads (3,4,...)")
    p.add_argument("--engine", default="auto", choices=engine_choices())
    p.add_argument("--json", action="store_true", help="one JSON object instead of tables")
    p.add_argument("--html", metavar="DIR",
                   help="write an HTML view to DIR: each pass's code before and after, "
                        "removed/inserted/moved instructions marked, the CFGs of the functions "
                        "it changed before and after; with --validate the dynamic counts and, "
                        "per pass, a chart of the evaluations, loads and conditional branches "
                        "before and after it")
    p.set_defaults(func=run)


def check_out(target: str, out: str) -> None:
    """A one-line error, before any work, when ``--out`` cannot be written: ``FILE.pir`` for one
    input (its directory may be created), else a directory receiving ``<relpath>.pir``."""
    from pylogic.analysis.output import unwritable
    single = Path(target).is_file() and out.endswith(".pir")
    if single and Path(out).is_dir():
        raise PathlogicError(f"--out {out}: is a directory")
    # the directory the files are written in: checked where it exists, else where it is created
    where = Path(out).absolute().parent if single else Path(out).absolute()
    if where.is_dir():
        reason = unwritable(where)
        if reason:
            raise PathlogicError(f"--out {out}: cannot write in {where}: {reason}")
    else:
        check_output_path(where)


def write_outputs(items, target: str, out: str) -> None:
    from pylogic.ir.printer import print_module
    single = Path(target).is_file()
    for item in items:
        if item.result is None:
            continue
        path = Path(out) if single and out.endswith(".pir") else \
            Path(out) / Path(item.relpath).with_suffix(".pir")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_file(path, print_module(item.result.module))
        except OSError as exc:
            raise PathlogicError(f"--out {path}: cannot write: {exc.strerror}") from None


def run(args) -> int:
    from pylogic.analysis.optimize import optimize_files, parse_passes
    from pylogic.report.optimize import check_table, pass_table, to_json
    try:
        if args.out:
            check_out(args.target, args.out)
        if args.html:
            check_output_path(args.html)
        passes = parse_passes(args.passes)
        cases = None
        if args.validate:
            cases = [(parse_int_list(args.args, "--args"),
                      parse_int_list(args.input, "--input"))]
        progress = Progress("optimize")
        try:
            loaded, items = optimize_files(args.target, passes, engine=args.engine, cases=cases,
                                           entry=args.entry, function=args.function,
                                           progress=progress, jobs=args.jobs, fuel=args.fuel)
        finally:
            progress.close()
    except PathlogicError as exc:
        if args.validate:
            exc.exit_status = EXIT_NOT_CHECKED  # nothing was run: could not be checked
        raise
    if args.out:
        write_outputs(items, args.target, args.out)
    if args.html:
        from pylogic.analysis.optimize_view import report_data
        from pylogic.report.html_optimize import write_optimize_report
        data = [report_data(item, entry=args.entry, fuel=args.fuel) for item in items]
        stats = write_optimize_report(data, passes, args.html)
        print(f"html: {stats['pages']} pages -> {Path(args.html) / 'index.html'}", file=sys.stderr)
    for problem in loaded.problems:
        print(f"pathlogic: {problem.message}", file=sys.stderr)
    for item in items:
        if item.error is not None:
            print(f"pathlogic: {item.relpath}: {item.error}", file=sys.stderr)
    if args.json:
        print(json.dumps(to_json(loaded, items, passes), indent=1))
    else:
        print(pass_table(items))
        if cases is not None:
            print()
            print(check_table(items))
    for item in items:
        if item.check is not None and item.check.verdict == DIFFERENT:
            print(f"pathlogic: {item.relpath}: the optimized program behaves differently: "
                  f"{item.check.first_difference}", file=sys.stderr)
    failed = any(p.skipped for p in loaded.problems) or any(i.error for i in items)
    if cases is None:
        return 1 if failed else 0
    return validation_status(items, failed)


def validation_status(items, failed: bool) -> int:
    """Exit status of ``optimize --validate``: 1 when any program differs, else 2 when anything
    was not checked (``failed``: a file not loaded or a pass that raised; a program without a
    check; a check not compared), else 0."""
    verdicts = [item.check.verdict if item.check is not None else None for item in items]
    if DIFFERENT in verdicts:
        return EXIT_DIFFERENT
    if failed or not verdicts or any(v != IDENTICAL for v in verdicts):
        return EXIT_NOT_CHECKED
    return EXIT_IDENTICAL
