"""Segmented byte memory of the reference interpreter (docs/pir.md: byte-addressed, little-endian).

Every allocation (global, ``alloca``, ``malloc``) is its own *segment*: a ``bytearray`` whose
address is ``segment_id << 32``; an address is ``segment_id << 32 | offset``. So pointer
arithmetic inside an object works, address 0 is never valid (segment ids start at 1), and an
access that leaves its object (offset past the end, or a negative offset, which borrows from the
segment id) lands in no live segment and is reported as a run-time error instead of silently
touching a neighbour. Freed segments (heap ``free``, ``alloca`` memory of a returned call) are
remembered so the error can say "after free" / "after return".

Segments of ``const global``s (docs/pir.md "Extensions") are read-only: ``readonly`` holds
their ids, and a write into one (a store, a library function) is a run-time error.

The memory limit counts the bytes of all live allocations (globals included).
"""
from __future__ import annotations

from pylogic.ir.ops import Fault

SEGMENT_SHIFT = 32
OFFSET_MASK = (1 << SEGMENT_SHIFT) - 1
MAX_OBJECT = OFFSET_MASK  # one allocation must fit in a segment


class Memory:
    """Live segments keyed by id. ``segments`` is read directly by decoded loads and stores."""

    def __init__(self, limit: int = 64 << 20):
        self.segments: dict[int, bytearray] = {}
        self.kinds: dict[int, str] = {}  # segment id -> what it is ("global @g", "malloc", ...)
        self.dead: dict[int, str] = {}  # freed segment id -> how it died
        self.readonly: set[int] = set()  # segment ids of const globals
        self.next_id = 1
        self.live_bytes = 0
        self.peak_bytes = 0
        self.limit = limit

    def reset(self, limit: int) -> None:
        """Forget everything (the dict objects are kept: decoded code holds references)."""
        self.segments.clear()
        self.kinds.clear()
        self.dead.clear()
        self.readonly.clear()
        self.next_id = 1
        self.live_bytes = 0
        self.peak_bytes = 0
        self.limit = limit

    # ------------------------------------------------------------ allocation

    def alloc(self, size: int, kind: str) -> int:
        """A fresh zeroed object of ``size`` bytes; returns its address."""
        if size < 0:
            raise Fault(f"negative allocation size {size} ({kind})")
        if size > MAX_OBJECT or self.live_bytes + size > self.limit:
            raise Fault(f"memory limit exceeded: {kind} of {size} bytes with {self.live_bytes} "
                        f"bytes live (limit {self.limit})")
        sid = self.next_id
        self.next_id += 1
        self.segments[sid] = bytearray(size)
        self.kinds[sid] = kind
        self.live_bytes += size
        if self.live_bytes > self.peak_bytes:
            self.peak_bytes = self.live_bytes
        return sid << SEGMENT_SHIFT

    def release(self, sid: int, how: str) -> None:
        """Free segment ``sid`` (no checks; the caller knows it is live)."""
        buf = self.segments.pop(sid)
        self.live_bytes -= len(buf)
        self.dead[sid] = f"{self.kinds.pop(sid)}, {how}"

    def free_heap(self, addr: int) -> None:
        """C ``free``: ``addr`` must be the start of a live ``malloc`` object (or 0)."""
        if addr == 0:
            return
        sid, off = addr >> SEGMENT_SHIFT, addr & OFFSET_MASK
        if sid in self.dead:
            raise Fault(f"free of already freed memory at {addr:#x} ({self.dead[sid]})")
        if sid not in self.segments or self.kinds[sid] != "malloc" or off:
            raise Fault(f"free of a pointer not returned by malloc: {addr:#x}")
        self.release(sid, "freed")

    # ------------------------------------------------------------ access

    def locate(self, addr: int, size: int, access: str) -> tuple[bytearray, int]:
        """The segment and offset of ``size`` bytes at ``addr``, or a Fault saying why not."""
        buf = self.segments.get(addr >> SEGMENT_SHIFT)
        off = addr & OFFSET_MASK
        if buf is None or off + size > len(buf):
            self.bad_access(addr, size, access)
        return buf, off

    def bad_access(self, addr: int, size: int, access: str):
        """Raise a Fault describing why ``size`` bytes at ``addr`` cannot be accessed."""
        sid, off = addr >> SEGMENT_SHIFT, addr & OFFSET_MASK
        what = f"{access} of {size} byte(s) at address {addr:#x}"
        if addr == 0:
            raise Fault(f"null pointer {access} of {size} byte(s)")
        if sid in self.readonly and access in ("write", "store"):
            raise Fault(f"{what}: {self.kinds[sid]} is constant")
        if sid in self.dead:
            raise Fault(f"{what}: use of dead memory ({self.dead[sid]})")
        buf = self.segments.get(sid)
        if buf is not None:
            raise Fault(f"{what}: out of bounds of {self.kinds[sid]} "
                        f"({len(buf)} bytes, offset {off})")
        raise Fault(f"{what}: not inside any object")

    def read(self, addr: int, size: int) -> bytes:
        if size == 0:
            return b""
        buf, off = self.locate(addr, size, "read")
        return bytes(buf[off:off + size])

    def write(self, addr: int, data: bytes) -> None:
        if not data:
            return
        buf, off = self.locate(addr, len(data), "write")
        if addr >> SEGMENT_SHIFT in self.readonly:
            self.bad_access(addr, len(data), "write")
        buf[off:off + len(data)] = data

    def cstring(self, addr: int, limit: int | None = None) -> bytes:
        """NUL-terminated bytes at ``addr`` (without the NUL); at most ``limit`` bytes."""
        buf, off = self.locate(addr, 1 if limit != 0 else 0, "string read")
        end = buf.find(0, off) if limit is None else buf.find(0, off, off + limit)
        if end < 0:
            if limit is not None and off + limit <= len(buf):
                return bytes(buf[off:off + limit])
            self.bad_access(addr + (len(buf) - off), 1, "string read (no NUL terminator)")
        return bytes(buf[off:end])
