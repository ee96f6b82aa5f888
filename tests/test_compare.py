"""fs.compare: several runs as one long table with a label column, MariaDB status names."""

import polars as pl
import pytest

import flushsim as fs
from flushsim.run import MARIADB_STATUS

KNOBS = {
    "innodb_buffer_pool_size": "16M",
    "table_rows": 100_000,
    "threads": 4,
    "write_pct": 30,
    "think_time_us": 500.0,
}


@pytest.fixture(scope="module")
def table():
    return fs.compare(
        {
            "MySQL 8.0": fs.Scenario(knobs=KNOBS, seconds=3),
            "MariaDB 10.11": fs.Scenario(knobs=KNOBS, engine="mariadb-10.11", seconds=3),
        }
    )


def test_one_long_table_labelled_in_order(table):
    assert table.columns[:2] == ["label", "engine"]
    assert table.height == 6
    assert table["label"].unique(maintain_order=True).to_list() == ["MySQL 8.0", "MariaDB 10.11"]
    assert table.filter(pl.col("label") == "MariaDB 10.11")["engine"].unique().to_list() == [
        "mariadb-10.11"
    ]
    # common InnoDB names for both engines
    for col in ("sim_tps", "buffer_pool_pages_dirty", "buffer_LRU_batch_flush_total_pages"):
        assert table[col].null_count() == 0


def test_mariadb_status_names_only_on_mariadb_rows(table):
    maria = table.filter(pl.col("engine") == "mariadb-10.11")
    mysql = table.filter(pl.col("engine") == "mysql-8.0")
    for name, common in MARIADB_STATUS.items():
        assert maria[name].to_list() == maria[common].to_list()
        assert mysql[name].null_count() == mysql.height


def test_mysql_series_has_no_mariadb_columns():
    run = fs.simulate(fs.Scenario(knobs=KNOBS, seconds=1))
    assert not set(MARIADB_STATUS) & set(run.series.columns)


def test_a_finished_run_is_taken_as_it_is():
    run = fs.simulate(fs.Scenario(knobs=KNOBS, engine="mariadb-10.6", seconds=2))
    t = fs.compare({"mine": run})
    assert t.drop(["label", "engine"]).equals(run.series)


def test_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        fs.compare({})
    with pytest.raises(TypeError, match="Scenarios or Runs"):
        fs.compare({"x": 3})
    with pytest.raises(ValueError, match="label"):
        fs.compare({"": fs.Scenario()})
