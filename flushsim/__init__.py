"""flushsim: a faithful model of InnoDB page flushing (MySQL 8.0, MariaDB 10.6+).

Importing flushsim compiles nothing; the numba kernels compile (or load from numba's cache)
on the first simulate().
"""

from . import params, presets
from .compare import compare
from .replay import replay
from .run import Run, simulate
from .scenario import Event, Scenario
from .sweep import sweep

__all__ = [
    "Event",
    "Run",
    "Scenario",
    "compare",
    "params",
    "presets",
    "replay",
    "simulate",
    "sweep",
]
