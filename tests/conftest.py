"""Hypothesis profiles: under CI (CI=true) examples are derandomized, so a red CI run reproduces
exactly; locally they are random, to keep finding new cases. No test has a time deadline."""
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
