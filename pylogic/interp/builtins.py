"""C library functions the interpreter provides for calls to functions a module does not define.

Names may carry a leading ``@`` (LLVM import); LLVM's ``llvm.memcpy.*``-style intrinsics map to
the plain function. Every builtin takes and returns 64-bit integers (pointers are addresses of
``memory.Memory``); missing arguments read as 0. ``exit``/``abort`` stop the program by raising
``ProgramExit``; misuse (bad pointer, double free) raises ``Fault``.

Streams: the LLVM importer gives the external globals ``stdin``/``stdout``/``stderr`` the
stand-in ``FILE *`` values of ``FAKE_FILES`` (``pylogic/ir/llvm/conventions.py``); writes to
``stdout`` go to the program's output, writes to ``stderr`` are dropped (validation compares
stdout only), other streams are a fault.
``va_list`` arguments (``vprintf`` ...) are read as x86-64 SysV ``__va_list_tag`` structures,
which is what the importer's varargs convention builds (``pylogic/ir/llvm/lower.py``).
"""
from __future__ import annotations

import re

from pylogic.interp.memory import Memory
from pylogic.ir.ops import Fault, builtin_name
from pylogic.ir.llvm.conventions import FAKE_FILES
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

#: glibc C-locale ctype classes (ctype.h ``_ISbit``: bit b<8 is stored at b+8, else at b-8).
_CTYPE_CLASSES = {
    "upper": (0, bytes(range(65, 91))), "lower": (1, bytes(range(97, 123))),
    "alpha": (2, bytes(range(65, 91)) + bytes(range(97, 123))), "digit": (3, b"0123456789"),
    "xdigit": (4, b"0123456789abcdefABCDEF"), "space": (5, b" \t\n\v\f\r"),
    "print": (6, bytes(range(32, 127))), "graph": (7, bytes(range(33, 127))),
    "blank": (8, b" \t"), "cntrl": (9, bytes(range(0, 32)) + b"\x7f"),
    "punct": (10, bytes(c for c in range(33, 127) if not chr(c).isalnum())),
    "alnum": (11, b"0123456789" + bytes(range(65, 91)) + bytes(range(97, 123))),
}


def _ctype_bit(b: int) -> int:
    return (1 << b) << 8 if b < 8 else (1 << b) >> 8


def ctype_flags(c: int) -> int:
    """glibc's ``__ctype_b`` entry of character ``c`` (0..255; 0 above 127) in the C locale."""
    return sum(_ctype_bit(b) for b, members in _CTYPE_CLASSES.values() if 0 <= c < 128 and c in members)


def _wrap_signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


class Builtins:
    """The builtin functions, bound to one run's memory and stdout (a list of ints and bytes)."""

    def __init__(self, memory: Memory, stdout: list):
        self.mem = memory
        self.out = stdout
        self.ctype_tables: dict[str, int] = {}
        self.frames = None  # the Machine: its ``allocas`` are the current frame's stack objects
        self.table = {
            # output
            "putchar": self.putchar, "printf": self.printf, "puts": self.puts,
            "fputs": self.fputs, "fputc": self.fputc, "putc": self.fputc, "_IO_putc": self.fputc,
            "fprintf": self.fprintf, "fwrite": self.fwrite, "fflush": self.zero,
            "sprintf": self.sprintf, "snprintf": self.snprintf,
            "vprintf": self.vprintf, "vfprintf": self.vfprintf, "vsprintf": self.vsprintf,
            "vsnprintf": self.vsnprintf,
            "__printf_chk": self.printf_chk, "__fprintf_chk": self.fprintf_chk,
            "__sprintf_chk": self.sprintf_chk, "__snprintf_chk": self.snprintf_chk,
            "__vprintf_chk": self.vprintf_chk, "__vfprintf_chk": self.vfprintf_chk,
            "__vsprintf_chk": self.vsprintf_chk, "__vsnprintf_chk": self.vsnprintf_chk,
            # process
            "abort": self.abort, "exit": self.exit, "_exit": self.exit, "_Exit": self.exit,
            "__assert_fail": self.assert_fail, "signal": self.zero, "alarm": self.zero,
            "stacksave": self.stacksave, "stackrestore": self.stackrestore,
            # heap
            "malloc": self.malloc, "calloc": self.calloc, "free": self.free,
            "realloc": self.realloc, "strdup": self.strdup, "strndup": self.strndup,
            # memory
            "memcpy": self.memmove, "memmove": self.memmove, "memset": self.memset,
            "__memcpy_chk": self.memmove, "__memmove_chk": self.memmove,
            "__memset_chk": self.memset, "mempcpy": self.mempcpy, "__mempcpy_chk": self.mempcpy,
            "memcmp": self.memcmp, "bcmp": self.memcmp, "memchr": self.memchr,
            "memrchr": self.memrchr, "bzero": self.bzero, "bcopy": self.bcopy,
            # strings
            "strlen": self.strlen, "strnlen": self.strnlen, "strcmp": self.strcmp,
            "strncmp": self.strncmp, "strcpy": self.strcpy, "__strcpy_chk": self.strcpy,
            "stpcpy": self.stpcpy, "__stpcpy_chk": self.stpcpy,
            "strncpy": self.strncpy, "__strncpy_chk": self.strncpy,
            "strcat": self.strcat, "__strcat_chk": self.strcat,
            "strncat": self.strncat, "__strncat_chk": self.strncat,
            "strchr": self.strchr, "index": self.strchr, "strrchr": self.strrchr,
            "rindex": self.strrchr, "strstr": self.strstr, "strspn": self.strspn,
            "strcspn": self.strcspn, "strpbrk": self.strpbrk,
            # numbers
            "abs": self.abs, "labs": self.labs, "llabs": self.labs,
            "atoi": self.atoi, "atol": self.atol, "atoll": self.atol,
            "strtol": self.strtol, "strtoll": self.strtol, "strtoul": self.strtoul,
            "strtoull": self.strtoul,
            "ffs": self.ffs, "ffsl": self.ffsl, "ffsll": self.ffsl,
            # characters (C locale)
            "toupper": self.toupper, "tolower": self.tolower,
            "__ctype_b_loc": self.ctype_b_loc, "__ctype_toupper_loc": self.ctype_toupper_loc,
            "__ctype_tolower_loc": self.ctype_tolower_loc,
        }
        for cls in _CTYPE_CLASSES:
            self.table["is" + cls] = self._classifier(cls)
        self.table["isascii"] = lambda c=0, *_: int(0 <= c < 128)

    def lookup(self, name: str):
        """The builtin for a callee name, or None."""
        return self.table.get(builtin_name(name))

    def zero(self, *_):
        return 0

    # ------------------------------------------------------------ output

    def _write(self, stream: int, data: bytes, who: str) -> None:
        if stream == FAKE_FILES["stdout"]:
            self.out.append(data)
        elif stream != FAKE_FILES["stderr"]:
            raise Fault(f"{who}: unsupported stream {stream:#x} (only stdout and stderr)")

    def putchar(self, c=0, *_):
        c &= 0xFF
        self.out.append(bytes((c,)))
        return c

    def puts(self, s=0, *_):
        text = self.mem.cstring(s) + b"\n"
        self.out.append(text)
        return len(text)

    def fputs(self, s=0, stream=0, *_):
        self._write(stream, self.mem.cstring(s), "fputs")
        return 1

    def fputc(self, c=0, stream=0, *_):
        self._write(stream, bytes((c & 0xFF,)), "fputc")
        return c & 0xFF

    def fwrite(self, ptr=0, size=0, n=0, stream=0, *_):
        self._write(stream, self.mem.read(ptr, size * n), "fwrite")
        return n if size else 0

    def printf(self, fmt=0, *args):
        return self._print_to(FAKE_FILES["stdout"], fmt, args)

    def fprintf(self, stream=0, fmt=0, *args):
        return self._print_to(stream, fmt, args)

    def sprintf(self, buf=0, fmt=0, *args):
        return self._print_into(buf, None, fmt, args)

    def snprintf(self, buf=0, n=0, fmt=0, *args):
        return self._print_into(buf, n, fmt, args)

    def vprintf(self, fmt=0, ap=0, *_):
        return self._print_to(FAKE_FILES["stdout"], fmt, self._va_args(ap))

    def vfprintf(self, stream=0, fmt=0, ap=0, *_):
        return self._print_to(stream, fmt, self._va_args(ap))

    def vsprintf(self, buf=0, fmt=0, ap=0, *_):
        return self._print_into(buf, None, fmt, self._va_args(ap))

    def vsnprintf(self, buf=0, n=0, fmt=0, ap=0, *_):
        return self._print_into(buf, n, fmt, self._va_args(ap))

    def _print_to(self, stream: int, fmt: int, args) -> int:
        text = self.format(self.mem.cstring(fmt), args)
        self._write(stream, text, "printf")
        return len(text)

    def _print_into(self, buf: int, n, fmt: int, args) -> int:
        """sprintf (n None) / snprintf: at most n-1 characters and a NUL; returns the full length."""
        text = self.format(self.mem.cstring(fmt), args)
        if n is None:
            self.mem.write(buf, text + b"\0")
        elif n & MASK64:
            self.mem.write(buf, text[:(n & MASK64) - 1] + b"\0")
        return len(text)

    # glibc _FORTIFY_SOURCE entry points: an extra flag (and object size) argument
    def printf_chk(self, flag=0, fmt=0, *args):
        return self.printf(fmt, *args)

    def fprintf_chk(self, stream=0, flag=0, fmt=0, *args):
        return self.fprintf(stream, fmt, *args)

    def sprintf_chk(self, buf=0, flag=0, size=0, fmt=0, *args):
        return self.sprintf(buf, fmt, *args)

    def snprintf_chk(self, buf=0, n=0, flag=0, size=0, fmt=0, *args):
        return self.snprintf(buf, n, fmt, *args)

    def vprintf_chk(self, flag=0, fmt=0, ap=0, *_):
        return self.vprintf(fmt, ap)

    def vfprintf_chk(self, stream=0, flag=0, fmt=0, ap=0, *_):
        return self.vfprintf(stream, fmt, ap)

    def vsprintf_chk(self, buf=0, flag=0, size=0, fmt=0, ap=0, *_):
        return self.vsprintf(buf, fmt, ap)

    def vsnprintf_chk(self, buf=0, n=0, flag=0, size=0, fmt=0, ap=0, *_):
        return self.vsnprintf(buf, n, fmt, ap)

    def _va_args(self, ap: int):
        """An endless supply of integer arguments read from an x86-64 ``va_list`` (gp registers
        while ``gp_offset`` <= 40, then 8-byte slots of ``overflow_arg_area``)."""
        gp = int.from_bytes(self.mem.read(ap, 4), "little")
        overflow = int.from_bytes(self.mem.read(ap + 8, 8), "little")
        save = int.from_bytes(self.mem.read(ap + 16, 8), "little")

        def args():
            nonlocal gp, overflow
            while True:
                if gp <= 40:
                    addr, gp = save + gp, gp + 8
                else:
                    addr, overflow = overflow, overflow + 8
                yield to_signed64(int.from_bytes(self.mem.read(addr, 8), "little"))
        return _LazyArgs(args())

    def format(self, fmt: bytes, args) -> bytes:
        """C printf formatting of integer/string arguments (no floating point)."""
        args = args if isinstance(args, _LazyArgs) else list(args)
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
            if conv == "n":
                raise Fault("printf: %n is not supported")
            value = next_arg()
            if conv in "di":
                value = _wrap_signed(value, _SIGNED_BITS.get(length, 64))
                pieces.append(_format_int(flags, width, prec, conv, value))
            elif conv in "uxXo":
                value &= _UNSIGNED_MASK[length]
                pieces.append(_format_int(flags, width, prec, conv, value))
            elif conv == "c":
                pieces.append((spec + b"c") % (value & 0xFF))
            elif conv == "s":
                limit = int(prec) if prec is not None else None
                pieces.append((spec + b"s") % self.mem.cstring(value, limit))
            elif conv == "p":
                text = b"%#x" % (value & MASK64) if value & MASK64 else b"(nil)"
                pieces.append((b"%" + flags.replace(b"0", b"") + (width or b"") + b"s") % text)
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

    # ------------------------------------------------------------ stack (llvm.stacksave/stackrestore)

    def stacksave(self, *_):
        """A mark: how many stack objects the current call has allocated so far."""
        return len(self.frames.allocas) if self.frames is not None else 0

    def stackrestore(self, mark=0, *_):
        """Free the current call's stack objects allocated after ``mark`` (VLAs leaving scope)."""
        if self.frames is None:
            return 0
        allocas = self.frames.allocas
        for sid in allocas[mark:]:
            self.mem.release(sid, "stack restored (scope left)")
        del allocas[mark:]
        return 0

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

    def strdup(self, s=0, *_):
        text = self.mem.cstring(s) + b"\0"
        new = self.mem.alloc(len(text), "malloc")
        self.mem.write(new, text)
        return new

    def strndup(self, s=0, n=0, *_):
        text = self.mem.cstring(s, n & MASK64) + b"\0"
        new = self.mem.alloc(len(text), "malloc")
        self.mem.write(new, text)
        return new

    # ------------------------------------------------------------ memory

    def memmove(self, dst=0, src=0, n=0, *_):
        if n:
            self.mem.write(dst, self.mem.read(src, n))
        return dst

    def mempcpy(self, dst=0, src=0, n=0, *_):
        return self.memmove(dst, src, n) + n

    def bcopy(self, src=0, dst=0, n=0, *_):
        self.memmove(dst, src, n)
        return 0

    def memset(self, dst=0, c=0, n=0, *_):
        if n:
            self.mem.write(dst, bytes((c & 0xFF,)) * n)
        return dst

    def bzero(self, dst=0, n=0, *_):
        self.memset(dst, 0, n)
        return 0

    def memcmp(self, a=0, b=0, n=0, *_):
        return _compare(self.mem.read(a, n), self.mem.read(b, n))

    def memchr(self, s=0, c=0, n=0, *_):
        # C: bytes are examined until a match, so the object may be shorter than n
        buf, off = self.mem.locate(s, 0, "memchr")
        i = buf.find(c & 0xFF, off, off + (n & MASK64))
        if i < 0:
            if off + (n & MASK64) > len(buf):
                self.mem.bad_access(s, n & MASK64, "memchr read")
            return 0
        return s + (i - off)

    def memrchr(self, s=0, c=0, n=0, *_):
        i = self.mem.read(s, n).rfind(c & 0xFF)
        return s + i if i >= 0 else 0

    # ------------------------------------------------------------ strings

    def strlen(self, s=0, *_):
        return len(self.mem.cstring(s))

    def strnlen(self, s=0, n=0, *_):
        return len(self.mem.cstring(s, n & MASK64))

    def strcmp(self, a=0, b=0, *_):
        return _compare(self.mem.cstring(a) + b"\0", self.mem.cstring(b) + b"\0")

    def strncmp(self, a=0, b=0, n=0, *_):
        if n == 0:
            return 0
        n &= MASK64
        return _compare((self.mem.cstring(a, n) + b"\0")[:n], (self.mem.cstring(b, n) + b"\0")[:n])

    def strcpy(self, dst=0, src=0, *_):
        self.mem.write(dst, self.mem.cstring(src) + b"\0")
        return dst

    def stpcpy(self, dst=0, src=0, *_):
        text = self.mem.cstring(src)
        self.mem.write(dst, text + b"\0")
        return dst + len(text)

    def strncpy(self, dst=0, src=0, n=0, *_):
        if n:
            n &= MASK64
            self.mem.write(dst, self.mem.cstring(src, n).ljust(n, b"\0"))
        return dst

    def strcat(self, dst=0, src=0, *_):
        self.mem.write(dst + len(self.mem.cstring(dst)), self.mem.cstring(src) + b"\0")
        return dst

    def strncat(self, dst=0, src=0, n=0, *_):
        self.mem.write(dst + len(self.mem.cstring(dst)), self.mem.cstring(src, n & MASK64) + b"\0")
        return dst

    def strchr(self, s=0, c=0, *_):
        text = self.mem.cstring(s) + b"\0"
        i = text.find(bytes((c & 0xFF,)))
        return s + i if i >= 0 else 0

    def strrchr(self, s=0, c=0, *_):
        text = self.mem.cstring(s) + b"\0"
        i = text.rfind(bytes((c & 0xFF,)))
        return s + i if i >= 0 else 0

    def strstr(self, hay=0, needle=0, *_):
        i = self.mem.cstring(hay).find(self.mem.cstring(needle))
        return hay + i if i >= 0 else 0

    def strspn(self, s=0, accept=0, *_):
        text, ok = self.mem.cstring(s), set(self.mem.cstring(accept))
        n = 0
        while n < len(text) and text[n] in ok:
            n += 1
        return n

    def strcspn(self, s=0, reject=0, *_):
        text, bad = self.mem.cstring(s), set(self.mem.cstring(reject))
        n = 0
        while n < len(text) and text[n] not in bad:
            n += 1
        return n

    def strpbrk(self, s=0, accept=0, *_):
        n = self.strcspn(s, accept)
        return s + n if n < len(self.mem.cstring(s)) else 0

    # ------------------------------------------------------------ numbers

    def abs(self, x=0, *_):
        return _wrap_signed(abs(_wrap_signed(x, 32)), 32)

    def labs(self, x=0, *_):
        return to_signed64(abs(x))

    def ffs(self, x=0, *_):
        x &= 0xFFFFFFFF
        return (x & -x).bit_length()

    def ffsl(self, x=0, *_):
        x &= MASK64
        return (x & -x).bit_length()

    def _strto(self, s: int, endp: int, base: int, signed: bool) -> int:
        """C strtol/strtoul (C99 7.20.1.4), clamping out-of-range values as glibc does."""
        text = self.mem.cstring(s)
        i = 0
        while i < len(text) and text[i] in b" \t\n\v\f\r":
            i += 1
        neg = False
        if i < len(text) and text[i] in b"+-":
            neg = text[i] == ord("-")
            i += 1
        base = _wrap_signed(base, 32)
        if base in (0, 16) and text[i:i + 2].lower() == b"0x" and i + 2 < len(text) \
                and chr(text[i + 2]).lower() in "0123456789abcdef":
            i += 2
            base = 16
        elif base == 0:
            base = 8 if text[i:i + 1] == b"0" else 10
        start, value = i, 0
        while i < len(text):
            d = int(chr(text[i]), 36) if chr(text[i]).isalnum() else 99
            if d >= base:
                break
            value = value * base + d
            i += 1
        if i == start:
            i, value, neg = 0, 0, False  # no conversion: *endptr = nptr
        if endp:
            self.mem.write(endp, (s + i).to_bytes(8, "little"))
        if signed:
            value = -value if neg else value
            return max(-(1 << 63), min((1 << 63) - 1, value))
        if value > MASK64:
            return -1
        return to_signed64(-value if neg else value)

    def strtol(self, s=0, endp=0, base=0, *_):
        return self._strto(s, endp, base, True)

    def strtoul(self, s=0, endp=0, base=0, *_):
        return self._strto(s, endp, base, False)

    def atoi(self, s=0, *_):
        return _wrap_signed(self._strto(s, 0, 10, True), 32)

    def atol(self, s=0, *_):
        return self._strto(s, 0, 10, True)

    # ------------------------------------------------------------ characters (C locale)

    def _classifier(self, cls: str):
        bit = _ctype_bit(_CTYPE_CLASSES[cls][0])

        def classify(c=0, *_):
            return bit if ctype_flags(_wrap_signed(c, 32)) & bit else 0
        classify.__name__ = "is" + cls
        return classify

    def toupper(self, c=0, *_):
        c = _wrap_signed(c, 32)
        return c - 32 if 97 <= c <= 122 else c

    def tolower(self, c=0, *_):
        c = _wrap_signed(c, 32)
        return c + 32 if 65 <= c <= 90 else c

    def _ctype_table(self, kind: str, entry_size: int, entry) -> int:
        """Address of a pointer to glibc's table (index -128..255) for this run, made once."""
        addr = self.ctype_tables.get(kind)
        if addr is not None and self.mem.kinds.get(addr >> 32) == f"ctype {kind}":
            return addr
        table = b"".join((entry(c) & ((1 << 8 * entry_size) - 1)).to_bytes(entry_size, "little")
                         for c in range(-128, 256))
        base = self.mem.alloc(len(table), f"ctype {kind} data")
        self.mem.write(base, table)
        addr = self.mem.alloc(8, f"ctype {kind}")
        self.mem.write(addr, (base + 128 * entry_size).to_bytes(8, "little"))
        self.ctype_tables[kind] = addr
        return addr

    def ctype_b_loc(self, *_):
        return self._ctype_table("b", 2, lambda c: ctype_flags(c))

    def ctype_toupper_loc(self, *_):
        return self._ctype_table("toupper", 4, lambda c: self.toupper(c & 0xFF) if c >= 0 else c)

    def ctype_tolower_loc(self, *_):
        return self._ctype_table("tolower", 4, lambda c: self.tolower(c & 0xFF) if c >= 0 else c)


class _LazyArgs:
    """printf arguments taken one at a time from a generator (a ``va_list``)."""

    def __init__(self, gen):
        self.gen = gen

    def pop(self, _index=0):
        return next(self.gen)

    def __bool__(self):
        return True


def _format_int(flags: bytes, width, prec, conv: str, value: int) -> bytes:
    """One integer conversion (C99 7.19.6.1): precision is a minimum digit count (``%.0d`` of 0
    prints nothing), ``#`` gives octal a leading 0 and non-zero hex a 0x, ``0`` pads after the
    sign/prefix unless a precision is given, ``-`` left-justifies."""
    digits = {"o": "%o", "x": "%x", "X": "%X"}.get(conv, "%d") % abs(value)
    if prec is not None:
        digits = "" if value == 0 and int(prec) == 0 else digits.zfill(int(prec))
    prefix = ""
    if value < 0:
        prefix = "-"
    elif conv in "di" and b"+" in flags:
        prefix = "+"
    elif conv in "di" and b" " in flags:
        prefix = " "
    if b"#" in flags:
        if conv == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif conv in "xX" and value != 0:
            prefix = "0" + conv
    w = int(width) if width else 0
    body = prefix + digits
    if len(body) < w:
        if b"-" in flags:
            body = body.ljust(w)
        elif b"0" in flags and prec is None:
            body = prefix + digits.rjust(w - len(prefix), "0")
        else:
            body = body.rjust(w)
    return body.encode()


def _compare(a: bytes, b: bytes) -> int:
    """C memcmp/strcmp result: difference of the first differing (unsigned) bytes, else 0."""
    for x, y in zip(a, b):
        if x != y:
            return x - y
    return 0
