"""Hypothesis profiles: under CI (CI=true) examples are derandomized, so a red CI run reproduces
exactly; locally they are random, to keep finding new cases. No test has a time deadline."""
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# No test reads or writes the user's analysis cache: a cached result would skip the very stage
# a test injects a failure into. Tests of the cache pass their own directory.
os.environ["PATHLOGIC_CACHE"] = "off"
