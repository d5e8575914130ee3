"""pylogic.identity_cache: values kept by identity, never handed to an equal but other object."""
from pylogic.identity_cache import IdentityCache


class Same:
    """Every instance equal and with one hash: only identity tells them apart."""

    def __eq__(self, other):
        return isinstance(other, Same)

    def __hash__(self):
        return 0


def test_a_value_belongs_to_its_object_not_to_an_equal_one():
    cache = IdentityCache()
    a, b = Same(), Same()
    cache.put(a, "a")
    assert cache.get(a) == "a"
    assert cache.get(b) is None and cache.get(b, default=7) == 7


def test_tags_keep_separate_values_for_one_object():
    cache = IdentityCache()
    a = Same()
    cache.put(a, 1, tag=False)
    cache.put(a, 2, tag=True)
    assert (cache.get(a, False), cache.get(a, True), cache.get(a)) == (1, 2, None)


def test_the_least_recently_used_entry_goes_first():
    cache = IdentityCache(2)
    a, b, c = Same(), Same(), Same()
    cache.put(a, "a")
    cache.put(b, "b")
    assert cache.get(a) == "a"           # a is now the most recent
    cache.put(c, "c")
    assert (cache.get(a), cache.get(b), cache.get(c), len(cache)) == ("a", None, "c", 2)


def test_an_entry_keeps_its_object_alive_so_its_id_is_not_reused():
    cache = IdentityCache()
    cache.put(Same(), "gone")            # no other reference: the cache keeps it
    fresh = [Same() for _ in range(100)]
    assert all(cache.get(x) is None for x in fresh)


def test_get_or_compute_computes_once():
    cache, calls = IdentityCache(4), []
    a = Same()
    for _ in range(3):
        assert cache.get_or_compute(a, lambda: calls.append(1) or len(calls)) == 1
    assert calls == [1]
