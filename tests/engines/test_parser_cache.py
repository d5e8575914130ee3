"""The Datalog parser's tables are read back from the user cache instead of being built again
(issue #32: building them cost 0.25 s of every ``pathlogic query``). The parser read back
parses every shipped program and reports syntax errors exactly as the one built from the
grammar; with the tables cached nothing is built; a damaged entry is rebuilt."""
from __future__ import annotations

import pytest

from pylogic.analysis.catalog import datalog_dir
from pylogic.engines import dialect
from pylogic.errors import DatalogError

#: Syntax errors of several kinds: unexpected tokens (the expected ones named), characters, end.
BAD = [".decl f(x number)\n", "f(1", "g(x) :- f(x),, h(x).\n",
       ".decl f(x: symbol)\nf(\"a\") :- !.\n", ".decl\n", "g(x) :- f(x) h(x).\n",
       ".decl f(x: number)\nf(1) :- 1 2.\n", "f(x) :- g(x) ~ 3.\n",
       ".type T = [a: number, b: symbol\n", ".output\n", "f(x) :- count : { g(x) } = 3 4.\n"]


@pytest.fixture
def cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("PATHLOGIC_CACHE", str(tmp_path))
    monkeypatch.delenv("PATHLOGIC_PROGRAM_CACHE", raising=False)   # follows PATHLOGIC_CACHE
    forget_parses()
    yield tmp_path
    forget_parses()


def forget_parses(parser=dialect._parser, parsed=dialect._parsed_items) -> None:
    """No parser built or read, no text parsed, in this process (the functions themselves, as
    a test may have replaced ``dialect._parser``)."""
    parser.cache_clear()
    parsed.cache_clear()


def outcome(parser, text: str, monkeypatch) -> str:
    """What ``parse_text`` gives with ``parser``: the items, or the located error."""
    monkeypatch.setattr(dialect, "_parser", lambda: parser)
    dialect._parsed_items.cache_clear()    # a text parsed before is not parsed again
    try:
        return repr(dialect.parse_text(text, "t.dl"))
    except DatalogError as exc:
        return str(exc)


class NotBuilt(dialect.Lark):
    def __init__(self, *args, **kwargs):
        raise AssertionError("the parser tables were built, not read from the cache")


def test_the_parser_read_back_is_the_one_built(cache_dir, monkeypatch):
    built = dialect._parser()
    assert list((cache_dir / "parsers").rglob("*")), "the tables were not saved"
    forget_parses()
    monkeypatch.setattr(dialect, "Lark", NotBuilt)   # Lark.load makes no Lark(...) call
    loaded = dialect._parser()
    monkeypatch.undo()
    assert loaded is not built
    texts = [p.read_text() for p in sorted(datalog_dir().rglob("*.dl"))]
    assert len(texts) > 10
    errors = [outcome(built, text, monkeypatch) for text in BAD]
    assert all(e.startswith("t.dl:") and "syntax error" in e for e in errors), errors
    assert any("expected" in e for e in errors)
    for text in texts + BAD:
        assert outcome(loaded, text, monkeypatch) == outcome(built, text, monkeypatch)


def test_a_damaged_entry_is_rebuilt(cache_dir):
    dialect._parser()
    (entry,) = [p for p in (cache_dir / "parsers").rglob("*") if p.is_file()]
    entry.write_bytes(b"not a parser")
    forget_parses()
    assert dialect.parse_text(".decl f(x: number)\n", "t.dl")[0].name == "f"
    forget_parses()
    assert entry.read_bytes() != b"not a parser"   # saved again


def test_no_cache_no_file(monkeypatch, tmp_path):
    monkeypatch.setenv("PATHLOGIC_CACHE", "off")
    monkeypatch.delenv("PATHLOGIC_PROGRAM_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    forget_parses()
    try:
        assert dialect.parse_text(".decl f(x: number)\n", "t.dl")[0].name == "f"
    finally:
        forget_parses()
    assert not list(tmp_path.rglob("*"))


def test_a_text_parsed_again_gives_the_same_items(monkeypatch):
    """``parse_text`` keeps what it parsed: the same items, in a list of the caller's own."""
    text = dialect.apply_conditionals((datalog_dir() / "dominance_frontier.dl").read_text(), {},
                                      "dominance_frontier.dl")
    first = dialect.parse_text(text, "dominator_tree.dl")
    first.clear()
    again = dialect.parse_text(text, "dominator_tree.dl")
    assert again and again == dialect.parse_text(text, "dominator_tree.dl")
    dialect._parsed_items.cache_clear()
    assert dialect.parse_text(text, "dominator_tree.dl") == again       # parsed afresh
    with pytest.raises(DatalogError, match="syntax error"):             # an error is not kept
        dialect.parse_text(BAD[1], "t.dl")
    with pytest.raises(DatalogError, match="syntax error"):
        dialect.parse_text(BAD[1], "t.dl")


def test_the_program_cache_may_live_apart(monkeypatch, tmp_path):
    """``PATHLOGIC_PROGRAM_CACHE`` holds what depends on pathlogic's source alone, whatever
    ``PATHLOGIC_CACHE`` says; ``off`` turns it off; unset, it follows ``PATHLOGIC_CACHE``."""
    from pylogic.user_cache import default_root, program_root
    monkeypatch.setenv("PATHLOGIC_CACHE", "off")
    monkeypatch.setenv("PATHLOGIC_PROGRAM_CACHE", str(tmp_path / "p"))
    assert default_root() is None and program_root() == tmp_path / "p"
    forget_parses()
    try:
        dialect.parse_text(".decl f(x: number)\n", "t.dl")
    finally:
        forget_parses()
    assert list((tmp_path / "p" / "parsers").rglob("*"))
    monkeypatch.setenv("PATHLOGIC_PROGRAM_CACHE", "off")
    assert program_root() is None
    monkeypatch.delenv("PATHLOGIC_PROGRAM_CACHE")
    monkeypatch.setenv("PATHLOGIC_CACHE", str(tmp_path / "u"))
    assert program_root() == default_root() == tmp_path / "u"
