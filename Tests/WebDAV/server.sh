#!/usr/bin/env bash
# A throwaway WebDAV server for the tests: lighttpd with mod_webdav and basic
# authentication, on 127.0.0.1, on a free port, serving a folder inside STATE_DIR.
#
#   server.sh start STATE_DIR   start (or start again, on the same port, after 'halt')
#   server.sh halt  STATE_DIR   stop the server, keep its files and port (tests of a
#                               server that goes away in the middle of a sync)
#   server.sh stop  STATE_DIR   stop the server, and every server started inside
#                               STATE_DIR (tests start their own there), and remove it
#
# start writes STATE_DIR/url, user, password, port and pid. The server is stopped by
# the process id it recorded, never by name, so other lighttpd processes are left alone.
# A STATE_DIR/extra.conf present before the first start is included in the server's
# config: a test's own server with its own settings (a short keep-alive, say).
set -euo pipefail

lighttpd_bin=$(command -v lighttpd || echo /usr/sbin/lighttpd)

# listening, alive, stop_process and run_server_command
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../server-processes.sh"

write_config() {
    local port=$1
    mkdir -p "$state/root" "$state/upload"
    if [ ! -f "$state/password" ]; then
        echo midiccio > "$state/user"
        od -An -N12 -tx1 /dev/urandom | tr -d ' \n' > "$state/password"
        printf '%s:%s\n' "$(cat "$state/user")" "$(cat "$state/password")" > "$state/users"
        chmod 600 "$state/users" "$state/password"
    fi
    cat > "$state/lighttpd.conf" <<CONF
server.modules = ("mod_webdav", "mod_auth", "mod_authn_file")
server.document-root = "$state/root"
server.upload-dirs = ("$state/upload")
server.bind = "127.0.0.1"
server.port = $port
server.errorlog = "$state/error.log"
server.max-request-size = 1048576
webdav.activate = "enable"
webdav.is-readonly = "disable"
auth.backend = "plain"
auth.backend.plain.userfile = "$state/users"
auth.require = ("/" => ("method" => "basic", "realm" => "midiccio-test", "require" => "valid-user"))
CONF
    if [ -f "$state/extra.conf" ]; then
        echo "include \"$state/extra.conf\"" >> "$state/lighttpd.conf"
    fi
    echo "$port" > "$state/port"
    echo "http://127.0.0.1:$port" > "$state/url"
}

start() {
    mkdir -p "$state"
    if [ -f "$state/pid" ] && alive "$(cat "$state/pid")"; then
        return 0
    fi
    local attempts port
    if [ -f "$state/port" ]; then
        attempts=1
    else
        attempts=20
    fi
    for _ in $(seq 1 "$attempts"); do
        if [ -f "$state/port" ]; then
            port=$(cat "$state/port")
        else
            port=$((20000 + RANDOM % 40000))
            listening "$port" && continue
            write_config "$port"
        fi
        nohup "$lighttpd_bin" -D -f "$state/lighttpd.conf" > "$state/lighttpd.out" 2>&1 < /dev/null &
        local pid=$!
        echo "$pid" > "$state/pid"
        for _ in $(seq 1 200); do
            if ! alive "$pid"; then break; fi
            if listening "$port"; then return 0; fi
            sleep 0.02
        done
        # It died (the port was taken between the check and the bind?) or never listened.
        stop_process
        if [ "$attempts" -gt 1 ]; then rm -f "$state/port"; fi
    done
    echo "could not start lighttpd; see $state/error.log and $state/lighttpd.out:" >&2
    cat "$state/error.log" "$state/lighttpd.out" >&2 2>/dev/null || true
    exit 1
}

run_server_command "$@"
