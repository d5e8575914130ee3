"""A content-addressed cache of what ``analyze`` computes (issue #17 item 4): a second run over
an unchanged corpus re-does only what changed.

Every entry is keyed by the SHA-256 of everything its value depends on: the source of pathlogic
itself (``pylogic/``, ``facts_gen/``, ``datalog/``: any edit invalidates everything), the
engine, and the input -- a file's bytes (loading), one function's facts with its id blanked
(the engine's rows, the predicate statistics: a function that did not change hits even when its
file did, or was renamed). Failures and timeouts are never cached.

Entries are pickles under ``ROOT/KIND/ab/abcdef...``, written beside their place and renamed
into it (a concurrent or interrupted run never sees half an entry; an unreadable entry is a
miss). The root is ``--cache DIR``, else ``$PATHLOGIC_CACHE`` (``off`` disables it), else
``$XDG_CACHE_HOME/pathlogic`` or ``~/.cache/pathlogic``. Pickles are trusted: the cache is the
user's own directory.

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
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Optional

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


class Cache:
    """Entries by (kind, key); ``stats[kind]`` counts hits and misses of this run."""

    def __init__(self, root: Optional[Path]):
        self.root = None if root is None else Path(root)
        self.stats: dict[str, Counter] = {}

    @property
    def enabled(self) -> bool:
        return self.root is not None

    def _path(self, kind: str, k: str) -> Path:
        return self.root / kind / k[:2] / k

    def get(self, kind: str, k: str) -> Any:
        """The value stored under ``(kind, k)``, or None."""
        if self.root is None:
            return None
        counter = self.stats.setdefault(kind, Counter())
        try:
            with open(self._path(kind, k), "rb") as fh:
                value = pickle.load(fh)
        except Exception:  # noqa: BLE001 -- missing, truncated, from another version: a miss
            counter["misses"] += 1
            return None
        counter["hits"] += 1
        return value

    def put(self, kind: str, k: str, value: Any) -> None:
        if self.root is None:
            return
        path = self._path(kind, k)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".partial-")
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except OSError:                  # a full or read-only disk costs the cache, not the run
            try:
                os.unlink(tmp)
            except (OSError, UnboundLocalError):
                pass

    def summary(self) -> dict:
        """``{"root": ..., kind: {"hits": h, "misses": m}}`` for summary.json."""
        out: dict = {"root": str(self.root) if self.root else None}
        for kind, counter in sorted(self.stats.items()):
            out[kind] = {"hits": counter["hits"], "misses": counter["misses"]}
        return out

    def clear(self) -> None:
        if self.root is not None and self.root.exists():
            shutil.rmtree(self.root)


NO_CACHE = Cache(None)


def default_root() -> Optional[Path]:
    """``$PATHLOGIC_CACHE`` (``off``/``0``/empty: no cache), else the XDG cache directory."""
    env = os.environ.get("PATHLOGIC_CACHE")
    if env is not None:
        return None if env.strip().lower() in ("", "0", "off", "no", "none") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pathlogic"


def function_facts_key(engine: str, what: tuple, facts_by_relation: dict[str, list]) -> str:
    """The key of one function's results: its facts (function column dropped), the engine and
    ``what`` (analysis names, output relations, options)."""
    canon = sorted((name, sorted(map(repr, rows))) for name, rows in facts_by_relation.items())
    return key("function", engine, what, canon)
