"""datalog/pre.dl (issue #14 slice 2): availability and anticipability on the {⊤, Must, May, No}
lattice, the CMP region and PartialReuse, checked against the maximal fixed point of the thesis'
equations iterated in Python (tests/transforms/pre/oracle.py) on 300 generated CFGs, and equal
on every available engine. Also the value-flow facts (slice 1) on small cases."""
from __future__ import annotations

import pytest

from pylogic.analysis.run import module_rows
from pylogic.analysis.optimize import optimize
from pylogic.ir.parser import parse_module
from pylogic.ir.printer import print_module
from facts_gen import value_flow
from facts_gen.extract import extract_module
from pylogic.flow.candidates import candidate_expressions
from pylogic.flow.known_bytes import KnownBytes
from tests.support import ENGINES
from tests.transforms.pre import oracle
from pylogic.ir.synthetic_values import random_module

RELATIONS = ["pre_avail_in", "pre_avail_out", "pre_antic_in", "pre_antic_out", "pre_prevented",
             "pre_partial_reuse", "pre_cmp_entry", "pre_cmp_exit", "pre_antloc", "pre_comp",
             "pre_kills"]
SEEDS = range(300)


def test_value_flow_facts_name_expressions_occurrences_and_kills():
    m = parse_module("global g[8]\nfunc f(a, b, p) {\ne:\n x = add a, b\n y = add b, a\n"
                     " a = mov 1\n u = load.4u p\n store.8 g, 1\n w = load.4u p\n"
                     " (a) z = add a, b\n q = sub a, b\n ret x\n}\n")
    facts = extract_module(m, "t.pir")
    assert sorted(r[1:] for r in facts["vf_expr"]) == [("add(a,b)", "add"),
                                                      ("load.4u(p)", "load.4u")]
    assert sorted(r[1:] for r in facts["vf_expr_operand"] if r[1] == "add(a,b)") == [
        ("add(a,b)", 0, "reg", "a"), ("add(a,b)", 1, "reg", "b")]
    # the guarded add is no occurrence; sub(a,b) occurs once outside a loop: no candidate
    assert sorted(r[1:] for r in facts["vf_occurs"]) == [
        ("e#0", "add(a,b)"), ("e#1", "add(a,b)"), ("e#3", "load.4u(p)"), ("e#5", "load.4u(p)")]
    # a = mov 1 and the guarded write of z? (z is no operand): only the mov kills add(a,b);
    # the store kills the load
    assert sorted(r[1:] for r in facts["vf_kill"]) == [("e#2", "add(a,b)")]
    assert [r[1:] for r in facts["vf_clobber"]] == [("e#4",)]
    assert [r[1:] for r in facts["vf_load"]] == [("load.4u(p)",)]
    # where pre.dl finds them: the instr rows of those instructions only (not the guarded add,
    # the sub nor the ret)
    assert [r[1] for r in facts["vf_instr"]] == [f"e#{k}" for k in range(6)]
    assert set(facts["vf_instr"]) <= set(facts["instr"])


def test_vf_instr_places_every_call_for_the_divisions_it_kills():
    m = parse_module("func g() {\ne:\n ret 0\n}\nfunc f(a, b) {\ne:\n x = div a, b\n"
                     " call g()\n y = div a, b\n k = add b, 1\n ret x\n}\n")
    facts = extract_module(m, "t.pir")
    assert [r[1:] for r in facts["vf_instr"] if r[0] == "t.pir::f"] == [
        ("e#0", "e", 0, "div"), ("e#1", "e", 1, "call"), ("e#2", "e", 2, "div")]
    rows = module_rows(m, "t.pir", relations=["pre_kills", "pre_comp"], engine="clingo")
    assert rows.function("f")["pre_kills"] == [("e", "div(a,b)")]


def test_a_single_computation_is_a_candidate_only_on_a_cycle():
    m = parse_module("func f(a, n) {\ne:\n br h\nh:\n x = mul a, 3\n n = sub n, 1\n"
                     " cbr n, h, d\nd:\n y = add a, 1\n ret x\n}\n")
    assert sorted(candidate_expressions(m.functions[0])) == ["mul(3,a)", "sub(n,1)"]


def oracle_rows(fn, readonly=frozenset(), contents=None, defined=frozenset(), sizes=None):
    """The relations of ``RELATIONS`` as the Python MFP computes them (reachable blocks;
    ``readonly``: the module's read-only globals, ``contents`` their bytes; ``defined``: its
    functions; ``sizes``: {global: size})."""
    exprs = candidate_expressions(fn, known=KnownBytes(fn, None, defined, contents))
    antloc, comp, kills = oracle.local_properties(fn, exprs, defined, readonly, contents, sizes)
    av_in, av_out = oracle.availability(fn, exprs, comp, kills - comp)
    an_in, an_out = oracle.anticipability(fn, exprs, antloc, kills - antloc)
    succ, _, _ = oracle.graph(fn)
    states = lambda table: {(b, e, v) for (b, e), v in table.items() if v in ("must", "may")}
    prevented = {(b, e) for (b, e), v in av_in.items() if v == "may" and an_in[(b, e)] == "may"}
    entries, exits = set(), set()
    for a, ss in succ.items():
        for b in ss:
            for e in exprs:
                if (b, e) in prevented and (a, e) not in prevented:
                    entries.add((a, b, e, av_out[(a, e)]))
                if (a, e) in prevented and (b, e) not in prevented:
                    exits.add((a, b, e, an_in[(b, e)]))
    return {"pre_avail_in": states(av_in), "pre_avail_out": states(av_out),
            "pre_antic_in": states(an_in), "pre_antic_out": states(an_out),
            "pre_prevented": prevented,
            "pre_partial_reuse": {(b, e) for (b, e), v in av_in.items()
                                  if v == "may" and an_in[(b, e)] in ("must", "may")},
            "pre_cmp_entry": entries, "pre_cmp_exit": exits,
            "pre_antloc": antloc, "pre_comp": comp, "pre_kills": kills}


@pytest.fixture(scope="module")
def generated():
    return random_module(SEEDS)


@pytest.fixture(scope="module")
def clingo_rows(generated):
    return module_rows(generated, "gen.pir", relations=RELATIONS, engine="clingo")


@pytest.mark.slow
def test_datalog_equals_the_fixed_point_of_the_equations_on_300_cfgs(generated, clingo_rows):
    interesting = 0
    for fn in generated.defined_functions():
        want = oracle_rows(fn)
        got = clingo_rows.function(fn.name)
        for rel in RELATIONS:
            assert set(got[rel]) == want[rel], (fn.name, rel)
        # no CMP entry is May (Def 6.4): every reuse thread enters through a Must entry
        assert all(kind in ("must", "no") for *_, kind in want["pre_cmp_entry"])
        interesting += bool(want["pre_prevented"])
    assert interesting >= 30        # the generator exercises the CMP region


def test_prevented_is_may_may_and_within_partial_reuse(generated, clingo_rows):
    """§12 item 18 (first identities): Prevented ⇔ AVAIL_in = May ∧ ANTIC_in = May, and
    PartialReuse ⊇ Prevented, on every node of the 300 generated CFGs."""
    for fn in generated.defined_functions():
        rows = clingo_rows.function(fn.name)
        av = {(b, e): s for b, e, s in rows["pre_avail_in"]}
        an = {(b, e): s for b, e, s in rows["pre_antic_in"]}
        may_may = {k for k, s in av.items() if s == "may" and an.get(k) == "may"}
        assert set(rows["pre_prevented"]) == may_may
        assert set(rows["pre_prevented"]) <= set(rows["pre_partial_reuse"])


def test_candidate_availability_is_availability_of_the_candidates(generated, clingo_rows):
    """Issue #28 item 1: the passes' AVAIL and ANTIC (pre_cand_*, computed alone, as a pass
    asks for them) equal pre_avail_*, pre_antic_in on the expressions some block computes and
    some block anticipates (ANTIC only where the expression is available along some path: AVAIL_in
    Must or May), and have no other rows; the CMP region read off them is the one of the full
    relations."""
    cand = ["pre_cand_avail_in", "pre_cand_avail_out", "pre_cand_antic_in", "pre_prevented",
            "pre_partial_reuse", "pre_cmp_entry", "pre_cmp_exit"]
    alone = module_rows(generated, "gen.pir", relations=cand, engine="clingo")
    dropped = {"avail": 0, "antic": 0}
    outside = 0                 # ANTIC rows of candidates where they are not available
    for fn in generated.defined_functions():
        full, mine = clingo_rows.function(fn.name), alone.function(fn.name)
        wanted = ({e for _, e in full["pre_antloc"]} & {e for _, e in full["pre_comp"]})
        available = {(b, e) for b, e, _ in full["pre_avail_in"]}
        for rel in ("avail_in", "avail_out", "antic_in"):
            want = {r for r in full[f"pre_{rel}"] if r[1] in wanted
                    and (rel != "antic_in" or r[:2] in available)}
            assert set(mine[f"pre_cand_{rel}"]) == want, (fn.name, rel)
        outside += sum(1 for r in full["pre_antic_in"] if r[1] in wanted
                       and r[:2] not in available)
        for rel in ("avail", "antic"):
            dropped[rel] += len(full[f"pre_{rel}_in"]) - len(mine[f"pre_cand_{rel}_in"])
        for rel in cand[3:]:
            assert set(mine[rel]) == set(full[rel]), (fn.name, rel)
    # some expression is available and never anticipated, another the other way round, and some
    # candidate is anticipated where it is not available
    assert dropped["avail"] > 0 and dropped["antic"] > 0 and outside > 0, (dropped, outside)


def _top_operands(name: str) -> list[str]:
    """The operand texts of value name ``op(a,b)`` (commas inside nested names skipped)."""
    body, depth, parts, start = name[name.index("(") + 1:-1], 0, [], 0
    for k, ch in enumerate(body):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(body[start:k])
            start = k + 1
    return parts + [body[start:]]


#: a division and a load computed after a call in two blocks: upward-exposed nowhere (a call
#: kills both in pre.dl), yet the rewrite reuses the division across the second call and a
#: compare built on the load (a candidate) reads the load's temporary
DIVISION = parse_module("func h() {\ne:\n ret 0\n}\n"
                        "func f(a, b, p) {\ne:\n c = call h()\n x = div a, b\n u = load.4u p\n"
                        " cbr a, l, n\nl:\n v = cmp.eq u, 1\n br n\nn:\n z = cmp.eq u, 1\n"
                        " d = call h()\n y = div a, b\n w = load.4u p\n r = add x, y\n"
                        " ret r\n}\n")


@pytest.mark.slow
def test_m_availability_of_what_pre_m_reads(generated):
    """Issue #28 item 1: pre_cand_m_avail_in (computed alone, as pre-m asks for it) equals
    pre_m_avail_in on the candidates, the expressions a candidate's occurrence reads through a
    named register (the top-level operands of its name) and the divisions computed somewhere,
    and has no other rows."""
    mine_rels = ["pre_cand_m_avail_in"]
    full_rels = ["pre_m_avail_in", "pre_antloc", "pre_comp"]
    dropped = operands = divisions = 0
    for module in (generated, DIVISION):
        alone = module_rows(module, "gen.pir", relations=mine_rels, engine="clingo")
        full = module_rows(module, "gen.pir", relations=full_rels, engine="clingo")
        for fn in module.defined_functions():
            f, m = full.function(fn.name), alone.function(fn.name)
            computed = {e for _, e in f["pre_comp"]}
            cand = {e for _, e in f["pre_antloc"]} & computed
            built_on = {n for e in cand for n in _top_operands(e)} & computed
            div = {e for e in computed if e.startswith(("div(", "rem("))}
            read = cand | built_on | div
            want = {r for r in f["pre_m_avail_in"] if r[1] in read}
            assert set(m["pre_cand_m_avail_in"]) == want, fn.name
            dropped += len(f["pre_m_avail_in"]) - len(want)
            operands += len({r[1] for r in want} & (built_on - cand))
            divisions += len({r[1] for r in want} & (div - cand))
    # rows are dropped, and an operand and a division that are no candidates keep theirs
    assert dropped > 0 and operands > 0 and divisions > 0, (dropped, operands, divisions)
    # what the rewrite does with them: one division, and the compare inserted on the edge
    # e -> n reads the load's temporary
    text = print_module(optimize(DIVISION, ["pre-m"], "d.pir", engine="clingo").module)
    assert text.count("= div ") == 1 and text.count("= cmp.eq pre.t") == 2, text


def test_what_the_pre_steps_read_is_their_relations_where_they_read_them(generated):
    """Issue #28 item 1: pre_m_avail_at is pre_cand_m_avail_in at the blocks computing the
    expression and at the targets of an insertion of an expression built on it (what pre-m's
    rewrite reads); pre_cmp_avail_out is pre_cand_avail_out at the predecessors of the blocks
    of the expression's CMP region (what pre-mr-split reads); both computed alone, as the
    passes ask for them."""
    from pylogic.transforms.pre import pre_m, pre_mr
    alone_m = module_rows(generated, "gen.pir", relations=list(pre_m.NEEDS), engine="clingo")
    alone_mr = module_rows(generated, "gen.pir", relations=list(pre_mr.NEEDS), engine="clingo")
    full = module_rows(generated, "gen.pir", relations=[
        "pre_cand_m_avail_in", "pre_cand_avail_out", "pre_m_insert", "pre_prevented", "edge",
        "vf_occurs", "vf_instr", "vf_operand_expr"], engine="clingo")
    kept = {"m": 0, "mr": 0}
    dropped = {"m": 0, "mr": 0}
    for fn in generated.defined_functions():
        f = full.function(fn.name)
        block = {i: b for i, b, _, _ in f["vf_instr"]}
        built_on = {}
        for e, n in f["vf_operand_expr"]:
            built_on.setdefault(e, set()).add(n)
        at = {(block[i], e) for i, e in f["vf_occurs"]}
        at |= {(b, n) for _, b, e in f["pre_m_insert"] for n in built_on.get(e, ())}
        want = {r for r in f["pre_cand_m_avail_in"] if r[:2] in at}
        assert set(alone_m.function(fn.name)["pre_m_avail_at"]) == want, fn.name
        kept["m"] += len(want)
        dropped["m"] += len(f["pre_cand_m_avail_in"]) - len(want)
        into = {(a, e) for b, e in f["pre_prevented"] for a, c in f["edge"] if c == b}
        want = {r for r in f["pre_cand_avail_out"] if r[:2] in into}
        assert set(alone_mr.function(fn.name)["pre_cmp_avail_out"]) == want, fn.name
        kept["mr"] += len(want)
        dropped["mr"] += len(f["pre_cand_avail_out"]) - len(want)
    assert min(kept.values()) > 0 and min(dropped.values()) > 0, (kept, dropped)


#: add(a,b) computed in blocks 1 and 4, mul(a,b) in 2 and 3 (reverse postorder numbers): the
#: same sums, so pre.dl gives them one class key; sub(a,b) is computed where add(a,b) is
ONE_KEY = ("func f(a, b) {\nb0:\n br b1\nb1:\n x = add a, b\n s = sub a, b\n br b2\n"
           "b2:\n y = mul a, b\n br b3\nb3:\n z = mul a, b\n br b4\nb4:\n"
           " w = add a, b\n t = sub a, b\n br b5\nb5:\n ret w\n}\n")


@pytest.mark.parametrize("least, classed", [(3, True), (4, False)])
def test_a_function_is_classed_from_classed_expressions_candidates(monkeypatch, least, classed):
    """vf_classed names a function of at least CLASSED_EXPRESSIONS candidate expressions
    (ONE_KEY has three): the one fact from which pre.dl computes per class."""
    monkeypatch.setattr(value_flow, "CLASSED_EXPRESSIONS", least)
    facts = extract_module(parse_module(ONE_KEY), "k.pir")    # a new function: no kept facts
    assert len(facts["vf_expr"]) == 3
    assert facts["vf_classed"] == ([("k.pir::f",)] if classed else [])


def test_expressions_with_one_class_key_but_other_blocks_keep_their_own_rows(monkeypatch):
    """Issue #28 item 1: pre.dl computes the candidates' relations once per class of expressions
    computed, used and killed in the same blocks, named by a key (a sum of block numbers);
    two expressions with one key and different blocks (ONE_KEY, classed here from one
    candidate) are told apart, and each candidate's rows equal the unrestricted relations' (a
    merged class would make mul(a,b) available at b2 from add's computation in b1)."""
    monkeypatch.setattr(value_flow, "CLASSED_EXPRESSIONS", 1)
    one_key = parse_module(ONE_KEY)
    facts = extract_module(one_key, "k.pir")
    assert facts["vf_classed"] == [("k.pir::f",)]
    rpo = {b: n for _, b, n in facts["rpo"]}
    full = module_rows(one_key, "k.pir", relations=["pre_comp", "pre_antloc", "pre_kills",
                                                    "pre_avail_in", "pre_antic_in",
                                                    "pre_m_avail_in"], engine="clingo")
    mine = module_rows(one_key, "k.pir", relations=["pre_cand_avail_in", "pre_cand_antic_in",
                                                    "pre_cand_m_avail_in", "pre_m_insert"],
                       engine="clingo").function("f")
    f = full.function("f")

    def key(e):             # pre.dl's _pre_key: block numbers weighted 1, 3, 7 and summed
        return sum(w * rpo[b] for rel, w in (("pre_comp", 1), ("pre_antloc", 3), ("pre_kills", 7))
                   for b, x in f[rel] if x == e)
    assert key("add(a,b)") == key("mul(a,b)") == key("sub(a,b)")
    blocks = lambda e: {b for b, x in f["pre_comp"] if x == e}              # noqa: E731
    assert blocks("add(a,b)") == blocks("sub(a,b)") != blocks("mul(a,b)")
    cands = {"add(a,b)", "mul(a,b)", "sub(a,b)"}
    assert set(mine["pre_cand_avail_in"]) == {r for r in f["pre_avail_in"] if r[1] in cands}
    assert ("b2", "mul(a,b)", "must") not in set(mine["pre_cand_avail_in"])
    assert ("b4", "mul(a,b)", "must") in set(mine["pre_cand_avail_in"])
    assert set(mine["pre_cand_m_avail_in"]) == {r for r in f["pre_m_avail_in"] if r[1] in cands}
    avail_some = {(b, e) for b, e, _ in f["pre_avail_in"]}
    assert set(mine["pre_cand_antic_in"]) == {r for r in f["pre_antic_in"]
                                              if r[1] in cands and r[:2] in avail_some}
    assert set(mine["pre_m_insert"]) == set()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_rows_equal_on_every_engine(engine, generated, clingo_rows):
    """The same rows on clingo and Soufflé (skipped, saying so, without the souffle binary)."""
    every = RELATIONS + ["pre_m_avail_in", "pre_m_insert", "pre_m_compute",
                         "pre_cand_avail_in", "pre_cand_avail_out", "pre_cand_antic_in",
                         "pre_cand_m_avail_in", "pre_m_avail_at", "pre_cmp_avail_out"]
    ours = module_rows(generated, "gen.pir", relations=every, engine="clingo")
    other = module_rows(generated, "gen.pir", relations=every, engine=engine)
    for rel in every:
        assert sorted(set(other[rel])) == sorted(set(ours[rel])), rel
        assert rel in ("pre_cmp_entry", "pre_cmp_exit") or ours[rel], rel


@pytest.mark.slow
def test_pre_m_inserts_exactly_where_lazy_code_motion_does(generated):
    """§12 item 18 (PRE(M) = LCM, Theorem 6.2 / §6.3.1.2): on the 300 generated CFGs the edge
    insertions and the computations left in place equal those of lazy code motion."""
    rows = module_rows(generated, "gen.pir", relations=["pre_m_insert", "pre_m_compute"],
                       engine="clingo")
    inserted = 0
    for fn in generated.defined_functions():
        exprs = candidate_expressions(fn)
        antloc, comp, kills = oracle.local_properties(fn, exprs)
        want_insert, want_compute = oracle.lazy_code_motion(fn, exprs, antloc, comp, kills)
        got = rows.function(fn.name)
        assert set(got["pre_m_insert"]) == want_insert, fn.name
        assert set(got["pre_m_compute"]) == want_compute, fn.name
        inserted += len(want_insert)
    assert inserted >= 50


def test_lattice_and_its_two_bit_encoding():
    """§12 item 8: Must ⊓ No = May, ⊤ ⊓ x = x, May ⊓ x = May; the 2-bit encoding (all, some)
    ⊤=(1,0), Must=(1,1), No=(0,0), May=(0,1) with ⊓ = (AND, OR) gives the same table; the thread
    merge ⊔ = (OR, OR) gives Must ⊔ No = Must, May ⊔ No = May."""
    code = {"top": (1, 0), "must": (1, 1), "no": (0, 0), "may": (0, 1)}
    decode = {v: k for k, v in code.items()}
    for x in code:
        for y in code:
            bits = (code[x][0] & code[y][0], code[x][1] | code[y][1])
            assert oracle.meet(x, y) == decode[bits], (x, y)
    assert oracle.meet("must", "no") == "may" and oracle.meet("top", "no") == "no"
    join = lambda x, y: decode[(code[x][0] | code[y][0], code[x][1] | code[y][1])]  # noqa: E731
    assert join("must", "no") == "must" and join("may", "no") == "may"


def test_reuse_needs_a_generator_before_and_a_loop_invariant_reuses_itself():
    """§12 item 10 (Def 4.1): the first computation on a path is not redundant; a single
    loop-invariant computation reuses its own value only around the loop (May at its block)."""
    m = parse_module("func f(a, b, n) {\ne:\n x = add a, b\n br l\nl:\n y = mul a, b\n"
                     " n = sub n, 1\n cbr n, l, d\nd:\n z = add a, b\n ret z\n}\n")
    rows = module_rows(m, "t.pir", relations=["pre_avail_in", "pre_antloc"], engine="clingo")
    view = rows.function("f")
    avail = {(b, e): s for b, e, s in view["pre_avail_in"]}
    assert ("e", "add(a,b)") not in avail                      # first computation: No
    assert avail[("d", "add(a,b)")] == "must"                  # fully redundant
    assert avail[("l", "mul(a,b)")] == "may"                   # its own value, via the back edge


def test_pre_m_grounds_no_exit_copies_nor_the_cmp_region():
    """Issue #28 item 1 (pre39): what pre-m asks of pre.dl needs neither the candidates' AVAIL at
    block exits nor pre_prevented (read as its two conjuncts) -- csmith-2's first pre-m step,
    clingo atoms 697,713 -> 489,802 -- while pre-mr-split, which asks for pre_prevented, still
    gets it, and pre-r, which asks for pre_cand_avail_out, the exits (the rows: the tests above).
    pre-mr-split reads pre_cmp_avail_out off the entry relations (pre47b): no exit copies."""
    from pylogic.analysis.catalog import get
    from pylogic.engines.relevance import needed_relations
    from pylogic.transforms.pre import pre_m, pre_mr, pre_r
    program = get("pre").program()
    exits = {"_pre_cav_some_out", "_pre_cav_notall_out"}
    assert not (exits | {"pre_prevented"}) & needed_relations(program, list(pre_m.NEEDS))
    split = needed_relations(program, list(pre_mr.NEEDS))
    assert "pre_prevented" in split and not exits & split
    assert exits <= needed_relations(program, list(pre_r.NEEDS))
