"""Instruction simplification (LLVM InstSimplify): ``simplify``."""
