"""The engines package keeps its layering (DESIGN.md "Inside the package"): no function-level
imports, no import cycle between its modules, and stratification's own SCC code agrees with
networkx (the oracle) on random graphs."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
import networkx as nx
from hypothesis import given, strategies as st

import pylogic.engines
from pylogic.engines.stratify import strongly_connected_components

PACKAGE = Path(pylogic.engines.__file__).parent


def _imports(tree: ast.Module):
    """(module imported, node) for every import of the file, nested ones included."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module, node
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node


@pytest.mark.slow
def test_no_function_level_imports():
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                nested = [n for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))]
                assert not nested, f"{path.name}:{nested[0].lineno}: import inside {fn.name}"


def test_no_import_cycle_between_engine_modules():
    graph = nx.DiGraph()
    for path in sorted(PACKAGE.glob("*.py")):
        module = "pylogic.engines" + ("" if path.stem == "__init__" else f".{path.stem}")
        graph.add_node(module)
        for target, node in _imports(ast.parse(path.read_text())):
            if target == "pylogic.engines" and isinstance(node, ast.ImportFrom):
                for alias in node.names:  # "from pylogic.engines import clingo_engine"
                    if (PACKAGE / f"{alias.name}.py").exists():
                        graph.add_edge(module, f"pylogic.engines.{alias.name}")
            elif target.startswith("pylogic.engines."):
                graph.add_edge(module, target)
    assert list(nx.simple_cycles(graph)) == []


@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=30))
def test_scc_matches_networkx(edges):
    graph = {f"r{i}": {} for i in range(10)}
    for a, b in edges:
        graph[f"r{a}"][f"r{b}"] = (False, None)
    got = strongly_connected_components(graph)
    g = nx.DiGraph((a, b) for a, succs in graph.items() for b in succs)
    g.add_nodes_from(graph)
    assert sorted(map(sorted, got)) == sorted(map(sorted, nx.strongly_connected_components(g)))
    position = {rel: k for k, comp in enumerate(got) for rel in comp}
    for a, b in g.edges:  # bottom-up: what a relation depends on comes no later
        assert position[b] <= position[a]
