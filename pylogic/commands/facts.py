"""``pathlogic facts DIR --out OUT``: extract the facts only (Soufflé .facts, one per relation)."""
from __future__ import annotations

import sys
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("facts", help="extract facts from every program under DIR",
                       description="Write OUT/NAME.facts for every input relation of "
                       "datalog/schema.dl (tab-separated, no header).")
    p.add_argument("dir", help="directory (or single file) of .pir/.ll/.c programs")
    p.add_argument("--out", required=True, help="facts directory to write")
    p.set_defaults(func=run)


def run(args) -> int:
    from facts_gen.extract import extract_directory
    facts, loaded = extract_directory(Path(args.dir), Path(args.out))
    for problem in loaded.problems:
        print(f"pathlogic: {problem.message}", file=sys.stderr)
    failed = [p for p in loaded.problems if p.skipped]
    print(f"{len(facts['function'])} functions from {len(loaded.programs)} files "
          f"({len(failed)} failed) -> {args.out}")
    return 1 if failed else 0
