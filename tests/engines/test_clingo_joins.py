"""The clingo translation joins a recursive rule's non-recursive atoms once, outside the
recursion (``to_clingo._with_joins``): the rows are the same as the rule's own, and a join that
would be a cross product per function (one shared column, a relation joined with itself) is
left to clingo. A wildcard of a positive atom becomes a variable of its own outside aggregates
(``to_clingo._named_wildcards``), with the same rows."""
from __future__ import annotations

from pylogic.engines.clingo_engine import run_clingo
from pylogic.engines.program import load_program
from pylogic.engines.to_clingo import program_text

# liveness.dl's shape: live_in flows backwards over branch(f, i, t) and instr(f, i, b, _)
PROGRAM = """
.decl branch(f: symbol, i: symbol, t: symbol)
.decl instr(f: symbol, i: symbol, b: symbol, k: number)
.decl gen(f: symbol, b: symbol, r: symbol)
.decl kill(f: symbol, b: symbol, r: symbol)
.decl rpo(f: symbol, b: symbol, n: number)
.input branch
.input instr
.input gen
.input kill
.input rpo
.decl live(f: symbol, b: symbol, r: symbol)
.output live
live(f, b, r) :- gen(f, b, r).
live(f, b, r) :- branch(f, i, t), instr(f, i, b, _), live(f, t, r), !kill(f, b, r).
.decl later(f: symbol, a: symbol, b: symbol)
.output later
later(f, a, b) :- rpo(f, a, x), rpo(f, b, y), x < y, live(f, b, _).
later(f, a, c) :- later(f, a, b), later(f, b, c), rpo(f, a, x), rpo(f, c, y), x < y.
"""

FACTS = {
    "branch": [("f", "j1", "B"), ("f", "j2", "C"), ("f", "j3", "A"), ("f", "j4", "D")],
    "instr": [("f", "j1", "A", 3), ("f", "j2", "B", 1), ("f", "j3", "C", 0), ("f", "j4", "B", 2)],
    "gen": [("f", "C", "x"), ("f", "D", "y")],
    "kill": [("f", "A", "y")],
    "rpo": [("f", "A", 0), ("f", "B", 1), ("f", "C", 2), ("f", "D", 3)],
}


def _program(tmp_path):
    path = tmp_path / "live.dl"
    path.write_text(PROGRAM)
    return load_program(path)


def test_the_recursive_rule_reads_a_join_computed_outside_its_recursion(tmp_path):
    text = program_text(_program(tmp_path))
    assert "r_join'0(Vf,Vt,Vb) :- r_branch(Vf,Vi,Vt), r_instr(Vf,Vi,Vb,V_Hp0)." in text
    assert "r_live(Vf,Vb,Vr) :- r_join'0(Vf,Vt,Vb), r_live(Vf,Vt,Vr), not r_kill(Vf,Vb,Vr)." in text


def test_a_self_join_on_the_function_is_not_precomputed(tmp_path):
    text = program_text(_program(tmp_path))
    later = [line for line in text.splitlines() if line.startswith("r_later(Vf,Va,Vc)")]
    assert later and "join" not in later[0]


def test_the_rows_are_the_rules_own(tmp_path):
    checked = _program(tmp_path)
    rows = run_clingo(checked, FACTS, ["live", "later"])
    # by hand: x is read in C, live back through B (j2) and A (j1) to C (j3); y is read in D,
    # live in B (j4), killed in A
    assert rows["live"] == [("f", "A", "x"), ("f", "B", "x"), ("f", "B", "y"), ("f", "C", "x"),
                            ("f", "D", "y")]
    assert rows["later"] == [("f", "A", "B"), ("f", "A", "C"), ("f", "A", "D"), ("f", "B", "C"),
                             ("f", "B", "D"), ("f", "C", "D")]


# correlation.dl's roll-back shape: an answer before index k2 of block n goes on before k = k2 + 1
# where a query is pending there and the instruction at k2 does not kill it
STEPS = """
.decl q(f: symbol, n: symbol, k: number)
.decl instr(f: symbol, j: symbol, n: symbol, k: number)
.decl kill(f: symbol, j: symbol)
.decl start(f: symbol, n: symbol, k: number, a: symbol)
.input q
.input instr
.input kill
.input start
.decl ans(f: symbol, n: symbol, k: number, a: symbol)
.output ans
ans(f, n, k, a) :- start(f, n, k, a).
ans(f, n, k, a) :- ans(f, n, k2, a), k = k2 + 1, q(f, n, k), instr(f, j, n, k2), !kill(f, j).
"""


def _steps(tmp_path, size: int):
    path = tmp_path / "steps.dl"
    path.write_text(STEPS)
    facts = {"q": [("f", "B", k) for k in range(1, size + 1)],
             "instr": [("f", f"j{k}", "B", k) for k in range(size)],
             "kill": [("f", "j3")],
             "start": [("f", "B", 0, "TRUE")]}
    return load_program(path), facts


def test_a_comparison_over_the_joined_atoms_filters_the_join(tmp_path):
    checked, facts = _steps(tmp_path, 6)
    text = program_text(checked)
    assert ("r_join'0(Vf,Vn,Vk,Vj,Vk2) :- r_q(Vf,Vn,Vk), r_instr(Vf,Vj,Vn,Vk2), "
            "Vk=Vk2+1.") in text
    step = [line for line in text.splitlines() if line.startswith("r_ans(Vf,Vn,Vk,Va) :- r_join")]
    assert step and "Vk=" not in step[0]
    # by hand: TRUE before 0 goes on past j0, j1, j2 to index 3; j3 kills it
    assert run_clingo(checked, facts, ["ans"])["ans"] == [("f", "B", k, "TRUE") for k in range(4)]


def test_the_join_holds_one_row_per_step_not_per_pair_of_a_block(tmp_path):
    import clingo
    from pylogic.engines.clingo_engine import facts_text

    size = 40
    checked, facts = _steps(tmp_path, size)
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], program_text(checked))
    ctl.add("base", [], "".join(facts_text(f"r_{rel}", checked.relations[rel].kinds, rows)
                                for rel, rows in facts.items()))
    ctl.ground([("base", [])])
    joined = [a for a in ctl.symbolic_atoms if a.symbol.name == "r_join'0"]
    assert len(joined) == size      # (q before k, instr at k - 1); a cross product: size * size


# acyclic_control_dependence.dl's forward_edge: a relation joined twice through wildcards
WILD = """
.decl edge(f: symbol, a: symbol, b: symbol)
.decl rpo(f: symbol, b: symbol, n: number)
.decl retreating(f: symbol, a: symbol, b: symbol)
.input edge
.input rpo
.input retreating
.decl forward(f: symbol, a: symbol, b: symbol)
.output forward
forward(f, a, b) :- edge(f, a, b), rpo(f, a, _), rpo(f, b, _), !retreating(f, a, _).
.decl last(f: symbol, m: number)
.output last
last(f, m) :- rpo(f, _, _), m = max n : { rpo(f, _, n) }.
"""


def test_wildcards_of_positive_atoms_are_named_outside_aggregates(tmp_path):
    path = tmp_path / "wild.dl"
    path.write_text(WILD)
    checked = load_program(path)
    text = program_text(checked)
    assert ("r_forward(Vf,Va,Vb) :- r_edge(Vf,Va,Vb), r_rpo(Vf,Va,V_Hp0), r_rpo(Vf,Vb,V_Hp1), "
            "not r_retreating(Vf,Va,_).") in text            # a negated atom keeps its wildcard
    last = [line for line in text.splitlines() if line.startswith("r_last(")]
    assert last and last[0].startswith("r_last(Vf,Vm) :- r_rpo(Vf,_,_),")   # an aggregate body
    facts = {"edge": [("f", "A", "B"), ("f", "B", "C"), ("f", "C", "A"), ("f", "A", "X")],
             "rpo": [("f", "A", 0), ("f", "B", 1), ("f", "C", 2)],
             "retreating": [("f", "C", "A")]}
    rows = run_clingo(checked, facts, ["forward", "last"])
    assert rows["forward"] == [("f", "A", "B"), ("f", "B", "C")]   # X unreached; C's edge back
    assert rows["last"] == [("f", 2)]


# two recursive rules whose joins differ only in their variables' names: one join relation
TWICE = """
.decl branch(f: symbol, i: symbol, t: symbol)
.decl instr(f: symbol, i: symbol, b: symbol, k: number)
.decl gen(f: symbol, b: symbol, r: symbol)
.input branch
.input instr
.input gen
.decl live(f: symbol, b: symbol, r: symbol)
.decl back(g: symbol, x: symbol, s: symbol)
.output live
.output back
live(f, b, r) :- gen(f, b, r).
live(f, b, r) :- branch(f, i, t), instr(f, i, b, _), live(f, t, r).
back(g, x, s) :- gen(g, x, s).
back(g, x, s) :- branch(g, j, y), instr(g, j, x, _), back(g, y, s).
"""


def test_joins_equal_up_to_their_names_are_one_relation(tmp_path):
    path = tmp_path / "twice.dl"
    path.write_text(TWICE)
    checked = load_program(path)
    text = program_text(checked)
    assert "r_join'0(Vf,Vt,Vb) :- r_branch(Vf,Vi,Vt), r_instr(Vf,Vi,Vb,V_Hp0)." in text
    assert "r_back(Vg,Vx,Vs) :- r_join'0(Vg,Vy,Vx), r_back(Vg,Vy,Vs)." in text
    assert "r_join'1" not in text
    rows = run_clingo(checked, {r: FACTS[r] for r in ("branch", "instr", "gen")},
                      ["live", "back"])
    # by hand: edges A -> B (j1), B -> C (j2), C -> A (j3), B -> D (j4); x read in C and y in
    # D are live wherever a path reaches C or D
    want = [("f", b, r) for b, r in (("A", "x"), ("A", "y"), ("B", "x"), ("B", "y"),
                                     ("C", "x"), ("C", "y"), ("D", "y"))]
    assert rows["live"] == want and rows["back"] == want
