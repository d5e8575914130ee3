"""Packaging beyond what pyproject.toml can say: ``datalog/`` (top level in the source tree, so
``souffle -F facts datalog/dominance.dl`` works there) ships inside the wheel as
``pylogic/datalog`` (located by ``pylogic.analysis.catalog.datalog_dir``), and ``docs/`` beside it
as ``pylogic/docs``, so the pages pathlogic's messages name exist in an installed wheel too
(``pylogic.report.docs.doc_path``)."""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["pylogic*", "facts_gen*"]) + ["pylogic.datalog",
                                                                    "pylogic.docs"],
      package_dir={"pylogic.datalog": "datalog", "pylogic.docs": "docs"},
      package_data={"pylogic.datalog": ["*.dl", "**/*.dl"], "pylogic.docs": ["*.md", "**/*.md"],
                    # the run-time ``pathlogic export`` compiles into every exported program
                    "pylogic.interp.native": ["runtime.c"]})
