#!/usr/bin/env bash
# The fake CloudKit Web Services server for the tests (fake_cloudkit.py beside this
# script), on 127.0.0.1, on a free port. Needs only python3.
#
#   server.sh start STATE_DIR   start (or start again, on the same port, after 'halt';
#                               the fake keeps its accounts in memory, so they start empty)
#   server.sh halt  STATE_DIR   stop the server, keep STATE_DIR and the port
#   server.sh stop  STATE_DIR   stop the server, and every server started inside
#                               STATE_DIR, and remove it
#
# start writes STATE_DIR/url (http://127.0.0.1:PORT), port and pid; the server's output
# goes to STATE_DIR/server.log (FAKE_CLOUDKIT_VERBOSE=1 logs every request there). The
# server is stopped by the process id it recorded, never by name.
set -euo pipefail

command=${1:-}
state=${2:-}
if [ -z "$command" ] || [ -z "$state" ]; then
    echo "usage: $0 start|halt|stop STATE_DIR" >&2
    exit 64
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python_bin=$(command -v python3 || echo /usr/bin/python3)

# listening, alive, stop_process and stop_all
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../server-processes.sh"

start() {
    mkdir -p "$state"
    if [ -f "$state/pid" ] && alive "$(cat "$state/pid")"; then
        return 0
    fi
    # Port 0 lets the server pick a free port and write it to port.new; after a halt,
    # it binds the port it had.
    local port=0
    if [ -f "$state/port" ]; then port=$(cat "$state/port"); fi
    rm -f "$state/port.new"
    nohup "$python_bin" "$here/fake_cloudkit.py" --port "$port" --port-file "$state/port.new" \
        >> "$state/server.log" 2>&1 < /dev/null &
    local pid=$!
    echo "$pid" > "$state/pid"
    for _ in $(seq 1 250); do
        if ! alive "$pid"; then break; fi
        if [ -s "$state/port.new" ]; then
            port=$(cat "$state/port.new")
            if listening "$port"; then
                mv "$state/port.new" "$state/port"
                echo "http://127.0.0.1:$port" > "$state/url"
                return 0
            fi
        fi
        sleep 0.02
    done
    stop_process
    echo "could not start the fake CloudKit server; see $state/server.log:" >&2
    cat "$state/server.log" >&2 2>/dev/null || true
    exit 1
}

case "$command" in
    start) start ;;
    halt) stop_process ;;
    stop) stop_all ;;
    *) echo "usage: $0 start|halt|stop STATE_DIR" >&2; exit 64 ;;
esac
