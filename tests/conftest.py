"""Test-wide setup: a private numba cache per test session (numba does not notice changes in
called functions of other modules, so a shared cache could hide a kernel edit)."""

import os
import tempfile

if not os.environ.get("FLUSHSIM_KEEP_NUMBA_CACHE"):
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="flushsim-numba-")
