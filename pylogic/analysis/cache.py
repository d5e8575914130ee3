"""A content-addressed cache of what ``analyze`` computes (issue #17 item 4): a second run over
an unchanged corpus re-does only what changed.

Every entry is keyed by the SHA-256 of everything its value depends on: the source of pathlogic
itself (``pylogic/``, ``facts_gen/``, ``datalog/``: any edit invalidates everything), the
engine, and the input -- a file's bytes (loading), one function's facts with its id blanked
(the engine's rows, the predicate statistics: a function that did not change hits even when its
file did, or was renamed). Failures and timeouts are never cached.

Entries are pickles under ``ROOT/KIND/ab/abcdef...`` (``pylogic/user_cache.py``, which the
Datalog front end uses too: ``Cache`` and ``default_root`` are imported from there). The root is
``--cache DIR``, else ``$PATHLOGIC_CACHE`` (``off`` disables it), else
``$XDG_CACHE_HOME/pathlogic`` or ``~/.cache/pathlogic``.

Example
-------
>>> cache = Cache(Path("/tmp/c"))                                    # doctest: +SKIP
>>> cache.get("load", key("a.c", b"int main(){}")) is None           # doctest: +SKIP
True
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from pylogic.user_cache import Cache, default_root  # noqa: F401 -- this module's API too

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
#: Source trees whose every byte is part of every key.
CODE_TREES = (("pylogic", ".py"), ("facts_gen", ".py"), ("datalog", ".dl"))


@functools.lru_cache(maxsize=1)
def code_hash() -> str:
    """SHA-256 of pathlogic's own source (Python and Datalog) and the Python version."""
    h = hashlib.sha256(f"python {sys.version_info[:2]}".encode())
    for tree, suffix in CODE_TREES:
        base = PACKAGE_ROOT / tree
        if not base.is_dir():                       # an installed wheel: datalog/ is package data
            base = Path(__file__).resolve().parents[1] / tree
        for path in sorted(base.rglob(f"*{suffix}")):
            h.update(path.relative_to(base).as_posix().encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def tool_versions() -> str:
    """clang's and opt's ``--version`` (they decide what a ``.c``/``.ll`` file imports as)."""
    from pylogic.ir.llvm.clang import find_clang, find_opt
    out = []
    for tool in (find_clang(), find_opt()):
        if tool is None:
            out.append("none")
            continue
        try:
            out.append(subprocess.run([tool, "--version"], capture_output=True, text=True,
                                      timeout=30).stdout)
        except (OSError, subprocess.SubprocessError):
            out.append("unknown")
    return "\n".join(out)


_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def c_dependencies(path: Path) -> list:
    """What a C file's import also depends on, for its key: every ``#include "..."`` reached
    from it (found beside the including file, as the preprocessor looks first), by name and
    bytes (or ``missing``), and the include-path environment. System headers (``<...>``) are
    covered by the clang version in ``tool_versions``."""
    out: list = [os.environ.get("CPATH", ""), os.environ.get("C_INCLUDE_PATH", "")]
    seen: set = set()
    todo = [Path(path)]
    while todo:
        current = todo.pop()
        try:
            data = current.read_bytes()
        except OSError:
            continue
        for name in _QUOTED_INCLUDE.findall(data):
            header = (current.parent / name.decode("utf-8", "replace")).resolve()
            if header in seen:
                continue
            seen.add(header)
            try:
                out.append((str(header), header.read_bytes()))
                todo.append(header)
            except OSError:
                out.append((str(header), "missing"))
    return out


def key(*parts: Any) -> str:
    """SHA-256 over the code hash and ``parts`` (bytes as they are, anything else by repr)."""
    h = hashlib.sha256(code_hash().encode())
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode()
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


NO_CACHE = Cache(None)


def function_facts_key(engine: str, what: tuple, facts_by_relation: dict[str, list]) -> str:
    """The key of one function's results: its facts (function column dropped), the engine and
    ``what`` (analysis names, output relations, options)."""
    canon = sorted((name, sorted(map(repr, rows))) for name, rows in facts_by_relation.items())
    return key("function", engine, what, canon)
