"""The load-reuse limit simulator and the value predictors (``pylogic/interp/reuse.py``,
PathFinder ch. 8): the spec's §12 test case 28, the aliasing scenarios of §8.3, register
pressure (§8.4), the predictors (§8.5), and agreement with a brute-force replay of a recorded
trace on generated programs."""
import pytest
from hypothesis import given, settings, strategies as st

from pylogic.interp import run_module
from pylogic.interp.observe import Observer
from pylogic.interp.reuse import DEPTHS, SCENARIOS, VARIANTS, ReuseObserver, check_depth
from pylogic.ir.model import Load, Store
from pylogic.ir.parser import parse_module


def simulate(text: str, **kw) -> ReuseObserver:
    obs = ReuseObserver()
    result = run_module(parse_module(text, "t.pir"), observer=obs, **kw)
    assert result.error is None, result.error
    return obs


# ---------------------------------------------------------------- §12 case 28 (spec)

RECURRENT = """
global A[96]
func main() {
entry:
    i = mov 0
    br loop
loop:
    c = cmp.lt i, 10
    cbr c, body, done
body:
    o = shl i, 3
    p = add A, o
    x = load p          ; ... = A[i]
    q = add p, 16
    y = add x, 1
    store q, y          ; A[i+2] = ...
    i = add i, 1
    br loop
done:
    ret 0
}
"""


def test_recurrent_store_of_a_i_plus_2_is_reused_by_the_load_of_a_i_from_h_2():
    """§12 case 28 [Inference on h, as the spec marks it]: the store of A[i+2] two iterations
    back is the source of the load of A[i]; its history holds A[i+2] and A[i+3] at the load,
    so h = 1 misses it and h >= 2 sees the 8 iterations i = 2..9."""
    obs = simulate(RECURRENT)
    assert obs.loads == 10
    assert obs.reuse(1)["redundant"] == 0
    for h in (2, 3, 4):
        assert obs.reuse(h) == {"loads": 10, "redundant": 8, "from_loads": 0, "from_stores": 8}


TWO_LOOPS = """
global A[80]
func main() {
entry:
    i = mov 0
    br l1
l1:
    c = cmp.lt i, N
    cbr c, b1, mid
b1:
    o = shl i, 3
    p = add A, o
    x = load p          ; load a
    i = add i, 1
    br l1
mid:
    j = mov 0
    br l2
l2:
    d = cmp.lt j, N
    cbr d, b2, done
b2:
    o2 = shl j, 3
    p2 = add A, o2
    z = load p2         ; load b
    j = add j, 1
    br l2
done:
    ret 0
}
"""


@pytest.mark.parametrize("n", [10, 3])
def test_loop_level_reuse_counts_only_what_the_history_still_holds(n):
    """§12 case 28: two loops over the same array: load b reuses load a only for the last h
    elements a touched, so all of it only when N <= h (PathFinder §8.2, loop fusion needed)."""
    obs = simulate(TWO_LOOPS.replace("N", str(n)))
    for h in DEPTHS:
        assert obs.reuse(h)["redundant"] == min(n, h)
        assert obs.reuse(h)["from_loads"] == min(n, h)


INTERVENING = """
global A[8]
func main() {
entry:
    x = load A          ; the first access
    store A, 5          ; the intervening store
    y = load A          ; redundant: the store is its source, the first load's value is stale
    z = load A          ; redundant: both the store and the load before are sources
    ret 0
}
"""


def test_an_intervening_store_becomes_the_reuse_source():
    """§12 case 28 / §8.2: "if an intervening store did occur, the load is still redundant;
    the intervening store becomes the reuse source"; a reuse can have a load and a store
    source at once (Table 8.1's fractions add up to more than 100%)."""
    obs = simulate(INTERVENING)
    assert obs.reuse(1) == {"loads": 3, "redundant": 2, "from_loads": 1, "from_stores": 2}


def test_a_library_write_in_between_leaves_no_source():
    obs = simulate("""
global A[8]
func main() {
entry:
    x = load A
    call @memset(A, 1, 8)
    y = load A
    ret 0
}
extern func @memset(%a0, %a1, %a2)
""")
    assert obs.reuse(4)["redundant"] == 0


def test_a_partial_overwrite_leaves_no_source():
    obs = simulate("""
global A[8]
func main() {
entry:
    x = load.8 A
    b = add A, 3
    store.1 b, 7
    y = load.8 A
    ret 0
}
""")
    assert obs.reuse(4)["redundant"] == 0


# ---------------------------------------------------------------- §8.3 aliasing scenarios

SCENARIO_PROGRAM = """
global G[8]
global H[8]
func @f() {
entry:
    ret 0
}
func main() {
entry:
    s = alloca 8
    a = load G          ; first
    b = load G          ; reused, nothing in between
    store H, 1          ; a store to a global
    x = load H          ; from that store: a store never kills what it wrote (all scenarios)
    c = load G          ; survives calls and stores_but_globals, not all_stores
    store s, 2          ; a store to the stack
    d = load G          ; survives only calls
    call @f()
    e = load G          ; survives only ideal (a call and a return in between)
    ret 0
}
"""


def test_the_three_aliasing_scenarios():
    """§8.3: (1) only calls kill, (2) plus all stores but those to globals, (3) all stores and
    calls; ``ideal`` is perfect aliasing (no kills)."""
    obs = simulate(SCENARIO_PROGRAM)
    got = {s: obs.reuse(1, s)["redundant"] for s in SCENARIOS}
    # reused: b, x, c, d, e ideally; e killed by the call; d by the stack store; c by H's store
    assert got == {"ideal": 5, "calls": 4, "stores_but_globals": 3, "all_stores": 2}


def test_intra_procedural_reuse_needs_the_source_in_the_loads_function():
    obs = simulate("""
global G[8]
func @f() {
entry:
    v = load G
    ret v
}
func main() {
entry:
    a = load G
    r = call @f()
    b = load G
    ret 0
}
""")
    # f's load reuses main's (whole program only); main's second load reuses both
    assert obs.reuse(1, "ideal", "whole")["redundant"] == 2
    assert obs.reuse(1, "ideal", "intra")["redundant"] == 1
    assert obs.reuse(1, "ideal", "activation")["redundant"] == 1
    assert obs.reuse(1, "calls", "whole")["redundant"] == 0


def test_activation_reuse_needs_the_source_in_the_same_call():
    """A function's load reusing its own access of the call before is intra-procedural reuse
    in the thesis's sense (§8.2: the procedure "might have returned and been called"), not in
    the same activation."""
    obs = simulate("""
global G[8]
func @f() {
entry:
    v = load G
    w = load G
    ret v
}
func main() {
entry:
    r = call @f()
    r = call @f()
    ret 0
}
""")
    assert obs.reuse(1, "ideal", "intra")["redundant"] == 3  # w twice, v of the second call
    assert obs.reuse(1, "ideal", "activation")["redundant"] == 2  # w twice


def test_nullified_loads_are_not_executed():
    obs = simulate("""
global G[8]
func main() {
entry:
    p:ut = pcmp.eq 0, 1
    (p) a = load G
    b = load G
    (p) c = load G
    ret 0
}
""")
    assert obs.loads == 1 and obs.reuse(4)["redundant"] == 0


# ---------------------------------------------------------------- §8.4 register pressure

def test_register_pressure_is_the_covered_share_of_the_run():
    """§8.4: a location needs a register while a reuse path crosses a point; here one location
    from event 1 (the first load) to event 3, of 4 events (the return is one): half a register
    on average."""
    obs = simulate("""
global G[8]
global H[8]
func main() {
entry:
    a = load G
    b = load H
    c = load G
    ret 0
}
""")
    assert obs.t == 4  # three loads and the return
    assert obs.report([1])["register_pressure"]["1"] == round(2 / 4, 4)


# ---------------------------------------------------------------- §8.5 predictors, ch. 9 claim

def predict(values):
    obs = ReuseObserver()
    sid = obs.register("f", 0, Load(dest="x", addr=None))
    return [obs.value(sid, v) for v in values]


def test_last_value_predictor():
    hits = predict([3, 3, 4, 4, 4])
    assert [h[0] for h in hits] == [False, True, False, True, True]


def test_two_delta_stride_changes_stride_after_seeing_it_twice():
    """[SVS96] two-delta: the predicted stride changes only when the same new stride repeats."""
    hits = predict([0, 2, 4, 6, 7, 9, 11])
    # stride 2 is used once seen twice (from 6 on); the one-off stride 1 (to 7) does not
    # replace it, so 9 and 11 are predicted
    assert [h[1] for h in hits] == [False, False, False, True, False, True, True]


def test_context_predictor_learns_a_repeating_pattern():
    hits = predict([1, 5, 9, 1, 5, 9, 1, 5, 9])
    # the context (1, 5) is first followed by 9 at position 2, predicted from position 5 on
    assert [h[2] for h in hits] == [False] * 5 + [True] * 4
    assert not any(h[0] for h in hits)


def test_same_value_as_previous_instance_by_kind():
    obs = simulate("""
func main() {
entry:
    i = mov 0
    br loop
loop:
    c = cmp.lt i, 4
    cbr c, body, done
body:
    k = mov 7
    i = add i, 1
    br loop
done:
    ret 0
}
""")
    values = obs.report()["values"]
    # k = 7 four times: the context (7, 7) is known from its fourth instance on
    assert values["moves"] == {"executed": 5, "same_as_previous": 3, "stride": 3, "context": 1}
    # the compare is 1,1,1,1,0; the add 1,2,3,4 never repeats a value, its stride 1 is used
    # from the fourth instance on (seen twice first)
    assert values["computations"]["executed"] == 9
    assert values["computations"]["same_as_previous"] == 3
    assert values["computations"]["stride"] == 3 + 1


def test_check_depth():
    assert check_depth("3") == 3
    for bad in ("0", "5", "x", None):
        with pytest.raises(ValueError):
            check_depth(bad)


# ---------------------------------------------------------------- brute-force replay

class Recorder(Observer):
    """Records the trace the hooks report, nothing else."""

    def __init__(self):
        super().__init__()
        self.trace = []

    def load(self, sid, addr, size, value):
        self.trace.append(("L", sid, addr, size, value))

    def store(self, sid, addr, size):
        self.trace.append(("S", sid, addr, size))

    def call(self, enter, sid):
        self.trace.append(("K", enter))

    def ret(self, sid, value):
        self.trace.append(("K", -1))

    def write(self, addr, size):
        self.trace.append(("W", None, addr, size))


def brute_force(trace, sites, globals_, h):
    """Per (scenario, variant): [redundant, from loads, from stores], straight from §8.2/§8.3
    over the whole trace, event by event (quadratic; independent of the simulator)."""
    out = {(s, v): [0, 0, 0] for s in SCENARIOS for v in VARIANTS}
    memory = [(i, e) for i, e in enumerate(trace) if e[0] in "LS"]
    activation, stack, count = {}, [0], 0  # event index -> the activation it ran in
    for i, e in enumerate(trace):
        if e[0] == "K" and e[1] == 1:
            count += 1
            stack.append(count)
        elif e[0] == "K" and e[1] == -1 and len(stack) > 1:
            stack.pop()
        activation[i] = stack[-1]
    for i, ev in enumerate(trace):
        if ev[0] != "L":
            continue
        _, sid, a, n, value = ev
        fn = sites[sid][0]

        def overlaps(e):
            return e[2] < a + n and a < e[2] + e[3]
        last_write = max((j for j in range(i) if trace[j][0] in "SW" and overlaps(trace[j])),
                         default=-1)
        last_call = max((j for j in range(i) if trace[j][0] == "K"), default=-1)
        last_local = max((j for j in range(i) if trace[j][0] == "S"
                          and trace[j][2] >> 32 > globals_), default=-1)
        last_store = max((j for j in range(i) if trace[j][0] == "S"), default=-1)
        kill = {"ideal": -1, "calls": last_call, "stores_but_globals": max(last_call, last_local),
                "all_stores": max(last_call, last_store)}
        sources = []
        for s in {e[1] for _, e in memory}:
            history = [(j, e) for j, e in memory if j < i and e[1] == s][-h:]
            sources += [(j, e) for j, e in history
                        if (e[2], e[3]) == (a, n) and j >= last_write]
        for j, e in sources:
            if e[0] == "L":  # a fresh source holds the value the load reads
                assert e[4] == value
        for s in SCENARIOS:
            for v in VARIANTS:
                ok = [e for j, e in sources if j >= kill[s]
                      and (v == "whole" or v == "intra" and sites[e[1]][0] == fn
                           or v == "activation" and activation[j] == activation[i])]
                row = out[(s, v)]
                row[0] += bool(ok)
                row[1] += any(e[0] == "L" for e in ok)
                row[2] += any(e[0] == "S" for e in ok)
    return out


@st.composite
def programs(draw):
    """A loop of 2-9 iterations over random loads and stores (1/2/4/8 bytes, constant or
    iteration-dependent offsets) into a global and a stack object, guarded stores, memsets and
    calls of a function that accesses memory too."""
    def accesses(prefix, bases, with_i):
        lines = []
        for k in range(draw(st.integers(1, 7))):
            size = draw(st.sampled_from((1, 2, 4, 8)))
            base = draw(st.sampled_from(bases))
            name = f"{prefix}{k}"
            if with_i and draw(st.booleans()):
                lines += [f"{name}o = and i, 3", f"{name}o = shl {name}o, 3",
                          f"{name}a = add {base}, {name}o"]
            else:
                lines.append(f"{name}a = add {base}, {draw(st.integers(0, 24))}")
            what = draw(st.sampled_from(("load", "load", "store", "guarded", "memset", "call")
                                        if with_i else ("load", "load", "store")))
            if what == "load":
                lines.append(f"{name}v = load.{size} {name}a")
            elif what == "store":
                lines.append(f"store.{size} {name}a, {draw(st.integers(-3, 3))}")
            elif what == "guarded":
                lines += [f"{name}p:ut = pcmp.eq i, {draw(st.integers(0, 3))}",
                          f"({name}p) store.{size} {name}a, i"]
            elif what == "memset":
                lines.append(f"call @memset({name}a, {draw(st.integers(0, 3))}, {size})")
            else:
                lines.append(f"{name}r = call @f({base})")
        return lines
    f_body = accesses("f", ("q", "G"), False)
    body = accesses("m", ("G", "s"), True)
    n = draw(st.integers(2, 9))
    indent = "\n    "
    return f"""
global G[32]
func @f(q) {{
entry:
    {indent.join(f_body)}
    ret 0
}}
func main() {{
entry:
    s = alloca 32
    i = mov 0
    br loop
loop:
    c = cmp.lt i, {n}
    cbr c, body, done
body:
    {indent.join(body)}
    i = add i, 1
    br loop
done:
    ret 0
}}
extern func @memset(%a0, %a1, %a2)
"""


@settings(max_examples=60, deadline=None)
@given(programs())
@pytest.mark.slow
def test_simulator_agrees_with_a_brute_force_replay(text):
    module = parse_module(text, "t.pir")
    recorder, obs = Recorder(), ReuseObserver()
    assert run_module(module, observer=recorder).error is None
    assert run_module(module, observer=obs).error is None
    assert obs.loads == sum(1 for e in recorder.trace if e[0] == "L")
    for h in DEPTHS:
        expected = brute_force(recorder.trace, recorder.sites, recorder.globals, h)
        for (s, v), (red, from_loads, from_stores) in expected.items():
            got = obs.reuse(h, s, v)
            assert (got["redundant"], got["from_loads"], got["from_stores"]) == \
                (red, from_loads, from_stores), (h, s, v)


def test_hooks_cost_nothing_without_an_observer():
    """The default decoded code has no hook in it (zero cost when off)."""
    from pylogic.interp.machine import Machine
    module = parse_module(RECURRENT, "t.pir")
    plain = Machine(module).code["main"].decoder.source
    observed = Machine(module, Recorder()).code["main"].decoder.source
    assert "OL(" not in plain and "OS(" not in plain and "OL(" in observed
    assert [line for line in observed.splitlines() if "OL(" not in line and "OS(" not in line
            and "OV(" not in line and "ORET(" not in line and "OK(" not in line] == \
        plain.splitlines()


def test_merged_reports_add_up_and_keep_every_kind():
    from pylogic.interp.reuse import merge
    a = simulate(INTERVENING).report()
    b = simulate(SCENARIO_PROGRAM).report()
    both = merge([simulate(INTERVENING).report(), simulate(SCENARIO_PROGRAM).report()])
    assert both["loads"] == a["loads"] + b["loads"]
    assert both["reuse"]["1"]["ideal"]["whole"]["redundant"] == \
        a["reuse"]["1"]["ideal"]["whole"]["redundant"] + b["reuse"]["1"]["ideal"]["whole"]["redundant"]
    assert set(both["values"]) == set(a["values"]) | set(b["values"])
    assert both["register_pressure"]["1"] == round(
        (a["covered"]["1"] + b["covered"]["1"]) / (a["events"] + b["events"]), 4)


def test_without_values_the_reuse_counts_are_the_same():
    plain, full = ReuseObserver(values=False), ReuseObserver()
    module = parse_module(SCENARIO_PROGRAM, "t.pir")
    run_module(module, observer=plain)
    run_module(module, observer=full)
    assert plain.report()["reuse"] == full.report()["reuse"]
    assert "values" not in plain.report() and plain.by_kind == {}
