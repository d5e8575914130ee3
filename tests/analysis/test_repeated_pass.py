"""``optimize`` runs a pass that ``repeats_per_function`` (pre-m) again on its own output on the
functions its last run changed only, rows included (#28: "re-analysis limited to the functions a
round changed"); the result is the module a whole second run gives."""
import pytest

from pylogic.analysis import passes
from pylogic.analysis.optimize import optimize
from pylogic.analysis.passes import changed_functions, run_pass
from pylogic.interp.machine import run_module
from pylogic.ir.parser import parse_module

SOURCE = """
func f(a, b, c) {
entry:
    cbr c, left, right
left:
    x = add a, b
    print x
    br join
right:
    br join
join:
    y = add a, b
    ret y
}

func g(a) {
entry:
    z = mul a, 3
    ret z
}

func main(n) {
entry:
    r = call f(n, 4, n)
    s = call g(r)
    print s
    ret 0
}
"""


@pytest.fixture
def rows_asked(monkeypatch):
    """The ``functions`` each rows computation of ``run_pass`` was restricted to."""
    asked = []
    real = passes.module_rows

    def spy(*args, functions=None, **kwargs):
        asked.append(None if functions is None else sorted(functions))
        return real(*args, functions=functions, **kwargs)
    monkeypatch.setattr(passes, "module_rows", spy)
    return asked


def test_a_repeat_of_pre_m_works_on_what_its_last_run_changed(rows_asked):
    module = parse_module(SOURCE, "repeat.pir")
    result = optimize(module, ["pre-m", "pre-m"], engine="clingo")
    first, second = result.passes
    changed = changed_functions(first.input, first.module)
    assert changed == ["f"]                                  # g and main have nothing to move
    assert rows_asked == [None, ["f"]]
    assert second.record.options["functions"] == ["f"]
    whole, _ = run_pass("pre-m", first.module, engine="clingo")   # the oracle: a whole run
    assert second.module == whole
    for n in (0, 5):
        ours, original = (run_module(m, "main", args=[n]) for m in (result.module, module))
        assert (ours.stdout, ours.return_value) == (original.stdout, original.return_value)
        assert original.stdout


def test_a_repeat_of_a_pass_without_the_flag_runs_whole(rows_asked):
    module = parse_module(SOURCE, "repeat.pir")
    result = optimize(module, ["simplify", "simplify"], engine="clingo")
    assert result.passes[1].record.options.get("functions") is None
    assert len(result.passes[1].record.applied) == 3              # every function, again
    # the rows: every function's first, then only those simplify will not find settled
    # (``simplify.rows_for``): none, each is its own fixpoint with the same reads
    assert rows_asked == [None, []]


def test_a_repeat_keeps_the_functions_the_user_named(rows_asked):
    module = parse_module(SOURCE, "repeat.pir")
    result = optimize(module, ["pre-m", "pre-m"], engine="clingo",
                      options={"pre-m": {"functions": ["g", "f"]}})
    assert result.passes[1].record.options["functions"] == ["f"]
    only_g = optimize(module, ["pre-m", "pre-m"], engine="clingo",
                      options={"pre-m": {"functions": ["g"]}})
    assert only_g.passes[1].record.options["functions"] == []
    assert only_g.module == module
