"""``pylogic/ir/ops.py`` is the one owner of PIR operator semantics (issue #27 item 1): no other
module of ``pylogic/`` or ``facts_gen/`` writes a fold table, a relation table or its own
division, remainder, relation evaluation or intervals. Found on the syntax tree, at any nesting
depth: a dict literal keyed by three or more relations (an evaluation, swap or negation table,
whatever its values), a dict literal keyed by three or more opcodes whose values are functions
or Python operators (a fold table), a list of five or more relations or of every binary opcode (a
copy of ``model.RELATIONS``/``BINARY_OPS``, or a class of relations ``ops`` should name), and a
function named like an ``ops`` function."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pylogic.ir.model import BINARY_OPS, RELATIONS, UNARY_OPS

ROOT = Path(__file__).resolve().parents[2]
OWNER = "pylogic/ir/ops.py"
OPCODES = frozenset(BINARY_OPS + UNARY_OPS)
#: Functions only the owner defines (and the names of the copies it replaced).
OWNED_FUNCTIONS = frozenset({"div64", "rem64", "eval_rel", "fold", "intervals", "true_intervals",
                             "condition_set", "_div", "_rem", "_fold", "_holds"})
#: Files allowed a table, and why.
ALLOWED = {
    # the vocabulary itself: the parser and verifier read these names, ops gives them meaning
    "pylogic/ir/model.py": "names",
    # PIR opcode/relation -> LLVM instruction/predicate: code generation, not semantics
    "pylogic/interp/native/compile.py": "tables",
    # LLVM constant expressions at LLVM widths (lshr/ashr on iN): the importer's LLVM semantics
    "pylogic/ir/llvm/values.py": "tables",
}


def _names(nodes) -> list[str]:
    return [n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _is_operation(node) -> bool:
    """A table value that is a function, or holds a lambda or a Python operator token."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return True
    return any(isinstance(n, ast.Lambda) or (
        isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value != ""
        and not n.value.isidentifier()) for n in ast.walk(node))


def semantic_copies(path: Path, relpath: str) -> list[str]:
    """``relpath:line: what`` for every fold or relation table and owned function in the file."""
    allowed = ALLOWED.get(relpath)
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        where = (getattr(node, "lineno", 0), f"{relpath}:{getattr(node, 'lineno', 0)}")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name in OWNED_FUNCTIONS:
            out.append((*where, f"defines {node.name} (pylogic.ir.ops has it)"))
        elif isinstance(node, ast.Dict) and allowed != "tables":
            keys = _names(node.keys)
            if sum(k in RELATIONS for k in keys) >= 3:
                out.append((*where, "a relation table"))
            elif sum(k in OPCODES for k in keys) >= 3 and any(
                    _is_operation(v) for k, v in zip(node.keys, node.values)
                    if isinstance(k, ast.Constant) and k.value in OPCODES):
                out.append((*where, "a fold table"))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and allowed is None:
            names = _names(node.elts)
            if sum(n in RELATIONS for n in names) >= 5 or set(BINARY_OPS) <= set(names):
                out.append((*where, "a list of relations or opcodes"))
    return [f"{where}: {what}" for _, where, what in sorted(out)]


@pytest.mark.slow
def test_no_module_but_ops_writes_operator_semantics():
    found = []
    for top in ("pylogic", "facts_gen"):
        for path in sorted((ROOT / top).rglob("*.py")):
            relpath = path.relative_to(ROOT).as_posix()
            if relpath != OWNER:
                found += semantic_copies(path, relpath)
    assert found == [], "\n".join(found)


def test_the_owner_has_what_the_checker_looks_for():
    # the checker is not blind: ops itself holds every kind of table it flags elsewhere
    found = semantic_copies(ROOT / OWNER, "pylogic/ir/somewhere_else.py")
    assert any("relation table" in f for f in found) and any("fold table" in f for f in found)
    assert any("defines fold" in f for f in found) and any("defines eval_rel" in f for f in found)


def test_the_checker_sees_a_planted_copy(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        'FLIP = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}\n'
        "def f(op, a, b):\n"
        '    table = {"add": lambda: a + b, "sub": lambda: a - b, "shl": lambda: a << b}\n'
        '    return op in ("eq", "le", "ge", "leu", "geu") or table[op]()\n'
        "def div64(a, b):\n"
        "    return a // b\n")
    found = semantic_copies(src, "facts_gen/m.py")
    assert found == ["facts_gen/m.py:1: a relation table", "facts_gen/m.py:3: a fold table",
                     "facts_gen/m.py:4: a list of relations or opcodes",
                     "facts_gen/m.py:5: defines div64 (pylogic.ir.ops has it)"], found
