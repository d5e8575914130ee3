"""``pathlogic compare-engines DIR``: run every shipped analysis on clingo and on Soufflé over the
same facts and report every row that differs."""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from pylogic.pipeline import DATALOG_DIR

#: Files that only declare or only aggregate other analyses are not run on their own.
NOT_ANALYSES = ("schema.dl", "dominator_tree.dl")


def shipped_analyses() -> list[Path]:
    return sorted(p for p in DATALOG_DIR.glob("*.dl") if p.name not in NOT_ANALYSES)


def add_parser(sub) -> None:
    p = sub.add_parser("compare-engines", help="run every shipped analysis on both engines and diff",
                       description="Exit 0 only when clingo and Soufflé agree on every row of "
                       "every output relation (or, with a message, when souffle is absent).")
    p.add_argument("dir", help="directory (or single file) of programs")
    p.add_argument("--max-diffs", type=int, default=10, help="differing rows shown per relation")
    p.set_defaults(func=run)


def diff_rows(a: dict, b: dict) -> dict[str, tuple[list, list]]:
    """Per relation: (rows only in a, rows only in b), for relations that differ."""
    out = {}
    for rel in sorted(set(a) | set(b)):
        sa, sb = set(a.get(rel, ())), set(b.get(rel, ()))
        if sa != sb:
            out[rel] = (sorted(sa - sb), sorted(sb - sa))
    return out


def run(args) -> int:
    from facts_gen.directory import extract_directory
    from pylogic.engines import load_program, run_checked

    if shutil.which("souffle") is None:
        print("compare-engines: the souffle binary is not on PATH; nothing to compare "
              "(Soufflé is in no package registry this machine reaches). Only clingo is available.")
        return 0
    with tempfile.TemporaryDirectory(prefix="pathlogic-facts-") as tmp:
        facts_dir = Path(tmp)
        _, loaded = extract_directory(Path(args.dir), facts_dir)
        for problem in loaded.problems:
            print(f"pathlogic: {problem.message}", file=sys.stderr)
        differing = 0
        for path in shipped_analyses():
            program = load_program(path)
            a = run_checked(program, facts_dir, "clingo")
            b = run_checked(program, facts_dir, "souffle")
            diffs = diff_rows(a, b)
            total = sum(len(v) for v in a.values())
            if not diffs:
                print(f"{path.name}: identical ({len(a)} relations, {total} rows)")
                continue
            for rel, (only_a, only_b) in diffs.items():
                differing += len(only_a) + len(only_b)
                print(f"{path.name}: {rel}: {len(only_a)} rows only in clingo, "
                      f"{len(only_b)} only in souffle")
                for row in only_a[:args.max_diffs]:
                    print(f"  clingo  {row}")
                for row in only_b[:args.max_diffs]:
                    print(f"  souffle {row}")
    print("engines agree" if not differing else f"{differing} differing rows")
    return 0 if not differing and not any(p.skipped for p in loaded.problems) else 1
