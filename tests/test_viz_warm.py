"""The explorer starts warm: one warm-up kept while only dynamic knobs change (FLUSHSIM_FAST)."""

from __future__ import annotations

import pytest

import flushsim as fs
from flushsim.viz.explorer import Explorer
from flushsim.warmup import AUTO, simulate_warm


@pytest.fixture
def explorer(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    return Explorer(autoplay=False)


def test_the_explorer_starts_warm(explorer):
    run = explorer.run
    assert explorer.start_picker.value == "warm" and explorer.warmups == 1
    sc = explorer.scenario_now()
    assert run.series.equals(simulate_warm(sc, AUTO).series)  # reproducible from code
    assert f"warm start: {explorer.warm.seconds} s warm-up" in explorer.status.value
    cold = fs.simulate(sc).series
    # a warm pool at second 1: the free list already drained, dirty pages already there
    assert run.series["buffer_pool_pages_free"][0] < cold["buffer_pool_pages_free"][0] / 2
    help_ = explorer.start_picker.tooltip
    assert "SET GLOBAL at second 0" in help_ and "cold start" in help_
    assert "a lesson of its own" in help_


def test_the_toggle_shows_the_cold_start_and_back_re_warms(explorer):
    explorer.run  # noqa: B018 (the first run)
    explorer.start_picker.value = "cold"
    assert explorer.run.series.equals(fs.simulate(explorer.scenario_now()).series)
    assert "cold start" in explorer.status.value and explorer.warmups == 1
    explorer.start_picker.value = "warm"
    assert explorer.warmups == 2 and "warm start" in explorer.status.value


@pytest.mark.parametrize("autoplay", [False, True], ids=["whole", "preview"])
def test_a_dynamic_change_resumes_the_kept_warm_server(monkeypatch, autoplay):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=autoplay)
    before = ex.run
    warm = ex.warm
    ex.set(innodb_io_capacity=400, innodb_lru_scan_depth=256)
    assert ex.warmups == 1 and ex.warm is warm  # no new warm-up
    assert ex.run.scenario["innodb_io_capacity"] == 400
    assert not ex.run.series.equals(before.series)
    # the same run as the base warm-up resumed with SET GLOBAL at second 0
    base = warm.scenario.replace(seconds=ex.run.scenario.seconds)
    at_0 = base.at(0, innodb_io_capacity=400, innodb_lru_scan_depth=256)
    assert ex.run.series.equals(simulate_warm(at_0, warm=warm).series)


def test_a_static_change_warms_up_again(explorer):
    explorer.run  # noqa: B018 (the first run)
    explorer.set(innodb_buffer_pool_size=128 * fs.params.MiB)
    assert explorer.warmups == 2
    assert explorer.warm.scenario["innodb_buffer_pool_size"] == 128 * fs.params.MiB
    assert explorer.run.series.equals(simulate_warm(explorer.scenario_now(), AUTO).series)


def test_re_runs_go_on_from_a_copy_of_the_warm_server_made_ahead(monkeypatch):
    monkeypatch.setenv("FLUSHSIM_FAST", "1")
    ex = Explorer(autoplay=True)
    ex.run  # noqa: B018 (the first run)
    for capacity in (400, 300, 400):
        spare = ex._spare
        assert spare is not None and spare[0] is ex.warm  # made after the last run was shown
        assert spare[1].result().state is not ex.warm.paused.state
        ex.set(innodb_io_capacity=capacity)
        assert ex._spare is not spare  # used, and a new one made
        # the kept warm server is left as it was: each run is that of a fresh resume
        assert ex.run.series.equals(simulate_warm(ex.scenario_now(), warm=ex.warm).series)
    assert ex.warmups == 1
    ex.start_picker.value = "cold"  # previewed too, from a fresh state: simulate's run
    assert ex.run.series.equals(fs.simulate(ex.scenario_now()).series)
    assert "cold start" in ex.status.value
