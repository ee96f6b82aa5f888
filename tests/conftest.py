"""Test-wide setup.

numba's cache does not notice a change in a called function that lives in another module, so
tests never use the cache beside the sources: scripts/env.sh points NUMBA_CACHE_DIR at a folder
named by a hash of the kernel sources, and a bare `pytest` gets a private temporary one.
"""

import os
import tempfile

if not os.environ.get("NUMBA_CACHE_DIR"):
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="flushsim-numba-")
