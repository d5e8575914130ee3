"""C -> LLVM IR with Debian's clang-14 (DESIGN.md "Inputs"):

    clang-14 -S -emit-llvm -O0 -Xclang -disable-O0-optnone -fno-discard-value-names
             -ffp-contract=off FILE.c
    opt -S -passes=mem2reg,lowerswitch

plus ``-I/usr/include/csmith`` so csmith programs compile. Also builds native executables (the
validation oracle).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile

from pylogic.errors import ImportError_, SourceLoc

#: ``-w``: warnings are never shown (clang spent a quarter of its time rendering csmith's, #32);
#: (text, not bitcode, for opt: opt's use lists, hence its ``preds`` order, follow the text.)
CLANG_FLAGS = ("-S", "-emit-llvm", "-O0", "-Xclang", "-disable-O0-optnone",
               "-fno-discard-value-names", "-ffp-contract=off", "-w")
OPT_PASSES = "mem2reg,lowerswitch"
CSMITH_INCLUDE = "/usr/include/csmith"
#: Native builds: same front end, no optimisation surprises (-fwrapv is NOT used: UB-free
#: programs such as csmith's behave the same either way).
NATIVE_FLAGS = ("-O0", "-w")


def _find(names) -> str | None:
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def find_clang() -> str | None:
    """Path of clang-14 (or clang), or None."""
    return _find(("clang-14", "clang"))


def find_opt() -> str | None:
    """Path of opt-14 (or opt), or None."""
    return _find(("opt-14", "opt"))


def find_lli() -> str | None:
    return _find(("lli-14", "lli"))


def _include_flags() -> list[str]:
    return ["-I" + CSMITH_INCLUDE] if os.path.isdir(CSMITH_INCLUDE) else []


def _first_error(stderr: str, c_path: str) -> ImportError_:
    """clang's first ``file:line:col: error: msg`` as a located ImportError_."""
    for line in stderr.splitlines():
        m = re.match(r"(.*?):(\d+):(\d+): (?:fatal )?error: (.*)", line)
        if m:
            return ImportError_(m.group(4), SourceLoc(m.group(1) or c_path, int(m.group(2)), int(m.group(3))))
    text = stderr.strip().splitlines()
    return ImportError_(text[0] if text else "clang failed", SourceLoc(c_path))


def _clang_ll(c_path, flags, extra_flags, timeout) -> str:
    """clang's LLVM IR text of a C file compiled with ``flags``; located errors as prepare_c's."""
    c_path = str(c_path)
    clang = find_clang()
    if clang is None:
        raise ImportError_("clang not found (install clang-14 to read .c files)", SourceLoc(c_path))
    if not os.path.exists(c_path):
        raise ImportError_("no such file", SourceLoc(c_path))
    with tempfile.TemporaryDirectory(prefix="pathlogic-cc-") as tmp:
        raw = os.path.join(tmp, "raw.ll")
        cmd = [clang, *flags, *_include_flags(), *extra_flags, c_path, "-o", raw]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ImportError_("clang timed out", SourceLoc(c_path))
        if proc.returncode != 0:
            raise _first_error(proc.stderr, c_path)
        with open(raw) as fh:
            return fh.read()


def prepare_c(c_path, extra_flags=(), timeout: float = 120, clang_text: str | None = None) -> str:
    """The LLVM IR text the importer reads for a C file: clang-14 at -O0 (``CLANG_FLAGS``), then
    ``opt -passes=mem2reg,lowerswitch`` (``OPT_PASSES``). Benchmarks that compare optimizers
    start every pipeline from this text, so nobody gets a head start. ``clang_text``: clang's
    text of the file when already at hand (``clang_many``), then only opt runs. The passes run
    in this process when opt's libLLVM can be loaded (``libllvm.run_passes``: the same text,
    the ``; ModuleID`` comment aside), else in an opt process.

    Raises ImportError_ located at clang's first error, or a clear error when clang is absent.
    """
    if clang_text is None:
        clang_text = _clang_ll(c_path, CLANG_FLAGS, extra_flags, timeout)
    opt = find_opt()
    if opt is not None:                 # opt's own text, without an opt process per file
        from pylogic.ir.llvm.libllvm import run_passes
        text = run_passes(opt, clang_text, OPT_PASSES)
        if text is not None:
            return text
    return run_opt(clang_text, OPT_PASSES, str(c_path), timeout=timeout)


#: clang's own -O2, without the loop and SLP vectorizers (the importer reads scalar code only):
#: the starting point of ``benchmarks/optimize.py --from O2`` (issue #28 item 3). Unlike
#: ``opt -passes='default<O2>'`` on prepare_c's text (whose functions clang marked ``noinline``
#: at -O0), this inlines as a compiler would.
O2_FLAGS = ("-S", "-emit-llvm", "-O2", "-fno-vectorize", "-fno-slp-vectorize",
            "-fno-discard-value-names", "-ffp-contract=off")


def compile_c_o2(c_path, extra_flags=(), timeout: float = 120) -> str:
    """The LLVM IR text of clang-14 ``O2_FLAGS`` on a C file (errors as prepare_c's)."""
    return _clang_ll(c_path, O2_FLAGS, extra_flags, timeout)


#: What ``prepare_c`` does, for the records of benchmarks that start from its output.
PREPARATION = (f"clang-14 {' '.join(CLANG_FLAGS)} [-I{CSMITH_INCLUDE}] FILE.c; "
               f"opt -S -passes={OPT_PASSES}")


#: A named type's definition line in clang's text, searched in "\n" + the text (a multi-line
#: ``^`` is tried at every position: 0.19 -> 0.015 s on the 40 csmith modules, #32).
_TYPE_DEFINITION = re.compile(r"\n(%[-A-Za-z$._0-9]+) = type ")
_UNIQUE_SUFFIX = re.compile(r"\.\d+\Z")


def clang_many(c_paths, extra_flags=(), timeout: float = 120) -> dict[str, str]:
    """clang's text (``CLANG_FLAGS``) of several C files from one ``clang -cc1`` process: what
    ``_clang_ll`` gives for each, without a driver and a cc1 start per file (about 0.03 s of
    CPU each, a third of clang's time on csmith programs, #32). ``{path: text}`` of the files
    it vouches for; the caller compiles the others alone (``prepare_c``), so a file's errors
    are its own.

    The driver's cc1 command for the first file (``clang -###``) is run on all of them with
    ``-o -``: cc1 compiles its inputs in turn and prints each module after the last, each
    starting with ``; ModuleID = 'PATH'``. The modules share one LLVMContext, which makes named
    struct types unique across them (``%struct.S`` of a second file is ``%struct.S.3``); a
    module whose types have distinct names once such a suffix is dropped had no clash of its
    own, so dropping the suffixes gives the text of a fresh context; a module with a clash of
    its own (two ``struct.anon``) is left out. Any failure (an error in one file, a timeout,
    a command or output of another shape) leaves every file to ``prepare_c``.
    """
    paths = [str(p) for p in c_paths]
    clang = find_clang()
    if clang is None or len(paths) < 2:
        return {}
    try:
        driver = subprocess.run([clang, "-###", *CLANG_FLAGS, *_include_flags(), *extra_flags,
                                 paths[0], "-o", "-"], capture_output=True, text=True,
                                timeout=timeout)
        jobs = [line for line in driver.stderr.splitlines() if line.startswith(" \"")]
        cc1 = shlex.split(jobs[0]) if driver.returncode == 0 and len(jobs) == 1 else []
        if cc1[1:2] != ["-cc1"] or cc1[-1:] != paths[:1] or \
                ("-o", "-") not in zip(cc1, cc1[1:]):
            return {}
        proc = subprocess.run([*cc1[:-1], *paths], capture_output=True, text=True,
                              timeout=timeout * len(paths))
    except (subprocess.TimeoutExpired, OSError, ValueError):
        return {}
    if proc.returncode != 0:
        return {}
    out, starts = proc.stdout, []
    for path in paths:
        at = out.find(f"; ModuleID = '{path}'\n", starts[-1] + 1 if starts else 0)
        if at < 0 or (at and out[at - 1] != "\n") or (not starts and at):
            return {}
        starts.append(at)
    texts = {}
    for path, start, end in zip(paths, starts, starts[1:] + [len(out)]):
        text = _fresh_type_names(out[start:end])
        if text is not None:
            texts[path] = text
    return texts


def _fresh_type_names(text: str) -> str | None:
    """A module of ``clang_many``'s output with its struct type names as a process of its own
    names them; None when that cannot be told (see there), or when a name the renaming gives
    is in use."""
    names = _TYPE_DEFINITION.findall("\n" + text)
    bases = [_UNIQUE_SUFFIX.sub("", n) for n in names]
    if len(set(bases)) != len(bases):
        return None
    renamed = {n: b for n, b in zip(names, bases) if n != b}
    if not renamed:
        return text
    taken = set(renamed.values())
    words = "|".join(map(re.escape, sorted(renamed.keys() | taken, key=len, reverse=True)))
    pieces, at = [], 0
    for m in re.finditer(rf"(?:{words})(?![-A-Za-z$._0-9\"])", text):
        if _quoted_or_comment(text[text.rfind("\n", 0, m.start()) + 1:m.start()]):
            continue
        if m.group() in taken:
            return None
        pieces += (text[at:m.start()], renamed[m.group()])
        at = m.end()
    return "".join(pieces) + text[at:]


def _quoted_or_comment(line: str) -> bool:
    """Whether what follows the start of a line ``line`` is in a string or a comment (LLVM's
    lexer: a comment runs from ``;`` to the end of the line, a string holds no ``"``)."""
    if '"' not in line and ";" not in line:
        return False
    rest = re.sub(r'"[^"]*"', "", line)
    return '"' in rest or ";" in rest


def run_opt(ll_text: str, passes: str, path: str = "<input>", extra_args=(),
            timeout: float = 120) -> str:
    """``opt -S -passes=PASSES [extra_args]`` on LLVM IR text; the output text.

    Raises ImportError_ (located at ``path``) when opt is absent, fails or times out.
    """
    opt = find_opt()
    if opt is None:
        raise ImportError_("opt not found (install llvm-14 to read .c files)", SourceLoc(path))
    with tempfile.TemporaryDirectory(prefix="pathlogic-opt-") as tmp:
        src, out = os.path.join(tmp, "in.ll"), os.path.join(tmp, "opt.ll")
        with open(src, "w") as fh:
            fh.write(ll_text)
        try:
            proc = subprocess.run([opt, "-S", f"-passes={passes}", *extra_args, src, "-o", out],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ImportError_(f"opt -passes={passes} timed out", SourceLoc(path))
        if proc.returncode != 0:
            raise ImportError_(f"opt failed: {proc.stderr.strip()[:200]}", SourceLoc(path))
        with open(out) as fh:
            return fh.read()


def compile_c_to_ll(c_path, extra_flags=(), timeout: float = 120) -> str:
    """Compile a C file to LLVM IR text (after mem2reg and lowerswitch): ``prepare_c``."""
    return prepare_c(c_path, extra_flags, timeout)


def compile_native(c_path, exe_path, extra_flags=(), timeout: float = 120) -> None:
    """Build a native executable with the same clang (the oracle of ``pathlogic validate``)."""
    clang = find_clang()
    if clang is None:
        raise ImportError_("clang not found", SourceLoc(str(c_path)))
    proc = subprocess.run([clang, *NATIVE_FLAGS, *_include_flags(), *extra_flags, str(c_path),
                           "-o", str(exe_path)], capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise _first_error(proc.stderr, str(c_path))
