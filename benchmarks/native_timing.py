"""Native times of the optimization harness's versions (``benchmarks/optimize.py --native``).

Every version -- the original, ours, LLVM's, the ``--from`` start -- is a PIR module, and every
one goes the same way (issue #28 item 4: a gain shown in seconds as well as in counted
instructions): ``export_llvm`` (``pathlogic export --llvm``: the native engine's lowering plus
its runtime, the interpreter's segmented memory and counters included), then ``COMPILE``:

* ``opt-14 -passes=sroa``: PIR registers (``alloca`` slots of the lowering) to SSA values, which
  is what a register allocator makes of them (so a ``mov`` costs what it costs in a compiler);
* ``clang-14 -O2 -Xclang -disable-llvm-passes``: LLVM's code generator at -O2 (instruction
  selection, register allocation, machine passes) but no IR optimization, so the versions'
  differences -- what the pipelines removed or left -- reach the machine code instead of being
  redone (or undone) by LLVM's own -O2 on every version alike.

The binary runs ``repeat`` times; its time is the best CPU time (user + system of the child,
``benchmarks.common.children_cpu``), and every run's stdout and exit status must be the
interpreter's (``output``: ``identical`` or ``different``). ``floor`` is the same measure of an
exported program that does nothing (process start and runtime set-up), to read small times
against.
"""
from __future__ import annotations

import os
import subprocess
import tempfile

from benchmarks.common import children_cpu

#: how an exported module becomes a binary (see the module docstring); recorded in run files
SROA = ("opt-14", "-opaque-pointers", "-S", "-passes=sroa")
CLANG = ("clang-14", "-mllvm", "-opaque-pointers", "-O2", "-Xclang", "-disable-llvm-passes", "-w")
COMPILE = f"pathlogic export --llvm; {' '.join(SROA)}; {' '.join(CLANG)}"
REPEAT = 5
#: wall seconds one native run may take
TIMEOUT = 120


def build(module, directory: str) -> str:
    """The native executable of ``module`` (``COMPILE``), in ``directory``."""
    from pylogic.interp.native.export import export_llvm
    ll, ssa, exe = (os.path.join(directory, x) for x in ("out.ll", "ssa.ll", "prog"))
    with open(ll, "w") as fh:
        fh.write(export_llvm(module))
    subprocess.run([*SROA, ll, "-o", ssa], check=True, capture_output=True, timeout=300)
    subprocess.run([*CLANG, ssa, "-o", exe], check=True, capture_output=True, timeout=300)
    return exe


def time_binary(exe: str, expected: tuple[bytes, int] | None, repeat: int = REPEAT) -> dict:
    """``{"native_seconds": best CPU s, "native_output": identical|different}`` over ``repeat``
    runs of ``exe`` (no arguments, no input); ``expected``: (stdout, exit status) or None."""
    best, output = None, "identical"
    for _ in range(repeat):
        before = children_cpu()
        proc = subprocess.run([exe], capture_output=True, timeout=TIMEOUT)
        spent = children_cpu() - before
        best = spent if best is None else min(best, spent)
        if expected is not None and (proc.stdout, proc.returncode) != expected:
            output = "different"
    return {"native_seconds": round(best, 6), "native_output": output}


def time_module(module, expected: tuple[bytes, int] | None, repeat: int = REPEAT) -> dict:
    """``time_binary`` of ``module`` built by ``build``; ``native_error`` when it cannot be."""
    from pylogic.errors import PathlogicError
    with tempfile.TemporaryDirectory(prefix="pathlogic-native-") as tmp:
        try:
            exe = build(module, tmp)
        except PathlogicError as exc:
            return {"native_error": str(exc)[:200]}
        except subprocess.CalledProcessError as exc:
            return {"native_error": (exc.stderr or b"").decode(errors="replace")[:200]}
        return time_binary(exe, expected, repeat)


def floor(repeat: int = REPEAT) -> float:
    """The native time of an exported program that returns at once."""
    from pylogic.ir.parser import parse_module
    module = parse_module("func main() {\nentry:\n    ret 0\n}\n", "<floor>")
    return time_module(module, None, repeat)["native_seconds"]
