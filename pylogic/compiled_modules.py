"""The modules ``setup.py`` compiles with Cython, and the import hook that keeps a compiled module
from hiding its changed source.

Cython compiles these files unchanged (plain Python, no type declarations; ``annotation_typing``
off, so an annotation checks nothing): meant to be the same semantics without the interpreter's
dispatch. One difference is known: Cython computes an operation on C values in C, and ``len()``
(or a comprehension's ``range`` variable) is a C integer, so ``1 << len(x)`` wraps at 64 bits (63
for a list of 70, not 2**70 - 1): write ``low_bits(len(x))``. ``tests/package/
test_compiled_modules.py`` checks that no compiled module shifts such a value, and compares
compiled and source outputs. They are the optimizer's hot
path, chosen by profile (py-spy self time of ``simplify,pre-mr,pre-m,simplify`` and ``icbe`` on
csmith 32, 8, 38, 31, 43, 30: these hold 81% (PRE) and 97% (``icbe``) of the samples whose
innermost frame is project code; issue #28 item 1). A build without Cython or a C compiler
installs the same package as plain Python (each extension is optional), as does
``PATHLOGIC_PURE_PYTHON=1``.

An editable install puts each extension beside its source, and Python imports an extension
before a ``.py`` of the same name: edited source would be shadowed by the last build.
``StaleExtensionGuard`` imports the source instead whenever the ``.py`` is newer than its
extension (by more than ``_SLACK_NS``: an installer writes a wheel's ``.so`` and ``.py`` moments
apart); ``pip install -e .`` again rebuilds what changed. ``PATHLOGIC_FROM_SOURCE=1`` imports
every one from source (a profiler's line numbers; the oracle of ``tests/package/
test_compiled_modules.py``). ``compiled_status()`` says which ran compiled, so a benchmark can
record it.

References
----------
Cython's "pure Python mode" (compiling ``.py`` files); PEP 451 (``MetaPathFinder.find_spec``).
"""
from __future__ import annotations

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from importlib.util import spec_from_file_location

__all__ = ["COMPILED", "StaleExtensionGuard", "compiled_status", "install_guard", "low_bits"]

def low_bits(n) -> int:
    """The bit mask of the ``n`` low bits, ``(1 << n) - 1``, as a Python int whatever ``n`` is:
    a compiled module's ``(1 << len(x)) - 1`` shifts a C integer and wraps (the module
    docstring; function_values' and value_names' masks gave csmith 2 and 9 other PRE outputs
    compiled than as source, stop 62)."""
    return (1 << int(n)) - 1


#: dotted names of the compiled modules, hottest first (see the module docstring)
COMPILED = (
    "pylogic.transforms.simplify.simplify",
    "pylogic.ir.model",
    "pylogic.flow.function_values",
    "pylogic.engines.indexed",
    "pylogic.transforms.pre.pre_m",
    "pylogic.flow.reaching_graph",
    "pylogic.flow.block_access",
    "pylogic.identity_cache",
    "pylogic.flow.reaching",
    "pylogic.engines.python_engine",
    "pylogic.flow.known_memory",
    "pylogic.flow.definitions",
    "pylogic.flow.value_names",
    "facts_gen.value_flow",
    "pylogic.flow.address_roots",
    "pylogic.engines.values",
    "pylogic.flow.known_bytes",
    "pylogic.ir.cfg",
    "pylogic.flow.readonly_globals",
    "pylogic.flow.spans",
    "pylogic.flow.candidates",
    "pylogic.engines.csv_io",
    "pylogic.flow.memory_writes",
    "facts_gen.extract",
    "facts_gen.cfg",
    "pylogic.transforms.pre.phi_loads",
    "pylogic.transforms.naming",
    "pylogic.transforms.pre.reducible",
    "pylogic.flow.branch_facts",
    "pylogic.transforms.pre.dead_loads",
    "pylogic.flow.value_flow_inputs",
    "pylogic.flow.known_bits",
    "pylogic.analysis.run",
    "pylogic.transforms.pre.restructure",
    "pylogic.flow.fits_extension",
    "pylogic.flow.nonzero",
    "pylogic.engines.rows",
    "facts_gen.interprocedural",
    "facts_gen.memory_cells",
    "pylogic.analysis.correlation_rounds",
    "facts_gen.instructions",
    "facts_gen.query_arithmetic",
    "pylogic.transforms.cbe.cbe",
    "facts_gen.naming",
    "pylogic.transforms.cbe.icbe",
    "pylogic.transforms.cbe.exit_splitting",
    "facts_gen.pair_queries",
    "facts_gen.constant_folding",
)

#: how much newer than its extension a source must be to count as changed (1 s)
_SLACK_NS = 1_000_000_000

_COMPILED = frozenset(COMPILED)


class StaleExtensionGuard:
    """A meta path finder: for a compiled module whose ``.py`` changed after its extension was
    built, the spec of the source; ``None`` (the usual finders decide) otherwise."""

    def __init__(self, always: bool = False):
        self.always = always            # every compiled module from its source
        self.from_source: set[str] = set()

    def find_spec(self, fullname, path, target=None):
        if fullname not in _COMPILED:
            return None
        tail = fullname.rpartition(".")[2]
        for folder in path or sys.path:
            source = os.path.join(folder, tail + ".py")
            try:
                source_time = os.stat(source).st_mtime_ns
            except OSError:
                continue
            for suffix in EXTENSION_SUFFIXES:
                try:
                    built = os.stat(os.path.join(folder, tail + suffix)).st_mtime_ns
                except OSError:
                    continue
                if self.always or source_time > built + _SLACK_NS:
                    self.from_source.add(fullname)
                    return spec_from_file_location(fullname, source)
                return None
            return None
        return None


_GUARD = StaleExtensionGuard(always=bool(os.environ.get("PATHLOGIC_FROM_SOURCE")))


def install_guard() -> None:
    """Put the guard first on ``sys.meta_path`` (once)."""
    if _GUARD not in sys.meta_path:
        sys.meta_path.insert(0, _GUARD)


def compiled_status() -> dict:
    """``{"compiled": [...], "source": [...], "not_loaded": [...]}``: of ``COMPILED``, the
    modules loaded from an extension, those loaded from source (not built, or stale), and those
    this process has not imported."""
    out: dict = {"compiled": [], "source": [], "not_loaded": []}
    for name in COMPILED:
        module = sys.modules.get(name)
        if module is None:
            out["not_loaded"].append(name)
        elif (getattr(module, "__file__", "") or "").endswith(".py"):
            out["source"].append(name)
        else:
            out["compiled"].append(name)
    return out
