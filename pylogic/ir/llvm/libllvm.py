"""``opt -S -passes=PASSES`` in this process: the LLVM-C API of the ``libLLVM`` shared library
the found opt is linked with (Debian's opt-14 is a thin driver over ``libLLVM-14.so``), through
ctypes. An opt process per C file spent about half its CPU starting up (loading and relocating
that library, #32); here it is loaded once per process.

The text is what ``opt -S`` prints: opt parses the file, verifies it, runs the pipeline parsed
by the same ``PassBuilder`` (``LLVMRunPasses``, LLVM >= 13) and prints the module without
use-list orders, as ``LLVMPrintModuleToString`` does (opt 14's ``opt.cpp``; the target machine
opt makes for the triple changes neither ``mem2reg`` nor ``lowerswitch``). opt also verifies
its result; here whoever reads the text does: the importer (llvmlite, ``importer._parse_llvm``) or
an opt given the text.
Only the ``; ModuleID`` comment differs (opt names its temporary input file there). Whatever
fails here (no library, an older one, a parse or verifier error) gives None: the caller runs
opt, whose message locates the error as before.
"""
from __future__ import annotations

import os

_LIB = None          # the loaded library, False when it cannot be had


def _library(opt_path: str):
    global _LIB
    if _LIB is None:
        _LIB = _load(os.path.join(os.path.dirname(os.path.realpath(opt_path)), os.pardir, "lib",
                                  "libLLVM.so"))
    return _LIB or None


def _load(path: str):
    import ctypes
    try:
        lib = ctypes.CDLL(path)                   # RTLD_LOCAL: llvmlite's LLVM is another one
        p, s = ctypes.c_void_p, ctypes.c_char_p
        for name, res, args in (
                ("LLVMContextCreate", p, []),
                ("LLVMContextDispose", None, [p]),
                ("LLVMCreateMemoryBufferWithMemoryRangeCopy", p, [s, ctypes.c_size_t, s]),
                ("LLVMParseIRInContext", ctypes.c_int, [p, p, ctypes.POINTER(p),
                                                         ctypes.POINTER(p)]),
                ("LLVMVerifyModule", ctypes.c_int, [p, ctypes.c_int, ctypes.POINTER(p)]),
                ("LLVMCreatePassBuilderOptions", p, []),
                ("LLVMDisposePassBuilderOptions", None, [p]),
                ("LLVMRunPasses", p, [p, s, p, p]),
                ("LLVMConsumeError", None, [p]),
                ("LLVMPrintModuleToString", p, [p]),
                ("LLVMDisposeMessage", None, [p]),
                ("LLVMDisposeModule", None, [p])):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
    except (OSError, AttributeError):
        return False
    return lib


#: LLVMVerifierFailureAction: report through the message, do not print or abort.
_RETURN_STATUS = 2


def run_passes(opt_path: str, ll_text: str, passes: str) -> str | None:
    """What ``opt -S -passes=PASSES`` prints for ``ll_text`` (see the module), or None."""
    import ctypes
    lib = _library(opt_path)
    if lib is None:
        return None
    ctx = lib.LLVMContextCreate()
    module, msg = ctypes.c_void_p(), ctypes.c_void_p()
    try:
        data = ll_text.encode()
        buf = lib.LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len(data), b"in.ll")
        if lib.LLVMParseIRInContext(ctx, buf, ctypes.byref(module), ctypes.byref(msg)):
            return None                           # (the parser owns and frees the buffer)
        if _broken(lib, module, msg):
            return None
        options = lib.LLVMCreatePassBuilderOptions()
        try:
            error = lib.LLVMRunPasses(module, passes.encode(), None, options)
        finally:
            lib.LLVMDisposePassBuilderOptions(options)
        if error:
            lib.LLVMConsumeError(error)
            return None
        printed = lib.LLVMPrintModuleToString(module)
        try:
            return ctypes.string_at(printed).decode()
        finally:
            lib.LLVMDisposeMessage(printed)
    finally:
        if msg.value:
            lib.LLVMDisposeMessage(msg)
        if module.value:
            lib.LLVMDisposeModule(module)
        lib.LLVMContextDispose(ctx)


def _broken(lib, module, msg) -> bool:
    """The verifier's verdict on ``module`` (its message, if any, is left in ``msg``)."""
    import ctypes
    if msg.value:
        lib.LLVMDisposeMessage(msg)
        msg.value = None
    return bool(lib.LLVMVerifyModule(module, _RETURN_STATUS, ctypes.byref(msg)))
