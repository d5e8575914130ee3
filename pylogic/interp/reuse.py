"""The ideal limit of load reuse and value prediction, simulated on an interpreter run
(PathFinder ch. 8, §8.2-§8.5; the chapter-9 claim on repeated values).

``ReuseObserver`` is an ``interp.observe.Observer``: ``run_module(module, observer=obs)`` then
``obs.report()``.

Load reuse (PathFinder §8.2): every static load and store keeps an *access history*, the
locations of its last ``h`` dynamic accesses (h = 1..4, all four simulated in one pass). A
dynamic load is *redundant* when a location in some history is the one it reads (same address,
same size) and that history entry is *fresh*: recorded at or after the last write of any byte of
the location (so an intervening store is the reuse source only while its own history still
holds the location). Its *sources* are the fresh entries: a load's or a store's (both may be,
so "from loads" + "from stores" can exceed 100%, as in Table 8.1). A load may reuse its own
earlier access (a loop-carried reuse). *Intra-procedural* reuse counts only sources in the
load's own function (§8.2: "generator and redundant load in the same procedure", not strictly
intra-procedural: the function may have returned and been called again in between);
*activation* reuse only sources in the same activation of it (what an intra-procedural
transformation can exploit at best; not in the thesis).

Aliasing scenarios (§8.3; the thesis applies them to its static analysis, here they are kill
events in the trace): an entry is also stale when a kill event of the scenario came after it.
``ideal``: no kills (perfect aliasing); ``calls``: only calls kill (every call instruction,
library calls included, and every return); ``stores_but_globals``: calls and every store to
memory other than a global; ``all_stores``: calls and every store. A store never kills its own
entry (it is the fresh source of the location it wrote).

Register pressure (§8.4): a reuse carries its location in a register from its latest fresh
source to the load; the pressure at a point is the number of locations whose reuse interval
covers it; averaged over the run's events (loads, stores, calls, returns, library writes) for
the ideal scenario, whole program, per h.

Values (ch. 9 claim; §8.5): every value-producing instruction (``observe.py``) is compared with
its static instruction's previous dynamic value (``same_as_previous``, by instruction kind) and
predicted by three predictors of one entry per static instruction: last value [LS97],
two-delta stride [SVS96] (the stride used changes only when the same new stride is seen twice)
and an order-2 finite-context predictor [SVS96]: the instruction's last two values, hashed with
its number, index a shared table of ``CONTEXT_ENTRIES`` entries (the thesis used 64 MB) that
holds the value that followed them (a tagged, direct-mapped table). For loads, ``predicted``
also gives how much of the redundant (reusable) loads each predictor predicts, per h.
"""
from __future__ import annotations

from array import array

from pylogic.interp.observe import Observer
from pylogic.ir.model import (Alloca, BinOp, Call, Cmp, Input, Load, Mov, PredDefine, Ret,
                              Select, Store, UnOp)

#: History depths simulated (PathFinder §8.2: h = 1..4).
DEPTHS = (1, 2, 3, 4)
#: Aliasing scenarios, from no kills to the most kills (§8.3).
SCENARIOS = ("ideal", "calls", "stores_but_globals", "all_stores")
VARIANTS = ("whole", "intra", "activation")
SOURCES = ("any", "loads", "stores")
PREDICTORS = ("last_value", "stride", "context")
#: Entries of the context predictor's shared table (bounded; a power of two).
CONTEXT_ENTRIES = 1 << 16
_MASK64 = (1 << 64) - 1
_SIGN = 1 << 63
_SEG = 32  # docs/pir.md: address = segment id << 32 | offset (interp/memory.py)
_OFF = (1 << _SEG) - 1
_KIND = {Load: "loads", BinOp: "computations", UnOp: "computations", Cmp: "computations",
         Select: "computations", Mov: "moves", PredDefine: "predicate_defines", Call: "calls",
         Ret: "returns", Alloca: "other", Input: "other"}


_MISSES = (False, False, False)


def _ignore(*_) -> None:
    pass


def check_depth(h) -> int:
    """``h`` as a history depth (1..4), else ValueError saying why."""
    try:
        value = int(h)
    except (TypeError, ValueError):
        raise ValueError(f"history depth '{h}' is not an integer (1 to {DEPTHS[-1]})") from None
    if value not in DEPTHS:
        raise ValueError(f"history depth {value} is outside 1 to {DEPTHS[-1]} "
                         f"(PathFinder §8.2 simulates h = 1..4)")
    return value


class ReuseObserver(Observer):
    """Simulates load reuse (all h, scenarios, variants at once) and value prediction."""

    def __init__(self, values: bool = True):
        super().__init__()
        self.values_on = values
        self.t = 0  # event clock
        self.kills = [-1, -1, -1]  # last kill time: calls, stores_but_globals, all_stores
        self.written: dict = {}  # segment -> array of last-write times per byte
        self.holders: dict = {}  # location key -> {sid: (time, sequence number, activation)}
        self.frames = [0]  # activations on the call stack
        self.activations = 0
        self.ring: list = []  # sid -> its last 4 location keys (seq % 4)
        self.accesses: list = []  # sid -> accesses so far
        self.function: list = []  # sid -> function name
        self.is_store: list = []
        self.loads = 0
        # counts[((h-1)*3 + variant)*3 + source][level]: level = scenarios the reuse survives
        self.counts = [[0] * 5 for _ in range(len(DEPTHS) * len(VARIANTS) * 3)]
        self.covered = [0] * len(DEPTHS)  # register pressure: covered event-time per h
        self.cover_end = [dict() for _ in DEPTHS]  # per h: location -> end of its interval
        # values
        self.kind: list = []  # sid -> kind name
        self.last: list = []
        self.stride: list = []  # sid -> [stride1, stride2]
        self.context: list = []  # sid -> (value before last) for the order-2 context
        self.ctx_tag = [None] * CONTEXT_ENTRIES
        self.ctx_value = [0] * CONTEXT_ENTRIES
        self.by_kind: dict = {}  # kind -> [executed, same_as_previous, stride, context]
        self.rows: list = []  # sid -> its kind's row of by_kind (once it has one)
        self.load_hits = [0, 0, 0]  # loads predicted: last value, stride, context
        self.reuse_hits = [[0, 0, 0] for _ in DEPTHS]  # redundant (ideal, whole) and predicted

    def attach(self, machine) -> dict:
        names = super().attach(machine)
        if not self.values_on:  # no value predictors: values are not even reported
            names["OV"] = _ignore
        return names

    # ------------------------------------------------------------ static instructions

    def register(self, function: str, pc: int, ins) -> int:
        sid = super().register(function, pc, ins)
        self.function.append(function)
        self.is_store.append(isinstance(ins, Store))
        self.ring.append([None] * 4)
        self.accesses.append(0)
        self.kind.append(_KIND.get(type(ins), "other"))
        self.rows.append(None)
        self.last.append(None)
        self.stride.append([0, 0])
        self.context.append(None)
        return sid

    # ------------------------------------------------------------ memory events

    def _record(self, sid: int, key: int, t: int) -> None:
        """``sid`` accessed location ``key`` at ``t``: into its history, the oldest entry out."""
        seq = self.accesses[sid]
        self.accesses[sid] = seq + 1
        ring = self.ring[sid]
        old = ring[seq & 3]
        if old is not None:
            hs = self.holders[old]
            entry = hs.get(sid)
            if entry is not None and entry[1] == seq - 4:  # its last access of ``old`` leaves
                del hs[sid]
                if not hs:
                    del self.holders[old]
        ring[seq & 3] = key
        hs = self.holders.get(key)
        if hs is None:
            self.holders[key] = {sid: (t, seq, self.frames[-1])}
        else:
            hs[sid] = (t, seq, self.frames[-1])

    def _stamp(self, addr: int, size: int, t: int) -> None:
        seg = addr >> _SEG
        times = self.written.get(seg)
        if times is None:
            n = (addr & _OFF) + size
            times = self.written[seg] = array("q", [-1]) * max(n, 8)
        off = addr & _OFF
        if off + size > len(times):
            times.extend(array("q", [-1]) * (off + size - len(times)))
        times[off:off + size] = array("q", [t]) * size

    def store(self, sid: int, addr: int, size: int) -> None:
        t = self.t = self.t + 1
        self._stamp(addr, size, t)
        kills = self.kills
        kills[2] = t
        if addr >> _SEG > self.globals:
            kills[1] = t
        self._record(sid, addr << 6 | size if size < 64 else (addr, size), t)

    def write(self, addr: int, size: int) -> None:
        self.t += 1
        self._stamp(addr, size, self.t)

    def release(self, segment: int) -> None:
        self.written.pop(segment, None)

    def call(self, enter: int, sid: int) -> None:
        t = self.t = self.t + 1
        self.kills[0] = self.kills[1] = self.kills[2] = t
        if enter:
            self.activations += 1
            self.frames.append(self.activations)

    def ret(self, sid: int, value: int) -> None:
        self.call(0, sid)
        if len(self.frames) > 1:
            self.frames.pop()
        if self.values_on:
            self.value(sid, value)

    def load(self, sid: int, addr: int, size: int, value: int) -> None:
        t = self.t = self.t + 1
        self.loads += 1
        key = addr << 6 | size if size < 64 else (addr, size)
        hs = self.holders.get(key)
        reused = False
        if hs:
            times = self.written.get(addr >> _SEG)
            off = addr & _OFF
            base = max(times[off:off + size]) if times is not None and off < len(times) else -1
            fn = self.function[sid]
            act = self.frames[-1]
            # best fresh source time per h: load, store for whole, intra, activation
            best = [[-1, -1, -1, -1, -1, -1] for _ in DEPTHS]
            accesses, is_store, function = self.accesses, self.is_store, self.function
            for s, (ts, seq, sact) in hs.items():
                if ts < base:
                    continue
                age = accesses[s] - seq  # 1: the source's latest access
                if age > 4:
                    continue
                cls = 1 if is_store[s] else 0
                same = function[s] == fn
                here = sact == act
                for h in range(age - 1, 4):
                    row = best[h]
                    if ts > row[cls]:
                        row[cls] = ts
                    if same and ts > row[cls + 2]:
                        row[cls + 2] = ts
                    if here and ts > row[cls + 4]:
                        row[cls + 4] = ts
            k0, k1, k2 = self.kills
            t1, t2, t3 = max(base, k0), max(base, k1), max(base, k2)
            counts = self.counts
            for h in range(4):
                row = best[h]
                if row[0] < 0 and row[1] < 0:
                    continue
                for variant in (0, 1, 2):
                    bl, bs = row[2 * variant], row[2 * variant + 1]
                    if bl < 0 and bs < 0:
                        break  # each variant's sources are among the one before's
                    ll = 0 if bl < 0 else 1 + (bl >= t1) + (bl >= t2) + (bl >= t3)
                    ls = 0 if bs < 0 else 1 + (bs >= t1) + (bs >= t2) + (bs >= t3)
                    i = (h * 3 + variant) * 3
                    counts[i][ll if ll > ls else ls] += 1
                    counts[i + 1][ll] += 1
                    counts[i + 2][ls] += 1
                source = row[0] if row[0] > row[1] else row[1]
                ends = self.cover_end[h]  # register pressure: the location's interval
                end = ends.get(key, -1)
                self.covered[h] += t - (end if end > source else source)
                ends[key] = t
                reused = True
        self._record(sid, key, t)
        if self.values_on:
            hits = self.value(sid, value)
            lh = self.load_hits
            for p in range(3):
                if hits[p]:
                    lh[p] += 1
                    if reused:
                        for h in range(4):
                            if best[h][0] >= 0 or best[h][1] >= 0:
                                self.reuse_hits[h][p] += 1

    # ------------------------------------------------------------ values

    def value(self, sid: int, value: int) -> tuple:
        """Predict ``value`` by each predictor, then learn it; the three hits. The context
        table's tag is the context's hash (a 64-bit collision could fake a hit)."""
        row = self.rows[sid]
        if row is None:
            row = self.rows[sid] = self.by_kind.setdefault(self.kind[sid], [0, 0, 0, 0])
        row[0] += 1
        last = self.last[sid]
        self.last[sid] = value
        if last is None:
            return _MISSES
        stride = self.stride[sid]
        guess = last + stride[1]
        if not -_SIGN <= guess < _SIGN:
            guess = ((guess & _MASK64) ^ _SIGN) - _SIGN
        tag = hash((sid, self.context[sid], last))
        slot = tag & (CONTEXT_ENTRIES - 1)
        hits = (value == last, value == guess,
                self.ctx_tag[slot] == tag and self.ctx_value[slot] == value)
        self.ctx_tag[slot] = tag
        self.ctx_value[slot] = value
        self.context[sid] = last
        delta = value - last
        if delta == stride[0]:
            stride[1] = delta
        stride[0] = delta
        row[1] += hits[0]
        row[2] += hits[1]
        row[3] += hits[2]
        return hits

    # ------------------------------------------------------------ results

    def reuse(self, h: int, scenario: str = "ideal", variant: str = "whole") -> dict:
        """Executed loads and the redundant ones at depth ``h``: ``{"loads", "redundant",
        "from_loads", "from_stores"}``."""
        i = ((check_depth(h) - 1) * len(VARIANTS) + VARIANTS.index(variant)) * 3
        level = SCENARIOS.index(scenario) + 1
        out = {"loads": self.loads}
        for k, name in enumerate(("redundant", "from_loads", "from_stores")):
            out[name] = sum(self.counts[i + k][level:])
        return out

    def report(self, depths=DEPTHS) -> dict:
        """Everything as JSON-ready data (``pathlogic run --reuse``; ``benchmarks/limit.py``)."""
        out = {"loads": self.loads, "events": self.t, "reuse": {}, "register_pressure": {},
               "covered": {}, "predicted_reuse": {}}
        for h in depths:
            out["reuse"][str(h)] = {
                s: {v: self.reuse(h, s, v) for v in VARIANTS} for s in SCENARIOS}
            out["covered"][str(h)] = self.covered[h - 1]
            out["register_pressure"][str(h)] = round(self.covered[h - 1] / self.t, 4) \
                if self.t else 0.0
            if self.values_on:
                out["predicted_reuse"][str(h)] = dict(zip(PREDICTORS, self.reuse_hits[h - 1]))
        if self.values_on:
            out["loads_predicted"] = dict(zip(PREDICTORS, self.load_hits))
            out["values"] = {kind: {"executed": r[0], "same_as_previous": r[1],
                                    "stride": r[2], "context": r[3]}
                             for kind, r in sorted(self.by_kind.items())}
        return out


def merge(reports: list) -> dict:
    """Several runs' ``report``s as one (a program run on several cases): counts added up,
    register pressure the covered time over all events."""
    def add(a, b):
        if isinstance(a, dict):
            return {k: add(a[k], b[k]) if k in a and k in b else a.get(k, b.get(k))
                    for k in {**a, **b}}
        return a + b
    out = reports[0]
    for r in reports[1:]:
        out = add(out, r)
    out["register_pressure"] = {h: round(c / out["events"], 4) if out["events"] else 0.0
                                for h, c in out["covered"].items()}
    return out
