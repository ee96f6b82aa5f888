"""numba's cache folder, shared by the explorer, the command line and the tests.

numba's on-disk cache does not notice a change in a called function of another module nor in a
global constant it compiled in, so the folder is named by a hash of every source the kernel
compiles from: `.numba_cache/<12 hex digits>` in the checkout (docs/development.md, "numba's
cache"). `scripts/env.sh` runs this file to get the folder; importing flushsim sets
NUMBA_CACHE_DIR to it when it is unset, before anything imports numba, so that a plain
`python -m flushsim run` finds what `bash scripts/explorer.sh` compiled. Imports nothing of
flushsim (it runs as a script too).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# every file whose code or constants the kernel compiles in
HASHED = ("flushsim/kernels/*.py", "flushsim/schema.py", "flushsim/knob_spec.py")


def kernel_hash() -> str:
    """The first 12 hex digits of the sha256 of the hashed sources, in a fixed order."""
    digest = hashlib.sha256()
    for pattern in HASHED:
        for path in sorted(ROOT.glob(pattern)):
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def cache_dir() -> Path:
    """The checkout's cache folder for the kernel sources as they are now."""
    return ROOT / ".numba_cache" / kernel_hash()


def use_default() -> None:
    """Set NUMBA_CACHE_DIR to `cache_dir()` if it is unset and this is a writable checkout."""
    if os.environ.get("NUMBA_CACHE_DIR") or not (ROOT / "pyproject.toml").is_file():
        return
    if os.access(ROOT, os.W_OK):
        os.environ["NUMBA_CACHE_DIR"] = str(cache_dir())


if __name__ == "__main__":
    print(cache_dir())
