"""Fact extraction: PIR -> the relations the Datalog analyses read (DESIGN.md "facts contract")."""
from pylogic.compiled_modules import install_guard

install_guard()     # some of these modules are compiled (pylogic.compiled_modules)
