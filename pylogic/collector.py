"""The cyclic garbage collector paused while a phase builds many objects that hold no cycles, or
none that need collecting before the phase ends (issue #28 item 1, #32 item 1); and the objects a
run keeps alive frozen out of its passes (``heap_frozen``).

``collector_paused``'s users: the facts extraction (``analysis.run.extract``, then frozen), the
loader (``ir.load.load_directory``), duckdb's index rows (``engines.duckdb_engine.run_duckdb``),
``explain``'s ranking and trees (``engines.explain.Explainer``), and the rewrites of ``simplify``
and ``pre-m``. A rewrite builds many short-lived, mostly acyclic
objects (blocks, instructions, per-round analyses) on top of a large long-lived heap (the module,
the engine's rows); each full collection walks that whole heap. On csmith-2's
``simplify,pre-mr,pre-m,simplify`` the collector took 1.56 of 13.0 s CPU, 0.47 of the first
``simplify``'s 2.13 s (4 full collections). Paused, what the rewrite leaves in cycles is
collected at the first collection after it.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager

__all__ = ["collector_paused", "freeze_survivors", "heap_frozen", "young_threshold"]

#: whether a ``heap_frozen`` block owning the permanent generation is open
_owned = False


@contextmanager
def collector_paused():
    """The collector off inside the block, back as it was after it (a caller's ``disable`` is
    kept)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


@contextmanager
def heap_frozen():
    """Yields whether this block owns the permanent generation: True unless something else (a
    host process, an outer block) had frozen objects before; then the block may ``gc.freeze()``
    what its run keeps alive (the loaded programs, a pipeline's modules), and what it froze goes
    back under the collector when it ends. A host's freeze is left as it is."""
    global _owned
    own = not gc.get_freeze_count()
    outer, _owned = _owned, _owned or own
    try:
        yield own
    finally:
        _owned = outer
        if own:
            gc.unfreeze()


def freeze_survivors() -> None:
    """``gc.freeze()`` inside a ``heap_frozen`` block that owns the permanent generation (else
    nothing): what is alive now (a pass's output, an iterated pass's round and its rows) is
    left out of the young collections of what follows, and goes back under the collector, in
    the oldest generation, when the block ends. A young collection walks every object that
    survived since the last one: on csmith's median programs ``icbe`` met two, 7% of its time,
    one at ``optimize``'s end (the last round's survivors, the young threshold back to 700)."""
    if _owned:
        gc.freeze()


@contextmanager
def young_threshold(at_least: int):
    """The young generation's threshold (``gc.set_threshold``'s first) raised to ``at_least``
    inside the block, back as it was after; the older generations' are kept. Under
    ``heap_frozen``'s ``gc.freeze()`` before each pass of ``optimize``, which empties the young
    generation, a pass whose survivors stay under it runs no collection at all: its survivors
    (the module it builds, what its caches keep) are frozen at the next pass, not traversed
    first, and its cyclic garbage waits for the first collection after the pipeline. A threshold
    of 0 (automatic collection off) stays 0."""
    threshold = gc.get_threshold()
    if 0 < threshold[0] < at_least:
        gc.set_threshold(at_least, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
