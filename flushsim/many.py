"""simulate_many(): several Scenarios at once, one whole Run each, on every core.

`fs.simulate_many({"1K": low, "12K": high}, seconds=240)` gives {"1K": Run, "12K": Run}, the
same numbers as `fs.simulate` of each one after the other, in about the time of the longest
(or of half the runs, when there are more of them than cores). Each run goes to a worker
process of `sweep`'s (`flushsim._sweep_workers`: a fork server that preloads the kernels), one
run a worker at a time, while this process only hands them out: it suits runs of seconds, such
as lesson 03's. A worker that dies (an OOM kill) costs the run it held, which another worker
runs once more; a run lost twice is left out of the result and named in a LostRuns warning. A
Ctrl-C stops every worker and is raised, as from `simulate`.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from .run import Run, simulate
from .scenario import Scenario
from .sweep import _run_local, local_cores, retried_message


class LostRuns(RuntimeWarning):
    """Runs missing from simulate_many's result: each died with its worker process twice.

    Attributes:
        labels: the labels of the missing runs, in the order they were given.
    """

    def __init__(self, message: str, *, labels: list):
        super().__init__(message)
        self.labels = labels


@dataclass(frozen=True)
class _Job:
    """One run: its position among the scenarios given (`index`) and its Scenario."""

    index: int
    scenario: Scenario


def _simulate_job(job: _Job) -> tuple[int, Run]:
    return job.index, simulate(job.scenario)


class _Runs:
    """The finished runs by position, and why a run was given up."""

    def __init__(self):
        self.runs: dict[int, Run] = {}
        self.lost: dict[int, str] = {}

    def finish(self, index: int, run: Run) -> None:
        self.runs[index] = run

    def lose(self, index: int, why: str) -> None:
        self.lost[index] = why


def simulate_many(
    scenarios: Mapping[Hashable, Scenario],
    *,
    seconds: int | None = None,
    workers: int | None = None,
) -> dict[Hashable, Run]:
    """Simulate every scenario, several at once; {label: Run} in the order given.

    Args:
        scenarios: label -> Scenario; every one is simulated, alike or not.
        seconds: run length for all of them (simulated seconds); default each one's own.
        workers: cores to run on (default: every core this process may use), each a worker
            process; 1 runs them one after the other in this process, as `simulate` would.

    Returns:
        {label: Run}, each equal to `simulate(scenario, seconds=seconds)` (series and latency
        histogram alike). A run whose worker process died twice while running it is left out,
        with a LostRuns warning naming it.

    Raises:
        TypeError: `scenarios` is not a mapping of Scenarios.
        ValueError: a bad `seconds` (naming the scenario) or `workers`, before any run.
    """
    labels, jobs = _jobs(scenarios, seconds)
    if workers is None:
        workers = local_cores()
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 256:
        raise ValueError(f"workers={workers!r} must be a whole number between 1 and 256")
    book = _Runs()
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            book.finish(*_simulate_job(job))
        deaths = []
    else:
        cores = min(workers, len(jobs))
        deaths = _run_local(iter(jobs), cores, book, _simulate_job, (), here=False)
    if deaths:
        warnings.warn(retried_message(deaths, len(book.lost)), RuntimeWarning, stacklevel=2)
    if book.lost:
        lost = [labels[i] for i in sorted(book.lost)]
        warnings.warn(
            LostRuns(
                f"simulate_many: {len(lost)} of {len(jobs)} runs lost, their worker process "
                f"died twice ({book.lost[min(book.lost)]}): {', '.join(map(repr, lost))}",
                labels=lost,
            ),
            stacklevel=2,
        )
    return {labels[i]: book.runs[i] for i in range(len(jobs)) if i in book.runs}


def _jobs(
    scenarios: Mapping[Hashable, Scenario], seconds: int | None
) -> tuple[list[Hashable], list[_Job]]:
    """The labels and the jobs, each Scenario checked and given its length before any run."""
    if not isinstance(scenarios, Mapping):
        raise TypeError(
            f"simulate_many() takes a mapping of label -> Scenario, not {type(scenarios).__name__}"
        )
    labels, jobs = [], []
    for label, scenario in scenarios.items():
        if not isinstance(scenario, Scenario):
            raise TypeError(
                f"simulate_many(): {label!r} is a {type(scenario).__name__}, not a Scenario"
            )
        if seconds is not None:
            try:
                scenario = scenario.replace(seconds=seconds)
            except ValueError as exc:
                raise ValueError(f"simulate_many(): {label!r}: {exc}") from None
        labels.append(label)
        jobs.append(_Job(len(jobs), scenario))
    return labels, jobs
