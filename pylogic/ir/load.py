"""Read programs into verified modules: one file (``.pir``, ``.ll``, ``.c``) or a directory.

``.pir`` is parsed (``parser.py``); ``.ll`` is imported (``llvm/importer.py``); ``.c`` is compiled
by clang-14 (``llvm/clang.py``), then imported (DESIGN.md "Inputs"). Every module is verified
(``verify.py``) unless asked not to be.

Loading a directory never stops at a bad file: a file that fails to read, compile, parse, import
or verify becomes an :class:`InputProblem` carrying the located message (``file:line:col: kind:
reason``), and the other files are still loaded.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import gc
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pylogic.collector import collector_paused
from pylogic.errors import ImportError_, PathlogicError, SourceLoc, printable_name
from pylogic.ir.llvm.clang import clang_many, prepare_c
from pylogic.ir.model import Module
from pylogic.ir.parser import parse_file, parse_module
from pylogic.ir.verify import check_module

if TYPE_CHECKING:  # the LLVM importer is imported for the first .ll/.c file (a .pir needs none)
    from pylogic.ir.llvm.importer import ImportReport

__all__ = ["INPUT_SUFFIXES", "load_module", "load_text", "load_program", "LoadedProgram",
           "InputProblem", "LoadedDirectory", "discover", "relative_name", "load_one",
           "load_directory"]

#: Suffixes of the files :func:`discover` picks up in a directory.
INPUT_SUFFIXES = (".pir", ".ll", ".c")


# ---------------------------------------------------------------- one file

def load_module(path, verify: bool = True) -> Module:
    """Parse the PIR file ``path`` and, unless ``verify`` is False, verify it.

    Parameters
    ----------
    path : str or Path
        A UTF-8 ``.pir`` file.
    verify : bool
        Check the module (``verify.check_module``).

    Returns
    -------
    Module

    Raises
    ------
    PathlogicError
        Unreadable file; or its subclasses ParseError (not UTF-8), ParseErrors (syntax),
        VerifyErrors (structure), each located at ``file:line:col``.
    """
    module = parse_file(path)
    return check_module(module) if verify else module


def load_text(text: str, path: str = "<input>", verify: bool = True) -> Module:
    """Like :func:`load_module` for PIR text already in memory; ``path`` names it in errors.

    Examples
    --------
    >>> load_text("func @f() {\\nentry:\\n  ret\\n}\\n").functions[0].name
    '@f'
    """
    module = parse_module(text, path)
    return check_module(module) if verify else module


def load_program(path, verify: bool = True,
                 clang_text: str | None = None) -> tuple[Module, ImportReport | None]:
    """Read a program by its suffix: ``.ll`` (LLVM import), ``.c`` (clang-14, then LLVM import),
    anything else as ``.pir``.

    Parameters
    ----------
    path : str or Path
        The input file.
    verify : bool
        Check the module (``verify.check_module``).
    clang_text : str, optional
        For a ``.c`` file, clang's text of it when already at hand (``clang.clang_many``).

    Returns
    -------
    module : Module
    report : ImportReport or None
        What the LLVM importer imported and skipped (per function, with reasons); None for
        ``.pir``.

    Raises
    ------
    PathlogicError
        Located: ImportError_ (unreadable ``.ll``, clang's first error, IR LLVM rejects), or
        what :func:`load_module` raises.
    """
    p = str(path)
    if not p.endswith((".ll", ".c")):
        return load_module(p, verify), None
    from pylogic.ir.llvm.importer import import_llvm
    if p.endswith(".c"):
        text = prepare_c(p, clang_text=clang_text)
    else:
        try:
            with open(p, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError as exc:
            raise ImportError_(f"cannot read: {exc.strerror}", SourceLoc(p)) from None
    module, report = import_llvm(text, p)
    return (check_module(module) if verify else module), report


# ---------------------------------------------------------------- a directory

@dataclass
class LoadedProgram:
    """One loaded input file."""
    relpath: str          # path relative to the loaded directory (the function-id prefix)
    path: Path
    module: Module
    import_report: ImportReport | None = None  # for .ll/.c inputs


@dataclass
class InputProblem:
    """Why an input file was skipped, or a note about one that was loaded."""
    relpath: str
    message: str          # located, printable: file:line:col: kind: reason
    skipped: bool = True  # False: a note only (e.g. some functions of the file were not imported)


@dataclass
class LoadedDirectory:
    """The programs of a directory, in file order, and the problems met reading it."""
    root: Path
    programs: list[LoadedProgram] = field(default_factory=list)
    problems: list[InputProblem] = field(default_factory=list)


def discover(root) -> list[Path]:
    """Input files under ``root`` (suffix in :data:`INPUT_SUFFIXES`), sorted; or ``[root]`` if
    ``root`` is a file (whatever its suffix).

    Raises
    ------
    PathlogicError
        ``root`` does not exist.
    """
    root = Path(root)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise PathlogicError(f"{root}: no such file or directory")
    return sorted(p for p in root.rglob("*") if p.suffix in INPUT_SUFFIXES and p.is_file())


def relative_name(root, path: Path) -> str:
    """``path`` relative to the directory ``root`` (POSIX separators); its name if ``root`` is
    the file itself."""
    root = Path(root)
    if root.is_file():
        return path.name
    return path.relative_to(root).as_posix()


def load_one(path: Path, relpath: str,
             clang_text: str | None = None) -> tuple[LoadedProgram | None, list[InputProblem]]:
    """Load one input file without raising for anything a user can cause (``clang_text``: as
    :func:`load_program`'s).

    Returns
    -------
    program : LoadedProgram or None
        None when the file was skipped.
    problems : list of InputProblem
        The reason it was skipped, or one note per function the LLVM importer left out.
    """
    try:
        module, report = load_program(path, clang_text=clang_text)
    except PathlogicError as exc:
        return None, [InputProblem(relpath, str(exc))]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [InputProblem(relpath, f"{printable_name(str(path))}: cannot read: {exc}")]
    except Exception as exc:  # noqa: BLE001 -- a bug on one file must not end a directory run
        return None, [InputProblem(relpath, f"{printable_name(str(path))}: internal error while loading "
                                            f"({type(exc).__name__}: {exc}); please report it")]
    notes = [InputProblem(relpath, f"{printable_name(str(path))}: note: function {fn['name']} not imported: "
                                   f"{fn['reason']}", skipped=False)
             for fn in (report.skipped if report is not None else ())]
    if not module.defined_functions() and not notes:   # issue #30 item 11: said, not silent
        notes.append(InputProblem(relpath, f"{printable_name(str(path))}: note: defines no "
                                  "function (nothing to analyze)", skipped=False))
    return LoadedProgram(relpath, path, module, report), notes


def _load_item(item: tuple[Path, str]):
    return load_one(*item)  # a top-level function: ProcessPoolExecutor pickles it


#: C files compiled by one clang process (``clang.clang_many``) when files load in turn.
CLANG_BATCH = 16


def _load_in_turn(items: list[tuple[Path, str]]):
    """``load_one`` of each item in turn, the C files among each ``CLANG_BATCH`` consecutive
    items compiled together first."""
    for k in range(0, len(items), CLANG_BATCH):
        chunk = items[k:k + CLANG_BATCH]
        texts = clang_many([path for path, _ in chunk if path.suffix == ".c"])
        for path, relpath in chunk:
            yield load_one(path, relpath, texts.pop(str(path), None))


def load_directory(root, jobs: int = 1, only=None, progress=None,
                   freeze: bool = False) -> LoadedDirectory:
    """Load every input under ``root`` (see :func:`discover`).

    Parameters
    ----------
    root : str or Path
        A directory, or a single input file.
    jobs : int
        With ``jobs`` > 1, files are read (compiled, imported, verified) in that many processes;
        the result is the same as with 1.
    only : list of (Path, relpath), optional
        Load just these of the discovered files (a cache supplies the others).
    progress : callable, optional
        Called as ``progress(done, total)`` after each file.
    freeze : bool
        After each file, ``gc.freeze()``: the loaded programs live as long as the caller's run,
        so the cyclic garbage collector's passes over them (0.5-0.7 s of ``analyze`` on csmith
        1-10, #32) are left out. The caller calls ``gc.unfreeze()`` when its run ends. The
        collector is off while the files load (the importer builds trees of immutable objects,
        no cycles; its young-generation passes over them were 4% of ``analyze`` on the #32
        corpus), and back on as it was when they have.

    Returns
    -------
    LoadedDirectory
        Programs and problems in file order.

    Raises
    ------
    PathlogicError
        ``root`` does not exist. Problems with single files are returned, not raised.
    """
    loaded = LoadedDirectory(Path(root))
    items = ([(path, relative_name(root, path)) for path in discover(root)] if only is None
             else list(only))
    def ticking(results):
        for k, outcome in enumerate(results, 1):
            if freeze:
                gc.freeze()
            if progress is not None:
                progress(k, len(items))
            yield outcome

    with collector_paused() if freeze else contextlib.nullcontext():
        if jobs > 1 and len(items) > 1:
            with concurrent.futures.ProcessPoolExecutor(max_workers=min(jobs, len(items))) as pool:
                outcomes = list(ticking(pool.map(_load_item, items,
                                                 chunksize=max(1, len(items) // (32 * jobs)))))
        else:
            outcomes = list(ticking(_load_in_turn(items)))
    for program, problems in outcomes:
        if program is not None:
            loaded.programs.append(program)
        loaded.problems.extend(problems)
    return loaded
