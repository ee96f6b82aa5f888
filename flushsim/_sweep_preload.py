"""Imported by the sweep's fork server only (flushsim._sweep_workers._context), never by flushsim.

It loads the numba kernels once, so that every worker forked from the server starts with them
instead of loading numba's cache itself. It must not use polars: its thread pool cannot be
forked.
"""

from .kernels.sim import simulate_kernel
from .run import kernel_inputs
from .scenario import Scenario

simulate_kernel(*kernel_inputs(Scenario(seconds=1)).args())
