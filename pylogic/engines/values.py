"""The values of the duckdb engine (``duckdb_engine.py``, ``to_sql.py``, ``indexed.py``): every
column holds a 32-bit integer, as in Soufflé. A number is itself; an unsigned value is biased by
-2^31, as on clingo (``unsigned.py``: the checker rewrites the rules, this table the facts); a
symbol is its number in the run's symbol table; a record, ``nil`` or an ADT value is its number
in the run's record table, hash-consed (equal values, equal numbers), as Soufflé's record
table does. Records print as the clingo engine prints them (``clingo_engine.souffle_text``).

The functors are the clingo engine's own Python functions (``functors.Functors``), called on
clingo symbols built from these values: one definition of each functor for both embedded
engines (``call``)."""
from __future__ import annotations

import threading

import clingo

from pylogic.engines import floats, record_text
from pylogic.engines.functors import Functors, as_bytes, string_symbol, symbol_text
from pylogic.engines.semantics import _CALL_ARGS, _CALL_RESULT
from pylogic.engines.to_clingo import functor_name
from pylogic.engines.unsigned import from_clingo, to_clingo

#: Functors and operators computed by ``functors.Functors`` (the clingo engine calls the same),
#: with the kind of their arguments (the last repeats) and of their value. ``min``/``max`` of
#: symbols are ``smin``/``smax`` here (numbers: SQL's least/greatest, order kept by the bias);
#: ``<``/``<=``/``>``/``>=`` of symbols compare ``scmp`` (their texts' order) with 0.
_NUMERIC_OPS = ("^", "bshl", "bshr", "bshru", "land", "lor", "lxor", "lnot", "to_unsigned",
                "uadd", "usub", "umul", "udiv", "umod", "upower", "uband", "ubor", "ubxor",
                "ubshl", "ubshr", "uland", "ulor", "ulxor", "ubnot", "ulnot",
                # floats as keys (float_rules.py)
                "fadd", "fsub", "fmul", "fdiv", "fpower", "fneg", "fmin", "fmax", "feq", "fne",
                "flt", "fle", "fgt", "fge", "itof", "utof", "ftoi", "ftou", "utoi", "frange", "urange")
SIGNATURES: dict[str, tuple[tuple, str]] = {
    **{op: (("number",), "number") for op in _NUMERIC_OPS},
    **{name: (_CALL_ARGS[name], _CALL_RESULT[name]) for name in _CALL_ARGS},
    "contains": (("symbol",), "number"), "match": (("symbol",), "number"),
    "ftos": (("number",), "symbol"), "utos": (("number",), "symbol"),
    "stof": (("symbol",), "number"),
    # sum and mean of floats: the aggregate's location, then the group's keys (to_sql.py)
    "fsum": (("symbol", "number"), "number"), "fmean": (("symbol", "number"), "number"),
    "fextreme": (("symbol", "number"), "number"),
    "smin": (("symbol",), "symbol"), "smax": (("symbol",), "symbol"),
    # an ordering comparison of two symbols: -1, 0 or 1 (to_sql.py, indexed.py)
    "scmp": (("symbol",), "number")}
_METHOD = {"smin": "min", "smax": "max"}

RECORD, NIL = "[]", ("nil",)      # the record table's keys: ("[]", fields...), NIL, ("$B", ...)


class Values:
    """The run's symbol and record tables. Thread-safe: DuckDB may call the functors (which
    intern their results) from several threads."""

    def __init__(self, types=None):
        self.types = types               # semantics.TypeSystem: record fields, ADT branches
        self.number: dict[str, int] = {}
        self.names: list[str] = []
        self.record_number: dict[tuple, int] = {}
        self.records: list[tuple] = []
        self.lock = threading.Lock()
        self._calls: dict[str, object] = {}
        self._keys: dict | None = None   # symbol_keys, made on first use

    def __getstate__(self) -> dict:          # a compiled plan's constants, kept across processes
        return {k: v for k, v in self.__dict__.items() if k not in ("lock", "_calls", "_keys")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, lock=threading.Lock(), _calls={}, _keys=None)

    def symbol_keys(self) -> dict:
        """Symbol number -> its key in Soufflé's order of symbols (its bytes, as ``std::string``
        compares them: ``functors.Functors.sf_scmp``), made on first use."""
        if self._keys is None:
            self._keys = _SymbolKeys(self.names)
        return self._keys

    def copy(self) -> "Values":
        """A run's tables starting from these (the constants a compiled program holds keep
        their numbers: ``indexed.CompiledComponent``); the functors are made afresh."""
        out = Values(self.types)
        out.number, out.names = dict(self.number), list(self.names)
        out.record_number, out.records = dict(self.record_number), list(self.records)
        return out

    # -- the tables
    def intern(self, s: str) -> int:
        n = self.number.get(s)
        if n is None:
            with self.lock:
                n = self.number.get(s)
                if n is None:
                    n = self.number[s] = len(self.names)
                    self.names.append(s)
        return n

    def pack(self, key: tuple) -> int:
        """The number of the record (``(RECORD, fields...)``), ``NIL`` or ADT value
        (``("$Branch", fields...)``) ``key``; its fields are values (numbers)."""
        n = self.record_number.get(key)
        if n is None:
            with self.lock:
                n = self.record_number.get(key)
                if n is None:
                    n = self.record_number[key] = len(self.records)
                    self.records.append(key)
        return n

    def unpack(self, n: int, tag: str, arity: int) -> tuple | None:
        """The fields of record ``n`` if it has ``tag`` and ``arity`` (None: another branch,
        ``nil``): the test of a record pattern."""
        key = self.records[n]
        return key[1:] if key[0] == tag and len(key) == arity + 1 else None

    # -- facts in, rows out
    def encode(self, kinds: tuple, rows: list) -> list:
        """``rows`` of a facts file as stored: symbols interned, unsigned biased, enumeration
        ADT values (``$Mon``) packed."""
        convert = {i: None if k == "symbol" else to_clingo if k == "unsigned" else
                   floats.parse if k == "float" else
                   (lambda v, k=k: record_text.parse(v, k, self.types, self._leaf, self._node))
                   for i, k in enumerate(kinds) if k != "number"}
        if not convert or not rows:
            return rows
        columns = list(zip(*rows))
        number = self.number
        for i, fn in convert.items():
            if fn is None:          # a symbol column
                # the new symbols interned in order of first use, then every value looked up
                # in C (issue #28 item 1: a test and a lookup per value in Python were 5% of
                # icbe's engine calls on csmith)
                for v in [v for v in dict.fromkeys(columns[i]) if v not in number]:
                    self.intern(v)
                columns[i] = list(map(number.__getitem__, columns[i]))
                continue
            cache: dict = {}
            columns[i] = [cache[v] if v in cache else cache.setdefault(v, fn(v))
                          for v in columns[i]]
        return list(zip(*columns))

    def _leaf(self, kind: str, v):
        return self.intern(v) if kind == "symbol" else to_clingo(v) if kind == "unsigned" else v

    def _node(self, tag: str, children: tuple) -> int:
        return self.pack(NIL if tag == "nil" else (RECORD if tag == "[]" else tag, *children))

    def decode(self, kinds: tuple, rows: list) -> list:
        """Stored rows as the engines give them: symbols as text, unsigned values unbiased,
        records and ADT values as Soufflé prints them (``[1, [2, nil]]``, ``$B(1, x)``)."""
        cols = [i for i, k in enumerate(kinds) if k != "number"]
        if not cols or not rows:
            return rows
        columns = list(zip(*rows))
        for i in cols:
            columns[i] = list(map(self.names.__getitem__, columns[i])) if kinds[i] == "symbol" \
                else [self.value(v, kinds[i]) for v in columns[i]]
        return list(zip(*columns))

    def value(self, v: int, kind: str):
        """The value stored as ``v`` in a column of ``kind``, as the clingo engine gives it."""
        if kind == "number":
            return v
        if kind == "unsigned":
            return from_clingo(v)
        if kind == "symbol":
            return self.names[v]
        return self.text(v, kind)     # floats, records and ADT values: as Soufflé prints them

    def text(self, v: int, kind: str) -> str:
        if kind == "number":
            return str(v)
        if kind == "unsigned":
            return str(from_clingo(v))
        if kind == "float":
            return floats.text(v)
        if kind == "symbol":
            return self.names[v]
        key = self.records[v]
        if key == NIL:
            return "nil"
        if key[0] == RECORD:
            fields = self.types.record_fields(kind)
            return "[" + ", ".join(self.text(x, self.types.kind(f, None))
                                   for x, f in zip(key[1:], fields)) + "]"
        fields = self.types.branches[key[0][1:]][1]
        args = ", ".join(self.text(x, self.types.kind(f, None)) for x, f in zip(key[1:], fields))
        return key[0] + (f"({args})" if fields else "")

    # -- functors
    def call(self, name: str):
        """The functor or operator ``name`` (``SIGNATURES``) as a function of one list of stored
        values, giving a stored value, a list of them (``range``) or None (an argument is
        undefined, NULL in SQL)."""
        fn = self._calls.get(name)
        if fn is None:
            fn = self._calls[name] = self._make(name)
        return fn

    def _make(self, name: str):
        method = getattr(Functors(), functor_name(_METHOD.get(name, name)))
        kinds, result = SIGNATURES[name]
        names, intern = self.names, self.intern
        String, Number = string_symbol, clingo.Number    # Soufflé's strings are bytes
        string_type = clingo.SymbolType.String

        def out(sym):
            return intern(symbol_text(sym)) if sym.type == string_type else sym.number

        def fn(args):
            if None in args:
                return None
            syms = [String(names[a]) if (kinds[i] if i < len(kinds) else kinds[-1]) == "symbol"
                    else Number(a) for i, a in enumerate(args)]
            value = method(*syms)
            if isinstance(value, list):
                return [out(s) for s in value]
            return out(value)

        return fn


class _SymbolKeys(dict):
    """Symbol number -> ``as_bytes`` of its text (``Values.symbol_keys``)."""

    def __init__(self, names: list):
        super().__init__()
        self.names = names

    def __missing__(self, n: int) -> bytes:
        key = self[n] = as_bytes(self.names[n])
        return key


def udf(name: str) -> str:
    """The SQL name of functor ``name``'s function (``Values.call``, registered by the engine)."""
    return "pl_" + {"^": "power"}.get(name, name)
