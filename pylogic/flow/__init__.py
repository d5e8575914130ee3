"""The Python analyses passes share (DESIGN.md "Inside the package"): one function per result,
each with its reference, beside the passes as LLVM's ValueTracking is beside its own -- value
names and the memory model, read-only globals, known bytes, known bits, non-zero facts, reaching
definitions, branch facts, the constant lattice. ``flow`` imports only ``pylogic.errors``,
``pylogic.ir`` and external libraries; ``facts_gen``, ``transforms`` and ``analysis`` import it."""
