"""Engines in the knob spec (issues 3, 33): MySQL 8.0 and 8.4, MariaDB 10.6 and 10.11.

Each engine has its own defaults and ranges; a knob an engine lacks is an error naming the
engine; knobs MariaDB dropped with its single buffer pool are accepted and ignored with a
warning; `--engine` on the CLI and `engine =` in presets pick the engine.
"""

import warnings

import polars as pl
import pytest

import flushsim as fs
from flushsim import cli, params, schema
from flushsim.kernels import cleaner, reference
from flushsim.run import kernel_inputs

MARIADB = ("mariadb-10.6", "mariadb-10.11")


def test_engines_are_listed():
    assert params.ENGINES == ("mysql-8.0", "mariadb-10.6", "mariadb-10.11", "mysql-8.4")


# MySQL 8.4.0's new InnoDB defaults (the 8.4 manual's table of defaults that differ from 8.0)
MYSQL84_DEFAULTS = {
    "innodb_io_capacity": 10000,
    "innodb_io_capacity_max": 20000,
    "innodb_doublewrite_pages": 128,
    "innodb_flush_method": "O_DIRECT",
    "innodb_buffer_pool_instances": 1,  # a 128 MiB pool: 1 up to 1 GiB
    "innodb_page_cleaners": 1,
}
# the same knobs at 8.0's defaults, to run 8.4 as an 8.0 server would be configured
MYSQL80_VALUES = {
    "innodb_io_capacity": 200,
    "innodb_io_capacity_max": 2000,
    "innodb_doublewrite_pages": 4,
    "innodb_flush_method": "fsync",
}


@pytest.mark.parametrize(("name", "default"), MYSQL84_DEFAULTS.items())
def test_mysql84_defaults(name, default):
    assert fs.Scenario(engine="mysql-8.4")[name] == default


def test_mysql84_keeps_8_0_defaults_that_did_not_change():
    sc84, sc80 = fs.Scenario(engine="mysql-8.4"), fs.Scenario(engine="mysql-8.0")
    same = set(sc80.values) - set(MYSQL84_DEFAULTS)
    assert {k: sc84[k] for k in same} == {k: sc80[k] for k in same}
    assert set(sc84.values) == set(sc80.values)  # the same knobs: no 8.0 knob was removed


def knob_on(engine, name, **knobs):
    return fs.Scenario(engine=engine, knobs=knobs)[name]


@pytest.mark.parametrize(
    ("pool", "instances"), [("1G", 1), ("1025M", 4), ("2G", 8), ("6G", 24), ("32G", 64)]
)
def test_mysql84_instances_follow_the_pool_and_cleaners_the_instances(pool, instances):
    # 8.4: 1 up to 1 GiB, else (pool / 128 MiB chunks) / 2 in 1..64; cleaners = instances
    sc = fs.Scenario(engine="mysql-8.4", knobs={"innodb_buffer_pool_size": pool})
    assert sc["innodb_buffer_pool_instances"] == instances
    assert sc["innodb_page_cleaners"] == instances
    pool80 = {"innodb_buffer_pool_size": "2G"}
    assert knob_on("mysql-8.0", "innodb_page_cleaners", **pool80) == 4


def test_mysql84_io_capacity_max_is_twice_io_capacity_without_8_0s_floor():
    assert knob_on("mysql-8.4", "innodb_io_capacity_max", innodb_io_capacity=300) == 600
    assert knob_on("mysql-8.0", "innodb_io_capacity_max", innodb_io_capacity=300) == 2000
    # the server's overflow guard: no more than SRV_MAX_IO_CAPACITY_LIMIT
    assert knob_on("mysql-8.4", "innodb_io_capacity_max", innodb_io_capacity=2**32 - 1) == 2**32 - 1


def test_upgrade_preset_differs_only_by_the_release_defaults():
    # lesson 09 runs it on both engines: one pool instance, so only 8.4's four new defaults differ
    sc84 = fs.presets.get("upgrade-8.0-to-8.4")
    sc80 = sc84.replace(engine="mysql-8.0")
    assert sc84.engine == "mysql-8.4"
    differ = {k for k in sc84.values if sc84[k] != sc80[k]}
    assert differ == set(MYSQL80_VALUES)
    assert {k: sc80[k] for k in differ} == MYSQL80_VALUES


def test_mysql84_flushes_as_mysql80():
    knobs = {"innodb_buffer_pool_size": "16M", "table_rows": 20000, "threads": 2}
    run84 = fs.simulate(fs.Scenario(engine="mysql-8.4", seconds=2, knobs=knobs | MYSQL80_VALUES))
    run80 = fs.simulate(fs.Scenario(engine="mysql-8.0", seconds=2, knobs=knobs))
    assert run84.series.equals(run80.series)  # the same predicate: the same numbers
    own = fs.simulate(fs.Scenario(engine="mysql-8.4", seconds=2, knobs=knobs))
    assert not own.series.equals(run80.series)  # its own defaults do change the run
    twin = fs.simulate(fs.Scenario(engine="mysql-8.4", seconds=2, knobs=knobs), kernel="reference")
    assert own.series.equals(twin.series)


@pytest.mark.parametrize("engine", MARIADB)
@pytest.mark.parametrize(
    ("name", "default"),
    [
        ("innodb_lru_scan_depth", 1536),
        ("innodb_max_dirty_pages_pct_lwm", 0.0),
        ("innodb_max_dirty_pages_pct", 90.0),
        ("innodb_log_file_size", 96 * 1024 * 1024),
        ("innodb_buffer_pool_instances", 1),
        ("innodb_page_cleaners", 1),
        ("innodb_lru_flush_size", 32),
        ("innodb_io_capacity", 200),
        ("innodb_io_capacity_max", 2000),
        ("innodb_adaptive_flushing_lwm", 10),
        ("innodb_doublewrite", "ON"),
        ("innodb_flush_neighbors", 1),
    ],
)
def test_mariadb_defaults(engine, name, default):
    assert fs.Scenario(engine=engine)[name] == default


@pytest.mark.parametrize("engine", MARIADB)
def test_mariadb_ranges(engine):
    p = params.get("innodb_lru_flush_size", engine)
    assert (p.min, p.max) == (1, 2**64 - 1)
    assert params.get("innodb_io_capacity", engine).max == 2**32 - 1
    assert params.get("innodb_buffer_pool_size", engine).max == 2**63 - 1
    with pytest.raises(ValueError, match=r"innodb_lru_flush_size=0 is out of range"):
        fs.Scenario(engine=engine, knobs={"innodb_lru_flush_size": 0})
    with pytest.raises(ValueError, match="innodb_doublewrite.*one of ON, OFF$"):
        fs.Scenario(engine=engine, knobs={"innodb_doublewrite": "DETECT_ONLY"})


def test_mysql_8_0_30_caps_io_capacity_and_lru_scan_depth_at_uint32():
    # 8.0.29+: SRV_MAX_IO_CAPACITY_LIMIT is a uint32 ~0U, lru_scan_depth's max UINT32_MAX
    for name in ("innodb_io_capacity", "innodb_io_capacity_max", "innodb_lru_scan_depth"):
        assert params.get(name, "mysql-8.0").max == 2**32 - 1, name
    with pytest.raises(
        ValueError, match="innodb_io_capacity_max=4,294,967,296 is out of range.*4,294,967,295"
    ):
        fs.Scenario(knobs={"innodb_io_capacity_max": 2**32})
    # MariaDB 10.11.19 keeps 2**64-1 for innodb_lru_scan_depth (tests/test_server_knobs.py)
    assert params.get("innodb_lru_scan_depth", "mariadb-10.11").max == 2**64 - 1


def test_mysql_keeps_its_own_defaults():
    sc = fs.Scenario()
    assert sc["innodb_lru_scan_depth"] == 1024
    assert sc["innodb_max_dirty_pages_pct_lwm"] == 10.0
    assert "innodb_lru_flush_size" not in sc.values


@pytest.mark.parametrize(
    ("engine", "knob", "value"),
    [
        ("mysql-8.0", "innodb_lru_flush_size", 64),
        ("mariadb-10.6", "innodb_idle_flush_pct", 50),
        ("mariadb-10.11", "innodb_redo_log_capacity", "1G"),
        ("mariadb-10.11", "innodb_doublewrite_pages", 64),
        ("mariadb-10.6", "innodb_page_cleaner_disabled_debug", True),
    ],
)
def test_a_knob_the_engine_lacks_is_rejected_naming_the_engine(engine, knob, value):
    with pytest.raises(ValueError, match=f"{knob} is not a {engine} setting"):
        fs.Scenario(engine=engine, knobs={knob: value})
    with pytest.raises(ValueError, match=f"{knob} is not a {engine} setting"):
        fs.Scenario(engine=engine).at(5, **{knob: value})


@pytest.mark.parametrize("engine", MARIADB)
@pytest.mark.parametrize("knob", ["innodb_page_cleaners", "innodb_buffer_pool_instances"])
def test_single_pool_knobs_are_accepted_ignored_and_warned(engine, knob):
    with pytest.warns(params.FlushsimWarning, match=f"{knob} has no effect on MariaDB"):
        sc = fs.Scenario(engine=engine, knobs={knob: 8, "innodb_buffer_pool_size": "1G"})
    assert sc[knob] == 1
    # the kernel sees one instance and one cleaner
    ki = kernel_inputs(sc)
    assert ki.knobs[schema.K_INSTANCES] == 1 and ki.knobs[schema.K_CLEANERS] == 1
    with pytest.raises(ValueError, match="out of range"):
        fs.Scenario(engine=engine, knobs={knob: 1000})


def test_engine_code_reaches_the_kernel():
    for engine, code in schema.ENGINE_CODES.items():
        ki = kernel_inputs(fs.Scenario(engine=engine))
        assert ki.knobs[schema.K_ENGINE] == code


def test_switching_engine_with_replace():
    sc = fs.Scenario(knobs={"innodb_io_capacity": 1000})
    maria = sc.replace(engine="mariadb-10.11")
    assert maria["innodb_io_capacity"] == 1000 and maria["innodb_lru_scan_depth"] == 1536
    with pytest.raises(ValueError, match="not a mysql-8.0 setting"):
        maria.replace(innodb_lru_flush_size=64).replace(engine="mysql-8.0")


def test_knobs_command_lists_engine_defaults(capsys):
    assert cli.main(["knobs", "--engine", "mariadb-10.11"]) == 0
    text = capsys.readouterr().out
    assert "innodb_lru_flush_size" in text and "1536" in text
    assert "innodb_redo_log_capacity" not in text


def test_knobs_command_lists_mysql84s_defaults(capsys):
    assert cli.main(["knobs", "--engine", "mysql-8.4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = {line.split()[0]: line.split()[1] for line in lines if line.startswith("innodb_")}
    assert row["innodb_io_capacity"] == "10000" and row["innodb_doublewrite_pages"] == "128"
    assert row["innodb_flush_method"] == "O_DIRECT"


def test_cli_run_engine_option(tmp_path, capsys):
    out = tmp_path / "run.csv"
    status = cli.main(
        ["run", "default", "--engine", "mariadb-10.11", "--seconds", "2", "--out", str(out)]
    )
    assert status == 0, capsys.readouterr().err
    assert out.exists()
    with pytest.raises(SystemExit):
        cli.main(["run", "default", "--engine", "oracle-23"])


def test_cli_engine_with_a_knob_it_lacks(capsys):
    status = cli.main(
        ["run", "default", "--engine", "mysql-8.0", "--set", "innodb_lru_flush_size=64"]
    )
    assert status == 2
    assert "innodb_lru_flush_size is not a mysql-8.0 setting" in capsys.readouterr().err


def test_preset_engine_key(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(
        'name = "p"\nengine = "mariadb-10.6"\nseconds = 5\n[knobs]\ninnodb_lru_flush_size = 512\n'
    )
    sc = fs.presets.load(path)
    assert sc.engine == "mariadb-10.6" and sc["innodb_lru_flush_size"] == 512


def test_no_warning_for_plain_mariadb_scenario():
    with warnings.catch_warnings():
        warnings.simplefilter("error", params.FlushsimWarning)
        fs.Scenario(engine="mariadb-10.11", knobs={"innodb_lru_flush_size": 4096})


# The adaptive-flushing recommendation by release (mariadb.recommendation): a 12 s write load on a
# small redo log with innodb_max_dirty_pages_pct_lwm = 10, whose page cleaner takes the
# recommendation's path at least once in each release (buffer_flush_n_to_flush_requested > 0).
# The table (2,206 pages) fits in the pool (4,096 frames), so free pages stay above
# innodb_lru_scan_depth: on an IO-bound pool 10.6.17's MDEV-33053 wake-ups
# (free_block_mariadb.wake_for_free_pages) run the cleaner 20 to 60 times a second, its
# checkpoints keep the age below innodb_adaptive_flushing_lwm and the recommendation never gets
# a pct_for_lsn to show.
AF_KNOBS = {
    "innodb_buffer_pool_size": "64M",
    "table_rows": 150_000,
    "threads": 8,
    "write_pct": 50,
    "think_time_us": 500,
    "innodb_max_dirty_pages_pct_lwm": 10,
    "innodb_log_file_size": "48M",
    "redo_bytes_per_change": 300,
}


def _af_scenario(version):
    return fs.Scenario(engine="mariadb-10.6", seconds=12, knobs={**AF_KNOBS, "version": version})


def _recommendations(version):
    s = fs.simulate(_af_scenario(version)).series
    return s.filter(pl.col("buffer_flush_n_to_flush_requested") > 0)


def test_the_recommendation_follows_the_release():
    old, fixed, lwm = (_recommendations(v) for v in ("10.6.12", "10.6.15", "10.6.17"))
    for r in (old, fixed, lwm):
        assert r.height >= 1
    # up to 10.6.12, the 2021 source with a non-zero lwm: ulint(dirty_pct / max_pct), 0 or 1
    assert set(old["buffer_flush_pct_for_dirty"].to_list()) <= {0, 1}
    # 10.6.13-10.6.16 (MDEV-26055's caller): pct_lwm = 0 at every call, a ratio of 1 (100 %)
    assert (fixed["buffer_flush_pct_for_dirty"] == 100).all()
    # 10.6.17 (MDEV-31939): max(pct_for_lsn / 100, dirty / max_dirty), shown as a percent
    assert (lwm["buffer_flush_pct_for_dirty"] >= lwm["buffer_flush_pct_for_lsn"] - 1).all()
    assert (lwm["buffer_flush_pct_for_dirty"] != 100).all()


def test_the_twin_agrees_between_the_two_fixes():
    # 10.6.15: the corrected formula with pct_lwm forced to 0, a branch of its own in both kernels
    sc = _af_scenario("10.6.15")
    assert fs.simulate(sc, kernel="reference").series.equals(fs.simulate(sc).series)


# ------------------------------------------------- Percona Server's innodb_cleaner_lsn_age_factor


def _pct_for_lsn_both(factor_name, age_factor):
    """get_pct_for_lsn of the kernel and of the twin, and the age factor f (%).

    The age is `age_factor` % of the limit for dirty-page age; io_capacity_max / io_capacity = 20.
    """
    sc = fs.Scenario(
        knobs={
            "innodb_io_capacity": 200,
            "innodb_io_capacity_max": 4000,
            "innodb_redo_log_capacity": "1G",
            "innodb_cleaner_lsn_age_factor": factor_name,
        }
    )
    knobs = kernel_inputs(sc).knobs
    dirty_age = cleaner.redo_limits(knobs)[4]
    age = int(dirty_age * age_factor / 100)
    twin = object.__new__(reference.ReferenceSim)
    twin.k = reference.Knobs(knobs.copy())
    factor = age * 100.0 / dirty_age
    return cleaner.pct_for_lsn(knobs, age), twin.get_pct_for_lsn(age), factor


@pytest.mark.kernel
@pytest.mark.parametrize("age_factor", [20, 50, 93, 94, 120])
def test_lsn_age_factor_formulas_are_percona_s(age_factor):
    # buf0flu.cc get_pct_for_lsn of Percona Server 8.0: (iocmax / ioc) x f^1.5 / 7.5 (legacy),
    # (iocmax / ioc) x f^2.5 / 700.5 (high_checkpoint), truncated to an integer
    legacy, legacy_twin, f = _pct_for_lsn_both("legacy", age_factor)
    high, high_twin, _ = _pct_for_lsn_both("high_checkpoint", age_factor)
    assert (legacy, high) == (legacy_twin, high_twin)
    assert legacy == int(20 * f**1.5 / 7.5)
    assert high == int(20 * f**2.5 / 700.5)
    # the two cross at f = 700.5 / 7.5 = 93.4: high_checkpoint flushes less below, more above
    assert (high < legacy) == (f < 93.4)


def test_lsn_age_factor_is_mysql_only_lower_case_and_dynamic():
    p = params.BY_NAME["innodb_cleaner_lsn_age_factor"]
    assert p.engines == ("mysql-8.0", "mysql-8.4")
    assert p.choices == ("legacy", "high_checkpoint") and p.default == "legacy"
    assert p.dynamic
    sc = fs.Scenario(knobs={"innodb_cleaner_lsn_age_factor": "HIGH_CHECKPOINT"})
    assert sc.values["innodb_cleaner_lsn_age_factor"] == "high_checkpoint"
    with pytest.raises(ValueError, match="innodb_cleaner_lsn_age_factor.*legacy, high_checkpoint"):
        fs.Scenario(knobs={"innodb_cleaner_lsn_age_factor": "deprecated"})
    with pytest.raises(ValueError, match="innodb_cleaner_lsn_age_factor"):
        fs.Scenario(engine="mariadb-10.11", knobs={"innodb_cleaner_lsn_age_factor": "legacy"})
    # MySQL and MariaDB runs see Oracle's formula
    for engine in params.ENGINES:
        knobs = kernel_inputs(fs.Scenario(engine=engine)).knobs
        assert knobs[schema.K_LSN_AGE_FACTOR] == schema.LAF_LEGACY
