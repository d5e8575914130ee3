"""The embedded engine: a CheckedProgram translated to clingo (``to_clingo.py``), input facts added
through clingo's C backend (``_backend_feeder``; faster than text through ``Control.add``, which
is faster than the public backend API, DESIGN.md), one ground + solve,
the asked relations read from the unique answer set's atoms. Registered as "clingo"."""
from __future__ import annotations

import atexit
import ctypes
import re
import weakref
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from pathlib import Path

from pylogic.engines import floats, record_text
from pylogic.engines.base import register
from pylogic.engines.clingo_cache import translation
from pylogic.engines.dialect import body_atoms
from pylogic.engines.functors import Functors, as_bytes, from_bytes, refusal, symbol_text
from pylogic.engines.program import CheckedProgram
from pylogic.engines.record_text import is_structured
from pylogic.engines.relevance import input_selections, live_relations, needed_relations
from pylogic.engines.rows import sort_rows
from pylogic.engines.semantics import derived
from pylogic.engines.run import load_inputs
from pylogic.engines.stages import plan_stages
from pylogic.engines.to_clingo import pred_name, program_text, quote, translated_rules
from pylogic.engines.unsigned import from_clingo, to_clingo
from pylogic.errors import DatalogError, SourceLoc

try:
    import clingo
    import clingo.ast
except ImportError:  # a broken install: the engine reports itself unavailable
    clingo = None
try:  # clingo's C API through cffi: a much faster model reader (see _raw_model_reader)
    from clingo._internal import _ffi, _lib
except ImportError:
    _ffi = _lib = None

# a shown atom's arguments: strings (with escapes) or integers
_ARG = re.compile(r'"((?:[^"\\]|\\.)*)"|(-?\d+)')
_UNESCAPE = re.compile(r"\\(.)")


def _plain_quote(s: str) -> str:
    return '"' + s + '"'


def _quoter(column: list):
    """``quote``, or a cheaper function when no value of the column needs escaping."""
    joined = "".join(column)
    return quote if ("\\" in joined or '"' in joined or "\n" in joined) else _plain_quote


def _enum(value: str) -> str:
    """An enumeration ADT value of a facts file (``$Mon``) as its clingo constant."""
    return "adt_" + value[1:]


def _leaf(kind: str, v) -> str:
    return quote(v) if kind == "symbol" else str(to_clingo(v) if kind == "unsigned" else v)


def _node(tag: str, children: tuple) -> str:
    """A record, ``nil`` or an ADT value as ``to_clingo.term`` writes it."""
    if tag == "nil":
        return "nil"
    inner = ",".join(children)
    if tag == "[]":
        return f"({inner},)" if len(children) == 1 else f"({inner})"
    return "adt_" + tag[1:] + (f"({inner})" if children else "")


def facts_text(pred: str, kinds: tuple, rows, types=None) -> str:
    """clingo facts for ``rows`` of a relation whose columns have ``kinds`` (records and ADT
    values read as Soufflé does with the program's ``types``: ``record_text.py``)."""
    if not kinds:
        return f"{pred}.\n" if rows else ""
    conv = [str if k in ("number", "unsigned", "float") else
            (lambda v, k=k: record_text.parse(v, k, types, _leaf, _node))
            if types is not None and is_structured(k) else _enum if k.startswith("adt:") else
            _quoter([r[i] for r in rows]) for i, k in enumerate(kinds)]
    if len(conv) == 1:
        c = conv[0]
        return "".join([f"{pred}({c(r[0])}).\n" for r in rows])
    if len(conv) == 2:
        c0, c1 = conv
        return "".join([f"{pred}({c0(r[0])},{c1(r[1])}).\n" for r in rows])
    if len(conv) == 3:
        c0, c1, c2 = conv
        return "".join([f"{pred}({c0(r[0])},{c1(r[1])},{c2(r[2])}).\n" for r in rows])
    return "".join([f"{pred}({','.join(c(v) for c, v in zip(conv, r))}).\n" for r in rows])


def _decode(text: str, kinds: tuple) -> tuple:
    out = []
    for m, k in zip(_ARG.finditer(text, text.index("(")), kinds):
        s, n = m.group(1), m.group(2)
        if k in ("number", "unsigned", "float"):
            out.append(int(n))
        else:
            out.append(_UNESCAPE.sub(lambda e: "\n" if e.group(1) == "n" else e.group(1), s)
                       if "\\" in s else s)
    return tuple(out)


def souffle_text(sym, kind: str | None = None, types=None) -> str:
    """A record value as Soufflé prints it: ``[1, [2, nil]]`` (clingo tuples; ``nil``); with
    the value's ``kind`` and the program's ``types``, its float fields as Soufflé prints them."""
    if sym.type == clingo.SymbolType.Number:
        return floats.text(sym.number) if kind == "float" else \
            str(from_clingo(sym.number)) if kind == "unsigned" else str(sym.number)
    if sym.type == clingo.SymbolType.String:
        return symbol_text(sym)
    fields = ()
    if types is not None and kind and sym.name == "" and kind.startswith("record:"):
        fields = types.record_fields(kind) or ()
    elif types is not None and sym.name.startswith("adt_") and sym.name[4:] in types.branches:
        fields = types.branches[sym.name[4:]][1]
    kinds = [types.kind(f, None) for f in fields] if fields else [None] * len(sym.arguments)
    args = ", ".join(souffle_text(a, k, types) for a, k in zip(sym.arguments, kinds))
    if sym.name == "":
        return "[" + args + "]"
    if sym.name.startswith("adt_"):     # $Branch or $Branch(a, b)
        return "$" + sym.name[4:] + (f"({args})" if sym.arguments else "")
    return sym.name


def _read_model_records(model, by_pred: dict, result: dict, kinds_of: dict, types) -> None:
    """The public reader for relations with record columns (their values as Soufflé text)."""
    for sym in model.symbols(atoms=True):
        rel = by_pred.get((sym.name, len(sym.arguments)))
        if rel is not None:
            result[rel].append(tuple(a.number if k in ("number", "unsigned", "float") else
                                     symbol_text(a) if k == "symbol"
                                     else souffle_text(a, k, types)
                                     for a, k in zip(sym.arguments, kinds_of[rel])))


def _read_model_public(model, by_pred: dict, result: dict, kinds_of: dict) -> None:
    for sym in model.symbols(atoms=True):
        rel = by_pred.get((sym.name, len(sym.arguments)))
        if rel is not None:
            kinds = kinds_of[rel]
            result[rel].append(_decode(str(sym), kinds) if kinds else ())


def _raw_model_reader():
    """A model reader over clingo's C API (cffi), much faster than the public Symbol API, which
    matters at 10^5-10^6 output tuples. The model's atoms come predicate by predicate (clingo's
    ``Translator::atoms`` walks the predicate domains, one per signature), so each relation is
    one run of the array, found by binary search on the signature, and within a run the arity
    is known. Argument symbols repeat heavily (function ids, labels), so each distinct symbol is
    decoded once (``_Values``, keyed by clingo's symbol handle). Two steps: ``read(model,
    by_pred)`` copies the shown relations' atom handles out of the model (8 bytes an atom) and
    returns ``decode(result)``, which builds the rows; clingo's symbols live in a table of the
    process, not of the Control, so the Control can be freed in between (``run_clingo``). None
    if clingo's internals differ (then the public API is used)."""
    if _lib is None:
        return None
    try:
        f_size, f_syms = _lib.clingo_model_symbols_size, _lib.clingo_model_symbols
        args_of, name_of = _lib.clingo_symbol_arguments, _lib.clingo_symbol_name
        number_of, string_of = _lib.clingo_symbol_number, _lib.clingo_symbol_string
        type_of = _lib.clingo_symbol_type
        sym_number = _lib.clingo_symbol_type_number
        atoms = _lib.clingo_show_type_atoms
        to_bytes, unpack = _ffi.string, _ffi.unpack
    except AttributeError:
        return None

    p_args, p_size = _ffi.new("clingo_symbol_t**"), _ffi.new("size_t*")
    p_num, p_str = _ffi.new("int*"), _ffi.new("char**")

    class _Values(dict):
        """clingo symbol handle -> its Python value (int, or str: Soufflé strings are bytes)."""

        def __missing__(self, sym):
            if type_of(sym) == sym_number:
                number_of(sym, p_num)
                v = p_num[0]
            else:
                string_of(sym, p_str)
                v = from_bytes(to_bytes(p_str[0]))
            self[sym] = v
            return v

    def signature(sym) -> tuple:
        name_of(sym, p_str)
        args_of(sym, p_args, p_size)
        return to_bytes(p_str[0]), p_size[0]

    def runs(syms, n: int):
        """(signature, start, end) of each run of one signature in ``syms[:n]``."""
        start = 0
        while start < n:
            sig = signature(syms[start])
            lo, step = start, 1          # syms[lo] has sig; gallop, then bisect
            while lo + step < n and signature(syms[lo + step]) == sig:
                lo += step
                step *= 2
            hi = min(lo + step, n)       # first index known (or assumed, n) not to have sig
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if signature(syms[mid]) == sig:
                    lo = mid
                else:
                    hi = mid
            yield sig, start, hi
            start = hi

    def read(model, by_pred: dict, bound: int):
        """``bound``: at least the model's atoms (the Control's symbolic atoms), so the buffer
        is filled by one call, its unused tail left 0 (``#inf``, never an atom), and the
        handles are kept in it, not copied per relation. Asking clingo for the size first
        makes it build the model's atom vector once more (cfg_analyses.dl, structured 33,251
        blocks, 768,253 atoms: the call's peak growth 230.6 -> 222.7 MB; docs/measurements.md,
        clg50)."""
        syms = _ffi.new("clingo_symbol_t[]", bound)
        if not f_syms(model._rep, atoms, syms, bound):     # not a bound after all: ask
            p_n = _ffi.new("size_t*")
            if not f_size(model._rep, atoms, p_n):
                raise DatalogError("clingo: cannot read the model")
            bound = p_n[0]
            syms = _ffi.new("clingo_symbol_t[]", bound)
            if not f_syms(model._rep, atoms, syms, bound):
                raise DatalogError("clingo: cannot read the model")
        lo, hi = 0, bound            # syms[:lo] atoms, syms[hi:] 0: the atoms' count
        while lo < hi:
            mid = (lo + hi) // 2
            if syms[mid]:
                lo = mid + 1
            else:
                hi = mid
        keys = {(name.encode(), arity): rel for (name, arity), rel in by_pred.items()}
        taken = []          # (relation, arity, its atoms' handles: a slice of syms)
        for (name, arity), start, end in runs(syms, lo):
            rel = keys.get((name, arity))
            if rel is not None:     # not an input or helper relation
                taken.append((rel, arity, syms + start, end - start))
        shown = sum(n for *_, n in taken)
        if 2 * shown < lo:      # mostly helpers: keep the shown runs only (a stage's buffer
            kept = _ffi.new("clingo_symbol_t[]", shown)     # lives while later ones ground)
            at, moved = 0, []
            for rel, arity, run, n in taken:
                _ffi.memmove(kept + at, run, n * _ffi.sizeof("clingo_symbol_t"))
                moved.append((rel, arity, kept + at, n))
                at += n
            syms, taken = kept, moved
        return lambda result: decode(syms, taken, result)

    values = _Values()      # one per reader: the stages of a call share their values

    def decode(_syms, taken: list, result: dict) -> None:
        """``_syms``: the buffer that ``taken``'s slices point into, alive until here."""

        def rows_of(run, arity: int) -> list:
            """The decoded rows of ``run``, atoms of one signature of ``arity`` > 0: one C call
            per atom for its arguments, unpacked at once (measured on 612,000 pairs: 0.89 ->
            0.62 s against a function called per atom that indexes the argument array)."""
            out = []
            append = out.append
            if arity == 1:
                for sym in run:
                    args_of(sym, p_args, p_size)
                    append((values[p_args[0][0]],))
            elif arity == 2:
                for sym in run:
                    args_of(sym, p_args, p_size)
                    a, b = unpack(p_args[0], 2)
                    append((values[a], values[b]))
            elif arity == 3:
                for sym in run:
                    args_of(sym, p_args, p_size)
                    a, b, c = unpack(p_args[0], 3)
                    append((values[a], values[b], values[c]))
            else:
                for sym in run:
                    args_of(sym, p_args, p_size)
                    append(tuple([values[x] for x in unpack(p_args[0], arity)]))
            return out

        for rel, arity, run, n in taken:
            if not arity:
                result[rel].append(())
                continue
            result[rel].extend(rows_of(unpack(run, n), arity))

    def facts(ctl, by_pred: dict):
        """Without solving: the ``by_pred`` relations' atoms of ``ctl``'s grounding, each a
        fact (a stratified program's grounding decides every atom), as ``read`` gives them; or
        None if one is not a fact. No answer is built: on the last stage of a call
        (``run_clingo``), where the model's atom vector was the call's peak."""
        try:
            atoms_of, signature_of = _lib.clingo_control_symbolic_atoms, _lib.clingo_signature_create
            begin, valid = _lib.clingo_symbolic_atoms_begin, _lib.clingo_symbolic_atoms_is_valid
            symbol, is_fact = _lib.clingo_symbolic_atoms_symbol, _lib.clingo_symbolic_atoms_is_fact
            step = _lib.clingo_symbolic_atoms_next
        except AttributeError:
            return None
        p_sa = _ffi.new("clingo_symbolic_atoms_t**")
        if not atoms_of(ctl._rep, p_sa):
            return None
        sa = p_sa[0]
        p_sig, p_it = _ffi.new("clingo_signature_t*"), _ffi.new("clingo_symbolic_atom_iterator_t*")
        p_ok, p_sym = _ffi.new("bool*"), _ffi.new("clingo_symbol_t*")
        taken = []
        for (name, arity), rel in by_pred.items():
            if not (signature_of(name.encode(), arity, True, p_sig) and begin(sa, p_sig, p_it)):
                return None
            it, handles = p_it[0], []
            while valid(sa, it, p_ok) and p_ok[0]:
                if not (is_fact(sa, it, p_ok) and p_ok[0] and symbol(sa, it, p_sym)):
                    return None
                handles.append(p_sym[0])
                step(sa, it, p_it)
                it = p_it[0]
            if handles:         # (decode reads a nullary relation's run as its one row)
                taken.append((rel, arity, _ffi.new("clingo_symbol_t[]", handles), len(handles)))
        return lambda result: decode(None, taken, result)

    read.facts = facts
    return read


def _backend_feeder():
    """A function adding input rows as facts through clingo's backend (C API, cffi): per fact
    one function symbol, one atom, one rule with an empty body, each distinct value's symbol
    made once. The grounder takes such atoms as facts, as parsed ones (a fact of the backend is
    ``is_fact``, rules over it are simplified and negation over it decided while grounding).
    Measured on 30,000-block CFGs (178,000 input facts): text built and parsed 0.52 s, the
    backend 0.2 s. Relations with record or ADT columns stay text (``facts_text``). None if
    clingo's internals differ (then every relation is text)."""
    if _lib is None:
        return None
    try:
        mk_number, mk_string = _lib.clingo_symbol_create_number, _lib.clingo_symbol_create_string
        mk_function = _lib.clingo_symbol_create_function
        add_atom, add_rule = _lib.clingo_backend_add_atom, _lib.clingo_backend_rule
        null = _ffi.NULL
    except AttributeError:
        return None

    def feed(ctl, relations: list, loc: SourceLoc, made: dict | None = None) -> None:
        """``relations``: (relation, clingo predicate, arity, rows of ints and strs).
        ``made``: relation -> its facts' symbols (a cffi array), filled here for a relation
        not in it, read for one in it: the stages of one call (``run_clingo``) feed an input
        relation again without making its symbols again (chain 30,000 blocks, the second
        stage's 60,000 facts: its feeding phase 0.095 -> 0.030 s; docs/measurements.md, clg50)."""
        p_sym, p_atom = _ffi.new("clingo_symbol_t*"), _ffi.new("clingo_atom_t*")

        class Symbols(dict):
            """A Python value -> its clingo symbol handle."""

            def __missing__(self, v):
                if isinstance(v, int):
                    mk_number(v, p_sym)
                else:
                    data = as_bytes(v)
                    if b"\0" in data:      # a C string: clingo would cut it there
                        raise ValueError(v)
                    if not mk_string(data, p_sym):
                        raise RuntimeError(_ffi.string(_lib.clingo_error_message()).decode())
                h = self[v] = p_sym[0]
                return h

        symbols = Symbols()
        with ctl.backend() as backend:
            rep = backend._rep
            for rel, pred, arity, rows in relations:
                if made is not None and rel in made:
                    facts = made[rel]
                    for at in range(len(rows)):
                        if not (add_atom(rep, facts + at, p_atom) and
                                add_rule(rep, False, p_atom, 1, null, 0)):
                            raise RuntimeError(_ffi.string(_lib.clingo_error_message()).decode())
                    continue
                name = pred.encode()
                # every row's argument symbols in one array, a row at each ``arity``-th slot
                # (measured: 126,000 3-column rows 0.25 s filling a row array each, 0.17 s)
                try:
                    args = _ffi.new("clingo_symbol_t[]",
                                    list(map(symbols.__getitem__, chain.from_iterable(rows))))
                except ValueError as exc:
                    raise DatalogError(f"{rel}: the clingo engine cannot hold a NUL character "
                                       f"in a symbol: {exc.args[0]!r}", loc) from None
                if made is None:
                    for at in range(0, arity * len(rows), arity) if arity else [0] * len(rows):
                        if not (mk_function(name, args + at, arity, True, p_sym) and
                                add_atom(rep, p_sym, p_atom) and
                                add_rule(rep, False, p_atom, 1, null, 0)):
                            raise RuntimeError(_ffi.string(_lib.clingo_error_message()).decode())
                    continue
                facts = made[rel] = _ffi.new("clingo_symbol_t[]", len(rows))
                for k, at in enumerate(range(0, arity * len(rows), arity) if arity
                                       else [0] * len(rows)):
                    fact = facts + k
                    if not (mk_function(name, args + at, arity, True, fact) and
                            add_atom(rep, fact, p_atom) and
                            add_rule(rep, False, p_atom, 1, null, 0)):
                        raise RuntimeError(_ffi.string(_lib.clingo_error_message()).decode())

    return feed


def _selected(rows: list, patterns: tuple) -> list:
    """The rows matching one of ``patterns`` (``relevance.input_selections``); a pattern's
    columns are read by one ``itemgetter`` (dce.dl's ``operand`` pattern has two columns: per
    row a generator of ``all`` cost 1.9 ms on csmith-44's 4,456 rows)."""
    tests = [(itemgetter(*(k for k, _ in p)), p[0][1] if len(p) == 1 else tuple(v for _, v in p))
             for p in patterns]
    if len(tests) == 1:
        ((get, want),) = tests
        return [r for r in rows if get(r) == want]
    return [r for r in rows if any(get(r) == want for get, want in tests)]


def _biased(rows, kinds: tuple, shift, float_shift=None) -> list:
    """``rows`` with the unsigned columns moved to or from clingo's biased form (and the float
    columns by ``float_shift``: text to key, ``floats.parse``, or back, ``floats.text``)."""
    cols = [(i, shift) for i, k in enumerate(kinds) if k == "unsigned"]
    cols += [(i, float_shift) for i, k in enumerate(kinds) if k == "float" and float_shift]
    if not cols:
        return rows
    out = []
    for row in rows:
        row = list(row)
        for i, fn in cols:
            row[i] = fn(row[i])
        out.append(tuple(row))
    return out


def _by_signature(checked: CheckedProgram, shown: list[str]) -> dict:
    """``(clingo predicate, arity)`` -> relation, of the ``shown`` relations: how their atoms are
    found in a model or a grounding."""
    return {(pred_name(r), checked.relations[r].arity): r for r in shown}


def _structured(checked: CheckedProgram, shown: list[str]) -> bool:
    """Some ``shown`` relation has a record or ADT column: its rows are read through clingo's
    public API (``_read_model_records``), not the raw reader, which decodes numbers and
    strings only."""
    return any(is_structured(k) for r in shown for k in checked.relations[r].kinds)


def _read_answer(ctl, checked: CheckedProgram, shown: list[str], result: dict, atoms: int,
                 reader=None):
    """Solve; the unique answer set's atoms of the ``shown`` relations: rows appended to
    ``result`` now, or (the raw reader) a function appending them later, which needs neither the
    model nor ``ctl`` (returned; a no-op for the public readers). ``atoms``: the Control's
    symbolic atoms, at least the answer's; ``reader``: a ``_raw_model_reader()`` to use."""
    by_pred = _by_signature(checked, shown)
    kinds_of = {r: checked.relations[r].kinds for r in shown}
    records = _structured(checked, shown)
    raw = None if records else reader or _raw_model_reader()
    decode, models = (lambda _result: None), 0
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            models += 1
            if models > 1:
                raise DatalogError("program has several answer sets (not stratified?)",
                                   SourceLoc(checked.main_file))
            if records:
                _read_model_records(model, by_pred, result, kinds_of, checked.types)
            elif raw is None:
                _read_model_public(model, by_pred, result, kinds_of)
            else:
                decode = raw(model, by_pred, atoms)
    if models == 0:
        raise DatalogError("clingo found no answer set (internal error)", SourceLoc(checked.main_file))
    return decode


def _return_freed_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere
    nothing): a freed Control's memory otherwise stays resident, and Python's small objects
    (the rows built next) come from arenas of their own, not from it. Measured on
    ``cfg_analyses.dl``, structured 33,251 blocks: 296 MB resident over the start after the
    Control's deletion, 126 MB after the trim (clingo's symbols stay), the rows then +32 MB;
    the peak growth of the call, in process, 323 -> 305 MB (docs/measurements.md, mem39)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@lru_cache(maxsize=1)
def _malloc_trim():
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):       # not glibc
        return None


#: the ground atoms from which a freed Control's memory is given back to the system: below, the
#: trim costs more than it returns (pde on csmith-32: 1.5 ms a call, for rows of a few MB); a
#: stage's always (its call's rows are decoded after it: chain 30,000, a last stage of 90,004
#: atoms, peak 54.4 -> 45.0 MB; mem52 in docs/measurements.md)
TRIM_ATOMS = 100_000


def _add_rules(ctl, checked: CheckedProgram, needed: set, shown: list, live: frozenset) -> None:
    """The translated rules of ``checked`` (those of ``needed`` relations that can fire with the
    ``live`` relations) into ``ctl``: parsed once per program and relation sets (``clingo.ast``;
    a line an earlier set of the program had is not parsed again, ``_parsed``), then added as
    syntax trees, which skips clingo's parser on every later call
    (predicated_deadness.dl: 3.4 ms to parse, 0.6 ms to add the trees); the text of a shipped
    program is kept across processes too (``clingo_cache``). A text clingo's parser
    rejects is added as text, so that its error is reported as before."""
    key = (frozenset(needed), frozenset(shown), live)
    text = derived(checked, ("clingo",) + key, lambda: translation(checked, needed, shown, live))
    _add_statements(ctl, text, derived(checked, ("clingo-ast",) + key, lambda: _parsed(
        text, derived(checked, "clingo-lines", dict))))


def _add_statements(ctl, text: str, statements: list | None) -> None:
    """``statements`` (``_parsed(text)``) into ``ctl``, or ``text`` if they are None."""
    if statements is None:
        ctl.add("base", [], text)
        return
    with clingo.ast.ProgramBuilder(ctl) as builder:
        for statement in statements:
            builder.add(statement)


class _Statements(list):
    """Parsed statements, released at exit (``_release_statements``): a syntax tree freed after
    clingo's library has been torn down prints an error at exit. Compared by identity."""

    __eq__ = object.__eq__
    __hash__ = object.__hash__


_LIVE_STATEMENTS: "weakref.WeakSet[_Statements]" = weakref.WeakSet()


@atexit.register
def _release_statements() -> None:
    for statements in list(_LIVE_STATEMENTS):
        statements.clear()


def _parsed(text: str, lines: dict | None = None) -> list | None:
    """``text``'s statements as clingo syntax trees (``#program base.`` first), or None if the
    parser rejects it (messages dropped here: ``Control.add`` reports them). ``lines``: the
    trees of the lines of texts parsed before (``_lines_parsed``), so that only the lines not
    met yet are parsed; a translation is a rule a line (``program_text``), and most rules of a
    program's relation sets are alike (issue #28 item 1: the #28 harness's children met
    correlation.dl's relation sets of csmith first, 183-243 lines of which 50-77 were not in
    the sets the examples' warm-up parsed; parsing costs about 22 us a line)."""
    if lines:
        statements = _lines_parsed(text, lines)
        if statements is not None:
            return statements
    statements = _Statements()
    try:
        clingo.ast.parse_string(text, statements.append, logger=_quiet)
    except RuntimeError:
        return None
    _LIVE_STATEMENTS.add(statements)
    if lines is not None and not lines:     # the program's first text: its lines found later
        lines[_UNSPLIT] = (text, statements)
    return statements


def _quiet(_code, _message) -> None:
    """A logger dropping clingo's messages (``Control.add`` reports them)."""


#: ``_lines_parsed``'s key of the first text parsed whole (its lines not found yet: a program
#: translated for one relation set alone, a process's usual case, pays nothing for them)
_UNSPLIT = ("unsplit",)


def _lines_parsed(text: str, lines: dict) -> list | None:
    """``_parsed(text)`` assembled from the trees of ``text``'s lines, or None if a line is
    rejected, a statement spans lines or a line has none. ``lines``: line -> its statements but
    ``#program base.``, which is under None, and a first text parsed whole under ``_UNSPLIT``;
    completed here, the lines not met yet parsed together, each statement given to the line it
    begins and ends on (clingo's locations, 4 us a statement). The trees differ from the whole
    text's in their locations only."""
    if _UNSPLIT in lines:
        first, statements = lines.pop(_UNSPLIT)
        if not _split(first.split("\n"), statements, lines):
            return None
    order = text.split("\n")
    missing = list(dict.fromkeys(line for line in order if line and line not in lines))
    if missing:
        got = _Statements()
        try:
            clingo.ast.parse_string("\n".join(missing), got.append, logger=_quiet)
        except RuntimeError:
            return None
        if not _split(missing, got, lines):
            return None
    statements = _Statements(lines[None])
    for line in order:
        if line:
            statements.extend(lines[line])
    _LIVE_STATEMENTS.add(statements)
    return statements


def _split(text_lines: list, statements: list, lines: dict) -> bool:
    """Record in ``lines`` the ``statements`` of the text of ``text_lines`` (``#program base.``
    first) per line; False, recording nothing, if a statement spans lines or a non-blank line
    has none."""
    found: dict = {}
    for statement in statements[1:]:
        where = statement.location
        if where.begin.line != where.end.line:
            return False
        found.setdefault(where.begin.line, _Statements()).append(statement)
    if any(line and k not in found for k, line in enumerate(text_lines, 1)):
        return False
    if None not in lines:
        lines[None] = _Statements(statements[:1])
        _LIVE_STATEMENTS.add(lines[None])
    for k, got in found.items():
        lines[text_lines[k - 1]] = got
        _LIVE_STATEMENTS.add(got)
    return True


#: the input rows (after ``input_selections``) from which a call whose program falls apart
#: (``stages.plan_stages``) is ground in stages: the optimizer's calls feed at most 46,187
#: (csmith-46; none of their programs falls apart), ``cfg_analyses.dl`` on the 30,000-block
#: CFGs 100,382-145,413 (docs/measurements.md, mem47 and clg50)
STAGE_ROWS = 50_000


def run_clingo(checked: CheckedProgram, inputs: dict[str, list[tuple]], shown: list[str],
               needed: set[str] | None = None) -> dict[str, list[tuple]]:
    """Evaluate ``checked`` with the (already validated) input tuples; return the sorted tuples of
    every relation in ``shown``. ``needed``: ``needed_relations(checked, shown)`` if known."""
    if needed is None:
        needed = needed_relations(checked, shown)
    # rules that cannot fire on these inputs are neither grounded nor read from (relevance.py)
    live = live_relations(checked, (rel for rel, rows in inputs.items() if rows and rel in needed))
    needed = needed_relations(checked, shown, live)
    select = input_selections(checked, needed, live, shown)
    fed = {}            # relation -> its rows as clingo reads them
    for rel, rows in inputs.items():
        if not rows or rel not in needed:
            continue
        if rel in select:
            rows = _selected(rows, select[rel])
        fed[rel] = _biased(rows, checked.relations[rel].kinds, to_clingo, floats.parse)
    stages = None
    if sum(map(len, fed.values())) >= STAGE_ROWS:
        key = (frozenset(needed), frozenset(shown), live)
        stages = derived(checked, ("clingo-stages",) + key,
                         lambda: _stages(checked, needed, shown, live))
    result: dict[str, list[tuple]] = {r: [] for r in shown}
    if stages is None:
        decodes = [_evaluate(checked, lambda ctl: _add_rules(ctl, checked, needed, shown, live),
                             fed, shown, result)]
    else:   # each stage's Control freed before the next grounds; its rows decoded at the end;
        # the last stage's rows read without solving (``facts``: structured 30,000 peak -6 MB)
        made: dict = {}
        reader = None if _structured(checked, shown) else _raw_model_reader()
        decodes = [_evaluate(checked, lambda ctl, t=text, s=statements: _add_statements(ctl, t, s),
                             {rel: fed[rel] for rel in reads if rel in fed}, asked, result,
                             made, reader, k < len(stages) - 1)
                   for k, (text, statements, reads, asked) in enumerate(stages)]
    for decode in decodes:
        decode(result)
    return {rel: sort_rows(_biased(rows, checked.relations[rel].kinds, from_clingo, floats.text))
            for rel, rows in result.items()}


def _stages(checked: CheckedProgram, needed: set, shown: list, live: frozenset) -> list | None:
    """The stages of the call's translated rules (``stages.plan_stages``), or None: per stage
    its text, its parsed statements, the input relations it reads and the shown relations it
    defines (the last stage also those no stage defines: their rows are the inputs')."""
    rules = translated_rules(checked, needed, set(shown), live)
    plan = plan_stages(rules, set(checked.inputs) | set(shown))
    if plan is None:
        return None
    defined = {r.head.rel for stage in plan for r in stage}
    out = []
    for k, stage in enumerate(plan):
        heads = {r.head.rel for r in stage}
        reads = {a.rel for r in stage for a in body_atoms(r.body)} - heads
        asked = [rel for rel in shown
                 if rel in heads or (k == len(plan) - 1 and rel not in defined)]
        text = program_text(checked, rules=stage)
        out.append((text, _parsed(text), reads | set(asked), asked))
    return out


def _evaluate(checked: CheckedProgram, add_rules, fed: dict, shown: list, result: dict,
              made: dict | None = None, reader=None, solve: bool = True):
    """Ground ``fed`` (relation -> rows in clingo's form) with the rules ``add_rules(ctl)`` adds
    in a Control of its own and read the ``shown`` relations' rows into ``result`` (``_read_answer``:
    the returned function completes them); the Control is freed (and, if large, its memory given
    back) before returning. ``made``: the facts' symbols of earlier stages (``_backend_feeder``);
    ``reader``: the raw model reader of the call's stages (``_read_answer``)."""
    ctl = clingo.Control(["--warn=none", "--models=0"])
    try:
        add_rules(ctl)
        feed = _backend_feeder()
        plain, parts = [], []
        for rel, rows in fed.items():
            kinds = checked.relations[rel].kinds
            if feed is not None and not any(is_structured(k) for k in kinds):
                plain.append((rel, pred_name(rel), len(kinds), rows))
            else:
                parts.append(facts_text(pred_name(rel), kinds, rows, checked.types))
        if plain:
            feed(ctl, plain, SourceLoc(checked.main_file), made)
        if parts:
            ctl.add("base", [], "".join(parts))
        ctl.ground([("base", [])], context=Functors())
    except RuntimeError as exc:  # a translation bug, not a user error: report it located anyway
        located = refusal(str(exc))      # or a functor's located refusal (a float sum)
        if located is not None:
            raise located from None
        raise DatalogError(f"clingo rejected the translated program: {exc}",
                           SourceLoc(checked.main_file)) from None
    atoms = len(ctl.symbolic_atoms)
    decode = None if solve or reader is None else reader.facts(
        ctl, _by_signature(checked, shown))
    if decode is None:
        decode = _read_answer(ctl, checked, shown, result, atoms, reader)
    del ctl                 # the grounder's domains and indices, before the rows are built
    if atoms >= TRIM_ATOMS or made is not None:     # a stage: its call was fed STAGE_ROWS or more
        _return_freed_memory()
    return decode


class ClingoEngine:
    """The embedded engine (clingo from PyPI): always available where pathlogic is installed."""

    name = "clingo"

    def available(self) -> bool:
        return clingo is not None

    def unavailable_reason(self) -> str:
        if self.available():
            return ""
        return "the clingo Python package is not installed (pip install clingo)"

    def run(self, program: CheckedProgram, facts_dir: str | Path | None,
            facts: dict[str, list[tuple]] | None, outputs: list[str], *,
            jobs: int | None = None, compiled: bool = False) -> dict[str, list[tuple]]:
        """Every relation of ``outputs``; what they do not depend on is neither read nor
        grounded. ``jobs`` and ``compiled`` do not apply (ignored)."""
        needed = needed_relations(program, outputs)
        return run_clingo(program, load_inputs(program, facts_dir, facts, needed), outputs, needed)


register(ClingoEngine())
