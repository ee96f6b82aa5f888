"""Talk to a real MySQL 8.0 / MariaDB server: a recorder, and parsers of the server's own words.

- `config`: a my.cnf, `SHOW GLOBAL VARIABLES` output or `SHOW ENGINE INNODB STATUS` → Scenario
  (read by `mycnf`, `variables` and `innodb_status`; the engine from `versions`).
- `recorder`: sample a running server once per second into simulate()'s columns.

Nothing here is imported by `import flushsim`; a client library (pymysql, the `live` extra) is
imported only when a connection is made.
"""

from .recorder import Recording, record

__all__ = ["Recording", "record"]
