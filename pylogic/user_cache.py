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

Each kind keeps at most ``$PATHLOGIC_CACHE_SIZE`` bytes (``500M``, ``2G``; ``off``: no bound;
default 1 GiB), the least recently used entries dropped first: a hit marks its entry used, and a
write bounds the entry's ``ab/`` directory to 1/256 of the size (ccache's scheme: a write looks at
a few dozen entries, never the whole kind). Entries keyed by pathlogic's own source would
otherwise pile up with every version or checkout that ran (1.2 GB in two days of development).
"""
from __future__ import annotations

import os
import pickle
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Optional

#: ``$PATHLOGIC_CACHE_SIZE``'s default: the bytes one kind of entry keeps
DEFAULT_SIZE = 1 << 30
#: a ``.partial-`` file older than this (seconds) is an interrupted write's, not one under way
_STALE_PARTIAL = 3600
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
#: ``Cache``'s ``size`` when not given: ``size_bound()``, read from the environment
_FROM_ENVIRONMENT = object()


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


def size_bound() -> Optional[int]:
    """The bytes one kind keeps (``$PATHLOGIC_CACHE_SIZE``; None: no bound). A value that does
    not read as a size is the default, not an error: the cache never fails a run."""
    env = os.environ.get("PATHLOGIC_CACHE_SIZE", "").strip().lower()
    if env in ("off", "none", "0"):
        return None
    number = env.rstrip("kmgtib")
    unit = env[len(number):].rstrip("ib")
    try:
        return max(1, int(float(number) * _UNITS[unit]))
    except (ValueError, KeyError):
        return DEFAULT_SIZE


class Cache:
    """Entries by (kind, key); ``stats[kind]`` counts hits and misses of this run; each kind
    kept within ``size`` bytes (None: no bound; not given: ``size_bound()``), least recently
    used dropped first."""

    def __init__(self, root: Optional[Path], size=_FROM_ENVIRONMENT):
        self.root = None if root is None else Path(root)
        self.stats: dict[str, Counter] = {}
        self.size = size_bound() if size is _FROM_ENVIRONMENT else size

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
        path = self._path(kind, k)
        try:
            with open(path, "rb") as fh:
                value = pickle.load(fh)
        except Exception:  # noqa: BLE001 -- missing, truncated, from another version: a miss
            counter["misses"] += 1
            return None
        counter["hits"] += 1
        if self.size is not None:
            try:
                os.utime(path)                  # used now: the last to be dropped
            except OSError:
                pass
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
            return
        if self.size is not None:
            _bound(path.parent, max(1, self.size // 256), keep=path.name)

    def summary(self) -> dict:
        """``{"root": ..., kind: {"hits": h, "misses": m}}`` for summary.json."""
        out: dict = {"root": str(self.root) if self.root else None}
        for kind, counter in sorted(self.stats.items()):
            out[kind] = {"hits": counter["hits"], "misses": counter["misses"]}
        return out

    def clear(self) -> None:
        if self.root is not None and self.root.exists():
            shutil.rmtree(self.root)


def _bound(directory: Path, size: int, keep: str) -> None:
    """Drop ``directory``'s least recently used entries (oldest mtime) until the rest fit in
    ``size`` bytes; ``keep`` (the entry just written) stays. Another process may be dropping
    or writing the same entries: a file already gone is skipped."""
    now, entries, total = time.time(), [], 0
    try:
        with os.scandir(directory) as it:
            for entry in it:
                try:
                    st = entry.stat()
                except OSError:
                    continue
                if entry.name.startswith(".partial-"):
                    if now - st.st_mtime > _STALE_PARTIAL:
                        _unlink(entry.path)
                    continue
                total += st.st_size
                if entry.name != keep:
                    entries.append((st.st_mtime, st.st_size, entry.path))
    except OSError:
        return
    if total <= size:
        return
    for _, bytes_, path in sorted(entries):
        _unlink(path)
        total -= bytes_
        if total <= size:
            break


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
