"""``CorrelationRounds`` (icbe's later rounds ask only the branches a change can have reached)
gives, round after round, the rows of a whole-module run (``module_rows``, the oracle), as sets:
through icbe's own rounds, and through random edits of one function at a time (a branch decided,
a constant changed, a call dropped, a function cloned for one call site) on random modules with
calls."""
from __future__ import annotations

import dataclasses
import random

import pytest

from pylogic.analysis.correlation_rounds import CorrelationRounds
from pylogic.analysis.optimize import optimize
from pylogic.analysis.run import module_rows
from pylogic.ir.model import Br, Call, CondBr, Imm, Mov, Ret
from pylogic.ir.parser import parse_module
from pylogic.transforms.cbe.icbe import NEEDS
from tests.datalog.correlation_memory_oracle import random_memory_module
from tests.datalog.correlation_oracle import random_module


def _assert_same(rounds: CorrelationRounds, module) -> None:
    got = rounds.rows(module)
    whole = module_rows(module, "t.pir", relations=NEEDS, engine="clingo")
    for relation in rounds.outputs:
        assert set(got[relation]) == set(whole[relation]), relation


def _edited(module, rng: random.Random):
    """``module`` with one function edited at random (None when the draw found nothing)."""
    defined = [f for f in module.defined_functions()]
    fn = rng.choice(defined)
    sites = [(b, k) for b in range(len(fn.blocks)) for k in range(len(fn.blocks[b].instrs))]
    b, k = rng.choice(sites)
    block = fn.blocks[b]
    ins = block.instrs[k]
    if isinstance(ins, CondBr):                       # decided one way
        new = Br(target=rng.choice((ins.if_true, ins.if_false)))
    elif isinstance(ins, Mov) and isinstance(ins.src, Imm):
        new = dataclasses.replace(ins, src=Imm(rng.randint(-2, 3)))
    elif isinstance(ins, Ret):                        # another constant returned
        new = dataclasses.replace(ins, value=Imm(rng.randint(-1, 2)))
    elif isinstance(ins, Call) and rng.random() < 0.3:     # another constant argument
        new = dataclasses.replace(ins, args=(ins.args[0], Imm(rng.randint(-1, 2))))
    elif isinstance(ins, Call) and rng.random() < 0.5:     # dropped
        new = Mov(dest=ins.dest, src=Imm(rng.randint(-1, 2))) if ins.dest else None
    elif isinstance(ins, Call):                       # the callee cloned for this call site
        callee = module.function_map()[ins.callee]
        name = f"{callee.name}.c{rng.randrange(1000)}"
        if name in module.function_map():
            return None
        module = dataclasses.replace(module, functions=module.functions + (
            dataclasses.replace(callee, name=name),))
        new = dataclasses.replace(ins, callee=name)
    else:
        return None
    instrs = block.instrs[:k] + ((new,) if new is not None else ()) + block.instrs[k + 1:]
    blocks = fn.blocks[:b] + (dataclasses.replace(block, instrs=instrs),) + fn.blocks[b + 1:]
    edited = dataclasses.replace(fn, blocks=blocks)
    return dataclasses.replace(module, functions=tuple(edited if f.name == fn.name else f
                                                      for f in module.functions))


def _rounds_of_edits(module, rng, edits: int) -> CorrelationRounds:
    """Rounds over ``module`` and up to ``edits`` random edits of it, each round's rows checked
    against a whole-module run."""
    rounds = CorrelationRounds("t.pir", NEEDS, "clingo")
    _assert_same(rounds, module)
    for _ in range(edits):
        edited = _edited(module, rng)
        if edited is not None:
            module = edited
            _assert_same(rounds, module)
    return rounds


@pytest.mark.parametrize("seed", range(16))
@pytest.mark.slow
def test_random_edits_give_the_whole_module_rows(seed):
    rng = random.Random(seed)
    module = random_module(rng, functions=5)
    rounds = _rounds_of_edits(module, rng, 12)
    # (not vacuous: edits far from some branch keep it; the first round asks every branch)
    assert rounds.asked[0] == rounds.branches[0]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.slow
def test_random_edits_of_modules_with_memory_give_the_whole_module_rows(seed):
    """The same with globals, cells and dereferences (``_read_only`` cuts their rows)."""
    rng = random.Random(seed)
    _rounds_of_edits(random_memory_module(rng, functions=4, allocas=seed % 2 == 0), rng, 10)


def test_a_narrow_window_gives_the_whole_module_rows(monkeypatch):
    """Where a function's window (``correlation_window``) is narrower than its ranks, the window
    rules read every rank: ``_read_ranks`` keeps them all there, and the rows are still the whole
    run's (not vacuous: the window changes some rows)."""
    import facts_gen.interprocedural as interprocedural
    from tests.datalog.test_correlation_window import diamonds
    modules = [parse_module(diamonds(6))] + [random_module(random.Random(seed)) for seed in range(4)]

    def outputs(module):
        rows = module_rows(module, "t.pir", relations=NEEDS, engine="clingo")
        return {r: set(rows[r]) for r in NEEDS if r.startswith("correlation")}
    wide = [outputs(m) for m in modules]
    monkeypatch.setattr(interprocedural, "DEFAULT_WINDOW", 1)
    narrowed = 0
    for seed, (module, rows) in enumerate(zip(modules, wide)):
        _rounds_of_edits(module, random.Random(100 + seed), 3)
        narrowed += outputs(module) != rows
    assert narrowed


@pytest.mark.slow
def test_some_edits_keep_branches():
    kept = 0
    for seed in range(12):
        rng = random.Random(seed)
        module = random_module(rng, functions=5)
        rounds = CorrelationRounds("t.pir", NEEDS, "clingo")
        rounds.rows(module)
        for _ in range(8):
            edited = _edited(module, rng)
            if edited is not None:
                module = edited
                rounds.rows(module)
        kept += sum(b - a for a, b in zip(rounds.asked, rounds.branches))
    assert kept > 0


def _decided(rows) -> set:
    """The branches some path decides: a TRUE or FALSE ``correlation`` row."""
    return {row[:2] for row in rows["correlation"] if row[2] in ("TRUE", "FALSE")}


@pytest.mark.parametrize("seed", range(100, 106))
@pytest.mark.slow
def test_icbe_rounds_give_the_whole_module_rows(seed, monkeypatch):
    """icbe's own rounds, each checked against the whole-module run: the same rows but those of
    the settled branches, which the whole run decides on no path (the oracle of settling) and
    the round gives none (a summary only they asked is not computed either)."""
    import pylogic.analysis.correlation_rounds as cr
    checked, settled = [], []
    plain = cr.CorrelationRounds.rows

    def rows(self, module):
        got = plain(self, module)
        whole = module_rows(module, self.relpath, relations=NEEDS, engine=self.engine)
        quiet = self.settled_now
        assert not quiet & _decided(whole)
        for relation in self.outputs:
            if relation in cr.SUMMARY_KEYED:
                assert set(got[relation]) <= set(whole[relation]), relation
                continue
            want = {row for row in whole[relation]
                    if not (relation in cr.BRANCH_KEYED and row[:2] in quiet)}
            assert set(got[relation]) == want, relation
        checked.append(module)
        settled.append(len(quiet))
        return got
    monkeypatch.setattr(cr.CorrelationRounds, "rows", rows)
    optimize(random_module(random.Random(seed), functions=4), ["icbe"], "t.pir", engine="clingo")
    optimize(random_memory_module(random.Random(seed), functions=4, allocas=seed % 2 == 1),
             ["icbe"], "t.pir", engine="clingo")
    assert checked


def _icbe_twice(module, monkeypatch) -> tuple:
    """``(output text, output text, settled branches per round)``: icbe's with settling, then
    without it (``Pass.narrowing`` off)."""
    import pylogic.analysis.correlation_rounds as cr
    from pylogic.ir.printer import print_module
    from pylogic.transforms import registry
    counts = []
    plain = cr.CorrelationRounds.rows

    def rows(self, m):
        got = plain(self, m)
        counts.append(self.settled[-1])
        return got
    with monkeypatch.context() as patch:
        patch.setattr(cr.CorrelationRounds, "rows", rows)
        settling = print_module(optimize(module, ["icbe"], "t.pir", engine="clingo").module)
    with monkeypatch.context() as patch:
        patch.setitem(registry.PASSES, "icbe",
                      dataclasses.replace(registry.get_pass("icbe"), narrowing=False))
        asking = print_module(optimize(module, ["icbe"], "t.pir", engine="clingo").module)
    return settling, asking, counts


@pytest.mark.parametrize("seed", range(6))
def test_settled_branches_change_no_output_of_icbe(seed, monkeypatch):
    """icbe's output is the same whether its later rounds ask the settled branches or not (on
    random modules with calls, and with memory); not vacuous: some rounds settle branches."""
    settled = 0
    for module in (random_module(random.Random(seed), functions=5),
                   random_memory_module(random.Random(seed), functions=4, allocas=seed % 2 == 1)):
        settling, asking, counts = _icbe_twice(module, monkeypatch)
        assert settling == asking
        settled += sum(counts)
    assert seed != 0 or settled      # (seed 0: 7 settled in its rounds)


CELL_WIDENS = """global g[8]
func k(x) {
entry:
    p = mov g
    ret p
}
func main(x) {
entry:
    store g, 1
    y = load g
    t = cmp.eq y, 1
    cbr t, a, b
a:
    ret 1
b:
    ret 0
}
"""


def test_a_new_memory_cell_settles_nothing():
    """k takes g's address, so g is no memory cell and main's branch is decided on no path;
    without k (an uncalled function icbe dropped) g is a cell and the branch is TRUE. The
    round asks it again: the cells widened."""
    first = parse_module(CELL_WIDENS)
    second = parse_module(CELL_WIDENS.replace("func k(x) {\nentry:\n    p = mov g\n    ret p\n}\n",
                                              ""))
    assert "k" not in second.function_map()
    rounds = CorrelationRounds("t.pir", NEEDS, "clingo", narrowing=True)
    assert not _decided(rounds.rows(first))
    _assert_same(rounds, second)
    assert rounds.settled[-1] == 0 and _decided(rounds.rows(second))


@pytest.mark.parametrize("limit", ["decides", "window", "rewrites"])
def test_a_round_that_cut_questions_settles_nothing_it_may_have_cut(limit, monkeypatch):
    """Over ``DECIDES_LIMIT`` a function's ``decides`` table lacks far queries, a window
    narrower than a function's ranks cuts walks short, and ``REWRITE_LIMIT`` keeps a function's
    first new queries in the closure's order: each can leave a branch undecided that the next
    round decides (a decided branch frees room, copies shift ranks). After a cut table or window
    no branch settles; after a capped function, none whose query's closure met a rewrite the
    limit refused (``QuestionCuts.cut_branches``), while others still do -- and icbe's output
    is the one it gives asking every branch."""
    import facts_gen.interprocedural as interprocedural
    modules = [random_module(random.Random(seed), functions=5) for seed in range(4)]
    counts = [c for m in modules for c in _icbe_twice(m, monkeypatch)[2]]
    assert sum(counts)
    monkeypatch.setattr(interprocedural, *{"decides": ("DECIDES_LIMIT", 0),
                                           "window": ("DEFAULT_WINDOW", 0),
                                           "rewrites": ("REWRITE_LIMIT", 1)}[limit])
    capped = settled = 0
    for module in modules:
        settling, asking, counts = _icbe_twice(module, monkeypatch)
        assert settling == asking
        assert limit == "rewrites" or not sum(counts)
        capped += bool(interprocedural.question_cuts(module).capped)
        settled += sum(counts)
    assert limit != "rewrites" or (capped and settled)


# Each edit below changes one function and, through one kind of read, the answer of a branch in
# another (module docstring of correlation_rounds: (a) reach, (b) callers at an entry, (c)
# summaries); a round that kept that branch's old rows would fail.
SUMMARY = """
func f(x) {
entry:
    ret 1
}
func g(x) {
entry:
    z = call f(x)
    ret z
}
func main(x) {
entry:
    z = call g(x)
    t = cmp.eq z, 1
    cbr t, a, b
a:
    ret 1
b:
    ret 0
}
"""
ENTRY = """
func f(x) {
entry:
    t = cmp.eq x, 1
    cbr t, a, b
a:
    ret 1
b:
    ret 0
}
func h(y) {
entry:
    z = call f(y)
    ret z
}
func main(x) {
entry:
    z = call h(1)
    ret z
}
"""
EDITS = {
    "summary": (SUMMARY, lambda text: text.replace("ret 1\n}\nfunc g", "ret 0\n}\nfunc g")),
    "entry": (ENTRY, lambda text: text.replace("call h(1)", "call h(0)")),
    "new caller": (ENTRY, lambda text: text + "func k(x) {\nentry:\n    z = call h(0)\n"
                                              "    ret z\n}\n"),
}


@pytest.mark.parametrize("kind", sorted(EDITS))
@pytest.mark.slow
def test_an_edit_reaching_a_branch_elsewhere_asks_it_again(kind):
    text, edit = EDITS[kind]
    rounds = CorrelationRounds("t.pir", NEEDS, "clingo")
    before = set(rounds.rows(parse_module(text))["correlation"])
    edited = parse_module(edit(text))
    _assert_same(rounds, edited)
    assert set(module_rows(edited, "t.pir", relations=NEEDS)["correlation"]) != before


def test_a_kept_branch_keeps_the_summaries_it_asked():
    """An edit far from main's branch keeps it, and with it the rows of the summaries it asked,
    g's and (through g's) f's: exit splitting reads them."""
    rounds = CorrelationRounds("t.pir", NEEDS, "clingo")
    rounds.rows(parse_module(SUMMARY))
    far = parse_module(SUMMARY + "func k(x) {\nentry:\n    ret x\n}\n")
    _assert_same(rounds, far)
    assert rounds.asked[-1] == 0 < rounds.branches[-1]
    kept = module_rows(far, "t.pir", relations=NEEDS)["correlation_return"]
    assert {row[0] for row in kept} == {"t.pir::f", "t.pir::g"}



@pytest.mark.parametrize("seed", range(10))
def test_memory_modules_give_the_whole_module_rows(seed):
    """A round's facts are cut to the functions its questions can read (``_read_only``): a memory
    cell's query goes to every caller and into the callees that may store it."""
    from tests.datalog.correlation_memory_oracle import random_memory_module
    rng = random.Random(seed)
    module = random_memory_module(rng, functions=4, allocas=seed % 2 == 1)
    _rounds_of_edits(module, rng, 4)


PAIRS_ONLY = """func f(x, y) {
entry:
    t = cmp.lt x, y
    cbr t, again, no
again:
    u = cmp.lt x, y
    cbr u, yes, no
yes:
    ret 1
no:
    ret 0
}
func main() {
entry:
    r = call f(1, 2)
    print r
    ret 0
}
"""


@pytest.mark.parametrize("name", ["entry", "summary", "param", "returned", "pairs",
                                  "returned-past", "pairs-past"])
def test_a_question_read_in_another_function_gives_the_whole_module_rows(name):
    """Each module's only branch is decided in another function (tests/datalog/
    test_correlation_decides.py), or is a pair question in a function no other question reaches:
    the round keeps those functions' facts. (``-past``: the walk back from a return, and a pair
    question's walk, pass an instruction no fed row names: ``_read_instructions`` keeps it.)"""
    from tests.datalog import test_correlation_decides as cases
    text = {"entry": cases.CELL_AT_ENTRY, "summary": cases.CELL_SUMMARY, "param": cases.PARAM,
            "returned": cases.RETURNED, "pairs": PAIRS_ONLY,
            "returned-past": cases.RETURNED.replace("    ret x\n", "    y = mov 3\n    ret x\n"),
            "pairs-past": PAIRS_ONLY.replace("again:\n", "again:\n    print 7\n")}[name]
    assert text.count("mov 3") + text.count("print 7") == name.endswith("-past")
    module = parse_module(text)
    rounds = CorrelationRounds("t.pir", NEEDS, "clingo")
    got = rounds.rows(module)
    assert "TRUE" in {row[2] for row in got["correlation"]}
    _assert_same(CorrelationRounds("t.pir", NEEDS, "clingo"), module)


RETARGET = """
func f(x) {
entry:
    ret 1
}
func main(x) {
entry:
    t = cmp.eq x, 1
    cbr t, a, b
a:
    z = call f(x)
    u = cmp.eq z, 1
    cbr u, c, b
b:
    ret 0
c:
    ret 1
}
"""


def test_a_retargeted_call_asks_again_only_the_branches_reading_the_callee():
    """main's call of f redirected to a clone of f (icbe's entry splitting, every round): main's
    facts differ only in that call's callee, so main is no change of its own (``_changed``);
    the branch asking f's summary is asked again, the branch on x is kept."""
    rounds = CorrelationRounds("t.pir", NEEDS, "clingo")
    module = parse_module(RETARGET)
    rounds.rows(module)
    main = module.function_map()["main"]
    blocks = tuple(dataclasses.replace(b, instrs=tuple(
        dataclasses.replace(ins, callee="f.c") if isinstance(ins, Call) else ins
        for ins in b.instrs)) if b.label == "a" else b for b in main.blocks)
    clone = dataclasses.replace(module.function_map()["f"], name="f.c")
    retargeted = dataclasses.replace(module, functions=tuple(
        dataclasses.replace(main, blocks=blocks) if f.name == "main" else f
        for f in module.functions) + (clone,))
    _assert_same(rounds, retargeted)
    assert (rounds.asked[-1], rounds.branches[-1]) == (1, 2)


@pytest.mark.parametrize("seed", range(20))
def test_cut_branches_are_those_whose_closure_meets_a_refused_rewrite(seed):
    """``_refused_from`` (one walk back from the registers where a rewrite was refused)
    against a walk forward from each branch's register over the same edges (to the registers
    its query is pending on next, and those its rewrites make queries on): a branch is cut
    exactly when its walk meets a refused register."""
    from facts_gen.interprocedural import _refused_from
    rng = random.Random(seed)
    regs = [(f, v) for f in ("f", "g") for v in ("a", "b", "c", "d", "e")]
    nexts = {r: rng.sample(regs, rng.randrange(3)) for r in regs}
    rewriters = {r: [(0, rng.choice("abcde"), None)] for r in rng.sample(regs, 4)}
    refused = set(rng.sample(regs, rng.randrange(3)))
    seeds = [((r[0], k), r) for k, r in enumerate(regs)]

    def meets_a_refusal(start):
        seen, work = {start}, [start]
        while work:
            r = work.pop()
            if r in refused:
                return True
            for t in nexts[r] + [(r[0], a) for _, a, _step in rewriters.get(r, ())]:
                if t not in seen:
                    seen.add(t)
                    work.append(t)
        return False
    expected = {b for b, r in seeds if meets_a_refusal(r)}
    assert _refused_from(refused, seeds, nexts, rewriters) == expected
