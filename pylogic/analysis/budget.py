"""Time budgets for ``analyze`` (issue #11 item 2): every engine call and every function's
predicate statistics run in a child process under a budget (``engines.budget.Child``: forked, in
a process group of its own, killed with whatever it started, such as ``souffle``), so no phase
of a run is unbounded. At most ``jobs`` children run at once; one loop waits on all of them (no
threads, so an interrupt stops every child at once).

Example
-------
>>> with BudgetPool(jobs=2) as pool:                               # doctest: +SKIP
...     pool.submit(slow, "a", seconds=5.0)
...     for task, outcome in pool.outcomes():
...         print(task, outcome.value if outcome.ok else outcome.error)
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any, Callable, Iterator, Optional

from pylogic.engines.budget import Child
from pylogic.errors import PathlogicError

#: Seconds one function may take in ``analyze`` (``--function-timeout``) unless told otherwise.
DEFAULT_FUNCTION_TIMEOUT = 60.0


@dataclass
class Outcome:
    """What became of one task: its value, or why there is none (``error``, one line;
    ``timed_out`` when the budget ran out)."""
    value: Any = None
    error: Optional[str] = None
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


def _outcome(child: Child) -> Outcome:
    try:
        return Outcome(child.result())
    except PathlogicError as exc:
        return Outcome(error=str(exc))


class BudgetPool:
    """Runs ``fn(task)`` for submitted tasks, ``jobs`` at a time, each in a child process under
    its own budget (seconds from its start; None: unbounded); ``outcomes()`` yields
    ``(task, Outcome)`` as they finish, including tasks submitted while iterating. Leaving the
    block (normally or by an interrupt) kills whatever still runs. ``daemon``: ``Child``'s."""

    def __init__(self, jobs: int = 1, *, daemon: bool = True):
        self.jobs = max(1, jobs)
        self.daemon = daemon
        self._queue: deque = deque()
        self._running: dict = {}      # connection -> (task, child, deadline, seconds)

    def __enter__(self) -> "BudgetPool":
        return self

    def __exit__(self, *_exc) -> None:
        for _, child, _, _ in self._running.values():
            child.kill()
        self._running.clear()
        self._queue.clear()

    def submit(self, fn: Callable, task: Any, seconds: Optional[float]) -> None:
        self._queue.append((fn, task, seconds))

    def _start(self) -> None:
        while self._queue and len(self._running) < self.jobs:
            fn, task, seconds = self._queue.popleft()
            child = Child(fn, (task,), daemon=self.daemon)
            deadline = None if seconds is None else time.monotonic() + seconds
            self._running[child.conn] = (task, child, deadline, seconds)

    def outcomes(self) -> Iterator[tuple[Any, Outcome]]:
        while self._queue or self._running:
            self._start()
            deadlines = [d for _, _, d, _ in self._running.values() if d is not None]
            wait_for = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            for conn in wait(list(self._running), timeout=wait_for):
                task, child, _, _ = self._running.pop(conn)
                yield task, _outcome(child)
            now = time.monotonic()
            for conn, (task, child, deadline, seconds) in list(self._running.items()):
                if deadline is not None and now >= deadline and not conn.poll():
                    del self._running[conn]
                    child.kill()
                    yield task, Outcome(error=f"timed out after {seconds:g} s "
                                              "(--function-timeout)", timed_out=True)


def call_with_budget(fn: Callable, *args, seconds: Optional[float]) -> Outcome:
    """``fn(*args)`` in a child process stopped after ``seconds`` (None: here, unbounded); its
    error, timeout or crash is the Outcome's message instead of an exception."""
    if seconds is None:
        try:
            return Outcome(fn(*args))
        except PathlogicError as exc:
            return Outcome(error=str(exc))
        except Exception as exc:  # noqa: BLE001 -- the same contract as in a child
            return Outcome(error=f"internal error ({type(exc).__name__}: {exc}); please "
                                 "report it")
    with BudgetPool(1) as pool:
        pool.submit(_apply, (fn, args), seconds)
        (_, outcome), = pool.outcomes()
        return outcome


def _apply(call: tuple) -> Any:
    fn, args = call
    return fn(*args)
