"""The predicated constant propagation running example (predicated_cp.md §4.2, Table 1):
the branchy and the if-converted form behave the same, and z = 17 on every feasible path."""
import pathlib

import pytest

from pylogic.interp import run_module
from pylogic.ir.parser import parse_file

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"

# predicated_cp.md §4.2 "Ground-truth semantics": x, y, u, v, w, s, t, z per feasible path.
PATHS = {
    "A B F G J (a>0)":        ((5, -3), (2, 3, 5, 7, 1, 7, 10, 17)),
    "A C D F G J (a<=0,b>0)": ((0, 4), (3, 2, 5, 7, 1, 8, 9, 17)),
    "A C E F H J (a<=0,b<=0)": ((-1, 0), (4, 1, 7, 5, 4, 11, 6, 17)),
}


@pytest.fixture(scope="module")
def modules():
    return {form: parse_file(EXAMPLES / f"pcp_{form}.pir") for form in ("branchy", "ifconverted")}


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("form", ["branchy", "ifconverted"])
def test_value_table_per_path(modules, form, path):
    inputs, values = PATHS[path]
    res = run_module(modules[form], inputs=inputs)
    assert res.error is None
    assert tuple(res.prints) == values
    assert res.return_value == 17 and res.exit_status == 17


@pytest.mark.parametrize("a", [-7, -1, 0, 1, 2, 1 << 40])
@pytest.mark.parametrize("b", [-3, 0, 1, 9])
def test_both_forms_agree_on_many_inputs(modules, a, b):
    r1 = run_module(modules["branchy"], inputs=(a, b))
    r2 = run_module(modules["ifconverted"], inputs=(a, b))
    assert r1.prints == r2.prints and r1.prints[-1] == 17
    assert r1.stdout == r2.stdout


def test_ifconverted_is_one_hyperblock_without_branches(modules):
    res = run_module(modules["ifconverted"], inputs=(0, 0))
    assert res.counts["branches_taken"] == 0
    assert res.block_profile == {("main", "A"): 1}
    # 32 instructions, on path E/H the guards B, D, G are false: 2 + 2 + 3 nullified
    assert res.counts["instructions"] == 32 and res.counts["nullified"] == 7


def test_branchy_edge_profile_follows_the_path(modules):
    res = run_module(modules["branchy"], inputs=(0, 1))
    assert res.edge_profile == {("main", "A", "C"): 1, ("main", "C", "D"): 1,
                                ("main", "D", "F"): 1, ("main", "F", "G"): 1,
                                ("main", "G", "J"): 1}


def test_missing_input_is_a_runtime_error(modules):
    res = run_module(modules["branchy"], inputs=(1,))
    assert res.error is not None and "input exhausted" in res.error.message
