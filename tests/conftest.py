"""Test-wide setup.

numba's cache does not notice a change in a called function that lives in another module, so
tests never use the cache beside the sources: they use the folder named by a hash of the kernel
sources (flushsim/numba_cache.py, as scripts/env.sh, the explorer and the CLI), or a private
temporary one outside a writable checkout.
"""

import os
import tempfile

from flushsim import numba_cache

numba_cache.use_default()
if not os.environ.get("NUMBA_CACHE_DIR"):
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="flushsim-numba-")
