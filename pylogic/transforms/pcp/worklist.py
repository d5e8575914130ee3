"""The worklist of the dense constant propagations (``pcp``'s Algorithm 1, and the dense CC
``CCAnalysis.run_dense`` that ``sccp``'s sparse SC is tested against): round-robin sweeps in
reverse postorder.

A block changed by an edge that goes forward in reverse postorder is visited later in the
current sweep; one changed by a retreating edge (a loop's back edge) waits for the next sweep.
A plain priority queue on the reverse-postorder number instead goes back to the loop header at
once and runs every change of every loop through all the code after it again (one partial sweep
per change: 52 visits per block at 3,467 instructions of ``benchmarks/optimize_scale``, whose
loops jump back to any earlier block); sweeps collect the changes of all loops in one pass
(at most loop-connectedness + 2 sweeps, Kam & Ullman). A block reached for the first time is
taken in the current sweep even behind the current one: it has no earlier visit to repeat, and
code that only a loop's exit reaches (executable once the back edge lowered the counter) then
does not wait a sweep per loop (10,000-instruction function: 58 -> 34 sweeps, 55,339 -> 39,574
visits). The fixpoint is the same whatever the order (monotone transfers from ⊤; Kildall 1973),
only the work changes.

References: Kam, Ullman, "Global data flow analysis and iterative algorithms", JACM 23(1), 1976
(round-robin iteration in reverse postorder); Kildall, POPL 1973.
"""
from __future__ import annotations

import heapq


class Worklist:
    """Labels to visit, taken sweep by sweep in ``order`` (reverse-postorder numbers; a label
    without one comes last)."""

    def __init__(self, order: dict):
        self.order = order
        self._heap: list = []
        self._queued: dict = {}             # label -> its key in the heap
        self._key = (0, -1)                 # (sweep, number) of the label being visited

    def push(self, label: str, fresh: bool = False) -> None:
        """Queue ``label``, reached by an edge from the label being visited: in this sweep when
        the edge goes forward or ``label`` is ``fresh`` (reached for the first time), else in
        the next one."""
        number = self.order.get(label, len(self.order))
        sweep, current = self._key
        key = (sweep if number > current or fresh else sweep + 1, number)
        old = self._queued.get(label)
        if old is None or key < old:
            self._queued[label] = key
            heapq.heappush(self._heap, (key, label))

    def pop(self):
        """The next label to visit, or None when none is left."""
        while self._heap:
            key, label = heapq.heappop(self._heap)
            if self._queued.get(label) == key:
                del self._queued[label]
                self._key = key
                return label
        return None

    def __contains__(self, label) -> bool:
        return label in self._queued
