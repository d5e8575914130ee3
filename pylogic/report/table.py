"""Plain aligned text tables for the terminal."""
from __future__ import annotations


def format_table(headers: list[str], rows: list[list], right_align_numbers: bool = True) -> str:
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[k]) for r in cells) for k in range(len(headers))]
    numeric = [all(_is_number(r[k]) for r in cells[1:]) and len(cells) > 1 for k in range(len(headers))]
    lines = []
    for n, r in enumerate(cells):
        parts = []
        for k, c in enumerate(r):
            parts.append(c.rjust(widths[k]) if numeric[k] and right_align_numbers and n else c.ljust(widths[k]))
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
