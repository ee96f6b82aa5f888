"""fs.simulate_many(): the same Runs as simulate() one by one, bad input, dead workers."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import psutil
import pytest
from sweep_process import env

import flushsim as fs

MANY = sys.modules["flushsim.many"]  # the module: `fs.simulate_many` is the function
BASE = fs.Scenario(seconds=8, knobs={"table_rows": 400_000, "threads": 8})
SCENARIOS = {
    "low": BASE.replace(innodb_io_capacity=100),
    ("tuple", 2): BASE.replace(innodb_io_capacity=2000, innodb_io_capacity_max=4000),
    "same": BASE.replace(innodb_io_capacity=100),
    "mariadb": fs.Scenario(
        seconds=8, engine="mariadb-10.11", knobs={"table_rows": 400_000, "threads": 8}
    ),
}
RUN_WALL_S = 4.0  # each run must outlast a worker's start (~1 s) by far, to be killed mid-run
# a worker's start (unpickling, the preparation of __main__) takes less CPU than this; its run
# about RUN_WALL_S: one past it holds a run
MID_RUN_CPU_S = 0.5


def assert_same_runs(got: dict, want: dict) -> None:
    assert list(got) == list(want)
    for label, run in want.items():
        assert got[label].scenario == run.scenario, label
        assert got[label].series.equals(run.series), label
        assert np.array_equal(got[label].latency_hist, run.latency_hist), label


@pytest.fixture(scope="module")
def one_by_one():
    return {label: fs.simulate(sc, seconds=6) for label, sc in SCENARIOS.items()}


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_the_runs_are_simulate_one_by_one(one_by_one, workers):
    assert_same_runs(fs.simulate_many(SCENARIOS, seconds=6, workers=workers), one_by_one)


def test_each_scenario_keeps_its_own_length_without_seconds():
    runs = fs.simulate_many({"a": BASE.replace(seconds=3), "b": BASE.replace(seconds=5)})
    assert [r.series.height for r in runs.values()] == [3, 5]


def test_one_worker_runs_them_here_in_order(monkeypatch):
    seen = []
    monkeypatch.setattr(MANY, "simulate", lambda sc: seen.append(sc["innodb_io_capacity"]))
    runs = fs.simulate_many(SCENARIOS, workers=1)
    assert seen == [100, 2000, 100, 200] and list(runs) == list(SCENARIOS)


@pytest.mark.parametrize(
    ("scenarios", "kwargs", "error", "message"),
    [
        ([BASE], {}, TypeError, "takes a mapping of label -> Scenario, not list"),
        ({"a": BASE, "b": "default"}, {}, TypeError, "'b' is a str, not a Scenario"),
        ({"a": BASE}, {"seconds": 0}, ValueError, "simulate_many\\(\\): 'a': seconds"),
        ({"a": BASE}, {"workers": 0}, ValueError, "workers=0 must be a whole number"),
        ({"a": BASE}, {"workers": True}, ValueError, "workers=True must be a whole number"),
    ],
)
def test_bad_input_fails_before_any_run(monkeypatch, scenarios, kwargs, error, message):
    monkeypatch.setattr(MANY, "run_tasks", None)  # a run would fail with another error
    monkeypatch.setattr(MANY, "simulate", None)
    with pytest.raises(error, match=message):
        fs.simulate_many(scenarios, **kwargs)


# ---------------------------------------------------------------- dead workers
@pytest.fixture(scope="module")
def long_runs() -> dict[str, fs.Scenario]:
    """Three runs of the default preset that take about RUN_WALL_S each here (measured)."""
    default = fs.presets.get("default")
    fs.simulate(default, seconds=10)  # compile or load the cache
    start = time.perf_counter()
    fs.simulate(default, seconds=60)
    seconds = int(min(3600, max(60, RUN_WALL_S * 60 / (time.perf_counter() - start))))
    return {
        f"io={n}": default.replace(seconds=seconds, innodb_io_capacity=n) for n in (100, 200, 300)
    }


def _workers() -> list[psutil.Process]:
    """This process's worker processes: the children of its fork server."""
    out = []
    for server in psutil.Process().children():
        try:
            if "multiprocessing.forkserver" in " ".join(server.cmdline()):
                out += server.children()
        except psutil.NoSuchProcess:
            continue
    return out


def _busy_worker(exclude: set[int]) -> psutil.Process:
    """A worker mid-run, not one of `exclude` (waited for)."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        for w in _workers():
            try:
                if w.pid not in exclude and w.cpu_times().user > MID_RUN_CPU_S:
                    return w
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.05)
    raise AssertionError("no busy worker process within 240 s")


def _kill(lose_one: bool, killed: list[int]) -> None:
    """SIGKILL a worker mid-run (as the OOM killer does); with `lose_one`, then its replacement.

    The other workers are frozen meanwhile, so that the replacement is the one to take the run
    lost with the first: killing it loses that run twice.
    """
    first = _busy_worker(set())
    frozen = [w for w in _workers() if w.pid != first.pid] if lose_one else []
    for w in frozen:
        w.send_signal(signal.SIGSTOP)
    first.send_signal(signal.SIGKILL)
    killed.append(first.pid)
    if lose_one:
        second = _busy_worker({first.pid, *(w.pid for w in frozen)})
        second.send_signal(signal.SIGKILL)
        killed.append(second.pid)
    for w in frozen:
        w.send_signal(signal.SIGCONT)


def _simulate_many_while_killing(scenarios, lose_one: bool):
    killed: list[int] = []
    killer = threading.Thread(target=_kill, args=(lose_one, killed), daemon=True)
    killer.start()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runs = fs.simulate_many(scenarios, workers=2)
    killer.join()
    return runs, killed, [w.message for w in caught]


@pytest.mark.slow
def test_a_worker_killed_mid_run_costs_no_run(long_runs):
    runs, killed, caught = _simulate_many_while_killing(long_runs, lose_one=False)
    assert len(killed) == 1
    (death,) = [m for m in caught if "was killed by SIGKILL" in str(m)]
    assert str(death).startswith(f"worker process {killed[0]} was killed by SIGKILL")
    assert "(0 lost a second time)" in str(death)
    assert not [m for m in caught if isinstance(m, MANY.LostRuns)]
    assert_same_runs(runs, {k: fs.simulate(sc) for k, sc in long_runs.items()})
    assert _workers() == []


@pytest.mark.slow
def test_a_run_lost_twice_is_named_and_the_rest_kept(long_runs):
    runs, killed, caught = _simulate_many_while_killing(long_runs, lose_one=True)
    assert len(killed) == 2
    (lost,) = [m for m in caught if isinstance(m, MANY.LostRuns)]
    assert lost.labels and set(lost.labels) == set(long_runs) - set(runs)
    assert str(lost).startswith(f"simulate_many: {len(lost.labels)} of 3 runs lost")
    assert all(repr(label) in str(lost) for label in lost.labels)
    assert_same_runs(runs, {k: fs.simulate(long_runs[k]) for k in runs})
    assert _workers() == []


# ---------------------------------------------------------------- runs ahead
def _made_here(monkeypatch) -> list:
    """The scenarios this process simulates itself from now on (workers=1 runs them here)."""
    made: list = []
    real = MANY.simulate
    monkeypatch.setattr(MANY, "simulate", lambda sc: made.append(sc) or real(sc))
    return made


def test_a_run_started_ahead_is_taken_not_made_again(one_by_one, monkeypatch):
    ahead = fs.run_ahead(SCENARIOS, seconds=6, workers=2)
    try:
        made = _made_here(monkeypatch)
        other = BASE.replace(innodb_io_capacity=300)
        runs = fs.simulate_many({"low": SCENARIOS["low"], "other": other}, seconds=6, workers=1)
        assert [sc["innodb_io_capacity"] for sc in made] == [300]
        assert_same_runs({"low": runs["low"]}, {"low": one_by_one["low"]})
        assert runs["low"] is ahead.take(ahead.index(runs["low"].scenario))
        # all four made in the background ("same" is "low": made once), each as simulate() would
        runs = fs.simulate_many(SCENARIOS, seconds=6, workers=1)
        assert len(made) == 1 and len(ahead.scenarios) == ahead.done() == 3
        assert_same_runs(runs, one_by_one)
        # a cell run twice: nothing is started again
        assert fs.run_ahead(SCENARIOS, seconds=6, workers=2).scenarios == []
    finally:
        ahead.cancel()
    assert MANY._AHEAD == [] and _workers() == []


def test_runs_ahead_not_made_by_a_cancel_are_made_by_whoever_asks(monkeypatch):
    scenarios = {n: BASE.replace(innodb_io_capacity=n, seconds=8) for n in (100, 200, 300)}
    ahead = fs.run_ahead(scenarios, workers=2)
    ahead.cancel()
    assert _workers() == [] and not ahead._thread.is_alive()
    made = _made_here(monkeypatch)
    runs = fs.simulate_many(scenarios, workers=1)
    assert list(runs) == list(scenarios) and len(made) == 3 - ahead.done()


def test_one_worker_starts_nothing_ahead(monkeypatch):
    monkeypatch.setattr(MANY, "run_tasks", None)
    ahead = fs.run_ahead(SCENARIOS, workers=1)
    assert ahead.scenarios == [] and MANY._AHEAD == [] and ahead.done() == 0


@pytest.mark.parametrize(
    ("scenarios", "kwargs", "error", "message"),
    [
        ([BASE], {}, TypeError, "takes a mapping of label -> Scenario, not list"),
        ({"a": BASE}, {"seconds": 0}, ValueError, "simulate_many\\(\\): 'a': seconds"),
        ({"a": BASE}, {"workers": 0}, ValueError, "workers=0 must be a whole number"),
    ],
)
def test_run_ahead_bad_input_fails_at_once(monkeypatch, scenarios, kwargs, error, message):
    monkeypatch.setattr(MANY, "run_tasks", None)
    with pytest.raises(error, match=message):
        fs.run_ahead(scenarios, **kwargs)


@pytest.mark.parametrize(
    "calls",
    [
        # the sweep runs its share in this process meanwhile: it must not return a table as if
        # all was well
        "fs.sweep(sc, {'innodb_io_capacity': [100, 200, 300, 400]}, workers=2, progress=False)",
        "fs.simulate_many(scs, workers=2)",
        "fs.run_ahead(scs, workers=2)\nfs.simulate_many(scs, workers=2)",
    ],
    ids=["sweep", "simulate_many", "run_ahead"],
)
def test_a_script_without_a_main_guard_gets_one_message(tmp_path, calls):
    """Each worker process re-imports the script, which then calls sweep() and the like in it."""
    script = tmp_path / "no_guard.py"
    script.write_text(
        "import flushsim as fs\n"
        "sc = fs.Scenario(seconds=4, knobs={'table_rows': 400_000, 'threads': 8})\n"
        "scs = {n: sc.replace(innodb_io_capacity=n) for n in (100, 200)}\n" + calls + "\n"
    )
    res = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 1, res.stderr
    assert "RuntimeError: flushsim: the worker processes died while starting" in res.stderr
    assert 'if __name__ == "__main__":' in res.stderr
    assert res.stderr.count("Traceback") == 1, res.stderr
