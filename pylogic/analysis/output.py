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
    file, or a parent is a file, or the nearest existing parent cannot be written in: tried by
    creating and removing a directory there, since permission bits do not say it for root, a
    read-only mount or /sys)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise PathlogicError(f"{out}: output path exists and is not a directory")
    for parent in out.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise PathlogicError(f"{out}: {parent} is not a directory")
            reason = unwritable(parent)
            if reason:
                raise PathlogicError(f"{out}: cannot write in {parent}: {reason}")
            break
    return out


def unwritable(directory: Path) -> str | None:
    """Why nothing can be created in the existing ``directory`` (the OS's reason), or None:
    a probe entry is created there and removed at once."""
    probe = Path(directory) / f".pathlogic-probe-{os.getpid()}-{threading.get_ident()}"
    try:
        probe.mkdir()
    except FileExistsError:
        pass
    except OSError as exc:
        return exc.strerror or str(exc)
    try:
        probe.rmdir()
    except OSError:
        pass
    return None


def os_error_message(exc: OSError) -> str:
    """``PATH: reason`` for an OSError about a path (the one line ``pathlogic`` prints)."""
    where = str(exc.filename) if exc.filename is not None else ""
    reason = exc.strerror or str(exc)
    return f"{where}: {reason}" if where != "" else reason


@contextmanager
def output_directory(out) -> Iterator[Path]:
    """Yield a fresh temporary directory beside ``out``; on normal exit it replaces ``out``
    (the old contents are removed only then); on any exception or interrupt it is deleted and
    ``out`` is left as it was."""
    out = check_output_path(out)
    tmp = out.absolute().parent / f".{out.name}.partial-{os.getpid()}"
    try:   # checked before the work; this still fails if the directory changed meanwhile
        out.absolute().parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
    except OSError as exc:
        raise PathlogicError(f"{out}: cannot write: {exc.strerror or exc}") from None
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
