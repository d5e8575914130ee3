"""Graphs of the HTML report as SVG, drawn by graphviz ``dot`` (as ``opt -view-cfg`` does): the
CFG with edges labelled by the decision that takes them (``true: %x < 3``), loops, back edges and
unreachable blocks marked; dominator and post-dominator trees, left to right so the root stays on
screen however wide the tree. Each node's SVG ``<title>`` (its hover text) is the block's name
and code, each edge's names its ends and label (dot would write its internal ids, ``n0``)."""
from __future__ import annotations

import html
import re
import shutil
import subprocess

#: Seconds ``dot`` may take for one graph.
DOT_TIMEOUT = 30


class GraphError(Exception):
    """``dot`` is missing or failed (the report shows the reason instead of the picture)."""


def dot_string(text: str) -> str:
    """A DOT double-quoted string: backslashes (escape sequences such as ``\\N`` or ``\\l``
    would be expanded by dot) and quotes escaped; dot escapes the text again for SVG."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_svg(dot_text: str, titles: dict | None = None) -> str:
    """The ``<svg>`` element dot draws for ``dot_text`` (prolog, doctype and comments dropped);
    ``titles``: the hover text of nodes and edges by dot name (``n0``, ``n0->n1``).

    Raises
    ------
    GraphError
        No ``dot`` on PATH (Debian: ``apt-get install graphviz``), a timeout, or dot failed.
    """
    dot = shutil.which("dot")
    if dot is None:
        raise GraphError("graphviz 'dot' is not installed (Debian: apt-get install graphviz)")
    try:
        proc = subprocess.run([dot, "-Tsvg"], input=dot_text.encode("utf-8"),
                              capture_output=True, timeout=DOT_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise GraphError(f"dot took more than {DOT_TIMEOUT} s") from None
    if proc.returncode != 0:
        raise GraphError("dot failed: " + proc.stderr.decode("utf-8", "replace").strip()[:300])
    svg = proc.stdout.decode("utf-8")
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    if titles:
        def title(m):
            text = titles.get(html.unescape(m.group(1)))
            return m.group(0) if text is None else f"<title>{html.escape(text)}</title>"
        svg = re.sub(r"<title>(.*?)</title>", title, svg, flags=re.S)
    return svg


def _ids(names) -> dict[str, str]:
    return {b: f"n{k}" for k, b in enumerate(names)}


def _block_title(b: str, code: dict) -> str:
    lines = code.get(b)
    return b if lines is None else b + ":\n" + "\n".join("    " + line for line in lines)


def cfg_svg(view) -> str:
    """The CFG of a ``FunctionView`` as SVG, each block's code its hover text."""
    ids = _ids(view.blocks)
    titles = {i: _block_title(b, view.code) for b, i in ids.items()}
    for a, b, label in view.edges:
        if a in ids and b in ids:
            titles[f"{ids[a]}->{ids[b]}"] = f"{a} -> {b}" + (f": {label}" if label else "")
    return to_svg(cfg_dot(view), titles)


def tree_svg(edges, root: str | None = None, code: dict | None = None) -> str:
    """``tree_dot`` as SVG, each node's hover text its block's code."""
    nodes = _tree_nodes(edges, root)
    titles = {i: _block_title(x, code or {}) for x, i in nodes.items()}
    titles.update({f"{nodes[d]}->{nodes[n]}": f"{d} -> {n}" for d, n in edges})
    return to_svg(tree_dot(edges, root), titles)


def cfg_dot(view) -> str:
    """The CFG of a ``FunctionView``: entry bold, exits double-bordered, loop headers and
    loop bodies shaded by depth, unreachable blocks grey and dashed, back edges red."""
    ids = _ids(view.blocks)
    back = {(t, h) for t, h in view.rows.get("back_edge", [])}
    headers = {h for (h,) in view.rows.get("loop_header", [])}
    depth = {b: int(k) for b, k in view.rows.get("loop_depth", [])}
    unreachable = {b for (b,) in view.rows.get("unreachable", [])}
    lines = ["digraph cfg {", 'node [shape=box, fontname="DejaVu Sans Mono", fontsize=10];',
             'edge [fontname="DejaVu Sans", fontsize=9];']
    for b in view.blocks:
        n = len(view.instrs.get(b, []))
        label = f"{b}\n{n} instruction{'s' if n != 1 else ''}"
        if depth.get(b):
            label += f"\nloop depth {depth[b]}"
        attrs = [f"label={dot_string(label)}"]
        style = []
        if b in unreachable:
            style += ["dashed", "filled"]
            attrs += ['fillcolor="#dddddd"', 'fontcolor="#666666"']
        elif depth.get(b):
            style.append("filled")
            shade = ["#ffffff", "#fff3c4", "#ffe08a", "#ffcb52"][min(depth[b], 3)]
            attrs.append(f'fillcolor="{shade}"')
        if b == view.entry:
            style.append("bold")
        if b in headers:
            attrs.append("penwidth=2")
        if style:
            attrs.append(f'style="{",".join(style)}"')
        if b in view.exits:
            attrs.append("peripheries=2")
        lines.append(f"{ids[b]} [{', '.join(attrs)}];")
    for a, b, label in view.edges:
        if a not in ids or b not in ids:
            continue
        if (a, b) in back:
            label = "back edge" + (f": {label}" if label else "")
        attrs = [f"label={dot_string(label)}"]
        if (a, b) in back:
            attrs += ['color="#c00000"', 'fontcolor="#c00000"', "penwidth=2"]
        elif label.startswith("false"):
            attrs.append("style=dashed")     # the false side of a decision
        lines.append(f"{ids[a]} -> {ids[b]} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines)


def _tree_nodes(edges, root) -> dict[str, str]:
    nodes: dict[str, str] = {root: "n0"} if root is not None else {}
    for d, n in edges:
        for x in (d, n):
            nodes.setdefault(x, f"n{len(nodes)}")
    return nodes


def tree_dot(edges, root: str | None = None) -> str:
    """A tree given as (parent, child) pairs, drawn left to right (``root`` alone when it has
    no edges): a wide tree grows down the page, its root at the left edge, on screen."""
    nodes = _tree_nodes(edges, root)
    lines = ["digraph tree {", "rankdir=LR;",
             'node [shape=ellipse, fontname="DejaVu Sans Mono", fontsize=10];']
    for x, i in nodes.items():
        lines.append(f"{i} [label={dot_string(x)}];")
    for d, n in edges:
        lines.append(f"{nodes[d]} -> {nodes[n]};")
    lines.append("}")
    return "\n".join(lines)
