"""A private MariaDB for the tests that need a real server, or a skip where none is installed."""

import contextlib

import pytest


@contextlib.contextmanager
def private_mariadb(options=None):
    """flushsim.live.server.PrivateMariaDB with `options` (name -> value), started and stopped."""
    server = pytest.importorskip("flushsim.live.server")
    pytest.importorskip("pymysql")
    if server.find_mariadb() is None:
        pytest.skip("mariadbd not installed: run scripts/mariadb.sh (Debian's mariadb-server)")
    with server.PrivateMariaDB(options) as db:
        yield db
