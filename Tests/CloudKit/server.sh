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

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# start_python_server and run_server_command
source "$here/../server-processes.sh"

start() {
    start_python_server "$here/fake_cloudkit.py" "the fake CloudKit server"
}

run_server_command "$@"
