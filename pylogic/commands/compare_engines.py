"""``pathlogic compare-engines DIR``: run every catalogued analysis on every available engine over
the same facts, and report every row on which two engines differ."""
from __future__ import annotations

import sys
import tempfile
from itertools import combinations
from pathlib import Path
from typing import Callable, Iterable

from pylogic.commands import nonnegative_int
from pylogic.analysis import catalog
from pylogic.engines import available_engines, engine, engine_names
from pylogic.errors import printable_name


def add_parser(sub) -> None:
    p = sub.add_parser("compare-engines",
                       help="run every shipped analysis on every available engine and diff",
                       description="Every shipped analysis on every available engine (clingo, "
                       "duckdb, and souffle when its binary is on PATH); the first line names "
                       "the engines compared and those not available here, with the reason. "
                       "Exit 0 only when every input file was read and every "
                       "pair of available engines agrees on every row of every output relation "
                       "(or, with a message, when fewer than two engines are available); 1 "
                       "when a file was left out (reported with file:line) or engines differ.")
    p.add_argument("dir", help="directory (or single file) of programs")
    p.add_argument("--max-diffs", type=nonnegative_int, default=10, help="differing rows shown per relation")
    p.add_argument("--function", metavar="NAME",
                   help="only the functions named NAME (in any file; main = @main)")
    p.set_defaults(func=run)


def diff_rows(a: dict, b: dict) -> dict[str, tuple[list, list]]:
    """Per relation: (rows only in a, rows only in b), for relations that differ."""
    out = {}
    for rel in sorted(set(a) | set(b)):
        sa, sb = set(a.get(rel, ())), set(b.get(rel, ()))
        if sa != sb:
            out[rel] = (sorted(sa - sb), sorted(sb - sa))
    return out


def engine_pairs(names: Iterable[str] | None = None) -> list[tuple[str, str]]:
    """Every unordered pair of ``names`` (default: the engines available here), in preference
    order."""
    return list(combinations(available_engines() if names is None else names, 2))


def compare(facts_dir: Path, pairs: list[tuple[str, str]],
            analyses: Iterable[catalog.Analysis] = catalog.CATALOG, max_diffs: int = 10,
            say: Callable[[str], None] = print) -> int:
    """Run each analysis once per engine of ``pairs`` over ``facts_dir`` and diff each pair.

    Parameters
    ----------
    facts_dir : Path
        The extracted facts.
    pairs : list of (str, str)
        Engine names to compare.
    analyses : iterable of catalog.Analysis
    max_diffs : int
        Differing rows shown per relation and side.
    say : callable
        Receives each report line.

    Returns
    -------
    int
        The number of differing rows, over all analyses and pairs.
    """
    from pylogic.engines import run_checked
    names = list(dict.fromkeys(n for pair in pairs for n in pair))
    differing = 0
    for analysis in analyses:
        program = analysis.program()
        rows = {name: run_checked(program, facts_dir, name) for name in names}
        for a, b in pairs:
            diffs = diff_rows(rows[a], rows[b])
            if not diffs:
                total = sum(len(v) for v in rows[a].values())
                say(f"{analysis.name}: {a} and {b} identical "
                    f"({len(rows[a])} relations, {total} rows)")
                continue
            for rel, (only_a, only_b) in diffs.items():
                differing += len(only_a) + len(only_b)
                say(f"{analysis.name}: {rel}: {len(only_a)} rows only in {a}, "
                    f"{len(only_b)} only in {b}")
                width = max(len(a), len(b))
                for side, only in ((a, only_a), (b, only_b)):
                    for row in only[:max_diffs]:
                        say(f"  {side:<{width}} {row}")
    return differing


def run(args) -> int:
    """Extract the facts (each file on its own: a bad one is reported and left out), then
    compare; exit 1 when a file was left out or two engines differ, even when fewer than two
    engines are available (nothing compared, the inputs still checked)."""
    from pylogic.analysis.directory import facts_directory
    with tempfile.TemporaryDirectory(prefix="pathlogic-facts-") as tmp:
        facts_dir = Path(tmp) / "facts"
        _, loaded, failures = facts_directory(args.dir, facts_dir,  # missing / empty DIR: error
                                              function=args.function, vng=True)
        for problem in loaded.problems:
            print(f"pathlogic: {problem.message}", file=sys.stderr)
        for relpath, message in sorted(failures.items()):
            print(f"pathlogic: {printable_name(relpath)}: {message}", file=sys.stderr)
        left_out = bool(failures) or any(p.skipped for p in loaded.problems)
        pairs = engine_pairs()
        usable = available_engines()
        missing = [f"{name} ({engine(name).unavailable_reason()})"
                   for name in engine_names() if name not in usable]
        absent = f"; not available here: {'; '.join(missing)}" if missing else ""
        if not pairs:
            print(f"compare-engines: only {', '.join(usable) or 'no engine'} available here, "
                  f"nothing to compare{absent}.")
            return 1 if left_out else 0
        print(f"compare-engines: comparing {', '.join(usable)}{absent}")
        differing = compare(facts_dir, pairs, max_diffs=args.max_diffs)
    compared = " and ".join(usable) if len(usable) == 2 else ", ".join(usable)
    print((f"engines agree: {compared}" if not differing else f"{differing} differing rows")
          + (f" ({', '.join(n for n in engine_names() if n not in usable)} not compared)"
             if missing else ""))
    return 0 if not differing and not left_out else 1
