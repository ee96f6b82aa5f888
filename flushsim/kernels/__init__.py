"""numba kernels (arrays in, arrays out) and their pure-Python twin."""
