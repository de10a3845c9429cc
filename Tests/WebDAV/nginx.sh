#!/usr/bin/env bash
# A throwaway nginx WebDAV server for the tests, as people commonly set one up: nginx's
# own dav module (PUT, DELETE, MKCOL, COPY, MOVE) with the dav-ext module for PROPFIND,
# basic authentication, and no create_full_put_path, so a PUT into a missing folder is
# answered 500 (round 20B #2). On 127.0.0.1, on a free port, serving a folder inside
# STATE_DIR.
#
#   nginx.sh start STATE_DIR   start (or start again, on the same port, after 'halt')
#   nginx.sh halt  STATE_DIR   stop the server, keep its files and port
#   nginx.sh stop  STATE_DIR   stop the server and remove STATE_DIR
#
# start writes STATE_DIR/url, user, password, port and pid. A STATE_DIR/no-propfind present
# before the first start leaves the dav-ext module out: nginx then answers PROPFIND with
# 405, as a server with only nginx's own module does. Stopped by the process id it
# recorded, never by name.
set -euo pipefail

nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
dav_ext=/usr/lib/nginx/modules/ngx_http_dav_ext_module.so

# listening, alive, stop_process, make_test_user, start_configured_server and run_server_command
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../server-processes.sh"

write_config() {
    local port=$1 load="" listing=""
    mkdir -p "$state/root" "$state/body"
    make_test_user '%s:{PLAIN}%s\n'
    if [ ! -f "$state/no-propfind" ]; then
        load="load_module $dav_ext;"
        listing="dav_ext_methods PROPFIND OPTIONS;"
    fi
    # Run as root (the tests' machines), nginx's workers would be "nobody", who cannot
    # enter the test's private folder: they run as the user who started it.
    local user=""
    if [ "$(id -u)" = "0" ]; then user="user root;"; fi
    cat > "$state/nginx.conf" <<CONF
$load
$user
daemon off;
worker_processes 1;
pid $state/nginx.pid;
error_log $state/error.log;
events { worker_connections 64; }
http {
    access_log $state/access.log;
    client_body_temp_path $state/body;
    client_max_body_size 64m;
    server {
        listen 127.0.0.1:$port;
        root $state/root;
        location / {
            auth_basic "midiccio-test";
            auth_basic_user_file $state/users;
            dav_methods PUT DELETE MKCOL COPY MOVE;
            $listing
            dav_access user:rw group:rw all:r;
        }
    }
}
CONF
    echo "$port" > "$state/port"
    echo "http://127.0.0.1:$port" > "$state/url"
}

start() {
    if [ ! -x "$nginx_bin" ] || [ ! -f "$dav_ext" ]; then
        echo "nginx with its dav-ext module is not installed (apt-get install nginx libnginx-mod-http-dav-ext)" >&2
        exit 1
    fi
    start_configured_server nginx "$nginx_bin" -e "$state/error.log" -c "$state/nginx.conf"
}

run_server_command "$@"
