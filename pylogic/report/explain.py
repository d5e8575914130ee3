"""Derivation trees and "why not" answers as text (``pathlogic explain``)."""
from __future__ import annotations


def derivation_text(tree: dict) -> str:
    """One line per node, indented by depth: the atom, then where it comes from (the rule's
    file:line and source line, an input fact, or a reference to the same atom shown above);
    the rule instance's checked non-atom literals (negations, constraints, aggregates) follow
    as ``where`` lines."""
    lines: list[str] = []

    def walk(node: dict, depth: int) -> None:
        pad = "  " * depth
        if node["kind"] == "input":
            lines.append(f"{pad}{node['atom']}    [input fact]")
            return
        if node["kind"] == "ref":
            lines.append(f"{pad}{node['atom']}    [derived above]")
            return
        if node["kind"] == "library":   # analysis/explain.user_level's folded rule set
            lines.append(f"{pad}{node['atom']}    [rule set {node['ruleset']}: {node['steps']} "
                         f"step{'s' if node['steps'] != 1 else ''} folded (--expand shows them); "
                         "from:]")
            for child in node["children"]:
                walk(child, depth + 1)
            return
        where = "fact" if not node["children"] and not node["checks"] else "rule"
        lines.append(f"{pad}{node['atom']}    [{where} {node['rule']}: {node['rule_text']}]")
        for check in node["checks"]:
            lines.append(f"{pad}  where {check}")
        for child in node["children"]:
            walk(child, depth + 1)

    walk(tree, 0)
    return "\n".join(lines)


def why_not_text(atom: str, answers: list[dict], is_input: bool) -> str:
    """Why ``atom`` does not hold: per rule that could derive it, how far an instance gets."""
    if is_input:
        return f"{atom} does not hold: it is an input relation and the facts do not contain it"
    if not answers:
        return f"{atom} does not hold: no rule derives that relation"
    lines = [f"{atom} does not hold; {len(answers)} rule(s) could derive it:"]
    _why_not_lines(answers, lines, "  ")
    return "\n".join(lines)


def _why_not_lines(answers: list[dict], lines: list[str], pad: str) -> None:
    for a in answers:
        lines.append(f"{pad}rule {a['rule']}: {a['rule_text']}")
        for lit in a["satisfied"]:
            lines.append(f"{pad}  holds    {lit}")
        if a.get("missing"):
            lines.append(f"{pad}  MISSING  {a['missing']}")
        lines.append(f"{pad}  ({a['reason']}{'; search truncated' if a.get('truncated') else ''})")
        because = a.get("because")
        if because:
            lines.append(f"{pad}  {because['atom']} does not hold because:")
            _why_not_lines(because["rules"], lines, pad + "    ")
