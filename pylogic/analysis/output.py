"""Output directories written all at once: a run writes into a temporary directory beside the
target and renames it into place at the end, so an interrupted or failed run leaves the previous
output untouched (issue #11: "never a mix").

Example
-------
>>> with output_directory("runs/examples") as tmp:            # doctest: +SKIP
...     (tmp / "summary.json").write_text("{}")
"""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from pylogic.errors import PathlogicError


def check_output_path(out) -> Path:
    """``out`` as a Path, or a one-line error when it cannot be an output directory (it is a
    file, or a parent is a file, or the parent cannot be created)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise PathlogicError(f"{out}: output path exists and is not a directory")
    for parent in out.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise PathlogicError(f"{out}: {parent} is not a directory")
            if not os.access(parent, os.W_OK):
                raise PathlogicError(f"{out}: cannot write in {parent}")
            break
    return out


@contextmanager
def output_directory(out) -> Iterator[Path]:
    """Yield a fresh temporary directory beside ``out``; on normal exit it replaces ``out``
    (the old contents are removed only then); on any exception or interrupt it is deleted and
    ``out`` is left as it was."""
    out = check_output_path(out)
    out.absolute().parent.mkdir(parents=True, exist_ok=True)
    tmp = out.absolute().parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if out.exists():
        old = out.absolute().parent / f".{out.name}.old-{os.getpid()}"
        os.replace(out, old)
    os.replace(tmp, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
