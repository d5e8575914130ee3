"""The interpreter's limits and the exit status of a run that ended in a run-time error, in a
module of their own so that command-line options can show them without importing the
interpreter (``machine.py`` and every runner take their defaults from here)."""

#: Exit status reported for a run that ended in a run-time error (BSD EX_SOFTWARE).
ERROR_STATUS = 70
#: Instructions a run may execute.
DEFAULT_FUEL = 10_000_000
#: Live bytes of memory a run may hold.
DEFAULT_MEMORY_LIMIT = 64 << 20
#: Call depth a run may reach.
DEFAULT_MAX_DEPTH = 10_000
