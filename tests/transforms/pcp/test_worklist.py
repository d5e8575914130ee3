"""pcp/worklist.py: round-robin sweeps in reverse postorder, and the fixpoint of both dense
constant propagations (CC, Algorithm 1) does not depend on the order (checked against a plain
priority queue on the reverse-postorder number, the order before the sweeps, on generated
functions with loops)."""
from __future__ import annotations

import heapq

import pytest

from pylogic.ir.cfg import reverse_postorder
from pylogic.ir.synthetic_values import random_module
from pylogic.transforms.pcp.global_cp import global_constants
from pylogic.transforms.pcp.sccp import CCAnalysis
from pylogic.transforms.pcp.worklist import Worklist


def test_forward_in_this_sweep_retreating_in_the_next():
    work = Worklist({"A": 0, "B": 1, "C": 2})
    work.push("A")
    assert work.pop() == "A"
    work.push("C")
    work.push("B")
    assert work.pop() == "B"
    work.push("A")                      # B -> A retreats: next sweep
    work.push("C")                      # already queued in this sweep
    assert work.pop() == "C"
    work.push("C")                      # a self loop: next sweep
    assert [work.pop(), work.pop(), work.pop()] == ["A", "C", None]


class _PriorityQueue(Worklist):
    """The order before the sweeps: always the smallest reverse-postorder number."""

    def push(self, label, fresh=False):
        if label not in self._queued:
            key = (0, self.order.get(label, len(self.order)))
            self._queued[label] = key
            heapq.heappush(self._heap, (key, label))


def _plain(state) -> dict:
    return dict(state.items())


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_fixpoint_does_not_depend_on_the_order(seed, monkeypatch):
    module = random_module([seed], blocks=40, span=6)
    fn = module.defined_functions()[0]
    order = {b: k for k, b in enumerate(reverse_postorder(fn))}
    results = []
    for queue in (Worklist, _PriorityQueue):
        monkeypatch.setattr("pylogic.transforms.pcp.sccp.Worklist", queue)
        monkeypatch.setattr("pylogic.transforms.pcp.global_cp.Worklist", queue)
        cc = CCAnalysis(fn, module, order).run_dense()
        gcp = global_constants(fn, module, order, full=True)
        results.append((cc.executable, cc.reached,
                        {b: _plain(s) for b, s in cc.incoming.items()},
                        gcp.executable, gcp.reached,
                        {h: None if s is None else _plain(s) for h, s in gcp.inf.items()}))
    assert results[0] == results[1]


def test_a_fresh_label_behind_is_taken_in_this_sweep():
    work = Worklist({"A": 0, "B": 1, "C": 2})
    work.push("A")
    work.pop()
    work.push("C")
    assert work.pop() == "C"
    work.push("B", fresh=True)          # behind C, never visited: still this sweep
    work.push("A")                      # behind C, visited: the next sweep
    assert [work.pop(), work.pop(), work.pop()] == ["B", "A", None]
