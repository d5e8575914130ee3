"""Rewrite clang-14 IR that LLVM 22 (llvmlite) no longer parses: constant expressions with
opcodes LLVM removed (zext, sext, icmp, select, and, or, shl, lshr, ashr, mul, ...) inside
instruction operands are hoisted into instructions placed just before their user (or, for a phi
operand, before the terminator of the incoming block); a kept constant expression (trunc, gep,
add, ...) around a hoisted one is hoisted with it (``trunc (i32 or (...) to i16)``). Constant expressions in global
initialisers cannot be hoisted and are left alone (LLVM then rejects the module).
"""
from __future__ import annotations

import re

from pylogic.ir.llvm.types import Cursor, Unsupported, parse_type, tokenize

REMOVED = ("zext", "sext", "icmp", "select", "and", "or", "shl", "lshr", "ashr", "mul",
           "udiv", "sdiv", "urem", "srem", "fcmp", "fneg", "fptrunc", "fpext", "fptoui",
           "fptosi", "uitofp", "sitofp", "extractvalue", "insertvalue")
#: Constant expressions LLVM still parses; one that holds a removed (hoisted) one is hoisted too,
#: since a constant cannot refer to an instruction.
KEPT = ("trunc", "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "getelementptr", "add",
        "sub", "xor")
_KEPT_FLAGS = ("inbounds", "nuw", "nsw")
_CASTS = ("zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "trunc",
          "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "getelementptr")
_FLAGS = ("nuw", "nsw", "exact")
#: A removed opcode (at a word's start: see _hint) before its operands' "(".
_HINT = re.compile(r"(?:%s)\s+(?:(?:nuw|nsw|exact|eq|ne|[su][lg][te]|o\w\w|u\w\w)\s+)*\("
                   % "|".join(REMOVED))
_WORD_CHAR = re.compile(r"\w")
_LABEL = re.compile(r'^("[^"]*"|[-A-Za-z$._0-9]+):')


def _hint(text: str) -> bool:
    """Whether ``\b`` + _HINT matches somewhere in ``text``: _HINT's matches tried in order,
    the first at a word's start wins (a pattern opening with ``\b`` is tried at every
    position of a clang module, 2.2x slower; #32)."""
    at = 0
    while True:
        m = _HINT.search(text, at)
        if m is None:
            return False
        at = m.start()
        if not at or not _WORD_CHAR.match(text, at - 1):
            return True
        at += 1


def needs_rewrite(text: str) -> bool:
    return _hint(text)


def _span(toks, i):
    """Index just past the balanced parenthesis group starting at toks[i] == '('."""
    depth = 0
    while True:
        depth += (toks[i].text == "(") - (toks[i].text == ")")
        i += 1
        if depth == 0:
            return i


def _join(toks) -> str:
    out = ""
    for t in toks:
        if out and not (t.text in (",", ")", "]", "}", "*") or out.endswith(("(", "[", "{"))):
            out += " "
        out += t.text
    return out


class _Hoister:
    def __init__(self):
        self.n = 0

    def rewrite(self, toks) -> tuple[list, list[str]]:
        """-> (tokens with removed constexprs replaced by %names, hoisted instruction lines)."""
        hoisted: list[str] = []
        out = self._expand(toks, hoisted)
        return out, hoisted

    def _expand(self, toks, hoisted):
        out, i = [], 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "word" and t.text in KEPT and (not out or out[-1].text != "="):
                j = i + 1
                while j < len(toks) and toks[j].kind == "word" and toks[j].text in _KEPT_FLAGS:
                    j += 1
                if j < len(toks) and toks[j].text == "(":
                    end = _span(toks, j)
                    mark = len(hoisted)
                    inner = self._expand(toks[j + 1:end - 1], hoisted)
                    if len(hoisted) > mark:  # it holds a hoisted value: an instruction too
                        out.append(type(t)("local", self._emit(t.text, toks[i + 1:j], inner, hoisted)))
                    else:
                        out.extend(toks[i:end])
                    i = end
                    continue
            if t.kind == "word" and t.text in REMOVED:
                j = i + 1
                pred = []
                while j < len(toks) and toks[j].kind == "word" and toks[j].text != "to" and toks[j + 0].text != "(":
                    pred.append(toks[j]); j += 1
                if j < len(toks) and toks[j].text == "(" and (not out or out[-1].text != "="):
                    end = _span(toks, j)
                    inner = self._expand(toks[j + 1:end - 1], hoisted)
                    name = self._emit(t.text, pred, inner, hoisted)
                    out.append(type(t)("local", name))
                    i = end
                    continue
            out.append(t)
            i += 1
        return out

    def _emit(self, op, pred, inner, hoisted) -> str:
        self.n += 1
        name = f"%__pl.ce{self.n}"
        if op in _CASTS or op == "select":
            body = _join(inner)
        else:  # binary / compare: drop the second operand's type
            c = Cursor(inner)
            parse_type(c)
            while c.i < len(inner) and inner[c.i].text != ",":
                if inner[c.i].text == "(":
                    c.i = _span(inner, c.i)
                else:
                    c.i += 1
            first = inner[:c.i]
            c.i += 1
            parse_type(c)
            body = _join(first) + ", " + _join(inner[c.i:])
        pred_text = " ".join(p.text for p in pred)
        hoisted.append(f"  {name} = {op} {pred_text + ' ' if pred_text else ''}{body}")
        return name


def expand_removed_constexprs(text: str) -> str:
    """Hoist removed constant expressions of instruction operands (see module docstring);
    ``text`` itself (the same object) when it has none."""
    if not needs_rewrite(text):
        return text
    lines = text.splitlines()
    h = _Hoister()
    out: list[str] = []
    in_fn = False
    # For phis: hoisted lines go before the terminator of the named incoming block.
    pending_by_block: dict[tuple[int, str], list[str]] = {}
    fn_index = 0
    block_of_line: list = []
    cur_block = None
    for line in lines:
        if line.startswith("define "):
            in_fn, fn_index, cur_block = True, fn_index + 1, None
            out.append(line); block_of_line.append(None); continue
        if in_fn and line.startswith("}"):
            in_fn = False
        # (a hint holds a "(": most lines have none, and the search tries every position)
        if not in_fn or not line.startswith("  ") or "(" not in line or not _hint(line):
            m = _LABEL.match(line) if in_fn else None
            if m:
                cur_block = m.group(1)
            out.append(line); block_of_line.append((fn_index, cur_block) if in_fn else None)
            continue
        try:
            toks = tokenize(line)
        except Unsupported:
            out.append(line); block_of_line.append((fn_index, cur_block)); continue
        is_phi = len(toks) > 2 and toks[1].text == "=" and toks[2].text == "phi"
        if is_phi:
            new, i = [], 0
            while i < len(toks):  # each [ value, %pred ] separately
                if toks[i].text == "[":
                    end = i
                    while toks[end].text != "]" or _depth(toks, i, end):
                        end += 1
                    pred = toks[end - 1].text[1:]
                    part, hoisted = h.rewrite(toks[i + 1:end - 2])
                    pending_by_block.setdefault((fn_index, pred), []).extend(hoisted)
                    new += [toks[i]] + part + toks[end - 2:end + 1]
                    i = end + 1
                else:
                    new.append(toks[i]); i += 1
            out.append("  " + _join(new)); block_of_line.append((fn_index, cur_block))
        else:
            new, hoisted = h.rewrite(toks)
            for hl in hoisted:
                out.append(hl); block_of_line.append((fn_index, cur_block))
            out.append("  " + _join(new)); block_of_line.append((fn_index, cur_block))
    if pending_by_block:
        out = _place_phi_hoists(out, block_of_line, pending_by_block)
    return "\n".join(out) + "\n"


def _depth(toks, start, end) -> int:
    d = 0
    for t in toks[start:end + 1]:
        d += (t.text in ("(", "[")) - (t.text in (")", "]"))
    return d


def _place_phi_hoists(out, block_of_line, pending):
    """Insert hoisted lines before the last instruction (terminator) of each named block."""
    last_line: dict = {}
    for k, key in enumerate(block_of_line):
        if key is not None and out[k].startswith("  ") and out[k].strip():
            last_line[key] = k
    entry_key = {}
    for key, k in last_line.items():
        entry_key.setdefault(key[0], None)
    inserts: dict[int, list[str]] = {}
    for (fn, label), lines_ in pending.items():
        k = last_line.get((fn, label))
        if k is None:
            k = last_line.get((fn, None))  # unnamed entry block
        if k is not None:
            inserts.setdefault(k, []).extend(lines_)
    result = []
    for k, line in enumerate(out):
        result.extend(inserts.get(k, []))
        result.append(line)
    return result
