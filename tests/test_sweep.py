"""fs.sweep(): grid validation, determinism across workers, summaries, interrupts, the CLI, Dask."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sweep_process import env

import flushsim as fs
from flushsim import amplification, cli, frontier, warmup
from flushsim.sweep import SUMMARY_COLUMNS, by_config, plan, summarize

REPO = Path(__file__).resolve().parents[1]
SWEEP = sys.modules["flushsim.sweep"]  # the module: `fs.sweep` is the function
BASE = fs.Scenario(seconds=8, knobs={"table_rows": 400_000, "threads": 8})
GRID = {"innodb_io_capacity": [100, 400], "innodb_io_capacity_max": [300, 2000]}


@pytest.fixture(scope="module")
def serial():
    return fs.sweep(BASE, GRID, seeds=2, workers=1, progress=False)


# ---------------------------------------------------------------- the grid
def test_rows_are_the_cross_product_times_seeds_in_grid_order(serial):
    assert serial.height == 2 * 2 * 2
    assert serial.columns[:4] == [
        "innodb_io_capacity",
        "innodb_io_capacity_max",
        "seed",
        "adjustments",
    ]
    assert serial.columns[4:] == list(SUMMARY_COLUMNS)
    assert serial["innodb_io_capacity"].to_list() == [100] * 4 + [400] * 4
    assert serial["innodb_io_capacity_max"].to_list() == [300, 300, 2000, 2000] * 2
    assert serial["seed"].to_list() == [1, 2] * 4


def test_the_server_startup_rule_is_reported_per_row(serial):
    # io_capacity 400 > io_capacity_max 300: the server lowers io_capacity and says so
    adjusted = serial.filter(pl.col("adjustments") != "")
    assert adjusted.select("innodb_io_capacity", "innodb_io_capacity_max").unique().rows() == [
        (400, 300)
    ]
    assert "Setting innodb_io_capacity to 300" in adjusted["adjustments"][0]


@pytest.mark.parametrize(
    ("grid", "seeds", "message"),
    [
        ({"innodb_io_capacty": [100]}, 1, "innodb_io_capacity"),  # typo: a suggestion
        ({"innodb_lru_flush_size": [32]}, 1, "innodb_lru_flush_size"),  # MariaDB only
        ({"innodb_io_capacity": [50, 200]}, 1, "between 100 and"),
        ({"innodb_io_capacity": []}, 1, "is empty"),
        ({"innodb_io_capacity": "100,200"}, 1, "must be a list"),
        ({}, 1, "non-empty mapping"),
        ({"innodb_io_capacity": [200]}, 0, "seeds=0"),
        ({"innodb_io_capacity": [200]}, [-1], "seeds="),
    ],
)
def test_bad_input_fails_before_any_run_naming_the_knob(monkeypatch, grid, seeds, message):
    def boom(*a, **k):
        raise AssertionError("simulate() ran before the grid was checked")

    monkeypatch.setattr(SWEEP, "simulate", boom)
    with pytest.raises(ValueError, match=message):
        fs.sweep(BASE, grid, seeds=seeds, progress=False)


def test_sizes_and_switches_as_a_my_cnf_says_them_become_typed_columns():
    tasks = plan(BASE, {"innodb_redo_log_capacity": ["512M", "1G"], "innodb_flush_sync": ["OFF"]})
    assert [t.point for t in tasks] == [
        {"innodb_redo_log_capacity": 512 * 2**20, "innodb_flush_sync": False},
        {"innodb_redo_log_capacity": 2**30, "innodb_flush_sync": False},
    ]
    assert tasks[1].scenario["innodb_redo_log_capacity"] == 2**30
    with pytest.raises(ValueError, match="innodb_redo_log_capacity='lots' is not a whole number"):
        plan(BASE, {"innodb_redo_log_capacity": ["lots"]})


def test_a_knob_the_timeline_sets_is_reported():
    sc = BASE.at(4, innodb_io_capacity=1000)
    (task,) = plan(sc, {"innodb_io_capacity": [300]})
    assert task.adjustments == (
        "the timeline sets innodb_io_capacity at 4 s: the grid's value holds until then"
    )


def test_a_bad_value_names_its_grid_point():
    with pytest.raises(ValueError, match=r"grid point innodb_io_capacity=50, .*between 100"):
        plan(BASE, {"innodb_io_capacity": [50], "innodb_lru_scan_depth": [100]})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"workers": 0}, "workers=0"),
        ({"warmup_s": 8}, "warmup_s=8"),
        ({"warmup_s": "soon"}, "warmup_s='soon' must be 'auto'"),
        ({"drive": "no-such-drive"}, "no-such-drive"),
        ({"fill": 1.5}, "fill"),
    ],
)
def test_bad_options_fail_before_any_run(monkeypatch, kwargs, message):
    monkeypatch.setattr(SWEEP, "simulate", lambda *a, **k: 1 / 0)
    with pytest.raises(ValueError, match=message):
        fs.sweep(BASE, {"innodb_io_capacity": [200]}, progress=False, **kwargs)


# ---------------------------------------------------------------- the numbers
def test_workers_do_not_change_a_number(serial):
    parallel = fs.sweep(BASE, GRID, seeds=2, workers=2, progress=False)
    assert parallel.equals(serial)


def test_each_row_summarises_its_own_simulation(serial):
    row = serial.row(5, named=True)  # io_capacity 400 > io_capacity_max 300: adjusted
    with pytest.warns(fs.params.FlushsimWarning, match="Setting innodb_io_capacity to 300"):
        scenario = BASE.replace(
            innodb_io_capacity=row["innodb_io_capacity"],
            innodb_io_capacity_max=row["innodb_io_capacity_max"],
            seed=row["seed"],
        )
    run = fs.simulate(scenario)
    s = run.series
    assert row["tps_mean"] == pytest.approx(s["sim_tps"].mean())
    assert row["buffer_flush_adaptive_total_pages"] == pytest.approx(
        s["buffer_flush_adaptive_total_pages"].mean()
    )
    assert row["buffer_pool_wait_free"] == s["buffer_pool_wait_free"].sum()
    db = amplification.totals(run).filter(pl.col("stage") == "db_bytes")["bytes_per_s"][0]
    assert row["bytes_written_per_day"] == pytest.approx(db * 86_400)
    flushed = row["pages_flushed_per_s"] * s.height
    assert row["updates_per_page_flushed"] == pytest.approx(s["dml_updates"].sum() / flushed)


def test_warmup_auto_is_each_points_own(capsys, tmp_path):
    # a 64 MiB pool settles in 40 s, 1 GiB in 71 s: the base's warm-up for both would be wrong
    base = fs.presets.get("default").replace(seconds=20)
    pools = [64 * 2**20, 2**30]
    table = fs.sweep(
        base, {"innodb_buffer_pool_size": pools}, warmup_s="auto", workers=1, progress=False
    )
    for pool, row in zip(pools, table.iter_rows(named=True), strict=True):
        point = base.replace(innodb_buffer_pool_size=pool)
        expected, settled = warmup.auto_warmup(point)
        assert settled and row["warmup_s"] == expected
        longer, cut_s, _ = warmup.warm(point, warmup.AUTO)
        assert row["tps_mean"] == summarize(fs.simulate(longer), warmup_s=cut_s)["tps_mean"]
    assert table["warmup_s"].n_unique() == 2
    out = tmp_path / "s.csv"
    argv = ["sweep", "default", "--seconds", "20", "--grid", "innodb_buffer_pool_size=64M,1G"]
    assert cli.main([*argv, "--warmup", "auto", "--workers", "1", "--out", str(out)]) == 0
    assert "warm-up auto: each run's own" in capsys.readouterr().err
    assert pl.read_csv(out)["warmup_s"].to_list() == table["warmup_s"].to_list()


@pytest.mark.parametrize("engine", ["mysql-8.0", "mariadb-10.11"])
@pytest.mark.parametrize("warm_s", [15, warmup.AUTO], ids=["fixed", "auto"])
def test_a_resumed_warm_up_summarizes_as_the_lengthened_run(engine, warm_s):
    # what lets a sweep simulate a point's warm-up once: the run resumed from the kept warm
    # state (warm_up, then simulate_warm) has the summary of the lengthened run, cut
    sc = fs.presets.get("default").replace(engine=engine, seconds=20)
    sc = sc.at(5, innodb_io_capacity=400)
    longer, cut_s, _ = warmup.warm(sc, warm_s)
    lengthened = summarize(fs.simulate(longer), warmup_s=cut_s)
    w = warmup.warm_up(sc, warm_s)
    resumed = summarize(warmup.simulate_warm(sc, warm=w))
    assert w.seconds == cut_s > 0 and resumed["warmup_s"] == 0
    np.testing.assert_equal({**resumed, "warmup_s": float(cut_s)}, lengthened)  # NaN == NaN


def test_warmup_leaves_out_the_first_seconds():
    run = fs.simulate(BASE)
    full, late = summarize(run), summarize(run, warmup_s=3)
    assert late["tps_mean"] == pytest.approx(run.series["sim_tps"][3:].mean())
    assert full["tps_mean"] == pytest.approx(run.series["sim_tps"].mean())
    # redo bytes of the kept seconds only: LSN differences, not the LSN since start
    chain = amplification.chain(run)
    assert late["bytes_written_per_day"] == pytest.approx(chain["db_bytes"][3:].mean() * 86_400)


def test_stall_seconds_count_seconds_below_half_the_median():
    run = fs.simulate(BASE.stop_workload(5))  # three seconds without transactions
    assert summarize(run)["stall_seconds"] == 3
    assert summarize(run)["tps_p1"] == 0


def test_more_flushing_costs_ssd_years():
    # A redo-bound run: io_capacity_max paces adaptive flushing (lesson 06), and the drive pays.
    sc = fs.Scenario(
        seconds=20,
        knobs={
            "workload": "zipf",
            "table_rows": 2_000_000,
            "write_pct": 50,
            "threads": 16,
            "innodb_redo_log_capacity": 64 * 2**20,
        },
    )
    table = fs.sweep(sc, {"innodb_io_capacity_max": [500, 4000]}, workers=1, progress=False)
    low, high = table.rows(named=True)
    assert (
        high["buffer_flush_adaptive_total_pages"] > 1.5 * low["buffer_flush_adaptive_total_pages"]
    )
    assert high["ssd_lifetime_years"] < low["ssd_lifetime_years"]
    assert high["updates_per_page_flushed"] < low["updates_per_page_flushed"]


def test_by_config_averages_the_seeds(serial):
    means = by_config(serial)
    assert means.height == 4
    assert means["runs"].to_list() == [2] * 4
    first = serial.filter(
        (pl.col("innodb_io_capacity") == 100) & (pl.col("innodb_io_capacity_max") == 300)
    )
    assert means["tps_mean"][0] == pytest.approx(first["tps_mean"].mean())


def test_points_the_server_runs_alike_are_simulated_once(monkeypatch):
    # io_capacity 400 and 2000 above io_capacity_max 300 are both lowered to 300 at startup
    grid = {"innodb_io_capacity": [300, 400, 2000], "innodb_io_capacity_max": [300, 3000]}
    calls = []
    run_task = SWEEP._run_task
    monkeypatch.setattr(SWEEP, "_run_task", lambda *a: calls.append(a[0].index) or run_task(*a))
    table = fs.sweep(BASE, grid, workers=1, progress=False)
    assert table.height == 6
    assert len(calls) == 4  # (300, 300), (300, 3000), (400, 3000), (2000, 3000)
    lowered = table.filter(pl.col("innodb_io_capacity_max") == 300)
    assert lowered["innodb_io_capacity"].to_list() == [300, 400, 2000]
    assert lowered.select(list(SUMMARY_COLUMNS)).n_unique() == 1
    assert lowered["adjustments"].to_list()[0] == ""
    assert "Setting innodb_io_capacity to 300" in lowered["adjustments"].to_list()[1]
    # and each one is the run it stands for
    alone = fs.sweep(
        BASE,
        {"innodb_io_capacity": [2000], "innodb_io_capacity_max": [300]},
        workers=1,
        progress=False,
    )
    assert alone.select(list(SUMMARY_COLUMNS)).equals(lowered.select(list(SUMMARY_COLUMNS)).head(1))


# ---------------------------------------------------------------- interrupts
@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupt_keeps_the_finished_rows(workers):
    seen = []

    def stop_after_two(row):
        seen.append(row)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.warns(RuntimeWarning, match=r"interrupted: 2 of 8 rows finished"):
        table = fs.sweep(
            BASE, GRID, seeds=2, workers=workers, progress=False, on_row=stop_after_two
        )
    assert table.height == 2
    assert table.columns[4:] == list(SUMMARY_COLUMNS)
    assert sorted(table["tps_mean"].to_list()) == sorted(r["tps_mean"] for r in seen)


def test_a_streamed_grid_stops_at_a_refused_point_keeping_the_finished_rows(monkeypatch):
    # from STREAM_ROWS rows on, points are checked as they are reached: the third here (hot
    # rows past the table) is refused after two rows finished, which are kept
    monkeypatch.setattr(SWEEP, "STREAM_ROWS", 2)
    grid = {"workload": ["hotset"], "table_rows": [400_000, 1_500], "hot_rows": [2_000, 1_000]}
    with pytest.warns(SWEEP.IncompleteSweep) as caught:
        table = fs.sweep(BASE.replace(seconds=3), grid, workers=1, progress=False)
    assert table.height == 2 and table["table_rows"].to_list() == [400_000, 400_000]
    (warning,) = [w.message for w in caught if isinstance(w.message, SWEEP.IncompleteSweep)]
    assert warning.missing == 2 and warning.interrupted == ""
    assert str(warning).startswith(
        "sweep stopped at grid point workload='hotset', table_rows=1500, hot_rows=2000: "
        "hot_rows=2,000 must be between 1 and table_rows (1,500); 2 of 4 rows finished"
    )


def test_ctrl_c_during_a_kernel_is_a_keyboard_interrupt(monkeypatch):
    # SIGINT's handler runs in numba's unpickling of the result, which wraps the
    # KeyboardInterrupt in SystemErrors: the chain the CLI's Ctrl-C test once met
    from flushsim.kernels import sim

    def interrupted(*_args):
        try:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as ki:
                raise SystemError("_numba_unpickle returned a result with an exception set") from ki
        except SystemError as inner:
            raise SystemError("CPUDispatcher returned a result with an exception set") from inner

    def broken(*_args):
        raise SystemError("something else")

    monkeypatch.setattr(sim, "simulate_kernel", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fs.simulate(BASE)
    monkeypatch.setattr(sim, "simulate_kernel", broken)
    with pytest.raises(SystemError, match="something else"):
        fs.simulate(BASE)


# ---------------------------------------------------------------- the command line
def test_cli_sweep_writes_the_table(tmp_path):
    out = tmp_path / "s.parquet"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "flushsim",
            "sweep",
            "default",
            "--seconds",
            "5",
            "--grid",
            "innodb_io_capacity=100,400",
            "--seeds",
            "2",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env(),
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    table = pl.read_parquet(out)
    assert table.height == 4
    assert table["seed"].to_list() == [1, 2, 1, 2]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--grid", "innodb_io_capacity=50"], "between 100 and"),
        (["--grid", "innodb_io_capacity="], "KNOB=V1,V2"),
        (["--grid", "nope=1"], "unknown knob 'nope'"),
        (["--grid", "innodb_io_capacity=100", "--grid", "innodb_io_capacity=200"], "twice"),
        (["--grid", "innodb_io_capacity=100", "--workers", "0"], "workers=0"),
    ],
)
def test_cli_sweep_errors_are_one_line(tmp_path, args, message):
    res = subprocess.run(
        [sys.executable, "-m", "flushsim", "sweep", "default", *args, "--out", "x.csv"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env(),
        timeout=120,
    )
    assert res.returncode == 2
    assert message in res.stderr
    assert "Traceback" not in res.stderr


# ---------------------------------------------------------------- Dask
def test_dask_local_cluster_gives_the_same_rows(serial):
    distributed = pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        try:
            with distributed.Client(cluster) as client:
                table = fs.sweep(BASE, GRID, seeds=2, client=client, progress=False)
        finally:
            cluster.close()
    assert table.equals(serial)


# ---------------------------------------------------------------- the frontier
def _brute_force_frontier(points: list[tuple[float, float]]) -> list[bool]:
    out = []
    for i, p in enumerate(points):
        beaten = any(
            q[0] >= p[0] and q[1] >= p[1] and (q[0] > p[0] or q[1] > p[1])
            for j, q in enumerate(points)
            if j != i
        )
        out.append(not beaten)
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 6).map(float), st.integers(0, 6).map(float)),
        min_size=1,
        max_size=30,
    )
)
def test_pareto_matches_the_brute_force_definition(points):
    table = pl.DataFrame(
        {"tps_mean": [p[0] for p in points], "ssd_lifetime_years": [p[1] for p in points]}
    )
    assert frontier.pareto(table)["on_frontier"].to_list() == _brute_force_frontier(points)


def test_pareto_minimise_and_nan():
    table = pl.DataFrame({"a": [1.0, 2.0, 3.0, math.nan], "b": [3.0, 2.0, 2.5, 9.0]})
    marked = frontier.pareto(table, {"a": "max", "b": "min"})
    assert marked["on_frontier"].to_list() == [False, True, True, False]
    with pytest.raises(ValueError, match="'c' is not a column"):
        frontier.pareto(table, {"c": "max"})
    with pytest.raises(ValueError, match="'max' or 'min'"):
        frontier.pareto(table, {"a": "up"})


def test_nearest_counts_doublings():
    table = frontier.pareto(
        pl.DataFrame(
            {
                "innodb_io_capacity_max": [500, 1000, 4000, 8000],
                "tps_mean": [1.0, 2.0, 3.0, 4.0],
                "ssd_lifetime_years": [4.0, 3.0, 2.0, 1.0],
            }
        )
    )
    near = frontier.nearest(table, {"innodb_io_capacity_max": 2000}, k=2)
    assert near["innodb_io_capacity_max"].to_list() in ([1000, 4000], [4000, 1000])
    assert near["distance"].to_list() == [1.0, 1.0]
    with pytest.raises(ValueError, match="share no knob"):
        frontier.nearest(table, {"innodb_lru_scan_depth": 1})


def test_sweep_figures_build(serial):
    from bokeh.models import ColumnDataSource

    from flushsim.viz import sweeps

    means = frontier.pareto(by_config(serial))
    heat = sweeps.heatmap(means, "innodb_io_capacity", "innodb_io_capacity_max", "tps_mean")
    src = next(m for m in heat.references() if isinstance(m, ColumnDataSource))
    assert len(src.data["value"]) == 4
    np.testing.assert_allclose(sorted(src.data["value"]), sorted(means["tps_mean"].to_list()))
    front = sweeps.frontier(
        means,
        ["innodb_io_capacity", "innodb_io_capacity_max"],
        current={"innodb_io_capacity": 100, "innodb_io_capacity_max": 2000},
    )
    assert "frontier" in front.title.text
    with pytest.raises(ValueError, match="'nope' is not a column"):
        sweeps.heatmap(means, "nope", "innodb_io_capacity", "tps_mean")


def test_heatmap_cells_read_as_numbers_with_si_prefixes(serial):
    # bytes_written_per_day is in the trillions: "4.21 T", not "4,214,348,740,800" or 4.2e+12
    from bokeh.models import ColorBar, ColumnDataSource, CustomJSTickFormatter

    from flushsim.viz import sweeps

    means = by_config(serial)
    heat = sweeps.heatmap(
        means, "innodb_io_capacity", "innodb_io_capacity_max", "bytes_written_per_day"
    )
    src = next(m for m in heat.references() if isinstance(m, ColumnDataSource))
    for value, text in zip(src.data["value"], src.data["text"], strict=True):
        number, prefix = text.split(" ")
        scale = 10 ** (3 * (2 + sweeps.SI_PREFIXES.index(prefix)))
        assert 1 <= float(number) < 1000
        assert float(number) * scale == pytest.approx(value, rel=0.005)
    (bar,) = [m for m in heat.references() if isinstance(m, ColorBar)]
    assert isinstance(bar.formatter, CustomJSTickFormatter)
    assert [sweeps._cell_text(v) for v in (999_999.0, 1_450.3, 12.345, 2.5e9)] == [
        "999,999",
        "1,450",
        "12.3",
        "2.5 G",
    ]


def test_pages_flushed_is_the_kinds_added_up_and_every_page_written():
    # sync rounds with LRU batches: the coordinator counts their LRU pages as sync pages only,
    # so buffer_flush_batch_total_pages + LRU batch pages left them out
    sc = fs.Scenario(
        seconds=12,
        knobs={
            "table_rows": 400_000,
            "threads": 16,
            "write_pct": 100,
            "innodb_redo_log_capacity": 8 * 2**20,
            "innodb_buffer_pool_size": 64 * 2**20,
        },
    )
    run = fs.simulate(sc)
    s = run.series
    row = summarize(run)
    assert s["buffer_flush_sync_total_pages"].sum() > 0
    assert row["pages_flushed_per_s"] == pytest.approx(sum(row[k] for k in SWEEP.FLUSH_KINDS))
    # each page written goes through the doublewrite buffer once (a few still in flight at the end)
    written = s["innodb_dblwr_pages_written"].sum()
    assert row["pages_flushed_per_s"] * s.height == pytest.approx(written, rel=0.03)


@pytest.mark.parametrize(
    ("cpu_max", "v1_quota", "cores"),
    [
        ("150000 100000\n", None, 1),  # a pod limited to 1.5 cores: one process
        ("200000 100000\n", None, 2),
        ("max 100000\n", None, None),  # no limit: the affinity
        (None, "300000", 2),  # cgroup v1, 3 cores allowed, 2 in the affinity
        (None, "-1", None),
        (None, None, None),  # neither readable
    ],
)
def test_local_cores_keep_to_the_container_cpu_limit(
    tmp_path, monkeypatch, cpu_max, v1_quota, cores
):
    files = {"cpu.max": cpu_max, "quota": v1_quota, "period": "100000" if v1_quota else None}
    for name, text in files.items():
        if text is not None:
            (tmp_path / name).write_text(text)
    monkeypatch.setattr(SWEEP, "CGROUP_CPU_MAX", str(tmp_path / "cpu.max"))
    monkeypatch.setattr(SWEEP, "CGROUP_V1_QUOTA", str(tmp_path / "quota"))
    monkeypatch.setattr(SWEEP, "CGROUP_V1_PERIOD", str(tmp_path / "period"))
    monkeypatch.setattr(SWEEP.os, "sched_getaffinity", lambda pid: {0, 1})
    assert SWEEP.local_cores() == (2 if cores is None else cores)
