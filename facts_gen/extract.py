"""IR -> relations: the whole facts contract for a module or a directory of programs.

``extract_module`` returns ``{relation: [tuple, ...]}`` for the input relations of
``datalog/schema.dl``, by fact family (``FAMILIES``: each family is one extractor and the
relations it writes); ``families=`` or ``relations=`` runs only the extractors asked for (a pass
pays only for the facts its programs read, issue #27 item 4). ``write_facts`` writes them as
Soufflé ``.facts`` (tab-separated, no header, one file per relation, empty files included).

Example
-------
>>> families_for(["edge", "rpo", "instr"])
('module', 'cfg', 'instructions')
>>> facts = extract_module(module, "a.pir", relations=["edge", "rpo"])    # doctest: +SKIP
>>> sorted(facts)[:4]                                                       # doctest: +SKIP
['block', 'edge', 'entry', 'exit']
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable, Optional

from pylogic.ir.load import LoadedDirectory, load_directory
from pylogic.ir.model import Module
from facts_gen.cfg import RELATIONS as CFG, SCC_RELATIONS, cfg_facts, scc_facts
from facts_gen.instructions import RELATIONS as INSTRUCTIONS, instruction_facts
from facts_gen.interprocedural import RELATIONS as INTERPROCEDURAL, interprocedural_facts
from facts_gen.naming import function_id
from facts_gen.value_flow import VALUE_FLOW_RELATIONS, value_flow_facts
from facts_gen.vng import VNG_RELATIONS, vng_facts
from pylogic.flow.fits_extension import return_fits
from pylogic.flow.known_bytes import function_contents
from pylogic.flow.readonly_globals import readonly_globals
from pylogic.identity_cache import BodyCache

#: Relations whose first column is a file, not a function.
MODULE_RELATIONS = ("global_var", "extern_function")
#: The fact families: each is one extractor and the relations it writes. ``module`` (the defined
#: functions, globals and externs) is always extracted; ``profile`` needs an edge profile.
FAMILIES: dict[str, tuple[str, ...]] = {
    "module": ("function",) + MODULE_RELATIONS,
    "cfg": CFG,
    "scc": SCC_RELATIONS,
    "instructions": INSTRUCTIONS,
    "profile": ("edge_profile",),
    "value_flow": VALUE_FLOW_RELATIONS,
    "vng": VNG_RELATIONS,
    "interprocedural": INTERPROCEDURAL,
}
#: Every input relation facts_gen writes, in ``datalog/schema.dl`` order (the schema declares
#: them; ``tests/report/test_relations_doc.py`` checks the two agree through the Datalog front end).
RELATIONS = (("function",) + CFG + SCC_RELATIONS + INSTRUCTIONS + MODULE_RELATIONS + FAMILIES["profile"]
             + VALUE_FLOW_RELATIONS + VNG_RELATIONS + INTERPROCEDURAL)
#: What ``extract_module`` runs unless told otherwise: every family but the Value Name Graph
#: (``facts_gen/vng.py``: it costs about as much as the rest of the facts together, so only who
#: reads its relations pays; its relations are empty otherwise).
DEFAULT_FAMILIES = tuple(name for name in FAMILIES if name != "vng")
_FAMILY_OF = {rel: name for name, rels in FAMILIES.items() for rel in rels}


def families_for(relations: Iterable[str]) -> tuple[str, ...]:
    """The families whose extractors write ``relations`` (input relations), ``module`` always
    among them, in ``FAMILIES`` order."""
    try:
        wanted = {"module"} | {_FAMILY_OF[rel] for rel in relations}
    except KeyError as exc:
        raise ValueError(f"{exc.args[0]!r} is not an input relation facts_gen writes") from None
    return tuple(name for name in FAMILIES if name in wanted)


def empty_facts(families: Optional[Iterable[str]] = None) -> dict[str, list[tuple]]:
    """No rows yet: every relation (of ``families`` when given), in schema order."""
    if families is None:
        return {name: [] for name in RELATIONS}
    mine = {rel for family in families for rel in FAMILIES[family]}
    return {name: [] for name in RELATIONS if name in mine}


def restrict_facts(facts: dict[str, list[tuple]], keep) -> dict[str, list[tuple]]:
    """``facts`` of the functions whose id satisfies ``keep`` (the per-file relations kept)."""
    return {name: (rows if name in MODULE_RELATIONS else [r for r in rows if keep(r[0])])
            for name, rows in facts.items()}


def extract_module(module: Module, relpath: str, out: dict[str, list[tuple]] | None = None,
                   profile: dict | None = None, *, families: Optional[Iterable[str]] = None,
                   relations: Optional[Iterable[str]] = None,
                   keep: Optional[Callable[[str], bool]] = None) -> dict[str, list[tuple]]:
    """Append the facts of every defined function of ``module`` (named by ``relpath``) to ``out``.

    ``families``: run only these extractors (``FAMILIES``), ``relations``: only those writing
    these input relations (``families_for``); ``out`` then defaults to their relations alone.
    Default: ``DEFAULT_FAMILIES`` into every relation (the Value Name Graph's empty).
    ``profile``, if given, maps (function name, from, to) -> count (the interpreter's edge profile).
    ``keep``: only the functions whose id it accepts get their own facts (the interprocedural
    and per-file relations stay whole; ``restrict_facts`` with the same ``keep`` then gives the
    rows of extracting everything: a pass's later rounds ask for the functions they changed).
    """
    if relations is not None:
        families = tuple(families or ()) + families_for(relations)
    run = frozenset(DEFAULT_FAMILIES if families is None else families) | {"module"}
    unknown = sorted(run - set(FAMILIES))
    if unknown:
        raise ValueError(f"unknown fact families {unknown} (known: {', '.join(FAMILIES)})")
    if out is None:
        out = empty_facts(None if families is None else run)
    for g in module.globals:
        out["global_var"].append((relpath, g.name, g.size))
    if "value_flow" in run:
        defined = frozenset(fn.name for fn in module.functions if not fn.extern)
        readonly, returns = readonly_globals(module), return_fits(module)
        contents = function_contents(module)
        sizes = {g.name: g.size for g in module.globals}
    for fn in module.functions:
        if fn.extern:
            out["extern_function"].append((relpath, fn.name))
            continue
        if not fn.blocks:
            continue
        f = function_id(relpath, fn.name)
        if keep is not None and not keep(f):
            continue
        out["function"].append((f,))
        for name, rows in _body_facts(f, fn, run).items():
            out[name].extend(rows)
        if "value_flow" in run:
            value_flow_facts(f, fn, out, defined, readonly, returns, contents(fn.name), sizes)
        if "vng" in run:
            vng_facts(f, fn, out)
    if "interprocedural" in run:
        interprocedural_facts(module, relpath, out)
    if profile and "profile" in run:
        names = {fn.name for fn in module.functions if not fn.extern}
        for (fname, a, b), count in sorted(profile.items()):
            if fname in names:
                out["edge_profile"].append((function_id(relpath, fname), a, b, count))
    return out


#: the extractors whose rows depend on one function body alone (its id, parameters and blocks)
_BODY_FAMILIES = (("cfg", cfg_facts), ("scc", scc_facts), ("instructions", instruction_facts))
#: their rows per function body, kept by identity: the rounds of an iterated pass (icbe) rebuild
#: the Function objects but keep the Block objects they did not change, and ask for the facts of
#: the whole module every round (issue #28 item 1)
_BODY_ROWS = BodyCache(1 << 12)          # keyed by (id, params, families)


def _body_facts(f: str, fn, run) -> dict[str, list[tuple]]:
    """The rows of the ``_BODY_FAMILIES`` in ``run`` for function ``fn`` (id ``f``)."""
    families = tuple(name for name, _ in _BODY_FAMILIES if name in run)

    def compute() -> dict[str, list[tuple]]:
        rows = empty_facts(families)
        for name, extractor in _BODY_FAMILIES:
            if name in run:
                extractor(f, fn, rows)
        return rows
    return _BODY_ROWS.get_or_compute(fn, (f, fn.params, families), compute)


def _cell(value) -> str:
    text = str(value)
    if "\t" in text or "\n" in text or "\r" in text:  # ids are escaped (naming.escape_field)
        raise ValueError(f"fact value {text!r} contains a tab or newline")
    return text


def _facts_text(rows: list[tuple]) -> str:
    """The lines of ``rows``, tab-separated; checked as a whole (as many tabs as the rows have
    cells between them, one newline per row, no carriage return) and, if that fails, row by
    row, raising for the first bad value (#32: one join per relation, not two writes per row)."""
    if not rows:
        return ""
    # rows of strings alone: one join per row, half the time of a %-format (#32: use, def,
    # ... are half of the 1.5 M rows); a join takes any sequence of str, as the row-by-row
    # path below does. Else one %-format per row: rows of one width (a row that is not a
    # tuple of that width raises TypeError; of width 1, only tuples format as the path below
    # does). No pass over the rows ahead of the join (#32: the type and width checks were a
    # quarter of writing the facts).
    body = tabs = None
    try:
        body = "\n".join(map("\t".join, rows)) + "\n"          # TypeError: a value not a str
        tabs = sum(map(len, rows)) - len(rows)
    except TypeError:
        body = None
        width = len(rows[0]) if isinstance(rows[0], tuple) else 0
        if width > 1 or (width == 1 and set(map(type, rows)) == {tuple}):
            try:
                body = "".join(map(("\t".join(("%s",) * width) + "\n").__mod__, rows))
                tabs = (width - 1) * len(rows)
            except TypeError:
                pass
    if body is not None and body.count("\t") == tabs and body.count("\n") == len(rows) \
            and "\r" not in body:
        return body
    lines = []
    for row in rows:
        line = "\t".join(map(str, row))
        if line.count("\t") != len(row) - 1 or "\n" in line or "\r" in line:
            line = "\t".join(_cell(v) for v in row)      # raises, naming the value
        lines.append(line + "\n")
    return "".join(lines)


def write_facts(facts: dict[str, list[tuple]], facts_dir: Path) -> None:
    """Write every relation as ``facts_dir/NAME.facts`` (Soufflé TSV, no header). Each file is
    written beside its target and renamed into place: never a truncated facts file."""
    facts_dir = Path(facts_dir)
    facts_dir.mkdir(parents=True, exist_ok=True)
    for name, rows in facts.items():
        target = facts_dir / f"{name}.facts"
        partial = facts_dir / f".{name}.facts.partial"
        try:
            with open(partial, "w", encoding="utf-8") as fh:
                fh.write(_facts_text(rows))
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)


def extract_directory(root, facts_dir=None, jobs: int = 1
                      ) -> tuple[dict[str, list[tuple]], LoadedDirectory]:
    """Facts of every program under ``root`` (loaded by ``pylogic.ir.load.load_directory``, which
    also says which files were skipped and why); written to ``facts_dir`` when given."""
    loaded = load_directory(root, jobs=jobs)
    facts = empty_facts()
    for program in loaded.programs:
        extract_module(program.module, program.relpath, facts)
    if facts_dir is not None:
        write_facts(facts, Path(facts_dir))
    return facts, loaded
