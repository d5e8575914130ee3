"""The user cache's size bound (``user_cache.Cache``): least recently used entries go first, a
hit counts as a use, and an interrupted write's debris is cleared."""
import os
import time

import pytest

from pylogic.user_cache import Cache, size_bound

# every key below falls in one ``ab/`` directory, where the bound applies (1/256 of the size)
KEYS = [f"aa{k:062x}" for k in range(6)]


def _age(cache: Cache, kind: str, key: str, seconds_ago: float) -> None:
    when = time.time() - seconds_ago
    os.utime(cache._path(kind, key), (when, when))


def test_the_least_recently_used_entries_are_dropped_first(tmp_path):
    cache = Cache(tmp_path, size=256 * 3000)         # 3,000 bytes per ab/ directory
    for k, key in enumerate(KEYS[:4]):
        cache.put("kind", key, b"x" * 700)           # about 735 bytes pickled: four fit
        _age(cache, "kind", key, 100 - k)            # KEYS[0] the oldest
    assert cache.get("kind", KEYS[0]) == b"x" * 700  # a hit: KEYS[0] now the newest
    cache.put("kind", KEYS[4], b"x" * 1400)          # two entries must go
    kept = {key for key in KEYS[:5] if cache._path("kind", key).exists()}
    assert kept == {KEYS[0], KEYS[3], KEYS[4]}       # KEYS[1] and KEYS[2] were the least used
    assert sum(cache._path("kind", key).stat().st_size for key in kept) <= 3000


def test_the_entry_just_written_stays_even_alone_over_the_bound(tmp_path):
    cache = Cache(tmp_path, size=256 * 100)
    cache.put("kind", KEYS[0], b"x" * 50)
    cache.put("kind", KEYS[1], b"y" * 5000)
    assert cache.get("kind", KEYS[1]) == b"y" * 5000
    assert cache.get("kind", KEYS[0]) is None


def test_no_bound_keeps_everything_and_stale_partials_are_removed(tmp_path):
    cache = Cache(tmp_path, size=None)
    for key in KEYS:
        cache.put("kind", key, b"x" * 4000)
    assert all(cache.get("kind", key) == b"x" * 4000 for key in KEYS)
    bounded = Cache(tmp_path, size=1 << 30)
    stale = cache._path("kind", KEYS[0]).parent / ".partial-old"
    fresh = stale.with_name(".partial-new")
    stale.write_bytes(b"?")
    fresh.write_bytes(b"?")
    os.utime(stale, (time.time() - 7200,) * 2)
    bounded.put("kind", KEYS[0], b"z")
    assert not stale.exists() and fresh.exists()     # a write under way is not touched


@pytest.mark.parametrize("text, expected", [("", 1 << 30), ("500M", 500 << 20), ("2G", 2 << 30),
                                            ("64KiB", 64 << 10), ("off", None), ("0", None),
                                            ("lots", 1 << 30)])
def test_size_from_the_environment(monkeypatch, text, expected):
    monkeypatch.setenv("PATHLOGIC_CACHE_SIZE", text)
    assert size_bound() == expected
