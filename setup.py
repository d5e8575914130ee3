"""Packaging beyond what pyproject.toml can say: ``datalog/`` (top level in the source tree, so
``souffle -F facts datalog/dominance.dl`` works there) ships inside the wheel as
``pylogic/datalog`` (located by ``pylogic.analysis.catalog.datalog_dir``), and ``docs/`` beside it
as ``pylogic/docs``, so the pages pathlogic's messages name exist in an installed wheel too
(``pylogic.report.docs.doc_path``); and the hot modules compiled with Cython
(``pylogic.compiled_modules``: the list, why, and the guard against a stale build)."""
import os
import runpy
import sys

from setuptools import Extension, find_packages, setup


def compiled_extensions() -> list:
    """``pylogic.compiled_modules.COMPILED`` as optional extensions (a module Cython or the C
    compiler cannot build stays plain Python); none without Cython or with
    ``PATHLOGIC_PURE_PYTHON=1``."""
    if os.environ.get("PATHLOGIC_PURE_PYTHON"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("pathlogic: Cython not found; installing plain Python", file=sys.stderr)
        return []
    listed = runpy.run_path(os.path.join("pylogic", "compiled_modules.py"))
    out = []
    for name in listed["COMPILED"]:
        ext = Extension(name, [name.replace(".", "/") + ".py"], optional=True,
                        extra_compile_args=list(listed["COMPILE_FLAGS"].get(name, ())))
        try:
            out += cythonize([ext], build_dir="build/cython", quiet=True, language_level=3,
                             compiler_directives={"binding": True, "annotation_typing": False})
        except Exception as e:     # Cython's CompileError: this module stays plain Python
            print(f"pathlogic: {name} not compiled ({e})", file=sys.stderr)
    return out


setup(packages=find_packages(include=["pylogic*", "facts_gen*"]) + ["pylogic.datalog",
                                                                    "pylogic.docs"],
      package_dir={"pylogic.datalog": "datalog", "pylogic.docs": "docs"},
      package_data={"pylogic.datalog": ["*.dl", "**/*.dl"], "pylogic.docs": ["*.md", "**/*.md"],
                    # the run-time ``pathlogic export`` compiles into every exported program
                    "pylogic.interp.native": ["runtime.c"]},
      ext_modules=compiled_extensions(),
      options={"build_ext": {"parallel": os.cpu_count() or 1}})
