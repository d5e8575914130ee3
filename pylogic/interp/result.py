"""What one interpreter run produced (``pylogic.interp.run_module``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from pylogic.errors import RunError


@dataclass
class RunResult:
    """Observable behaviour and dynamic counts of one run.

    ``stdout``: everything the program wrote (``print`` writes ``"%d\\n"``; putchar/printf/puts
    write text); ``prints``: the values of ``print`` instructions only; ``return_value``: signed
    64-bit return of the entry function (or the ``exit()`` status); ``exit_status``:
    ``return_value & 0xFF`` (``abort()`` gives 134, a run-time error 70); ``error``: the run-time
    error, if any (``run_module`` never raises for program faults); ``counts``: ``instructions``
    (executed, nullified included), ``nullified``, ``executed`` (not nullified),
    ``branches_taken``, ``calls``; ``kinds``: the instructions counted in ``instructions`` by
    kind (``machine.KINDS``: branches, computations, moves, loads, stores, predicate_defines,
    calls, returns, other; counted by ``kinds_of`` when first read), empty when the profile is not
    captured; ``edge_profile``: ``{(function, src, dst): count}`` of taken CFG edges (side exits
    included); ``block_profile``: ``{(function, label): entries}``.
    """
    stdout: str = ""
    prints: list = field(default_factory=list)
    return_value: int = 0
    exit_status: int = 0
    error: Optional[RunError] = None
    counts: dict = field(default_factory=dict)
    edge_profile: dict = field(default_factory=dict)
    block_profile: dict = field(default_factory=dict)
    stdout_bytes: bytes = b""
    peak_memory: int = 0
    kinds_of: Optional[Callable[[], dict]] = field(default=None, repr=False, compare=False)
    _kinds: Optional[dict] = field(default=None, init=False, repr=False, compare=False)

    @property
    def kinds(self) -> dict:
        """Instructions by kind (see the class docstring), counted on first use."""
        if self._kinds is None:
            self._kinds = self.kinds_of() if self.kinds_of is not None else {}
            self.kinds_of = None
        return self._kinds

    @property
    def ok(self) -> bool:
        """True when the program ended without a run-time error."""
        return self.error is None

    def observable(self) -> tuple:
        """What validation compares: output, return value, and whether/which error occurred."""
        return (self.stdout_bytes, self.return_value,
                None if self.error is None else getattr(self.error, "fault", self.error.message))

    def everything(self) -> tuple:
        """All a run reports (two forms of the interpreter must agree on each): output, return
        value, exit status, error with its location, counts, kinds, edge and block profiles in
        order, peak memory."""
        return (self.stdout_bytes, self.prints, self.return_value, self.exit_status,
                None if self.error is None else str(self.error), self.counts, self.kinds,
                list(self.edge_profile.items()), list(self.block_profile.items()),
                self.peak_memory)

    def to_json(self) -> dict:
        """A JSON-ready dict (``pathlogic run --json``)."""
        return {
            "stdout": self.stdout,
            "prints": list(self.prints),
            "return_value": self.return_value,
            "exit_status": self.exit_status,
            "counts": dict(self.counts),
            "kinds": dict(self.kinds),
            "error": None if self.error is None else {
                "message": self.error.message,
                "location": None if self.error.loc is None else str(self.error.loc),
                "text": str(self.error)},
            "edge_profile": [
                {"function": f, "from": s, "to": d, "count": n}
                for (f, s, d), n in self.edge_profile.items()],
            "block_profile": [
                {"function": f, "block": b, "count": n}
                for (f, b), n in self.block_profile.items()],
            "peak_memory": self.peak_memory,
        }
