"""The write-amplification chain: each stage from the series, checked against the counters."""

import polars as pl
import pytest

import flushsim as fs
from flushsim import amplification
from flushsim.schema import LOG_START_LSN


@pytest.fixture(scope="module")
def run():
    return fs.simulate(fs.presets.get("default").replace(seconds=15))


def test_chain_stages_follow_the_counters(run):
    c = amplification.chain(run, 2.0)
    s = run.series
    page = int(run.scenario["innodb_page_size"])
    flushed = (
        s["buffer_LRU_batch_flush_total_pages"]
        + s["buffer_flush_batch_total_pages"]
        + s["sim_single_page_flushes"]
    )
    assert (c["data_page_bytes"] == flushed * page).all()
    assert (c["doublewrite_bytes"] == s["innodb_dblwr_pages_written"] * page).all()
    # redo bytes add up to the LSN's whole advance
    assert c["redo_bytes"].sum() == s["log_lsn_current"][-1] - LOG_START_LSN
    assert (c["db_bytes"] == c["data_page_bytes"] + c["doublewrite_bytes"] + c["redo_bytes"]).all()
    assert (c["flash_bytes"] == 2.0 * c["db_bytes"]).all()
    assert (c["redo_bytes"] >= 0).all()


def test_totals_factors_are_ratios_of_the_means(run):
    t = amplification.totals(run, 1.5).to_dicts()
    by = {r["stage"]: r for r in t}
    assert [r["stage"] for r in t] == [name for name, _ in amplification.STAGES]
    assert by["row_bytes"]["factor"] is None
    assert by["flash_bytes"]["factor"] == pytest.approx(1.5)
    assert by["data_page_bytes"]["factor"] == pytest.approx(
        by["data_page_bytes"]["bytes_per_s"] / by["row_bytes"]["bytes_per_s"]
    )
    # a 16 KiB page holding many rows: writing pages back amplifies the rows changed
    assert by["data_page_bytes"]["factor"] > 1


def test_rw_commits_count_the_transactions_that_changed_rows(run):
    s = run.series
    assert (s["trx_rw_commits"] <= s["sim_tps"]).all()
    # 20 % of 10 rows a transaction are updates: nearly every transaction writes (1 - 0.8^10)
    share = s["trx_rw_commits"].sum() / s["sim_tps"].sum()
    assert share == pytest.approx(1 - 0.8**10, abs=0.02)
    reads = fs.simulate(fs.presets.get("default").replace(seconds=3, write_pct=0))
    assert reads.series["trx_rw_commits"].sum() == 0 < reads.series["sim_tps"].sum()


def test_undo_and_binlog_stages_only_when_asked(run):
    assert not {"undo_bytes", "binlog_bytes"} & set(amplification.chain(run).columns)
    c = amplification.chain(
        run, undo_bytes_per_row=100, binlog_bytes_per_trx=300, binlog_bytes_per_row=500
    )
    s = run.series
    assert (c["undo_bytes"] == s["dml_updates"] * 100).all()
    assert (c["binlog_bytes"] == s["trx_rw_commits"] * 300 + s["dml_updates"] * 500).all()
    assert (
        c["db_bytes"]
        == c["data_page_bytes"]
        + c["doublewrite_bytes"]
        + c["redo_bytes"]
        + c["undo_bytes"]
        + c["binlog_bytes"]
    ).all()
    # each shown separately, between redo and the database total
    t = amplification.totals(run, binlog_bytes_per_row=500)
    assert t["stage"].to_list() == [
        "row_bytes",
        "data_page_bytes",
        "doublewrite_bytes",
        "redo_bytes",
        "binlog_bytes",
        "db_bytes",
        "flash_bytes",
    ]


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("undo_bytes_per_row", -1.0),
        ("binlog_bytes_per_trx", float("nan")),
        ("binlog_bytes_per_row", True),
    ],
)
def test_undo_and_binlog_figures_are_checked(run, name, bad):
    with pytest.raises(ValueError, match=f"{name}=.*bytes >= 0"):
        amplification.chain(run, **{name: bad})


@pytest.mark.parametrize("bad", [0.5, 0.0, -1.0, float("nan")])
def test_ftl_factor_below_one_is_refused(run, bad):
    with pytest.raises(ValueError, match="ftl_write_amplification"):
        amplification.chain(run, bad)


def test_idle_run_has_no_updates_per_page_division_by_zero():
    sc = fs.presets.get("seed004-idle-flush").replace(seconds=12)
    c = amplification.chain(fs.simulate(sc), 1.0)
    no_flush = c.filter(pl.col("pages_flushed") == 0)
    assert no_flush["updates_per_page_flushed"].null_count() == no_flush.height
