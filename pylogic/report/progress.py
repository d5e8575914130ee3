"""Progress of a long command on stderr, stage by stage (issue #17 item 4).

On a terminal, a live bar per stage (``rich``), shown once a stage has run for ``delay``
seconds; when stderr is piped or redirected, one line per finished stage instead
(``[analyze] analyses: 1,260 functions, 4 engine calls, 11.21 s``), so a log shows where a long
run spent its time. The lines never start with ``pathlogic:`` (those are errors).

Example
-------
>>> progress = Progress("analyze")                                   # doctest: +SKIP
>>> progress.stage("load", total=45, unit="files")
>>> progress(10, 45)
>>> progress.close()
"""
from __future__ import annotations

from pylogic.report.words import count_of

import sys
import time
from typing import Optional


class Progress:
    """A callable ``progress(done, total)`` with stages (``stage``) and a closing ``close``."""

    def __init__(self, label: str, stream=None, delay: float = 1.0, live: Optional[bool] = None):
        self.label = label
        self.stream = stream or sys.stderr
        self.delay = delay
        self.live = (hasattr(self.stream, "isatty") and self.stream.isatty()) if live is None \
            else live
        self.name: Optional[str] = None
        self.unit = ""
        self.done = self.total = 0
        self.detail = ""
        self.started = time.monotonic()
        self._bar = None
        self._task = None

    # ------------------------------------------------------------ stages
    def stage(self, name: str, total: int = 0, unit: str = "") -> None:
        """End the current stage (its line, when piped) and start ``name``."""
        self._end()
        self.name, self.total, self.unit, self.done, self.detail = name, total, unit, 0, ""
        self.started = time.monotonic()

    def note(self, detail: str) -> None:
        """What the current stage's line says besides its count and time."""
        self.detail = detail

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if not self.live or time.monotonic() - self.started < self.delay:
            return
        if self._bar is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress
            from rich.progress import TextColumn, TimeElapsedColumn
            from rich.console import Console
            self._bar = RichProgress(TextColumn(f"{self.label} {{task.description}}"),
                                     BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                     console=Console(file=self.stream), transient=True)
            self._bar.start()
        if self._task is None:
            self._task = self._bar.add_task(self.name or "", total=total)
        self._bar.update(self._task, completed=done, total=total)

    def close(self) -> None:
        self._end()
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def _end(self) -> None:
        if self._task is not None and self._bar is not None:
            self._bar.remove_task(self._task)
        self._task = None
        if self.name is None or self.live:
            self.name = None
            return
        seconds = time.monotonic() - self.started
        count = count_of(self.total, self.unit, thousands=True).strip() if self.total else ""
        parts = [p for p in (count, self.detail, f"{seconds:.2f} s") if p]
        self.stream.write(f"[{self.label}] {self.name}: {', '.join(parts)}\n")
        self.stream.flush()
        self.name = None

