"""``pathlogic facts DIR --out OUT``: extract the facts only (Soufflé .facts, one per relation).

DIR is a directory or one ``.pir``, ``.ll`` or ``.c`` file. A file that cannot be read or whose
facts cannot be extracted is reported and left out (exit status 1), the rest written; OUT is
replaced all at once. ``--function NAME`` keeps the facts of the functions named NAME only."""
from __future__ import annotations

from pylogic.report.words import count_of

import sys

from pylogic.commands import positive_int
from pylogic.errors import printable_name
from pylogic.report.progress import Progress


def add_parser(sub) -> None:
    p = sub.add_parser("facts", help="extract facts from every program under DIR",
                       description="Write OUT/NAME.facts for every input relation of "
                       "datalog/schema.dl (tab-separated, no header).")
    p.add_argument("dir", help="directory (or single file) of .pir/.ll/.c programs")
    p.add_argument("--out", required=True, help="facts directory to write (replaced at the end)")
    p.add_argument("--jobs", type=positive_int, default=1, help="worker processes for reading")
    p.add_argument("--function", metavar="NAME",
                   help="only the facts of the functions named NAME (in any file)")
    p.add_argument("--vng", action="store_true",
                   help="also the Value Name Graph (vng_* relations; PathFinder ch. 3)")
    p.set_defaults(func=run)


def run(args) -> int:
    from pylogic.analysis.directory import facts_directory
    progress = Progress("facts")
    try:
        facts, loaded, failures = facts_directory(args.dir, args.out, jobs=args.jobs,
                                                  function=args.function, progress=progress,
                                                  vng=args.vng)
    finally:
        progress.close()
    for problem in loaded.problems:
        print(f"pathlogic: {problem.message}", file=sys.stderr)
    for relpath, message in sorted(failures.items()):
        print(f"pathlogic: {printable_name(relpath)}: {message}", file=sys.stderr)
    failed = [p.relpath for p in loaded.problems if p.skipped] + sorted(failures)
    print(f"{count_of(len(facts['function']), 'functions')} from "
          f"{count_of(len(loaded.programs) - len(failures), 'files')} "
          f"({len(failed)} failed) -> {args.out}")
    return 1 if failed else 0
