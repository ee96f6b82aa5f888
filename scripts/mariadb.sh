#!/usr/bin/env bash
# Installs Debian's mariadb-server for the recorder's end-to-end test (tests/test_live_recorder.py),
# idempotent; run it (`bash scripts/mariadb.sh`) or source it.
# - nothing to do when mariadbd is already there (PATH or /usr/sbin, where Debian puts it);
# - as root with apt-get: `apt-get install mariadb-server` with a policy-rc.d that forbids
#   starting services, so no system server runs afterwards (the tests start a private one,
#   flushsim.live.server.PrivateMariaDB, with its own datadir, port and socket);
# - otherwise a warning: the end-to-end test is then skipped, the unit tests still run.
_flushsim_mariadb() {
    if command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; then
        return 0
    fi
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "warning: no mariadbd and not root with apt-get to install it:" \
            "the MariaDB end-to-end test will be skipped" >&2
        return 0
    fi
    echo "installing Debian's mariadb-server for the recorder tests (apt-get, about a minute)" >&2
    local policy=/usr/sbin/policy-rc.d ours=0
    if [ ! -e "$policy" ]; then
        # invoke-rc.d asks policy-rc.d before starting a service; 101 = "action forbidden"
        printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && ours=1
    fi
    local rc=0
    apt-get update -qq \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >/dev/null \
        || rc=$?
    [ "$ours" = 1 ] && rm -f "$policy"
    # The package's own server, if its postinst started one despite the policy: stop it by its pid.
    local pidfile=/run/mysqld/mysqld.pid
    if [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
        echo "stopping the system MariaDB that the package started (pid $(cat "$pidfile"))" >&2
        kill -TERM "$(cat "$pidfile")"
        for _ in $(seq 1 30); do
            [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null || break
            sleep 1
        done
    fi
    if [ "$rc" != 0 ]; then
        echo "warning: installing mariadb-server failed: the MariaDB end-to-end test will be" \
            "skipped" >&2
    fi
    return 0
}
_flushsim_mariadb
unset -f _flushsim_mariadb
