"""Soufflé's own ``tests/evaluation`` suite on our engines (issue #16): each positive test's
program runs with its ``facts`` directory (as Soufflé's CMake harness does: ``-F facts -D .``),
and every ``.csv`` it writes and every ``.printsize`` line is compared with the test's expected
files, sorted (as Soufflé's ``check_test_results.py`` / ``check_std_outputs.py`` compare them).

Verdicts: ``identical`` (accepted, exactly Soufflé's rows), ``refused`` (a located DatalogError
naming what is outside the supported dialect), ``wrong`` (accepted, different rows: a silent wrong
answer), ``error`` (accepted, then failed: a bug), ``timeout``, ``unchecked`` (the engine cannot
observe a ``.printsize`` relation: the souffle engine returns ``.output`` relations only).

The test sources are not part of pathlogic (Soufflé's licence; 150 directories). Get them with::

    git clone --depth 1 --branch 2.5 https://github.com/souffle-lang/souffle /tmp/souffle
    export PATHLOGIC_SOUFFLE_TESTS=/tmp/souffle/tests/evaluation

Usage: python -m benchmarks.souffle_evaluation [DIR] [--engine clingo] [--timeout 60]
       [--only NAME,...] [--out runs/souffle-evaluation.json]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from pylogic.engines.budget import BudgetExceeded, call_with_budget  # noqa: E402
from pylogic.engines.program import load_program  # noqa: E402
from pylogic.engines.run import check_input_files, run_checked, write_outputs  # noqa: E402
from pylogic.errors import DatalogError, PathlogicError  # noqa: E402

ENV = "PATHLOGIC_SOUFFLE_TESTS"
_POSITIVE = re.compile(r"^\s*positive_test\((\S+?)[\s)]", re.M)


def suite_dir(path: str | Path | None = None) -> Path | None:
    """The ``tests/evaluation`` directory (``path``, else ``$PATHLOGIC_SOUFFLE_TESTS``; a
    Soufflé checkout's root is accepted too), or None when absent."""
    raw = path or os.environ.get(ENV)
    if not raw:
        return None
    root = Path(raw)
    for cand in (root, root / "tests" / "evaluation", root / "evaluation"):
        if (cand / "CMakeLists.txt").is_file() and (cand / "access1").is_dir():
            return cand
    return None


def positive_tests(root: Path) -> list[str]:
    """The names of the positive tests the suite's CMakeLists.txt enables (commented-out ones,
    such as ``# TODO ... positive_test(math)``, excluded)."""
    text = (root / "CMakeLists.txt").read_text()
    return [m.group(1) for m in _POSITIVE.finditer(text)]


def _sorted_lines(text: str) -> list[str]:
    return sorted(text.splitlines())


def expected_outputs(test: Path) -> tuple[dict[str, list[str]], list[str]]:
    """The expected ``.csv`` files (name -> sorted lines) and ``.printsize`` lines (sorted)."""
    csvs = {p.name: _sorted_lines(p.read_text(errors="replace")) for p in test.glob("*.csv")}
    out = test / f"{test.name}.out"
    return csvs, _sorted_lines(out.read_text(errors="replace")) if out.is_file() else []


def _evaluate(program: Path, facts: Path, engine: str, out_dir: str) -> dict:
    """In a child process: load, check the input files, run, write the outputs. Returns the
    printsize lines; raises DatalogError (refusal) or anything else (a failure)."""
    checked = load_program(program)
    check_input_files(checked, facts)
    result = run_checked(checked, facts, engine, extra=list(checked.printsize))
    write_outputs(checked, result, out_dir)
    return {"printsize": [f"{r}\t{len(result[r])}" for r in checked.printsize if r in result],
            "unobserved": [r for r in checked.printsize if r not in result]}


def _is_refusal(exc: DatalogError) -> bool:
    """A refusal of the program itself (located in a .dl), not a failure while running it."""
    text = exc.message
    return not text.startswith(("clingo rejected", "clingo found no answer", "program has several"))


def run_test(root: Path, name: str, engine: str = "clingo", seconds: float = 60) -> dict:
    """One positive test: ``{"test", "verdict", "reason", "seconds"}``."""
    test = root / name
    program = test / f"{name}.dl"
    start = time.perf_counter()
    verdict, reason = "identical", ""
    with tempfile.TemporaryDirectory(prefix="souffle-eval-") as out_dir:
        try:
            got = call_with_budget(_evaluate, (program, test / "facts", engine, out_dir),
                                   seconds=seconds, what=f"{name} ({engine})")
        except BudgetExceeded:
            verdict, reason = "timeout", f"over {seconds:g} s"
        except DatalogError as exc:
            verdict = "refused" if _is_refusal(exc) else "error"
            reason = str(exc).replace(str(root) + "/", "")
        except PathlogicError as exc:
            verdict, reason = "error", str(exc)
        else:
            want_csv, want_size = expected_outputs(test)
            if got["unobserved"]:       # the souffle engine returns .output relations only
                want_size = [line for line in want_size
                             if line.split("\t")[0] not in got["unobserved"]]
            have_csv = {p.name: _sorted_lines(p.read_text()) for p in Path(out_dir).glob("*.csv")}
            have_size = sorted(got["printsize"])
            if set(want_csv) != set(have_csv):
                verdict = "wrong"
                reason = (f"output files: expected {sorted(want_csv)}, written "
                          f"{sorted(have_csv)}")
            else:
                for fname in sorted(want_csv):
                    if want_csv[fname] != have_csv[fname]:
                        verdict = "wrong"
                        extra = sorted(set(have_csv[fname]) - set(want_csv[fname]))[:3]
                        missing = sorted(set(want_csv[fname]) - set(have_csv[fname]))[:3]
                        reason = (f"{fname}: {len(have_csv[fname])} rows, expected "
                                  f"{len(want_csv[fname])}; extra {extra}, missing {missing}")
                        break
                else:
                    if have_size != want_size:
                        verdict = "wrong"
                        reason = f"printsize {have_size}, expected {want_size}"
                    elif got["unobserved"]:
                        verdict = "unchecked"
                        reason = (f".printsize of {', '.join(got['unobserved'])} not observable "
                                  f"on the {engine} engine (every .csv compared)")
    return {"test": name, "verdict": verdict, "reason": reason,
            "seconds": round(time.perf_counter() - start, 3)}


def run_suite(root: Path, engine: str = "clingo", seconds: float = 60,
              only: list[str] | None = None, progress=None) -> dict:
    names = positive_tests(root)
    if only:
        names = [n for n in names if n in only]
    results = []
    for name in names:
        results.append(run_test(root, name, engine, seconds))
        if progress:
            progress(results[-1])
    counts = Counter(r["verdict"] for r in results)
    return {"engine": engine, "tests": len(results), "counts": dict(sorted(counts.items())),
            "identical_percent": round(100 * counts["identical"] / max(1, len(results)), 1),
            "results": results}


def refusal_reasons(results: list[dict]) -> Counter:
    """Refusals grouped by the construct named ("unsupported construct: X" -> X)."""
    out: Counter = Counter()
    for r in results:
        if r["verdict"] == "refused":
            m = re.search(r"unsupported construct: (.*?)(?: \(outside|$)", r["reason"])
            out[m.group(1) if m else r["reason"].split("error: ", 1)[-1]] += 1
    return out


def main(argv=None) -> int:
    from benchmarks.common import command_line, write_run

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir", nargs="?", help=f"tests/evaluation (default: ${ENV})")
    p.add_argument("--engine", default="clingo")
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--only", help="comma-separated test names")
    p.add_argument("--out", default="souffle-evaluation.json", help="file name under runs/")
    args = p.parse_args(argv)
    root = suite_dir(args.dir)
    if root is None:
        print(f"no Soufflé tests/evaluation found (give DIR or set ${ENV})", file=sys.stderr)
        return 2

    def show(r):
        print(f"{r['verdict']:9} {r['seconds']:7.2f}s {r['test']:28} {r['reason'][:150]}",
              flush=True)

    t0 = time.perf_counter()
    summary = run_suite(root, args.engine, args.timeout,
                        args.only.split(",") if args.only else None, show)
    summary["wall_seconds"] = round(time.perf_counter() - t0, 1)
    summary["refusals_by_construct"] = dict(refusal_reasons(summary["results"]).most_common())
    summary["command"] = command_line("benchmarks.souffle_evaluation", argv)
    summary["souffle_tests"] = "souffle-lang/souffle tag 2.5, tests/evaluation"
    summary["note"] = ("timings taken on a 2-core machine shared with other jobs; verdicts "
                       "compare sorted lines of every .csv and the .printsize lines")
    if not args.only:
        path = write_run(args.out, summary)
        print(f"wrote {path}")
    print(summary["counts"], f"{summary['identical_percent']}% identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
