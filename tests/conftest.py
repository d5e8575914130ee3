"""Hypothesis profiles: under CI (CI=true) examples are derandomized, so a red CI run reproduces
exactly; locally they are random, to keep finding new cases. No test has a time deadline."""
import atexit
import os
import shutil
import tempfile

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# No test reads or writes the user's analysis cache: a cached result would skip the very stage
# a test injects a failure into. Tests of the cache pass their own directory.
os.environ["PATHLOGIC_CACHE"] = "off"

# What depends only on pathlogic's own source (the parser's tables, the shipped programs checked)
# is shared by every process of the session, command-line runs included: parsing the catalog
# costs each process several seconds of CPU. One directory per session, made by the controller
# before pytest-xdist starts its workers (they inherit it), removed by the controller at exit.
if "PATHLOGIC_PROGRAM_CACHE" not in os.environ:
    os.environ["PATHLOGIC_PROGRAM_CACHE"] = tempfile.mkdtemp(prefix="pathlogic-test-programs-")
    atexit.register(shutil.rmtree, os.environ["PATHLOGIC_PROGRAM_CACHE"], ignore_errors=True)
