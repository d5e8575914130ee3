"""Plain aligned text tables for the terminal: the one table formatter of pathlogic.

``format_table`` lays out a whole table (each column as wide as its widest cell);
``relation_table`` adds a title with the row count and a row limit (``pathlogic query``);
``StreamTable`` prints a table row by row with widths fixed up front (benchmarks that report as
they go).

Example
-------
>>> print(format_table(["function", "blocks"], [["main", 12], ["f", 3]]))
function  blocks
--------  ------
main          12
f              3
"""
from __future__ import annotations

from typing import Optional, Sequence


def format_table(headers: Sequence, rows: Sequence[Sequence], right_align_numbers: bool = True,
                 *, rule: bool = True, indent: str = "", align: Optional[str] = None,
                 sep: str = "  ") -> str:
    """An aligned text table: the header, a rule of dashes, the rows.

    Parameters
    ----------
    headers: column names; rows: the cells (any values, shown with ``str``).
    right_align_numbers: right-align the cells (not the header) of columns whose cells are all
        numbers; the others are left-aligned.
    rule: put a line of dashes under the header.
    indent: text before every line.
    align: one letter per column, ``l`` or ``r``, instead of ``right_align_numbers``.
    sep: text between columns.

    Returns: the lines joined by newlines, trailing blanks removed.
    """
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    n = len(headers)
    widths = [max(len(r[k]) for r in cells) for k in range(n)]
    if align is None:
        right = [right_align_numbers and len(cells) > 1 and all(_is_number(r[k]) for r in cells[1:])
                 for k in range(n)]
    else:
        right = [a == "r" for a in align]
    lines = [indent + _line(cells[0], widths, [False] * n, sep)]
    if rule:
        lines.append(indent + sep.join("-" * w for w in widths))
    lines += [indent + _line(r, widths, right, sep) for r in cells[1:]]
    return "\n".join(lines)


def relation_table(name: str, columns: Sequence[str], rows: Sequence[Sequence],
                   limit: Optional[int] = None) -> str:
    """A relation as a table: ``name (N rows)``, then ``format_table`` of the first ``limit``
    rows, left-aligned, and ``... K more`` when rows were left out. A relation without columns
    shows ``()`` when it holds its one empty tuple."""
    shown = rows if limit is None else rows[:limit]
    lines = [f"{name} ({len(rows)} row{'s' if len(rows) != 1 else ''})"]
    if columns:
        lines.append(format_table(columns, shown, right_align_numbers=False))
    elif rows:
        lines.append("()")
    if limit is not None and len(rows) > limit:
        lines.append(f"... {len(rows) - limit} more")
    return "\n".join(lines)


class StreamTable:
    """A table printed one row at a time, for reports that come while work goes on.

    Parameters: ``headers``; ``widths``: the least width of each column (default: the header's);
    ``align``: one letter per column, ``l`` or ``r`` (default all ``l``); ``sep``: text between
    columns. Cells wider than their column push the rest of their row to the right.

    Example: ``t = StreamTable(["n", "seconds"], [6, 8], "rr"); print(t.header());
    print(t.row([100, 0.25]))``.
    """

    def __init__(self, headers: Sequence, widths: Optional[Sequence[int]] = None,
                 align: Optional[str] = None, sep: str = "  "):
        self.headers = [str(h) for h in headers]
        least = widths or [0] * len(self.headers)
        self.widths = [max(len(h), w) for h, w in zip(self.headers, least)]
        self.right = [a == "r" for a in (align or "l" * len(self.headers))]
        self.sep = sep

    def header(self) -> str:
        """The header line, aligned like the cells below it."""
        return _line(self.headers, self.widths, self.right, self.sep)

    def row(self, cells: Sequence) -> str:
        """One row's line."""
        return _line([str(c) for c in cells], self.widths, self.right, self.sep)


def _line(cells: list, widths: list, right: list, sep: str) -> str:
    return sep.join(c.rjust(w) if r else c.ljust(w)
                    for c, w, r in zip(cells, widths, right)).rstrip()


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
