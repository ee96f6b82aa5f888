"""Where the recorder connects and as whom: `Login`, the option file and the password.

The password is looked up in this order: `Login.password` (Python only), `MYSQL_PWD` (which
any process of the same user can read in /proc/PID/environ: prefer the prompt or an option
file), the option file's [client] section, a prompt when stdin is a terminal. It is kept inside
the function that opens connections and never formatted into a message or a file.
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Login", "opener", "read_option_file", "resolve_password"]

_OPTION_SECTIONS = frozenset({"client", "client-server", "client-mariadb"})
_CONNECT_TIMEOUT_S = 5
_READ_TIMEOUT_S = 10


@dataclass(frozen=True)
class Login:
    """A server to record and the login to use.

    Attributes:
        host: server address (ignored when `socket` is given).
        port: TCP port.
        user: login; None takes `user` from the option file, else the client's default.
        password: the password (Python only); None looks it up (see the module docstring).
        socket: Unix socket path, instead of host and port.
        option_file: a my.cnf-style file whose [client] section holds user / password;
            None reads ~/.my.cnf when it exists.
    """

    host: str = "127.0.0.1"
    port: int = 3306
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    socket: str | None = None
    option_file: str | Path | None = None


class _Secret:
    """A password that does not show itself in repr, str, logs or pickles."""

    __slots__ = ("_value",)

    def __init__(self, value: str | None):
        self._value = value

    def reveal(self) -> str | None:
        """The password itself, for the connect call only."""
        return self._value

    def __repr__(self) -> str:
        return "<password hidden>"

    __str__ = __repr__

    def __reduce__(self):
        raise TypeError("a password is not pickled")


def read_option_file(path: str | Path) -> dict[str, str]:
    """The [client] (and [client-server], [client-mariadb]) options of a my.cnf-style file.

    Minimal parser: `key = value` lines, quoted values, # and ; comments; `!include` lines are
    not followed. Keys are lower case with `-` for `_`.
    """
    out: dict[str, str] = {}
    section = None
    for raw in Path(path).read_text(errors="replace").splitlines():
        line = raw.strip()
        if not line or line[0] in "#;!":
            continue
        if line.startswith("["):
            section = line[1 : line.find("]")].strip().lower()
            continue
        if section not in _OPTION_SECTIONS:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        else:
            value = value.split("#", 1)[0].strip()  # an unquoted # starts a comment
        out[key.strip().lower().replace("_", "-")] = value
    return out


def resolve_password(
    password: str | None = None,
    option_file: str | Path | None = None,
    *,
    prompt: str = "Password: ",
) -> str | None:
    """The password: the argument, else MYSQL_PWD, else the option file, else a prompt.

    The option file is `option_file` or, if that is None, ~/.my.cnf when it exists. The prompt
    is shown only when stdin is a terminal; otherwise the result is None (no password).

    Raises:
        FileNotFoundError: `option_file` was given and does not exist.
    """
    if password is not None:
        return password
    if "MYSQL_PWD" in os.environ:
        return os.environ["MYSQL_PWD"]
    return _password_from(_options(option_file), prompt)


def _password_from(options: Mapping[str, str], prompt: str) -> str | None:
    """The option file's password, else a prompt on a terminal, else None."""
    if "password" in options:
        return options["password"]
    if sys.stdin is not None and sys.stdin.isatty():
        return getpass.getpass(prompt)
    return None


def _options(option_file: str | Path | None) -> dict[str, str]:
    if option_file is not None:
        path = Path(option_file).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"option file not found: {path}")
        return read_option_file(path)
    default = Path("~/.my.cnf").expanduser()
    return read_option_file(default) if default.is_file() else {}


def opener(login: Login, connect: Callable[..., Any]):
    """A function that opens a connection with `connect`, and where it connects, in words.

    The password stays inside the returned function: nothing else holds it.
    """
    options = _options(login.option_file)
    user = login.user if login.user is not None else options.get("user")
    where = login.socket or f"{login.host}:{login.port}"
    password = login.password
    if password is None:
        password = os.environ.get("MYSQL_PWD")
    if password is None:
        password = _password_from(options, f"Password for {user or ''}@{where}: ")
    secret = _Secret(password)
    kwargs: dict[str, Any] = {
        "user": user,
        "connect_timeout": _CONNECT_TIMEOUT_S,
        "read_timeout": _READ_TIMEOUT_S,
        "autocommit": True,
    }
    kwargs.update(
        {"unix_socket": login.socket}
        if login.socket
        else {"host": login.host, "port": int(login.port)}
    )

    def open_connection():
        return connect(password=secret.reveal() or "", **kwargs)

    return open_connection, where
