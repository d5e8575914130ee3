"""flow.state_map: a persistent register map behaves as a dict copied on every copy(), and its
meet is the flat meet register by register (checked against plain dicts on random histories)."""
import random

import pytest

from pylogic.flow.lattice import BOT, meet
from pylogic.flow.state_map import Registers, StateMap


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 257, 1000])
def test_random_history_matches_dicts(n):
    rnd = random.Random(n)
    names = [f"r{i}" for i in range(n)]
    regs = Registers(names)
    start = {r: rnd.choice([0, 1, BOT]) for r in names}
    states = [(regs.build(start), dict(start))]
    for _ in range(400):
        s, d = rnd.choice(states)
        op = rnd.random()
        if op < 0.5 and names:
            s, d = s.copy(), dict(d)
            for _ in range(rnd.randint(1, 5)):
                r, v = rnd.choice(names), rnd.choice([0, 1, 2, BOT])
                s[r] = v
                d[r] = v
        else:
            t, e = rnd.choice(states)
            old = s
            s = s.meet(t)
            new_d = {r: meet(d[r], e[r]) for r in names}
            if new_d == d:                      # nothing changed: the same state comes back
                assert s is old
            d = new_d
        states.append((s, d))
    for s, d in states:
        assert dict(s.items()) == d and len(s) == n and list(s) == names
        assert all(s[r] is d[r] or s[r] == d[r] for r in names)


def test_meet_returns_self_when_unchanged_and_shares_nodes():
    regs = Registers([f"r{i}" for i in range(100)])
    s = regs.build({f"r{i}": 0 for i in range(100)})
    t = s.copy()
    t["r5"] = BOT
    assert s.meet(s) is s and t.meet(s) is t          # t ⊓ s = t: nothing of t changes
    u = s.meet(t)
    assert u is not s and u["r5"] is BOT and u.root is t.root   # the meet is t: t's nodes
    assert s["r5"] == 0                               # writes never reach a copy


def test_unknown_register():
    s = Registers(["a"]).build({"a": 1})
    assert s.get("b", 7) == 7 and "b" not in s
    with pytest.raises(KeyError):
        s["b"]
    assert isinstance(s, StateMap) and s == {"a": 1}
