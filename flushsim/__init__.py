"""flushsim: a faithful model of InnoDB page flushing (MySQL 8.0, MariaDB 10.6+).

Importing flushsim compiles nothing; the numba kernels compile (or load from numba's cache)
on the first simulate(), into the checkout's shared cache (flushsim.numba_cache) unless
NUMBA_CACHE_DIR says otherwise.
"""

from . import numba_cache

numba_cache.use_default()  # before anything imports numba: it reads the variable once

from . import params, presets  # noqa: E402
from .compare import compare  # noqa: E402
from .many import run_ahead, simulate_many  # noqa: E402
from .replay import replay  # noqa: E402
from .run import Run, simulate  # noqa: E402
from .scenario import Event, Scenario  # noqa: E402
from .sweep import sweep  # noqa: E402

__all__ = [
    "Event",
    "Run",
    "Scenario",
    "compare",
    "params",
    "presets",
    "replay",
    "run_ahead",
    "simulate",
    "simulate_many",
    "sweep",
]
