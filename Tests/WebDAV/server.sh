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

# listening, alive, stop_process, make_test_user, start_configured_server and run_server_command
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../server-processes.sh"

write_config() {
    local port=$1
    mkdir -p "$state/root" "$state/upload"
    make_test_user '%s:%s\n'
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
    start_configured_server lighttpd "$lighttpd_bin" -D -f "$state/lighttpd.conf"
}

run_server_command "$@"
