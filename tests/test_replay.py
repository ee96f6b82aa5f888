"""replay(): the mariadb-10.11 engine under the load of the reference recordings of MariaDB 10.11.

The recordings and what they show are in data/reference/mariadb-10.11/README.md. The issue's
bar: idle flush rate within 10 %, updates per page flushed within 25 %. Each test states its
tolerance next to the assertion.
"""

from __future__ import annotations

import functools
import math
import re

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reference_recordings import (
    HOTSET,
    IDLE,
    IDLE_LWM0,
    REF,
    idle_phases,
    pages_flushed,
)

import flushsim as fs
from flushsim import replay_check
from flushsim.live.recorder import SOURCES, Recording
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
GAUGES_ALL = {c for c, (kind, _) in SOURCES.items() if kind == "gauge"}


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


# ---------------------------------------------------------------- broken recordings (issue #34)


def _clean(n: int) -> pl.DataFrame:
    t = list(range(1, n + 1))
    return pl.DataFrame(
        {
            "time_s": t,
            "dml_reads": [100 + i for i in t],
            "dml_updates": [50 + i for i in t],
            "buffer_pool_pages_dirty": [10 * i for i in t],
            "Uptime": [500 + i for i in t],
        }
    )


FAULTS = ("null_row", "drop", "negative", "restart", "swap", "repeat")


def _inject(df: pl.DataFrame, kind: str, at: int, span: int) -> pl.DataFrame:
    """One fault as a lost connection, an edited file or a restarted server leaves it."""
    rows = df.to_dicts()
    if not rows:
        return df
    at = at % len(rows)
    if kind == "null_row":  # a missed sample: gauges null, counters null then and after
        for r in rows[at : at + span]:
            r.update({c: None for c in r if c != "time_s"})
        if at + span < len(rows):
            rows[at + span]["dml_reads"] = rows[at + span]["dml_updates"] = None
    elif kind == "drop":  # seconds cut out of the file: time_s jumps
        del rows[at : at + span]
    elif kind == "negative":
        rows[at]["dml_updates"] = -57
    elif kind == "restart":  # Uptime starts again from 1 at row `at`
        base = rows[at]["time_s"] - 1
        for r in rows[at:]:
            r["Uptime"] = None if r["Uptime"] is None else r["time_s"] - base
    elif kind == "swap" and at + 1 < len(rows):
        rows[at], rows[at + 1] = rows[at + 1], rows[at]
    elif kind == "repeat":
        rows.insert(at, dict(rows[at]))
    return pl.DataFrame(rows, schema=df.schema) if rows else df.clear()


@given(
    n=st.integers(1, 40),
    faults=st.lists(
        st.tuples(st.sampled_from(FAULTS), st.integers(0, 39), st.integers(1, 5)), max_size=4
    ),
)
@settings(max_examples=300, deadline=None)
def test_a_broken_recording_is_cut_into_pieces_or_refused_in_one_line(n, faults):
    df = _clean(n)
    for kind, at, span in faults:
        df = _inject(df, kind, at, span)
    try:
        checked = replay_check.check(df)
    except ValueError as exc:
        msg = str(exc)
        assert "\n" not in msg and msg, msg
        times = df["time_s"].to_list()
        out_of_order = any(b <= a for a, b in zip(times, times[1:], strict=False))
        if df.height == 0:
            assert "no samples" in msg
        elif out_of_order:  # reversed or repeated time_s: refused, naming the second
            assert "time_s" in msg and re.search(r"\d+ s", msg), msg
        else:
            assert "nothing to replay" in msg or "pieces" in msg, msg
        return
    times = df["time_s"].to_list()
    assert all(b > a for a, b in zip(times, times[1:], strict=False))
    real = checked.real
    usable = (real["dml_reads"].is_not_null() & real["dml_updates"].is_not_null()).to_list()
    # every usable row is in a piece, once, in order; a piece starts and ends on one; the rows
    # without load inside a piece are bridged; nothing negative is left
    covered = [i for p in checked.pieces for i in range(p.start, p.stop)]
    assert covered == sorted(set(covered))
    assert [i for i in covered if usable[i]] == [i for i, ok in enumerate(usable) if ok]
    for p in checked.pieces:
        assert usable[p.start] and usable[p.stop - 1]
        assert p.bridged == tuple(i for i in range(p.start, p.stop) if not usable[i])
    assert not any((real[c] < 0).any() for c in real.columns)
    if any(kind == "negative" for kind, _, _ in faults) and (df["dml_updates"] < 0).any():
        assert any("Negative values" in note for note in checked.notes)
    uptime = real["Uptime"].to_list()
    for p, q in zip(checked.pieces, checked.pieces[1:], strict=False):
        # a break only where time_s jumps or the server restarted
        between = range(p.stop, q.start + 1)
        jump = any(times[i] - times[i - 1] != 1 for i in between)
        known = [uptime[i] for i in range(p.stop - 1, q.start + 1) if uptime[i] is not None]
        restarted = any(b < a for a, b in zip(known, known[1:], strict=False))
        assert jump or restarted, (p, q)
        if restarted:
            assert q.after == "restart", (p, q)
    for p in checked.pieces:  # inside a piece: one second apart, Uptime never back
        assert all(times[i + 1] - times[i] == 1 for i in range(p.start, p.stop - 1))
        ups = [u for u in uptime[p.start : p.stop] if u is not None]
        assert ups == sorted(ups)
    breaks = sum(
        n.startswith("The server restarted") or "separate pieces" in n for n in checked.notes
    )
    assert breaks == len(checked.pieces) - 1
    bridges = sum("runs through them" in n for n in checked.notes)
    assert bridges == sum(len(replay_check._stretches(p.bridged)) for p in checked.pieces)


@pytest.mark.parametrize(
    ("times", "message"),
    [
        ([1, 2, 3, 2, 5], "time_s goes back from 3 to 2 s at row 4"),
        ([1, 2, 2, 3, 4], "time_s 2 s appears twice (rows 2 and 3)"),
        ([1, 2, 2.5, 3, 4], "time_s 2.5 at row 3 is not a whole second"),
        ([1, 2, None, 4, 5], "time_s is empty at row 3"),
        ([1, 2, math.inf, 4, 5], "time_s inf at row 3 is not a whole second"),
    ],
)
def test_time_out_of_order_is_refused_naming_the_second(times, message):
    df = _clean(5).with_columns(pl.Series("time_s", times, dtype=pl.Float64))
    with pytest.raises(ValueError, match=re.escape(message)):
        replay_check.check(df)


def test_text_in_a_column_is_refused_by_name():
    df = _clean(3).with_columns(pl.Series("dml_updates", ["1", "x", "2"]))
    with pytest.raises(ValueError, match="column dml_updates holds String"):
        replay_check.check(df)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
META_KEYS = ("server_version", "engine", "variables", "reconnects", "interval_s", "ended")


@given(
    changes=st.dictionaries(st.sampled_from(META_KEYS), JSON | st.just("<drop>"), max_size=3),
    whole=st.none() | JSON,
)
@settings(max_examples=150, deadline=None)
def test_any_metadata_reads_as_a_recording_or_one_line(tmp_path_factory, changes, whole):
    import json

    meta = json.loads(pl.read_parquet_metadata(REF / "idle-ioc200.parquet")["flushsim.recording"])
    for key, value in changes.items():
        if value == "<drop>":
            meta.pop(key, None)
        else:
            meta[key] = value
    path = tmp_path_factory.mktemp("meta") / "rec.parquet"
    text = json.dumps(meta if whole is None else whole)
    pl.DataFrame({"time_s": [1], "dml_reads": [1], "dml_updates": [1]}).write_parquet(
        path, metadata={"flushsim.recording": text}
    )
    try:
        rec = Recording.read(path)
    except ValueError as exc:
        assert "is not a recording" in str(exc) and "\n" not in str(exc)
        return
    # what reads is typed as the Recording says
    assert isinstance(rec.variables, dict) and isinstance(rec.engine, str)
    assert isinstance(rec.interval_s, int | float) and rec.interval_s > 0
    assert isinstance(rec.reconnects, int) and not isinstance(rec.reconnects, bool)


def _bad_files(folder):
    data = (REF / "idle-ioc200.parquet").read_bytes()
    files = {
        "empty.parquet": b"",
        "random.parquet": bytes(range(256)) * 8,
        "truncated.parquet": data[: len(data) // 2],
        "tail-cut.parquet": data[:-100],
        "empty.csv": b"",
        "header-only.csv": b"time_s,dml_reads,dml_updates\n",
        "text.csv": b"time_s,dml_reads,dml_updates\n1,a,b\n2,c,d\n",
        "binary.csv": bytes(range(256)) * 8,
        "wrong-type.parquet": None,
        "no-metadata.parquet": None,
    }
    for name, content in files.items():
        if content is not None:
            (folder / name).write_bytes(content)
    series = pl.DataFrame({"time_s": [1, 2], "dml_reads": [5, 5], "dml_updates": [1, 1]})
    series.write_parquet(folder / "no-metadata.parquet")
    series.write_parquet(
        folder / "wrong-type.parquet",
        metadata={"flushsim.recording": '{"server_version": 5, "engine": [], "variables": 1}'},
    )
    return sorted(files)


def test_no_file_gives_a_traceback(tmp_path, capsys):
    from flushsim.cli import main

    sets = [f"--set={k}={v}" for k, v in WORKLOAD.items()]
    for name in _bad_files(tmp_path):
        path = str(tmp_path / name)
        status = main(["replay", path, "--engine", "mariadb-10.11", *sets])
        err = capsys.readouterr().err
        assert status == 2, (name, err)
        assert path in err or "samples" in err or "column" in err, (name, err)
        assert "Traceback" not in err and err.count("\n") == 1, (name, err)


def test_a_csv_recording_replays(tmp_path, capsys):
    from flushsim.cli import main

    rec = Recording.read(REF / "hotset-iocmax800.parquet")
    path = rec.write(tmp_path / "rec.csv")
    back = Recording.read(path)
    assert back.series.equals(rec.series) and back.interval_s == 1.0 and back.engine == ""
    sets = [f"--set={k}={v}" for k, v in {**WORKLOAD, **HOT}.items()]
    # the server's knobs are not in a CSV file: given here as the parquet file has them
    knobs = ("innodb_io_capacity", "innodb_io_capacity_max", "innodb_log_file_size")
    sets += [f"--set={k}={rec.variables[k]}" for k in knobs]
    assert main(["replay", str(path), *sets]) == 2
    assert "pass the engine" in capsys.readouterr().err
    assert main(["replay", str(path), "--engine", "mariadb-10.11", *sets]) == 0
    out = capsys.readouterr().out
    assert "holds no server variables" in out
    assert "updates per page flushed: server 25.9, model" in out


def _with(rec: Recording, series: pl.DataFrame) -> Recording:
    return Recording(
        series=series,
        variables=rec.variables,
        server_version=rec.server_version,
        engine=rec.engine,
    )


def _null_rows(s: pl.DataFrame, first: int, last: int) -> pl.DataFrame:
    """Seconds first..last missed, as the recorder leaves a reconnect (counters one more)."""
    t = pl.col("time_s")
    counters = [c for c in s.columns if c != "time_s" and c not in GAUGES_ALL]
    return s.with_columns(
        [
            pl.when(t.is_between(first, last)).then(None).otherwise(pl.col(c)).alias(c)
            for c in s.columns
            if c in GAUGES_ALL
        ]
        + [
            pl.when(t.is_between(first, last + 1)).then(None).otherwise(pl.col(c)).alias(c)
            for c in counters
        ]
    )


def test_a_reconnect_gap_is_run_through_and_left_out():
    name = "hotset-iocmax400"
    rec = Recording.read(REF / f"{name}.parquet")
    gapped = _with(rec, _null_rows(rec.series, 40, 42))
    sc = scenario_for(rec, **WORKLOAD, **HOT)
    r = fs.replay(gapped, sc)
    assert [(s.first_s, s.last_s, s.after) for s in r.segments] == [(1, 90, "start")]
    assert (
        "No load recorded from 40 to 43 s (rows without dml_reads / dml_updates, as a lost "
        "connection leaves): the model runs through them at the load of 39 s, and they are "
        "left out of every comparison."
    ) in r.notes
    assert r.model.filter(pl.col("time_s").is_between(40, 43))["dml_updates"].null_count() == 4
    # The server ran on through the gap: so does the model, and the comparison over the other
    # seconds is the whole recording's. Measured: adaptive flushing -2.0 % (whole recording
    # -2.1 %; as idle seconds, the code before: +2.1 %; as separate pieces: -10.6 %),
    # checkpoint age -3.7 % (-3.7 %; +7.6 %; -1.6 %).
    clean = replayed(name)
    err = dict(zip(*r.errors().select("column", "error_pct"), strict=True))
    want = dict(zip(*clean.errors().select("column", "error_pct"), strict=True))
    for c in ("buffer_flush_adaptive_total_pages", "log_lsn_checkpoint_age"):
        assert err[c] == pytest.approx(want[c], abs=1.0), (c, err[c], want[c])
    real, model = r.updates_per_page_flushed()
    assert model == pytest.approx(real, rel=0.25), (real, model)


def test_dropped_seconds_are_a_gap_named_in_the_report(tmp_path, capsys):
    from flushsim.cli import main

    rec = Recording.read(REF / "hotset-iocmax800.parquet")
    cut = _with(rec, rec.series.filter(~pl.col("time_s").is_between(20, 60)))
    path = cut.write(tmp_path / "cut.parquet")
    sets = [f"--set={k}={v}" for k, v in {**WORKLOAD, **HOT}.items()]
    assert main(["replay", str(path), *sets]) == 0
    out = capsys.readouterr().out
    assert (
        "note: No load recorded from 20 to 60 s (time_s jumps from 19 to 61 s): the two sides "
        "are replayed as separate pieces, each from its own warm-up."
    ) in out
    assert "note: Compared 49 of 49 recorded seconds, replayed in 2 piece(s)" in out
    r = fs.replay(path, scenario_for(path, **WORKLOAD, **HOT))
    assert [(s.first_s, s.last_s) for s in r.segments] == [(1, 19), (61, 90)]
    assert r.model["time_s"].to_list() == r.real["time_s"].to_list()
    real, model = r.updates_per_page_flushed()
    assert model == pytest.approx(real, rel=0.25), (real, model)


def test_after_a_restart_the_model_starts_again_from_a_fresh_warm_up():
    idle = Recording.read(REF / "idle-ioc200.parquet").series.head(30)
    hot = Recording.read(REF / "hotset-iocmax400.parquet")
    # 30 s of one server state, then a restart: Uptime goes back, the pool is another
    before = idle.select(hot.series.columns).with_columns(Uptime=pl.col("time_s") + 1000)
    after = hot.series.with_columns(time_s=pl.col("time_s") + 30, Uptime=pl.col("time_s"))
    rec = _with(hot, pl.concat([before, after]))
    sc = scenario_for(hot, **WORKLOAD, **HOT)
    r = fs.replay(rec, sc)
    assert [(s.first_s, s.after) for s in r.segments] == [(1, "start"), (31, "restart")]
    assert any(n.startswith("The server restarted before 31 s (Uptime 1 s") for n in r.notes)
    # the piece after the restart is exactly a replay of that part alone
    alone = replayed("hotset-iocmax400").model
    second = r.model.filter(pl.col("time_s") > 30).with_columns(pl.col("time_s") - 30)
    assert second.equals(alone.select(second.columns))


def test_negative_counts_are_left_out_with_a_note():
    rec = Recording.read(REF / "hotset-iocmax400.parquet")
    t = pl.col("time_s")
    broken = rec.series.with_columns(
        dml_updates=pl.when(t == 30).then(-57).otherwise(pl.col("dml_updates")),
        buffer_flush_batch_total_pages=pl.when(t == 50)
        .then(-10)
        .otherwise(pl.col("buffer_flush_batch_total_pages")),
    )
    r = fs.replay(_with(rec, broken), scenario_for(rec, **WORKLOAD, **HOT))
    assert any(
        "Negative values (a counter that went back) in buffer_flush_batch_total_pages, "
        "dml_updates, the first at 30 s" in n
        for n in r.notes
    ), r.notes
    assert [(s.first_s, s.last_s) for s in r.segments] == [(1, 90)]  # 30 s run through
    kept = rec.series.filter((t != 30) & (t != 50))
    real, _ = r.updates_per_page_flushed()
    want = kept["dml_updates"].sum() / pages_flushed(kept).sum()
    assert real == pytest.approx(want, rel=1e-12)


def test_how_the_recording_ended_is_in_the_notes():
    series = pl.DataFrame({"time_s": [1, 2, 3], "dml_reads": [50] * 3, "dml_updates": [10] * 3})
    sc = fs.Scenario(engine="mariadb-10.11", knobs=WORKLOAD)
    killed = _recording(series, ended="in progress")
    assert any("did not finish this file" in n for n in fs.replay(killed, sc).notes)
    lost = _recording(series, ended="lost server")
    assert any("ended early (lost server) after 3 seconds" in n for n in fs.replay(lost, sc).notes)
