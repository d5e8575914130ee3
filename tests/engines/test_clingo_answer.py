"""clingo's answer is decoded after its Control is freed (``clingo_engine._read_answer`` copies
the shown atoms' symbol handles out of the model, ``run_clingo`` deletes the Control and gives
the freed heap back, then the rows are built): clingo's symbols belong to the process, so the
handles still name the same values even when another Control has since grounded new symbols
in the freed memory. Checked against the Python-built rows and duckdb's."""
from __future__ import annotations

import clingo
import pytest

from pylogic import query
from pylogic.engines import clingo_engine

PROGRAM = """
.decl s(x: symbol, k: number)
.input s
.decl t(x: symbol, y: symbol, k: number)
.output t
t(x, y, k + 1) :- s(x, k), y = cat(x, "!").
.decl some()
.output some
some() :- s(_, 0).
"""

FACTS = {"s": [(f"v{i}", i) for i in range(3000)] + [('say "hi"', -1), ("\udcff", -2)]}
EXPECTED_T = sorted((x, x + "!", k + 1) for x, k in FACTS["s"])


def _busy_elsewhere():
    """Another Control grounding fresh strings and numbers, in the memory just freed."""
    other = clingo.Control(["--warn=none"])
    other.add("base", [], "".join(f'o("other{i}",{i * 7}).' for i in range(20000)))
    other.ground([("base", [])])
    del other


def test_rows_decoded_after_the_control_is_freed(monkeypatch):
    freed = []
    release = clingo_engine._return_freed_memory

    def release_then_reuse():
        release()
        _busy_elsewhere()
        freed.append(True)

    monkeypatch.setattr(clingo_engine, "_return_freed_memory", release_then_reuse)
    rows = query(PROGRAM, facts=FACTS, engine="clingo")
    assert freed, "run_clingo no longer frees its Control before decoding"
    assert rows["t"] == EXPECTED_T
    assert rows["some"] == [()]


@pytest.mark.parametrize("reader", ["raw", "public"])
def test_readers_agree_with_duckdb(monkeypatch, reader):
    facts = FACTS
    if reader == "public":      # its Symbol.string decodes UTF-8: no byte 0xff there
        monkeypatch.setattr(clingo_engine, "_raw_model_reader", lambda: None)
        facts = {"s": [r for r in FACTS["s"] if r[0] != "\udcff"]}
    assert query(PROGRAM, facts=facts, engine="clingo") == \
        query(PROGRAM, facts=facts, engine="duckdb")
