"""replay(): the mariadb-10.11 engine under the load of the reference recordings of MariaDB 10.11.

The recordings and what they show are in data/reference/mariadb-10.11/README.md. The issue's
bar: idle flush rate within 10 %, updates per page flushed within 25 %. Each test states its
tolerance next to the assertion.
"""

from __future__ import annotations

import functools
import math

import polars as pl
import pytest
from test_reference_recordings import (
    HOTSET,
    IDLE,
    IDLE_LWM0,
    REF,
    idle_phases,
    pages_flushed,
)

import flushsim as fs
from flushsim.live.recorder import Recording
from flushsim.replay import FLUSHING_COLUMNS, Replay, scenario_for

# The table of scripts/record_reference.py: 300,000 rows of (INT, INT, CHAR(200)) in ~4,920
# pages; one row per autocommit UPDATE from 4 connections.
WORKLOAD = {
    "table_rows": 300_000,
    "rows_per_page": 61,
    "rows_per_trx": 1,
    "threads": 4,
    "think_time_us": 0.0,
}
HOT = {"workload": "hotset", "hot_rows": 4_000}


@functools.cache
def replayed(name: str) -> Replay:
    path = REF / f"{name}.parquet"
    knobs = {**WORKLOAD, **(HOT if name in HOTSET else {})}
    return fs.replay(path, scenario_for(path, **knobs))


def _lwm(r: Replay) -> float:
    return float(r.run.scenario["innodb_max_dirty_pages_pct_lwm"])


@pytest.mark.parametrize("name", sorted(IDLE))
def test_idle_flush_rate_within_10_percent(name):
    io_capacity = IDLE[name]
    r = replayed(name)
    for phase in ("above_lwm", "below_lwm"):
        real = idle_phases(r.real, io_capacity, _lwm(r)).filter(pl.col("phase") == phase)
        model = idle_phases(r.model, io_capacity, _lwm(r)).filter(pl.col("phase") == phase)
        assert real.height >= 2 and model.height >= 2, (phase, real.height, model.height)
        want = float(real["pages_flushed"].mean())
        got = float(model["pages_flushed"].mean())
        # the tolerance: 10 % (the server is exact: io_capacity, then half of it)
        assert got == pytest.approx(want, rel=0.10), (phase, want, got)
        # above the lwm it is the adaptive path, below it the idle (background) one
        kind = "adaptive" if phase == "above_lwm" else "background"
        assert model[kind].sum() == model["pages_flushed"].sum(), (phase, model)


def test_default_lwm_of_zero_leaves_the_idle_pool_dirty_as_recorded():
    r = replayed(IDLE_LWM0)
    assert pages_flushed(r.model).sum() == 0 == pages_flushed(r.real).sum()
    # the model's table has no undo pages: 4,919 of its pages dirty against the server's 5,132
    assert r.model["buffer_pool_pages_dirty"].min() >= 0.9 * r.real["buffer_pool_pages_dirty"][0]


@pytest.mark.parametrize("name", sorted(HOTSET))
def test_hotset_updates_per_page_flushed_within_25_percent(name):
    r = replayed(name)
    real, model = r.updates_per_page_flushed()
    # the tolerance: 25 %
    assert model == pytest.approx(real, rel=0.25), (real, model)
    real45, model45 = r.updates_per_page_flushed(first_s=r.real.height - 45 + 1)
    assert model45 == pytest.approx(real45, rel=0.25), (real45, model45)


def test_hotset_ranking_by_io_capacity_max_is_the_servers():
    ratios = [replayed(n).updates_per_page_flushed()[1] for n in sorted(HOTSET, key=HOTSET.get)]
    assert ratios[0] > ratios[1] > ratios[2], ratios


@pytest.mark.parametrize("name", sorted(HOTSET))
def test_hotset_cliff_when_redo_age_passes_the_adaptive_lwm(name):
    # The server flushes io_capacity (100) pages/s for ~15 s, then 13-16 once the checkpoint age
    # passes innodb_adaptive_flushing_lwm with the averages still at zero.
    m = pages_flushed(replayed(name).model)
    first, after = float(m[1:14].mean()), float(m[19:30].mean())
    assert first == pytest.approx(100.0, rel=0.05)
    assert after < 0.5 * first, (first, after)


@pytest.mark.parametrize("name", sorted(HOTSET))
def test_replayed_load_is_the_recordings(name):
    r = replayed(name)
    assert r.model.height == r.real.height
    assert r.model["time_s"].to_list() == r.real["time_s"].to_list()
    assert r.start_dirty_pages == 0  # the first second has updates: a clean start
    # paced to the recorded row changes: every second within 1 % (4 transactions in flight)
    diff = (r.model["dml_updates"] - r.real["dml_updates"]).abs()
    assert (diff <= 0.01 * r.real["dml_updates"] + 4).all(), diff.max()
    age = r.errors().filter(pl.col("column") == "log_lsn_checkpoint_age")
    assert abs(age["error_pct"][0]) < 15.0, age  # redo replayed per second


def test_errors_and_side_by_side_tables():
    r = replayed("hotset-iocmax400")
    err = r.errors()
    assert err.columns == ["column", "kind", "real_mean", "model_mean", "error_pct", "mae"]
    assert set(err["column"]) <= set(FLUSHING_COLUMNS)
    assert "buffer_flush_adaptive_total_pages" in err["column"].to_list()
    sync = err.filter(pl.col("column") == "buffer_flush_sync_total_pages")
    assert sync["error_pct"][0] is None  # nothing to compare with: null, not a division error
    long = r.side_by_side(["buffer_pool_pages_dirty", "log_lsn_checkpoint_age"])
    assert long.columns == ["time_s", "column", "real", "model"]
    assert long.height == 2 * r.real.height
    with pytest.raises(ValueError, match="not in both"):
        r.side_by_side(["sim_tps_p99"])


def _recording(series: pl.DataFrame, **fields) -> Recording:
    return Recording(
        series=series,
        variables={"version": "10.11.19-MariaDB"},
        server_version="10.11.19-MariaDB",
        engine="mariadb-10.11",
        **fields,
    )


def test_bad_input_is_named():
    sc = fs.Scenario(engine="mariadb-10.11", knobs=WORKLOAD)
    good = pl.DataFrame({"time_s": [1, 2], "dml_reads": [10, 0], "dml_updates": [10, 0]})
    with pytest.raises(TypeError, match="Scenario"):
        fs.replay(_recording(good), {"innodb_io_capacity": 200})
    with pytest.raises(TypeError, match="Recording or a path"):
        fs.replay(good, sc)
    with pytest.raises(ValueError, match="no samples"):
        fs.replay(_recording(good.clear()), sc)
    with pytest.raises(ValueError, match="dml_updates"):
        fs.replay(_recording(good.drop("dml_updates")), sc)
    with pytest.raises(ValueError, match="one sample a second"):
        fs.replay(_recording(good, interval_s=10.0), sc)
    with pytest.raises(ValueError, match="start_dirty_pages=-1"):
        fs.replay(_recording(good), sc, start_dirty_pages=-1)


def test_replay_of_a_minimal_recording_runs_its_load():
    # no server columns beyond the load: an empty pool, the load paced as given
    rec = _recording(
        pl.DataFrame(
            {
                "time_s": [1, 2, 3, 4],
                "dml_reads": [500, 0, 900, 900],
                "dml_updates": [100, 0, 0, 300],
            }
        )
    )
    sc = fs.Scenario(engine="mariadb-10.11", knobs={**WORKLOAD, "threads": 8})
    r = fs.replay(rec, sc)
    assert r.start_data_pages == 0 and r.start_dirty_pages == 0 and r.warmup_s == 1
    # every row access counts as read (an UPDATE reads its row first, as on the servers)
    assert r.model["dml_reads"].to_list() == [500, 0, 900, 900]
    # each access is an update with probability write_pct: binomial, within 4 sigma
    pairs = zip(r.model["dml_updates"], [500, 0, 900, 900], [100, 0, 0, 300], strict=True)
    for got, n, want in pairs:
        p = want / n if n else 0.0
        assert abs(got - want) <= 4 * math.sqrt(n * p * (1 - p)) + 1, (got, want)
    assert not math.isnan(r.errors()["real_mean"].sum())


def test_cli_replay_prints_the_comparison_and_writes_it(tmp_path, capsys):
    from flushsim.cli import main

    out = tmp_path / "both.csv"
    sets = [f"--set={k}={v}" for k, v in {**WORKLOAD, **HOT}.items()]
    path = str(REF / "hotset-iocmax800.parquet")
    assert main(["replay", path, *sets, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "updates per page flushed: server 25.9, model" in text
    assert "buffer_flush_adaptive_total_pages" in text
    table = pl.read_csv(out)
    assert table.columns == ["time_s", "column", "real", "model"]
    assert table.height == 90 * len(replayed("hotset-iocmax800").columns())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["replay", "/nonexistent.parquet"], "no recording at /nonexistent.parquet"),
        (["replay", "README.md"], "README.md is not a recording"),
        (["replay", str(REF / "idle-ioc100.parquet"), "--set", "hot_rowz=3"], "did you mean"),
        (["replay", str(REF / "idle-ioc100.parquet"), "--out", "x.json"], "must end in .csv"),
    ],
)
def test_cli_replay_bad_input_is_one_line(argv, message, capsys, monkeypatch):
    from flushsim.cli import main

    monkeypatch.chdir(REF.parent.parent.parent)  # README.md at the repository root
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_figure_draws_server_and_model_per_metric():
    from flushsim.viz import replay as replay_figures

    r = replayed("idle-ioc200")
    cols = ["buffer_flush_adaptive_total_pages", "buffer_pool_pages_dirty"]
    grid = replay_figures.side_by_side(r.side_by_side(cols))
    figs = [child[0] for child in grid.children]
    assert [f.title.text for f in figs] == [replay_figures.TITLES[c] for c in cols]
    for f, c in zip(figs, cols, strict=True):
        data = f.renderers[0].data_source.data
        assert list(data["real"]) == r.real[c].to_list()
        assert list(data["model"]) == r.model[c].to_list()
    with pytest.raises(ValueError, match="side_by_side"):
        replay_figures.side_by_side(pl.DataFrame({"time_s": [1]}))
