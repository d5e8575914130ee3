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


def call_with_budget(fn: Callable, args: tuple = (), kwargs: dict | None = None, *,
                     seconds: float, what: str = "engine call",
                     loc: SourceLoc | None = None) -> Any:
    """``fn(*args, **kwargs)`` in a child process, stopped after ``seconds``.

    Parameters
    ----------
    fn, args, kwargs
        The call; its result must be picklable (rows are).
    seconds : float
        The budget, wall-clock.
    what : str
        Names the call in the timeout message.
    loc : SourceLoc, optional
        Where the timeout is reported (e.g. the program file).

    Returns
    -------
    The call's result.

    Raises
    ------
    BudgetExceeded
        After ``seconds`` (the child and everything it started are killed).
    PathlogicError
        What the call raised (same class, message and location).
    """
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, fn, args, kwargs or {}), daemon=True)
    child.start()
    send.close()
    try:
        os.setpgid(child.pid, child.pid)  # as the child does: whichever runs first
    except OSError:
        pass
    stop = True
    try:
        if not receive.poll(seconds):
            raise BudgetExceeded(f"{what} stopped after {seconds:g} s (--timeout)", loc)
        try:
            status, payload = receive.recv()
        except EOFError:
            child.join()
            raise PathlogicError(f"{what}: the engine process ended without a result (exit "
                                 f"status {child.exitcode}); please report it", loc) from None
        stop = False
    finally:
        receive.close()
        if stop:
            _kill_group(child.pid)
        child.join()
    if status == "ok":
        return payload
    if status == "error":
        cls, message, where = payload
        try:
            raise cls(message, where)
        except TypeError:  # a class with another constructor: keep the text
            raise PathlogicError(message, where) from None
    raise PathlogicError(f"{what}: internal error in the engine process ({payload}); please "
                         "report it", loc)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _child(conn, fn: Callable, args: tuple, kwargs: dict) -> None:
    os.setpgid(0, 0)  # a group of its own: the parent kills it and what it started, together
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
