"""``pathlogic validate FILE.c|FILE.ll``: differential validation of the front end.

Runs the original natively (clang-14 build for ``.c``, ``lli`` for ``.ll``, with a timeout) and
the imported PIR in the reference interpreter, then compares stdout and exit status.
Exit code: 0 identical, 1 different, 2 could not be run (no clang/lli, timeout, fuel, main not
imported, or a difference explained by skipped functions).
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field

from pylogic.errors import PathlogicError

DEFAULT_FUEL = 50_000_000
DEFAULT_TIMEOUT = 10.0


@dataclass
class Validation:
    """Outcome of one differential run. ``status``: identical | different | timeout | fuel |
    not-imported | import-error | native-error | no-tool | incomplete."""
    path: str
    status: str
    detail: str = ""
    native_stdout: str = ""
    native_exit: int | None = None
    pir_stdout: str = ""
    pir_exit: int | None = None
    pir_instructions_executed: int = 0
    skipped: dict = field(default_factory=dict)
    import_totals: dict = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return {"identical": 0, "different": 1}.get(self.status, 2)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["exit_code"] = self.exit_code
        return d


def _status_of_returncode(rc: int) -> int:
    return 128 - rc if rc < 0 else rc & 0xFF  # a signal (abort: -6) reads as 128+6 like a shell


def run_native(path: str, args=(), timeout: float = DEFAULT_TIMEOUT, exe_dir: str | None = None):
    """Run the original program: -> (stdout, exit status) or raises TimeoutError / PathlogicError."""
    from pylogic.ir.llvm.clang import compile_native, find_lli
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
            raise TimeoutError(f"native run exceeded {timeout:g} s")
        return proc.stdout.decode("latin-1"), _status_of_returncode(proc.returncode)


def first_difference(a: str, b: str) -> str:
    """Describe the first differing line of two outputs."""
    la, lb = a.splitlines(), b.splitlines()
    for k, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {k + 1}: native {x!r} vs pir {y!r}"
    if len(la) != len(lb):
        k = min(len(la), len(lb))
        extra = (f"native has more: {la[k]!r}" if len(la) > k else f"pir has more: {lb[k]!r}")
        return f"line {k + 1}: {extra}"
    return "outputs differ in trailing newline"


def validate_program(path: str, fuel: int = DEFAULT_FUEL, args=(), inputs=(),
                     timeout: float = DEFAULT_TIMEOUT) -> Validation:
    """Run ``path`` natively and through import + interpreter; compare the observable behaviour."""
    from pylogic.interp import run_module
    from pylogic.ir.llvm.clang import find_clang
    from pylogic.ir.load import load_program
    path = str(path)
    v = Validation(path=path, status="identical")
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
        v.native_stdout, v.native_exit = run_native(path, args, timeout)
    except TimeoutError as exc:
        v.status, v.detail = "timeout", str(exc)
        return v
    except PathlogicError as exc:
        v.status, v.detail = "native-error", str(exc)
        return v
    res = run_module(module, entry="main", args=tuple(int(a) for a in args),
                     inputs=tuple(int(i) for i in inputs), fuel=fuel)
    v.pir_stdout, v.pir_exit = res.stdout, res.exit_status
    v.pir_instructions_executed = int(res.counts.get("instructions", 0))
    if res.error is not None and "fuel" in res.error.message:
        v.status, v.detail = "fuel", f"interpreter ran out of fuel ({fuel} instructions)"
        return v
    if v.native_stdout == v.pir_stdout and v.native_exit == v.pir_exit:
        return v
    if v.native_stdout != v.pir_stdout:
        v.detail = first_difference(v.native_stdout, v.pir_stdout)
    else:
        v.detail = f"exit status: native {v.native_exit} vs pir {v.pir_exit}"
    if res.error is not None:
        v.detail += f" (pir run-time error: {res.error})"
    v.status = "incomplete" if v.skipped else "different"
    return v


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "validate", help="run a .c/.ll program natively and imported (PIR interpreter); compare",
        description="Differential validation of the LLVM/C front end: exit 0 identical, "
                    "1 different, 2 could not be run or import incomplete.")
    p.add_argument("file", help="a .c or .ll program")
    p.add_argument("--fuel", type=int, default=DEFAULT_FUEL, help="interpreter instruction budget")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="native run timeout (s)")
    p.add_argument("--args", nargs="*", default=[], type=int, help="arguments of main")
    p.add_argument("--input", nargs="*", default=[], type=int, help="values for PIR 'input'")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    if not (args.file.endswith(".c") or args.file.endswith(".ll")):
        raise PathlogicError(f"{args.file}: validate takes a .c or .ll file")
    v = validate_program(args.file, args.fuel, args.args, args.input, args.timeout)
    if args.json:
        print(json.dumps(v.to_dict(), indent=2))
        return v.exit_code
    if v.status == "identical":
        print(f"{v.path}: identical (exit {v.native_exit}, {len(v.native_stdout.splitlines())} "
              f"output lines, {v.pir_instructions_executed} PIR instructions executed)")
    else:
        print(f"{v.path}: {v.status}: {v.detail}")
    if v.skipped and (v.status != "identical" or True):
        for reason, names in sorted(v.skipped.items()):
            print(f"  skipped ({reason}): {', '.join(names)}")
    return v.exit_code
