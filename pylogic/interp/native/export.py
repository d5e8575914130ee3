"""A PIR module as a standalone LLVM IR program (``pathlogic export --llvm``).

The code is the native engine's (``compile.py``, one lowering of PIR to LLVM); what the engine
takes from Python -- the segment table, the globals, the C library, ``print``/``input`` -- comes
from ``runtime.c``, compiled by clang-14 and linked in with llvm-link-14, so the output is one
``.ll`` file: ``clang-14 -mllvm -opaque-pointers OUT.ll -o prog`` (LLVM 14 reads the ``ptr``
type only in that mode; later clangs read it by default).

Semantics (what the native engine guarantees, kept): a run that ends normally gives the
interpreter's stdout and exit status (the return value & 255; ``exit``/``abort`` statuses);
memory is the interpreter's segmented memory with the same segment ids, bounds, read-only const
globals and live-byte limit; arithmetic is 64-bit wrapping, shifts take the count mod 64,
``div``/``rem`` by zero fault and INT64_MIN / -1 wraps (docs/pir.md); the call depth limit is
the interpreter's. A run-time fault stops the program with status 70 (``ERROR_STATUS``) after
the output written before it, with one ``pathlogic: run-time error: ...`` line on stderr (the
reason, without the interpreter's source location). Without ``fuel`` the program has no
instruction limit; with it, the precise variant counts every instruction and stops exactly where
the interpreter stops (status 70).
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile

from pylogic.errors import PathlogicError, SourceLoc

RUNTIME = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime.c")
#: how the runtime is compiled into the exported module
RUNTIME_FLAGS = ("-S", "-emit-llvm", "-O2", "-mllvm", "-opaque-pointers", "-w")
#: how an exported module is compiled (the test and the docs use this)
CLANG_FLAGS = ("-mllvm", "-opaque-pointers", "-w")


def runtime_builtins() -> set[str]:
    """The interpreter builtins (``Builtins`` method names) the runtime implements: its
    ``PLRT(name)`` definitions."""
    with open(RUNTIME) as fh:
        return set(re.findall(r"^PLRT\((\w+)\)", fh.read(), re.M))


def _tool(names, what: str, path: str) -> str:
    import shutil
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    raise PathlogicError(f"{names[0]} not found (install {what} to export LLVM IR)", SourceLoc(path))


@functools.lru_cache(maxsize=4)
def _runtime_ir(clang: str, source: bytes) -> str:
    """``runtime.c`` compiled by ``clang`` (``RUNTIME_FLAGS``), keyed by its bytes ``source``:
    one compile per process, not one per export (0.5 s CPU each)."""
    with tempfile.TemporaryDirectory(prefix="pathlogic-runtime-") as tmp:
        out = os.path.join(tmp, "runtime.ll")
        _checked([clang, *RUNTIME_FLAGS, RUNTIME, "-o", out], "the runtime", SourceLoc(RUNTIME))
        with open(out) as fh:
            return fh.read()


def _checked(cmd: list[str], what: str, where: SourceLoc) -> None:
    """Run ``cmd`` on ``what`` (the exported module, the runtime); a failure is our own output
    or runtime rejected: a bug, said plainly at ``where``."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise PathlogicError(f"{os.path.basename(cmd[0])} failed on {what}: "
                             f"{proc.stderr.strip()[:300]}", where)


def _bytes_ir(data: bytes) -> str:
    return "c\"" + "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:02X}"
                           for b in data) + "\""


def export_llvm(module, entry: str = "main", fuel: int | None = None,
                max_depth: int | None = None, memory_limit: int | None = None) -> str:
    """The LLVM IR text of a standalone program running ``entry`` of ``module``.

    Raises a located PathlogicError for what cannot be exported: no such entry, exit splitting
    (the native engine does not compile it), a C library function the runtime does not provide,
    a missing clang-14/llvm-link-14."""
    from pylogic.interp.builtins import Builtins
    from pylogic.interp.decode import resolve_function
    from pylogic.interp.machine import DEFAULT_MAX_DEPTH, DEFAULT_MEMORY_LIMIT
    from pylogic.interp.memory import Memory
    from pylogic.interp.native.compile import compile_module
    from pylogic.ir.llvm.conventions import FAKE_FILES
    from pylogic.ir.model import uses_exit_splitting

    where = SourceLoc(module.path)
    f = resolve_function(module.function_map(), entry)
    if f is None or f.extern or not f.blocks:
        raise PathlogicError(f"no function {entry} to run", where)
    if uses_exit_splitting(module):
        raise PathlogicError("exit splitting (ret.N, call ... to L0, L1) is not compiled "
                             "natively, so it cannot be exported", where)
    lookup = Builtins(Memory(), []).lookup
    compiled = compile_module(module, lookup, precise=fuel is not None, export=True)
    have = runtime_builtins()
    methods = [getattr(lookup(name), "__name__", "") for name in compiled.builtins]
    missing = sorted({name for name, m in zip(compiled.builtins, methods) if m not in have})
    if missing:
        raise PathlogicError("the exported runtime does not provide "
                             + ", ".join(n.lstrip("@") for n in missing)
                             + " (the interpreter does; pylogic/interp/native/runtime.c)", where)
    info = compiled.functions[f.name]
    parts = [compiled.text, ""]
    # the globals, in the interpreter's allocation order (segment k + 1)
    rows = []
    for k, g in enumerate(module.globals):
        parts.append(f"@pl_rt_init{k} = private constant [{len(g.init)} x i8] {_bytes_ir(g.init)}")
        rows.append(f"{{ i64, ptr, i64, i64 }} {{ i64 {g.size}, ptr @pl_rt_init{k}, "
                    f"i64 {len(g.init)}, i64 {int(g.const)} }}")
    n = len(rows)
    parts.append(f"@pl_rt_nglobals = constant i64 {n}")
    parts.append(f"@pl_rt_globals = constant [{n} x {{ i64, ptr, i64, i64 }}] "
                 + (f"[{', '.join(rows)}]" if rows else "zeroinitializer"))
    settings = {"fuel": (1 << 63) - 1 if fuel is None else fuel,
                "maxdepth": DEFAULT_MAX_DEPTH if max_depth is None else max_depth,
                "memlimit": DEFAULT_MEMORY_LIMIT if memory_limit is None else memory_limit,
                "nparams": info.nparams, "stdout": FAKE_FILES["stdout"],
                "stderr": FAKE_FILES["stderr"]}
    for name, value in settings.items():
        parts.append(f"@pl_rt_{name} = constant i64 {value}")
    # builtin calls: id -> the runtime's plrt_<Builtins method>
    used = sorted(set(methods))
    parts += [f"declare i64 @plrt_{m}(ptr, i64)" for m in used]
    lines = ["define i64 @pl_rt_dispatch(i64 %bid, ptr %args, i64 %n) {",
             "  switch i64 %bid, label %none ["
             + " ".join(f"i64 {k}, label %b{k}" for k in range(len(methods))) + " ]"]
    for k, m in enumerate(methods):
        lines += [f"b{k}:", f"  %r{k} = call i64 @plrt_{m}(ptr %args, i64 %n)", f"  ret i64 %r{k}"]
    lines += ["none:", "  ret i64 0", "}", "",
              "define i64 @pl_rt_main(ptr %args) {",
              f"  %r = call i64 @pl_entry{info.index}(ptr %args)", "  ret i64 %r", "}", ""]
    parts += lines
    program = "\n".join(parts)
    clang = _tool(("clang-14", "clang"), "clang-14", module.path)
    link = _tool(("llvm-link-14", "llvm-link"), "llvm-14", module.path)
    with tempfile.TemporaryDirectory(prefix="pathlogic-export-") as tmp:
        pir, rt, out = (os.path.join(tmp, x) for x in ("program.ll", "runtime.ll", "out.ll"))
        with open(RUNTIME, "rb") as fh:
            runtime = _runtime_ir(clang, fh.read())
        for path, text in ((pir, program), (rt, runtime)):
            with open(path, "w") as fh:
                fh.write(text)
        _checked([link, "-opaque-pointers", "-S", pir, rt, "-o", out], "the exported module", where)
        with open(out) as fh:
            return fh.read()


__all__ = ["export_llvm", "runtime_builtins", "CLANG_FLAGS"]
