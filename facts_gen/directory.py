"""Load every program under a directory (``.pir``, ``.ll``, ``.c``) and extract its facts.

A file that fails to read, parse, import or verify is recorded as a problem with its located
message and skipped; the others are still extracted (nothing is lost).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pylogic.errors import PathlogicError
from pylogic.ir.model import Module
from facts_gen.extract import empty_facts, extract_module

INPUT_SUFFIXES = (".pir", ".ll", ".c")


@dataclass
class LoadedProgram:
    relpath: str          # path relative to the analysed directory (the function-id prefix)
    path: Path
    module: Module
    import_report: object = None  # ImportReport for .ll/.c inputs


@dataclass
class InputProblem:
    relpath: str
    message: str          # located, printable (file:line:col: kind: reason)
    skipped: bool = True  # False: a note only (e.g. some functions of the file were not imported)


@dataclass
class LoadedDirectory:
    root: Path
    programs: list[LoadedProgram] = field(default_factory=list)
    problems: list[InputProblem] = field(default_factory=list)


def discover(root: Path) -> list[Path]:
    """Input files under ``root`` (or ``root`` itself if it is a file), sorted."""
    root = Path(root)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise PathlogicError(f"{root}: no such file or directory")
    return sorted(p for p in root.rglob("*") if p.suffix in INPUT_SUFFIXES and p.is_file())


def relative_name(root: Path, path: Path) -> str:
    root = Path(root)
    if root.is_file():
        return path.name
    return path.relative_to(root).as_posix()


def load_one(path: Path, relpath: str) -> tuple[LoadedProgram | None, list[InputProblem]]:
    """Load one input file; never raises for a user mistake."""
    from pylogic.ir.load import load_program
    try:
        module, report = load_program(path)
    except PathlogicError as exc:
        return None, [InputProblem(relpath, str(exc))]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [InputProblem(relpath, f"{path}: cannot read: {exc}")]
    notes = [InputProblem(relpath, f"{path}: note: function {fn['name']} not imported: "
                                   f"{fn['reason']}", skipped=False)
             for fn in (report.skipped if report is not None else ())]
    return LoadedProgram(relpath, path, module, report), notes


def _load_item(item: tuple[Path, str]):
    return load_one(*item)


def load_directory(root: Path, jobs: int = 1) -> LoadedDirectory:
    """Load every input under ``root``; with ``jobs`` > 1, files are read (compiled, imported)
    in that many processes. The result is in file order either way."""
    loaded = LoadedDirectory(Path(root))
    items = [(path, relative_name(root, path)) for path in discover(root)]
    if jobs > 1 and len(items) > 1:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(max_workers=min(jobs, len(items))) as pool:
            outcomes = list(pool.map(_load_item, items, chunksize=max(1, len(items) // (8 * jobs))))
    else:
        outcomes = [load_one(path, relpath) for path, relpath in items]
    for program, problems in outcomes:
        if program is not None:
            loaded.programs.append(program)
        loaded.problems.extend(problems)
    return loaded


def extract_directory(root, facts_dir=None) -> tuple[dict[str, list[tuple]], LoadedDirectory]:
    """Facts of every program under ``root``; written to ``facts_dir`` when given."""
    loaded = load_directory(Path(root))
    facts = empty_facts()
    for program in loaded.programs:
        extract_module(program.module, program.relpath, facts)
    if facts_dir is not None:
        from facts_gen.extract import write_facts
        write_facts(facts, Path(facts_dir))
    return facts, loaded
