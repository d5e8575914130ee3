"""``pylogic.collector``: ``collector_paused`` turns the cyclic collector off inside (no
collection runs there, however much is allocated) and back as the caller had it after, also when
the block raises; ``simplify`` and ``pre-m`` rewrite inside it and leave the collector as they
found it. ``heap_frozen`` owns the permanent generation only when nothing was frozen before, and
gives back what it froze (``optimize`` freezes each pipeline's modules in it, an iterated pass's
rounds and what its last pass leaves: ``freeze_survivors``, a no-op outside an owning block).
``young_threshold`` raises the young generation's threshold inside (no collection while fewer
objects survive) and gives the thresholds back; ``optimize`` runs its passes under it, and no
young collection runs at its end. The PRE pipeline and ``icbe`` leave no reference cycle behind
(what they drop is freed when dropped, not by the collector)."""
from __future__ import annotations

import gc
from pathlib import Path

import pytest

from pylogic.analysis.optimize import optimize
from pylogic.ir.parser import parse_module
from pylogic.collector import (collector_paused, freeze_survivors, heap_frozen,
                                young_threshold)

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
        threshold = gc.get_threshold()
        optimize(parse_module(TEXT, "t.pir"), passes, "t.pir", engine="clingo")
        assert gc.isenabled() is enabled
        assert gc.get_threshold() == threshold
    finally:
        (gc.enable if was else gc.disable)()


def test_heap_frozen_gives_back_what_it_froze():
    gc.unfreeze()                  # whatever an earlier test in this worker left frozen
    kept = [[] for _ in range(100)]
    with heap_frozen() as own:
        assert own
        gc.freeze()
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError):
        with heap_frozen() as own:
            gc.freeze()
            raise RuntimeError("inside")
    assert gc.get_freeze_count() == 0
    del kept


def _frozen(obj) -> bool:
    """``obj`` is in the permanent generation (``gc.get_objects`` lists the others)."""
    return gc.is_tracked(obj) and not any(o is obj for o in gc.get_objects())


def test_a_hosts_freeze_is_left_as_it_is():
    hosts = [[]]
    assert not _frozen(hosts)
    gc.freeze()
    try:
        assert _frozen(hosts)
        with heap_frozen() as own:
            assert not own
        assert _frozen(hosts)
        optimize(parse_module(TEXT, "t.pir"), ["simplify", "pre-m"], "t.pir", engine="clingo")
        assert _frozen(hosts)
    finally:
        gc.unfreeze()
    assert not _frozen(hosts)


def test_optimize_freezes_its_modules_and_gives_them_back(monkeypatch):
    from pylogic.analysis import optimize as driver
    frozen, run_pass = [], driver.run_pass

    def watched(name, module, *args, **kwargs):
        frozen.append((name, gc.get_freeze_count() > 0))
        return run_pass(name, module, *args, **kwargs)
    monkeypatch.setattr(driver, "run_pass", watched)
    gc.unfreeze()
    optimize(parse_module(TEXT, "t.pir"), ["simplify", "pre-m", "simplify"], "t.pir",
             engine="clingo")
    assert frozen == [("simplify", True), ("pre-m", True), ("simplify", True)]
    assert gc.get_freeze_count() == 0


def test_young_threshold_raised_inside_and_given_back():
    was = gc.get_threshold()
    with young_threshold(was[0] + 30_000):
        assert gc.get_threshold() == (was[0] + 30_000,) + was[1:]
    assert gc.get_threshold() == was
    with pytest.raises(RuntimeError):
        with young_threshold(was[0] + 30_000):
            raise RuntimeError("inside")
    assert gc.get_threshold() == was
    gc.set_threshold(was[0] + 60_000, *was[1:])     # a caller's higher threshold is kept
    try:
        with young_threshold(was[0] + 30_000):
            assert gc.get_threshold()[0] == was[0] + 60_000
        assert gc.get_threshold()[0] == was[0] + 60_000
        gc.set_threshold(0, *was[1:])                 # automatic collection off stays off
        with young_threshold(was[0] + 30_000):
            assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*was)


def test_no_collection_while_the_survivors_stay_under_it():
    was = gc.isenabled()
    gc.enable()
    try:
        gc.collect()                # the young generation's count starts from 0
        with young_threshold(200_000):
            # 50,000 cyclic lists survive until a collection: many times the default threshold
            # (test_the_oracle_counts_collections), under this one
            assert _collections(_cycles) == 0
    finally:
        (gc.enable if was else gc.disable)()
        gc.collect()


def test_optimize_runs_its_passes_under_the_raised_threshold(monkeypatch):
    from pylogic.analysis import optimize as driver
    seen, run_pass = [], driver.run_pass

    def watched(name, module, *args, **kwargs):
        seen.append(gc.get_threshold()[0])
        return run_pass(name, module, *args, **kwargs)
    monkeypatch.setattr(driver, "run_pass", watched)
    before = gc.get_threshold()
    optimize(parse_module(TEXT, "t.pir"), ["simplify", "pre-m"], "t.pir", engine="clingo")
    assert seen == [max(before[0], driver.YOUNG_THRESHOLD)] * 2
    assert gc.get_threshold() == before


def test_freeze_survivors_freezes_only_inside_an_owning_block():
    gc.unfreeze()
    kept = [[] for _ in range(100)]
    freeze_survivors()                      # no block: nothing frozen
    assert gc.get_freeze_count() == 0
    with heap_frozen() as own:
        assert own
        freeze_survivors()
        assert _frozen(kept)
        with heap_frozen() as inner:        # nested: the outer block owns it
            assert not inner
            later = [[]]
            freeze_survivors()
            assert _frozen(later)
    assert gc.get_freeze_count() == 0 and not _frozen(kept)
    gc.freeze()                             # a host's freeze: its block owns nothing
    try:
        with heap_frozen() as own:
            assert not own
            mine = [[]]
            freeze_survivors()
            assert not _frozen(mine)
    finally:
        gc.unfreeze()
    del kept


ICBE_TEXT = """func @g(p) {
entry:
    c = cmp.gt p, 0
    cbr c, yes, no
yes:
    ret 1
no:
    ret 0
}

func @f(a) {
entry:
    c = cmp.gt a, 0
    cbr c, pos, neg
pos:
    x = call @g(a)
    br join
neg:
    x = call @g(a)
    br join
join:
    d = cmp.gt a, 0
    cbr d, t, e
t:
    ret x
e:
    ret 0
}
"""
PIPELINES = [(["simplify", "pre-mr", "pre-m", "simplify"], TEXT), (["icbe"], ICBE_TEXT)]


BRANCHY = Path(__file__).resolve().parents[1] / "examples" / "pcp_branchy.pir"


def _young_after(passes) -> int:
    """The young generation's count just after ``optimize`` (the collector off: what the next
    young collection would walk)."""
    module = parse_module(BRANCHY.read_text(), "b.pir")
    optimize(module, passes, "b.pir", engine="python")        # warm: caches, compiled plans
    gc.unfreeze()
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        optimize(module, passes, "b.pir", engine="python")
        return gc.get_count()[0]
    finally:
        (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("passes", [["simplify", "pre-mr", "pre-m", "simplify"], ["icbe"]])
def test_optimize_leaves_no_young_survivors(passes):
    # every survivor frozen at its end: the young collection the threshold given back would
    # start at the next allocation walks nothing (the oracle: the next test, without it)
    assert _young_after(passes) < 50


def test_without_the_last_freeze_the_survivors_are_young(monkeypatch):
    from pylogic.analysis import optimize as driver
    calls = []
    monkeypatch.setattr(driver, "freeze_survivors", lambda: calls.append(1))
    assert _young_after(["simplify", "pre-mr", "pre-m", "simplify"]) > 100
    assert len(calls) == 2 * 6               # (two runs) before each of 5 steps, and at the end


@pytest.mark.parametrize("passes,text", PIPELINES)
def test_no_reference_cycle_left_behind(passes, text):
    module = parse_module(text, "t.pir")
    optimize(module, passes, "t.pir", engine="python")        # warm: caches, compiled plans
    gc.collect()
    was = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        optimize(module, passes, "t.pir", engine="python")
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(was)
        gc.garbage.clear()
    assert left == []
