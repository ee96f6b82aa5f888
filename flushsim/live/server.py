"""A private MariaDB server for tests and experiments, and a small scripted workload.

`PrivateMariaDB` runs Debian's `mariadbd` (scripts/mariadb.sh installs the package without
starting its service) on a datadir in a fresh temporary folder, a free TCP port on 127.0.0.1
and a Unix socket in that folder, so it never touches a system server. Server variables are
passed as a dict (`{"innodb_io_capacity": 400}`), which lets a session record the same workload
at several settings. Root logs in through the socket without a password; the recorder logs in
as `user` over TCP with a random `password`, holding only the privileges in
`recorder_privileges` (PROCESS, to read INNODB_METRICS).

`run_workload` drives the server with a bounded, timed loop: `update-hotset` updates random
rows of a fixed hot set of a table (`prepare_table` creates and fills it); `idle` sends nothing,
to watch idle flushing. It refuses connections that are not to the local machine.
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import signal
import socket as socketlib
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "MariaDBNotFound",
    "PrivateMariaDB",
    "WorkloadResult",
    "find_mariadb",
    "prepare_table",
    "run_workload",
]

_SERVER_NAMES = ("mariadbd", "mysqld")
_INSTALL_NAMES = ("mariadb-install-db", "mysql_install_db")
# Debian puts mariadbd in /usr/sbin, which is not on a normal user's PATH
_SEARCH_DIRS = ("/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin")
_LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

# small and quick to start; any of these can be overridden through `options`
DEFAULT_OPTIONS: dict[str, object] = {
    "innodb_buffer_pool_size": "32M",
    "innodb_log_file_size": "48M",
    "performance_schema": "OFF",
    "skip_name_resolve": True,
    "max_connections": 50,
}


class MariaDBNotFound(RuntimeError):
    """No mariadbd / mariadb-install-db on this machine (run scripts/mariadb.sh)."""


def find_mariadb() -> tuple[Path, Path] | None:
    """Paths of the server and of its datadir initialiser, or None if either is missing."""
    found = []
    for names in (_SERVER_NAMES, _INSTALL_NAMES):
        path = None
        for name in names:
            hit = shutil.which(name) or next(
                (f"{d}/{name}" for d in _SEARCH_DIRS if os.access(f"{d}/{name}", os.X_OK)), None
            )
            if hit:
                path = Path(hit)
                break
        if path is None:
            return None
        found.append(path)
    return found[0], found[1]


def _free_port() -> int:
    with socketlib.socket(socketlib.AF_INET, socketlib.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _option_args(options: Mapping[str, object]) -> list[str]:
    args = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False:
            args.append(f"{flag}=OFF")
        else:
            args.append(f"{flag}={value}")
    return args


class PrivateMariaDB:
    """A throw-away MariaDB server: `with PrivateMariaDB({...}) as db: ...`.

    Attributes:
        host: always "127.0.0.1".
        port: the TCP port chosen at start.
        socket: path of the Unix socket.
        user: the recorder's login ("flushsim_rec").
        password: its random password (not shown in repr).
        datadir: the server's data directory (inside a temporary folder removed at stop).
        error_log: the server's error log.
    """

    user = "flushsim_rec"
    host = "127.0.0.1"

    def __init__(
        self,
        options: Mapping[str, object] | None = None,
        *,
        recorder_privileges: str = "PROCESS",
        startup_timeout_s: float = 60.0,
        keep: bool = False,
    ):
        """Configure, without starting, a private server.

        Args:
            options: server variables, name -> value (True = a bare flag, False = OFF), on top
                of DEFAULT_OPTIONS.
            recorder_privileges: global privileges of `user`, e.g. "PROCESS, SUPER" to let
                the recorder enable monitors.
            startup_timeout_s: how long to wait for the server to accept connections (s).
            keep: keep the temporary folder after stop, for a look at the error log.
        """
        self.options = {**DEFAULT_OPTIONS, **(options or {})}
        self.recorder_privileges = recorder_privileges
        self.startup_timeout_s = startup_timeout_s
        self.keep = keep
        self.password = secrets.token_urlsafe(18)
        self.port: int | None = None
        self.folder: Path | None = None
        self._proc: subprocess.Popen | None = None

    def __repr__(self) -> str:
        state = f"port={self.port}" if self.running else "stopped"
        return f"PrivateMariaDB({state}, folder={str(self.folder)!r})"

    @property
    def socket(self) -> Path:
        """The Unix socket (root logs in through it)."""
        assert self.folder is not None, "not started"
        return self.folder / "mariadbd.sock"

    @property
    def datadir(self) -> Path:
        """The data directory."""
        assert self.folder is not None, "not started"
        return self.folder / "data"

    @property
    def error_log(self) -> Path:
        """The server's error log."""
        assert self.folder is not None, "not started"
        return self.folder / "error.log"

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> PrivateMariaDB:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------ life cycle

    def start(self) -> None:
        """Initialise the datadir, start mariadbd, wait for it and create the recorder user.

        Call it from a thread that lives as long as the server: the server gets SIGTERM when
        the thread that started it ends (its parent-death signal), so that a Python process
        killed without stop() leaves no server behind.

        Raises:
            MariaDBNotFound: the package is not installed.
            RuntimeError: the server did not come up (the message quotes its error log).
        """
        found = find_mariadb()
        if found is None:
            raise MariaDBNotFound(
                "mariadbd / mariadb-install-db not found: run scripts/mariadb.sh "
                "(installs Debian's mariadb-server)"
            )
        server, install = found
        self.folder = Path(tempfile.mkdtemp(prefix="flushsim-mariadb-"))
        (self.folder / "tmp").mkdir()
        as_root = ["--user=root"] if os.geteuid() == 0 else []  # mariadbd refuses root otherwise
        try:
            done = subprocess.run(
                [
                    str(install),
                    "--no-defaults",
                    f"--datadir={self.datadir}",
                    "--auth-root-authentication-method=normal",
                    "--skip-test-db",
                    *as_root,
                ],
                capture_output=True,
                text=True,
                timeout=120,
            )
            if done.returncode != 0:
                raise RuntimeError(f"{install.name} failed:\n{done.stdout[-2000:]}{done.stderr}")
            for _ in range(3):  # a port picked free can be taken before the server binds it
                self.port = _free_port()
                if self._launch(server, as_root):
                    break
            else:
                raise RuntimeError(f"mariadbd did not start:\n{self._log_tail()}")
            self._create_recorder_user()
        except BaseException:
            self.stop()
            raise

    def _launch(self, server: Path, as_root: list[str]) -> bool:
        """Start mariadbd on self.port; False if the port was taken, raise on other failures."""
        assert self.folder is not None
        args = [
            str(server),
            "--no-defaults",
            f"--datadir={self.datadir}",
            f"--port={self.port}",
            "--bind-address=127.0.0.1",
            f"--socket={self.socket}",
            f"--pid-file={self.folder / 'mariadbd.pid'}",
            f"--log-error={self.error_log}",
            f"--tmpdir={self.folder / 'tmp'}",
            *as_root,
            *_option_args(self.options),
        ]
        # If this process dies without stop() (SIGKILL, a crash), the kernel sends the server
        # SIGTERM: util-linux's setpriv sets the parent-death signal, which survives its exec.
        setpriv = shutil.which("setpriv")
        if setpriv is not None:
            args = [setpriv, "--pdeathsig", "TERM", "--", *args]
        # its own session: a Ctrl-C in the terminal reaches us, and stop() ends the server
        self._proc = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                log = self._log_tail()
                self._proc = None
                if "Address already in use" in log or "Bind on TCP/IP port" in log:
                    return False
                raise RuntimeError(f"mariadbd exited at start:\n{log}")
            try:
                self.connect_root(connect_timeout=1).close()
                return True
            except Exception:  # not accepting connections yet
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(
            f"mariadbd did not accept connections in {self.startup_timeout_s:g} s:\n"
            f"{self._log_tail()}"
        )

    def _create_recorder_user(self) -> None:
        conn = self.connect_root()
        try:
            with conn.cursor() as cur:
                for host in ("127.0.0.1", "localhost"):
                    cur.execute(
                        f"CREATE USER '{self.user}'@'{host}' IDENTIFIED BY %s", (self.password,)
                    )
                    cur.execute(
                        f"GRANT {self.recorder_privileges} ON *.* TO '{self.user}'@'{host}'"
                    )
        finally:
            conn.close()

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL after timeout_s) and remove its folder."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.folder is not None and not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)

    def _log_tail(self, chars: int = 3000) -> str:
        try:
            return self.error_log.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no error log)"

    # ------------------------------------------------------------ connections

    def connect_root(self, **kwargs: Any):
        """A pymysql connection as root through the socket, autocommit on."""
        import pymysql

        return pymysql.connect(unix_socket=str(self.socket), user="root", autocommit=True, **kwargs)

    def write_option_file(self, path: str | Path) -> Path:
        """Write a [client] option file (mode 0600) with the recorder's login; its path."""
        path = Path(path)
        text = (
            f'[client]\nuser = {self.user}\npassword = "{self.password}"\n'
            f"host = {self.host}\nport = {self.port}\n"
        )
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)  # also when the file existed with a wider mode
        with os.fdopen(fd, "w") as f:
            f.write(text)
        return path


# ---------------------------------------------------------------- workload


@dataclass(frozen=True)
class WorkloadResult:
    """What `run_workload` did: statements, wall time (s), worst lag behind a pace (s)."""

    statements: int
    seconds: float
    max_lag_s: float = 0.0


def _check_local(conn) -> None:
    host = getattr(conn, "host", None)
    if host not in _LOCAL_HOSTS:
        raise ValueError(f"the scripted workload runs only against this machine, not {host!r}")


def prepare_table(
    connect: Callable[[], Any],
    *,
    rows: int = 20_000,
    database: str = "flushsim_wl",
    batch: int = 1_000,
) -> None:
    """Create `database`.t (id, k, 200-byte pad; about 60 rows per 16 KiB page) and fill it.

    Idempotent: rows are inserted only into an empty table.
    """
    conn = connect()
    try:
        _check_local(conn)
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE IF NOT EXISTS `{database}`")
            cur.execute(
                f"CREATE TABLE IF NOT EXISTS `{database}`.t (id INT PRIMARY KEY, k INT NOT NULL,"
                " pad CHAR(200) NOT NULL) ENGINE=InnoDB"
            )
            # one row, not COUNT(*): a recording that starts with the workload sees no scan
            cur.execute(f"SELECT 1 FROM `{database}`.t LIMIT 1")
            if cur.fetchone() is not None:
                return
            for start in range(1, rows + 1, batch):
                ids = range(start, min(start + batch, rows + 1))
                values = ",".join(f"({i},0,REPEAT('x',200))" for i in ids)
                cur.execute(f"INSERT INTO `{database}`.t VALUES {values}")
    finally:
        conn.close()


WORKLOAD_KINDS = ("update-hotset", "read-write", "idle")


def run_workload(
    connect: Callable[[], Any],
    seconds: float,
    threads: int = 2,
    kind: str = "update-hotset",
    *,
    rows: int = 20_000,
    hot_rows: int = 2_000,
    database: str = "flushsim_wl",
    seed: int = 0,
    stop: threading.Event | None = None,
    rate: float | None = None,
    catch_up_s: float = 1.0,
    write_pct: float = 100.0,
) -> WorkloadResult:
    """Drive the server for `seconds` (s) with `threads` connections; blocks until done.

    Args:
        connect: returns a new DB-API connection (e.g. PrivateMariaDB.connect_root); it must
            be to this machine.
        seconds: wall time to run (s).
        threads: concurrent connections.
        kind: "update-hotset" (autocommit UPDATE of one random row of a fixed hot set, spread
            over the whole table, per statement), "read-write" (one autocommit statement on a
            row drawn uniformly from the whole table: an UPDATE with probability write_pct %,
            else a point SELECT) or "idle" (nothing: watch idle flushing).
        rows: table rows (the table is created and filled first if needed).
        hot_rows: rows in the hot set.
        database: schema of the table.
        seed: seed of the hot set and of each thread's row choice.
        stop: set it to end early.
        rate: statements per second of all threads together (open loop: thread i runs at
            rate / threads, its statements at fixed times offset by i / rate); None: each
            thread runs back to back (closed loop).
        catch_up_s: a paced thread that falls behind makes up at most this much (s).
        write_pct: "read-write": share of the statements that are UPDATEs (%, 0 to 100).

    Returns:
        Statements committed and wall time.
    """
    if kind not in WORKLOAD_KINDS:
        raise ValueError(f"unknown workload kind {kind!r}: {', '.join(WORKLOAD_KINDS)}")
    if not 0 <= write_pct <= 100:
        raise ValueError(f"write_pct={write_pct!r} must be a share from 0 to 100 (%)")
    if rate is not None and not rate > 0:
        raise ValueError(f"rate={rate!r} must be a positive number of statements per second")
    stop = stop or threading.Event()
    start = time.monotonic()
    deadline = start + seconds
    if kind == "idle":
        stop.wait(max(0.0, seconds))
        return WorkloadResult(0, time.monotonic() - start)
    prepare_table(connect, rows=rows, database=database)
    hot = random.Random(seed).sample(range(1, rows + 1), min(hot_rows, rows))
    update = f"UPDATE `{database}`.t SET k = k + 1 WHERE id = %s"
    select = f"SELECT k FROM `{database}`.t WHERE id = %s"
    counts = [0] * threads
    lags = [0.0] * threads
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        rng = random.Random(seed + 1 + i)
        due = start + i / rate if rate else 0.0
        try:
            conn = connect()
        except BaseException as exc:  # reported by the caller's thread
            errors.append(exc)
            return
        try:
            _check_local(conn)
            with conn.cursor() as cur:
                while not stop.is_set():
                    now = time.monotonic()
                    if now >= deadline:
                        break
                    if rate:
                        if due > now:
                            stop.wait(due - now)
                            continue
                        lags[i] = max(lags[i], now - due)
                        due = max(due + threads / rate, now - catch_up_s)
                    if kind == "update-hotset":
                        cur.execute(update, (rng.choice(hot),))
                    else:
                        writes = rng.random() * 100 < write_pct
                        cur.execute(update if writes else select, (rng.randint(1, rows),))
                        cur.fetchall()
                    counts[i] += 1
        except BaseException as exc:  # reported by the caller's thread
            errors.append(exc)
        finally:
            conn.close()

    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    if errors:
        raise errors[0]
    return WorkloadResult(sum(counts), time.monotonic() - start, max(lags))
