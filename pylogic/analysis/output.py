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
import signal
import threading
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
    with deferred_interrupts():     # the swap and the clean-up are one step for a signal
        old = None
        if out.exists():
            old = out.absolute().parent / f".{out.name}.old-{os.getpid()}"
            os.replace(out, old)
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


@contextmanager
def deferred_interrupts(signals=(signal.SIGINT, signal.SIGTERM)) -> Iterator[None]:
    """Hold SIGINT/SIGTERM until the block is done, then act on the first one that came (the
    handler that was in place runs then). Outside the main thread (where handlers cannot be
    set) the block runs unprotected."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[tuple] = []
    previous = {s: signal.signal(s, lambda n, f: received.append((n, f))) for s in signals}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if received:
            number, frame = received[0]
            handler = previous[number]
            if callable(handler):
                handler(number, frame)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(number)
