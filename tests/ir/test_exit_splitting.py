"""Exit splitting, pathlogic's extension of IR.md (docs/pir.md "Extensions"; PathFinder §7.4):
``ret.N`` returns through exit N, ``call F(...) to L0, L1`` continues at the label of the exit
taken. Parser and printer (round trip), verifier (located errors), interpreter (counts: one load
per ``ret.N``, N >= 1), the native engine (hands such modules to the interpreter), CFG facts and
the CFG analyses against networkx, and branch correlation per exit."""
from __future__ import annotations

import pytest

from facts_gen.extract import empty_facts, extract_module
from pylogic.analysis import catalog
from pylogic.analysis.run import module_rows
from pylogic.engines import run_program
from pylogic.errors import PathlogicError
from pylogic.interp import run_module
from pylogic.interp.native.select import run_with
from pylogic.ir.model import Call
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_module
from pylogic.ir.verify import verify_module
from tests.datalog.cfg_oracle import cfg_oracle, loops_oracle

SPLIT = """func cmp2(a, b) {
entry:
    t = cmp.lt a, b
    cbr t, yes, no
yes:
    ret 1
no:
    ret.1 0
}

func main(n) {
entry:
    i = mov 0
    s = mov 0
    br loop
loop:
    x = call cmp2(i, 3) to one, zero
one:
    u = cmp.eq x, 1
    cbr u, inc1, bad
zero:
    u = cmp.eq x, 1
    cbr u, bad, inc100
inc1:
    s = add s, 1
    br next
inc100:
    s = add s, 100
    br next
bad:
    print -1
    br next
next:
    i = add i, 1
    c = cmp.lt i, n
    cbr c, loop, done
done:
    print s
    ret s
}
"""


def test_round_trip_and_model():
    m = parse_module(SPLIT)
    assert parse_module(print_module(m)) == m
    fn = m.function_map()["main"]
    call = fn.block_map()["loop"].instrs[-1]
    assert call.continuations == ("one", "zero") and call.is_terminator
    assert fn.block_map()["loop"].successors() == ("one", "zero")
    assert m.function_map()["cmp2"].block_map()["no"].instrs[-1].exit == 1
    assert "call cmp2(i, 3) to one, zero" in print_module(m)
    assert verify_module(m) == []


@pytest.mark.parametrize("text, where, message", [
    ("func f() {\nentry:\n    ret.x 1\n}\n", "3:5", "bad return exit"),
    ("func g() {\nentry:\n    ret\n}\nfunc f() {\nentry:\n    call g() to\n}\n", "7:16",
     "continuation label"),
])
def test_parse_errors_are_located(text, where, message):
    with pytest.raises(PathlogicError) as e:
        parse_module(text, "x.pir")
    assert f"x.pir:{where}" in str(e.value) and message in str(e.value)


@pytest.mark.parametrize("body, message", [
    ("    x = call h(1) to a\na:\n    ret x\n", "names 1 continuation(s) but 'h' returns through exit 1"),
    ("    x = call h(1)\n    ret x\n", "names no continuations"),
    ("    p:ut = pcmp.eq 1, 1\n    (p) x = call h(1) to a, a\na:\n    ret x\n", "cannot be guarded"),
    ("    x = call e(1) to a\na:\n    ret x\n", "extern 'e'"),
    ("    x = call h(1) to a, nowhere\na:\n    ret x\n", "'nowhere' is not a label"),
])
def test_verifier_reports_misuse_with_a_location(body, message):
    text = ("extern func e(a)\nfunc h(a) {\nentry:\n    cbr a, one, two\none:\n    ret 1\n"
            "two:\n    ret.1 0\n}\nfunc main() {\nentry:\n" + body + "}\n")
    errors = verify_module(parse_module(text, "v.pir"))
    assert any(message in str(e) for e in errors), [str(e) for e in errors]
    assert all(str(e).startswith("v.pir:") and e.loc.line for e in errors)


def test_interpreter_continues_per_exit_and_counts_one_load_per_split_return():
    m = parse_module(SPLIT)
    r = run_module(m, args=(6,))
    assert r.error is None and r.prints == [303]           # i < 3 three times: 3 + 300
    assert r.block_profile[("main", "one")] == 3 and r.block_profile[("main", "zero")] == 3
    assert ("main", "bad") not in r.block_profile
    assert r.kinds["loads"] == 3                            # the three ret.1: one load each
    assert sum(r.kinds.values()) == r.counts["instructions"]
    # the continuation is a return, not a branch: branches_taken counts br/cbr only
    assert r.kinds["branches"] == r.counts["branches_taken"]


@pytest.mark.parametrize("fuel", range(1, 80, 3))
def test_kind_counts_add_up_when_fuel_runs_out(fuel):
    r = run_module(parse_module(SPLIT), args=(6,), fuel=fuel)
    assert sum(r.kinds.values()) == r.counts["instructions"] <= fuel


def test_the_entry_function_may_return_through_any_exit():
    m = parse_module(SPLIT, "s.pir")
    r = run_module(m, entry="cmp2", args=(5, 1))              # no caller: just the value
    assert r.error is None and r.return_value == 0 and r.kinds["loads"] == 1


def test_native_engine_hands_exit_splitting_to_the_interpreter():
    m = parse_module(SPLIT)
    r = run_with("native", m, args=(6,))
    assert r.prints == [303] and r.engine.startswith("interp") and "exit splitting" in r.engine


def test_cfg_facts_and_analyses_agree_with_networkx():
    m = parse_module(SPLIT, "s.pir")
    facts = empty_facts()
    extract_module(m, "s.pir", facts)
    assert ("s.pir::main", "loop", "one") in facts["edge"]
    assert ("s.pir::main", "loop#0", 1, "zero") in facts["call_continuation"]
    assert ("s.pir::cmp2", "no#0", 1) in facts["return_exit"]
    program = catalog.datalog_dir() / catalog.BUNDLES["cfg_analyses"]
    rows = run_program(program, None, engine="clingo", facts=facts)
    for fn in m.defined_functions():
        f = f"s.pir::{fn.name}"
        labels = [b.label for b in fn.blocks]
        exits = [r[1] for r in facts["exit"] if r[0] == f]
        expected = cfg_oracle(labels, fn.edges(), exits) | loops_oracle(labels, fn.edges())
        for rel in ("idom", "df", "ipdom", "cdep", "reachable", "back_edge", "loop_header"):
            assert {tuple(r[1:]) for r in rows[rel] if r[0] == f} == expected[rel], (f, rel)


def test_liveness_keeps_the_call_result_live_into_the_continuations():
    m = parse_module(SPLIT, "s.pir")
    rows = module_rows(m, "s.pir", relations=["live_in", "live_out"], engine="clingo")
    live_out = {(r[1], r[2]) for r in rows["live_out"] if r[0] == "s.pir::main"}
    live_in = {(r[1], r[2]) for r in rows["live_in"] if r[0] == "s.pir::main"}
    assert ("loop", "x") in live_out and ("one", "x") in live_in
    assert ("loop", "x") not in live_in                      # written by the call that ends loop


def test_correlation_answers_per_exit():
    """The branches after the split call are decided by the returns of their exit only."""
    m = parse_module(SPLIT, "s.pir")
    rows = module_rows(m, "s.pir", relations=["correlation"], engine="clingo")["correlation"]
    got: dict = {}
    for f, i, a in rows:
        got.setdefault((f.split("::")[1], i.split("#")[0]), set()).add(a)
    assert got[("main", "one")] == {"TRUE"} and got[("main", "zero")] == {"FALSE"}


def test_predicated_deadness_follows_the_call_result_into_the_continuations():
    m = parse_module(SPLIT, "s.pir")
    rows = module_rows(m, "s.pir", relations=["pd_du", "pd_dead"], engine="clingo")
    du = {(r[1], r[3]) for r in rows["pd_du"] if r[0] == "s.pir::main" and r[2] == "x"}
    assert du == {("loop#0", "one#0"), ("loop#0", "zero#0")}
    assert ("s.pir::main", "loop#0") not in set(rows["pd_dead"])


@pytest.mark.parametrize("after", ["sccp", "dce", "pde", "cbe", "icbe", "if-convert", "pre-m",
                                   "sccp,dce"])
def test_passes_after_icbe_keep_split_exits_and_behaviour(after):
    """Passes run on icbe's output (calls with continuations, ret.N) keep the program's
    behaviour: sccp follows every continuation, jump forwarding retargets them, if-conversion
    keeps ret.N and does not predicate a call's exits."""
    from pylogic.analysis.optimize import optimize
    from pylogic.interp.differential import compare_modules
    from tests.papers.test_pathfinder_exit_splitting import MERGE
    module = parse_module(MERGE, "merge.pir")
    result = optimize(module, ["icbe"] + after.split(","), "merge.pir")
    assert verify_module(result.module) == []
    assert any(isinstance(i, Call) and i.continuations for f in result.module.functions
               for b in f.blocks for i in b.instrs)
    cases = [((8, 8), (1, 1)), ((3, 5), (4, 1)), ((0, 2), (1, 1))]
    assert compare_modules(module, result.module, cases).verdict == "identical"


def test_check_and_run_report_misuse_without_a_traceback(tmp_path, capsys):
    from pylogic.cli import main
    path = tmp_path / "bad.pir"
    path.write_text("func h(a) {\nentry:\n    ret.1 a\n}\nfunc main() {\nentry:\n"
                    "    x = call h(1)\n    ret x\n}\n", encoding="utf-8")
    assert main(["check", str(path)]) == 1
    _, err = capsys.readouterr()
    assert f"{path}:7:5: verify error: function 'main', block 'entry': 'h' returns through " \
           f"exit 1 (ret.1 at line 3)" in err and "Traceback" not in err
    good = tmp_path / "good.pir"
    good.write_text(SPLIT, encoding="utf-8")
    assert main(["run", str(good), "--args", "6"]) == 303 & 255
    out, _ = capsys.readouterr()
    assert out.splitlines()[0] == "303"
