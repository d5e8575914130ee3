"""``pathlogic report RUN_DIR [--out HTML_DIR]``: the static HTML report of an ``analyze`` output
directory (default ``RUN_DIR/html``): an index of files and functions with their statistics and
failures; per function its CFG, dominator and post-dominator trees (SVG, graphviz ``dot``),
loops, control dependences, the BDD / SAT / PPG relation matrix, and each row's derivation.
``analyze --html`` writes the same report at the end of a run. The pages work offline. It only
renders what the run wrote (matrices and derivations in RUN_DIR/report): no program is loaded,
no engine run. A directory ``run --reuse H --estimate --html DIR`` wrote (its ``run.json``)
is drawn again the same way: its page to HTML_DIR (default: the directory itself).
"""
from __future__ import annotations

import sys
from pathlib import Path

from pylogic.analysis.output import check_output_path


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("report", help="HTML report of an analyze output directory",
                              description=__doc__)
    p.add_argument("run_dir", metavar="RUN_DIR", nargs="?",
                   help="an analyze output directory, or a directory run --html wrote")
    p.add_argument("--limit", metavar="FILE.json",
                   help="instead of RUN_DIR: draw a benchmarks/limit.py run (runs/limit-*.json): "
                        "per program the reuse level against h, PRE-completeness; needs --out")
    p.add_argument("--estimators", metavar="FILE.json",
                   help="with or instead of --limit: a benchmarks/estimators.py run "
                        "(runs/estimators.json): per program the bounds against the exact reuse")
    p.add_argument("--sensitivity", metavar="FILE.json",
                   help="with or instead of --limit: a benchmarks/sensitivity.py run "
                        "(runs/sensitivity-*.json): per program its figures at two inputs")
    p.add_argument("--out", metavar="HTML_DIR", help="where to write (default RUN_DIR/html)")
    p.add_argument("--no-explain", action="store_true",
                   help="leave out the derivation pages (each row shows its pathlogic explain "
                   "command instead)")
    p.set_defaults(func=run)


def build(run_dir: str | Path, out: str | Path | None = None, explain: bool = True) -> Path:
    """Write the report of ``run_dir``; print where and what on stderr; return its index."""
    from pylogic.analysis.report_data import read_run
    from pylogic.report.html import write_report
    dest = check_output_path(out or Path(run_dir) / "html")
    stats = write_report(read_run(run_dir, explain=explain), dest)
    notes = f"; no pictures: {stats['graph_errors'][0]}" if stats["graph_errors"] else ""
    print(f"report: {stats['pages']} pages, {stats['svgs']} SVGs, {stats['explanations']} "
          f"explained rows -> {dest / 'index.html'}{notes}", file=sys.stderr)
    return dest / "index.html"


def build_run_page(run_dir: Path, out: str | Path | None) -> Path:
    """Draw ``run_dir/run.json`` (``run --html``) again to ``out`` (default ``run_dir``)."""
    import json
    from pylogic.errors import PathlogicError
    from pylogic.report.html_run import DATA, write_run_report
    try:
        data = json.loads((run_dir / DATA).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PathlogicError(f"{run_dir / DATA}: cannot read: {exc}") from None
    dest = check_output_path(out or run_dir)
    try:
        stats = write_run_report(data, dest)
    except (KeyError, TypeError, AttributeError) as exc:
        raise PathlogicError(f"{run_dir / DATA}: not what run --html writes "
                             f"({type(exc).__name__}: {exc})") from None
    print(f"report: {stats['pages']} page, {stats['charts']} charts -> {dest / 'index.html'}",
          file=sys.stderr)
    return dest / "index.html"


def build_limit_pages(limit: str | None, estimators: str | None, out: str,
                      sensitivity: str | None = None) -> Path:
    """Draw the corpus runs of the evaluation chapters (``report.html_limit``) to ``out``."""
    import json
    from pylogic.errors import PathlogicError
    from pylogic.report.html_limit import write_limit_report

    def read(path):
        if path is None:
            return None
        try:
            return json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise PathlogicError(f"{path}: cannot read: {exc}") from None
    docs = read(limit), read(estimators), read(sensitivity)
    for path, doc, keys, writer in ((limit, docs[0], ("programs", "totals", "pipeline"),
                                     "benchmarks/limit.py"),
                                    (estimators, docs[1], ("programs", "summary"),
                                     "benchmarks/estimators.py"),
                                    (sensitivity, docs[2], ("programs", "totals", "settings"),
                                     "benchmarks/sensitivity.py")):
        if doc is not None and not (isinstance(doc, dict) and all(k in doc for k in keys)):
            raise PathlogicError(f"{path}: not what {writer} writes (no "
                                 f"{', '.join(keys)})")
    dest = check_output_path(out)
    try:
        stats = write_limit_report(docs[0], docs[1], dest, sensitivity=docs[2])
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        given = ", ".join(p for p in (limit, estimators, sensitivity) if p)
        raise PathlogicError(f"{given}: not a benchmarks/limit.py, estimators.py or "
                             f"sensitivity.py run ({type(exc).__name__}: {exc})") from None
    print(f"report: {stats['pages']} pages, {stats['charts']} charts -> {dest / 'index.html'}",
          file=sys.stderr)
    return dest / "index.html"


def run(args) -> int:
    from pylogic.errors import PathlogicError
    from pylogic.report.html_run import DATA
    if args.limit or args.estimators or args.sensitivity:
        if args.run_dir or not args.out:
            raise PathlogicError("--limit/--estimators/--sensitivity draw benchmark runs: give "
                                 "--out HTML_DIR and no RUN_DIR")
        build_limit_pages(args.limit, args.estimators, args.out, args.sensitivity)
        return 0
    if not args.run_dir:
        raise PathlogicError("give RUN_DIR (an analyze output directory), or "
                             "--limit/--estimators/--sensitivity")
    if (Path(args.run_dir) / DATA).is_file() and not (Path(args.run_dir) / "summary.json").is_file():
        build_run_page(Path(args.run_dir), args.out)
        return 0
    build(args.run_dir, args.out, explain=not args.no_explain)
    return 0
