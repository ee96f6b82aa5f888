"""flushsim.live.config: a my.cnf, SHOW GLOBAL VARIABLES or INNODB STATUS becomes a Scenario.

Fixtures in tests/data/live/ are written in each server's exact output format: the option-file
syntax of mysys my_default.cc, the mysql client's table and vertical output, and the monitor text
of srv_printf_innodb_monitor / buf_print_io_instance / log_print (MySQL 8.0.36, MariaDB 10.11.9).
The fuzz tests check that malformed input only ever raises ConfigParseError naming its line.
"""

import pickle
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flushsim import params
from flushsim.live import config
from flushsim.live.config import ConfigParseError

DATA = Path(__file__).resolve().parent / "data" / "live"
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MiB, GiB = 1024**2, 1024**3
ENGINES = st.sampled_from([None, "mysql-8.0", "mariadb-10.6", "mariadb-10.11", "mysql-8.4"])


def read(name: str) -> str:
    return (DATA / name).read_text()


def line_of(name: str, needle: str) -> int:
    """1-based number of the last line of fixture `name` that contains `needle`."""
    hits = [i for i, ln in enumerate(read(name).split("\n"), 1) if needle in ln]
    assert hits, needle
    return hits[-1]


def quietly(fn, *args, **kwargs):
    """Call fn with the server-adjustment warnings silenced (they are not what is tested)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", params.FlushsimWarning)
        return fn(*args, **kwargs)


def only_parse_errors(fn, text, *args, **kwargs):
    """Run a reader on arbitrary text: success, or a ConfigParseError that names a real line."""
    try:
        return quietly(fn, text, *args, **kwargs)
    except ConfigParseError as exc:
        assert str(exc)
        assert isinstance(exc, ValueError)
        status = fn in (config.parse_innodb_status, config.scenario_from_innodb_status)
        if exc.line is not None and isinstance(text, str):
            lines = text.removeprefix("\ufeff").split("\n")
            if status:  # an escaped paste is read with each literal \n as a line break
                lines = re.split(r"\n|\\n", text)
            assert 1 <= exc.line <= len(lines)
            if exc.text and not status:
                assert exc.text == lines[exc.line - 1].removesuffix("\r")
        return None


# ============================================================================== my.cnf: syntax
def test_production_mycnf_settings_sections_includes():
    cfg = config.parse_mycnf(read("mysql80_my.cnf"))
    s = cfg.settings
    assert s["innodb_buffer_pool_size"] == "24G"
    assert s["innodb_buffer_pool_instances"] == "8"  # written innodb-buffer-pool-instances
    assert s["innodb_io_capacity"] == "3000"  # [mysqld-8.0] comes later and wins
    assert cfg.sources["innodb_io_capacity"].section == "mysqld-8.0"
    assert s["innodb_redo_log_capacity"] == "8G"  # the trailing # comment is gone
    assert s["skip_name_resolve"] == "ON"  # a real option, not the skip- prefix
    assert s["innodb_file_per_table"] == "ON"  # a bare name is ON
    assert s["innodb_numa_interleave"] == "1" and cfg.sources["innodb_numa_interleave"].loose
    assert s["performance_schema_instrument"] == "wait/io/file/%=ON"
    assert s["sql_mode"] == "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"
    assert s["init_connect"] == "SET NAMES utf8mb4 # keep"  # '#' inside quotes stays
    assert cfg.includes == (
        "!includedir /etc/mysql/conf.d/",
        "!includedir /etc/mysql/mysql.conf.d/",
    )
    assert cfg.groups == ("client", "mysql", "mysqld_safe", "mysqld", "mysqld-8.0", "mysqldump")
    ignored = {(x.section, x.name): x.value for x in cfg.ignored}
    assert ignored[("client", "port")] == "3306"
    assert ignored[("mysql", "prompt")] == "\\u@\\h [\\d]> "
    assert ignored[("mysqldump", "quick")] == "ON"
    assert "port" in s and "prompt" not in s  # [mysqld] has a port of its own


def test_production_mycnf_scenario():
    report = config.read_mycnf(read("mysql80_my.cnf"), version="8.0.36")
    sc = report.scenario
    assert sc.engine == "mysql-8.0"
    assert sc["innodb_buffer_pool_size"] == 24 * GiB
    assert sc["innodb_buffer_pool_instances"] == 8
    assert sc["innodb_redo_log_capacity"] == 8 * GiB
    assert sc["innodb_io_capacity"] == 3000
    assert sc["innodb_io_capacity_max"] == 4000
    assert sc["innodb_flush_method"] == "O_DIRECT"
    assert sc["innodb_max_dirty_pages_pct_lwm"] == 10.0
    assert sc["innodb_page_cleaners"] == 4
    assert report.lines["innodb_io_capacity"] == line_of(
        "mysql80_my.cnf", "innodb_io_capacity = 3000"
    )
    assert report.not_modelled["max_connections"] == "1000"
    assert sc["innodb_flush_neighbors"] == 0  # modelled since issue #33
    assert "innodb_flush_neighbors" not in report.not_modelled
    assert "max_connections=1000" in sc.description
    assert "Not followed: !includedir /etc/mysql/conf.d/" in sc.description
    assert "[mysqldump]" in sc.description
    assert sc.name == "my.cnf"


def test_mariadb_server_cnf_reads_its_version_group():
    report = config.read_mycnf(read("mariadb1011_server.cnf"), version="10.11.9-MariaDB")
    sc = report.scenario
    assert sc.engine == "mariadb-10.11"
    assert sc["innodb_buffer_pool_size"] == 16 * GiB
    assert sc["innodb_log_file_size"] == 4 * GiB
    assert sc["innodb_io_capacity"] == 1500  # [mariadb-10.11]
    assert sc["innodb_lru_scan_depth"] == 1536  # [mariadb]
    assert sc["innodb_max_dirty_pages_pct_lwm"] == 0.0
    # MariaDB has one pool: the loose- leftover is reported, not passed on
    assert "innodb_buffer_pool_instances" not in sc.knobs
    assert report.not_modelled["innodb_buffer_pool_instances"] == "8"
    assert any("has no effect on MariaDB" in n for n in report.notes)
    assert report.not_modelled["binlog_format"] == "row"  # [galera] is a server group


def test_mariadb_server_cnf_for_a_10_6_server_skips_the_10_11_group():
    report = config.read_mycnf(read("mariadb1011_server.cnf"), "mariadb-10.6")
    assert report.scenario["innodb_io_capacity"] == 1000
    assert "[mariadb-10.11]" in report.scenario.description


def test_mycnf_without_engine_assumes_mysql_and_says_so():
    sc = config.scenario_from_mycnf(read("mariadb1011_server.cnf"))
    assert sc.engine == "mysql-8.0"
    assert "assumed mysql-8.0" in sc.description
    assert "MariaDB groups (mariadb, mariadb-10.11, galera)" in sc.description


MIX = """\
[mysqld]
innodb_io_capacity=2000
[mariadb]
innodb_io_capacity=500
[mysqld-8.4]
innodb_io_capacity_max=6000
[mariadbd-10.6]
innodb_lru_scan_depth=512
"""


@pytest.mark.parametrize(
    ("engine", "io_capacity", "io_max", "depth", "skipped"),
    [
        # on MySQL the MariaDB groups have a note of their own
        (None, 2000, None, None, "[mysqld-8.4]"),
        ("mysql-8.0", 2000, None, None, "[mysqld-8.4]"),
        ("mysql-8.4", 2000, 6000, None, ""),
        ("mariadb-10.6", 500, None, 512, "[mysqld-8.4]"),
        ("mariadb-10.11", 500, None, None, "[mysqld-8.4], [mariadbd-10.6]"),
    ],
)
def test_each_server_reads_its_own_groups_only(engine, io_capacity, io_max, depth, skipped):
    report = quietly(config.read_mycnf, MIX, engine)
    knobs = report.scenario.knobs
    assert knobs["innodb_io_capacity"] == io_capacity
    assert knobs.get("innodb_io_capacity_max") == io_max
    assert knobs.get("innodb_lru_scan_depth") == depth
    name = report.scenario.engine
    said = [n for n in report.notes if n.startswith("Groups not read")]
    assert said == ([f"Groups not read by {name}: {skipped}."] if skipped else [])


def test_the_mariadb_group_hint_gives_the_command_line_option():
    (note,) = [n for n in config.read_mycnf(MIX).notes if "MariaDB groups" in n]
    assert "not read by mysql-8.0" in note and "--engine mariadb-10.6" in note


def test_overrides_win_over_the_file():
    sc = config.scenario_from_mycnf(
        read("mysql80_my.cnf"), "mysql-8.0", innodb_io_capacity=500, threads=32, seconds=30
    )
    assert sc["innodb_io_capacity"] == 500
    assert sc["threads"] == 32
    assert sc.seconds == 30


@pytest.mark.parametrize(
    ("body", "name", "value"),
    [
        ("foo = 'a b'   # c", "foo", "a b"),
        ('foo="a#b"', "foo", "a#b"),
        ("foo = a ; b", "foo", "a ; b"),  # ';' starts a comment only at the start of a line
        ('foo = "tab\\there\\sand\\\\"', "foo", "tab\there and\\"),
        ("foo = a\\qb", "foo", "a\\qb"),  # unknown escapes keep their backslash
        ("foo = 'it\\'s'", "foo", "it's"),
        ('foo = ""', "foo", ""),
        ('foo = "', "foo", '"'),  # a lone quote is not a pair
        ("foo =", "foo", ""),
        ("Foo-Bar=1", "foo_bar", "1"),
        ("  foo=1  ", "foo", "1"),
        ("skip-innodb-adaptive-flushing", "innodb_adaptive_flushing", "OFF"),
        ("skip-innodb-adaptive-flushing=0", "innodb_adaptive_flushing", "ON"),
        ("disable-innodb-flush-sync", "innodb_flush_sync", "OFF"),
        ("enable-innodb-flush-sync", "innodb_flush_sync", "ON"),
        ("enable-innodb-flush-sync=0", "innodb_flush_sync", "OFF"),
        ("loose-skip-innodb-doublewrite", "innodb_doublewrite", "OFF"),
        ("skip-log-bin", "log_bin", "OFF"),
        ("skip-external-locking", "skip_external_locking", "ON"),
        ("validate_password.policy = MEDIUM", "validate_password.policy", "MEDIUM"),
    ],
)
def test_option_file_syntax(body, name, value):
    assert config.parse_mycnf(f"[mysqld]\n{body}\n").settings == {name: value}


def test_section_names_are_case_insensitive_and_later_lines_win():
    text = "[MySQLd]\r\na=1\r\n  # indented comment\n\t; another\n[server]\na = 2\n[client]\na=3\n"
    cfg = config.parse_mycnf(text)
    assert cfg.settings == {"a": "2"}
    assert cfg.sources["a"].line == 6 and cfg.sources["a"].section == "server"
    assert [x.value for x in cfg.ignored] == ["3"]


def test_sections_argument_chooses_the_groups():
    text = "[mysqld]\na=1\n[client]\nb=2\n"
    assert config.parse_mycnf(text, sections=("client",)).settings == {"b": "2"}
    assert config.parse_mycnf(text, sections="CLIENT").settings == {"b": "2"}


@pytest.mark.parametrize(
    ("text", "line", "match"),
    [
        ("innodb_io_capacity=300\n", 1, "before any \\[group\\]"),
        ("# top\n[mysqld\nx=1\n", 2, "closing '\\]'"),
        ("[mysqld]\n!include\n", 2, "'!include' needs a path"),
        ("[mysqld]\n!includedir   \n", 2, "'!includedir' needs a path"),
        ("[mysqld]\n!inclde /etc/x.cnf\n", 2, "unknown directive"),
        ("[mysqld]\n\n= 5\n", 3, "without an option name"),
        ("[mysqld]\nfoo bar = 1\n", 2, "'foo bar' is not an option name"),
        ("[mysqld]\nloose-\n", 2, "no option name"),
    ],
)
def test_mycnf_syntax_errors_name_the_line(text, line, match):
    with pytest.raises(ConfigParseError, match=match) as err:
        config.parse_mycnf(text)
    assert err.value.line == line
    assert err.value.text == text.split("\n")[line - 1]
    assert str(err.value).startswith(f"line {line}: ")


def test_out_of_range_value_is_the_params_error_on_its_line():
    with pytest.raises(ConfigParseError) as err:
        config.scenario_from_mycnf("[mysqld]\n# capacity\ninnodb_io_capacity = 50\n")
    e = err.value
    assert isinstance(e, ValueError)
    assert e.line == 3 and e.text == "innodb_io_capacity = 50"
    assert "innodb_io_capacity=50 is out of range: it must be between 100 and" in str(e)
    assert str(e).startswith("line 3: ")


@pytest.mark.parametrize(
    ("setting", "match"),
    [
        ("innodb_buffer_pool_size = 4X", "unknown suffix 'X'"),
        ("innodb_buffer_pool_size = __import__('os').getpid()", "not a whole number"),
        ("innodb_adaptive_flushing = maybe", "not a boolean"),
        ("innodb_flush_method = littlesync", "one of fsync, O_DSYNC"),
        ("innodb_max_dirty_pages_pct = nan", "not a number"),
        ("innodb_io_capacity", "not a whole number"),  # bare: ON is no number
        ("skip-innodb-io-capacity", "not a whole number"),
    ],
)
def test_bad_values_name_their_line(setting, match):
    with pytest.raises(ConfigParseError, match=match) as err:
        config.scenario_from_mycnf(f"[mysqld]\n{setting}\n", "mysql-8.0")
    assert err.value.line == 2 and err.value.text == setting


def test_values_are_converted_as_the_server_reads_them():
    text = (
        "[mysqld]\ninnodb_doublewrite = detect_only\ninnodb-page-size = 8k\n"
        "innodb_flush_method = o_direct_no_fsync\ninnodb_adaptive_flushing = off\n"
        "innodb_buffer_pool_size = 512MB\ninnodb_max_dirty_pages_pct = 75.5\n"
    )
    sc = config.scenario_from_mycnf(text, "mysql-8.0")
    assert sc["innodb_doublewrite"] == "DETECT_ONLY"
    assert sc["innodb_page_size"] == 8192
    assert sc["innodb_flush_method"] == "O_DIRECT_NO_FSYNC"
    assert sc["innodb_adaptive_flushing"] is False
    assert sc["innodb_buffer_pool_size"] == 512 * MiB
    assert sc["innodb_max_dirty_pages_pct"] == 75.5


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # 32 MiB / 16 KiB / 8 instances = 256 pages per instance, below flushsim's 512
        ("[mysqld]\ninnodb_buffer_pool_instances=8\ninnodb_buffer_pool_size=32M\n", 3),
        ("[mysqld]\n\ninnodb_buffer_pool_size = 256G\n", 3),  # past SIM_MAX_POOL_PAGES
    ],
)
def test_cross_knob_errors_name_the_line_of_the_knob_they_blame(text, line):
    with pytest.raises(ConfigParseError, match="innodb_buffer_pool_size") as err:
        config.scenario_from_mycnf(text, "mysql-8.0")
    assert err.value.line == line


def test_a_variable_the_engine_lacks_is_reported_not_modelled():
    report = config.read_mycnf("[mysqld]\ninnodb_lru_flush_size = 64\n", "mysql-8.0")
    assert "innodb_lru_flush_size" not in report.scenario.knobs
    assert report.not_modelled == {"innodb_lru_flush_size": "64"}
    assert "loose-innodb-lru-flush-size" in report.scenario.description
    loose = config.read_mycnf("[mysqld]\nloose-innodb_lru_flush_size = 64\n", "mysql-8.0")
    assert "refuses to start" not in loose.scenario.description


def test_dedicated_server_is_noted():
    sc = config.scenario_from_mycnf("[mysqld]\ninnodb_dedicated_server = ON\n", "mysql-8.0")
    assert "innodb_dedicated_server=ON" in sc.description


def test_bytes_input_and_bad_utf8_name_the_line():
    assert config.parse_mycnf(b"\xef\xbb\xbf[mysqld]\na=1\n").settings == {"a": "1"}
    with pytest.raises(ConfigParseError, match="not UTF-8") as err:
        config.parse_mycnf(b"[mysqld]\na=1\nb=\xff\n")
    assert err.value.line == 3
    with pytest.raises(TypeError):
        config.parse_mycnf(42)


def test_config_parse_error_pickles():
    e = ConfigParseError("bad", 3, "x = 1")
    back = pickle.loads(pickle.dumps(e))
    assert (back.line, back.text, back.reason, str(back)) == (3, "x = 1", "bad", str(e))


# ================================================================================== parse_size
@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("0", 0),
        ("1024", 1024),
        ("128M", 128 * MiB),
        ("4g", 4 * GiB),
        ("4GB", 4 * GiB),
        ("16kb", 16384),
        ("1T", 2**40),
        ("2p", 2**51),
        ("1E", 2**60),
        ("+8k", 8192),
        (" 16K\t", 16384),
        ("18446744073709551615", 2**64 - 1),
    ],
)
def test_parse_size(text, size):
    assert config.parse_size(text) == size


@pytest.mark.parametrize(
    "text", ["", "-1", "1.5G", "12Q", "G", "1 G", "4BG", "16E", "18446744073709551616", "٣"]
)
def test_parse_size_errors_name_the_value(text):
    with pytest.raises(ConfigParseError) as err:
        config.parse_size(text)
    assert repr(text) in str(err.value)
    assert err.value.line is None


# ============================================================== SHOW GLOBAL VARIABLES / STATUS
def test_table_and_vertical_outputs_agree():
    for server, rows in (("mysql80", 130), ("mariadb1011", 107)):
        table = config.parse_global_variables(read(f"variables_{server}_table.txt"))
        vertical = config.parse_global_variables(read(f"variables_{server}_vertical.txt"))
        assert table == vertical
        assert len(table) == rows
        assert table["innodb_data_home_dir"] == ""
        assert table["datadir"] == "/var/lib/mysql/"
    mysql = config.parse_global_variables(read("variables_mysql80_table.txt"))
    assert mysql["version_comment"] == "MySQL Community Server - GPL"
    assert mysql["sql_mode"] == "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION"


@pytest.mark.parametrize("header", [True, False])
def test_tab_separated_batch_output(header):
    want = config.parse_global_variables(read("variables_mariadb1011_vertical.txt"))
    rows = [f"{k}\t{v}" for k, v in want.items()]
    text = "\n".join((["Variable_name\tValue"] if header else []) + rows) + "\n"
    assert config.parse_global_variables(text) == want
    assert config.parse_global_variables("init_connect\tSET a=1;\\nSET b=2\\t\\\\\n") == {
        "init_connect": "SET a=1;\nSET b=2\t\\"
    }


def test_vertical_value_over_several_lines():
    text = (
        "*************************** 1. row ***************************\n"
        "Variable_name: init_connect\n"
        "        Value: SET a=1;\n"
        "SET b=2\n"
        "*************************** 2. row ***************************\n"
        "Variable_name: max_connections\n"
        "        Value: 151\n"
    )
    assert config.parse_global_variables(text) == {
        "init_connect": "SET a=1;\nSET b=2",
        "max_connections": "151",
    }


def test_scenario_from_mysql80_variables():
    name = "variables_mysql80_table.txt"
    report = config.read_variables(read(name))
    sc = report.scenario
    assert sc.engine == "mysql-8.0" and report.engine_note == "MySQL 8.0.36"
    assert sc["innodb_buffer_pool_size"] == 24 * GiB
    assert sc["innodb_buffer_pool_instances"] == 8
    assert sc["innodb_redo_log_capacity"] == 8 * GiB  # wins over the deprecated pair
    assert sc["innodb_io_capacity"] == 3000
    assert sc["innodb_doublewrite_pages"] == 4
    assert sc["innodb_max_dirty_pages_pct"] == 90.0
    assert report.lines["innodb_io_capacity"] == line_of(name, "| innodb_io_capacity ")
    assert report.not_modelled["innodb_adaptive_hash_index"] == "ON"
    assert report.not_modelled["version"] == "8.0.36"
    assert len(report.modelled) + len(report.not_modelled) == 130
    assert "innodb_change_buffering=all" in sc.description
    assert sc.name == "SHOW GLOBAL VARIABLES"


def test_scenario_from_mariadb1011_variables():
    report = config.read_variables(read("variables_mariadb1011_vertical.txt"))
    sc = report.scenario
    assert sc.engine == "mariadb-10.11"
    assert "10.6.18/10.11.8+" in report.engine_note
    assert sc["innodb_buffer_pool_size"] == 16 * GiB
    assert sc["innodb_adaptive_flushing_lwm"] == 10  # printed as 10.000000
    assert sc["innodb_lru_flush_size"] == 32
    assert sc["innodb_lru_scan_depth"] == 1536
    assert sc["innodb_io_capacity"] == 1500
    assert sc["innodb_max_dirty_pages_pct_lwm"] == 0.0


def test_a_10_11_10_server_shows_lru_flush_size_0():
    text = "version\t10.11.10-MariaDB\ninnodb_lru_flush_size\t0\n"
    report = config.read_variables(text)
    assert report.scenario["innodb_lru_flush_size"] == 32
    assert report.not_modelled == {"version": "10.11.10-MariaDB", "innodb_lru_flush_size": "0"}


def test_variables_without_version_assume_mysql_and_say_so():
    sc = config.scenario_from_variables("| innodb_io_capacity | 500 |\n")
    assert sc.engine == "mysql-8.0" and sc["innodb_io_capacity"] == 500
    assert "assumed mysql-8.0" in sc.description


def test_engine_asked_for_wins_and_a_mismatch_is_noted():
    sc = config.scenario_from_variables(read("variables_mysql80_vertical.txt"), "mariadb-10.6")
    assert sc.engine == "mariadb-10.6"
    assert "but engine=mariadb-10.6 was asked for" in sc.description


@pytest.mark.parametrize(
    ("version", "comment", "engine"),
    [
        ("8.0.36", "MySQL Community Server - GPL", "mysql-8.0"),
        ("8.0.36-28", "Percona Server (GPL), Release 28", "mysql-8.0"),
        ("8.4.2", "", "mysql-8.4"),
        ("8.4.0", "MySQL Community Server - GPL", "mysql-8.4"),
        ("8.3.0", "", "mysql-8.0"),  # innovation releases before 8.4.0 keep 8.0's defaults
        ("9.1.0", "", "mysql-8.4"),  # later ones keep 8.4's
        ("5.7.44-log", "", "mysql-8.0"),
        ("8.4.2-2", "Percona Server (GPL), Release 2, Revision 4a9bc0e5", "mysql-8.4"),
        ("8.4.3-3", "", "mysql-8.4"),  # Percona's version string alone
        ("10.5.23-MariaDB", "", "mariadb-10.6"),
        ("10.6.17-MariaDB-log", "", "mariadb-10.6"),
        ("10.6.18-MariaDB", "", "mariadb-10.11"),
        ("10.9.8-MariaDB", "", "mariadb-10.6"),
        ("10.11.7-MariaDB", "", "mariadb-10.6"),
        ("10.11.8-MariaDB-1:10.11.8+maria~ubu2204", "", "mariadb-10.11"),
        ("10.11.9", "mariadb.org binary distribution", "mariadb-10.11"),
        ("11.4.1-MariaDB", "", "mariadb-10.6"),
        ("11.4.3-MariaDB", "", "mariadb-10.11"),
    ],
)
def test_engine_for_version(version, comment, engine):
    assert config.engine_for_version(version, comment) == engine


@pytest.mark.parametrize(
    ("version", "release"),
    [
        ("10.6.3-MariaDB-log", "10.6.3"),
        ("10.11.5-MariaDB", "10.11.5"),
        ("10.5.23-MariaDB", "10.6.0"),
        ("10.8.3-MariaDB", "10.6.12"),  # before MDEV-26827 reached 10.8 (10.8.8)
        ("10.9.8-MariaDB", "10.6.13"),
        ("11.0.4-MariaDB", "10.6.13"),  # before MDEV-33053 reached 11.0 (11.0.5)
        ("11.4.1-MariaDB", "10.6.17"),
    ],
)
def test_a_mariadb_10_6_servers_version_sets_the_version_knob(version, release):
    report = config.read_variables(f"version\t{version}\ninnodb_io_capacity\t500\n")
    assert report.scenario.engine == "mariadb-10.6"
    assert report.scenario["version"] == release


def test_other_engines_take_no_version_knob():
    for version in ("8.0.36", "10.6.20-MariaDB", "10.11.9-MariaDB"):
        report = config.read_variables(f"version\t{version}\n")
        assert "version" not in report.scenario.knobs
        assert not any("version" in n for n in report.notes), report.notes
    mycnf = config.read_mycnf("[mysqld]\ninnodb_io_capacity=300\n", version="10.6.3-MariaDB")
    assert mycnf.scenario["version"] == "10.6.3"


def test_an_8_4_servers_text_takes_8_4s_defaults_and_groups():
    # SHOW GLOBAL VARIABLES of an 8.4 server: what it does not list is 8.4's default
    report = config.read_variables("version\t8.4.3\ninnodb_io_capacity\t500\n")
    sc = report.scenario
    assert sc.engine == "mysql-8.4" and report.engine_note == "MySQL 8.4.3"
    assert (sc["innodb_io_capacity"], sc["innodb_io_capacity_max"]) == (500, 1000)
    assert sc["innodb_doublewrite_pages"] == 128 and sc["innodb_flush_method"] == "O_DIRECT"
    # mysqld 8.4 reads [mysqld-8.4], not [mysqld-8.0]
    text = "[mysqld-8.0]\ninnodb_io_capacity=300\n[mysqld-8.4]\ninnodb_io_capacity=700\n"
    assert config.read_mycnf(text, version="8.4.2").scenario["innodb_io_capacity"] == 700
    assert config.read_mycnf(text, version="8.0.36").scenario["innodb_io_capacity"] == 300
    # Percona Server 8.4 keeps innodb_cleaner_lsn_age_factor (default high_checkpoint)
    percona = config.read_variables(
        "version\t8.4.2-2\nversion_comment\tPercona Server (GPL), Release 2\n"
    )
    assert percona.scenario.engine == "mysql-8.4"
    assert percona.scenario["innodb_cleaner_lsn_age_factor"] == "high_checkpoint"


def test_a_percona_servers_adaptive_flushing_formula():
    # a Percona Server lists its variable; a paste or my.cnf without it gets Percona's default
    listed = config.read_variables(
        "version\t8.0.36-28\nversion_comment\tPercona Server (GPL), Release 28\n"
        "innodb_cleaner_lsn_age_factor\tlegacy\n"
    )
    assert listed.scenario["innodb_cleaner_lsn_age_factor"] == "legacy"
    assert "LRU manager threads are not" in listed.scenario.description
    for report in (
        config.read_variables("version\t8.0.36-28\ninnodb_io_capacity\t500\n"),
        config.read_variables(
            "version\t8.0.18\nversion_comment\tPercona Server (GPL), Release 9\n"
        ),
        config.read_mycnf("[mysqld]\ninnodb_io_capacity=300\n", version="8.0.36-28"),
    ):
        assert report.scenario["innodb_cleaner_lsn_age_factor"] == "high_checkpoint"
    # Oracle MySQL (Ubuntu's package numbers its builds after a dash too) keeps its one formula
    for version in ("8.0.36", "8.0.36-0ubuntu0.22.04.1", "8.0.36-log"):
        report = config.read_variables(f"version\t{version}\n")
        assert report.scenario["innodb_cleaner_lsn_age_factor"] == "legacy", version
    oracle = config.read_mycnf("[mysqld]\ninnodb_cleaner_lsn_age_factor=high_checkpoint\n")
    assert oracle.scenario["innodb_cleaner_lsn_age_factor"] == "high_checkpoint"
    assert any("Oracle MySQL refuses to start" in n for n in oracle.notes), oracle.notes


def test_engine_for_version_without_a_version():
    with pytest.raises(ConfigParseError, match="no major.minor.patch"):
        config.engine_for_version("unknown")


@pytest.mark.parametrize(
    ("text", "line", "match"),
    [
        ("| a | b | c |\n", 1, "2 columns"),
        ("+---+---+\n| a | b\n", 2, "start and end"),
        ("        Value: 3\n", 1, "without 'Variable_name:'"),
        ("Variable_name: x\n*************************** 2. row ***\n", 1, "no 'Value:'"),
        ("Variable_name: x\n", 1, "no 'Value:'"),
        ("mysql> SHOW GLOBAL VARIABLES;\nhello there\n", 2, "not a line of SHOW GLOBAL"),
        ("| a b | 1 |\n", 1, "'a b' is not a variable name"),
    ],
)
def test_variables_errors_name_the_line(text, line, match):
    with pytest.raises(ConfigParseError, match=match) as err:
        config.parse_global_variables(text)
    assert err.value.line == line


def test_variable_out_of_range_names_its_line():
    text = "Variable_name\tValue\nversion\t8.0.36\ninnodb_io_capacity\t5\n"
    with pytest.raises(ConfigParseError, match="innodb_io_capacity=5 is out of range") as err:
        config.scenario_from_variables(text)
    assert (err.value.line, err.value.text) == (3, "innodb_io_capacity\t5")


def test_no_variables_is_an_error():
    assert config.parse_global_variables("mysql> SHOW GLOBAL VARIABLES;\nEmpty set\n") == {}
    with pytest.raises(ConfigParseError, match="no variables found"):
        config.scenario_from_variables("\n\n")


def test_global_status_and_status_pasted_as_variables():
    text = (
        "+--------------------------------+----------+\n"
        "| Variable_name                  | Value    |\n"
        "+--------------------------------+----------+\n"
        "| Innodb_buffer_pool_pages_data  | 1548134  |\n"
        "| Innodb_buffer_pool_pages_dirty | 81826    |\n"
        "| Innodb_buffer_pool_pages_free  | 8494     |\n"
        "+--------------------------------+----------+\n"
        "3 rows in set (0.00 sec)\n"
    )
    status = config.parse_global_status(text)
    assert status["Innodb_buffer_pool_pages_dirty"] == "81826"
    report = config.read_variables(text)
    assert report.modelled == {} and len(report.not_modelled) == 3
    assert "SHOW GLOBAL STATUS rather than" in report.scenario.description


# ======================================================================== SHOW ENGINE INNODB STATUS
FIELDS = ("pool_size", "free", "database_pages", "old_database_pages", "modified", "pages_read")


def test_mysql80_status_buffer_pool_and_log():
    st_ = config.parse_innodb_status(read("innodb_status_mysql80.txt"))
    bp = st_.buffer_pool
    assert (bp.pool_size, bp.free, bp.database_pages, bp.modified) == (
        1572672,
        8494,
        1548134,
        81826,
    )
    assert bp.old_database_pages == 572610
    assert (bp.pending_writes_lru, bp.pending_writes_flush_list, bp.pending_writes_single_page) == (
        0,
        0,
        0,
    )
    assert (bp.pages_read, bp.pages_created, bp.pages_written) == (2288756, 1362380, 40946452)
    assert len(st_.instances) == 8
    assert all(p.pool_size == 196584 for p in st_.instances)
    for f in FIELDS:  # buf_stats_aggregate_pool_info sums the instances
        assert getattr(bp, f) == sum(getattr(p, f) for p in st_.instances), f
    assert st_.flavour == "mysql"
    assert st_.lsn == 912345678901
    assert st_.log["Pages flushed up to"] == 910211440128
    assert st_.checkpoint_age == 912345678901 - 910209387520
    assert st_.start["dirty_pages"] == 81826 and st_.start["free_pages"] == 8494
    assert st_.section_line == line_of("innodb_status_mysql80.txt", "BUFFER POOL AND MEMORY")
    assert st_.instances[3].line == line_of("innodb_status_mysql80.txt", "---BUFFER POOL 3")


def test_mariadb1011_status():
    st_ = config.parse_innodb_status(read("innodb_status_mariadb1011.txt"))
    bp = st_.buffer_pool
    assert (bp.pool_size, bp.free, bp.database_pages, bp.modified) == (
        1032304,
        1536,
        1030768,
        61275,
    )
    assert bp.pending_writes_single_page is None  # MariaDB 10.5+ has no single-page flushing
    assert st_.instances == ()
    assert st_.max_dirty_pages_pct == 90.0
    assert f"{bp.dirty_pct:.3f}" == "5.936"  # what the server printed on the line above
    assert st_.flavour == "mariadb"
    assert set(st_.log) == {
        "Log sequence number",
        "Log flushed up to",
        "Pages flushed up to",
        "Last checkpoint at",
    }
    assert st_.checkpoint_age == 1183412398412 - 1181870261760


def test_scenario_from_mysql80_status():
    report = config.read_innodb_status(read("innodb_status_mysql80.txt"))
    sc = report.scenario
    assert sc.engine == "mysql-8.0"
    assert sc["innodb_buffer_pool_size"] == 1572672 * 16384
    assert sc["innodb_buffer_pool_instances"] == 8
    assert report.status.dirty_pages == 81826
    assert report.lines["innodb_buffer_pool_size"] == line_of(
        "innodb_status_mysql80.txt", "Buffer pool size   1572672"
    )
    assert "81826 dirty pages" in sc.description and "page size assumed" in sc.description
    eight = config.scenario_from_innodb_status(
        read("innodb_status_mysql80.txt"), innodb_page_size=8192
    )
    assert eight["innodb_buffer_pool_size"] == 1572672 * 8192 and eight["innodb_page_size"] == 8192


def test_scenario_from_mariadb_status():
    sc = config.scenario_from_innodb_status(read("innodb_status_mariadb1011.txt"), "mariadb-10.11")
    assert sc.engine == "mariadb-10.11"
    assert sc["innodb_buffer_pool_size"] == 1032304 * 16384
    assert sc["innodb_max_dirty_pages_pct"] == 90.0
    assert "innodb_buffer_pool_instances" not in sc.knobs
    as_mysql = config.scenario_from_innodb_status(read("innodb_status_mariadb1011.txt"))
    assert as_mysql["innodb_buffer_pool_instances"] == 1
    assert "looks like MariaDB's" in as_mysql.description


def test_status_with_pool_bytes_line_uses_it():
    text = read("innodb_status_mariadb1011.txt").replace(
        "Buffer pool size   1032304\n",
        "Buffer pool size   1032304\nBuffer pool size, bytes 16913268736\n",
    )
    report = config.read_innodb_status(text, "mariadb-10.6", innodb_page_size=4096)
    assert report.status.pool_size_bytes == 16913268736
    assert report.scenario["innodb_buffer_pool_size"] == 16913268736
    assert "from Buffer pool size, bytes" in report.scenario.description


def _monitor_body(name: str) -> str:
    text = read(name)
    return text[text.index("=====") : text.index("END OF INNODB MONITOR OUTPUT") + 60].rstrip()


@pytest.mark.parametrize("name", ["innodb_status_mysql80.txt", "innodb_status_mariadb1011.txt"])
def test_status_in_escaped_and_table_forms(name):
    want = config.parse_innodb_status(read(name))
    body = _monitor_body(name)
    batch = "Type\tName\tStatus\nInnoDB\t\t\\n" + body.replace("\n", "\\n") + "\\n\n"
    repr_form = "[('InnoDB', '', \"\\n" + body.replace("\n", "\\n") + '\\n")]'
    table = (
        "+--------+------+--------------------------------------------+\n"
        "| Type   | Name | Status                                     |\n"
        "+--------+------+--------------------------------------------+\n"
        "| InnoDB |      | \n" + body + " |\n"
        "+--------+------+--------------------------------------------+\n"
        "1 row in set (0.00 sec)\n"
    )
    for form in (batch, repr_form, table, body):
        got = config.parse_innodb_status(form)
        assert (got.buffer_pool, got.instances, got.log) == (
            want.buffer_pool.__class__(
                **{**want.buffer_pool.__dict__, "line": got.buffer_pool.line}
            ),
            tuple(
                p.__class__(**{**p.__dict__, "line": q.line})
                for p, q in zip(want.instances, got.instances, strict=True)
            ),
            want.log,
        )


def test_several_outputs_read_the_last():
    first = read("innodb_status_mariadb1011.txt")
    second = first.replace("Modified db pages  61275", "Modified db pages  70000")
    assert config.parse_innodb_status(first + second).dirty_pages == 70000


@pytest.mark.parametrize(
    ("edit", "match", "at"),
    [
        (("Modified db pages  61275\n", ""), "has no 'Modified db pages' line", "BUFFER POOL AND"),
        (
            ("Buffer pool size   1032304", "Buffer pool size   lots"),
            "malformed 'Buffer pool size'",
            "lots",
        ),
        (
            ("Pending writes: LRU 0, flush list 0", "Pending writes: LRU 0"),
            "malformed",
            "writes: LRU",
        ),
        (
            ("Log sequence number 1183412398412", "Log sequence number 0 1183"),
            "not one number",
            "0 1183",
        ),
        (("Free buffers       1536", "Free buffers       " + "9" * 25), "malformed", "99999"),
    ],
)
def test_status_errors_name_the_line(edit, match, at):
    text = read("innodb_status_mariadb1011.txt").replace(*edit)
    with pytest.raises(ConfigParseError, match=match) as err:
        config.parse_innodb_status(text)
    assert err.value.line == [i for i, ln in enumerate(text.split("\n"), 1) if at in ln][0]


def test_status_without_buffer_pool_section():
    with pytest.raises(ConfigParseError, match="no 'BUFFER POOL AND MEMORY' section") as err:
        config.parse_innodb_status(read("variables_mysql80_table.txt"))
    assert err.value.line is None


@pytest.mark.parametrize("fraction", [0.50, 0.55, 0.60])
def test_cut_status_gives_no_instance_count(fraction, tmp_path):
    # issue #34: cut at 50, 55, 60 % this status read as 1, 2, 3 instances (8 in full)
    full = read("innodb_status_mysql80.txt")
    cut = full[: int(len(full) * fraction)]
    st_ = config.parse_innodb_status(cut)
    assert 0 < len(st_.instances) < 8
    assert any("no END OF INNODB MONITOR OUTPUT line" in why for why in st_.incomplete)
    assert any("of the 1,572,672 pages" in why for why in st_.incomplete)
    path = tmp_path / "status.txt"
    path.write_text(cut)
    report = config.read_innodb_status(path)
    assert "innodb_buffer_pool_instances" not in report.modelled
    assert "innodb_buffer_pool_instances" not in report.scenario.knobs
    assert report.scenario["innodb_buffer_pool_size"] == 1572672 * 16384  # the totals still count
    (note,) = [n for n in report.notes if "innodb_buffer_pool_instances not read" in n]
    assert str(path) in note and "INDIVIDUAL BUFFER POOL INFO section" in note
    assert note in report.scenario.description
    maria = config.read_innodb_status(cut, "mariadb-10.11")
    assert any(n.startswith("The status is incomplete") for n in maria.notes)


def test_status_cut_inside_the_pool_totals_says_so():
    full = read("innodb_status_mysql80.txt")
    cut = full[: full.index("Database pages     1548134")]
    with pytest.raises(ConfigParseError, match="stops inside the BUFFER POOL AND MEMORY") as err:
        config.read_innodb_status(cut)
    assert "before its 'Database pages', 'Modified db pages' lines" in str(err.value)
    assert err.value.line == line_of("innodb_status_mysql80.txt", "BUFFER POOL AND MEMORY")


def test_whole_status_is_not_flagged():
    for name in ("innodb_status_mysql80.txt", "innodb_status_mariadb1011.txt"):
        assert config.parse_innodb_status(read(name)).incomplete == ()
    body = _monitor_body("innodb_status_mysql80.txt")
    assert config.parse_innodb_status(body.replace("\n", "\\n")).incomplete == ()


def test_status_with_an_instance_missing_is_flagged():
    text = read("innodb_status_mysql80.txt")
    start, end = text.index("---BUFFER POOL 3\n"), text.index("---BUFFER POOL 4\n")
    st_ = config.parse_innodb_status(text[:start] + text[end:])  # the END line is still there
    assert len(st_.instances) == 7
    assert st_.incomplete == (
        "its 7 instance blocks hold 1,376,088 of the 1,572,672 pages of Buffer pool size",
    )
    report = config.read_innodb_status(text[:start] + text[end:])
    assert "innodb_buffer_pool_instances" not in report.modelled
    assert any("the status is incomplete" in n for n in report.notes)


def test_status_file_that_cannot_be_read(tmp_path):
    with pytest.raises(ConfigParseError, match="missing.txt: cannot be read"):
        config.read_innodb_status(tmp_path / "missing.txt")


def test_status_pool_too_small_names_the_pool_line():
    text = read("innodb_status_mariadb1011.txt").replace(
        "Buffer pool size   1032304", "Buffer pool size   200"
    )
    with pytest.raises(ConfigParseError, match="innodb_buffer_pool_size=3,276,800") as err:
        config.scenario_from_innodb_status(text, "mariadb-10.11")
    assert err.value.text == "Buffer pool size   200"


# ====================================================================================== fuzzing
MYCNF_NAMES = st.sampled_from(
    [
        "innodb_buffer_pool_size",
        "innodb-io-capacity",
        "loose-innodb_io_capacity_max",
        "skip-innodb-doublewrite",
        "innodb_flush_method",
        "innodb_max_dirty_pages_pct",
        "enable-innodb-adaptive-flushing",
        "innodb_buffer_pool_instances",
        "innodb_page_size",
        "innodb_lru_flush_size",
        "innodb_redo_log_capacity",
        "Innodb_Old_Blocks_Pct",
        "innodb_page_cleaners",
        "max_connections",
        "skip-name-resolve",
        "loose-",
        "a b",
        "",
    ]
)
MYCNF_VALUES = st.one_of(
    st.sampled_from(
        ["128M", "4G", "16k", "2000", "O_DIRECT", "on", "OFF", "90.5", "1e3", "-1", "", '"4G"']
        + ["'x", "\\s\\n", "64M # pool", "0", "DETECT_ONLY", "18446744073709551616"]
    ),
    st.from_regex(r"[+-]?[0-9]{0,22}[kmgtpeKMGTPEbB.]?[0-9]?", fullmatch=True),
    st.text(max_size=12),
)
MYCNF_LINES = st.one_of(
    st.sampled_from(
        ["[mysqld]", "[server]", "[client]", "[mariadb-10.11]", "[ MySQLd ]", "[mysqld", "#c"]
        + [";c", "", "!include /x.cnf", "!includedir /etc/mysql/conf.d/", "!include", "!bogus"]
    ),
    st.builds("{} = {}".format, MYCNF_NAMES, MYCNF_VALUES),
    st.builds("{}={}".format, MYCNF_NAMES, MYCNF_VALUES),
    MYCNF_NAMES,
    st.text(max_size=30),
)
MYCNF = st.builds(
    lambda head, lines, crlf: (head + "\n".join(lines)).replace("\n", "\r\n" if crlf else "\n"),
    st.sampled_from(["", "[mysqld]\n", "\ufeff[mysqld]\n"]),
    st.lists(MYCNF_LINES, max_size=25),
    st.booleans(),
)


@FUZZ
@given(st.one_of(st.text(), st.binary()))
def test_fuzz_parse_mycnf_arbitrary(text):
    only_parse_errors(config.parse_mycnf, text)


@FUZZ
@given(MYCNF)
def test_fuzz_parse_mycnf_near_valid(text):
    only_parse_errors(config.parse_mycnf, text)


@FUZZ
@given(
    MYCNF, ENGINES, st.sampled_from([None, "8.0.36", "8.4.2", "10.6.12-MariaDB", "10.11.9-MariaDB"])
)
def test_fuzz_scenario_from_mycnf(text, engine, version):
    only_parse_errors(config.scenario_from_mycnf, text, engine, version=version)


@FUZZ
@given(
    st.one_of(
        st.text(),
        st.from_regex(r"[ +-]?[0-9]{0,25}[kmgtpeKMGTPEbBx. ]{0,2}[0-9]?", fullmatch=True),
    )
)
def test_fuzz_parse_size(text):
    try:
        assert 0 <= config.parse_size(text) <= 2**64 - 1
    except ConfigParseError as exc:
        assert repr(text) in str(exc)


VAR_NAMES = st.sampled_from(
    ["innodb_buffer_pool_size", "innodb_io_capacity", "innodb_flush_method", "version"]
    + ["version_comment", "innodb_adaptive_flushing_lwm", "innodb_lru_flush_size"]
    + ["innodb_doublewrite", "Innodb_buffer_pool_pages_dirty", "Variable_name", "a|b", "", "x y"]
    + ["innodb_buffer_pool_instances", "innodb_page_cleaners", "innodb_redo_log_capacity"]
)
VAR_VALUES = st.one_of(
    st.sampled_from(
        ["8.0.36", "10.11.9-MariaDB", "10.6.12-MariaDB-log", "mariadb.org binary distribution"]
        + ["134217728", "ON", "O_DIRECT", "10.000000", "0", "", "Value", "18446744073709551616"]
        + ["64", "1G", "fast"]
    ),
    st.text(max_size=12),
)
VAR_LINES = st.one_of(
    st.builds("| {} | {} |".format, VAR_NAMES, VAR_VALUES),
    st.builds("{}\t{}".format, VAR_NAMES, VAR_VALUES),
    st.builds("Variable_name: {}".format, VAR_NAMES),
    st.builds("        Value: {}".format, VAR_VALUES),
    st.sampled_from(
        ["+----+----+", "*************************** 1. row ***************************"]
        + ["mysql> SHOW GLOBAL VARIABLES;", "3 rows in set (0.00 sec)", "| Variable_name | Value |"]
        + ["Variable_name\tValue", "", "|", "| x", "Empty set (0.00 sec)"]
    ),
    st.text(max_size=20),
)
VARIABLES = st.lists(VAR_LINES, max_size=25).map("\n".join)


@FUZZ
@given(st.one_of(st.text(), st.binary()))
def test_fuzz_parse_global_variables_arbitrary(text):
    only_parse_errors(config.parse_global_variables, text)


@FUZZ
@given(VARIABLES)
def test_fuzz_parse_global_variables_near_valid(text):
    only_parse_errors(config.parse_global_variables, text)
    only_parse_errors(config.parse_global_status, text)


@FUZZ
@given(VARIABLES, ENGINES)
def test_fuzz_scenario_from_variables(text, engine):
    only_parse_errors(config.scenario_from_variables, text, engine)


@FUZZ
@given(st.one_of(st.text(), st.binary()))
def test_fuzz_parse_innodb_status_arbitrary(text):
    only_parse_errors(config.parse_innodb_status, text)


STATUS_LINES = [
    read(n).split("\n") for n in ("innodb_status_mysql80.txt", "innodb_status_mariadb1011.txt")
]


@st.composite
def mutated_status(draw):
    lines = list(draw(st.sampled_from(STATUS_LINES)))
    start = next(i for i, ln in enumerate(lines) if ln == "LOG")
    end = next(i for i, ln in enumerate(lines) if ln == "ROW OPERATIONS")
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            break
        hi = len(lines) - 1
        i = draw(st.one_of(st.integers(min(start, hi), min(end, hi)), st.integers(0, hi)))
        op = draw(st.sampled_from(["delete", "duplicate", "number", "text", "truncate"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "number":
            new = draw(st.sampled_from(["", "x", "-1", "0", "9" * 25, "1.5", "٣", "200"]))
            lines[i] = re.sub(r"[0-9]+", new, lines[i], count=1)
        elif op == "text":
            lines[i] = draw(st.text(max_size=30))
        else:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
    return "\n".join(lines)


@FUZZ
@given(
    mutated_status(),
    st.sampled_from(["mysql-8.0", "mariadb-10.6", "mariadb-10.11", "mysql-8.4"]),
)
def test_fuzz_innodb_status_near_valid(text, engine):
    only_parse_errors(config.parse_innodb_status, text)
    only_parse_errors(config.scenario_from_innodb_status, text, engine)
    escaped = text.replace("\n", "\\n")
    only_parse_errors(config.parse_innodb_status, escaped)


# ================================================================== round trips (properties)
VALUE_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="|"),
    max_size=30,
).map(lambda s: s.strip(" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0"))


@FUZZ
@given(
    st.dictionaries(
        st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,30}", fullmatch=True), VALUE_TEXT, max_size=15
    ).filter(lambda d: not any(k.lower() == "variable_name" for k in d)),
    st.sampled_from(["table", "tab", "vertical"]),
)
def test_variables_round_trip(values, form):
    if form == "table":
        rows = [f"| {k} | {v} |" for k, v in values.items()]
        text = "\n".join(["+---+", "| Variable_name | Value |", "+---+", *rows, "+---+"])
    elif form == "tab":
        rows = [f"{k}\t{v.replace(chr(92), chr(92) * 2)}" for k, v in values.items()]
        text = "\n".join(["Variable_name\tValue", *rows])
    else:
        rows = [
            f"*** {i}. row ***\nVariable_name: {k}\n        Value: {v}"
            for i, (k, v) in enumerate(values.items(), 1)
        ]
        text = "\n".join(rows)
    assert config.parse_global_variables(text) == values


def _quote(value: str) -> str:
    escaped = (
        value.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\r", "\\r")
        .replace("\t", "\\t")
    )
    return f'"{escaped}"'


@FUZZ
@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True).filter(
            lambda n: not n.startswith(("loose_", "skip_", "enable_", "disable_"))
        ),
        st.text(max_size=30),
        max_size=10,
    )
)
def test_mycnf_quoted_values_round_trip(values):
    text = "[mysqld]\n" + "\n".join(f"{k} = {_quote(v)}  # note" for k, v in values.items())
    assert config.parse_mycnf(text).settings == values


def test_public_api():
    for name in config.__all__:
        assert hasattr(config, name), name
