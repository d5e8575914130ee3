"""Time budgets for ``analyze`` (issue #11 item 2): every engine call and every function's
predicate statistics run in a forked child process under a budget, in a process group of its
own, killed with whatever it started (``souffle``) when the budget is spent, so no phase of a
run is unbounded. At most ``jobs`` children run at once; one loop waits on all of them (no
threads, so an interrupt stops every child at once).

Example
-------
>>> with BudgetPool(jobs=2) as pool:                               # doctest: +SKIP
...     pool.submit(slow, "a", seconds=5.0)
...     for task, outcome in pool.outcomes():
...         print(task, outcome.value if outcome.ok else outcome.error)
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any, Callable, Iterator, Optional

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


def _child(conn, fn: Callable, arg: Any) -> None:
    os.setpgid(0, 0)                               # killed as a group, with what it starts
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent decides
    try:
        outcome = Outcome(fn(arg))
    except PathlogicError as exc:
        outcome = Outcome(error=str(exc))
    except BaseException as exc:  # noqa: BLE001 -- reported by the parent, not lost
        outcome = Outcome(error=f"internal error ({type(exc).__name__}: {exc})")
    try:
        conn.send(outcome)
    except BrokenPipeError:
        pass
    conn.close()


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class BudgetPool:
    """Runs ``fn(task)`` for submitted tasks, ``jobs`` at a time, each in a child process under
    its own budget (seconds from its start; None: unbounded); ``outcomes()`` yields
    ``(task, Outcome)`` as they finish, including tasks submitted while iterating. Leaving the
    block (normally or by an interrupt) kills whatever still runs."""

    def __init__(self, jobs: int = 1):
        self.jobs = max(1, jobs)
        self._queue: deque = deque()
        self._running: dict = {}      # connection -> (task, process, deadline, seconds)
        self._fork = multiprocessing.get_context("fork")

    def __enter__(self) -> "BudgetPool":
        return self

    def __exit__(self, *_exc) -> None:
        for _, process, _, _ in self._running.values():
            _kill_group(process.pid)
            process.join()
        self._running.clear()
        self._queue.clear()

    def submit(self, fn: Callable, task: Any, seconds: Optional[float]) -> None:
        self._queue.append((fn, task, seconds))

    def _start(self) -> None:
        while self._queue and len(self._running) < self.jobs:
            fn, task, seconds = self._queue.popleft()
            receive, send = self._fork.Pipe(duplex=False)
            process = self._fork.Process(target=_child, args=(send, fn, task), daemon=True)
            process.start()
            send.close()
            try:
                os.setpgid(process.pid, process.pid)   # as the child does: whichever is first
            except OSError:
                pass
            deadline = None if seconds is None else time.monotonic() + seconds
            self._running[receive] = (task, process, deadline, seconds)

    def _finish(self, conn) -> tuple[Any, Outcome]:
        task, process, _, _ = self._running.pop(conn)
        try:
            outcome = conn.recv()
        except (EOFError, OSError):
            process.join()
            outcome = Outcome(error=f"the worker process died (exit status {process.exitcode}, "
                                    "e.g. out of memory)")
        conn.close()
        _kill_group(process.pid)          # anything it started and left behind
        process.join()
        return task, outcome

    def outcomes(self) -> Iterator[tuple[Any, Outcome]]:
        while self._queue or self._running:
            self._start()
            deadlines = [d for _, _, d, _ in self._running.values() if d is not None]
            wait_for = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            for conn in wait(list(self._running), timeout=wait_for):
                yield self._finish(conn)
            now = time.monotonic()
            for conn, (task, process, deadline, seconds) in list(self._running.items()):
                if deadline is not None and now >= deadline and not conn.poll():
                    del self._running[conn]
                    _kill_group(process.pid)
                    process.join()
                    conn.close()
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
            return Outcome(error=f"internal error ({type(exc).__name__}: {exc})")
    with BudgetPool(1) as pool:
        pool.submit(_apply, (fn, args), seconds)
        (_, outcome), = pool.outcomes()
        return outcome


def _apply(call: tuple) -> Any:
    fn, args = call
    return fn(*args)
