"""The LLVM line tokenizer (pylogic/ir/llvm/types.py) against a plain one-match-per-token oracle:
the fast tokenizer (whitespace folded into each token's match, interned tokens) must give the
same tokens and the same errors."""
import re

import pytest
from hypothesis import given, settings, strategies as st

from pylogic.ir.llvm.types import Cursor, Unsupported, parse_type, tokenize, IntT, PTR

# The tokenizer as first written: whitespace and comments are tokens of their own.
_ORACLE = re.compile(r"""
    (?P<ws>\s+|;[^\n]*)
  | (?P<cstr>c"[^"]*")
  | (?P<str>"[^"]*")
  | (?P<local>%(?:"[^"]*"|[-A-Za-z$._0-9]+))
  | (?P<glob>@(?:"[^"]*"|[-A-Za-z$._0-9]+))
  | (?P<meta>![-A-Za-z$._0-9]*)
  | (?P<attr>\#[0-9]+)
  | (?P<num>-?(?:0x[0-9A-Fa-f]+|\d+(?:\.\d+(?:e[-+]?\d+)?)?))
  | (?P<word>[A-Za-z_$.][-A-Za-z0-9_$.]*)
  | (?P<ellipsis>\.\.\.)
  | (?P<punct>[\[\]{}()<>,=*:])
""", re.VERBOSE)


def oracle(text):
    out, covered = [], 0
    for m in _ORACLE.finditer(text):
        if m.start() != covered:
            break
        covered = m.end()
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group()))
    if covered != len(text):
        return ("error", f"unrecognised LLVM text near {text[covered:covered + 20]!r}")
    return out


def fast(text):
    try:
        return [(t.kind, t.text) for t in tokenize(text)]
    except Unsupported as exc:
        return ("error", exc.reason)


FRAGMENTS = ["%x", "%1", '%"a b"', "@g", '@"q"', "i32", "ptr", "add", "nsw", ",", " ", "  ", "\t",
             "(", ")", "[", "]", "{", "}", "<", ">", "=", "*", ":", "...", "-5", "0x1F", "1.5e3",
             'c"hi\\00"', '"s"', "!0", "!dbg", "#0", "; note", ";", "x", ".", "-", "?", "~", '"',
             "0x", "c", "label", "\n"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=14))
@pytest.mark.slow
def test_tokenize_matches_oracle(parts):
    text = "".join(parts)
    assert fast(text) == oracle(text)


@pytest.mark.parametrize("text", [
    "  %conv = sext i32 %a to i64",
    "for.end:                                       ; preds = %for.cond, %entry",
    "add i32 %a, %b ; comment x y",
    '@.str = private unnamed_addr constant [3 x i8] c"hi\\00", align 1',
    "declare i32 @printf(ptr noundef, ...) #1",
    "store i32 0, ptr %x ?",
    "   ",
    "",
])
def test_tokenize_examples(text):
    assert fast(text) == oracle(text)


def test_comment_text_is_not_tokenized():
    assert [t.text for t in tokenize("ret void ; a b c")] == ["ret", "void"]


def test_unrecognised_text_is_reported():
    with pytest.raises(Unsupported, match="near '\\?'"):
        tokenize("add i32 ?")


def test_parse_type_shares_simple_types_but_reads_suffixes():
    assert parse_type(Cursor(tokenize("i32"))) == IntT(32)
    c = Cursor(tokenize("i32* %p"))
    assert parse_type(c) == PTR and c.peek().text == "%p"  # typed pointer
    c = Cursor(tokenize("i32 (i32, ...) %f"))
    assert parse_type(c).name == "fn" and c.peek().text == "%f"
    c = Cursor(tokenize("i32 (i32)"))
    assert parse_type(c, allow_fn=False) == IntT(32) and c.peek().text == "("
    c = Cursor(tokenize("ptr addrspace(1) %q"))
    assert parse_type(c) == PTR and c.peek().text == "%q"
