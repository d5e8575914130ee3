"""A one-line progress bar on stderr, shown only on a terminal and only once a run is long."""
from __future__ import annotations

import sys
import time


class ProgressBar:
    def __init__(self, label: str, delay: float = 1.0, stream=None):
        self.label = label
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.delay = delay
        self.shown = False
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or time.monotonic() - self.start < self.delay:
            return
        width = 30
        fill = int(width * done / max(total, 1))
        self.stream.write(f"\r{self.label} [{'#' * fill}{'.' * (width - fill)}] {done}/{total}")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
