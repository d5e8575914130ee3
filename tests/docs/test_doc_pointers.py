"""Every page pathlogic points a user or a reader to exists: the ``docs/...`` names in the code,
the Datalog programs and the README, the pages ``doc_path`` prints (in a checkout and, through
setup.py's ``pylogic.docs``, in a wheel), and every relative link (and heading anchor) of README.md and docs/."""
from __future__ import annotations

import re
from pathlib import Path

from pylogic.report.docs import doc_path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pylogic", "facts_gen", "datalog", "benchmarks")


def test_docs_named_in_the_code_exist():
    named = set()
    for folder in SOURCES:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".dl"):
                named |= set(re.findall(r"docs/[\w./-]+\.md", path.read_text()))
    assert named, "the code names no page"
    assert [n for n in sorted(named) if not (ROOT / n).is_file()] == []


def test_the_code_points_to_no_file_outside_the_repository():
    outside = [f"{p.relative_to(ROOT)}" for folder in SOURCES for p in (ROOT / folder).rglob("*")
               if p.suffix in (".py", ".dl") and "../shared" in p.read_text()]
    assert outside == []


def test_doc_path_names_a_file_that_exists():
    for page in ("relations.md", "pir.md", "passes.md"):
        assert (Path.cwd() / doc_path(page)).is_file()


def test_the_wheel_ships_docs_beside_datalog():
    setup = (ROOT / "setup.py").read_text()
    assert '"pylogic.docs": "docs"' in setup and '"pylogic.docs": ["*.md", "**/*.md"]' in setup


def anchors(page: Path) -> set:
    """GitHub's anchors of a page's headings (lower case, punctuation dropped, spaces as -)."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", text, re.M)}


def test_relative_links_and_anchors_resolve():
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        for link in re.findall(r"\]\(([^)]+)\)", text):
            if link.startswith(("http://", "https://")):
                continue
            path, _, anchor = link.partition("#")
            target = (page.parent / path) if path else page
            if not target.exists():
                broken.append(f"{page.relative_to(ROOT)}: {link}")
            elif anchor and target.suffix == ".md" and anchor not in anchors(target):
                broken.append(f"{page.relative_to(ROOT)}: {link} (no such heading)")
    assert broken == []
