"""Differential checking by the reference interpreter: one program run two ways, compared.

``native_vs_pir``: a ``.c`` program built by clang-14 (or a ``.ll`` run by ``lli``) and run
natively, against its imported PIR in the interpreter (the oracle of the front end).
``compare_modules``: a module before and after a transformation, run on the same cases (the
oracle of a pass). Observable behaviour is what a user sees: the output bytes, the exit status
(native) or return value (PIR), and the run-time error if any.

Verdicts (the same three for every check and every ``--validate``):

``identical``
    only when *both* runs completed normally -- returned from the entry function or ended the
    program by ``exit()``/``abort()``/a failed ``assert`` (a status the program chose) -- and
    agree on output bytes and return value / exit status. Nothing else is ever ``identical``.
``different``
    a behaviour difference was observed: the outputs differ (also the output written before a
    run stopped), the return values / exit statuses differ, one run stopped on a run-time error
    and the other did not, the two runs stopped on different errors, or the entry function
    exists on one side only. A run-time error on one side only is a real difference: the
    transformation (or the importer) made a program fail that did not, or the reverse.
``not compared`` (could not be checked)
    nothing can be said, with the reason: a run hit an interpreter limit (fuel, call depth,
    memory), could not start (no entry function on either side, no ``main``), or *both* runs
    stopped on the same run-time error (division by zero, input exhausted, a call to an external
    the interpreter does not have, ...) after the same output. Two runs that fail the same way
    agree only up to the failure: what the program would have done next was not observed, so it
    is not called identical. Native vs PIR adds: the native run timed out, the program could not
    be built or imported, the PIR run needed something the interpreter does not have (an
    unsupported external such as ``scanf`` or ``setjmp``, a skipped function), or the native run
    died by a signal where the PIR run stopped on a run-time error (undefined behaviour, both
    stopped).

Exit statuses (``exit_status``; ``validate``, ``if-convert --validate``, ``optimize --validate``
share them, like ``cmp``/``diff``): 0 identical, 1 different, 2 could not be checked (input that
cannot be read or built included: nothing was run, so nothing is claimed).

``validate`` runs ``main`` the way the native program is started: ``argc``/``argv`` (and an
empty ``envp``) are materialised in interpreter memory by a small PIR entry function
(``with_argv``) that calls ``main``; plain PIR programs keep docs/pir.md's rule (``main``'s parameters
take the ``--args`` values).

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
from typing import TYPE_CHECKING, Callable, Iterable, Optional

from pylogic.errors import PathlogicError, SourceLoc
from pylogic.interp.defaults import DEFAULT_FUEL, DEFAULT_MAX_DEPTH, DEFAULT_MEMORY_LIMIT
from pylogic.interp.native.select import run_with
from pylogic.ir.llvm.clang import compile_native, find_clang, find_lli

# The interpreter, the IR model and the importer are imported where they are used: the verdicts,
# exit statuses and budgets below are what the command line needs (``--help``), and they come
# without them.
if TYPE_CHECKING:
    from pylogic.interp.result import RunResult
    from pylogic.ir.model import Module

IDENTICAL, DIFFERENT, NOT_COMPARED = "identical", "different", "not compared"
#: Exit status of a validating command per verdict (like cmp/diff: 0 same, 1 differ, 2 trouble).
EXIT_IDENTICAL, EXIT_DIFFERENT, EXIT_NOT_CHECKED = 0, 1, 2
EXIT_STATUS = {IDENTICAL: EXIT_IDENTICAL, DIFFERENT: EXIT_DIFFERENT, NOT_COMPARED: EXIT_NOT_CHECKED}
#: One sentence for --help texts and docs/commands (the three commands say the same thing).
EXIT_HELP = ("exit 0 identical (both runs completed normally with the same output and return "
             "value), 1 different (the first difference is printed), 2 could not be checked "
             "(the reason is printed: a run stopped on a run-time error on both sides, ran out "
             "of fuel or another interpreter limit, needed something the interpreter does not "
             "have, or the input could not be read)")
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


#: Faults that say the interpreter lacks something the program needs (not program behaviour).
_GAPS = ("call to unknown external function", "unknown global or function address",
         "is not supported", "unsupported ", "cannot execute", "unknown operator",
         "input exhausted")


def interpreter_gap(res: RunResult) -> Optional[str]:
    """The fault of ``res`` when it stopped on something the interpreter does not have (an
    unknown external such as ``scanf``, an unsupported ``printf`` conversion, no more ``input``
    values), else None."""
    fault = _fault(res)
    return fault if fault is not None and any(g in fault for g in _GAPS) else None


def never_started(res: RunResult) -> bool:
    """Whether ``res`` stopped before its first instruction because the entry function is
    missing (``machine.run``: ``no function NAME to run``)."""
    return (res.error is not None and getattr(res.error, "fault", None) is None
            and res.error.message.startswith("no function "))


def exit_status(verdict: str) -> int:
    """The exit status of a validating command for ``verdict`` (``EXIT_STATUS``)."""
    return EXIT_STATUS.get(verdict, EXIT_NOT_CHECKED)


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

    @property
    def same_stop(self) -> bool:
        """Both runs stopped on the same run-time error after the same output: agreement as far
        as the runs went (verdict ``not compared``, never ``identical``)."""
        b, a = self.before, self.after
        return (b.error is not None and a.error is not None
                and limit_reached(b) is None and limit_reached(a) is None
                and _fault(b) == _fault(a) and b.stdout_bytes == a.stdout_bytes)

    def counts(self, side: str) -> dict:
        """Dynamic counts of one run (``side``: "before" or "after"): ``COUNTS``."""
        res = getattr(self, side)
        return {k: res.counts.get(k, 0) for k in COUNTS}

    def kinds(self, side: str) -> dict:
        """Instructions of one run by kind (``machine.KINDS``: branches, computations, moves, loads,
        stores, predicate_defines, calls, returns, other), nullified ones included."""
        from pylogic.interp.machine import KINDS
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
    compared (or there were none), else identical. ``exit_code``: 0 identical, 1 different,
    2 not compared (``EXIT_STATUS``).
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
    def agrees(self) -> bool:
        """Every case identical or stopped on the same run-time error on both sides
        (``Comparison.same_stop``), and at least one case: what a test of a pass that must keep
        a fault (a division by zero stays) asserts. Not a verdict: the verdict of such a check
        is ``not compared``."""
        return bool(self.comparisons) and all(c.identical or c.same_stop
                                              for c in self.comparisons)

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
        return exit_status(self.verdict)

    @property
    def first_not_compared(self) -> Optional[Comparison]:
        """The first case that could not be compared, or None."""
        return next((c for c in self.comparisons if c.verdict == NOT_COMPARED), None)

    @property
    def reason(self) -> str:
        """One line saying why the verdict is what it is: the first difference, or why (and how
        many) cases were not compared; empty when identical."""
        if self.verdict == DIFFERENT:
            return self.first_difference
        c = self.first_not_compared
        if c is None:
            return "no case was run" if not self.comparisons else ""
        n = sum(x.verdict == NOT_COMPARED for x in self.comparisons)
        more = f" ({n} of {len(self.comparisons)} cases not compared)" if n > 1 else ""
        return f"args {c.args} inputs {c.inputs}: {c.detail}{more}"

    def to_json(self) -> list:
        return [c.to_json() for c in self.comparisons]


def compare_runs(before: RunResult, after: RunResult,
                 names: tuple[str, str] = ("before", "after")) -> tuple[str, str]:
    """Verdict and detail of two interpreter runs of the same case (module docstring).

    Returns: ``(verdict, detail)``:

    - ``not compared`` when a run hit an interpreter limit, when neither run found the entry
      function, or when both stopped on the same run-time error after the same output
      (``both runs stopped on the same run-time error: ...``);
    - ``different`` on the first of: entry function on one side only, output, run-time error
      (one side only or not the same), return value;
    - else ``identical`` (both completed normally and agree).

    Example: two runs of ``x = div 10, a`` with ``a = 0`` are ``not compared``, never
    ``identical``; with ``a = 0`` against ``a = 2`` they are ``different``.
    """
    for name, res in zip(names, (before, after)):
        why = limit_reached(res)
        if why is not None and not never_started(res):
            return NOT_COMPARED, f"{name}: {why}"
    missing = [never_started(before), never_started(after)]
    if all(missing):
        return NOT_COMPARED, f"neither run started: {before.error.message}"
    if any(missing):
        name, res = (names[0], before) if missing[0] else (names[1], after)
        return DIFFERENT, f"{name}: {res.error.message}"
    if before.stdout_bytes != after.stdout_bytes:
        return DIFFERENT, first_difference(_text(before.stdout_bytes),
                                           _text(after.stdout_bytes), names)
    if _fault(before) != _fault(after):
        return DIFFERENT, (f"run-time error: {names[0]} {_fault(before)!r} vs "
                           f"{names[1]} {_fault(after)!r}")
    if before.error is not None:  # the same error on both sides: agreement up to it only
        where = [str(r.error.loc) if r.error.loc is not None else "?" for r in (before, after)]
        at = f"at {where[0]}" if where[0] == where[1] else \
            f"{names[0]} at {where[0]}, {names[1]} at {where[1]}"
        hint = " -- give more input values" if "input exhausted" in _fault(before) else ""
        return NOT_COMPARED, (f"both runs stopped on the same run-time error: "
                              f"{before.error.message} ({at}){hint}")
    if before.return_value != after.return_value:
        return DIFFERENT, (f"return value: {names[0]} {before.return_value} vs "
                           f"{names[1]} {after.return_value}")
    return IDENTICAL, ""


def compare_modules(before: Module, after: Module, cases: Iterable = (((), ()),), *,
                    entry: str = "main", fuel: int = DEFAULT_FUEL,
                    memory_limit: int = DEFAULT_MEMORY_LIMIT,
                    max_depth: int = DEFAULT_MAX_DEPTH, engine: str = "auto") -> TransformCheck:
    """Run ``before`` and ``after`` (a transformed ``before``) on each case and compare.

    Parameters
    ----------
    before, after: the original and the transformed module.
    cases: ``(args, inputs)`` pairs: arguments of ``entry`` and the values ``input`` reads.
    entry: the function both runs start at.
    fuel, memory_limit, max_depth: limits of each run (``run_module``); a run that hits one is
        ``not compared``, never ``identical``.
    engine: ``auto`` | ``interp`` | ``native`` (``pylogic.interp.native.run_with``; every
        engine gives the interpreter's result).

    A case is ``identical`` only when both runs completed normally and agree; both stopping on
    the same run-time error (an input list too short, a division by zero) is ``not compared``
    (``compare_runs``).

    Returns: a ``TransformCheck`` with one ``Comparison`` per case, each with both runs' counts
    and counts by kind of instruction.

    Example: ``compare_modules(m, if_converted, [((), (1, 0))]).verdict == "identical"``.
    References: predicated_cp.md §3.2 (if-conversion keeps behaviour).
    """
    check = TransformCheck()
    for args, inputs in cases:
        args, inputs = tuple(int(a) for a in args), tuple(int(i) for i in inputs)
        runs = [run_with(engine, m, entry=entry, args=args, inputs=inputs, fuel=fuel,
                         memory_limit=memory_limit, max_depth=max_depth)
                for m in (before, after)]
        verdict, detail = compare_runs(*runs)
        check.comparisons.append(Comparison(args, inputs, verdict, detail, *runs))
    return check


# ---------------------------------------------------------------- native vs PIR

#: Validation statuses whose verdict is identical / different; every other status is
#: ``not compared`` (could not be checked).
_STATUS_VERDICT = {"identical": IDENTICAL, "different": DIFFERENT}
#: Name of the entry function ``with_argv`` adds.
START_FUNCTION = "@__pathlogic_start"


@dataclass
class Validation:
    """Outcome of one native-vs-PIR run. ``status``: identical | different, or one of the
    could-not-check statuses: incomplete (a difference, but functions or globals were skipped
    at import) | timeout | fuel | limit (another interpreter limit) | unsupported (the PIR run
    needed an external or feature the interpreter does not have) | both-stopped (the native run
    died by a signal and the PIR run stopped on a run-time error, after the same output) |
    no-main | not-imported (main was skipped at import) | import-error | native-error |
    native-fails (a self-checking program failed natively) | no-tool."""
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
        """identical, different, or not compared (every other status)."""
        return _STATUS_VERDICT.get(self.status, NOT_COMPARED)

    @property
    def exit_code(self) -> int:
        """0 identical, 1 different, 2 could not be checked (``EXIT_STATUS``)."""
        return exit_status(self.verdict)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["verdict"] = self.verdict
        d["exit_code"] = self.exit_code
        return d


def _status_of_returncode(rc: int) -> int:
    return 128 - rc if rc < 0 else rc & 0xFF  # a signal (abort: -6) reads as 128+6 like a shell


def run_native(path: str, args=(), timeout: float = NATIVE_TIMEOUT,
               exe_dir: str | None = None, ldflags=()) -> tuple[str, int]:
    """Run the original program: a ``.c`` built by clang-14, a ``.ll`` by ``lli`` (or built by
    clang-14 when ``ldflags`` are given).

    Parameters: ``args``: ``argv[1:]`` (strings or integers); ``argv[0]`` is ``path`` as given
    (what ``lli`` passes too, and what ``with_argv`` gives the PIR run); ``ldflags``: link flags
    of the clang build (``("-lz", "-lm")``). Standard input is empty (``/dev/null``).
    Returns: ``(stdout decoded as latin-1, exit status)``; a signal reads as 128 + its number.
    Raises TimeoutError after ``timeout`` seconds, PathlogicError when it cannot be built or
    ``lli`` is missing.
    """
    argv = [str(path), *(str(a) for a in args)]
    with tempfile.TemporaryDirectory(prefix="pathlogic-val-", dir=exe_dir) as tmp:
        if path.endswith(".c") or ldflags:
            exe = os.path.join(tmp, "native")
            build_native(path, exe, ldflags)
            cmd, executable = argv, exe
        else:
            lli = find_lli()
            if lli is None:
                raise PathlogicError("lli not found (install llvm-14 to validate .ll files)")
            cmd, executable = [lli, *argv], None
        try:
            proc = subprocess.run(cmd, executable=executable, capture_output=True,
                                  stdin=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"native run exceeded {timeout:g} s") from None
        return _text(proc.stdout), _status_of_returncode(proc.returncode)


def build_native(path: str, exe: str, ldflags=(), timeout: float = 120) -> None:
    """Build ``path`` (``.c``, or ``.ll``) into the executable ``exe`` with clang-14; the link
    flags ``ldflags`` come after the object file, where the linker needs them (static archives
    are searched only for symbols already undefined).

    Raises PathlogicError (located at ``path``) when compiling or linking fails.
    """
    if not ldflags:
        compile_native(path, exe)
        return
    obj = exe + ".o"
    compile_native(path, obj, ("-c",))
    cmd = [find_clang() or "clang", obj, *ldflags, "-o", exe]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PathlogicError(f"linking with {' '.join(ldflags)} failed: {exc}",
                             SourceLoc(path)) from None
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        key = next((ln for ln in lines if "undefined reference" in ln or "cannot find" in ln
                    or "error" in ln), lines[0] if lines else f"exit {proc.returncode}")
        raise PathlogicError(f"linking with {' '.join(ldflags)} failed: {key.strip()}",
                             SourceLoc(path))


def with_argv(module: Module, argv, entry: str = "main") -> tuple[Module, str]:
    """``module`` plus an entry function that starts ``entry`` the way a C program starts:
    ``main(argc, argv, envp)`` with ``argv`` (strings, ``argv[0]`` included) and an empty
    ``envp`` laid out in globals; a ``main`` with fewer parameters gets the first ones only.

    Returns: ``(new module, name of the new entry function)``; the module itself when it has
    no defined ``entry`` (the run then reports the missing function).
    Example: ``m2, entry = with_argv(m, ["p.c", "7"]); run_module(m2, entry=entry)`` runs
    ``main(2, {"p.c", "7", NULL}, {NULL})``.
    """
    from pylogic.interp.decode import resolve_function
    from pylogic.ir.model import (BinOp, Block, Call, Function, Global, GlobalAddr, Imm, Module,
                                  Reg, Ret, Store)
    main = resolve_function(module.function_map(), entry)
    if main is None:
        return module, entry
    taken = {g.name for g in module.globals} | {f.name for f in module.functions}

    def fresh(base: str) -> str:
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}.{k}"
        taken.add(name)
        return name

    strings = [os.fsencode(str(a)) + b"\0" for a in argv]
    names = [fresh(f"@__pathlogic_argv{k}") for k in range(len(strings))]
    array, envp, start = fresh("@__pathlogic_argv"), fresh("@__pathlogic_envp"), \
        fresh(START_FUNCTION)
    globals_ = [Global(name=n, size=len(data), init=data) for n, data in zip(names, strings)]
    globals_ += [Global(name=array, size=8 * (len(strings) + 1)), Global(name=envp, size=8)]
    instrs = []
    for k, name in enumerate(names):
        slot = GlobalAddr(array)
        if k:
            instrs.append(BinOp(op="add", dest=f"%a{k}", a=GlobalAddr(array), b=Imm(8 * k)))
            slot = Reg(f"%a{k}")
        instrs.append(Store(addr=slot, value=GlobalAddr(name), size=8))
    params = (Imm(len(strings)), GlobalAddr(array), GlobalAddr(envp))
    params += (Imm(0),) * max(0, len(main.params) - len(params))
    instrs.append(Call(dest="%status", callee=main.name, args=params[:len(main.params)]))
    instrs.append(Ret(value=Reg("%status")))
    fn = Function(name=start, params=(), blocks=(Block(label="entry", instrs=tuple(instrs)),))
    new = Module(functions=module.functions + (fn,), globals=module.globals + tuple(globals_),
                 path=module.path)
    return new, start


def _native_signal(status: Optional[int]) -> bool:
    """A native exit status that reads as death by a signal (128 + its number)."""
    return status is not None and 128 < status < 128 + 65


def native_vs_pir(path: str, fuel: int = NATIVE_FUEL, args=(), inputs=(),
                  timeout: float = NATIVE_TIMEOUT, *, module: Optional[Module] = None,
                  report=None, self_checking: bool = False,
                  native: Callable = run_native, ldflags=(), engine: str = "auto") -> Validation:
    """Run ``path`` natively and through import + interpreter; compare stdout and exit status.

    Parameters
    ----------
    path: a ``.c`` or ``.ll`` program with ``main``.
    fuel: interpreter instruction budget; ``timeout``: seconds for the native run.
    args: the program's arguments, ``argv[1:]``: both runs see ``argc = len(args) + 1`` and
        the same ``argv`` strings (``argv[0]`` is ``path``; ``with_argv``).
    inputs: values of PIR ``input`` (imported C does not read them).
    module, report: the program already imported (``load_program(path)``), to skip importing.
    self_checking: the program checks itself (gcc torture): a native exit status other than 0
        is ``native-fails`` (not compared).
    native: the native runner (``run_native``; a stand-in in tests).
    ldflags: link flags of the native build (``("-lz",)``).
    engine: how the PIR runs: ``auto`` | ``interp`` | ``native`` (``run_with``).

    Returns: a ``Validation``; ``identical`` only when both runs completed normally with the
    same output bytes and exit status; a program the interpreter cannot run (no ``main``, an
    external it does not have) is not compared (``unsupported``, ``no-main``), never
    ``different``.

    Example: ``native_vs_pir("tests/ir/llvm/c/control.c").status == "identical"``.
    """
    from pylogic.interp.decode import resolve_function
    from pylogic.ir.load import load_program
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
    if resolve_function(module.function_map(), "main") is None:
        v.status, v.detail = "no-main", "the program has no main function: nothing to run"
        return v
    try:
        extra = {"ldflags": tuple(ldflags)} if ldflags else {}
        v.native_stdout, v.native_exit = native(path, args, timeout, **extra)
    except TimeoutError as exc:
        v.status, v.detail = "timeout", str(exc)
        return v
    except PathlogicError as exc:
        v.status, v.detail = "native-error", str(exc)
        if "ld:" in v.detail and not ldflags:
            v.detail += " (the native link failed: --ldflags adds libraries, e.g. --ldflags=-lz)"
        return v
    if self_checking and v.native_exit != 0:
        v.status, v.detail = "native-fails", f"native exit {v.native_exit}"
        return v
    started, entry = with_argv(module, [path, *args])
    t0 = time.perf_counter()
    res = run_with(engine, started, entry=entry, inputs=tuple(int(i) for i in inputs), fuel=fuel)
    v.pir_seconds = time.perf_counter() - t0
    v.pir_stdout, v.pir_exit = _text(res.stdout_bytes), res.exit_status
    v.pir_instructions_executed = int(res.counts.get("instructions", 0))
    why = limit_reached(res)
    if why is not None:
        v.status = "fuel" if why.startswith("fuel") else "limit"
        v.detail = (f"interpreter ran out of fuel ({fuel} instructions)" if v.status == "fuel"
                    else f"interpreter {why}")
        return v
    gap = interpreter_gap(res)
    if gap is not None:
        v.status = "unsupported"
        why = next((f"{name} was skipped at import: {reason}"
                    for reason, names in v.skipped.items() for name in names
                    if gap.endswith(f"function {name}")),
                   "the interpreter cannot run this program")
        v.detail = f"the PIR run stopped: {res.error} ({why})"
        return v
    same_output = v.native_stdout == v.pir_stdout
    if res.error is None and same_output and v.native_exit == v.pir_exit:
        return v
    if res.error is not None and same_output and _native_signal(v.native_exit):
        v.status = "both-stopped"
        v.detail = (f"both runs stopped: native by signal {v.native_exit - 128} "
                    f"(exit {v.native_exit}), pir {res.error}")
        return v
    if not same_output:
        v.detail = first_difference(v.native_stdout, v.pir_stdout)
    elif res.error is not None:
        v.detail = f"the pir run stopped, the native run exited {v.native_exit}"
    else:
        v.detail = f"exit status: native {v.native_exit} vs pir {v.pir_exit}"
    if res.error is not None:
        v.detail += f" (pir run-time error: {res.error})"
    v.status = "incomplete" if report is not None and not report.complete else DIFFERENT
    return v
