"""A run in pieces: simulate to second W, keep the kernel's whole state, resume it later.

`start(scenario, rows)` is a run at second 0 whose series has room for `rows` seconds;
`resume(paused, seconds, changes)` copies it (`fork`) and simulates on to second `seconds` (`go_on`
without the copy), applying `changes` (Scenario.changes tuples in absolute seconds, none before the
pause) on the way, so a SET GLOBAL at the pause goes the way of any timeline event. The paused run
is left as it was: it can be resumed again, with other changes. Running to W and resuming to W + D
is the same run, bit for bit, as running to W + D at once (tests/test_resume.py); series rows stay
indexed by absolute second. docs/model.md, "Warm starts".
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from dataclasses import replace as dc_replace

import numpy as np
import polars as pl

from . import schema
from .run import KERNELS, Run, call_kernel, kernel_inputs, series_frame, timeline_arrays
from .scenario import Scenario


@dataclass(frozen=True)
class Paused:
    """A run stopped at the end of second `second`: its kernel state and what it came from."""

    scenario: Scenario  # what it started from (the knobs at second 0, the seed)
    second: int
    rows: int  # the latest second it can be resumed to
    n_threads_max: int  # thread slots: a later change of `threads` may not go above
    zipf: bool  # it has the zipf CDF (a later change to workload=zipf needs it)
    kernel: str
    state: object  # numba: kernels.layout.State; the twin: its ReferenceSim

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The raw series so far (kernel columns, latency histogram), `second` rows: views."""
        if self.kernel == "numba":
            out, hist = self.state.series
        else:
            out, hist = self.state.out, self.state.hist
        return out[: self.second], hist[: self.second]

    def series(self, first: int = 0):
        """The per-second table from second `first` to the pause, time starting again at 1."""
        out, hist = self.arrays()
        series = series_frame(out[first:], hist[first:], self.scenario.engine)
        return series.with_columns(pl.col("time_s") - first) if first else series

    def run(self, scenario: Scenario, first: int = 0) -> Run:
        """The seconds from `first` to the pause as the Run of `scenario` (warmup.cut's)."""
        out, hist = self.arrays()
        lsn = round(out[first - 1, schema.COL["log_lsn_current"]]) if first else None
        start_lsn = schema.LOG_START_LSN if lsn is None else int(lsn)
        return Run(scenario, self.series(first), hist[first:].copy(), self.kernel, start_lsn)


def start(scenario: Scenario, rows: int, *, kernel: str = "numba") -> Paused:
    """`scenario` at second 0, an empty pool, with room for `rows` seconds (its timeline unused).

    Thread slots and the zipf CDF are the scenario's, its timeline included.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel={kernel!r} must be one of {', '.join(KERNELS)}")
    ki = kernel_inputs(scenario)
    if kernel == "numba":
        from .kernels.sim import new_state

        state = new_state(
            ki.knobs, rows, ki.n_threads_max, ki.table_pages, ki.seed, ki.zipf_cdf, ki.scatter
        )
    else:
        from .kernels.reference import ReferenceSim

        none = timeline_arrays(())
        state = ReferenceSim(
            ki.knobs, rows, ki.n_threads_max, ki.table_pages, ki.seed, ki.zipf_cdf, ki.scatter, none
        )
    return Paused(scenario, 0, rows, ki.n_threads_max, ki.zipf_cdf.size > 1, kernel, state)


def resume(paused: Paused, seconds: int, changes=()) -> Paused:
    """A copy of `paused` simulated on to second `seconds`, applying `changes` on the way."""
    return go_on(fork(paused), seconds, changes)


def fork(paused: Paused) -> Paused:
    """A copy of `paused` to go on with (`go_on`), leaving `paused` as it was."""
    if paused.kernel == "numba":
        from .kernels.sim import copy_state

        return dc_replace(paused, state=copy_state(paused.state))
    return dc_replace(paused, state=copy.deepcopy(paused.state))


def go_on(paused: Paused, seconds: int, changes=()) -> Paused:
    """`paused` itself simulated on to `seconds` (no copy: use only what this returns after)."""
    changes = tuple(sorted(changes, key=lambda c: c[0]))
    check_resume(paused, seconds, changes)
    arrays = timeline_arrays(changes)
    if paused.kernel == "numba":
        from .kernels.sim import run_state

        call_kernel(run_state, paused.state, *arrays, seconds)
    else:
        paused.state.run_to(seconds, arrays)
    return dc_replace(paused, second=seconds)


def check_resume(paused: Paused, seconds: int, changes) -> None:
    """A one-line ValueError if `paused` cannot be resumed so (the caller starts a new run)."""
    if not paused.second <= seconds <= paused.rows:
        raise ValueError(
            f"a run paused at {paused.second} s resumes to between {paused.second} and "
            f"{paused.rows} s, not {seconds} s"
        )
    for at, _, knob, value in changes:
        if not paused.second <= at < seconds:
            raise ValueError(
                f"a change at {at:g} s is outside the resumed seconds "
                f"{paused.second} to {seconds}: a paused run cannot go back"
            )
        if knob == "threads" and int(value) > paused.n_threads_max:
            raise ValueError(
                f"threads={value} is more than the {paused.n_threads_max} thread slots of the "
                "paused run: start it again with that many"
            )
        if knob == "workload" and value == "zipf" and not paused.zipf:
            raise ValueError("workload=zipf needs the zipf CDF the paused run was started without")
