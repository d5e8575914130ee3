"""``pathlogic report RUN_DIR [--out HTML_DIR]``: the static HTML report of an ``analyze`` output
directory (default ``RUN_DIR/html``): an index of files and functions with their statistics and
failures; per function its CFG, dominator and post-dominator trees (SVG, graphviz ``dot``),
loops, control dependences, the BDD / SAT / PPG relation matrix, and each row's derivation.
``analyze --html`` writes the same report at the end of a run. The pages work offline. It only
renders what the run wrote (matrices and derivations in RUN_DIR/report): no program is loaded,
no engine run.
"""
from __future__ import annotations

import sys
from pathlib import Path

from pylogic.analysis.output import check_output_path


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("report", help="HTML report of an analyze output directory",
                              description=__doc__)
    p.add_argument("run_dir", metavar="RUN_DIR", help="an analyze output directory")
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


def run(args) -> int:
    build(args.run_dir, args.out, explain=not args.no_explain)
    return 0
