"""An engine call under a time budget (``pathlogic query --timeout``).

clingo grounds a stratified program in one uninterruptible call and Soufflé is a subprocess, so
the call runs in a forked child process, in a process group of its own (a ``souffle`` it starts
belongs to that group). When the budget is spent the whole group is killed and
:class:`BudgetExceeded` is raised; the caller's process never holds a half-finished engine.

Example
-------
>>> rows = call_with_budget(run_checked, (checked, "facts"), {"engine": "clingo"},
...                         seconds=30, what="query p.dl")          # doctest: +SKIP
"""
from __future__ import annotations

import gc
import multiprocessing
import os
import signal
from typing import Any, Callable

from pylogic.errors import PathlogicError, SourceLoc

#: The exit status of a command stopped by its time budget (as coreutils ``timeout``).
TIMEOUT_STATUS = 124


class BudgetExceeded(PathlogicError):
    """The time budget of an engine call was spent; the call was stopped."""

    kind = "timeout"
    exit_status = TIMEOUT_STATUS


class Child:
    """``fn(*args, **kwargs)`` running in a forked child process, in a process group of its own
    (what it starts, such as ``souffle``, belongs to the group and dies with it). ``conn`` is
    readable when the child has finished (for ``multiprocessing.connection.wait``).
    ``daemon=False`` for a child that starts children of its own this way (a daemonic process
    may not: benchmarks/optimize.py's program workers run each pipeline in a child)."""

    def __init__(self, fn: Callable, args: tuple = (), kwargs: dict | None = None, *,
                 daemon: bool = True):
        ctx = multiprocessing.get_context("fork")
        self.conn, send = ctx.Pipe(duplex=False)
        self.process = ctx.Process(target=_child, args=(send, fn, args, kwargs or {}),
                                   daemon=daemon)
        self.process.start()
        send.close()
        try:
            os.setpgid(self.process.pid, self.process.pid)  # as the child does: whichever first
        except OSError:
            pass

    def result(self, what: str | None = None, loc: SourceLoc | None = None) -> Any:
        """The call's value, once ``conn`` is readable; what it raised is raised here (a
        PathlogicError with its class, message and location; anything else as an internal
        error), and a child that died without a word is a PathlogicError with its exit status.
        The child's group is killed and reaped either way."""
        prefix = f"{what}: " if what else ""
        try:
            status, payload = self.conn.recv()
        except (EOFError, OSError):
            self.kill()
            raise PathlogicError(f"{prefix}the process ended without a result (exit status "
                                 f"{self.process.exitcode}: killed, e.g. out of memory, or "
                                 "crashed)", loc) from None
        self.kill()
        if status == "ok":
            return payload
        if status == "error":
            cls, message, where = payload
            try:
                raise cls(message, where)
            except TypeError:  # a class with another constructor: keep the text
                raise PathlogicError(message, where) from None
        raise PathlogicError(f"{prefix}internal error ({payload}); please report it", loc)

    def kill(self) -> None:
        """Kill the child's group and reap the child (once: later calls do nothing)."""
        if self.conn.closed:
            return
        self.conn.close()
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.join()


def call_with_budget(fn: Callable, args: tuple = (), kwargs: dict | None = None, *,
                     seconds: float, what: str = "engine call",
                     loc: SourceLoc | None = None) -> Any:
    """``fn(*args, **kwargs)`` in a child process (``Child``), stopped after ``seconds``.

    Returns the call's result; raises BudgetExceeded after ``seconds`` (the child and
    everything it started are killed), or what the call raised (``Child.result``).
    """
    child = Child(fn, args, kwargs)
    try:
        if not child.conn.poll(seconds):
            raise BudgetExceeded(f"{what} stopped after {seconds:g} s (--timeout)", loc)
        return child.result(what, loc)
    finally:
        child.kill()


def _child(conn, fn: Callable, args: tuple, kwargs: dict) -> None:
    os.setpgid(0, 0)  # a group of its own: the parent kills it and what it started, together
    # what the child inherits outlives its call: kept out of the collector's passes (the
    # parent's facts made a full pass 0.3-0.5 s of every analyze engine call on the #32 corpus;
    # the passes also copied the pages they touched). gc.freeze: O(1), this process only.
    gc.freeze()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides (and kills the group)
    try:
        outcome = ("ok", fn(*args, **kwargs))
    except PathlogicError as exc:
        outcome = ("error", (type(exc), exc.message, exc.loc))
    except BaseException as exc:  # noqa: BLE001 -- reported by the parent, not lost
        outcome = ("internal", f"{type(exc).__name__}: {exc}")
    try:
        conn.send(outcome)
    except BrokenPipeError:
        pass
    conn.close()
