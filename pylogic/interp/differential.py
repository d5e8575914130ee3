"""Differential checking by the reference interpreter: one program run two ways, compared.

``native_vs_pir``: a ``.c`` program built by clang-14 (or a ``.ll`` run by ``lli``) and run
natively, against its imported PIR in the interpreter (the oracle of the front end).
``compare_modules``: a module before and after a transformation, run on the same cases (the
oracle of a pass). Observable behaviour is what a user sees: the output bytes, the exit status
(native) or return value (PIR), and the run-time error if any.

Verdicts: ``identical`` only when both runs completed and agreed; ``different`` with the first
difference; ``not compared`` with the reason (a run timed out, ran out of fuel, hit another
interpreter limit, or could not run at all).

Example
-------
>>> check = compare_modules(module, new_module, [((), (1, 0)), ((), (0, 0))])  # doctest: +SKIP
>>> check.verdict, check.comparisons[0].kinds("after")["branches"]             # doctest: +SKIP
('identical', 2)
"""
from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable, Optional

from pylogic.errors import PathlogicError
from pylogic.interp.machine import (DEFAULT_FUEL, DEFAULT_MAX_DEPTH, DEFAULT_MEMORY_LIMIT,
                                    KINDS, run_module)
from pylogic.interp.result import RunResult
from pylogic.ir.llvm.clang import compile_native, find_clang, find_lli
from pylogic.ir.load import load_program
from pylogic.ir.model import Module

IDENTICAL, DIFFERENT, NOT_COMPARED = "identical", "different", "not compared"
#: Interpreter fuel of a native-vs-PIR run (whole real programs: more than ``run``'s default).
NATIVE_FUEL = 50_000_000
#: Seconds a native run may take.
NATIVE_TIMEOUT = 10.0
#: Faults that are interpreter limits rather than behaviour (machine.py, memory.py).
_LIMITS = ("fuel exhausted", "call depth limit", "memory limit exceeded")
#: Counts of ``RunResult.counts`` reported per run.
COUNTS = ("instructions", "executed", "nullified", "branches_taken", "calls")


# ---------------------------------------------------------------- shared pieces

def first_difference(a: str, b: str, names: tuple[str, str] = ("native", "pir")) -> str:
    """The first differing line of two outputs, e.g. ``line 2: native '5' vs pir '6'``.

    Parameters: ``a``, ``b``: the outputs; ``names``: what to call each side.
    Returns: a one-line description (``"outputs differ in trailing newline"`` when the lines
    agree).
    """
    la, lb = a.splitlines(), b.splitlines()
    for k, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {k + 1}: {names[0]} {x!r} vs {names[1]} {y!r}"
    if len(la) != len(lb):
        k = min(len(la), len(lb))
        extra = (f"{names[0]} has more: {la[k]!r}" if len(la) > k
                 else f"{names[1]} has more: {lb[k]!r}")
        return f"line {k + 1}: {extra}"
    return "outputs differ in trailing newline"


def limit_reached(res: RunResult) -> Optional[str]:
    """Why ``res`` says nothing about behaviour: an interpreter limit (fuel, call depth, memory)
    ended it, or it never started (no such entry function); None for a completed run."""
    if res.error is None:
        return None
    fault = getattr(res.error, "fault", None)
    if fault is None:  # raised before the first instruction (machine.run)
        return res.error.message
    return fault if fault.startswith(_LIMITS) else None


def _fault(res: RunResult) -> Optional[str]:
    return None if res.error is None else getattr(res.error, "fault", res.error.message)


def _text(data: bytes) -> str:
    return data.decode("latin-1")  # one character per byte: differences stay where they are


# ---------------------------------------------------------------- before vs after a transformation

@dataclass
class Comparison:
    """One case of ``compare_modules``: both runs and the verdict.

    ``verdict``: identical | different | not compared; ``detail``: the first difference or why
    not compared (empty when identical); ``before``/``after``: the ``RunResult`` of each run.
    """
    args: tuple
    inputs: tuple
    verdict: str
    detail: str
    before: RunResult
    after: RunResult

    @property
    def identical(self) -> bool:
        return self.verdict == IDENTICAL

    def counts(self, side: str) -> dict:
        """Dynamic counts of one run (``side``: "before" or "after"): ``COUNTS``."""
        res = getattr(self, side)
        return {k: res.counts.get(k, 0) for k in COUNTS}

    def kinds(self, side: str) -> dict:
        """Instructions of one run by kind (``machine.KINDS``: branches, computations, loads,
        stores, predicate_defines, calls, returns, other), nullified ones included."""
        res = getattr(self, side)
        return {k: res.kinds.get(k, 0) for k in KINDS}

    def to_json(self) -> dict:
        b, a = self.before, self.after
        return {"args": list(self.args), "inputs": list(self.inputs), "verdict": self.verdict,
                "detail": self.detail, "identical": self.identical,
                "before": self.counts("before") | {"kinds": self.kinds("before")},
                "after": self.counts("after") | {"kinds": self.kinds("after")},
                "stdout_before": b.stdout, "stdout_after": a.stdout,
                "return_before": b.return_value, "return_after": a.return_value,
                "error_before": None if b.error is None else str(b.error),
                "error_after": None if a.error is None else str(a.error)}


@dataclass
class TransformCheck:
    """``compare_modules`` over several cases: one ``Comparison`` each.

    ``verdict``: different when any case differs, else not compared when any case could not be
    compared (or there were none), else identical. ``exit_code``: 0, 1, 2 respectively.
    """
    comparisons: list = field(default_factory=list)

    @property
    def verdict(self) -> str:
        verdicts = {c.verdict for c in self.comparisons}
        if DIFFERENT in verdicts:
            return DIFFERENT
        if NOT_COMPARED in verdicts or not verdicts:
            return NOT_COMPARED
        return IDENTICAL

    @property
    def first_different(self) -> Optional[Comparison]:
        """The first case that differs, or None."""
        return next((c for c in self.comparisons if c.verdict == DIFFERENT), None)

    @property
    def first_difference(self) -> str:
        """The first difference with its case, e.g. ``args () inputs (1, 0): line 1: before '4'
        vs after '5'``; empty when no case differs."""
        c = self.first_different
        return "" if c is None else f"args {c.args} inputs {c.inputs}: {c.detail}"

    @property
    def exit_code(self) -> int:
        return {IDENTICAL: 0, DIFFERENT: 1}.get(self.verdict, 2)

    def to_json(self) -> list:
        return [c.to_json() for c in self.comparisons]


def compare_runs(before: RunResult, after: RunResult,
                 names: tuple[str, str] = ("before", "after")) -> tuple[str, str]:
    """Verdict and detail of two interpreter runs of the same case.

    Returns: ``(verdict, detail)``; ``not compared`` when a run hit an interpreter limit or never
    started, else ``different`` on the first of output, return value, run-time error that
    differs (a run-time error is behaviour: both runs may end in the same one), else
    ``identical``.
    """
    for name, res in zip(names, (before, after)):
        why = limit_reached(res)
        if why is not None:
            return NOT_COMPARED, f"{name}: {why}"
    if before.stdout_bytes != after.stdout_bytes:
        return DIFFERENT, first_difference(_text(before.stdout_bytes),
                                           _text(after.stdout_bytes), names)
    if _fault(before) != _fault(after):
        return DIFFERENT, (f"run-time error: {names[0]} {_fault(before)!r} vs "
                           f"{names[1]} {_fault(after)!r}")
    if before.return_value != after.return_value:
        return DIFFERENT, (f"return value: {names[0]} {before.return_value} vs "
                           f"{names[1]} {after.return_value}")
    return IDENTICAL, ""


def compare_modules(before: Module, after: Module, cases: Iterable = (((), ()),), *,
                    entry: str = "main", fuel: int = DEFAULT_FUEL,
                    memory_limit: int = DEFAULT_MEMORY_LIMIT,
                    max_depth: int = DEFAULT_MAX_DEPTH) -> TransformCheck:
    """Run ``before`` and ``after`` (a transformed ``before``) on each case and compare.

    Parameters
    ----------
    before, after: the original and the transformed module.
    cases: ``(args, inputs)`` pairs: arguments of ``entry`` and the values ``input`` reads.
    entry: the function both runs start at.
    fuel, memory_limit, max_depth: limits of each run (``run_module``); a run that hits one is
        ``not compared``, never ``identical``.

    Returns: a ``TransformCheck`` with one ``Comparison`` per case, each with both runs' counts
    and counts by kind of instruction.

    Example: ``compare_modules(m, if_converted, [((), (1, 0))]).verdict == "identical"``.
    References: predicated_cp.md §3.2 (if-conversion keeps behaviour).
    """
    check = TransformCheck()
    for args, inputs in cases:
        args, inputs = tuple(int(a) for a in args), tuple(int(i) for i in inputs)
        runs = [run_module(m, entry=entry, args=args, inputs=inputs, fuel=fuel,
                           memory_limit=memory_limit, max_depth=max_depth)
                for m in (before, after)]
        verdict, detail = compare_runs(*runs)
        check.comparisons.append(Comparison(args, inputs, verdict, detail, *runs))
    return check


# ---------------------------------------------------------------- native vs PIR

@dataclass
class Validation:
    """Outcome of one native-vs-PIR run. ``status``: identical | different | incomplete (a
    difference, but functions or globals were skipped at import) | timeout | fuel | limit
    (another interpreter limit) | not-imported | import-error | native-error | native-fails
    (a self-checking program failed natively) | no-tool."""
    path: str
    status: str
    detail: str = ""
    native_stdout: str = ""
    native_exit: int | None = None
    pir_stdout: str = ""
    pir_exit: int | None = None
    pir_instructions_executed: int = 0
    pir_seconds: float = 0.0
    skipped: dict = field(default_factory=dict)
    import_totals: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """identical, different (``different``, ``incomplete``) or not compared (the rest)."""
        return {"identical": IDENTICAL, "different": DIFFERENT,
                "incomplete": DIFFERENT}.get(self.status, NOT_COMPARED)

    @property
    def exit_code(self) -> int:
        """0 identical, 1 different, 2 not compared or import incomplete."""
        return {"identical": 0, "different": 1}.get(self.status, 2)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["verdict"] = self.verdict
        d["exit_code"] = self.exit_code
        return d


def _status_of_returncode(rc: int) -> int:
    return 128 - rc if rc < 0 else rc & 0xFF  # a signal (abort: -6) reads as 128+6 like a shell


def run_native(path: str, args=(), timeout: float = NATIVE_TIMEOUT,
               exe_dir: str | None = None) -> tuple[str, int]:
    """Run the original program: a ``.c`` built by clang-14, a ``.ll`` by ``lli``.

    Returns: ``(stdout decoded as latin-1, exit status)``; a signal reads as 128 + its number.
    Raises TimeoutError after ``timeout`` seconds, PathlogicError when it cannot be built or
    ``lli`` is missing.
    """
    argv = [str(a) for a in args]
    with tempfile.TemporaryDirectory(prefix="pathlogic-val-", dir=exe_dir) as tmp:
        if path.endswith(".c"):
            exe = os.path.join(tmp, "native")
            compile_native(path, exe)
            cmd = [exe, *argv]
        else:
            lli = find_lli()
            if lli is None:
                raise PathlogicError("lli not found (install llvm-14 to validate .ll files)")
            cmd = [lli, path, *argv]
        try:
            proc = subprocess.run(cmd, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"native run exceeded {timeout:g} s") from None
        return _text(proc.stdout), _status_of_returncode(proc.returncode)


def native_vs_pir(path: str, fuel: int = NATIVE_FUEL, args=(), inputs=(),
                  timeout: float = NATIVE_TIMEOUT, *, module: Optional[Module] = None,
                  report=None, self_checking: bool = False,
                  native: Callable = run_native) -> Validation:
    """Run ``path`` natively and through import + interpreter; compare stdout and exit status.

    Parameters
    ----------
    path: a ``.c`` or ``.ll`` program with ``main``.
    fuel: interpreter instruction budget; ``timeout``: seconds for the native run.
    args, inputs: arguments of ``main`` (both sides) and values of PIR ``input``.
    module, report: the program already imported (``load_program(path)``), to skip importing.
    self_checking: the program checks itself (gcc torture): a native exit status other than 0
        is ``native-fails`` (not compared).
    native: the native runner (``run_native``; a stand-in in tests).

    Returns: a ``Validation``; ``identical`` only when both runs completed with the same output
    bytes and exit status.

    Example: ``native_vs_pir("tests/ir/llvm/c/control.c").status == "identical"``.
    """
    path = str(path)
    v = Validation(path=path, status=IDENTICAL)
    if module is None:
        if path.endswith(".c") and find_clang() is None:
            v.status, v.detail = "no-tool", "clang not found: .c files cannot be validated"
            return v
        try:
            module, report = load_program(path)
        except PathlogicError as exc:
            v.status, v.detail = "import-error", str(exc)
            return v
    if report is not None:
        v.skipped = report.skipped_by_reason()
        v.import_totals = report.totals()
        main = report.function("main")
        if main is not None and main["status"] != "imported":
            v.status, v.detail = "not-imported", f"main was skipped: {main['reason']}"
            return v
    try:
        v.native_stdout, v.native_exit = native(path, args, timeout)
    except TimeoutError as exc:
        v.status, v.detail = "timeout", str(exc)
        return v
    except PathlogicError as exc:
        v.status, v.detail = "native-error", str(exc)
        return v
    if self_checking and v.native_exit != 0:
        v.status, v.detail = "native-fails", f"native exit {v.native_exit}"
        return v
    t0 = time.perf_counter()
    res = run_module(module, entry="main", args=tuple(int(a) for a in args),
                     inputs=tuple(int(i) for i in inputs), fuel=fuel)
    v.pir_seconds = time.perf_counter() - t0
    v.pir_stdout, v.pir_exit = _text(res.stdout_bytes), res.exit_status
    v.pir_instructions_executed = int(res.counts.get("instructions", 0))
    why = limit_reached(res)
    if why is not None:
        v.status = "fuel" if why.startswith("fuel") else "limit"
        v.detail = (f"interpreter ran out of fuel ({fuel} instructions)" if v.status == "fuel"
                    else f"interpreter {why}")
        return v
    if v.native_stdout == v.pir_stdout and v.native_exit == v.pir_exit:
        return v
    if v.native_stdout != v.pir_stdout:
        v.detail = first_difference(v.native_stdout, v.pir_stdout)
    else:
        v.detail = f"exit status: native {v.native_exit} vs pir {v.pir_exit}"
    if res.error is not None:
        v.detail += f" (pir run-time error: {res.error})"
    v.status = "incomplete" if report is not None and not report.complete else DIFFERENT
    return v
