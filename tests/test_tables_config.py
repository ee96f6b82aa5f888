"""tables.config_table / frame_text: a config reader's result as a readable table."""

from __future__ import annotations

from flushsim import tables
from flushsim.live import config


def test_config_table_lists_every_setting_and_note():
    report = config.read_mycnf(
        "[mysqld]\ninnodb_buffer_pool_size = 12G\nmax_connections = 500\n!includedir /etc/x\n"
    )
    df = tables.config_table(report)
    rows = {r["setting"]: r for r in df.iter_rows(named=True)}
    assert rows["innodb_buffer_pool_size"] == {
        "line": 2,
        "setting": "innodb_buffer_pool_size",
        "value": "12G",  # as written, not 12884901888
        "flushsim": "modelled",
    }
    assert rows["max_connections"]["flushsim"] == "not modelled"
    assert any("Not followed: !includedir /etc/x" in n for n in df["flushsim"])
    text = tables.frame_text(df).splitlines()
    assert text[0].split() == ["line", "setting", "value", "flushsim"]
    assert text[1].split()[:4] == ["2", "innodb_buffer_pool_size", "12G", "modelled"]
