"""Import LLVM IR (textual, e.g. clang-14 output) into a PIR Module.

llvmlite (LLVM 22) parses and verifies the text and re-prints it with opaque pointers; the
importer then reads that printed text (llvmlite hides compare predicates, switch cases, GEP source
types and initialisers, DESIGN.md "Inputs"). Lowering rules are in ``pylogic/ir/llvm/lower.py``;
clang-14 constant expressions newer LLVM rejects are hoisted first (``constexpr.py``).

Functions outside the supported subset (floating point, vectors, inline asm, integers wider
than 64 bits -- kept out: PIR registers are 64-bit --, aggregate parameters, ``blockaddress``,
``llvm.frameaddress``, setjmp/longjmp, unknown intrinsics, ...) are kept as ``extern``
declarations, so calls to them stay verifiable, and reported with a reason.

The external globals ``stdin``/``stdout``/``stderr`` hold the interpreter's stand-in ``FILE *``
values (``pylogic.ir.llvm.conventions.FAKE_FILES``), so ``fprintf(stdout, ...)`` can be told apart
from ``fprintf(stderr, ...)``.

Aliases (``@b = alias T, ptr @a``) name the aliasee.

Globals whose initialisers hold addresses (``@p = global ptr @x``) get those addresses stored at
run time by a synthetic function ``@__pathlogic_init``, called first thing in ``@main``
(PIR globals are bytes only, docs/pir.md).
"""
from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field

from pylogic.errors import ImportError_, SourceLoc
from pylogic.ir.llvm.constexpr import expand_removed_constexprs
from pylogic.ir.llvm.conventions import FAKE_FILES, FAKE_FUNCTION_BASE
from pylogic.ir.llvm.lower import (FunctionLowerer, ModuleContext, NameTable, return_type,
                                   split_function)
from pylogic.ir.llvm.types import (PTR, ArrayT, Cursor, DataLayout, Unsupported, is_aggregate,
                                   parse_type, parse_type_definitions, tokenize)
from pylogic.ir.llvm import fastpath
from pylogic.ir.llvm.values import (Irregular, decode_cstring, layout_initializer, parse_value,
                                    write_initializer, write_int_initializer)
from pylogic.ir.model import (BinOp, Block, Call, Function, Global, GlobalAddr, Imm, Module, Reg,
                              Ret, Store)

INIT_FUNCTION = "@__pathlogic_init"
BUILTIN_ARITY = {"@memcpy": 3, "@memmove": 3, "@memset": 3, "@abort": 0, "@llvm.stacksave": 0,
                 "@llvm.stackrestore": 1}


@dataclass
class ImportReport:
    """What was imported: per function {name, status, reason, llvm_instructions, pir_instructions}."""
    path: str = "<input>"
    functions: list = field(default_factory=list)
    globals_skipped: list = field(default_factory=list)  # {name, reason}
    seconds: float = 0.0

    def add(self, name, status, reason, llvm_n, pir_n):
        self.functions.append({"name": name, "status": status, "reason": reason,
                               "llvm_instructions": llvm_n, "pir_instructions": pir_n})

    def function(self, name: str) -> dict | None:
        for f in self.functions:
            if f["name"] == name or f["name"] == "@" + name.lstrip("@"):
                return f
        return None

    @property
    def skipped(self) -> list:
        return [f for f in self.functions if f["status"] == "skipped"]

    @property
    def complete(self) -> bool:
        return not self.skipped and not self.globals_skipped

    def skipped_by_reason(self) -> dict:
        """{reason: [function names]}"""
        out: dict = {}
        for f in self.skipped:
            out.setdefault(f["reason"], []).append(f["name"])
        return out

    def totals(self) -> dict:
        imported = [f for f in self.functions if f["status"] == "imported"]
        llvm_all = sum(f["llvm_instructions"] for f in self.functions)
        llvm_imp = sum(f["llvm_instructions"] for f in imported)
        return {"functions": len(self.functions), "functions_imported": len(imported),
                "functions_skipped": len(self.functions) - len(imported),
                "llvm_instructions": llvm_all, "llvm_instructions_imported": llvm_imp,
                "pir_instructions": sum(f["pir_instructions"] for f in imported),
                "seconds": round(self.seconds, 4)}

    def to_dict(self) -> dict:
        return {"path": self.path, "totals": self.totals(), "functions": list(self.functions),
                "globals_skipped": list(self.globals_skipped),
                "skipped_by_reason": {r: n for r, n in self.skipped_by_reason().items()}}

    def summary(self) -> str:
        t = self.totals()
        lines = [f"{self.path}: imported {t['functions_imported']}/{t['functions']} functions, "
                 f"{t['llvm_instructions_imported']}/{t['llvm_instructions']} LLVM instructions "
                 f"-> {t['pir_instructions']} PIR instructions"]
        for reason, names in sorted(self.skipped_by_reason().items()):
            lines.append(f"  skipped ({reason}): {', '.join(names)}")
        for g in self.globals_skipped:
            lines.append(f"  global {g['name']} zero-filled: {g['reason']}")
        return "\n".join(lines)


def _parse_llvm(ll_text: str, path: str):
    try:
        import llvmlite.binding as llvm
    except ImportError as exc:  # pragma: no cover - llvmlite is a dependency
        raise ImportError_(f"llvmlite is not installed ({exc})", SourceLoc(path))
    try:
        mod = llvm.parse_assembly(ll_text)
        mod.verify()
    except RuntimeError as exc:
        try:    # clang-14 constant expressions LLVM 22 removed, hoisted if the text has any
            rewritten = expand_removed_constexprs(ll_text)   # (it searches for them once)
            if rewritten is not ll_text:
                mod = llvm.parse_assembly(rewritten)
                mod.verify()
                return mod
        except (RuntimeError, Unsupported):
            pass
        msg = str(exc)
        m = re.search(r"<string>:(\d+):(\d+): error: (.*)", msg)
        if m:
            raise ImportError_(m.group(3), SourceLoc(path, int(m.group(1)), int(m.group(2))))
        lines = [l.strip() for l in msg.strip().splitlines() if l.strip()]
        raise ImportError_("invalid LLVM IR: " + (" ".join(lines[:2]) if lines else "rejected by LLVM"),
                           SourceLoc(path))
    return mod


_GLOBAL_NAME = re.compile(r'@(?:"[^"]*"|[-A-Za-z$._0-9]+)')


def _symbol(text: str) -> str:
    """The ``@name`` token a printed global/function definition declares: its first ``@`` name
    (a quoted name may hold ``(`` or ``=``: ``@"f(int)"`` from ``__asm__("f(int)")``)."""
    m = _GLOBAL_NAME.search(text.split("\n", 1)[0])
    if m:
        return m.group(0)
    raise ImportError_(f"cannot find the symbol in {text[:60]!r}")


def import_llvm(ll_text: str, path: str = "<input>") -> tuple[Module, ImportReport]:
    """Lower LLVM textual IR to a PIR Module. Returns (module, report); unsupported functions are
    kept as externs and listed in the report. Raises ImportError_ for text LLVM rejects."""
    t0 = time.perf_counter()
    report = ImportReport(path=path)
    module_text = str(_parse_llvm(ll_text, path))  # printing re-numbers the module: print once
    layout = DataLayout(parse_type_definitions(module_text))
    symbols = NameTable("@")

    # Functions first: their names, and stand-in addresses for function pointers.
    # (The module is printed once and split here: printing each llvmlite value separately
    # re-numbers the whole module every time.)
    global_texts, fn_entries = _split_module(module_text)  # fn_entries: (name, text, is_declaration)
    functions = {name: symbols.get(name[1:]) for name, _, _ in fn_entries
                 if not name.startswith("@llvm.")}
    fake_addr = {name: FAKE_FUNCTION_BASE + 16 * k for k, (name, _, _) in enumerate(fn_entries)}
    arity = {name: (_param_count(text), _is_variadic(text)) for name, text, _ in fn_entries}

    # Globals: bytes + relocations.
    globals_out, relocations, global_names, bad_globals = [], [], {}, {}
    parsed_globals = []
    for text in global_texts:
        name = _symbol(text)
        global_names[name] = symbols.get(name[1:])
        parsed_globals.append((name, text))
    aliases = _aliases(module_text)
    for alias, target in aliases:  # @b = alias T, ptr @a: the same address
        if target in global_names:
            global_names[alias] = global_names[target]
        elif target in functions:
            functions[alias] = functions[target]
            fake_addr[alias] = fake_addr[target]
            arity[alias] = arity[target]
    for name, text in parsed_globals:
        size, init, relocs, reason = _lower_global(text, layout)
        if name[1:] in FAKE_FILES and _is_external(text) and size == 8:
            init = FAKE_FILES[name[1:]].to_bytes(8, "little")  # C streams (conventions.py)
        if reason:
            bad_globals[name] = reason
            report.globals_skipped.append({"name": name, "reason": reason})
        globals_out.append(Global(name=global_names[name], size=max(size, 1), init=bytes(init),
                                  loc=SourceLoc(path),
                                  const=_is_constant(text) and not relocs and not reason))
        relocations.extend((global_names[name], off, a) for off, _, a in relocs)

    ctx = ModuleContext(layout, global_names, functions, fake_addr, bad_globals)
    ctx.arity = arity
    ctx.defined = {name for name, _, is_declaration in fn_entries if not is_declaration}
    ctx.defined |= {a for a, t in aliases if t in ctx.defined}
    ctx.address_taken = _address_taken(module_text, functions)
    ctx.returns_aggregate = {name for name, text, is_declaration in fn_entries
                             if not is_declaration and _returns_aggregate(text, layout)}
    out_functions = []
    for name, text, is_declaration in fn_entries:
        if name.startswith("@llvm."):
            continue
        pir_name = functions[name]
        nparams, variadic = arity[name]
        if is_declaration:
            out_functions.append(_extern(pir_name, nparams, path, variadic))
            continue
        # skipped bodies keep the convention: the hidden trailing parameters (lower.py)
        nparams += int(variadic) + int(name in ctx.returns_aggregate)
        lowerer = FunctionLowerer(ctx, text, path)
        try:
            fn = lowerer.lower()
        except Unsupported as exc:
            _, blocks = split_function(text)
            report.add(pir_name, "skipped", exc.reason, sum(len(b) for _, b in blocks), 0)
            out_functions.append(_extern(pir_name, nparams, path, variadic))
            continue
        except (ValueError, KeyError, IndexError, StopIteration) as exc:
            _, blocks = split_function(text)
            report.add(pir_name, "skipped", f"importer could not read: {type(exc).__name__}",
                       sum(len(b) for _, b in blocks), 0)
            out_functions.append(_extern(pir_name, nparams, path, variadic))
            continue
        # typed parameters only where every call is a direct one the LLVM verifier type-checked
        fn = Function(name=fn.name, params=fn.params, blocks=fn.blocks, loc=SourceLoc(path),
                      param_types=() if name in ctx.address_taken else fn.param_types)
        report.add(pir_name, "imported", "", lowerer.llvm_instructions,
                   fn.instruction_count())
        out_functions.append(fn)

    present = {f.name for f in out_functions}
    for b in sorted(ctx.builtins_used):
        if b not in present:
            out_functions.append(_extern(b, BUILTIN_ARITY.get(b, 0), path))
    if relocations:
        out_functions = _add_init(out_functions, relocations, ctx, path)
    report.seconds = time.perf_counter() - t0
    return Module(functions=tuple(out_functions), globals=tuple(globals_out), path=path), report


#: A global's definition line: ``= `` and, somewhere after it, the word global or constant
#: (lazy: the first one decides; a greedy ``.*`` backtracked over every initialiser, #32).
_DEFINES_GLOBAL = re.compile(r"=\s.*?\b(?:global|constant)\b")


def _split_module(text: str):
    """Printed module -> ([global definition lines], [(name, function text, is_declaration)])."""
    globals_, fns = [], []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("@") and _DEFINES_GLOBAL.search(line):
            globals_.append(line)
        elif line.startswith("declare "):
            fns.append((_symbol(line), line, True))
        elif line.startswith("define "):
            j = i
            while j < len(lines) and not lines[j].startswith("}"):
                j += 1
            fns.append((_symbol(line), "\n".join(lines[i:j + 1]), False))
            i = j
        i += 1
    return globals_, fns


def _header(text: str):
    """The first ``define``/``declare`` line of a printed function, None if it has none: its
    first line, as ``_split_module`` cuts them (#32: three helpers split every function's
    whole text for its header, 0.1 s of the csmith 1-40 import); else the first such line."""
    first = text.partition("\n")[0].splitlines()
    if first and first[0].startswith(("define ", "declare ")):
        return first[0]
    return next((l for l in text.splitlines() if l.startswith(("define ", "declare "))), None)


def _returns_aggregate(text: str, layout: DataLayout) -> bool:
    header = _header(text)
    if header is None:
        raise StopIteration         # as before: every printed function has one
    try:
        return is_aggregate(return_type(header)[0], layout)
    except (Unsupported, StopIteration):
        return False


def _address_taken(module_text: str, functions: dict) -> set[str]:
    """Functions named anywhere except right before ``(`` (a definition, declaration or direct
    call): the possible targets of indirect calls."""
    names = set()
    for m in re.finditer(r'(@(?:"[^"]*"|[-A-Za-z$._0-9]+))(?![-A-Za-z$._0-9"])(?!\s*\()', module_text):
        if m.group(1) in functions:
            names.add(m.group(1))
    return names


def _aliases(module_text: str) -> list[tuple[str, str]]:
    """``@b = ... alias T, ptr @a`` lines -> [('@b', '@a')] (aliases of plain symbols only)."""
    if " alias " not in module_text:    # the line-anchored search tries every line (#32)
        return []
    return re.findall(r'^(@[-A-Za-z$._0-9]+) = (?:[a-z_]+ )*alias [^,]+, ptr (@[-A-Za-z$._0-9]+)\s*$',
                      module_text, re.M)


def _is_external(text: str) -> bool:
    """Whether a printed global is a declaration (``@x = external global ptr``)."""
    return bool(re.match(r"@\S+\s*=\s*(?:\w+\s+)*external\b", text))


def _is_constant(text: str) -> bool:
    """Whether a printed global definition is an LLVM ``constant`` (``@s = private
    unnamed_addr constant [3 x i8] c"ab\\00"``): its bytes never change (storing into it is
    undefined), so it imports as a ``const global`` (docs/pir.md "Extensions") -- only when all
    its bytes are known at import (no relocation: those are stored by ``__pathlogic_init``)."""
    return bool(re.match(r"@[-\w.$]+\s*=\s*(?:\w+\s+)*constant\b", text)) \
        and not _is_external(text)


def _param_count(text: str) -> int:
    """Number of fixed parameters of a printed define/declare."""
    line = _header(text)
    if line is None:
        raise StopIteration
    c = Cursor(tokenize(line))
    while not (c.peek().kind == "glob" and c.peek(1) is not None and c.peek(1).text == "("):
        c.next()
    c.next(); c.expect("(")
    n, depth = 0, 1
    seen_any = False
    while depth:
        t = c.next().text
        if t in ("(", "[", "{", "<"):
            depth += 1
        elif t in (")", "]", "}", ">"):
            depth -= 1
        elif t == "," and depth == 1:
            n += 1
        elif t == "...":
            n -= 1
        if depth and t != ",":
            seen_any = True
    return n + 1 if seen_any else 0


def _extern(name: str, nparams: int, path: str, variadic: bool = False) -> Function:
    params = tuple(f"%a{k}" for k in range(nparams)) + (("...",) if variadic else ())
    return Function(name=name, params=params, extern=True, loc=SourceLoc(path))


def _is_variadic(text: str) -> bool:
    """Whether a printed define/declare has a ``...`` parameter."""
    line = _header(text)
    if line is None:
        return False
    depth, params = 0, ""
    head = line.split("@", 1)[1] if "@" in line else line
    for ch in head[head.index("("):] if "(" in head else "":
        depth += (ch == "(") - (ch == ")")
        params += ch
        if depth == 0:
            break
    return params.rstrip(")").rstrip().endswith("...")


#: A printed global definition read without tokens when its initialiser holds integers only,
#: is a string or holds pointers: ``@name = [linkage words] global|constant TYPE INIT[, align N]``
#: (write_int_initializer, decode_cstring, fastpath.pointer_elements).
_GLOBAL_HEAD = re.compile(r"@[-A-Za-z$._0-9]+ = (?:[a-z_]+ )*?(?:global|constant) ")
_ALIGN_TAIL = re.compile(r", align \d+\Z")
_CSTRING = re.compile(r'c"([^"]*)"')


def _lower_int_global(text: str, layout: DataLayout):
    """_lower_global's result for a global initialised with integers only, with a string
    (``c"..."``) or a pointer or array of pointers each null, a global or a constant GEP of
    one; None for any other (nothing computed that the general path would not compute the same
    way)."""
    head = _GLOBAL_HEAD.match(text)
    if head is None:
        return None
    tail = _ALIGN_TAIL.search(text, head.end())
    rest = text[head.end():tail.start() if tail else len(text)]
    depth = 0                                   # TYPE ends at the first space outside brackets
    for i, ch in enumerate(rest):
        if ch in "[{<":
            depth += 1
        elif ch in "]}>":
            depth -= 1
        elif ch == " " and depth == 0:
            break
    else:
        return None
    ty = fastpath.type_of(rest[:i])
    if ty is None:
        return None
    try:
        size = layout.size(ty)
    except Unsupported:
        return None
    buf = bytearray(size)
    init = rest[i + 1:]
    if init[:2] == 'c"':                        # a string (csmith's @.str): as write_initializer
        text = _CSTRING.fullmatch(init)
        if text is None:
            return None
        v = decode_cstring(text[1])
        buf[0:len(v)] = v
        return size, buf, [], ""
    if ty is PTR or (type(ty) is ArrayT and ty.elem is PTR):     # csmith's pointer globals
        terms = fastpath.pointer_elements(init, None if ty is PTR else ty.count)
        if terms is None:
            return None
        relocs: list = []
        try:                                    # as write_initializer: element by element
            for k, term in enumerate(terms):
                layout_initializer(PTR, term, layout, buf, 8 * k, relocs)
        except Unsupported:
            return None
        return size, buf, relocs, ""
    return (size, buf, [], "") if write_int_initializer(ty, init, layout, buf) else None


def _lower_global(text: str, layout: DataLayout):
    """-> (size, init bytes, relocations, reason-if-unsupported)."""
    fast = _lower_int_global(text, layout) if fastpath.ENABLED else None
    if fast is not None:
        return fast
    c = Cursor(tokenize(text))
    c.next(); c.expect("=")
    while not (c.at("global") or c.at("constant")):
        t = c.next()
        if c.at("(") and t.text == "addrspace":
            c.next(); c.next(); c.expect(")")
    c.next()
    try:
        ty = parse_type(c)
        size = layout.size(ty)
    except Unsupported as exc:
        return 8, b"", [], exc.reason
    buf, relocs = bytearray(size), []
    if c.done() or c.at(","):
        return size, buf, [], ""  # external declaration: zero bytes
    start = c.i
    try:
        write_initializer(c, ty, layout, buf, 0, relocs, {})
        return size, buf, relocs, ""
    except (Irregular, Unsupported):
        c.i, buf, relocs = start, bytearray(size), []
    try:  # the reference: value terms, then their layout (its error, if any)
        value = parse_value(c, ty)
        layout_initializer(ty, value, layout, buf, 0, relocs)
    except Unsupported as exc:
        return size, bytearray(size), [], exc.reason
    return size, buf, relocs, ""


def _add_init(functions: list, relocations: list, ctx: ModuleContext, path: str) -> list:
    """Build ``@__pathlogic_init`` storing every relocated address, and call it from main. Each
    address plus offset is computed once, where it is first needed (one block: that ``add``
    comes before every use); csmith's tables of pointers into one array repeat a few: csmith
    44's 798 ``add``s were 416 addresses, the rest recomputed (issue #28 item 1)."""
    instrs: list = []
    made: dict = {}             # (global, offset) -> the register holding that address

    def address(gname: str, off: int):
        if not off:
            return GlobalAddr(gname)
        reg = made.get((gname, off))
        if reg is None:
            reg = made[(gname, off)] = Reg(f"%r{len(made) + 1}")
            instrs.append(BinOp(op="add", dest=reg.name, a=GlobalAddr(gname), b=Imm(off)))
        return reg
    for gname, off, a in relocations:
        if a.name not in ctx.fake_addr and a.name not in ctx.globals:
            continue
        addr = address(gname, off)          # the slot's address first, then the value's
        value = Imm(ctx.fake_addr[a.name] + a.offset) if a.name in ctx.fake_addr \
            else address(ctx.globals[a.name], a.offset)
        instrs.append(Store(addr=addr, value=value, size=8))
    init = Function(name=INIT_FUNCTION, params=(), loc=SourceLoc(path),
                    blocks=(Block(label="entry", instrs=tuple(instrs) + (Ret(),)),))
    out = []
    for f in functions:
        if f.name in ("@main", "main") and not f.extern:
            entry = f.blocks[0]
            entry = Block(label=entry.label, hyperblock=entry.hyperblock, annotations=entry.annotations,
                          instrs=(Call(dest=None, callee=INIT_FUNCTION, args=()),) + entry.instrs)
            f = Function(name=f.name, params=f.params, blocks=(entry,) + f.blocks[1:],
                         param_types=f.param_types,
                         extern=f.extern, annotations=f.annotations, loc=f.loc)
        out.append(f)
    return out + [init]


def import_coverage(reports: list[ImportReport]) -> dict:
    """Aggregate several reports: functions/instructions imported and skip reasons."""
    funcs = [f for r in reports for f in r.functions]
    imported = [f for f in funcs if f["status"] == "imported"]
    reasons = Counter(f["reason"] for f in funcs if f["status"] == "skipped")
    return {"functions": len(funcs), "functions_imported": len(imported),
            "llvm_instructions": sum(f["llvm_instructions"] for f in funcs),
            "llvm_instructions_imported": sum(f["llvm_instructions"] for f in imported),
            "skipped_by_reason": dict(reasons.most_common())}
