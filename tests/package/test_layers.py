"""The package's layers (DESIGN.md "Inside the package"): imports run one way,
``errors ← ir ← flow ← {facts_gen, engines, interp} ← {predicates, transforms} ← analysis ←
report ← commands ← cli``, with no cycle between modules. ``flow`` (the Python analyses passes
share) imports only ``errors``, ``identity_cache``, ``compiled_modules`` (``low_bits``), ``ir`` and
external libraries; engines know no IR, so neither
``ir`` nor ``flow``. Every import statement counts, those inside functions included (a
function-level import does not hide a cycle here)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
import networkx as nx

ROOT = Path(__file__).resolve().parents[2]

#: layer -> rank; a module may import its own layer or any layer of lower rank, except where
#: APART and FORBIDDEN say otherwise.
RANK = {
    "pylogic.errors": 0, "pylogic.user_cache": 0, "pylogic.identity_cache": 0,
    "pylogic.collector": 0, "pylogic.union_find": 0, "pylogic.compiled_modules": 0,
    "pylogic.ir": 1,
    "pylogic.flow": 2,
    "facts_gen": 3, "pylogic.engines": 3, "pylogic.interp": 3,
    "pylogic.predicates": 4, "pylogic.transforms": 4,
    "pylogic.analysis": 5,
    "pylogic.report": 6,
    "pylogic.commands": 7,
    "pylogic.cli": 8, "pylogic.__main__": 8,
}
#: Layers of equal rank that must not import each other (engines know no IR nor interpreter;
#: the predicate layer does not depend on passes).
APART = {("pylogic.engines", "facts_gen"), ("pylogic.engines", "pylogic.interp"),
         ("facts_gen", "pylogic.engines"), ("facts_gen", "pylogic.interp"),
         ("pylogic.interp", "facts_gen"), ("pylogic.interp", "pylogic.engines"),
         ("pylogic.predicates", "pylogic.transforms")}
#: Lower layers a layer must not import although their rank allows it: engines know no IR, nor
#: the analyses over it.
FORBIDDEN = {("pylogic.engines", "pylogic.ir"), ("pylogic.engines", "pylogic.flow")}


def layer(module: str) -> str | None:
    for name in sorted(RANK, key=len, reverse=True):
        if module == name or module.startswith(name + "."):
            return name
    return None if module.startswith(("pylogic", "facts_gen")) else "external"


def modules() -> dict[str, Path]:
    found = {}
    for top in ("pylogic", "facts_gen"):
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(name: str, path: Path) -> list[tuple[str, int]]:
    """Every (imported module, line) in the file, at any nesting depth."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[:len(parent) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            out.append((base, node.lineno))
            for a in node.names:        # "from pkg import submodule"
                out.append((f"{base}.{a.name}", node.lineno))
    return out


def import_graph() -> nx.DiGraph:
    mods = modules()
    g = nx.DiGraph()
    for name, path in mods.items():
        g.add_node(name)
        for target, line in imports(name, path):
            if target in mods and target != name:
                g.add_edge(name, target, line=line)
    return g


def test_every_module_is_in_a_layer():
    unplaced = [m for m in modules() if layer(m) is None and m not in ("pylogic", "facts_gen")]
    assert unplaced == [], f"modules outside every layer of DESIGN.md: {unplaced}"


@pytest.mark.slow
def test_imports_follow_the_layer_order():
    bad = []
    for name, path in modules().items():
        src = layer(name)
        if src is None:
            continue
        for target, line in imports(name, path):
            dst = layer(target)
            if dst in (None, "external") or dst == src:
                continue
            if RANK[dst] > RANK[src] or (src, dst) in APART or (src, dst) in FORBIDDEN:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {name} ({src}) imports {target} ({dst})")
    assert bad == [], "\n".join(bad)


def test_flow_imports_only_errors_ir_and_libraries():
    allowed = {"pylogic.errors", "pylogic.identity_cache", "pylogic.compiled_modules", "pylogic.ir",
               "pylogic.flow", "external"}
    bad = [f"{path.relative_to(ROOT)}:{line}: {name} imports {target}"
           for name, path in modules().items() if layer(name) == "pylogic.flow"
           for target, line in imports(name, path) if layer(target) not in allowed]
    assert bad == [], "\n".join(bad)


@pytest.mark.slow
def test_no_import_cycles():
    g = import_graph()
    # a package's __init__ re-exporting its submodules is not a cycle of ideas: drop edges from
    # a package to its own submodules before looking for cycles
    g.remove_edges_from([(a, b) for a, b in list(g.edges) if b.startswith(a + ".")])
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert cycles == [], f"import cycles: {cycles}"


def test_the_checker_sees_function_level_imports(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from pylogic.commands import analyze\n")
    assert ("pylogic.commands", 2) in imports("pylogic.ir.m", src)


def test_benchmarks_use_the_library_not_the_commands():
    bad = []
    for path in (ROOT / "benchmarks").glob("*.py"):
        for target, line in imports("benchmarks." + path.stem, path):
            if target.startswith("pylogic.commands") or target == "pylogic.cli":
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {target}")
    assert bad == [], "\n".join(bad)
