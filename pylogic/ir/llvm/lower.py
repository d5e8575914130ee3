"""Lower one LLVM function (printed text, opaque pointers) to a PIR ``Function``.

Value model (every LLVM integer lives in a 64-bit PIR register):
  * iN for N >= 2 is kept SIGN-EXTENDED from bit N-1: after add/sub/mul/shl/trunc/lshr/div the
    result is re-normalised (``shl 64-N`` then ``sar 64-N``); unsigned operations (udiv, urem,
    lshr, inttoptr) zero-extend their operands first (``and`` with the mask). Unsigned compares
    need nothing: sign-extension is monotone for the unsigned order, so ``cmp.ltu`` on the
    canonical values equals ``icmp ult`` on iN.
  * i1 is kept as 0/1 (what ``cmp`` produces); ``sext i1`` is ``neg``, signed compares of i1
    negate first.
  * Pointers are 64-bit addresses; ptrtoint/inttoptr/bitcast are copies (inttoptr from iN<64
    zero-extends).
  * Loads of iN use ``load.N`` (sign-extending) so memory round-trips keep the canonical form;
    i1 uses ``load.1u``; widths that are not 1/2/4/8 bytes are assembled from smaller pieces.

Aggregates (struct/array values: ``load``/``store`` of a struct, ``extractvalue``,
``insertvalue``, ``{iN, i1}`` results of ``*.with.overflow``, small structs returned by value) are
held in several registers, one per scalar leaf (``types.aggregate_leaves``); they never touch
memory except where LLVM loads or stores them.

Calling convention for what LLVM passes that PIR cannot (hidden trailing parameters, in order):
  * a function returning an aggregate gets ``%sret.out``, a pointer to caller-allocated memory
    (one ``alloca`` per call site in the caller's entry block) where ``ret`` stores the leaves;
    the caller loads them back after the call;
  * a defined varargs function gets ``%va.area``: the caller stores the extra arguments into an
    array of 8-byte slots (a ``byval`` struct takes its size rounded up to 8) and passes its
    address; ``llvm.va_start`` builds an x86-64 ``__va_list_tag`` with ``gp_offset`` = 48 and
    ``fp_offset`` = 176 (every register slot used) and ``overflow_arg_area`` = the array, so
    clang's inline ``va_arg`` code reads the slots through its overflow path. Calls to external
    varargs functions (``printf``) pass all arguments as they are.

Indirect calls (PIR calls name their callee) become a chain comparing the pointer with the
stand-in address of each address-taken function of a matching arity, calling the one it equals
(``abort`` when none does). ``llvm.stacksave``/``llvm.stackrestore`` are interpreter builtins
that free the variable-length arrays of a scope when it is left.

Phis become copies on CFG edges with parallel-copy semantics (temporaries when a phi reads a
register another phi of the same edge writes). When the predecessor ends in an unconditional
branch the copies go at its end; otherwise a new edge block is created.
"""
from __future__ import annotations

import re

from pylogic.ir.llvm import intrinsics
from pylogic.ir.llvm import fastpath
from pylogic.ir.llvm.wide import WideLowering, is_wide
from pylogic.ir.llvm.types import (ArrayT, Cursor, DataLayout, FloatT, IntT, OtherT, PtrT,
                                   StructT, Unsupported, VectorT, VoidT, aggregate_leaves,
                                   element_type, is_aggregate, parse_type, tokenize)
from pylogic.ir.llvm.values import (FLAG_WORDS, Address, canon, eval_const, layout_initializer,
                                    parse_typed, parse_value, skip_attribute, skip_attributes)
from pylogic.ir.model import (Alloca, BinOp, Block, Br, Call, Cmp, CondBr, Function, GlobalAddr,
                              Imm, Load, Mov, Reg, Ret, Select, Store, UnOp)

_IDENT = re.compile(r"[A-Za-z_.$][A-Za-z0-9_.$]*\Z")
_FLOAT_TEXT = re.compile(r"(?<![%@\w.\"])(?:half|bfloat|float|double|x86_fp80|fp128|ppc_fp128)(?![\w.])"
                         r"|<\d+ x |\bfadd\b|\bfcmp\b")
#: Substrings every _FLOAT_TEXT match contains: a cheap test before the (slow) regex search.
_FLOAT_HINTS = ("half", "float", "double", "fp80", "fp128", "<", "fadd", "fcmp")
_NOT_IDENT_CHAR = re.compile(r"[^A-Za-z0-9_.$]")
_IDENT_START = re.compile(r"[A-Za-z_.$]")
#: '%x = ' starting an instruction line of a printed body (indented by two spaces; a switch's
#: case lines, by four, hold no definition), newline included: a pattern opening with a literal
#: is searched for it, where a multi-line ``^`` is tried at every position (2.8x slower, #32)
_DEF_LINE = re.compile(r'\n  (%(?:"[^"]*"|[-A-Za-z$._0-9]+)) = ')
_LABEL_LINE = re.compile(r'^("(?:[^"]*)"|[-A-Za-z$._0-9]+):')

ICMP = {"eq": "eq", "ne": "ne", "slt": "lt", "sle": "le", "sgt": "gt", "sge": "ge",
        "ult": "ltu", "ule": "leu", "ugt": "gtu", "uge": "geu"}
SIGNED_PREDS = frozenset(("slt", "sle", "sgt", "sge"))
#: Intrinsics with no effect on the interpreted semantics.
NOOP_INTRINSICS = ("llvm.lifetime.", "llvm.dbg.", "llvm.assume", "llvm.experimental.noalias.scope.decl",
                   "llvm.var.annotation", "llvm.donothing", "llvm.sideeffect", "llvm.invariant.",
                   "llvm.pseudoprobe", "llvm.prefetch", "llvm.codeview.annotation")
#: Markers before ``call`` (optimized code: ``%x = tail call i32 @f()``); hints to the code
#: generator only.
CALL_MARKERS = frozenset(("tail", "musttail", "notail"))
MEM_INTRINSICS = {"llvm.memcpy.": "@memcpy", "llvm.memmove.": "@memmove", "llvm.memset.": "@memset"}
CALL_PREFIX_WORDS = frozenset(("tail", "musttail", "notail", "fastcc", "ccc", "coldcc", "cc",
                               "noundef", "signext", "zeroext", "inreg", "noalias", "nonnull",
                               "dereferenceable", "dereferenceable_or_null", "align", "nofpclass",
                               "range", "swiftcc", "x86_stdcallcc")) | FLAG_WORDS


def sanitize(name: str) -> str:
    """An LLVM name (sigil stripped, quotes removed) as a PIR identifier body."""
    # most names are already one ([A-Za-z_.$][A-Za-z0-9_.$]*) or an unnamed slot: no regex
    # (#32: the two substitutions were 2% of the import of csmith 1-40)
    if name.isascii():
        if name.replace(".", "_").replace("$", "_").isidentifier():
            return name
        if name.isdigit():
            return "$" + name
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    name = _NOT_IDENT_CHAR.sub("_", name) or "_"
    if not _IDENT_START.match(name):
        name = "$" + name  # numeric LLVM slots: %0 -> %$0
    return name


class NameTable:
    """Maps LLVM names to unique PIR names; fresh names never collide with mapped ones."""

    def __init__(self, sigil: str):
        self.sigil = sigil
        self.map: dict[str, str] = {}
        self.as_written: dict[str, str] = {}  # the same, by the name as given (sigil and all)
        self.used: set[str] = set()
        self.next: dict[str, int] = {}   # base -> the suffix to try first (constant-time fresh)

    def get(self, llvm_name: str) -> str:
        got = self.as_written.get(llvm_name)
        if got is not None:
            return got
        name = llvm_name[1:] if llvm_name[:1] in ("%", "@") else llvm_name
        got = self.map.get(name)
        if got is None:
            got = self._unique(self.sigil + sanitize(name))
            self.map[name] = got
        self.as_written[llvm_name] = got
        return got

    def fresh(self, hint: str) -> str:
        return self._unique(self.sigil + hint)

    def _unique(self, base: str) -> str:
        """``base``, else ``base$k`` for the first free k, counting on from the last one given
        for ``base`` (issue #12 item 3: restarting at 2 made N fresh names cost N^2)."""
        k = self.next.get(base, 1)
        name = base if k == 1 else f"{base}${k}"
        while name in self.used:
            k += 1
            name = f"{base}${k}"
        self.used.add(name)
        self.next[base] = k + 1
        return name


def split_function(text: str):
    """Printed ``define`` -> (header line, [(llvm_label, [instruction text, ...]), ...])."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("define "))
    header = lines[start]
    blocks: list[tuple[str | None, list[str]]] = []
    pending = ""
    for line in lines[start + 1:]:
        if line.startswith("}"):
            break
        if pending:
            pending += " " + line.strip()
            if pending.count("[") <= pending.count("]"):
                blocks[-1][1].append(pending); pending = ""
            continue
        stripped = line.strip()
        if not stripped or stripped[0] == ";":
            continue
        if line[0] != " ":
            m = _LABEL_LINE.match(line)
            if m:
                blocks.append((m.group(1), []))
                continue
        if not blocks:
            blocks.append((None, []))  # unnamed entry block
        if "switch" in stripped and stripped.count("[") > stripped.count("]") \
                and re.match(r"(?:%\S+ = )?switch\b", stripped):
            pending = stripped
        else:
            blocks[-1][1].append(stripped)
    return header, blocks


class ModuleContext:
    """What lowering a function needs to know about the module."""

    def __init__(self, layout: DataLayout, globals_: dict, functions: dict, fake_addr: dict,
                 bad_globals: dict):
        self.layout = layout
        self.globals = globals_        # '@x' (LLVM) -> PIR global name
        self.functions = functions     # '@f' (LLVM) -> PIR function name
        self.fake_addr = fake_addr     # '@f' -> integer stand-in for a function's address
        self.bad_globals = bad_globals  # '@x' -> reason its initialiser was not imported
        self.builtins_used: set[str] = set()
        self.defined: set[str] = set()  # '@f' with a body (the calling convention applies)
        self.arity: dict = {}  # '@f' -> (fixed parameter count, is variadic)
        self.address_taken: set[str] = set()  # '@f' used other than as a direct callee
        self.returns_aggregate: set[str] = set()  # '@f' with a hidden %sret.out
        #: (source type text, indices text) of a GEP with constant indices -> its byte offset
        #: under this module's layout (fastpath._gep)
        self.constant_gep_offsets: dict[tuple[str, str], int] = {}


def param_type(ty) -> str:
    """The PIR parameter type (docs/pir.md "Extensions") of an LLVM parameter type: the
    canonical form of iN (module docstring), ``u1`` for i1, ``sN`` for 2 <= N < 64; "" for
    anything else (i64, pointers)."""
    if isinstance(ty, IntT) and ty.bits < 64:
        return "u1" if ty.bits == 1 else f"s{ty.bits}"
    return ""


class FunctionLowerer:
    """Lowers one function; raises Unsupported(reason) for anything outside the subset."""

    def __init__(self, ctx: ModuleContext, text: str, path: str = "<input>"):
        self.ctx = ctx
        self.L = ctx.layout
        self.text = text
        self.regs = NameTable("%")
        self.labels = NameTable("")
        self.out_blocks: list[Block] = []
        self.cur: list = []
        self.llvm_instructions = 0
        self.agg: dict[str, list[str]] = {}  # PIR name of an aggregate value -> leaf registers
        self.entry_allocas: list = []  # call-site memory, allocated once in the entry block
        self.va_area: str | None = None  # hidden parameters (module docstring)
        self.ret_slot: str | None = None
        self.wide = WideLowering(self)  # integers wider than 64 bits (wide.py)
        self.local_ops: dict[str, Reg] = {}   # LLVM name as written -> its operand (``op``)
        self.const_ops: dict[tuple, Imm] = {}  # (bits, value term) -> its operand
        self.global_ops: dict[str, object] = {}  # '@g' -> its address operand

    # ------------------------------------------------------------ driver
    def lower(self) -> Function:
        if any(h in self.text for h in _FLOAT_HINTS) and _FLOAT_TEXT.search(self.text):
            raise Unsupported("floating point or vector")
        header, blocks = split_function(self.text)
        self.llvm_instructions = sum(len(b[1]) for b in blocks)
        name, params, byvals, ret_type, variadic = self._parse_header(header)
        # Unnamed entry block: its slot number follows the unnamed arguments.
        if blocks and blocks[0][0] is None:
            slot = sum(1 for p in params if re.fullmatch(r"%\d+", p[0]))
            blocks[0] = (str(slot), blocks[0][1])
        for p, _ in params:
            self.regs.get(p)
        # the instructions' destinations in order, by one search of the body (#32: a match per
        # instruction was 2% of the import)
        body = 0 if self.text.startswith("define ") else self.text.find("\ndefine ") + 1
        end = self.text.find("\n}", body)
        for dest in _DEF_LINE.findall(self.text, body, end if end >= 0 else len(self.text)):
            self.regs.get(dest)
        for label, _ in blocks:
            self.labels.get(label)
        self.phis = self._collect_phis(blocks)
        self.edge_labels: dict = {}
        self.pending_edges: list = []
        pir_params, param_types = [], []
        entry_prologue = []
        for pname, ty in params:
            param_types.append(param_type(ty) if pname not in byvals else "")
            if pname in byvals:
                inner = self.regs.fresh(sanitize(pname[1:]) + ".byval")
                pir_params.append(inner)
                size = self.L.size(byvals[pname])
                entry_prologue.append(Alloca(dest=self.regs.get(pname), size=Imm(size)))
                entry_prologue.append(Call(dest=None, callee=self._builtin("@memcpy"),
                                           args=(Reg(self.regs.get(pname)), Reg(inner), Imm(size))))
            else:
                pir_params.append(self.regs.get(pname))
        self.ret_type = ret_type
        if is_aggregate(ret_type, self.L):
            aggregate_leaves(ret_type, self.L)  # supported leaves only
            self.ret_slot = self.regs.fresh("sret.out")
            pir_params.append(self.ret_slot)
            param_types.append("")
        if variadic:
            self.va_area = self.regs.fresh("va.area")
            pir_params.append(self.va_area)
            param_types.append("")
        for k, (label, instrs) in enumerate(blocks):
            self.block_label = label
            self._start(self.labels.get(label))
            if k == 0:
                self.cur.extend(entry_prologue)
            for t in instrs:
                self._lower_instr(t)
        if self.entry_allocas:
            entry = self.out_blocks[0]
            self.out_blocks[0] = Block(label=entry.label, instrs=tuple(self.entry_allocas) + entry.instrs)
        return Function(name=name, params=tuple(pir_params), blocks=tuple(self.out_blocks),
                        param_types=tuple(param_types) if any(param_types) else ())

    def entry_alloca(self, size: int, hint: str) -> Reg:
        """Memory allocated once per call of this function (for one call site's use)."""
        r = self.regs.fresh(hint)
        self.entry_allocas.append(Alloca(dest=r, size=Imm(max(size, 1))))
        return Reg(r)

    def _start(self, label: str):
        self.cur = []
        self.cur_label = label

    def _finish(self, term):
        self.cur.append(term)
        self.out_blocks.append(Block(label=self.cur_label, instrs=tuple(self.cur)))
        self.cur = []

    def emit(self, ins):
        self.cur.append(ins)

    def tmp(self) -> str:
        return self.regs.fresh(".t")

    def _builtin(self, name: str) -> str:
        self.ctx.builtins_used.add(name)
        return name

    # ------------------------------------------------------------ header, phis
    def _parse_header(self, header: str):
        ret_type, c = return_type(header)
        name = self.ctx.functions[c.next().text]
        c.expect("(")
        params, byvals, variadic = [], {}, False
        while not c.accept(")"):
            if c.accept("..."):
                variadic = True
                continue
            ty = parse_type(c)
            if isinstance(ty, (FloatT, VectorT)):
                raise Unsupported("floating point or vector")
            if isinstance(ty, StructT) or isinstance(ty, ArrayT):
                raise Unsupported("aggregate parameter")
            if is_wide(ty):
                raise Unsupported(f"integer wider than 64 bits (i{ty.bits} parameter)")
            attrs = skip_attributes(c)
            pname = c.next().text if c.peek() is not None and c.peek().kind == "local" else f"%{len(params)}"
            params.append((pname, ty))
            if "byval" in attrs and attrs["byval"] is not None:
                byvals[pname] = attrs["byval"]
            c.accept(",")
        if isinstance(ret_type, (FloatT, VectorT)):
            raise Unsupported("floating point or vector")
        if is_wide(ret_type):
            raise Unsupported(f"integer wider than 64 bits (i{ret_type.bits} result)")
        return name, params, byvals, ret_type, variadic

    def _collect_phis(self, blocks) -> dict:
        """{llvm block: [(dest reg, type, {pred label: value})]}"""
        phis: dict = {}
        for label, instrs in blocks:
            for t in instrs:
                if " = phi " not in t:
                    continue
                got = fastpath.phi(t) if fastpath.ENABLED else None
                if got is not None:         # the common forms, without tokens
                    dest, ty, incoming = got
                    phis.setdefault(label, []).append((self.regs.get(dest), ty, incoming))
                    continue
                c = Cursor(tokenize(t))
                dest = c.next().text; c.expect("="); c.expect("phi")
                while c.peek().text in FLAG_WORDS:
                    c.next()
                ty = parse_type(c)
                if is_aggregate(ty, self.L):
                    aggregate_leaves(ty, self.L)
                elif not is_wide(ty):
                    self._check_scalar(ty)
                incoming = {}
                while c.accept("["):
                    v = parse_value(c, ty); c.expect(",")
                    pred = c.next().text[1:]
                    c.expect("]")
                    incoming.setdefault(pred, v)
                    if not c.accept(","):
                        break
                phis.setdefault(label, []).append((self.regs.get(dest), ty, incoming))
        return phis

    def _check_scalar(self, ty):
        if isinstance(ty, IntT):
            if ty.bits > 64:
                raise Unsupported(f"integer wider than 64 bits (i{ty.bits})")
            return
        if isinstance(ty, PtrT):
            return
        if isinstance(ty, (FloatT, VectorT)):
            raise Unsupported("floating point or vector")
        raise Unsupported("first-class aggregate value")

    # ------------------------------------------------------------ edges (phi copies)
    def _edge_target(self, succ: str) -> str:
        """The PIR label to jump to for LLVM edge (current block -> succ); creates an edge block
        holding the phi copies when ``succ`` has phis."""
        pred = self.block_label
        if succ not in self.phis:
            return self.labels.get(succ)
        key = (pred, succ)
        if key not in self.edge_labels:
            self.edge_labels[key] = self.labels.fresh(f"{sanitize(pred)}.to.{sanitize(succ)}")
            self.pending_edges.append(key)
        return self.edge_labels[key]

    def _phi_copies(self, pred: str, succ: str):
        copies = []
        for dest, ty, incoming in self.phis[succ]:
            if pred not in incoming:
                raise Unsupported(f"phi in {succ} lacks a value for predecessor {pred}")
            if is_aggregate(ty, self.L):
                pairs = zip(self.agg_regs(dest, ty), self.agg_ops(ty, incoming[pred]))
            elif is_wide(ty):
                pairs = zip(self.wide.words(dest, ty.bits), self.wide.operands(ty, incoming[pred]))
            else:
                pairs = [(dest, self.op(ty, incoming[pred]))]
            for d, src in pairs:
                if not (isinstance(src, Reg) and src.name == d):
                    copies.append((d, src))
        dests = {d for d, _ in copies}
        clobbered = [s for _, s in copies if isinstance(s, Reg) and s.name in dests]
        if clobbered:  # parallel-copy semantics: read every source before any write
            saved = {}
            for _, s in copies:
                if isinstance(s, Reg) and s.name in dests and s.name not in saved:
                    saved[s.name] = self.tmp()
                    self.emit(Mov(dest=saved[s.name], src=s))
            copies = [(d, Reg(saved[s.name]) if isinstance(s, Reg) and s.name in saved else s)
                      for d, s in copies]
        for d, s in copies:
            self.emit(Mov(dest=d, src=s))

    def _flush_edges(self):
        pending, self.pending_edges = self.pending_edges, []
        for pred, succ in pending:
            self._start(self.edge_labels[(pred, succ)])
            self._phi_copies(pred, succ)
            self._finish(_br(self.labels.get(succ)))

    # ------------------------------------------------------------ operands and integers
    def op(self, ty, v):
        if isinstance(ty, IntT) and ty.bits > 64:  # is_wide, inline: 80k calls on csmith 1-10  # a position wide.py does not lower (call argument, return, index ...)
            raise Unsupported(f"integer wider than 64 bits (i{ty.bits} operand of this instruction)")
        kind = v[0]
        if kind == "local":
            # one operand object per register and per constant: they are immutable (#32:
            # building them anew for every use was 3% of the import)
            got = self.local_ops.get(v[1])
            if got is None:
                got = self.local_ops[v[1]] = Reg(self.regs.get(v[1]))
            return got
        if kind == "int" or kind == "zero":
            key = (ty.bits if type(ty) is IntT else 0, v)   # 0: ptr (no IntT has 0 bits)
            got = self.const_ops.get(key)
            if got is None:
                got = self.const_ops[key] = Imm(eval_const(ty, v, self.L))
            return got
        if kind == "global":            # its address (eval_const's), one operand per name
            got = self.global_ops.get(v[1])
            if got is None:
                got = self.global_ops[v[1]] = self.address(Address(v[1], 0))
            return got
        if kind == "float":
            raise Unsupported("floating point")
        if kind in ("agg", "cstr"):
            raise Unsupported("first-class aggregate value")
        val = eval_const(ty, v, self.L)
        if isinstance(val, Address):
            return self.address(val)
        return Imm(val)

    def agg_regs(self, name: str, ty) -> list[str]:
        """The leaf registers of aggregate value ``name`` (a PIR register name) of type ``ty``."""
        regs = self.agg.get(name)
        if regs is None:
            leaves = aggregate_leaves(ty, self.L)
            regs = [self.regs.fresh(f"{name[1:]}.{'.'.join(map(str, p))}") for p, _, _ in leaves]
            self.agg[name] = regs
        return regs

    def agg_ops(self, ty, v) -> list:
        """Operands for the leaves of an aggregate value or constant ``v`` of type ``ty``."""
        kind = v[0]
        if kind == "local":
            return [Reg(r) for r in self.agg_regs(self.regs.get(v[1]), ty)]
        if kind == "zero":
            return [Imm(0) for _ in aggregate_leaves(ty, self.L)]
        rt = self.L.resolve(ty)
        if kind == "cstr" and isinstance(rt, ArrayT):
            data = v[1].ljust(rt.count, b"\0")
            return [Imm(canon(b, 8)) for b in data[:rt.count]]
        if kind == "agg":
            out = []
            for et, ev in v[1]:
                out += self.agg_ops(et, ev) if is_aggregate(et, self.L) else [self.op(et, ev)]
            return out
        raise Unsupported("first-class aggregate value")

    def address(self, a: Address):
        name, off = a.name, a.offset
        if name in self.ctx.fake_addr:
            return Imm(self.ctx.fake_addr[name] + off)
        if name in self.ctx.bad_globals:
            raise Unsupported(f"uses global {name} ({self.ctx.bad_globals[name]})")
        if name not in self.ctx.globals:
            raise Unsupported(f"unknown global {name}")
        g = GlobalAddr(self.ctx.globals[name])
        if off == 0:
            return g
        t = self.tmp()
        self.emit(BinOp(op="add", dest=t, a=g, b=Imm(off)))
        return Reg(t)

    def normalise(self, dest: str, src, bits: int):
        """dest := canonical iN value of ``src``'s low N bits."""
        if isinstance(src, Imm):
            self.emit(Mov(dest=dest, src=Imm(canon(src.value, bits))))
        elif bits >= 64:
            self.emit(Mov(dest=dest, src=src))
        elif bits == 1:
            self.emit(BinOp(op="and", dest=dest, a=src, b=Imm(1)))
        else:
            t = self.tmp()
            self.emit(BinOp(op="shl", dest=t, a=src, b=Imm(64 - bits)))
            self.emit(BinOp(op="sar", dest=dest, a=Reg(t), b=Imm(64 - bits)))

    def zext_op(self, a, bits: int):
        """The operand zero-extended from N bits (i1 and i64 already are)."""
        if bits in (1, 64) or bits > 64:
            return a
        mask = (1 << bits) - 1
        if isinstance(a, Imm):
            return Imm(a.value & mask)
        t = self.tmp()
        self.emit(BinOp(op="and", dest=t, a=a, b=Imm(mask)))
        return Reg(t)

    def sext_op(self, a, bits: int):
        """The operand as a signed value (only i1 differs from its canonical form)."""
        if bits != 1:
            return a
        if isinstance(a, Imm):
            return Imm(-(a.value & 1))
        t = self.tmp()
        self.emit(UnOp(op="neg", dest=t, a=a))
        return Reg(t)

    # ------------------------------------------------------------ instructions
    def _lower_instr(self, text: str):
        if fastpath.ENABLED and fastpath.read_line(self, text):  # common forms, no tokens
            return
        toks = tokenize(text)
        c = Cursor(toks)
        dest = None
        if len(toks) > 1 and toks[0].kind == "local" and toks[1].text == "=":
            dest = self.regs.get(toks[0].text); c.i = 2
        opcode = c.next().text
        if opcode in CALL_MARKERS:  # tail/musttail/notail call: a hint, same semantics
            opcode = c.next().text
        handler = getattr(self, "_i_" + opcode, None)
        if handler is None:
            raise Unsupported(f"instruction '{opcode}'")
        handler(c, dest)

    # arithmetic
    def _binary(self, c, dest, opcode):
        while c.peek().text in FLAG_WORDS:
            c.next()
        ty = parse_type(c)
        if is_wide(ty):
            av = parse_value(c, ty); c.expect(","); bv = parse_value(c, ty)
            self.wide.binary(opcode, dest, ty, av, bv)
            return
        self._check_scalar(ty)
        if not isinstance(ty, IntT):
            raise Unsupported(f"{opcode} on {ty}")
        av = parse_value(c, ty); c.expect(","); bv = parse_value(c, ty)
        self.binary(dest, opcode, ty, av, bv)

    def binary(self, dest, opcode, ty, av, bv):
        """dest := av OPCODE bv on a scalar iN ``ty`` (values as parse_value gives them)."""
        bits = ty.bits
        a = self.op(ty, av); b = self.op(ty, bv)
        if opcode in ("and", "or", "xor"):
            self.emit(BinOp(op=opcode, dest=dest, a=a, b=b))
        elif opcode in ("add", "sub", "mul", "shl"):
            if bits >= 64:
                self.emit(BinOp(op=opcode, dest=dest, a=a, b=b))
            else:
                t = self.tmp()
                self.emit(BinOp(op=opcode, dest=t, a=a, b=b))
                self.normalise(dest, Reg(t), bits)
        elif opcode == "lshr":
            t = self.tmp()
            self.emit(BinOp(op="shr", dest=t, a=self.zext_op(a, bits), b=b))
            self.normalise(dest, Reg(t), bits)
        elif opcode == "ashr":
            if bits == 1:
                self.emit(Mov(dest=dest, src=a))
            else:
                self.emit(BinOp(op="sar", dest=dest, a=a, b=b))
        elif opcode in ("sdiv", "srem"):
            t = self.tmp()
            pop = "div" if opcode == "sdiv" else "rem"
            self.emit(BinOp(op=pop, dest=t, a=self.sext_op(a, bits), b=self.sext_op(b, bits)))
            self.normalise(dest, Reg(t), bits)
        elif opcode in ("udiv", "urem"):
            if bits < 64:
                t = self.tmp()
                if _power_of_two(b):        # the zero-extended dividend is non-negative
                    self._udiv_power_of_two(t, self.zext_op(a, bits), b, opcode == "urem")
                else:
                    pop = "div" if opcode == "udiv" else "rem"
                    self.emit(BinOp(op=pop, dest=t, a=self.zext_op(a, bits),
                                    b=self.zext_op(b, bits)))
                self.normalise(dest, Reg(t), bits)
            else:
                self._udiv64(dest, a, b, opcode == "urem")
        else:
            raise Unsupported(f"instruction '{opcode}'")

    def _udiv_power_of_two(self, dest, a, b, want_rem: bool):
        """``a`` (as an unsigned 64-bit value) divided by the power of two ``b``: one shift, or
        the remainder's mask (LLVM InstCombine's lshr / and)."""
        if want_rem:
            self.emit(BinOp(op="and", dest=dest, a=a, b=Imm(b.value - 1)))
        else:
            self.emit(BinOp(op="shr", dest=dest, a=a, b=Imm(b.value.bit_length() - 1)))

    def _udiv64(self, dest, a, b, want_rem: bool):
        """Unsigned 64-bit division from signed PIR ops: q = ((a >>> 1) / b) << 1, corrected once;
        a divisor with the top bit set gives q = (a >=u b). A constant power of two 2^k is one
        instruction, ``shr a, k`` or ``and a, 2^k - 1``, as LLVM's InstCombine writes it
        (issue #28 item 2: O2's version of nsieve-bits ran one shift where ours ran the
        sequence)."""
        if _power_of_two(b):
            self._udiv_power_of_two(dest, a, b, want_rem)
            return
        t = self.tmp; R = Reg
        bneg, bsafe, h, q1, q2, p, r, c, q2b, qb, q = (t() for _ in range(11))
        self.emit(Cmp(rel="lt", dest=bneg, a=b, b=Imm(0)))
        self.emit(Select(dest=bsafe, cond=R(bneg), a=Imm(1), b=b))
        self.emit(BinOp(op="shr", dest=h, a=a, b=Imm(1)))
        self.emit(BinOp(op="div", dest=q1, a=R(h), b=R(bsafe)))
        self.emit(BinOp(op="shl", dest=q2, a=R(q1), b=Imm(1)))
        self.emit(BinOp(op="mul", dest=p, a=R(q2), b=R(bsafe)))
        self.emit(BinOp(op="sub", dest=r, a=a, b=R(p)))
        self.emit(Cmp(rel="geu", dest=c, a=R(r), b=R(bsafe)))
        self.emit(BinOp(op="add", dest=q2b, a=R(q2), b=R(c)))
        self.emit(Cmp(rel="geu", dest=qb, a=a, b=b))
        qdest = q if want_rem else dest
        self.emit(Select(dest=qdest, cond=R(bneg), a=R(qb), b=R(q2b)))
        if want_rem:
            m = t()
            self.emit(BinOp(op="mul", dest=m, a=R(q), b=b))
            self.emit(BinOp(op="sub", dest=dest, a=a, b=R(m)))

    def _i_add(self, c, d): self._binary(c, d, "add")
    def _i_sub(self, c, d): self._binary(c, d, "sub")
    def _i_mul(self, c, d): self._binary(c, d, "mul")
    def _i_and(self, c, d): self._binary(c, d, "and")
    def _i_or(self, c, d): self._binary(c, d, "or")
    def _i_xor(self, c, d): self._binary(c, d, "xor")
    def _i_shl(self, c, d): self._binary(c, d, "shl")
    def _i_lshr(self, c, d): self._binary(c, d, "lshr")
    def _i_ashr(self, c, d): self._binary(c, d, "ashr")
    def _i_sdiv(self, c, d): self._binary(c, d, "sdiv")
    def _i_srem(self, c, d): self._binary(c, d, "srem")
    def _i_udiv(self, c, d): self._binary(c, d, "udiv")
    def _i_urem(self, c, d): self._binary(c, d, "urem")

    def _i_icmp(self, c, dest):
        while c.peek().text in FLAG_WORDS:
            c.next()
        pred = c.next().text
        ty = parse_type(c)
        if is_wide(ty):
            av = parse_value(c, ty); c.expect(","); bv = parse_value(c, ty)
            self.wide.icmp(pred, dest, ty, av, bv)
            return
        self._check_scalar(ty)
        av = parse_value(c, ty); c.expect(","); bv = parse_value(c, ty)
        self.icmp(dest, pred, ty, av, bv)

    def icmp(self, dest, pred, ty, av, bv):
        """dest := icmp PRED on scalar ``ty`` (checked by the caller)."""
        a = self.op(ty, av); b = self.op(ty, bv)
        if pred in SIGNED_PREDS and isinstance(ty, IntT) and ty.bits == 1:
            a, b = self.sext_op(a, 1), self.sext_op(b, 1)
        self.emit(Cmp(rel=ICMP[pred], dest=dest, a=a, b=b))

    def _i_select(self, c, dest):
        while c.peek().text in FLAG_WORDS:
            c.next()
        ct, cv = parse_typed(c); c.expect(",")
        if not isinstance(ct, IntT):
            raise Unsupported("vector select")
        at, av = parse_typed(c); c.expect(",")
        bt, bv = parse_typed(c)
        if is_aggregate(at, self.L):
            cond = self.op(ct, cv)
            for d, x, y in zip(self.agg_regs(dest, at), self.agg_ops(at, av), self.agg_ops(bt, bv)):
                self.emit(Select(dest=d, cond=cond, a=x, b=y))
            return
        if is_wide(at):
            self.wide.select(dest, self.op(ct, cv), at, av, bv)
            return
        self._check_scalar(at)
        self.emit(Select(dest=dest, cond=self.op(ct, cv), a=self.op(at, av), b=self.op(bt, bv)))

    def _i_freeze(self, c, dest):
        ty, v = parse_typed(c)
        if is_aggregate(ty, self.L):
            for d, x in zip(self.agg_regs(dest, ty), self.agg_ops(ty, v)):
                self.emit(Mov(dest=d, src=x))
            return
        if is_wide(ty):
            self.wide.copy(dest, ty, v)
            return
        self._check_scalar(ty)
        self.emit(Mov(dest=dest, src=self.op(ty, v)))

    # aggregates
    def _indices(self, c) -> tuple:
        idx = []
        while c.accept(","):
            if c.peek().kind == "meta":
                break
            idx.append(int(c.next().text))
        return tuple(idx)

    def _leaf_range(self, ty, idx) -> tuple[int, int]:
        """Positions [lo, hi) of the leaves under index path ``idx`` of aggregate ``ty``."""
        leaves = aggregate_leaves(ty, self.L)
        pos = [k for k, (p, _, _) in enumerate(leaves) if p[:len(idx)] == idx]
        if not pos:
            raise Unsupported("empty aggregate element")
        return pos[0], pos[-1] + 1

    def _i_extractvalue(self, c, dest):
        ty, v = parse_typed(c)
        idx = self._indices(c)
        et = element_type(ty, idx, self.L)
        ops = self.agg_ops(ty, v)
        lo, hi = self._leaf_range(ty, idx)
        if is_aggregate(et, self.L):
            for d, x in zip(self.agg_regs(dest, et), ops[lo:hi]):
                self.emit(Mov(dest=d, src=x))
        else:
            self._check_scalar(et)
            self.emit(Mov(dest=dest, src=ops[lo]))

    def _i_insertvalue(self, c, dest):
        ty, v = parse_typed(c); c.expect(",")
        et, ev = parse_typed(c)
        idx = self._indices(c)
        ops = self.agg_ops(ty, v)
        lo, hi = self._leaf_range(ty, idx)
        if is_aggregate(et, self.L):
            ops[lo:hi] = self.agg_ops(et, ev)
        else:
            self._check_scalar(et)
            ops[lo] = self.op(et, ev)
        outs = self.agg_regs(dest, ty)
        moves = [(d, x) for d, x in zip(outs, ops) if not (isinstance(x, Reg) and x.name == d)]
        # %a = insertvalue %a... cannot happen in SSA, so plain moves are parallel-safe
        for d, x in moves:
            self.emit(Mov(dest=d, src=x))

    # casts
    def _cast(self, c, dest, opcode):
        while c.peek().text in FLAG_WORDS:
            c.next()
        st, v = parse_typed(c)
        c.expect("to")
        dt = parse_type(c)
        self.cast(dest, opcode, st, v, dt)

    def cast(self, dest, opcode, st, v, dt):
        """dest := OPCODE ``v`` of type ``st`` to ``dt``."""
        if is_wide(st) or is_wide(dt):
            for t in (st, dt):
                if not is_wide(t):
                    self._check_scalar(t)
            self.wide.cast(opcode, dest, st, v, dt)
            return
        self._check_scalar(st); self._check_scalar(dt)
        a = self.op(st, v)
        sbits = st.bits if isinstance(st, IntT) else 64
        dbits = dt.bits if isinstance(dt, IntT) else 64
        if opcode == "zext" or (opcode == "inttoptr" and sbits < 64):
            if sbits == 1 or sbits >= 64:
                self.emit(Mov(dest=dest, src=a))
            else:
                self.emit(Mov(dest=dest, src=Imm(a.value & ((1 << sbits) - 1))) if isinstance(a, Imm)
                          else BinOp(op="and", dest=dest, a=a, b=Imm((1 << sbits) - 1)))
        elif opcode == "sext":
            self.emit(Mov(dest=dest, src=self.sext_op(a, sbits)))
        elif opcode in ("trunc", "ptrtoint") and dbits < sbits:
            self.normalise(dest, a, dbits)
        else:  # bitcast, addrspacecast, same-width ptrtoint/inttoptr
            self.emit(Mov(dest=dest, src=a))

    def _i_trunc(self, c, d): self._cast(c, d, "trunc")
    def _i_zext(self, c, d): self._cast(c, d, "zext")
    def _i_sext(self, c, d): self._cast(c, d, "sext")
    def _i_ptrtoint(self, c, d): self._cast(c, d, "ptrtoint")
    def _i_inttoptr(self, c, d): self._cast(c, d, "inttoptr")
    def _i_bitcast(self, c, d): self._cast(c, d, "bitcast")
    def _i_addrspacecast(self, c, d): self._cast(c, d, "addrspacecast")

    # memory
    def _i_alloca(self, c, dest):
        c.accept("inalloca")
        ty = parse_type(c)
        size = self.L.size(ty)
        count = None
        if c.accept(",") and not c.at("align") and not c.at("addrspace"):
            nt, nv = parse_typed(c)
            count = self.op(nt, nv)
        self.alloca(dest, size, count)

    def alloca(self, dest, size: int, count=None):
        """dest := memory for ``count`` (an operand; None: one) objects of ``size`` bytes."""
        if count is None:
            self.emit(Alloca(dest=dest, size=Imm(size)))
        elif isinstance(count, Imm):
            self.emit(Alloca(dest=dest, size=Imm(size * count.value)))
        else:
            t = self.tmp()
            self.emit(BinOp(op="mul", dest=t, a=count, b=Imm(size)))
            self.emit(Alloca(dest=dest, size=Reg(t)))

    def _i_load(self, c, dest):
        c.accept("atomic"); c.accept("volatile")
        ty = parse_type(c); c.expect(",")
        pt, pv = parse_typed(c)
        self.load(dest, ty, pt, pv)

    def load(self, dest, ty, pt, pv):
        """dest := the ``ty`` value at pointer ``pv`` (of type ``pt``)."""
        addr = self.op(pt, pv)
        if is_aggregate(ty, self.L):
            for reg, (_, off, lt) in zip(self.agg_regs(dest, ty), aggregate_leaves(ty, self.L)):
                self.load_scalar(reg, lt, self._offset(addr, off))
            return
        if is_wide(ty):
            self.wide.load(dest, ty, addr)
            return
        self._check_scalar(ty)
        self.load_scalar(dest, ty, addr)

    def load_scalar(self, dest: str, ty, addr):
        """dest := the iN/ptr value at ``addr`` (canonical)."""
        if isinstance(ty, PtrT) or ty.bits == 64:
            self.emit(Load(dest=dest, addr=addr, size=8))
            return
        bits = ty.bits
        nbytes = (bits + 7) // 8
        if bits == 1:
            self.emit(Load(dest=dest, addr=addr, size=1, signed=False))
        elif nbytes * 8 == bits and nbytes in (1, 2, 4):
            self.emit(Load(dest=dest, addr=addr, size=nbytes, signed=True))
        else:  # odd widths: assemble little-endian pieces, then normalise
            acc = None
            for off, n in _pieces(nbytes):
                pa = self._offset(addr, off)
                t = self.tmp()
                self.emit(Load(dest=t, addr=pa, size=n, signed=False))
                if off:
                    s = self.tmp()
                    self.emit(BinOp(op="shl", dest=s, a=Reg(t), b=Imm(8 * off)))
                    t = s
                if acc is None:
                    acc = t
                else:
                    o = self.tmp()
                    self.emit(BinOp(op="or", dest=o, a=Reg(acc), b=Reg(t)))
                    acc = o
            self.normalise(dest, Reg(acc), bits)

    def _i_store(self, c, dest):
        c.accept("atomic"); c.accept("volatile")
        ty, v = parse_typed(c); c.expect(",")
        pt, pv = parse_typed(c)
        self.store(ty, v, pt, pv)

    def store(self, ty, v, pt, pv):
        """Store ``v`` of type ``ty`` at pointer ``pv`` (of type ``pt``)."""
        addr = self.op(pt, pv)
        if not isinstance(ty, (IntT, PtrT)):
            if v[0] == "local" and is_aggregate(ty, self.L):
                for val, (_, off, lt) in zip(self.agg_ops(ty, v), aggregate_leaves(ty, self.L)):
                    self.store_scalar(lt, val, self._offset(addr, off))
                return
            self._store_aggregate(addr, ty, v)
            return
        if is_wide(ty):
            self.wide.store(ty, v, addr)
            return
        self._check_scalar(ty)
        self.store_scalar(ty, self.op(ty, v), addr)

    def store_scalar(self, ty, val, addr):
        """Store the iN/ptr operand ``val`` at ``addr``."""
        nbytes = 8 if isinstance(ty, PtrT) else (ty.bits + 7) // 8
        if nbytes in (1, 2, 4, 8):
            self.emit(Store(addr=addr, value=val, size=nbytes))
            return
        for off, n in _pieces(nbytes):
            piece = val
            if off:
                t = self.tmp()
                self.emit(BinOp(op="shr", dest=t, a=val, b=Imm(8 * off)))
                piece = Reg(t)
            self.emit(Store(addr=self._offset(addr, off), value=piece, size=n))

    def _store_aggregate(self, addr, ty, v):
        """A constant aggregate store (``store %struct.S zeroinitializer, ptr %p``)."""
        if v[0] not in ("zero", "agg", "cstr"):
            raise Unsupported("store of a first-class aggregate value")
        if isinstance(ty, (FloatT, VectorT)):
            raise Unsupported("floating point or vector")
        size = self.L.size(ty)
        buf, relocs = bytearray(size), []
        layout_initializer(ty, v, self.L, buf, 0, relocs)
        for off in range(0, size, 8):
            n = min(8, size - off)
            for o, k in _pieces(n):
                chunk = int.from_bytes(buf[off + o:off + o + k], "little")
                self.emit(Store(addr=self._offset(addr, off + o), value=Imm(chunk), size=k))
        for off, n, a in relocs:
            self.emit(Store(addr=self._offset(addr, off), value=self.address(a), size=8))

    def _offset(self, addr, off: int):
        if off == 0:
            return addr
        t = self.tmp()
        self.emit(BinOp(op="add", dest=t, a=addr, b=Imm(off)))
        return Reg(t)

    def _i_getelementptr(self, c, dest):
        while c.peek().text in FLAG_WORDS or c.peek().text.startswith("inrange"):
            c.next()
        src = parse_type(c); c.expect(",")
        bt, bv = parse_typed(c)
        self.gep(dest, src, bt, bv, lambda: _gep_index(c))

    def gep(self, dest, src, bt, bv, next_index):
        """dest := getelementptr ``src``, base ``bv`` (type ``bt``); ``next_index()`` gives the
        next index as (type, value), None after the last (read as they are used, so errors
        come in their order). Returns the byte offset when every index was a constant (the
        address is then ``offset_by(dest, base, offset)``), else None."""
        if isinstance(bt, VectorT):
            raise Unsupported("vector GEP")
        base = self.op(bt, bv)
        const, terms = 0, []
        ty = src
        first = True
        while (index := next_index()) is not None:
            it, iv = index
            if isinstance(it, VectorT):
                raise Unsupported("vector GEP")
            idx = self.op(it, iv)
            if first:
                stride, first = self.L.size(src), False
            else:
                rt = self.L.resolve(ty)
                if isinstance(rt, StructT):
                    if not isinstance(idx, Imm):
                        raise Unsupported("variable struct index")
                    const += self.L.field_offsets(rt)[idx.value]
                    ty = rt.fields[idx.value]
                    continue
                if not isinstance(rt, (ArrayT, VectorT)):
                    raise Unsupported(f"GEP into {rt}")
                stride, ty = self.L.size(rt.elem), rt.elem
            if isinstance(idx, Imm):
                const += idx.value * stride
            else:
                if isinstance(it, IntT) and it.bits == 1:
                    idx = self.sext_op(idx, 1)
                if stride == 1:
                    terms.append(idx)
                else:
                    t = self.tmp()
                    self.emit(BinOp(op="mul", dest=t, a=idx, b=Imm(stride)))
                    terms.append(Reg(t))
        if not terms:
            self.offset_by(dest, base, const)
            return const
        acc = base
        for k, term in enumerate(terms):
            last = k == len(terms) - 1 and const == 0
            t = dest if last else self.tmp()
            self.emit(BinOp(op="add", dest=t, a=acc, b=term))
            acc = Reg(t)
        if const:
            self.emit(BinOp(op="add", dest=dest, a=acc, b=Imm(const)))
        return None

    def offset_by(self, dest, base, const: int):
        """dest := the address ``base`` (an operand) plus the byte offset ``const``: what a GEP
        whose indices are all constants lowers to."""
        if const:
            self.emit(BinOp(op="add", dest=dest, a=base, b=Imm(const)))
        else:
            self.emit(Mov(dest=dest, src=base))

    # calls
    def _i_call(self, c, dest):
        while c.peek().kind == "word" and (c.peek().text in CALL_PREFIX_WORDS) and not _is_type_word(c.peek().text):
            if skip_attribute(c) is None:
                c.next()
        rt = parse_type(c, allow_fn=False)
        if is_wide(rt):
            raise Unsupported(f"integer wider than 64 bits (i{rt.bits} result)")
        c.skip_parenthesized()
        callee_tok = c.next()
        if callee_tok.text == "asm":
            raise Unsupported("inline asm")
        if callee_tok.kind != "glob":  # a register or a constant expression: indirect
            c.i -= 1
            target = self.op(PtrT(), parse_value(c, PtrT()))
            self._indirect_call(target, c, dest, rt)
            return
        callee = callee_tok.text
        if isinstance(rt, (FloatT, VectorT)):
            raise Unsupported("floating point or vector")
        if callee.startswith("@llvm."):
            self._intrinsic(callee[1:], c, dest, rt)
            return
        self.call(dest, rt, callee, lambda: self._typed_call_args(c))

    def call(self, dest, rt, callee: str, typed_args):
        """dest := a direct call of ``callee`` (not an intrinsic) returning ``rt``;
        ``typed_args()`` reads the arguments as [(type, attributes, operand)] (after the
        checks on the callee, as the text is read)."""
        returns_agg = not isinstance(rt, (IntT, PtrT, VoidT))
        if returns_agg:
            if not is_aggregate(rt, self.L):
                raise Unsupported("call returning an aggregate")
            if callee not in self.ctx.defined:
                raise Unsupported("call of an external function returning an aggregate")
        if callee in self.ctx.fake_addr and callee not in self.ctx.functions:
            raise Unsupported(f"call to {callee}")
        typed = typed_args()
        args = [a for _, _, a in typed]
        if callee not in self.ctx.functions:
            raise Unsupported(f"call to unknown {callee}")
        n, variadic = self.ctx.arity.get(callee, (len(args), False))
        if (len(args) < n) if variadic else (len(args) != n):
            raise Unsupported("call with a mismatched argument count")
        slot = None
        if returns_agg:  # hidden %sret.out (module docstring)
            slot = self.entry_alloca(self.L.size(rt), "sret.slot")
        if variadic and callee in self.ctx.defined:  # hidden %va.area (module docstring)
            args = args[:n] + ([slot] if slot else []) + [self._spill_varargs(typed[n:])]
        elif slot:
            args.append(slot)
        self.emit(Call(dest=None if isinstance(rt, VoidT) or returns_agg else dest,
                       callee=self.ctx.functions[callee], args=tuple(args)))
        if returns_agg:
            for reg, (_, off, lt) in zip(self.agg_regs(dest, rt), aggregate_leaves(rt, self.L)):
                self.load_scalar(reg, lt, self._offset(slot, off))

    def _indirect_call(self, target, c, dest, rt):
        """``call %fp(args)``: PIR calls name their callee, so compare the pointer with the
        stand-in address of every address-taken function of a matching arity (plain calling
        convention only) and call the one it equals; any other pointer aborts (a call through a
        bad pointer crashes natively too)."""
        if not isinstance(rt, (IntT, PtrT, VoidT)):
            raise Unsupported("indirect call returning an aggregate")
        args = self._call_args(c)
        candidates = []
        for name in sorted(self.ctx.address_taken):
            n, variadic = self.ctx.arity.get(name, (-1, False))
            if name not in self.ctx.functions or not ((len(args) >= n) if variadic else (len(args) == n)):
                continue
            if (variadic and name in self.ctx.defined) or name in self.ctx.returns_aggregate:
                raise Unsupported("indirect call of a hidden-parameter function")
            candidates.append(name)
        if not candidates or len(candidates) > 32:
            raise Unsupported("indirect call")
        here = self.block_label
        join = self.labels.fresh(f"{sanitize(here)}.icall.join")
        for k, name in enumerate(candidates):
            hit, miss = (self.labels.fresh(f"{sanitize(here)}.icall{k + 1}"),
                         self.labels.fresh(f"{sanitize(here)}.icall{k + 1}.no"))
            t = self.tmp()
            self.emit(Cmp(rel="eq", dest=t, a=target, b=Imm(self.ctx.fake_addr[name])))
            self._finish(CondBr(cond=Reg(t), if_true=hit, if_false=miss))
            self._start(hit)
            self.emit(Call(dest=None if isinstance(rt, VoidT) else dest,
                           callee=self.ctx.functions[name], args=tuple(args)))
            self._finish(_br(join))
            self._start(miss)
        self.emit(Call(dest=None, callee=self._builtin("@abort"), args=()))
        self._finish(_br(join))
        self._start(join)

    def _spill_varargs(self, extra) -> object:
        """Store the extra arguments of a call to a defined varargs function in 8-byte slots of
        call-site memory; returns its address (0 when there are none)."""
        sizes = [_round8(self.L.size(attrs["byval"])) if attrs.get("byval") is not None else 8
                 for _, attrs, _ in extra]
        if not sizes:
            return Imm(0)
        area = self.entry_alloca(sum(sizes), "va.slots")
        off = 0
        for (ty, attrs, val), size in zip(extra, sizes):
            at = self._offset(area, off)
            if attrs.get("byval") is not None:
                self.emit(Call(dest=None, callee=self._builtin("@memcpy"),
                               args=(at, val, Imm(self.L.size(attrs["byval"])))))
            else:
                self.emit(Store(addr=at, value=val, size=8))
            off += size
        return area

    def _call_args(self, c):
        return [a for _, _, a in self._typed_call_args(c)]

    def _typed_call_args(self, c):
        """``(ARGS)`` of a call -> [(type, attributes, operand)]."""
        c.expect("(")
        args = []
        while not c.accept(")"):
            ty = parse_type(c)
            if isinstance(ty, OtherT) and ty.name == "metadata":
                raise Unsupported("metadata argument")
            attrs = skip_attributes(c)
            v = parse_value(c, ty)
            if not isinstance(ty, (IntT, PtrT)):
                raise Unsupported("floating point or aggregate argument")
            args.append((ty, attrs, self.call_operand(ty, v)))
            c.accept(",")
        return args

    def call_operand(self, ty, v):
        """The operand of a call argument of type ``ty`` and value term ``v`` (the fast path's
        calls read their arguments through it too)."""
        self._check_scalar(ty)
        return self.op(ty, v)

    def _intrinsic(self, name, c, dest, rt):
        if name.startswith(NOOP_INTRINSICS):
            return
        if name.startswith(tuple(MEM_INTRINSICS)):
            self.memory_intrinsic(name, self._call_args(c))
            return
        base = name.split(".")[1] if "." in name else name
        if name.startswith("llvm.stacksave"):  # interpreter builtins: VLA memory is freed
            self.emit(Call(dest=dest, callee=self._builtin("@llvm.stacksave"), args=()))
            return
        if name.startswith("llvm.stackrestore"):
            self.emit(Call(dest=None, callee=self._builtin("@llvm.stackrestore"),
                           args=tuple(self._call_args(c)[:1])))
            return
        if base in ("trap", "ubsantrap"):
            self.emit(Call(dest=None, callee=self._builtin("@abort"), args=()))
            return
        if base in ("expect",):
            args = self._call_args(c)
            self.emit(Mov(dest=dest, src=args[0]))
            return
        if self._intrinsic_extra(name, base, c, dest, rt):
            return
        if base in ("smax", "smin", "umax", "umin", "abs") and isinstance(rt, IntT):
            args = self._call_args(c)
            bits = rt.bits
            cnd = self.tmp()
            if base == "abs":
                neg = self.tmp()
                a = self.sext_op(args[0], bits)
                self.emit(UnOp(op="neg", dest=neg, a=a))
                self.emit(Cmp(rel="lt", dest=cnd, a=a, b=Imm(0)))
                sel = self.tmp()
                self.emit(Select(dest=sel, cond=Reg(cnd), a=Reg(neg), b=a))
                self.normalise(dest, Reg(sel), bits)
                return
            a, b = args
            rel = {"smax": "gt", "smin": "lt", "umax": "gtu", "umin": "ltu"}[base]
            if bits == 1 and base in ("smax", "smin"):
                a, b = self.sext_op(a, 1), self.sext_op(b, 1)
                sel = self.tmp()
                self.emit(Cmp(rel=rel, dest=cnd, a=a, b=b))
                self.emit(Select(dest=sel, cond=Reg(cnd), a=a, b=b))
                self.normalise(dest, Reg(sel), 1)
                return
            self.emit(Cmp(rel=rel, dest=cnd, a=a, b=b))
            self.emit(Select(dest=dest, cond=Reg(cnd), a=a, b=b))
            return
        raise Unsupported(f"intrinsic {name.rsplit('.', 1)[0] if name.count('.') > 1 else name}")

    def memory_intrinsic(self, name: str, args: list) -> None:
        """A call of ``name`` (``llvm.memcpy.*``, ``llvm.memmove.*``, ``llvm.memset.*``: a
        MEM_INTRINSICS prefix) with the operands ``args``: the interpreter's builtin on the
        first three (the fourth, ``isvolatile``, changes nothing)."""
        builtin = next(b for prefix, b in MEM_INTRINSICS.items() if name.startswith(prefix))
        self.emit(Call(dest=None, callee=self._builtin(builtin), args=tuple(args[:3])))

    def _intrinsic_extra(self, name, base, c, dest, rt) -> bool:
        """Varargs, bit-manipulation, overflow and frame intrinsics; False if not one of them."""
        if base == "va_start":
            if self.va_area is None:
                raise Unsupported("va_start outside a varargs function")
            (ap,) = self._call_args(c)[:1]
            # x86-64 SysV __va_list_tag {gp_offset, fp_offset, overflow_arg_area, reg_save_area}
            self.emit(Store(addr=ap, value=Imm(48), size=4))
            self.emit(Store(addr=self._offset(ap, 4), value=Imm(176), size=4))
            self.emit(Store(addr=self._offset(ap, 8), value=Reg(self.va_area), size=8))
            self.emit(Store(addr=self._offset(ap, 16), value=Imm(0), size=8))
            return True
        if base == "va_end":
            return True
        if base == "va_copy":
            dst, src = self._call_args(c)[:2]
            self.emit(Call(dest=None, callee=self._builtin("@memcpy"), args=(dst, src, Imm(24))))
            return True
        if base == "is" and name.startswith("llvm.is.constant"):
            self.emit(Mov(dest=dest, src=Imm(0)))  # nothing is a compile-time constant here
            return True
        if base == "returnaddress":  # frameaddress stays unsupported: 0 breaks frame checks
            self.emit(Mov(dest=dest, src=Imm(intrinsics.RETURN_ADDRESS)))
            return True
        if base in ("ctpop", "cttz", "ctlz", "bswap") and isinstance(rt, IntT) and rt.bits <= 64:
            x = self._call_args(c)[0]
            if base == "bswap" and rt.bits % 16:
                raise Unsupported(f"intrinsic llvm.bswap.i{rt.bits}")
            getattr(intrinsics, base)(self, dest, x, rt.bits)
            return True
        if base in ("fshl", "fshr") and isinstance(rt, IntT) and rt.bits <= 64:
            a, b, s = self._call_args(c)[:3]
            intrinsics.funnel_shift(self, dest, a, b, s, rt.bits, base == "fshl")
            return True
        m = re.fullmatch(r"llvm\.([su](?:add|sub|mul))\.with\.overflow\.i(\d+)", name)
        if m:
            bits = int(m.group(2))
            if bits > 64 or bits == 1:
                raise Unsupported(f"intrinsic {name}")
            a, b = self._call_args(c)[:2]
            res, ovf = intrinsics.with_overflow(self, m.group(1), a, b, bits)
            r0, r1 = self.agg_regs(dest, rt)
            self.emit(Mov(dest=r0, src=res))
            self.emit(Mov(dest=r1, src=ovf))
            return True
        return False

    # terminators
    def _i_ret(self, c, dest):
        if c.accept("void"):
            self.ret(None, None)
        else:
            self.ret(*parse_typed(c))

    def ret(self, ty, v):
        """``ret ty v`` (``ret void``: ty None)."""
        if ty is None:
            self._finish(Ret())
        elif is_aggregate(ty, self.L):  # store into the caller's memory (%sret.out)
            for val, (_, off, lt) in zip(self.agg_ops(ty, v), aggregate_leaves(ty, self.L)):
                self.store_scalar(lt, val, self._offset(Reg(self.ret_slot), off))
            self._finish(Ret())
        else:
            self._check_scalar(ty)
            self._finish(Ret(value=self.op(ty, v)))
        self._flush_edges()

    def _i_br(self, c, dest):
        if c.accept("label"):
            self.jump(c.next().text[1:])
        else:
            ct, cv = parse_typed(c); c.expect(",")
            cond = self.op(ct, cv)
            c.expect("label"); t = c.next().text[1:]; c.expect(",")
            c.expect("label"); f = c.next().text[1:]
            self.branch(cond, t, f)

    def jump(self, succ: str):
        """``br label %succ`` (``succ`` without its ``%``)."""
        if succ in self.phis:  # single successor: copies at the end of this block
            self._phi_copies(self.block_label, succ)
        self._finish(_br(self.labels.get(succ)))
        self._flush_edges()

    def branch(self, cond, t: str, f: str):
        """``br i1 COND, label %t, label %f`` (the condition an operand already)."""
        self._finish(CondBr(cond=cond, if_true=self._edge_target(t), if_false=self._edge_target(f)))
        self._flush_edges()

    def _i_switch(self, c, dest):
        ty, v = parse_typed(c); c.expect(",")
        self._check_scalar(ty)
        x = self.op(ty, v)
        c.expect("label"); default = c.next().text[1:]
        c.expect("[")
        cases = []
        while not c.accept("]"):
            cv_t = parse_type(c)
            cv = canon(int(c.next().text), cv_t.bits) if c.peek().kind == "num" else \
                eval_const(cv_t, parse_value(c, cv_t), self.L)
            c.expect(","); c.expect("label")
            cases.append((cv, c.next().text[1:]))
        if not cases:
            self._finish(_br(self._edge_target(default)))
            self._flush_edges()
            return
        for k, (val, succ) in enumerate(cases):
            t = self.tmp()
            self.emit(Cmp(rel="eq", dest=t, a=x, b=Imm(val)))
            nxt = self.labels.fresh(f"{sanitize(self.block_label)}.case{k + 1}")
            self._finish(CondBr(cond=Reg(t), if_true=self._edge_target(succ), if_false=nxt))
            self._start(nxt)
        self._finish(_br(self._edge_target(default)))
        self._flush_edges()

    def _i_unreachable(self, c, dest):
        self.emit(Call(dest=None, callee=self._builtin("@abort"), args=()))
        self._finish(Ret())
        self._flush_edges()

    def _i_phi(self, c, dest):
        pass  # lowered as edge copies (_collect_phis)


def _gep_index(c):
    """The next typed index of a GEP at ``c``; None after the last."""
    if not c.accept(",") or c.at("!") or c.peek().kind == "meta":
        return None
    return parse_typed(c)


def _br(label: str):
    return Br(target=label)


def _round8(n: int) -> int:
    return (n + 7) // 8 * 8


def return_type(header: str):
    """The return type of a printed ``define``/``declare`` line and a cursor at its ``@name``."""
    toks = tokenize(header.split(" #", 1)[0] if " #" in header else header)
    at = next(k for k, t in enumerate(toks)
              if t.kind == "glob" and k + 1 < len(toks) and toks[k + 1].text == "(")
    for start in range(1, at):
        c = Cursor(toks[:at])
        c.i = start
        try:
            ty = parse_type(c, allow_fn=False)
        except (Unsupported, ValueError, IndexError):
            continue
        if c.i == at:
            full = Cursor(toks)
            full.i = at
            return ty, full
    raise Unsupported("cannot read the function's return type")


def _pieces(nbytes: int):
    """Split a byte count into little-endian power-of-two pieces: 3 -> (0,2),(2,1)."""
    out, off = [], 0
    for n in (8, 4, 2, 1):
        while nbytes - off >= n:
            out.append((off, n)); off += n
    return out


def _is_type_word(text: str) -> bool:
    return text in ("ptr", "void") or bool(re.fullmatch(r"i\d+", text))


def _power_of_two(b) -> bool:
    """A constant divisor 2^k, 0 <= k <= 62 (a larger one has the top bit set: not positive)."""
    return isinstance(b, Imm) and b.value > 0 and b.value & (b.value - 1) == 0
