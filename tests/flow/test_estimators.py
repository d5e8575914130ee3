"""Estimators of PathFinder ch. 5 (pylogic.flow.estimators): the spec's running example (§12 item
11, its CFG reconstructed in pathfinder.md §5.4 [Inference]; every expected number is from the
thesis' text), and the bounds containing the exact reuse of random executions of random CFGs.

The availability / anticipability states are computed here by a plain iterative solver, not by
datalog/pre.dl (whose agreement with path enumeration is tested in tests/datalog)."""
from __future__ import annotations

import random
from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.flow.estimators import (ENTRY, MAY, MUST, ValueFlow, cmp_connected, cmp_flow,
                                     cmp_one, cmp_reach, cmp_region, definite, estimate,
                                     exact_reuse, pre_estimate)


def states(succ: dict, entry: str, users: set, gens: set, kills: set):
    """AVAIL_in / AVAIL_out / ANTIC_in as {block: MUST | MAY} (NO left out), by iterating the
    some-path and all-paths problems to their fixpoints over the reachable blocks."""
    nodes = set(succ) | {b for bs in succ.values() for b in bs}
    preds = defaultdict(set)
    for a, bs in succ.items():
        for b in bs:
            preds[b].add(a)
    reach, stack = {entry}, [entry]
    while stack:
        for b in succ.get(stack.pop(), ()):
            if b not in reach:
                reach.add(b)
                stack.append(b)

    def solve(all_paths: bool, forward: bool):
        into = {n: all_paths for n in nodes}
        out = {n: all_paths for n in nodes}
        changed = True
        while changed:
            changed = False
            for n in sorted(nodes):
                if forward:
                    ins = [out[p] for p in preds[n] if p in reach]
                    new_in = False if n == entry or not ins else (all(ins) if all_paths
                                                                 else any(ins))
                    new_out = n in gens or (new_in and n not in kills)
                else:
                    outs = [into[s] for s in succ.get(n, ())]
                    new_out = False if not outs else (all(outs) if all_paths else any(outs))
                    new_in = n in users or (new_out and n not in kills and n not in gens)
                if (new_in, new_out) != (into[n], out[n]):
                    into[n], out[n], changed = new_in, new_out, True
        return into, out

    def classify(some: dict, every: dict) -> dict:
        return {n: MUST if every[n] else MAY for n in nodes if some[n] and n in reach}

    av_some_in, av_some_out = solve(False, True)
    av_all_in, av_all_out = solve(True, True)
    an_some_in, _ = solve(False, False)
    an_all_in, _ = solve(True, False)
    return (classify(av_some_in, av_all_in), classify(av_some_out, av_all_out),
            classify(an_some_in, an_all_in))


def running_example(loop: int = 0) -> ValueFlow:
    """pathfinder.md §5.4's CFG: loads of x at A, C, E; D may write x; ``loop``: the free L."""
    freq = {(ENTRY, "S"): 150, ("S", "A"): 100, ("S", "B"): 50, ("A", "f"): 100,
            ("f", "C"): 35, ("f", "h"): 65, ("C", "j"): 35, ("B", "g"): 50, ("g", "h"): 10,
            ("g", "k"): 40, ("h", "i"): 75, ("i", "j"): 40, ("i", "k"): 5, ("i", "D"): 30,
            ("k", "l"): 45 + loop, ("l", "k"): loop, ("l", "m"): 20, ("l", "D"): 25,
            ("j", "m"): 75, ("D", "m"): 55, ("m", "E"): 150, ("E", "end"): 150}
    users = gens = {"A", "C", "E"}
    succ = defaultdict(list)
    for a, b in freq:
        succ[a].append(b)
    avail_in, avail_out, antic_in = states(succ, ENTRY, users, gens, {"D"})
    return ValueFlow(freq, avail_in, avail_out, antic_in, set(users), set(gens), {"D"})


def test_running_example_region():
    flow = running_example()
    r = cmp_region(flow)
    assert r.nodes == {"h", "i", "k", "l"}
    assert set(r.must_entries) == {("f", "h")}
    assert set(r.no_entries) == {("g", "h"), ("g", "k")}
    assert set(r.must_exits) == {("i", "j"), ("l", "m")}
    assert set(r.no_exits) == {("i", "D"), ("l", "D")}
    assert flow.avail_in["m"] == MAY and flow.antic_in["m"] == MUST


def test_running_example_pre_estimator():
    """Ex. 5.2: A 0/0, C 35/35, E 45/135; L_PRE = 80, U_PRE = 170, error 112.5%."""
    total, per = pre_estimate(running_example())
    assert (per[("S", "A")].lower, per[("S", "A")].upper) == (0, 0)
    assert (per[("f", "C")].lower, per[("f", "C")].upper) == (35, 35)
    assert (per[("m", "E")].lower, per[("m", "E")].upper) == (45, 135)
    assert (total.lower, total.upper) == (80, 170)
    assert abs(total.error - 1.125) < 1e-9


def test_running_example_cmp_estimators():
    """Ex. 5.3-5.7: S_d = 70; CMP¹ = CMP^c = 80/130; CMP^r 100/130; CMP^f 100/115 (tight);
    errors (§12 item 11) PRE 112.5% (above), CMP¹ 62.5%, CMP^c 62.5%, CMP^r 30%, CMP^f 15%."""
    for loop in (0, 3):
        flow = running_example(loop)
        assert definite(flow) == 70
        assert (cmp_one(flow).lower, cmp_one(flow).upper) == (80, 130)
        assert (cmp_connected(flow).lower, cmp_connected(flow).upper) == (80, 130)
        assert (cmp_reach(flow).lower, cmp_reach(flow).upper) == (100, 130)
        assert (cmp_flow(flow).lower, cmp_flow(flow).upper) == (100, 115)
        errors = [round(100 * b(flow).error, 6)
                  for b in (cmp_one, cmp_connected, cmp_reach, cmp_flow)]
        assert errors == [62.5, 62.5, 30.0, 15.0]


def test_running_example_definite_paths_and_cmp_one_of_the_region():
    """§12 item 11: S_d = 70 over Pr_d = {(f,C), (C,j)}: taking any other edge once more leaves
    S_d alone, taking one of these once more adds 1; CMP¹ of the region alone: L_u = 10,
    U_u = 60 (so 70 + 10 .. 70 + 60 = 80/130)."""
    flow = running_example()
    moved = set()
    for edge in flow.freq:
        more = ValueFlow({**flow.freq, edge: flow.freq[edge] + 1}, flow.avail_in,
                         flow.avail_out, flow.antic_in, flow.users, flow.generators, flow.kills)
        if definite(more) != definite(flow):
            assert definite(more) == definite(flow) + 1
            moved.add(edge)
    assert moved == {("f", "C"), ("C", "j")}
    whole, s_d = cmp_one(flow), definite(flow)
    assert (whole.lower - s_d, whole.upper - s_d) == (10, 60)


def test_running_example_exact_within_tight_bounds():
    """Traces with the example's edge profile realise the true minimum 100 and maximum 115 that
    CMP^f's bounds meet (Ex. 5.7's t1, t2; §12 item 11 "matches true min 100 / max 115"), and
    105 between: paths built by hand, their reuse counted by exact_reuse."""
    def trace(through_ij_from_b: int, a_k_to_m: bool) -> list:
        paths = [("S", "A", "f", "C", "j", "m", "E", "end")] * 35
        # the 65 Must entries (f,h) and 10 No entries (g,h) share (i,j) 40, (i,k) 5, (i,D) 30
        a_ij = 40 - through_ij_from_b
        paths += [("S", "A", "f", "h", "i", "j", "m", "E", "end")] * a_ij
        paths += [("S", "B", "g", "h", "i", "j", "m", "E", "end")] * through_ij_from_b
        a_k = min(5, 65 - a_ij)
        # A's paths through (i,k) leave l by (l,m) (reused at E) or by (l,D) (killed)
        a_out = ("m", "E", "end") if a_k_to_m else ("D", "m", "E", "end")
        paths += [("S", "A", "f", "h", "i", "k", "l", *a_out)] * a_k
        rest_a = 65 - a_ij - a_k
        paths += [("S", "A", "f", "h", "i", "D", "m", "E", "end")] * rest_a
        b_h_left = 10 - through_ij_from_b - (5 - a_k)
        paths += [("S", "B", "g", "h", "i", "k", "l", "m", "E", "end")] * (5 - a_k)
        paths += [("S", "B", "g", "h", "i", "D", "m", "E", "end")] * b_h_left
        # (g,k) 40 -> l; l leaves by (l,m) 20 and (l,D) 25 in all
        to_m = 20 - (5 - a_k) - (a_k if a_k_to_m else 0)
        paths += [("S", "B", "g", "k", "l", "m", "E", "end")] * to_m
        paths += [("S", "B", "g", "k", "l", "D", "m", "E", "end")] * (40 - to_m)
        return paths
    flow = running_example()
    for b, a_k_to_m, expected in ((0, True, 115), (10, True, 105), (10, False, 100)):
        paths = trace(b, a_k_to_m)
        got = Counter((p[i], p[i + 1]) for p in paths for i in range(len(p) - 1))
        assert {e: n for e, n in got.items()} == {e: n for e, n in flow.freq.items()
                                                  if e[0] != ENTRY and n}
        exact = exact_reuse(paths, flow.users, flow.generators, flow.kills)
        assert exact == expected
        for name, bounds in estimate(flow).items():
            assert bounds.contains(exact), (name, bounds, exact)


def layered_cfg(rng: random.Random, layers: int) -> tuple[dict, str]:
    """A random CFG in layers of 1-3 blocks (diamonds, so values are available and anticipated on
    some paths only: CMP regions), each block branching to the next layer, some back edges;
    ``(successors, exit block)``. A block's first successor is in the next layer."""
    names, k = [["b0"]], 1
    for _ in range(layers):
        width = rng.randrange(1, 4)
        names.append([f"b{k + i}" for i in range(width)])
        k += width
    names.append([f"b{k}"])
    succ = {b: [] for layer in names for b in layer}
    for i in range(len(names) - 1):
        for b in names[i]:
            succ[b] = list(dict.fromkeys(rng.choice(names[i + 1])
                                         for _ in range(rng.randrange(1, 3))))
            if i and rng.random() < 0.15:
                succ[b].append(rng.choice(names[rng.randrange(0, i + 1)]))
        for c in names[i + 1]:
            if not any(c in succ[b] for b in names[i]):
                succ[rng.choice(names[i])].append(c)
    return succ, names[-1][0]


def random_walks(rng: random.Random, succ: dict, calls: int, exit_: str) -> list:
    paths = []
    for _ in range(calls):
        b, path = "b0", ["b0"]
        while b != exit_:
            options = succ[b]
            # after a while, go forward only, so every walk ends
            b = options[0] if len(path) > 40 else rng.choice(options)
            path.append(b)
        paths.append(tuple(path))
    return paths


def random_case(seed: int, stops: bool = False) -> tuple[ValueFlow, int]:
    """A random CFG with random users/generators/kills, random executions: ``(flow with their
    edge profile, their exact reuse)``; ``stops``: some executions end before the exit block
    (the program called ``exit()`` there)."""
    rng = random.Random(seed)
    succ, exit_ = layered_cfg(rng, rng.randrange(2, 6))
    blocks = sorted(succ)
    users = {b for b in blocks if rng.random() < 0.3}
    gens = users | {b for b in blocks if rng.random() < 0.15}
    kills = {b for b in blocks if b not in gens and rng.random() < 0.3}
    paths = random_walks(rng, succ, rng.randrange(1, 15), exit_)
    if stops:
        paths = [p[:rng.randrange(1, len(p) + 1)] if rng.random() < 0.4 else p for p in paths]
    freq = Counter((p[i], p[i + 1]) for p in paths for i in range(len(p) - 1))
    freq[(ENTRY, "b0")] = len(paths)
    full = {**{(a, b): 0 for a in succ for b in succ[a]}, **freq}
    graph = defaultdict(list)
    for a, b in full:
        graph[a].append(b)
    avail_in, avail_out, antic_in = states(graph, ENTRY, users, gens, kills)
    flow = ValueFlow(dict(full), avail_in, avail_out, antic_in, users, gens, kills)
    return flow, exact_reuse([(ENTRY,) + p for p in paths], users, gens, kills)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10 ** 6))
@pytest.mark.slow
def test_bounds_contain_exact_reuse_of_random_executions(seed):
    flow, exact = random_case(seed)
    for name, bounds in estimate(flow).items():
        assert bounds.lower <= bounds.upper, name
        assert bounds.contains(exact), (name, bounds, exact)


def test_random_cases_exercise_cmp_regions():
    """The property above is not vacuous: CMP regions with uncertain reuse occur, and there the
    max-flow estimators are at least as precise as CMP¹ (as the thesis finds)."""
    uncertain = 0
    for seed in range(300):
        flow, exact = random_case(seed)
        got = estimate(flow)
        if cmp_region(flow).nodes and got["CMP1"].lower < got["CMP1"].upper:
            uncertain += 1
        assert got["CMPr"].lower >= got["CMP1"].lower and got["CMPr"].upper <= got["CMP1"].upper
        assert got["CMPf"].lower >= got["CMPr"].lower and got["CMPf"].upper <= got["CMPr"].upper
    assert uncertain >= 20


# ---------------------------------------------------------------- general VNGs (§5.5)

def region_flow(freq: dict, producers: set, consumers: set, duplicating=frozenset()) -> ValueFlow:
    """A ValueFlow whose CMP region is every node that is neither a source nor a target of
    ``freq``: entries from ``producers`` are Must-available (the rest No), exits into
    ``consumers`` Must-anticipated (the rest No); nothing outside is definite reuse."""
    heads, tails = {b for _, b in freq}, {a for a, _ in freq}
    inner = heads & tails
    avail_in = {n: MAY for n in inner}
    avail_out = {**{n: MAY for n in inner}, **{p: MUST for p in producers}}
    antic_in = {**{n: MAY for n in inner}, **{c: MUST for c in consumers}}
    return ValueFlow(dict(freq), avail_in, avail_out, antic_in, set(consumers), set(producers),
                     set(), frozenset(duplicating))


def test_duplication_hand_example():
    """§5.5 (Fig. 5.9's idea, numbers ours): a producer entry P (25) and a stealer entry N (10)
    meet at d, where the thread splits at a synonym into the consumers c1 and c2 (35 each): the
    exits carry 70 against the entries' 35, Δ = 35. The 25 produced values each reach both
    consumers: exact reuse 50. Without Δ CMP¹ would say 60..25 (both bounds wrong); with Δ
    every CMP estimator holds 50: CMP¹ max(0, 70 - (10 + 35)) = 25 .. min(70, 25 + 35) = 60."""
    from pylogic.flow.estimators import _one
    freq = {("P", "d"): 25, ("N", "d"): 10, ("d", "c1"): 35, ("d", "c2"): 35}
    flow = region_flow(freq, {"P"}, {"c1", "c2"}, {"d"})
    r = cmp_region(flow)
    assert r.nodes == {"d"} and r.delta == 35
    old = _one(r.must_entries, r.no_entries, r.must_exits, flow.freq)
    assert (old.lower, old.upper) == (60, 25)
    assert (cmp_one(flow).lower, cmp_one(flow).upper) == (25, 60)
    assert (cmp_connected(flow).lower, cmp_connected(flow).upper) == (25, 60)
    for fn in (cmp_reach, cmp_flow):
        assert fn(flow).contains(50), fn.__name__
    assert cmp_flow(flow).upper == 60   # δ (35) feeds d; P's 25 + 35 = 60 leave through c1, c2


def duplicating_case(seed: int) -> tuple[ValueFlow, int, int]:
    """A random region of a general VNG: producer and stealer entries into layered inner nodes,
    some of them duplicating (a token entering leaves along every successor: a synonym split),
    the others passing a token to one successor, exits into consumers and into non-consumers.
    Random tokens walk it; ``(flow with their frequencies, exact reuse, Δ)``: the exact reuse
    counts the tokens from producer entries that leave through a consumer exit."""
    rng = random.Random(seed)
    layers = [[f"n{k}_{i}" for i in range(rng.randrange(1, 4))] for k in range(rng.randrange(1, 4))]
    outs = [f"c{i}" for i in range(rng.randrange(1, 3))] + [f"x{i}" for i in range(rng.randrange(0, 2))]
    dup = {n for layer in layers for n in layer if rng.random() < 0.35}
    succ = {}
    for k, layer in enumerate(layers):
        later = [n for lay in layers[k + 1:] for n in lay] + outs
        for n in layer:
            succ[n] = list(dict.fromkeys(rng.choice(later) for _ in range(rng.randrange(1, 4))))
    sources = {f"p{i}": rng.choice(layers[0]) for i in range(rng.randrange(1, 3))}
    sources.update({f"s{i}": rng.choice(layers[0]) for i in range(rng.randrange(0, 3))})
    freq, exact = Counter(), 0
    for src, first in sources.items():
        for _ in range(rng.randrange(0, 8)):
            freq[(src, first)] += 1
            tokens = [first]
            while tokens:
                n = tokens.pop()
                if n in outs:
                    exact += src.startswith("p") and n.startswith("c")
                    continue
                for m in (succ[n] if n in dup else [rng.choice(succ[n])]):
                    freq[(n, m)] += 1
                    tokens.append(m)
    for n, ms in succ.items():          # edges no token took are in the VNG too
        for m in ms:
            freq.setdefault((n, m), 0)
    for src, first in sources.items():
        freq.setdefault((src, first), 0)
    producers = {s for s in sources if s.startswith("p")}
    flow = region_flow(dict(freq), producers, {c for c in outs if c.startswith("c")}, dup)
    return flow, exact, cmp_region(flow).delta


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10 ** 6))
@pytest.mark.slow
def test_cmp_bounds_contain_exact_reuse_with_duplication(seed):
    """§5.5's extensions: every CMP estimator's bounds hold the exact reuse of a duplicating
    region (the PRE estimator is §5.5's "unchanged" one and not claimed here)."""
    flow, exact, _ = duplicating_case(seed)
    for name in ("CMP1", "CMPc", "CMPr", "CMPf"):
        bounds = estimate(flow)[name]
        assert bounds.contains(exact), (name, bounds, exact)


def test_duplicating_cases_need_delta():
    """The property above is not vacuous: many cases duplicate flow, and in some of them the
    bounds without Δ (CMP¹ of §5.4) miss the exact reuse."""
    from pylogic.flow.estimators import _one
    duplicated = missed = 0
    for seed in range(300):
        flow, exact, delta = duplicating_case(seed)
        duplicated += delta > 0
        r = cmp_region(flow)
        old = _one(r.must_entries, r.no_entries, r.must_exits, flow.freq)
        missed += not old.contains(exact)
    assert duplicated >= 60 and missed >= 20, (duplicated, missed)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10 ** 6))
@pytest.mark.slow
def test_bounds_contain_exact_reuse_of_runs_that_stop_inside(seed):
    """Runs that end inside the function (exit()): flow that stopped where the value was
    Must-anticipated is taken from the lower bounds (``ValueFlow.leak``)."""
    flow, exact = random_case(seed, stops=True)
    for name, bounds in estimate(flow).items():
        assert bounds.lower <= bounds.upper, name
        assert bounds.contains(exact), (name, bounds, exact)


def test_a_run_that_stops_before_its_user():
    """921202-1.c's shape: a generator p1 and a non-generator p2 meet at m (Must-anticipated: x
    leads to the user u on every path), the run passes p1 -> m (a definite reuse, Fig. 5.7) and
    calls exit() in x. Exact reuse 0; the lower bounds give back the stopped flow (1)."""
    freq = {(ENTRY, "s"): 1, ("s", "p1"): 1, ("s", "p2"): 0, ("p1", "m"): 1, ("p2", "m"): 0,
            ("m", "x"): 1, ("x", "u"): 0}
    succ = defaultdict(list)
    for a, b in freq:
        succ[a].append(b)
    avail_in, avail_out, antic_in = states(succ, ENTRY, {"u"}, {"p1", "u"}, set())
    flow = ValueFlow(freq, avail_in, avail_out, antic_in, {"u"}, {"p1", "u"}, set())
    assert definite(flow) == 1 and flow.leak == 1
    exact = exact_reuse([(ENTRY, "s", "p1", "m", "x")], {"u"}, {"p1", "u"}, set())
    assert exact == 0
    for name, bounds in estimate(flow).items():
        assert bounds.contains(0), (name, bounds)
