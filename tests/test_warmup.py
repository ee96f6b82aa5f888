"""Warm starts (flushsim.warmup): the warm-up is simulated, then cut; `auto` settles."""

from __future__ import annotations

from dataclasses import replace as dc_replace

import numpy as np
import polars as pl
import pytest

from flushsim import Scenario, compare, presets, simulate, warmup
from flushsim.resume import fork, go_on, resume
from flushsim.scenario import Event
from flushsim.warmup import (
    AUTO,
    AUTO_CAP_S,
    WINDOW_S,
    cut,
    lengthened_run,
    parse_warmup,
    settle_time,
    simulate_warm,
    simulate_warm_steps,
    warm,
    warm_up,
)


def _small():
    return presets.get("default").replace(
        innodb_buffer_pool_size="64M", table_rows=200_000, threads=4, seconds=12
    )


def test_parse_warmup():
    assert parse_warmup(None) == 0 and parse_warmup("auto") == AUTO and parse_warmup("30") == 30
    for bad in ("-1", "1.5", "soon", "999999"):
        with pytest.raises(ValueError, match="must be 'auto' or whole seconds between 0 and"):
            parse_warmup(bad)


def test_a_run_does_not_depend_on_its_length():
    # what makes cutting honest: the first seconds of a longer run are the shorter run
    sc = _small()
    short, long = simulate(sc), simulate(sc, seconds=20)
    assert short.series.equals(long.series.head(12))


def test_warm_run_is_the_tail_of_the_longer_run():
    sc = _small().at(3, innodb_io_capacity=400)
    warm_run = simulate_warm(sc, 8)
    longer, seconds, note = warm(sc, 8)
    assert (seconds, note, longer.seconds) == (8, "warm-up 8 s", 20)
    assert longer.changes == ((11, "set", "innodb_io_capacity", 400),)
    full = simulate(longer).series
    assert warm_run.series["time_s"].to_list() == list(range(1, 13))
    assert warm_run.series.drop("time_s").equals(full.slice(8).drop("time_s"))
    assert warm_run.scenario == sc and warm_run.latency_hist.shape[0] == 12


def test_compare_takes_a_warmup():
    sc = _small()
    table = compare({"cold": sc}, warmup=0)
    warm_table = compare({"warm": sc}, warmup=5)
    assert table.height == warm_table.height == 12
    assert not table["buffer_pool_pages_free"].equals(warm_table["buffer_pool_pages_free"])


def _gauges(dirty, free, age):
    n = len(dirty)
    return pl.DataFrame(
        {
            "buffer_pool_pages_dirty": dirty,
            "buffer_pool_pages_free": free,
            "log_lsn_checkpoint_age": age,
            "buffer_pool_pages_total": [1000] * n,
            "log_max_modified_age_sync": [10_000] * n,
        }
    )


def test_settle_time():
    flat = [500.0] * 40
    assert settle_time(_gauges(flat, flat, flat)) == 2 * WINDOW_S
    ramp = list(np.arange(40) * 50.0)  # 5 % of the pool a second: never settles
    assert settle_time(_gauges(ramp, flat, flat)) is None
    # filling for 30 s, then flat: settled once both windows are past the ramp (+- tolerance)
    fill, flat = [min(t, 30) * 30.0 for t in range(60)], [500.0] * 60
    t = settle_time(_gauges(fill, flat, flat))
    assert t is not None and 30 < t <= 30 + 2 * WINDOW_S
    age = [min(t, 30) * 300.0 for t in range(60)]  # checkpoint age climbing 3 % of sync a second
    t_age = settle_time(_gauges(flat, flat, age))
    assert t_age is not None and 30 < t_age <= 30 + 2 * WINDOW_S


def test_auto_warmup_of_a_preset_settles():
    longer, seconds, note = warm(_small(), AUTO)
    assert 2 * WINDOW_S <= seconds < 300 and note.startswith(f"warm-up auto: {seconds} s")
    assert longer.seconds == 12 + seconds


def test_cli_run_and_sweep_take_warmup(tmp_path, capsys):
    import polars as pl

    from flushsim import cli

    small = ["--set", "innodb_buffer_pool_size=64M", "--set", "table_rows=200000"]
    out = tmp_path / "r.csv"
    argv = ["run", "default", *small, "--seconds", "3", "--warmup", "2", "--out", str(out)]
    assert cli.main(argv) == 0
    assert "warm-up 2 s" in capsys.readouterr().err
    cold = simulate(presets.get("default").replace(**_SMALL_KNOBS, seconds=5)).series
    got = pl.read_csv(out)
    assert got["time_s"].to_list() == [1, 2, 3]
    assert got["buffer_pool_pages_free"].to_list() == cold["buffer_pool_pages_free"][2:].to_list()
    sweep_out = tmp_path / "s.csv"
    argv = ["sweep", "default", *small, "--grid", "innodb_io_capacity=200,400", "--seconds", "3"]
    assert cli.main([*argv, "--warmup", "soon", "--out", str(sweep_out)]) == 2
    assert "--warmup 'soon' must be 'auto' or whole seconds" in capsys.readouterr().err
    assert not sweep_out.exists()


_SMALL_KNOBS = {"innodb_buffer_pool_size": "64M", "table_rows": 200_000}


def _mariadb():
    knobs = {**_SMALL_KNOBS, "threads": 4, "innodb_log_file_size": "32M"}
    return Scenario(engine="mariadb-10.11", knobs=knobs, seconds=12)


def _probe_then_run(sc):
    """The auto warm-up as it was: AUTO_CAP_S seconds probed, then warm-up + run simulated."""
    probe = simulate(sc.replace(timeline=(), seconds=AUTO_CAP_S))
    t = settle_time(probe.series)
    assert t is not None
    events = tuple(dc_replace(e, at=e.at + t) for e in sc.timeline)
    longer = sc.replace(seconds=sc.seconds + t, timeline=events)
    return cut(simulate(longer), t, sc), t


@pytest.mark.parametrize("make", [_small, _mariadb], ids=["mysql", "mariadb"])
def test_auto_in_windows_is_the_probe_then_run(make, monkeypatch):
    sc = make().at(2, innodb_io_capacity=300)
    old, t = _probe_then_run(sc)
    note = warm(sc, AUTO)[2]
    simulated = []

    def counting(step):
        def counted(paused, seconds, changes=()):
            simulated.append(seconds - paused.second)
            return step(paused, seconds, changes)

        return counted

    monkeypatch.setattr(warmup, "resume", counting(resume))
    monkeypatch.setattr(warmup, "go_on", counting(go_on))
    w = warm_up(sc, AUTO)
    run = simulate_warm(sc, warm=w)
    assert (w.seconds, w.settled, w.note) == (t, True, note)
    assert run.series.equals(old.series) and np.array_equal(run.latency_hist, old.latency_hist)
    # the old path simulated AUTO_CAP_S + t + 12 seconds; this one t + 12
    assert sum(simulated) == t + sc.seconds < (AUTO_CAP_S + t + sc.seconds) / 2


def test_a_warm_state_runs_a_dynamic_change_as_set_global_at_second_0():
    sc = _small()
    w = warm_up(sc, 15)
    changed = simulate_warm(sc.replace(innodb_io_capacity=4000), warm=w)
    at_0 = simulate_warm(sc.at(0, innodb_io_capacity=4000), 15)
    assert changed.series.equals(at_0.series)  # io_capacity_max raised with it, as the server does
    assert changed.scenario["innodb_io_capacity"] == 4000
    again = simulate_warm(sc, warm=w)  # the warm state is kept: the same as a fresh warm-up
    assert again.series.equals(simulate_warm(sc, 15).series)
    assert not again.series.equals(changed.series)


def test_a_warm_state_refuses_a_static_change():
    w = warm_up(_small(), 3)
    with pytest.raises(ValueError, match="innodb_buffer_pool_size cannot be changed while the"):
        simulate_warm(_small().replace(innodb_buffer_pool_size="128M"), warm=w)
    with pytest.raises(ValueError, match="seed 2 is not the warm-up's 1: it needs its own warm-up"):
        simulate_warm(_small().replace(seed=2), warm=w)


def test_a_warm_runs_redo_bytes_start_after_its_warm_up():
    # the first second's redo is the LSN's rise in that second, not since the server started
    from flushsim import amplification

    sc = presets.get("default").replace(seconds=20)
    longer, seconds, _ = warm(sc, 30)
    whole = simulate(longer)
    expected = amplification.db_bytes(whole).slice(seconds).to_list()
    for run in (cut(whole, seconds, sc), simulate_warm(sc, warm=warm_up(sc, 30))):
        assert amplification.db_bytes(run).to_list() == expected


@pytest.mark.parametrize("engine", ["mysql-8.0", "mariadb-10.11"])
def test_a_warm_run_in_steps_is_its_head_then_the_whole_run(engine):
    # the explorer's preview then the rest, one simulation: the same numbers as two runs
    sc = _small().replace(engine=engine).at(2, innodb_io_capacity=300).at(9, threads=2)
    changed = sc.replace(innodb_io_capacity_max=4000)  # a SET GLOBAL at second 0 too
    cold = warm_up(sc, 0)  # the explorer's cold start: a 0 s warm-up
    for w in (warm_up(sc, 10), cold):
        head, whole = simulate_warm_steps(changed, w, 5)
        for run, of in ((head, changed.replace(seconds=5)), (whole, changed)):
            expected = simulate_warm(of, warm=w)
            assert run.series.equals(expected.series) and run.start_lsn == expected.start_lsn
            assert np.array_equal(run.latency_hist, expected.latency_hist)
        assert head.series.height == 5 and whole.series.height == 12
    # from a copy made ahead (`fork`), the kept state left as it was; cold, it is simulate's run
    whole = list(simulate_warm_steps(sc, cold, 5, paused=fork(cold.paused)))[-1]
    assert whole.series.equals(simulate(sc).series)
    assert whole.series.equals(simulate_warm(sc, warm=cold).series)


@pytest.mark.parametrize("engine", ["mysql-8.0", "mariadb-10.11"])
@pytest.mark.parametrize("how", [AUTO, 7, 0])
def test_a_lengthened_run_from_its_warm_up_is_the_whole_run(engine, how):
    # whatif's current side: its warm-up simulated once, kept in the series, as simulate gives it
    sc = _small().replace(engine=engine, timeline=(Event(3, "set", (("threads", 2),)),))
    got = lengthened_run(warm_up(sc, how), sc)
    longer, seconds, _ = warm(sc, how)
    want = simulate(longer)
    assert got.scenario == longer and got.series.height == longer.seconds
    assert got.series.equals(want.series)
    assert np.array_equal(got.latency_hist, want.latency_hist)
    assert (got.start_lsn, seconds) == (want.start_lsn, warm_up(sc, how).seconds)
