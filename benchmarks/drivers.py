"""A ``main`` for a C test that has none (most of gcc.dg/tree-ssa: ``dg-do compile`` tests), so
that its functions can run, be compared before and after a pipeline, and be counted.

``add_driver`` appends to the prepared LLVM IR (``prepare_c``'s output, LLVM 14 text) a
``define i64 @main(i64 %sel, i64 %a0, ..., i64 %a5)`` that calls the ``%sel``-th testable
function once with integer arguments taken from ``%a0..%a5`` (truncated to each parameter's
type) and a fresh zeroed 4 KiB buffer for each pointer parameter, then returns the function's
result folded with the first words of every buffer (what the call wrote is observable).

The arguments come from main's parameters, so no analysis sees constants a caller would not
give: every function is analysed as if called from outside, as in the compile-only test. The
tests call functions they only declare (``foo()``, ``bar (x)``) and read global pointers nobody
sets: each declared function the interpreter does not provide gets a stub that returns the next
value of a pseudo-random sequence kept in a global (a value no analysis can predict; a pointer
result points into a buffer), and each global pointer that holds null is pointed at a fresh
zeroed buffer before the call. Every
version of the program (ours, LLVM's) gets the same driver, since it is added before any
pipeline runs. A function is testable when its parameters are integers or pointers (no
``byval``, floating point, vectors, aggregates, function-pointer types written inline) and it
returns void, an integer or a pointer (a pointer result is not observed).
"""
from __future__ import annotations

import re

#: argument vectors each function is called with (``%a0..%a5``)
ARGUMENT_VECTORS = ((0, 0, 0, 0, 0, 0), (1, 2, 3, 4, 5, 6), (7, -3, 100, -1, 0, 42))
MAX_PARAMS = 6
BUFFER_BYTES = 4096
CHECKSUM_WORDS = 16          # i64 words of each buffer folded into the result

_DEFINE = re.compile(r"^define\s+(?P<head>[^@]*?)@(?P<name>[-\w.$]+)\((?P<params>.*)\)(?P<tail>[^{]*)\{",
                     re.M)
_MAIN = re.compile(r"^define\s[^@]*@main\(", re.M)
_DECLARE = re.compile(r"^declare\s+(?P<head>[^@]*?)@(?P<name>[-\w.$]+)\((?P<params>.*)\)(?P<tail>.*)$", re.M)
_POINTER_GLOBAL = re.compile(
    r"^@(?P<name>[-\w.$]+) = (?:[a-z_]+ )*?global (?P<type>[^\s,]+\*)(?: (?:null|zeroinitializer))?(?:,|$)",
    re.M)
_INT = re.compile(r"^i(\d+)$")
_SKIP_PARAM_ATTRS = ("byval", "inalloca", "preallocated", "byref")
_LINKAGE_AND_ATTRS = {"dso_local", "internal", "private", "linkonce_odr", "weak_odr", "linkonce",
                      "weak", "available_externally", "hidden", "protected", "default",
                      "noundef", "signext", "zeroext", "inreg", "nonnull", "noalias",
                      "fastcc", "ccc", "coldcc", "local_unnamed_addr", "unnamed_addr",
                      "dllexport", "external", "extern_weak", "common"}


class DriverFunction:
    """One function the driver calls: its name, parameter types and return type."""

    def __init__(self, name: str, params: list[str], ret: str):
        self.name, self.params, self.ret = name, params, ret

    def __repr__(self):
        return f"DriverFunction({self.name!r}, {self.params!r}, {self.ret!r})"


def has_main(ll_text: str) -> bool:
    return _MAIN.search(ll_text) is not None


def testable_functions(ll_text: str) -> list[DriverFunction]:
    """The functions ``ll_text`` defines that the driver can call, in order of definition."""
    out = []
    for m in _DEFINE.finditer(ll_text):
        if "..." in m.group("params"):
            continue                                  # varargs
        ret = _return_type(m.group("head"))
        if ret is None:
            continue
        params = _split_top(m.group("params"))
        types = [_param_type(p) for p in params if p.strip()]
        if any(t is None for t in types) or len(types) > MAX_PARAMS:
            continue
        out.append(DriverFunction(m.group("name"), types, ret))
    return out


def add_driver(ll_text: str) -> tuple[str, list[tuple[tuple, tuple]], list[DriverFunction]]:
    """``ll_text`` with a driver ``@main`` appended, the candidate cases ``[(args, inputs)]``
    (every testable function with every argument vector) and the functions it calls. Nothing is
    added when ``ll_text`` already defines ``main`` or has no testable function."""
    if has_main(ll_text):
        return ll_text, [], []
    funcs = testable_functions(ll_text)
    if not funcs:
        return ll_text, [], []
    ll_text, stubs = _stub_declarations(ll_text)
    pointer_globals = [(m.group("name"), m.group("type")) for m in _POINTER_GLOBAL.finditer(ll_text)]
    nbuf = max((sum(t.endswith("*") for t in f.params) for f in funcs), default=0)
    lines = [f"@__pathlogic_buf{i} = internal global [{BUFFER_BYTES} x i8] zeroinitializer, align 16"
             for i in range(nbuf)]
    lines += [f"@__pathlogic_gbuf{i} = internal global [{BUFFER_BYTES} x i8] zeroinitializer, align 16"
              for i in range(len(pointer_globals))]
    args = ", ".join(f"i64 %a{i}" for i in range(MAX_PARAMS))
    lines += stubs
    lines += ["", f"define i64 @main(i64 %sel, {args}) {{", "entry:"]
    for i, (name, t) in enumerate(pointer_globals):
        lines += [f"  %g{i}.old = load {t}, {t}* @{name}",
                  f"  %g{i}.null = icmp eq {t} %g{i}.old, null",
                  f"  br i1 %g{i}.null, label %g{i}.set, label %g{i}.next",
                  f"g{i}.set:",
                  f"  %g{i}.buf = bitcast [{BUFFER_BYTES} x i8]* @__pathlogic_gbuf{i} to {t}",
                  f"  store {t} %g{i}.buf, {t}* @{name}",
                  f"  br label %g{i}.next",
                  f"g{i}.next:"]
    # the dispatch is a chain of compares, not a switch: the importer lowers a switch into this
    # chain while the LLVM pipelines' lowerswitch makes a binary search of it, so a switch gave
    # LLVM fewer executed conditionals in main alone (gcc.dg/tree-ssa ssa-thread-14.c: 54 vs 63)
    for k in range(len(funcs)):
        if k:
            lines.append(f"n{k}:")
        other = f"n{k + 1}" if k + 1 < len(funcs) else "none"
        lines += [f"  %s{k} = icmp eq i64 %sel, {k}",
                  f"  br i1 %s{k}, label %c{k}, label %{other}"]
    phis = []
    for k, f in enumerate(funcs):
        lines.append(f"c{k}:")
        actuals, ints, ptrs = [], 0, 0
        for j, t in enumerate(f.params):
            if t.endswith("*"):
                lines.append(f"  %c{k}.p{j} = bitcast [{BUFFER_BYTES} x i8]* @__pathlogic_buf{ptrs} to {t}")
                ptrs += 1
            else:
                bits = int(_INT.match(t).group(1))
                if bits == 64:
                    lines.append(f"  %c{k}.p{j} = add i64 %a{ints}, 0")
                else:
                    lines.append(f"  %c{k}.p{j} = trunc i64 %a{ints} to {t}")
                ints += 1
            actuals.append(f"{t} %c{k}.p{j}")
        call = f"call {f.ret} @{f.name}({', '.join(actuals)})"
        m = _INT.match(f.ret)
        if m:
            lines.append(f"  %c{k}.r = {call}")
            bits = int(m.group(1))
            if bits == 64:
                lines.append(f"  %c{k}.x = add i64 %c{k}.r, 0")
            else:
                lines.append(f"  %c{k}.x = {'zext' if bits == 1 else 'sext'} {f.ret} %c{k}.r to i64")
        else:
            lines.append(f"  {'%c' + str(k) + '.r = ' if f.ret != 'void' else ''}{call}")
            lines.append(f"  %c{k}.x = add i64 0, 0")
        lines.append("  br label %done")
        phis.append(f"[ %c{k}.x, %c{k} ]")
    lines += ["none:", "  br label %done", "done:",
              f"  %r = phi i64 {', '.join(phis + ['[ 0, %none ]'])}"]
    acc = "%r"
    buffers = [f"buf{i}" for i in range(nbuf)] + [f"gbuf{i}" for i in range(len(pointer_globals))]
    for b, buf in enumerate(buffers):
        for w in range(CHECKSUM_WORDS):
            lines.append(f"  %b{b}w{w}.a = getelementptr inbounds [{BUFFER_BYTES} x i8], "
                         f"[{BUFFER_BYTES} x i8]* @__pathlogic_{buf}, i64 0, i64 {8 * w}")
            lines.append(f"  %b{b}w{w}.p = bitcast i8* %b{b}w{w}.a to i64*")
            lines.append(f"  %b{b}w{w} = load i64, i64* %b{b}w{w}.p, align 8")
            lines.append(f"  %h{b}w{w} = xor i64 {acc}, %b{b}w{w}")
            acc = f"%h{b}w{w}"
    lines += [f"  ret i64 {acc}", "}", ""]
    cases = [((k, *vec), ()) for k in range(len(funcs)) for vec in ARGUMENT_VECTORS]
    return ll_text.rstrip("\n") + "\n\n" + "\n".join(lines), cases, funcs


def _stub_declarations(ll_text: str) -> tuple[str, list[str]]:
    """``ll_text`` without the declarations of functions the interpreter does not provide, and
    a stub definition for each (those of other return types stay declared: calling them is the
    run-time error it always was)."""
    from pylogic.interp.builtins import Builtins
    from pylogic.interp.memory import Memory
    provided = set(Builtins(Memory(), []).table)
    stubs, drop = [], []
    for m in _DECLARE.finditer(ll_text):
        name = m.group("name")
        if name.startswith("llvm.") or name in provided:
            continue
        ret = _return_type(m.group("head"))
        if ret is None:
            continue
        body = ["  %s = load i64, i64* @__pathlogic_ext_state",
                "  %m = mul i64 %s, 6364136223846793005",
                "  %n = add i64 %m, 1442695040888963407",
                "  store i64 %n, i64* @__pathlogic_ext_state",
                "  %v = lshr i64 %n, 33"]
        if ret == "void":
            body.append("  ret void")
        elif ret.endswith("*"):
            body += [f"  %p = bitcast [{BUFFER_BYTES} x i8]* @__pathlogic_ext_buf to {ret}",
                     f"  ret {ret} %p"]
        elif ret == "i64":
            body.append("  ret i64 %v")
        else:
            body += [f"  %t = trunc i64 %v to {ret}", f"  ret {ret} %t"]
        params = ", ".join(p.strip() for p in _split_top(m.group("params")) if p.strip())
        stubs += ["", f"define internal {ret} @{name}({params}) {{", *body, "}"]
        drop.append(m.group(0))
    if not stubs:
        return ll_text, []
    for line in drop:
        ll_text = ll_text.replace(line + "\n", "", 1)
    head = ["@__pathlogic_ext_state = internal global i64 88172645463325252, align 8",
            f"@__pathlogic_ext_buf = internal global [{BUFFER_BYTES} x i8] zeroinitializer, align 16"]
    return ll_text, head + stubs


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _param_type(param: str) -> str | None:
    """The type of one parameter (``i32 noundef %x`` -> ``i32``), or None when untestable."""
    tokens = param.split()
    if not tokens or any(a in param for a in _SKIP_PARAM_ATTRS):
        return None
    t = tokens[0]
    if len(tokens) > 1 and tokens[1].startswith("("):
        return None                                   # function pointer type written inline
    if _INT.match(t) or (t.endswith("*") and "(" not in t):
        return t
    return None


def _return_type(head: str) -> str | None:
    words = [w for w in head.split() if w not in _LINKAGE_AND_ATTRS and not w.startswith("#")]
    words = [w for w in words if not re.match(r"^(align|dereferenceable(_or_null)?)\b", w)
             and not re.match(r"^\d+$", w) and not w.startswith("(")]
    if len(words) != 1:
        return None
    t = words[0]
    if t == "void" or _INT.match(t) or (t.endswith("*") and "(" not in t):
        return t
    return None
