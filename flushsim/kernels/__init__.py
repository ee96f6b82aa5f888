"""numba kernels (arrays in, arrays out) and their pure-Python twin."""

import warnings

# With NUMBA_DISABLE_JIT=1 the splitmix64 generator runs on numpy scalars, whose
# (intended) 64-bit wraparound would otherwise print overflow warnings.
warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning, r"flushsim\.kernels\.")
