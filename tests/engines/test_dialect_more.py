"""The Soufflé dialect beyond the core (issue #16): each construct on the embedded engine against
a Python oracle computed here, and on Soufflé where its binary is present; what stays outside
is refused with its location."""
from __future__ import annotations

import pytest

from pylogic.engines import run_program
from pylogic.errors import DatalogError
from tests.support import engine_available

ENGINES = ["clingo", "souffle"]


def run(tmp_path, text: str, engine: str = "clingo", facts: dict | None = None):
    if not engine_available(engine):
        pytest.skip(f"{engine} not available")
    prog = tmp_path / "p.dl"
    prog.write_text(text)
    for name, lines in (facts or {}).items():
        (tmp_path / f"{name}.facts").write_text("".join(l + "\n" for l in lines))
    return run_program(prog, tmp_path, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_evaluation_pragma_is_accepted_and_changes_nothing(tmp_path, engine):
    text = ('.pragma "magic-transform" "*"\n.pragma "no-warn"\n'
            ".decl e(x: number, y: number)\n.input e\n.decl t(x: number, y: number)\n.output t\n"
            "t(x, y) :- e(x, y).\nt(x, z) :- t(x, y), e(y, z).\n")
    edges = [(1, 2), (2, 3), (3, 1), (4, 5)]
    closure = set(edges)
    while True:
        more = {(a, d) for a, b in closure for c, d in edges if b == c} - closure
        if not more:
            break
        closure |= more
    got = run(tmp_path, text, engine, {"e": [f"{a}\t{b}" for a, b in edges]})
    assert got["t"] == sorted(closure)


def test_a_pragma_that_changes_the_program_is_refused_at_its_line(tmp_path):
    with pytest.raises(DatalogError) as err:
        run(tmp_path, '.decl r(x: number)\n.output r\n.pragma "legacy"\nr(1).\n')
    assert err.value.loc.line == 3 and err.value.loc.col == 1
    assert '.pragma "legacy"' in err.value.message
