"""simulate_many() and run_ahead(): several Scenarios at once, one whole Run each, on every core.

`fs.simulate_many({"1K": low, "12K": high}, seconds=240)` gives {"1K": Run, "12K": Run}, the
same numbers as `fs.simulate` of each one after the other, in about the time of the longest
(or of half the runs, when there are more of them than cores). Each run goes to a worker
process of `sweep`'s (`flushsim._sweep_workers`: a fork server that preloads the kernels), one
run a worker at a time, while this process only hands them out: it suits runs of seconds, such
as lesson 03's. A worker that dies (an OOM kill) costs the run it held, which another worker
runs once more; a run lost twice is left out of the result and named in a LostRuns warning. A
Ctrl-C stops every worker and is raised, as from `simulate`.

`fs.run_ahead(scenarios, seconds=240)` starts such runs from a background thread and returns at
once: a later `simulate_many` given an equal Scenario waits for that run instead of making it
again. A notebook whose cells each wait for their own runs leaves a core idle whenever a cell's
runs do not split evenly over the cores (lesson 03: a 10 s run beside a 2 s one, five runs on
two cores); started together in its first cell, they keep both cores busy until the last.
"""

from __future__ import annotations

import atexit
import threading
import warnings
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from ._sweep_workers import retried_message, run_tasks
from .run import Run, simulate
from .scenario import Scenario
from .sweep import local_cores

TAKE_POLL_S = 0.5  # a wait for a run ahead wakes this often, so that a Ctrl-C is seen


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
        histogram alike); one started by `run_ahead` is taken from there, waited for if it is
        still being made. A run whose worker process died twice while running it is left out,
        with a LostRuns warning naming it.

    Raises:
        TypeError: `scenarios` is not a mapping of Scenarios.
        ValueError: a bad `seconds` (naming the scenario) or `workers`, before any run.
    """
    labels, jobs = _jobs(scenarios, seconds)
    workers = _workers(workers)
    book = _Runs()
    ahead, own = [], []
    for job in jobs:
        (ahead if _started_ahead(job.scenario) else own).append(job)
    deaths = _run(own, workers, book)
    missed = []  # runs ahead that were lost or failed in the background: made here
    for job in ahead:
        run = _take_ahead(job.scenario)
        if run is None:
            missed.append(job)
        else:
            book.finish(job.index, run)
    deaths += _run(missed, workers, book)
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


def _workers(workers: int | None) -> int:
    if workers is None:
        return local_cores()
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 256:
        raise ValueError(f"workers={workers!r} must be a whole number between 1 and 256")
    return workers


def _run(jobs: list[_Job], workers: int, book) -> list:
    """Every job's run into `book`, on up to `workers` cores; the worker processes that died."""
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            book.finish(*_simulate_job(job))
        return []
    return run_tasks(iter(jobs), min(workers, len(jobs)), book, _simulate_job, (), here=False)


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


class Ahead:
    """Runs started by `run_ahead`, made in the background; `simulate_many` takes them.

    Attributes:
        scenarios: the Scenarios started, in the order given (each with its run length).
        workers: the worker processes asked for (0: nothing started).
        deaths: the worker processes that died meanwhile (their runs were given once more).
    """

    def __init__(self, jobs: list[_Job], workers: int):
        self.scenarios = [job.scenario for job in jobs]
        self.deaths: list = []
        self._runs: dict[int, Run] = {}
        self._given_up: set[int] = set()  # lost twice or failed: the asker makes them itself
        self.workers = workers if jobs else 0
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._work, args=(jobs, workers), name="flushsim-run-ahead", daemon=True
        )
        if jobs:
            self._thread.start()

    def _work(self, jobs: list[_Job], workers: int) -> None:
        try:
            self.deaths = run_tasks(
                iter(jobs),
                min(workers, len(jobs)),
                self,
                _simulate_job,
                (),
                here=False,
                stop=self._stop,
            )
        except Exception:  # _sweep_workers.Stopped, or a run failed: whoever asks makes it again
            pass
        finally:
            with self._changed:
                self._given_up.update(range(len(self.scenarios)))
                self._given_up.difference_update(self._runs)
                self._changed.notify_all()

    def finish(self, index: int, run: Run) -> None:
        """Keep run `index`, made (called by the background thread)."""
        with self._changed:
            self._runs[index] = run
            self._changed.notify_all()

    def lose(self, index: int, why: str) -> None:
        """Give run `index` up: lost with its worker twice (called by the background thread)."""
        with self._changed:
            self._given_up.add(index)
            self._changed.notify_all()

    def index(self, scenario: Scenario) -> int | None:
        """The position of a run of `scenario` among those started, or None."""
        for i, started in enumerate(self.scenarios):
            if started == scenario:
                return i
        return None

    def take(self, index: int) -> Run | None:
        """Run `index` once it is made; None if the background gave it up (lost or failed)."""
        with self._changed:
            while index not in self._runs and index not in self._given_up:
                self._changed.wait(TAKE_POLL_S)
            return self._runs.get(index)

    def done(self) -> int:
        """How many of the runs are made."""
        with self._changed:
            return len(self._runs)

    def cancel(self) -> None:
        """Kill the workers; the runs not yet made are made by whoever asks for them."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        if self in _AHEAD:
            _AHEAD.remove(self)

    def __repr__(self) -> str:
        n = len(self.scenarios)
        if not n:
            return "run_ahead: nothing started ahead (the runs are made when asked for)"
        return (
            f"run_ahead: {n} run{'s' if n > 1 else ''} started in the background on "
            f"{min(self.workers, n)} worker processes, {self.done()} made so far"
        )


_AHEAD: list[Ahead] = []  # every run_ahead not cancelled, newest last


def run_ahead(
    scenarios: Mapping[Hashable, Scenario],
    *,
    seconds: int | None = None,
    workers: int | None = None,
) -> Ahead:
    """Start simulating every scenario now, in the background, for `simulate_many` to take.

    The runs go to `workers` worker processes (default: every core this process may use), in
    the order given, and the call returns at once; a scenario given twice, or already started
    ahead and not cancelled, is started once. A later `simulate_many` given a Scenario
    equal to one of them (the same run length included) waits for that run instead of making
    it; the Run is the same either way. A run lost with its worker twice, or failed, is made by
    the `simulate_many` that asks for it. With one worker nothing is started ahead (this
    process would have to make the runs now). The runs stay in memory for the life of the
    process, unless `cancel()` is called.

    Args:
        scenarios: label -> Scenario, as for `simulate_many` (labels are not used later).
        seconds: run length for all of them (simulated seconds); default each one's own.
        workers: cores to run on, each a worker process.

    Returns:
        An Ahead: how many runs are made (`done()`), and `cancel()`.

    Raises:
        TypeError, ValueError: as `simulate_many`, before any run.
    """
    _, jobs = _jobs(scenarios, seconds)
    workers = _workers(workers)
    # a cell run twice starts nothing twice
    jobs = [_Job(i, job.scenario) for i, job in enumerate(_new_ahead(jobs))]
    ahead = Ahead(jobs if workers > 1 else [], workers)
    if ahead.scenarios:
        _AHEAD.append(ahead)
    return ahead


def _new_ahead(jobs: list[_Job]) -> list[_Job]:
    """The jobs whose scenario no earlier job and no run_ahead not cancelled has started."""
    new: list[_Job] = []
    for job in jobs:
        if not _started_ahead(job.scenario) and all(j.scenario != job.scenario for j in new):
            new.append(job)
    return new


def _started_ahead(scenario: Scenario) -> bool:
    return any(a.index(scenario) is not None for a in _AHEAD)


def _take_ahead(scenario: Scenario) -> Run | None:
    for ahead in reversed(_AHEAD):
        if (i := ahead.index(scenario)) is not None:
            return ahead.take(i)
    return None


@atexit.register
def _cancel_all() -> None:
    # the workers ignore SIGTERM: without this, multiprocessing's exit handler (registered
    # before this one, so run after it) would wait for every run still to be made
    for ahead in list(_AHEAD):
        ahead.cancel()
