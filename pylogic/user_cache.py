"""The user's cache directory and its entries, for every layer (the standard library only): the
analyses' results (``analysis/cache.py`` keys them) and the Datalog parser's tables
(``engines/dialect.py``).

Entries are pickles under ``ROOT/KIND/ab/abcdef...``, written beside their place and renamed
into it (a concurrent or interrupted run never sees half an entry; an unreadable entry is a
miss). The root is ``$PATHLOGIC_CACHE`` (``off`` disables it), else
``$XDG_CACHE_HOME/pathlogic`` or ``~/.cache/pathlogic``. What depends only on pathlogic's own
source (the parser's tables, the shipped programs parsed and checked, their clingo translations:
``engines/clingo_cache.py``) may live elsewhere:
``$PATHLOGIC_PROGRAM_CACHE`` (``program_root``; the test suite shares one such directory between
its processes while it keeps the analyses' cache off). Pickles are trusted: the cache is the
user's own directory.
"""
from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Optional


def _root_from(env: str) -> Optional[Path]:
    return None if env.strip().lower() in ("", "0", "off", "no", "none") else Path(env)


def default_root() -> Optional[Path]:
    """``$PATHLOGIC_CACHE`` (``off``/``0``/empty: no cache), else the XDG cache directory."""
    env = os.environ.get("PATHLOGIC_CACHE")
    if env is not None:
        return _root_from(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pathlogic"


def program_root() -> Optional[Path]:
    """Where entries keyed by pathlogic's own source alone are kept (the Datalog parser's tables,
    the shipped programs checked): ``$PATHLOGIC_PROGRAM_CACHE`` (``off``: none), else
    :func:`default_root`."""
    env = os.environ.get("PATHLOGIC_PROGRAM_CACHE")
    return _root_from(env) if env is not None else default_root()


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
