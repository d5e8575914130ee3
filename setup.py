"""Packaging beyond what pyproject.toml can say: ``datalog/`` (top level in the source tree, so
``souffle -F facts datalog/dominance.dl`` works there) ships inside the wheel as
``pylogic/datalog`` (located by ``pylogic.analysis.catalog.datalog_dir``)."""
from setuptools import find_packages, setup

setup(packages=find_packages(include=["pylogic*", "facts_gen*"]) + ["pylogic.datalog"],
      package_dir={"pylogic.datalog": "datalog"},
      package_data={"pylogic.datalog": ["*.dl", "**/*.dl"]})
