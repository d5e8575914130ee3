"""Where the documentation pathlogic points its users to lives: ``docs/`` beside ``datalog/`` in a
source checkout, ``pylogic/docs`` beside ``pylogic/datalog`` in an installed wheel (setup.py ships
both), so every message naming a page names a file that exists."""
from __future__ import annotations

from pathlib import Path

from pylogic.analysis.catalog import datalog_dir


def doc_path(name: str) -> str:
    """The page ``docs/NAME`` as a user can open it: relative to the current directory when it is
    below it (``docs/relations.md`` at the root of a checkout), else absolute (a wheel's copy).

    Example: ``doc_path("relations.md")`` -> ``'docs/relations.md'`` at a checkout's root.
    """
    page = datalog_dir().parent / "docs" / name
    try:
        return str(page.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(page)
