"""C library functions the interpreter provides for calls to functions a module does not define.

Names may carry a leading ``@`` (LLVM import); LLVM's ``llvm.memcpy.*``-style intrinsics map to
the plain function. Every builtin takes and returns 64-bit integers (pointers are addresses of
``memory.Memory``); missing arguments read as 0. ``exit``/``abort`` stop the program by raising
``ProgramExit``; misuse (bad pointer, double free) raises ``Fault``.
"""
from __future__ import annotations

import re

from pylogic.interp.memory import Fault, Memory
from pylogic.ir.model import MASK64, to_signed64


class ProgramExit(Exception):
    """``exit(status)`` / ``abort()``: the program ends with this status."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


# printf conversion: %[flags][width][.precision][length]conversion (C99 7.19.6.1)
_PRINTF_SPEC = re.compile(rb"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|j|z|t|L|q)?(.)",
                          re.DOTALL)
_UNSIGNED_MASK = {None: 0xFFFFFFFF, "hh": 0xFF, "h": 0xFFFF, "l": MASK64, "ll": MASK64,
                  "j": MASK64, "z": MASK64, "t": MASK64, "q": MASK64, "L": MASK64}
_SIGNED_BITS = {None: 32, "hh": 8, "h": 16}


def _wrap_signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


class Builtins:
    """The builtin functions, bound to one run's memory and stdout (a list of ints and bytes)."""

    def __init__(self, memory: Memory, stdout: list):
        self.mem = memory
        self.out = stdout
        self.table = {
            "putchar": self.putchar, "printf": self.printf, "puts": self.puts,
            "abort": self.abort, "exit": self.exit, "_exit": self.exit,
            "__assert_fail": self.assert_fail,
            "malloc": self.malloc, "calloc": self.calloc, "free": self.free,
            "realloc": self.realloc,
            "memcpy": self.memmove, "memmove": self.memmove, "memset": self.memset,
            "memcmp": self.memcmp, "strlen": self.strlen, "strcmp": self.strcmp,
            "strncmp": self.strncmp, "strcpy": self.strcpy, "strncpy": self.strncpy,
            "strcat": self.strcat, "strchr": self.strchr,
            "abs": self.abs, "labs": self.labs, "llabs": self.labs,
        }

    def lookup(self, name: str):
        """The builtin for a callee name, or None."""
        name = name.lstrip("@")
        if name.startswith("llvm."):
            name = name.split(".")[1]  # llvm.memcpy.p0.p0.i64 -> memcpy
        return self.table.get(name)

    # ------------------------------------------------------------ output

    def putchar(self, c=0, *_):
        c &= 0xFF
        self.out.append(bytes((c,)))
        return c

    def puts(self, s=0, *_):
        text = self.mem.cstring(s) + b"\n"
        self.out.append(text)
        return len(text)

    def printf(self, fmt=0, *args):
        text = self.format(self.mem.cstring(fmt), args)
        self.out.append(text)
        return len(text)

    def format(self, fmt: bytes, args) -> bytes:
        """C printf formatting of integer/string arguments (no floating point)."""
        args = list(args)
        pieces, pos = [], 0

        def next_arg():
            return args.pop(0) if args else 0

        for m in _PRINTF_SPEC.finditer(fmt):
            pieces.append(fmt[pos:m.start()])
            pos = m.end()
            flags, width, prec, length, conv = m.groups()
            length = length.decode() if length else None
            conv = conv.decode("latin-1")
            if conv == "%":
                pieces.append(b"%")
                continue
            if width == b"*":
                w = _wrap_signed(next_arg(), 32)
                if w < 0:
                    flags, w = flags + b"-", -w
                width = str(w).encode()
            if prec == b"*":
                p = _wrap_signed(next_arg(), 32)
                prec = str(p).encode() if p >= 0 else None
            if prec == b"":
                prec = b"0"  # C: a lone '.' means precision 0
            spec = b"%" + flags + (width or b"") + (b"." + prec if prec is not None else b"")
            value = next_arg()
            if conv in "di":
                bits = _SIGNED_BITS.get(length, 64)
                pieces.append((spec + b"d") % _wrap_signed(value, bits))
            elif conv in "uxXo":
                value &= _UNSIGNED_MASK[length]
                pieces.append((spec + (b"d" if conv == "u" else conv.encode())) % value)
            elif conv == "c":
                pieces.append((spec + b"c") % (value & 0xFF))
            elif conv == "s":
                limit = int(prec) if prec is not None else None
                pieces.append((spec + b"s") % self.mem.cstring(value, limit))
            elif conv == "p":
                pieces.append((spec + b"s") % (b"%#x" % (value & MASK64)))
            else:
                raise Fault(f"printf: unsupported conversion %{conv}")
        pieces.append(fmt[pos:])
        return b"".join(pieces)

    # ------------------------------------------------------------ process

    def abort(self, *_):
        raise ProgramExit(134, "abort() called")

    def exit(self, status=0, *_):
        raise ProgramExit(to_signed64(status), f"exit({to_signed64(status)}) called")

    def assert_fail(self, msg=0, file=0, line=0, func=0, *_):
        text = self.mem.cstring(msg).decode("utf-8", "replace") if msg else "?"
        self.out.append(f"assertion failed: {text}\n".encode())
        raise ProgramExit(134, f"assertion failed: {text}")

    # ------------------------------------------------------------ heap

    def malloc(self, size=0, *_):
        return self.mem.alloc(size, "malloc")

    def calloc(self, count=0, size=0, *_):
        return self.mem.alloc(count * size, "malloc")

    def free(self, ptr=0, *_):
        self.mem.free_heap(ptr)
        return 0

    def realloc(self, ptr=0, size=0, *_):
        new = self.mem.alloc(size, "malloc")
        if ptr:
            buf, off = self.mem.locate(ptr, 0, "realloc")
            old = bytes(buf[off:off + size])
            self.mem.free_heap(ptr)
            self.mem.write(new, old)
        return new

    # ------------------------------------------------------------ memory and strings

    def memmove(self, dst=0, src=0, n=0, *_):
        if n:
            self.mem.write(dst, self.mem.read(src, n))
        return dst

    def memset(self, dst=0, c=0, n=0, *_):
        if n:
            self.mem.write(dst, bytes((c & 0xFF,)) * n)
        return dst

    def memcmp(self, a=0, b=0, n=0, *_):
        return _compare(self.mem.read(a, n), self.mem.read(b, n))

    def strlen(self, s=0, *_):
        return len(self.mem.cstring(s))

    def strcmp(self, a=0, b=0, *_):
        return _compare(self.mem.cstring(a) + b"\0", self.mem.cstring(b) + b"\0")

    def strncmp(self, a=0, b=0, n=0, *_):
        if n <= 0:
            return 0
        return _compare((self.mem.cstring(a, n) + b"\0")[:n], (self.mem.cstring(b, n) + b"\0")[:n])

    def strcpy(self, dst=0, src=0, *_):
        self.mem.write(dst, self.mem.cstring(src) + b"\0")
        return dst

    def strncpy(self, dst=0, src=0, n=0, *_):
        if n > 0:
            self.mem.write(dst, self.mem.cstring(src, n).ljust(n, b"\0"))
        return dst

    def strcat(self, dst=0, src=0, *_):
        self.mem.write(dst + len(self.mem.cstring(dst)), self.mem.cstring(src) + b"\0")
        return dst

    def strchr(self, s=0, c=0, *_):
        text = self.mem.cstring(s) + b"\0"
        i = text.find(bytes((c & 0xFF,)))
        return s + i if i >= 0 else 0

    def abs(self, x=0, *_):
        return abs(_wrap_signed(x, 32))

    def labs(self, x=0, *_):
        return to_signed64(abs(x))


def _compare(a: bytes, b: bytes) -> int:
    """C memcmp/strcmp result: difference of the first differing (unsigned) bytes, else 0."""
    for x, y in zip(a, b):
        if x != y:
            return x - y
    return 0
