"""``pylogic.collector.collector_paused``: the cyclic collector is off inside (no collection
runs there, however much is allocated) and back as the caller had it after, also when the block
raises; ``simplify`` and ``pre-m`` rewrite inside it and leave the collector as they found it."""
from __future__ import annotations

import gc

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.ir.parser import parse_module
from pylogic.collector import collector_paused

TEXT = """func @f(a) {
entry:
    x = add a, 0
    y = mul x, 1
    c = cmp.eq y, 3
    cbr c, one, two
one:
    ret y
two:
    ret 0
}
"""


def _collections(block) -> int:
    """How many collections ``gc.callbacks`` sees start while ``block(seen)`` runs; ``block``
    may read ``len(seen)``, the count so far."""
    seen = []

    def count(phase, info):
        if phase == "start":
            seen.append(info["generation"])
    gc.callbacks.append(count)
    try:
        block(seen)
    finally:
        gc.callbacks.remove(count)
    return len(seen)


def _cycles(seen=None):
    for _ in range(50_000):        # cyclic garbage: many times the young generation's threshold
        a = []
        a.append(a)


@pytest.mark.parametrize("enabled", [True, False])
def test_paused_inside_and_restored_after(enabled):
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        inside = []

        def paused(seen):
            with collector_paused():
                assert not gc.isenabled()
                before = len(seen)
                _cycles()
                inside.append(len(seen) - before)
        _collections(paused)
        assert inside == [0]
        assert gc.isenabled() is enabled
        with pytest.raises(RuntimeError):
            with collector_paused():
                raise RuntimeError("inside")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_the_oracle_counts_collections():
    was = gc.isenabled()
    gc.enable()
    try:
        assert _collections(_cycles) > 0
    finally:
        (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("passes", [["simplify"], ["pre-m"]])
@pytest.mark.parametrize("enabled", [True, False])
def test_the_passes_leave_the_collector_as_found(passes, enabled):
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        optimize(parse_module(TEXT, "t.pir"), passes, "t.pir", engine="clingo")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
