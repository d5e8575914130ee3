"""Rows.only: the rows of some functions alone read as the whole run's do for them, and a
relation not computed for them is still refused."""
import pytest

from pylogic.engines.rows import Rows


def test_only_reads_as_the_whole():
    rows = Rows()
    rows.add_run({"idom": [("a::@f", "b1", "b2"), ("a::@g", "x", "y"), ("a::@f", "b0", "b1")],
                  "block": [("a::@g", "x"), ("a::@f", "b0")]}, ["a::@f", "a::@g"])
    rows.add_run({"cdep": [("a::@g", "x", "y", "z")]}, ["a::@g"])
    small = rows.only(f for f in ["a::@f"])                 # any iterable, a generator too
    assert small.functions() == ["a::@f"]
    for name in ("idom", "block"):
        assert small.of("a::@f")[name] == rows.of("a::@f")[name]
    assert small["idom"] == [("a::@f", "b1", "b2"), ("a::@f", "b0", "b1")]
    with pytest.raises(KeyError):
        small.of("a::@f")["cdep"]                           # never computed for @f
    both = rows.only(["a::@g", "a::@f"]).for_module("a")
    assert both.function("@g")["cdep"] == [("x", "y", "z")]
    assert rows.of("a::@g")["cdep"] == [("x", "y", "z")]    # the whole run is unchanged


def test_only_some_relations_refuses_the_others():
    rows = Rows()
    rows.add_run({"idom": [("a::@f", "b1", "b2"), ("a::@g", "x", "y")],
                  "block": [("a::@g", "x"), ("a::@f", "b0")]}, ["a::@f", "a::@g"])
    small = rows.only(["a::@f"], ("idom", "cdep"))
    assert small.of("a::@f")["idom"] == rows.of("a::@f")["idom"] == [("b1", "b2")]
    assert list(small) == ["idom"]
    for name in ("block", "cdep"):                 # left out / never computed: refused alike
        with pytest.raises(KeyError):
            small.of("a::@f")[name]
    assert rows.of("a::@f")["block"] == [("b0",)]  # the whole run is unchanged
