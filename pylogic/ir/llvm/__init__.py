"""The LLVM/C front end: C -> LLVM IR (``clang.py``, clang-14 + opt), LLVM IR -> PIR
(``importer.py``, on top of ``types.py``, ``values.py``, ``lower.py``, ``intrinsics.py``), the
rewrite of clang-14 constant expressions newer LLVM rejects (``constexpr.py``) and the stand-in
addresses imported modules share with the interpreter (``conventions.py``). DESIGN.md "Inputs".
"""
