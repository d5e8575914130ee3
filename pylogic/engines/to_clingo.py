"""Translation of a CheckedProgram to clingo's language (DESIGN.md, measured pitfalls):
relations become ``r_<name>``, variables ``V<name>``, ``!`` becomes ``not``, ``%`` becomes ``\\``,
aggregates range over the tuple of their local variables (so duplicates do not collapse), and
``#min``/``#max`` results are guarded against ``#sup``/``#inf`` (an empty group derives nothing,
as in Soufflé).

Arithmetic must wrap as Soufflé's 32-bit ``number`` after every operation (``numbers.py``).
clingo wraps when it evaluates a ground term, but it first simplifies a term that is linear in
its variables, and that differs (measured, clingo 5.8.3): an overflow in the constant part it
folds makes the term undefined (``V = -(Y + ((-2147483648) - Y))`` derived nothing), a
coefficient that wraps to 0 killed the process with SIGFPE (``V = Y * 65536 * 65536``),
``V = 2147483647 + (Y - Y)`` never finished grounding, and ``X + X = 0`` was solved in exact
integers (false for X = -2147483648). So a variable under an arithmetic operator is written
``(V&(-1))``, which clingo cannot treat as linear and evaluates as the ground value (but for
``x = y + c``, ``_step``: clingo binds nothing from a masked term); constant
subterms are folded here with Soufflé's wrap; ``/`` and ``%`` are clingo's only where the
divisor is a constant other than 0 and -1 (``-2147483648 / -1`` is SIGFPE in clingo), else
the functors ``sf_div``/``sf_mod`` (undefined on 0: the binding derives nothing)."""
from __future__ import annotations

import dataclasses
from collections import Counter

from pylogic.engines import numbers
from pylogic.engines.dialect import (AdtTerm, AggLit, Atom, BinOp, Call, Constraint, Neg, NegAtom, Nil, Num,
                                     Record, Str, Test, Var, Wildcard)
from pylogic.engines.program import CheckedProgram, Rule
from pylogic.engines.relevance import can_fire
from pylogic.engines.semantics import derived, grounded_vars, lit_vars, rules_by_head, term_vars

_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "\\", "band": "&", "bor": "?", "bxor": "^"}
_DIVISION = {"/": "div", "%": "mod"}
# the rest are Python functions called while grounding (``functors.py``, prefix FUNCTOR_PREFIX)
_GUARD = {"min": " < #sup", "max": " > #inf"}


def pred_name(rel: str) -> str:
    """The clingo predicate of a Soufflé relation (injective, always a valid lowercase name)."""
    # a.b (components): r_a'b; p#bf and magic#p#bf (magic sets, magic.py): r_p'_bf, ...
    return "r_" + rel.replace("?", "_Q").replace(".", "'").replace("#", "'_")


def functor_name(name: str) -> str:
    """The Python function (``functors.Functors``) computing a Soufflé functor or operator."""
    return FUNCTOR_PREFIX + {"^": "power"}.get(name, name)


FUNCTOR_PREFIX = "sf_"


def var_name(name: str) -> str:
    """The clingo variable of a Soufflé variable (``x`` -> ``Vx``; injective)."""
    return "V" + name.replace("_", "__").replace("?", "_Q").replace("#", "_H")


def quote(s: str) -> str:
    """A clingo string literal."""
    if "\\" in s or '"' in s or "\n" in s:
        s = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + s + '"'


def constant(t) -> int | None:
    """The value of a number term without variables (Soufflé's wrap after each operation);
    None if it has variables, is not a signed number term, or is undefined (a division by 0)."""
    if isinstance(t, Num):
        return numbers.wrap(t.value)
    if isinstance(t, Neg):
        v = constant(t.operand)
        return None if v is None else numbers.UNARY["-"](v)
    if isinstance(t, BinOp) and t.op in numbers.BINARY:
        a, b = constant(t.left), constant(t.right)
        return None if a is None or b is None else numbers.BINARY[t.op](a, b)
    if isinstance(t, Call) and t.name in ("bnot", "lnot"):
        v = constant(t.args[0])
        return None if v is None else numbers.UNARY[t.name](v)
    return None


def _number(v: int) -> str:
    return str(v) if v >= 0 else f"({v})"


def _operand(t) -> str:
    """An operand of a clingo arithmetic operator: a variable, and any term that is not a
    constant (a functor's value, an inner operation), hidden from clingo's linear simplification
    (module docstring): ``(@sf_div(-2147483648, Y) * -65536) * -2147483648`` killed the process
    with SIGFPE when clingo folded the two constants (found by tests/engines/test_duckdb.py)."""
    if isinstance(t, Var):
        return f"({var_name(t.name)}&(-1))"
    if isinstance(t, (BinOp, Neg, Call)) and constant(t) is None:
        return f"({term(t)}&(-1))"
    return term(t)


def term(t) -> str:
    if isinstance(t, Var):
        return var_name(t.name)
    if isinstance(t, Num):
        return _number(numbers.wrap(t.value))
    if isinstance(t, Str):
        return quote(t.value)
    if isinstance(t, Wildcard):
        return "_"
    if isinstance(t, (BinOp, Neg)) or (isinstance(t, Call) and t.name in ("bnot", "lnot")):
        v = constant(t)
        if v is not None:
            return _number(v)
    if isinstance(t, BinOp):
        if t.op in _DIVISION and constant(t.right) in (None, 0, -1):
            return f"@{functor_name(_DIVISION[t.op])}({term(t.left)},{term(t.right)})"
        if t.op in _OPS:
            return f"({_operand(t.left)}{_OPS[t.op]}{_operand(t.right)})"
        return f"@{functor_name(t.op)}({term(t.left)},{term(t.right)})"
    if isinstance(t, Record):     # a clingo tuple: (a,b), (a,), ()
        inner = ",".join(term(a) for a in t.args)
        return f"({inner},)" if len(t.args) == 1 else f"({inner})"
    if isinstance(t, Nil):
        return "nil"
    if isinstance(t, AdtTerm):   # $Branch(a, b) -> adt_Branch(a,b)
        args = f"({','.join(term(a) for a in t.args)})" if t.args else ""
        return f"adt_{t.branch}{args}"
    if isinstance(t, Call):
        if t.name == "bnot":
            return f"(~{_operand(t.args[0])})"
        return f"@{functor_name(t.name)}({','.join(term(a) for a in t.args)})"
    if isinstance(t, Neg):
        return f"(-{_operand(t.operand)})"
    raise TypeError(f"cannot translate term {t!r}")


def atom(a: Atom) -> str:
    if not a.args:
        return pred_name(a.rel)
    return f"{pred_name(a.rel)}({','.join(term(x) for x in a.args)})"


def literal(lit) -> str:
    if isinstance(lit, Atom):
        return atom(lit)
    if isinstance(lit, NegAtom):
        return "not " + atom(lit.atom)
    if isinstance(lit, Constraint):
        left, right = lit.left, lit.right
        if lit.op == "=" and isinstance(right, Var) and not isinstance(left, Var):
            left, right = right, left  # clingo binds the variable on the left of '='
        step = _step(left, right) if lit.op == "=" else None
        if step is not None:
            return step
        return f"{term(left)}{lit.op}{term(right)}"
    if isinstance(lit, Test):   # 1 holds, 0 does not, -1 neither (a bad regular expression)
        return f"@{functor_name(lit.name)}({','.join(term(a) for a in lit.args)})=" + \
            ("0" if lit.negated else "1")
    if isinstance(lit, AggLit) and lit.op in ("fsum", "fmean"):
        return _float_sum(lit)
    if isinstance(lit, AggLit):
        elems = [term(v) for v in lit.tuple_vars]
        if lit.target is not None:
            elems.insert(0, term(lit.target))
        cond = ",".join(literal(b) for b in lit.body)
        res = var_name(lit.result.name)
        text = f"{res} = #{lit.op}{{{','.join(elems)}{' : ' + cond if cond else ''}}}"
        if lit.op in _GUARD:
            text += f", {res}{_GUARD[lit.op]}"
        return text
    raise TypeError(f"cannot translate literal {lit!r}")


def _step(left, right) -> str | None:
    """``V=W+c`` or ``V=W-c`` for ``left = right`` when it is a variable equal to another
    variable plus or minus a constant c in 0 .. 2^31-1, else None (``term``'s masked form).
    clingo binds V from such a term, and so looks up an atom's row by it: masked as
    ``V=((W&(-1))+c)``, it read every row of ``instr(g, _, m, V, _)`` with g and m bound and
    tested V after (``_has_next`` of correlation.dl, quadratic in a block's instructions:
    csmith-38's block of 573 made that rule 16 of icbe's first round's 37 ms). Its value is
    the masked one's, wrap included, whichever of V and W clingo binds first (a term linear
    in one variable, with no constant part for clingo to fold: the cases of the module
    docstring need a constant folded or a variable twice; ``test_clingo_steps.py``)."""
    if not isinstance(left, Var) or not isinstance(right, BinOp) or right.op not in ("+", "-"):
        return None
    w, c = right.left, constant(right.right)
    if right.op == "+" and not isinstance(w, Var):
        w, c = right.right, constant(right.left)
    if not isinstance(w, Var) or w.name == left.name or c is None or not 0 <= c < 1 << 31:
        return None
    return f"{var_name(left.name)}={var_name(w.name)}{right.op}{c}"


def _float_sum(lit: AggLit) -> str:
    """``sum``/``mean`` of floats (``float_rules.py``): per group the least scale exponent, the
    sum and the largest magnitude of the targets scaled by it (integers) and their number; the
    functor gives the exact value or refuses an order-dependent one (``floats.sum_total``)."""
    tup = ",".join(term(v) for v in lit.tuple_vars)
    cond = ",".join(literal(b) for b in lit.body)
    cond = " : " + cond if cond else ""
    t = term(lit.target)
    res = var_name(lit.result.name)
    e, total, largest, n = (res + x for x in ("e", "s", "m", "n"))
    where = quote(str(lit.loc))
    return (f"{e} = #min{{@{functor_name('fscale')}({t}),{tup}{cond}}}, "
            f"{total} = #sum{{@{functor_name('fscaled')}({t},{e}),{tup}{cond}}}, "
            f"{largest} = #max{{@{functor_name('fscaledabs')}({t},{e}),{tup}{cond}}}, "
            f"{n} = #count{{{tup}{cond}}}, "
            f"{res} = @{functor_name(lit.op + '_total')}"
            f"({total},{largest},{n},{e},{where})")


def rule(r: Rule) -> str:
    if not r.body:
        return atom(r.head) + "."
    return f"{atom(r.head)} :- {', '.join(literal(b) for b in _named_wildcards(r.body))}."


def _named_wildcards(body: tuple) -> tuple:
    """``body`` with each wildcard argument of a positive atom as a variable of its own, when
    the body has no aggregate (whose instances would multiply by the named columns' values).
    clingo projects an atom with ``_`` into a relation of its own and may join two such
    projections first, a cross product per function: ``forward_edge(f, a, b) :- edge(f, a, b),
    rpo(f, a, _), rpo(f, b, _), ...`` took 3.3 s of grounding at 2,000 blocks, named 0.01 s
    (issue #28; the rows are the same)."""
    if any(isinstance(b, AggLit) for b in body):
        return body
    fresh = iter(range(1 << 30))
    return tuple(dataclasses.replace(b, args=tuple(
        Var(f"#p{next(fresh)}", x.loc) if isinstance(x, Wildcard) else x for x in b.args))
        if isinstance(b, Atom) and any(isinstance(x, Wildcard) for x in b.args) else b
        for b in body)


def _plain(a: Atom) -> bool:
    """Every argument a variable, a wildcard or a constant (an atom that binds, never computes)."""
    return all(isinstance(x, (Var, Wildcard, Num, Str)) for x in a.args)


def _linked(atoms: list) -> bool:
    """Whether ``atoms`` join as a chain of distinct relations, each sharing two or more
    variables with those before it: one shared column (the function) or a relation joined with
    itself on its leading columns (``rpo(f, g, a, _), rpo(f, g, b, _)``) is a cross product per
    function, larger than what the recursion would visit."""
    if len({a.rel for a in atoms}) < len(atoms):
        return False
    seen = {x.name for x in atoms[0].args if isinstance(x, Var)}
    todo = list(atoms[1:])
    while todo:
        nxt = next((a for a in todo
                    if len(seen & {x.name for x in a.args if isinstance(x, Var)}) >= 2), None)
        if nxt is None:
            return False
        todo.remove(nxt)
        seen |= {x.name for x in nxt.args if isinstance(x, Var)}
    return True


def _with_joins(r: Rule, component: dict, joins: dict) -> Rule:
    """``r`` with the join of its non-recursive body atoms as one atom when it is recursive and
    has two or more of them, linked (``_linked``): ``live_in(b) :- branch(i, t), instr(i, b),
    live_in(t)`` becomes ``live_in(b) :- join(b, t), live_in(t)`` with ``join(b, t) :-
    branch(i, t), instr(i, b)``.
    clingo's grounder re-joins a recursive rule's other atoms in every round of its semi-naive
    loop (measured: liveness.dl on a 4,000-instruction function, about one round per block,
    23 s; with the join precomputed 0.9 s); the rows are the same. ``joins``: join text -> its
    (head atom, rule), shared by joins equal up to the names of their variables.
    The rule's comparisons over the joined atoms' variables alone filter the join itself: in
    ``_cans(.., k, ..) :- _cans(.., k2, ..), k = k2 + 1, _cq(.., k, ..), instr(g, j, n, k2, _)``
    (correlation.dl) ``_cq`` and ``instr`` share only the block, so without ``k = k2 + 1`` the
    join paired every pending query with every instruction of its block (csmith-42: 11.2 M
    rows, 3.3 GB, 19 s of 20 s grounding; with it 1.3 s, 0.1 GB)."""
    own = component.get(r.head.rel)
    if own is None or any(isinstance(b, AggLit) for b in r.body):
        return r
    recursive = [b for b in r.body if isinstance(b, Atom) and component.get(b.rel) == own]
    fixed = [b for b in r.body if isinstance(b, Atom) and component.get(b.rel) != own
             and _plain(b)]
    if not recursive or len(fixed) < 2:
        return r
    fixed = _without_lookups(r, fixed, recursive)
    if len(fixed) < 2 or not _linked(fixed):
        return r
    bound = {x.name for f in fixed for x in f.args if isinstance(x, Var)}
    fixed += [b for b in r.body if isinstance(b, Constraint)
              and {v.name for v in lit_vars(b)} <= bound]
    rest = [b for b in r.body if not any(b is f for f in fixed)]
    outside = {v.name for lit in rest for v in lit_vars(lit)} | \
        {v.name for x in r.head.args for v in term_vars(x)}
    names = list(dict.fromkeys(x.name for f in fixed if isinstance(f, Atom) for x in f.args
                               if isinstance(x, Var) and x.name in outside))
    # keyed with the variables renamed in order of first use: joins equal up to their names
    # (the instructions with their definitions, in two rules of correlation.dl) are one
    # relation, its columns in that order (``names`` follows it)
    canon = {}
    for f in fixed:
        for v in lit_vars(f):
            canon.setdefault(v.name, Var(f"#j{len(canon)}", v.loc))
    key = ",".join(literal(_substitute(f, canon)) for f in fixed) + "|" + \
        ",".join(canon[n].name for n in names)
    if key not in joins:
        head = Atom(f"join.{len(joins)}", tuple(Var(n, r.loc) for n in names), r.loc)
        joins[key] = (head, Rule(head, tuple(fixed), r.loc))
    use = dataclasses.replace(joins[key][0], args=tuple(Var(n, r.loc) for n in names))
    return dataclasses.replace(r, body=(use, *rest))


def _without_lookups(r: Rule, fixed: list, recursive: list) -> list:
    """``fixed`` without its existence tests, one at a time: an atom with a variable nowhere else
    in ``r`` whose other variables are in another of them and in a recursive atom
    (``_dt_rpo(f, g, p, _)`` after ``_dt_edge(f, g, p, x)`` and ``_dt_loc(f, g, p, ..)``: p has a
    row). Joined, it only filters the other's rows, a row of each (``_dt_loc`` of
    lib/dominator_tree.dl with ``_dt_single`` unfolded: 60,000 clingo atoms on a chain of
    30,000 blocks, issue #32 item 4, stop 49); left in the rule, it is looked up by what the
    recursion bound."""
    names_of = [{x.name for x in a.args if isinstance(x, Var)} for a in fixed]     # plain atoms
    left = list(range(len(fixed)))
    bound = uses = None
    for k, names in enumerate(names_of):
        others = set().union(*(names_of[j] for j in left if j != k))
        if names <= others:
            continue
        if bound is None:
            bound = {v.name for b in recursive for v in lit_vars(b)}
        alone = names - others - bound                  # a variable used once is among these
        if not alone or not names - alone <= others & bound:
            continue
        if uses is None:                                # counted for a candidate only (stop 49)
            uses = Counter(v.name for lit in (r.head, *r.body) for v in lit_vars(lit))
        if any(uses[n] == 1 for n in names) and \
                all(uses[n] == 1 or (n in others and n in bound) for n in names):
            left.remove(k)
    return [fixed[j] for j in left]


def _with_groups(r: Rule, component: dict, groups: list) -> list:
    """``r``, or three rules for it when it has one aggregate (count, sum, min, max) and the
    rest of its body binds more variables than the aggregate's group: the groups (the
    aggregate's variables the rest binds) as a relation, the aggregate once per group, and
    the rule reading it. clingo grounds an aggregate's elements once per binding of the
    rest of the body, not per group (gringo's accumulation rules): ``_pg_tnext(f, t, yn, yp,
    yq) :- _pg_tpred(f, t, yn, yp), _pg_tpred(f, t, yn, yq), yq > yp, yq = min y :
    {_pg_tpred(f, t, yn, y), y > yp}`` (ppg/cfg.dl) would fold each predecessor's set once per
    later predecessor yq; per group (f, t, yn, yp) once (the same rewrite of the former
    ``_dt_next_pred`` of lib/dominator_tree.dl: clingo's grounding of ``cfg_analyses.dl`` on a
    3,000-block structured CFG 1,267 M -> 1,190 M instructions, callgrind; that library now
    names the groups itself, ``_dt_has_next``). A group with no element is one in
    Soufflé too (count and sum 0, min and max nothing). ``groups``: (rules) per rewritten
    rule, numbering the new relations."""
    aggs = [b for b in r.body if isinstance(b, AggLit)]
    if len(aggs) != 1 or aggs[0].op not in ("count", "sum", "min", "max"):
        return [r]
    agg = aggs[0]
    own = component.get(r.head.rel)
    outer = [b for b in r.body if b is not agg]
    if any(isinstance(b, Atom) and component.get(b.rel) == own for b in outer):
        return [r]          # a recursive rule: its bindings change while it grounds
    free = agg.result.name
    dom_lits = [b for b in outer if free not in {v.name for v in lit_vars(b)}]
    dom_vars = list(dict.fromkeys(v.name for b in dom_lits for v in lit_vars(b)))
    inside = {v.name for v in lit_vars(agg)} - {free}
    group = [n for n in dom_vars if n in inside]
    if not set(dom_vars) <= grounded_vars(dom_lits, set()):
        return [r]          # the rest alone would not be safe
    if len(group) == len(dom_vars):
        return _with_empty_groups(r, agg, group, groups)
    k = len(groups)
    dom = _groups_atom(dom_lits, group)
    made = dom is None
    if made:
        dom = Atom(f"agg.{k}d", tuple(Var(n, r.loc) for n in group), r.loc)
    val = Atom(f"agg.{k}", dom.args + (agg.result,), r.loc)
    rules = [Rule(dom, tuple(dom_lits), r.loc)] if made else []
    rules += [Rule(val, (dom, agg), r.loc),
              dataclasses.replace(r, body=tuple(val if b is agg else b for b in r.body))]
    groups.append(rules)
    return rules


def _groups_atom(lits: list, group: list) -> Atom | None:
    """The atom of ``lits`` whose rows are the groups, when the others are comparisons: its
    arguments distinct variables, the group's (``_cseg(g, n, v, t, hi) :- _cevent(g, n, e, v),
    t = e + 1, hi = min ...`` in correlation.dl: every ``_cevent`` row is a group). Its rows
    where a comparison fails only fold the aggregate of a group the rule then never reads (its
    body keeps them): one relation less, a copy of that atom (4,893 atoms of csmith-12's
    correlation rounds). None otherwise."""
    atoms = [b for b in lits if not isinstance(b, Constraint)]
    if len(atoms) != 1 or not isinstance(atoms[0], Atom):
        return None
    names = [x.name if isinstance(x, Var) else None for x in atoms[0].args]
    if None in names or len(set(names)) != len(names) or set(names) != set(group):
        return None
    return atoms[0]


def _with_empty_groups(r: Rule, agg: AggLit, group: list, groups: list) -> list:
    """``r`` (whose other literals bind only the group of its count or sum ``agg``) as a rule
    for the groups with elements, which the aggregate's body projects, and one giving 0 to
    the others by negation: each clingo aggregate costs about 7 us a group even when empty
    (``loop_depth(f, b, k) :- rpo(f, b, _), k = count : {loop_block(f, _, b)}``, loops.dl's
    rule before mem40, every block of a chain). The aggregate stays in ``r``, after the group's
    atom: the rest binds only the group, so it is folded once per group there too, without a
    relation of the values (one atom per group less: 30,758 on a 33,251-block structured CFG).
    ``r`` itself when the body does not bind the group alone."""
    inner = agg.body
    names = {v.name for b in inner for v in lit_vars(b)}
    if agg.op not in ("count", "sum") or any(isinstance(b, AggLit) for b in inner) or \
            not names <= grounded_vars(inner, set()):
        return [r]
    k = len(groups)
    some = Atom(f"agg.{k}n", tuple(Var(n, r.loc) for n in group), r.loc)
    empty = (NegAtom(some, r.loc), Constraint("=", agg.result, Num(0, r.loc), r.loc))
    rules = [Rule(some, inner, r.loc),
             dataclasses.replace(r, body=tuple(x for b in r.body
                                               for x in ((some, agg) if b is agg else (b,)))),
             dataclasses.replace(r, body=tuple(x for b in r.body
                                               for x in (empty if b is agg else (b,))))]
    groups.append(rules)
    return rules


def _unfolded_relations(rules: list, component: dict, keep: set) -> dict:
    """Relation -> its rules, for each relation that is not recursive, not in ``keep`` (inputs,
    outputs, shown), read only by positive atoms outside aggregates, and defined either by
    rules every one of which copies one positive atom of another relation (``_dt_rpo(f, "cfg",
    b, n) :- rpo(f, b, n)``: ``_is_copy``) or by one rule filtering one atom (``_is_filter``)
    whose readers have no aggregate (their groups are the rest of their body)."""
    rules_of = rules_by_head(rules)
    read_otherwise = {b.atom.rel for r in rules for b in r.body if isinstance(b, NegAtom)}
    read_otherwise |= {x.rel for r in rules for b in r.body if isinstance(b, AggLit)
                       for x in _agg_atoms(b)}
    read_with_aggregates = {b.rel for r in rules if any(isinstance(x, AggLit) for x in r.body)
                            for b in r.body if isinstance(b, Atom)}
    members = Counter(component.values())              # relations per stratum
    candidates = {rel: own for rel, own in rules_of.items()
                  if rel not in keep and rel not in read_otherwise and
                  members[component.get(rel)] == 1}
    unfolded = {rel: own for rel, own in candidates.items()
                if all(_is_copy(r) and r.body[0].rel != rel for r in own)}
    copies = frozenset(unfolded)
    for rel, own in candidates.items():
        if rel not in unfolded and len(own) == 1 and rel not in read_with_aggregates and \
                _is_filter(own[0], copies):
            unfolded[rel] = own
    return unfolded


def _agg_atoms(agg: AggLit):
    for b in agg.body:
        if isinstance(b, Atom):
            yield b
        elif isinstance(b, NegAtom):
            yield b.atom
        elif isinstance(b, AggLit):
            yield from _agg_atoms(b)


def _is_copy(r: Rule) -> bool:
    """``r`` renames the rows of one atom, without a projection: a wildcard or a variable only
    the body has would make each use of the head a join with that many more instances."""
    if len(r.body) != 1 or not isinstance(r.body[0], Atom) or \
            not all(isinstance(x, (Var, Num, Str)) for x in r.body[0].args):
        return False
    head = [x.name for x in r.head.args if isinstance(x, Var)]
    if len(head) != len(set(head)) or \
            not all(isinstance(x, (Var, Num, Str)) for x in r.head.args):
        return False
    return {x.name for x in r.body[0].args if isinstance(x, Var)} <= set(head)


def _is_filter(r: Rule, copies: frozenset = frozenset()) -> bool:
    """``r`` keeps the rows of one atom that pass its negated atoms and comparisons (``_dt_single(f,
    g, p, n) :- _dt_pred(f, g, n, p, r, rn), !_dt_has_prev(f, g, n, r), !_dt_has_next(f, g, n, r,
    rn)``): unfolded, its readers look up what it looked up, and join nothing it did not. A
    column it drops must be one its tests read; one dropped untested (a wildcard too) is a
    projection, whose readers would bind each of its values (``_is_copy``)."""
    atoms = [b for b in r.body if isinstance(b, Atom)]
    tests = [b for b in r.body if isinstance(b, (NegAtom, Constraint))]
    if not atoms or not tests or len(atoms) + len(tests) != len(r.body) or \
            not all(_plain(a) for a in atoms) or r.head.rel in {a.rel for a in atoms} | \
            {b.atom.rel for b in tests if isinstance(b, NegAtom)} or not _lookups(atoms, copies):
        return False
    head = [x.name for x in r.head.args if isinstance(x, Var)]
    if len(head) != len(set(head)) or \
            not all(isinstance(x, (Var, Num, Str)) for x in r.head.args):
        return False
    kept = {x.name for a in atoms for x in a.args if isinstance(x, Var)}
    tested = {v.name for b in tests for v in lit_vars(b)}
    looked_up = {x.name for a in atoms[1:] for x in a.args if isinstance(x, Var)}
    return set(head) <= kept and not any(isinstance(x, Wildcard) for x in atoms[0].args) and \
        kept <= set(head) | tested | looked_up


def _lookups(atoms: list, copies: frozenset) -> bool:
    """Whether each atom after the first is of an unfolded copy (``copies``) and binds at most one
    variable the atoms before it do not (a lookup by the others, ``_dt_rpo(f, g, p, _)`` after
    ``_dt_edge(f, g, p, n)``: p has a row), so that unfolding the filter into a reader adds lookups
    of what it reads anyway, not a join or a relation. What a lookup binds may be dropped
    untested (a wildcard): each of its values gives the reader the same rows."""
    seen = {x.name for x in atoms[0].args if isinstance(x, Var)}
    for a in atoms[1:]:
        names = {x.name for x in a.args if isinstance(x, Var)}
        if a.rel not in copies or len(names - seen) > 1:
            return False
        seen |= names
    return True


def _substitute(t, env: dict):
    if isinstance(t, Var):
        return env.get(t.name, t)
    if dataclasses.is_dataclass(t) and not isinstance(t, (Num, Str, Wildcard)):
        return dataclasses.replace(t, **{
            f.name: (tuple(_substitute(x, env) for x in v) if isinstance(v, tuple) else
                     _substitute(v, env) if dataclasses.is_dataclass(v) else v)
            for f in dataclasses.fields(t) for v in [getattr(t, f.name)] if f.name != "loc"})
    return t


def _unfold(r: Rule, at: int, definer: Rule, fresh) -> Rule | None:
    """``r`` with its body atom ``at`` replaced by the body of ``definer`` (a copy or filter
    rule: its head unified with that atom, its other variables renamed apart); None where a
    constant of the definer's head differs from the atom's."""
    use = r.body[at]
    env, bind, extra = {}, {}, []
    for h, t in zip(definer.head.args, use.args):
        if isinstance(h, Var):
            env[h.name] = Var(f"#i{next(fresh)}", use.loc) if isinstance(t, Wildcard) else t
        elif isinstance(t, Var):
            if t.name in bind and bind[t.name] != h:
                return None
            bind[t.name] = h
        elif isinstance(t, (Num, Str)):
            if t != h:
                return None
        elif not isinstance(t, Wildcard):
            extra.append(Constraint("=", t, h, use.loc))
    for lit in definer.body:
        for v in lit_vars(lit):
            if v.name not in env:
                env[v.name] = Var(f"#i{next(fresh)}", use.loc)
    source = tuple(_substitute(b, env) for b in definer.body)
    body = r.body[:at] + source + tuple(extra) + r.body[at + 1:]
    out = Rule(r.head, body, r.loc, r.kinds)
    return _substitute_rule(out, bind) if bind else out


def _substitute_rule(r: Rule, env: dict) -> Rule:
    return Rule(_substitute(r.head, env), tuple(_substitute(b, env) for b in r.body), r.loc,
                r.kinds)


def _unfold_relations(rules: list, component: dict, keep: set) -> list:
    """``rules`` with each relation of ``_unfolded_relations`` replaced where it is read by the
    bodies of its rules, one rule per defining rule whose head unifies: clingo makes an atom of
    every derived row (about 1-2 us and 150-400 bytes each, docs/measurements.md), and the rows
    of a copy are those of what it copies (``_dt_rpo``, ``_dt_edge`` of lib/dominator_tree.dl:
    150,000 atoms on a 33,251-block structured CFG), those of a filter the rows of its atom
    that pass its tests, which its readers can test themselves (``_dt_single``: 48,716 atoms
    on the same CFG; mem40 and clg41 in docs/measurements.md). The rows of every other relation
    are the same."""
    definers = _unfolded_relations(rules, component, keep)
    if not definers:
        return rules
    fresh = iter(range(1 << 30))

    def unfolded(r: Rule) -> list:
        at = next((i for i, b in enumerate(r.body) if isinstance(b, Atom) and b.rel in definers),
                  None)
        if at is None:
            return [r]
        return [v for d in definers[r.body[at].rel] for u in [_unfold(r, at, d, fresh)]
                if u is not None for v in unfolded(u)]

    return [u for r in rules if r.head.rel not in definers for u in unfolded(r)]


def _fireable(rules: list, checked: CheckedProgram) -> list:
    """The ``rules`` whose every positive body atom of a relation some of them define names, in
    each column, a constant rows can hold there (``_column``). A rule of a generic library whose
    body names a constant no rule produces is dropped: the generic ``_dq_step(f, g, ..) :-
    _dq_up(f, g, ..), _dt_single(f, g, x, r), ..`` of lib/dominates.dl unfolded per graph
    ``_dt_single`` is read in ("cfg", "rev"), while only loops.dl asks ``_dq`` and only of
    "cfg". Such a rule derives nothing, but clingo's grounder indexes the atoms it would look up
    (issue #32 item 4, stop 49: chain 30,000 blocks, grounding 55.0 -> 52.9 MB, irreducible
    250 -> 244). A relation none of ``rules`` defines (an input, or one whose rules cannot fire
    with the live relations) is not tested."""
    defined = {r.head.rel for r in rules} - set(checked.inputs)
    known = derived(checked, "clingo constants", dict)

    def holds(b: Atom) -> bool:
        for i, x in enumerate(b.args):
            if isinstance(x, (Num, Str)):
                constants = known[b.rel, i] if (b.rel, i) in known else _column(checked, (b.rel, i), known)
                if constants is not None and x not in constants:
                    return False
        return True

    return [r for r in rules if all(holds(b) for b in r.body if isinstance(b, Atom) and b.rel in defined)]


def _column(checked: CheckedProgram, column: tuple, known: dict):
    """The constants rows of ``column`` (relation, index) can hold in ``checked``, None for any
    value, put in ``known`` with those of the columns it depends on: the least fixpoint, over the
    rules of every relation reached, of a head constant, or the constants of the derived body
    columns a head variable is in (none: any value); any value in an input or a relation no rule
    defines (facts may be fed to it). Over every rule of the program, as if each fired: a
    superset of what the rules of one call (``program_text``'s ``needed``, ``live``) derive, so
    it drops no rule that can fire, and is computed once per program and column, on demand
    (stop 49: a fixpoint over the rules of each call, or of the whole program once, cost
    ppg.dl's program_text 1.5-5 ms; these lookups about 0.3 ms)."""
    rules_of = derived(checked, "rules by head", lambda: rules_by_head(checked.rules))
    inputs = checked.inputs
    deps: dict = {}                                     # column -> [(constant, sources)], or None
    todo = [column]
    while todo:
        key = todo.pop()
        if key in deps or key in known:
            continue
        rel, i = key
        specs: list | None = [] if rel in rules_of and rel not in inputs else None
        for r in rules_of.get(rel, ()) if specs is not None else ():
            x = r.head.args[i]
            if isinstance(x, (Num, Str)):
                specs.append((x, ()))
                continue
            sources = [(b.rel, j) for b in r.body if isinstance(b, Atom) and b.rel in rules_of and
                       b.rel not in inputs for j, y in enumerate(b.args)
                       if isinstance(x, Var) and isinstance(y, Var) and y.name == x.name]
            if not sources:
                specs = None
                break
            specs.append((None, sources))
            todo.extend(sources)
        deps[key] = specs
    values = {key: (None if specs is None else frozenset()) for key, specs in deps.items()}

    def value(key):
        return known[key] if key in known else values[key]

    changed = True
    while changed:
        changed = False
        for key, specs in deps.items():
            have = values[key]
            if have is None:
                continue
            new = have
            for constant, sources in specs:
                if constant is not None:
                    got = {constant}
                else:                                   # the constants of x's body columns
                    got = None
                    for source in sources:
                        v = value(source)
                        if v is not None:
                            got = v if got is None else got & v
                if got is None:
                    new = None
                    break
                new = new | got
            if new != have:
                values[key] = new
                changed = True
    known.update(values)
    return known[column]


def translated_rules(checked: CheckedProgram, needed: set[str] | None = None,
                     shown: set[str] | None = None, live: frozenset[str] | None = None) -> list:
    """The rules ``program_text`` writes, in its order (the joins first): with ``needed``,
    only the rules defining those relations; with ``live`` (``relevance.live_relations``), only
    those that can fire. A recursive rule's non-recursive atoms are joined once, outside its
    recursion (``_with_joins``); an aggregate is folded once per group (``_with_groups``)."""
    component = {rel: k for k, members in enumerate(checked.strata) for rel in members}
    joins: dict = {}
    groups: list = []
    keep = set(checked.inputs) | set(checked.outputs) | set(checked.printsize) | set(shown or ())
    rules = _fireable(_unfold_relations([r for r in checked.rules
                                         if (needed is None or r.head.rel in needed)
                                         and can_fire(r, live)], component, keep), checked)
    rules = [_with_joins(g, component, joins) for r in rules
             for g in _with_groups(r, component, groups)]
    return [j for _, j in joins.values()] + rules


def program_text(checked: CheckedProgram, needed: set[str] | None = None,
                 shown: set[str] | None = None, live: frozenset[str] | None = None,
                 rules: list | None = None) -> str:
    """The clingo program (rules only; input facts are added separately) ending in ``#show.``:
    the engine reads the relations it returns from the model's atoms, and an output table of
    the shown atoms cost clasp more than the grounding left to it (transitive closure, 612,000
    rows: ``solve`` 0.20 s with ``#show r_path/2.``, 0.005 s with ``#show.``). Its rules are
    ``translated_rules(checked, needed, shown, live)``, or ``rules``, a part of them (a stage,
    ``stages.py``)."""
    if rules is None:
        rules = translated_rules(checked, needed, shown, live)
    return "\n".join([rule(r) for r in rules] + ["#show."]) + "\n"
