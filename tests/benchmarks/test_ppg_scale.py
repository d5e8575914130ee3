"""benchmarks/ppg_scale.py: the fitted growth exponent, and one small run end to end (the run file
holds the rows of each scope: ``build`` leaves out the closures, ``compact`` has their compact
form, ``all`` the pairs too)."""
from __future__ import annotations

import json
import sys

import pytest

from benchmarks import ppg_scale


def test_fitted_exponent():
    """The one growth fit every benchmark summary uses (benchmarks.common)."""
    assert ppg_scale.fitted_exponent([(1, 3.0), (2, 12.0), (4, 48.0)]) == 2.0
    assert ppg_scale.fitted_exponent([(10, 5.0), (1000, 5.0)]) == 0.0
    assert ppg_scale.fitted_exponent([(10, 5.0)]) is None


@pytest.mark.slow
def test_small_run(tmp_path, monkeypatch):
    out = tmp_path / "ppg.json"
    monkeypatch.setattr(sys, "argv", ["ppg_scale", "--defines", "6", "--engines", "clingo",
                                      "--out", str(out)])
    assert ppg_scale.main() == 0
    run = json.loads(out.read_text())
    assert run["command"].startswith("python3 -m benchmarks.ppg_scale --defines 6")
    by_scope = {r["scope"]: r for r in run["results"]}
    assert all(r["finished"] and r["defines"] == 6 for r in by_scope.values())
    assert set(ppg_scale.CLOSURES) <= set(by_scope["all"]["rows"])
    assert not set(ppg_scale.CLOSURES) & set(by_scope["build"]["rows"])
    compact = set(by_scope["compact"]["rows"])
    assert "ppg_subset_core" in compact and not {"ppg_subset", "ppg_disjoint"} & compact
    assert by_scope["all"]["rows"]["ppg_node"] == by_scope["build"]["rows"]["ppg_node"] > 6
    # the pairs are the core rows and the products of the node sets (ppg_closure.dl)
    rows = by_scope["all"]["rows"]
    assert rows["ppg_subset"] >= rows["ppg_subset_core"] + rows["ppg_empty"]


def test_outside_products_counts_the_rows_no_node_set_product_explains():
    """false and e are empty (⊆ false) and void (disjoint from every node), true is full: of
    the closures only a ⊆ b, the reflexive a, b and the siblings a, b are left."""
    nodes = ["false", "true", "a", "b", "e"]
    empty, full, void = ["false", "e"], ["true"], ["false", "e"]
    sub = {(x, x) for x in nodes} | {(x, y) for x in empty for y in nodes} | \
        {(x, y) for x in nodes for y in full} | {("a", "b")}
    dis = {(x, y) for x in void for y in nodes} | {(y, x) for x in void for y in nodes} | \
        {("a", "b"), ("b", "a")}
    k = {"false": "const", "true": "const"}
    rows = {"ppg_node": [("f", "pred", n, k.get(n, "v")) for n in nodes],
            "ppg_subset": [("f", "pred", a, k.get(a, "v"), b, k.get(b, "v")) for a, b in sub],
            "ppg_disjoint": [("f", "pred", a, k.get(a, "v"), b, k.get(b, "v")) for a, b in dis]}
    assert ppg_scale.outside_products(rows) == {"ppg_subset": 3, "ppg_disjoint": 2}
