"""Read a ``.pir`` file into a verified module: the one call most commands need."""
from __future__ import annotations

from pylogic.ir.model import Module
from pylogic.ir.parser import parse_file, parse_module
from pylogic.ir.verify import check_module

__all__ = ["load_module", "load_text", "load_program"]


def load_module(path, verify: bool = True) -> Module:
    """Parse ``path`` (UTF-8 PIR) and, unless ``verify`` is False, verify it.

    Raises PathlogicError (unreadable file), ParseError (not UTF-8), ParseErrors (syntax) or
    VerifyErrors (structure; see pylogic.ir.verify), each printed by the CLI with file:line:col.
    """
    module = parse_file(path)
    return check_module(module) if verify else module


def load_text(text: str, path: str = "<input>", verify: bool = True) -> Module:
    """Like :func:`load_module` for PIR text already in memory."""
    module = parse_module(text, path)
    return check_module(module) if verify else module


def load_program(path, verify: bool = True):
    """Read a program by extension: ``.pir`` (parsed), ``.ll`` (LLVM import) or ``.c`` (clang-14,
    then LLVM import). Returns ``(Module, ImportReport | None)``; the report is None for ``.pir``.
    """
    from pylogic.errors import ImportError_, SourceLoc
    p = str(path)
    if p.endswith(".ll") or p.endswith(".c"):
        from pylogic.ir.llvm_import import import_llvm
        if p.endswith(".c"):
            from pylogic.ir.c_frontend import compile_c_to_ll
            text = compile_c_to_ll(p)
        else:
            try:
                with open(p, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError as exc:
                raise ImportError_(f"cannot read: {exc.strerror}", SourceLoc(p))
        module, report = import_llvm(text, p)
        return (check_module(module) if verify else module), report
    return load_module(p, verify), None
