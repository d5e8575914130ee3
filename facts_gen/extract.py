"""IR -> relations: the whole facts contract for a module or a directory of programs.

``extract_module`` returns ``{relation: [tuple, ...]}`` for every input relation of
``datalog/schema.dl``; ``write_facts`` writes them as Soufflé ``.facts`` (tab-separated,
no header, one file per relation, empty files included).
"""
from __future__ import annotations

import os
from pathlib import Path

from pylogic.ir.load import LoadedDirectory, load_directory
from pylogic.ir.model import Module
from facts_gen.cfg import cfg_facts
from facts_gen.instructions import instruction_facts
from facts_gen.interprocedural import RELATIONS as INTERPROCEDURAL, interprocedural_facts
from facts_gen.naming import function_id
from facts_gen.value_flow import value_flow_facts
from facts_gen.vng import vng_facts
from pylogic.flow.fits_extension import ReturnFits
from pylogic.flow.known_bytes import function_contents
from pylogic.flow.readonly_globals import readonly_globals

#: Every input relation facts_gen writes, in ``datalog/schema.dl`` order (the schema declares
#: them; ``tests/facts_gen/test_schema.py`` checks the two agree through the Datalog front end).
RELATIONS = (
    "function", "block", "entry", "exit", "edge", "hyperblock",
    "rpo", "retreating", "rpo_rev", "retreating_rev",
    "param", "instr", "guard", "def", "use", "operand", "compare", "pdefine", "branch", "call",
    "memory", "annotation",
    "global_var", "extern_function",
    "edge_profile",
    "vf_expr", "vf_expr_operand", "vf_occurs", "vf_kill", "vf_load", "vf_clobber",
    "vf_store_gen", "vf_load_root", "vf_store_root", "vf_global_root", "vf_load_span",
    "vf_store_span", "vf_store_over",
    "vng_seed", "vng_node", "vng_transfer", "vng_kill", "vng_gen", "vng_class",
    "vng_merge", "vng_merge_succ", "vng_truncated",
) + INTERPROCEDURAL
#: Relations whose first column is a file, not a function.
MODULE_RELATIONS = ("global_var", "extern_function")


def empty_facts() -> dict[str, list[tuple]]:
    return {name: [] for name in RELATIONS}


def restrict_facts(facts: dict[str, list[tuple]], keep) -> dict[str, list[tuple]]:
    """``facts`` of the functions whose id satisfies ``keep`` (the per-file relations kept)."""
    return {name: (rows if name in MODULE_RELATIONS else [r for r in rows if keep(r[0])])
            for name, rows in facts.items()}


def extract_module(module: Module, relpath: str, out: dict[str, list[tuple]] | None = None,
                   profile: dict | None = None, vng: bool = False) -> dict[str, list[tuple]]:
    """Append the facts of every defined function of ``module`` (named by ``relpath``) to ``out``.

    ``profile``, if given, maps (function name, from, to) -> count (the interpreter's edge profile).
    ``vng``: also the Value Name Graph (``facts_gen/vng.py``; its relations are empty otherwise:
    they cost about as much as the rest of the facts together, so only who reads them pays).
    """
    out = out if out is not None else empty_facts()
    for g in module.globals:
        out["global_var"].append((relpath, g.name, g.size))
    defined = frozenset(fn.name for fn in module.functions if not fn.extern)
    readonly, returns = readonly_globals(module), ReturnFits(module)
    contents = function_contents(module)
    for fn in module.functions:
        if fn.extern:
            out["extern_function"].append((relpath, fn.name))
            continue
        if not fn.blocks:
            continue
        f = function_id(relpath, fn.name)
        out["function"].append((f,))
        cfg_facts(f, fn, out)
        instruction_facts(f, fn, out)
        value_flow_facts(f, fn, out, defined, readonly, returns, contents(fn.name),
                         {g.name: g.size for g in module.globals})
        if vng:
            vng_facts(f, fn, out)
    interprocedural_facts(module, relpath, out)
    if profile:
        names = {fn.name for fn in module.functions if not fn.extern}
        for (fname, a, b), count in sorted(profile.items()):
            if fname in names:
                out["edge_profile"].append((function_id(relpath, fname), a, b, count))
    return out


def _cell(value) -> str:
    text = str(value)
    if "\t" in text or "\n" in text or "\r" in text:  # ids are escaped (naming.escape_field)
        raise ValueError(f"fact value {text!r} contains a tab or newline")
    return text


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
                for row in rows:
                    line = "\t".join(map(str, row))
                    if line.count("\t") != len(row) - 1 or "\n" in line or "\r" in line:
                        line = "\t".join(_cell(v) for v in row)      # raises, naming the value
                    fh.write(line)
                    fh.write("\n")
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
