"""The knob spec: server names, defaults, ranges, and errors that name the knob and its range."""

import subprocess
import sys

import pytest

import flushsim as fs
from flushsim import params


def test_every_knob_has_unit_doc_and_valid_default():
    for p in params.PARAMS:
        assert p.doc, p.name
        assert p.group in ("server", "workload", "storage"), p.name
        if p.group == "server":
            # the server's own names: InnoDB's variables, and @@version (read-only)
            assert p.name.startswith("innodb_") or p.name == "version", p.name
    values = params.validate("mysql-8.0", {})
    assert set(values) == {p.name for p in params.for_engine("mysql-8.0")}


def test_version_is_a_mariadb_10_6_release():
    # the generation's releases and nothing else: the error names the valid values
    sc = fs.Scenario(engine="mariadb-10.6", knobs={"version": "10.6.3"})
    assert sc.values["version"] == "10.6.3"
    assert fs.Scenario(engine="mariadb-10.6").values["version"] == "10.6.17"
    with pytest.raises(ValueError, match=r"version='10.6.18' is not valid.*10\.11\.7"):
        fs.Scenario(engine="mariadb-10.6", knobs={"version": "10.6.18"})
    for engine in ("mysql-8.0", "mariadb-10.11"):
        with pytest.raises(ValueError, match="version is not a .* setting"):
            fs.Scenario(engine=engine, knobs={"version": "10.6.3"})


@pytest.mark.parametrize(
    ("name", "default"),
    [
        ("innodb_io_capacity", 200),
        ("innodb_io_capacity_max", 2000),
        ("innodb_lru_scan_depth", 1024),
        ("innodb_max_dirty_pages_pct", 90.0),
        ("innodb_max_dirty_pages_pct_lwm", 10.0),
        ("innodb_adaptive_flushing_lwm", 10),
        ("innodb_flushing_avg_loops", 30),
        ("innodb_idle_flush_pct", 100),
        ("innodb_old_blocks_pct", 37),
        ("innodb_old_blocks_time", 1000),
        ("innodb_buffer_pool_size", 128 * 1024 * 1024),
        ("innodb_buffer_pool_instances", 1),
        ("innodb_page_cleaners", 1),  # 4, capped at the single instance of a 128 MiB pool
        ("innodb_redo_log_capacity", 100 * 1024 * 1024),
        ("innodb_doublewrite", "ON"),
        ("innodb_flush_sync", True),
        ("innodb_log_checkpoint_every", 1000),
        ("innodb_flush_neighbors", 0),
    ],
)
def test_mysql80_defaults(name, default):
    assert fs.Scenario()[name] == default


def test_instances_default_follows_pool_size():
    assert fs.Scenario(knobs={"innodb_buffer_pool_size": "1G"})["innodb_buffer_pool_instances"] == 8
    big = fs.Scenario(knobs={"innodb_buffer_pool_size": "1G"})
    assert big["innodb_page_cleaners"] == 4


def test_io_capacity_max_default_is_twice_io_capacity_at_least_2000():
    assert fs.Scenario(knobs={"innodb_io_capacity": 5000})["innodb_io_capacity_max"] == 10000
    assert fs.Scenario(knobs={"innodb_io_capacity": 300})["innodb_io_capacity_max"] == 2000


def test_out_of_range_names_knob_and_range():
    with pytest.raises(ValueError, match=r"innodb_io_capacity=50 .*between 100 and"):
        fs.Scenario().replace(innodb_io_capacity=50)
    with pytest.raises(ValueError, match=r"innodb_old_blocks_pct=99 .*between 5 and 95"):
        fs.Scenario().replace(innodb_old_blocks_pct=99)
    with pytest.raises(ValueError, match=r"innodb_max_dirty_pages_pct=100 .*99.999"):
        fs.Scenario().replace(innodb_max_dirty_pages_pct=100)


def test_log_checkpoint_every_range_and_engines():
    # ha_innodb.cc: 0..ULONG_MAX ms, dynamic; MySQL only (MariaDB has no log checkpointer)
    assert fs.Scenario().at(5, innodb_log_checkpoint_every=0)
    assert fs.Scenario().replace(innodb_log_checkpoint_every=2**64 - 1)
    with pytest.raises(ValueError, match=r"innodb_log_checkpoint_every=-1 .*between 0 and"):
        fs.Scenario().replace(innodb_log_checkpoint_every=-1)
    with pytest.raises(ValueError, match="innodb_log_checkpoint_every is not a .* setting"):
        fs.Scenario(engine="mariadb-10.11", knobs={"innodb_log_checkpoint_every": 500})


def test_unknown_knob_suggests():
    with pytest.raises(ValueError, match="did you mean 'innodb_io_capacity'"):
        fs.Scenario().replace(innodb_io_capcity=300)
    with pytest.raises(ValueError, match="did you mean 'innodb_lru_scan_depth'"):
        fs.Scenario(knobs={"innodb-lru-scan-depth": 100})


@pytest.mark.parametrize(
    "name", ["innodb_log_buffer_size", "innodb-log-buffer-size", "sync_binlog"]
)
def test_a_server_variable_flushsim_lacks_is_not_called_unknown(name):
    with pytest.raises(ValueError) as err:
        params.get(name)
    assert str(err.value).startswith(f"{name} is a server variable that flushsim does not model")
    assert "unknown" not in str(err.value)


def test_the_list_of_server_variables_holds_no_knob_and_no_typo():
    names = params.server_variables()
    assert not names & set(params.BY_NAME)
    assert {"innodb_log_buffer_size", "innodb_ddl_threads", "max_connections"} <= names
    assert "innodb_io_capacty" not in names


def test_wrong_types_are_rejected_with_the_range():
    with pytest.raises(ValueError, match="innodb_io_capacity='abc' is not a whole number"):
        fs.Scenario().replace(innodb_io_capacity="abc")
    with pytest.raises(ValueError, match="innodb_flush_sync"):
        fs.Scenario().replace(innodb_flush_sync="maybe")
    with pytest.raises(ValueError, match="innodb_doublewrite.*one of ON, OFF"):
        fs.Scenario().replace(innodb_doublewrite="SOMETIMES")
    with pytest.raises(ValueError, match="whole number"):
        fs.Scenario().replace(innodb_lru_scan_depth=100.5)
    with pytest.raises(ValueError, match="innodb_lru_scan_depth=nan must be between 100"):
        fs.Scenario().replace(innodb_lru_scan_depth=float("nan"))


def test_io_capacity_above_max_follows_the_server_startup_rule():
    with pytest.warns(params.FlushsimWarning, match="Setting innodb_io_capacity to 400"):
        sc = fs.Scenario(knobs={"innodb_io_capacity": 500, "innodb_io_capacity_max": 400})
    assert sc["innodb_io_capacity"] == 400
    assert sc["innodb_io_capacity_max"] == 400


def test_runtime_rules_adjust_the_partner_knob():
    base = fs.Scenario(knobs={"innodb_io_capacity": 1000, "innodb_io_capacity_max": 2000})
    with pytest.warns(params.FlushsimWarning):
        sc = base.at(5, innodb_io_capacity_max=500)
    assert (5.0, "set", "innodb_io_capacity", 500) in sc.changes
    with pytest.warns(params.FlushsimWarning):
        sc = base.at(5, innodb_io_capacity=3000)
    assert (5.0, "set", "innodb_io_capacity_max", 3000) in sc.changes


def test_static_knob_cannot_change_in_timeline():
    with pytest.raises(ValueError, match="innodb_buffer_pool_size cannot be changed"):
        fs.Scenario().at(3, innodb_buffer_pool_size="256M")


def test_lwm_above_max_dirty_is_capped():
    with pytest.warns(params.FlushsimWarning):
        sc = fs.Scenario(
            knobs={"innodb_max_dirty_pages_pct": 50, "innodb_max_dirty_pages_pct_lwm": 60}
        )
    assert sc["innodb_max_dirty_pages_pct_lwm"] == 50


def test_parse_value_suffixes_and_booleans():
    assert params.parse_value("innodb_buffer_pool_size", "128M") == 128 * 1024**2
    assert params.parse_value("innodb_buffer_pool_size", "2g") == 2 * 1024**3
    assert params.parse_value("innodb_flush_sync", "OFF") is False
    assert params.parse_value("innodb_flush_sync", "1") is True
    assert params.parse_value("innodb_max_dirty_pages_pct", "75.5") == 75.5
    with pytest.raises(ValueError, match="not a whole number"):
        params.parse_value("innodb_io_capacity", "1.5")


def test_redo_capacity_from_pre_8030_pair():
    sc = fs.Scenario(knobs={"innodb_log_file_size": "128M"})
    assert sc["innodb_redo_log_capacity"] == 256 * 1024**2
    sc = fs.Scenario(knobs={"innodb_log_file_size": "128M", "innodb_redo_log_capacity": "1G"})
    assert sc["innodb_redo_log_capacity"] == 1024**3


def test_simulator_limits_are_clear():
    with pytest.raises(ValueError, match="at most 4,194,304 pages"):
        fs.Scenario(knobs={"innodb_buffer_pool_size": "128G"})
    with pytest.raises(ValueError, match="at least 512 pages per buffer pool instance"):
        fs.Scenario(knobs={"innodb_buffer_pool_size": "8M", "innodb_buffer_pool_instances": 2})


@pytest.mark.parametrize(
    ("knobs", "message"),
    [
        # one instance: the smallest pool flushsim runs, never "lower the instances, now 1"
        (
            {"innodb_buffer_pool_size": "5M"},
            "innodb_buffer_pool_size=5M is 320 pages of 16K; flushsim needs at least 512 pages "
            "per buffer pool instance: set it to 8M or more",
        ),
        (
            {"innodb_buffer_pool_size": "20M", "innodb_buffer_pool_instances": 4},
            "innodb_buffer_pool_size=20M is 1,280 pages of 16K; flushsim needs at least 512 "
            "pages per buffer pool instance: set it to 32M or more for 4 instances, or lower "
            "innodb_buffer_pool_instances to 2",
        ),
        (
            {"innodb_buffer_pool_size": "6M", "innodb_buffer_pool_instances": 2},
            "innodb_buffer_pool_size=6M is 384 pages of 16K; flushsim needs at least 512 pages "
            "per buffer pool instance: set it to 16M or more for 2 instances",
        ),
        # what was typed, not the number it reads as
        (
            {"innodb_page_size": "1M"},
            "innodb_page_size='1M' is not valid; it must be one of 4096, 8192, 16384, 32768, 65536",
        ),
        # the largest value grouped as the smallest is
        (
            {"innodb_buffer_pool_size": "1k"},
            "innodb_buffer_pool_size=1,024 is out of range: it must be between 5,242,880 and "
            "18,446,744,073,709,551,615 bytes",
        ),
    ],
)
def test_error_lines_say_what_was_typed_and_what_is_valid(knobs, message):
    with pytest.raises(ValueError) as err:
        fs.Scenario(knobs=knobs)
    assert str(err.value) == message
    with pytest.raises(ValueError, match="hot_rows"):
        fs.Scenario(knobs={"workload": "hotset", "table_rows": 100, "hot_rows": 1000})


def test_bad_scenario_fields():
    with pytest.raises(ValueError, match="seconds"):
        fs.Scenario(seconds=0)
    with pytest.raises(ValueError, match="seed"):
        fs.Scenario(seed=-1)
    with pytest.raises(ValueError, match="unknown engine"):
        fs.Scenario(engine="oracle")
    with pytest.raises(ValueError, match="timeline action"):
        fs.Event(3, "explode")


def test_import_is_light_and_bad_input_never_reaches_numba():
    code = (
        "import sys, flushsim as fs\n"
        "assert 'numba' not in sys.modules, 'importing flushsim imported numba'\n"
        "try:\n"
        "    fs.simulate(fs.Scenario().replace(innodb_io_capacity=1))\n"
        "except ValueError as e:\n"
        "    print(e)\n"
        "assert 'numba' not in sys.modules, 'a bad scenario reached numba'\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "innodb_io_capacity=1 is out of range" in res.stdout


@pytest.mark.parametrize("engine", ["mariadb-10.6", "mariadb-10.11"])
def test_mariadb_spec_and_runtime_rules(engine):
    values = params.validate(engine, {})
    assert set(values) == {p.name for p in params.for_engine(engine)}
    assert params.get("innodb_lru_scan_depth", engine).default == 1536
    assert params.get("innodb_lru_scan_depth").default == 1024  # the base spec is MySQL's
    base = fs.Scenario(engine=engine, knobs={"innodb_io_capacity": 1000})
    with pytest.warns(params.FlushsimWarning):
        sc = base.at(5, innodb_io_capacity_max=500)
    assert (5.0, "set", "innodb_io_capacity", 500) in sc.changes
    sc = base.at(5, innodb_lru_flush_size=2048)
    assert (5.0, "set", "innodb_lru_flush_size", 2048) in sc.changes
    with pytest.raises(ValueError, match="innodb_page_cleaners has no effect on MariaDB"):
        base.at(5, innodb_page_cleaners=4)
    with pytest.raises(ValueError, match="innodb_log_file_size cannot be changed"):
        base.at(5, innodb_log_file_size="1G")
