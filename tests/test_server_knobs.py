"""flushsim's MariaDB 10.11 knobs against a real server's own: defaults and ranges.

A private MariaDB (Debian's mariadb-server, scripts/mariadb.sh; 10.11.19 on Debian 12) started
with --no-defaults reports every variable's range in information_schema.SYSTEM_VARIABLES and its
value in @@GLOBAL. Each flushsim knob of engine mariadb-10.11 that the server has must carry the
server's range and default: the value in force, so that a derived default such as
innodb_io_capacity_max's shows as the server computes it, except for the few variables the
private server sets itself (flushsim.live.server.DEFAULT_OPTIONS), whose DEFAULT_VALUE counts.

Where flushsim differs on purpose, KNOWN_DIFFERENCES names the knob, the field and why (the
simulator's own limits, and one deprecated default); the test checks that each still differs, so
that an entry cannot outlive its reason, and every other value must match.
"""

import math

import pytest
from mariadb_server import private_mariadb

from flushsim import params
from flushsim.scenario import Scenario

ENGINE = "mariadb-10.11"

# (knob, field) -> why flushsim differs from 10.11.19
KNOWN_DIFFERENCES = {
    ("innodb_buffer_pool_size", "min"): "5 MiB, MySQL's floor and MariaDB 10.6's (10.11.19: 2 MiB)",
    ("innodb_buffer_pool_size", "max"): "int64 sizes; pools past 64 GiB are refused anyway",
    ("innodb_log_file_size", "max"): "512 GiB keeps LSN arithmetic in int64 (server: 2^64-1)",
    ("innodb_lru_flush_size", "default"): "0 in force from 10.11.10 (deprecated, unused; SET "
    "takes 1 and up): flushsim keeps 10.11.8-9's 32, which has no effect either",
}


@pytest.fixture(scope="module")
def server_variables():
    """{name: (global value, default, min, max, type, enum list)} of a default MariaDB."""
    with private_mariadb() as db:
        conn = db.connect_root()
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT VERSION()")
                (version,) = cur.fetchone()
                cur.execute(
                    "SELECT LOWER(VARIABLE_NAME), GLOBAL_VALUE, DEFAULT_VALUE, "
                    "NUMERIC_MIN_VALUE, NUMERIC_MAX_VALUE, VARIABLE_TYPE, ENUM_VALUE_LIST "
                    "FROM information_schema.SYSTEM_VARIABLES"
                )
                rows = {r[0]: r[1:] for r in cur.fetchall()}
        finally:
            conn.close()
    major, minor, patch = (int(x) for x in version.split("-")[0].split("."))
    if (major, minor) != (10, 11) or patch < 8:
        pytest.skip(f"MariaDB {version} is not of the mariadb-10.11 generation (10.11.8+)")
    return rows


def shared_knobs(server_variables):
    knobs = [p for p in params.for_engine(ENGINE) if p.name in server_variables]
    # the flushing knobs at least: a rename or a lost variable must not empty this test
    names = {p.name for p in knobs}
    assert {
        "innodb_io_capacity",
        "innodb_io_capacity_max",
        "innodb_lru_scan_depth",
        "innodb_lru_flush_size",
        "innodb_max_dirty_pages_pct",
        "innodb_max_dirty_pages_pct_lwm",
        "innodb_adaptive_flushing_lwm",
        "innodb_flushing_avg_loops",
        "innodb_flush_method",
    } <= names, names
    return knobs


@pytest.mark.mariadb
def test_every_shared_knob_has_the_servers_range(server_variables):
    checked = 0
    for p in shared_knobs(server_variables):
        _, _, lo, hi, kind, enum = server_variables[p.name]
        if p.kind == "enum" and enum is None:
            # a number with a few valid values (innodb_page_size): the server gives the range
            sizes = [int(c) for c in p.choices]
            assert (min(sizes), max(sizes)) == (int(lo), int(hi)), (p.name, sizes, lo, hi)
            checked += 1
            continue
        if p.kind == "enum":
            # the server also lists debug-only methods (littlesync, nosync)
            assert set(p.choices) <= set(enum.split(",")), (p.name, p.choices, enum)
            continue
        if p.kind == "bool" or lo is None:
            continue
        for field, ours, theirs in (("min", p.min, lo), ("max", p.max, hi)):
            if (p.name, field) in KNOWN_DIFFERENCES:
                assert float(ours) != float(theirs), f"{p.name} {field} now matches the server"
                continue
            assert float(ours) == float(theirs), (p.name, field, ours, theirs, kind)
            checked += 1
    assert checked >= 20


@pytest.mark.mariadb
def test_every_default_is_the_value_a_default_server_runs_with(server_variables):
    from flushsim.live.server import DEFAULT_OPTIONS

    resolved = Scenario(engine=ENGINE).values
    for p in shared_knobs(server_variables):
        in_force, default = server_variables[p.name][:2]
        # the private server's own settings (a small pool, to spare memory): the default
        value = default if p.name in DEFAULT_OPTIONS else in_force
        ours = resolved[p.name]
        if (p.name, "default") in KNOWN_DIFFERENCES:
            assert str(ours) != value, f"{p.name}'s default now matches the server"
            continue
        if isinstance(ours, bool):
            assert ("ON" if ours else "OFF") == value, (p.name, ours, value)
        elif isinstance(ours, str):
            assert ours == value, (p.name, ours, value)
        else:
            assert math.isclose(float(ours), float(value)), (p.name, ours, value)
