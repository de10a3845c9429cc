# Shell functions the test servers' scripts share (Tests/WebDAV/server.sh,
# Tests/GoogleDrive/server.sh and Tests/CloudKit/server.sh source this file): is a port
# taken, is a process running, stopping a server by the process id it recorded (never by
# name), starting a fake server in Python, and the command line they all take.

# Is something accepting connections on 127.0.0.1:$1?
listening() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Is process $1 running? A process that has exited but not yet been reaped (a zombie,
# which may stay a while when its parent is init) counts as stopped.
alive() {
    kill -0 "$1" 2>/dev/null || return 1
    if [ -r "/proc/$1/status" ]; then
        ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
    fi
}

# Stops the server whose process id is in $1/pid (default: $state/pid): TERM, then KILL
# after 5 s.
stop_process() {
    local dir=${1:-$state}
    [ -f "$dir/pid" ] || return 0
    local pid
    pid=$(cat "$dir/pid")
    rm -f "$dir/pid"
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 100); do
        alive "$pid" || return 0
        sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null || true
}

# Stops every server whose pid file lies in $state or one folder below it (a test's own
# servers), then removes $state.
stop_all() {
    if [ -d "$state" ]; then
        while IFS= read -r pidfile; do
            stop_process "$(dirname "$pidfile")"
        done < <(find "$state" -maxdepth 2 -name pid -type f)
    fi
    rm -rf "$state"
}

# Makes the test user once: $state/user, $state/password (random) and $state/users, the
# server's password file, one line in the printf format $1 (user, then password), for
# lighttpd's plain file or nginx's {PLAIN} one.
make_test_user() {
    [ -f "$state/password" ] && return 0
    echo midiccio > "$state/user"
    od -An -N12 -tx1 /dev/urandom | tr -d ' \n' > "$state/password"
    # shellcheck disable=SC2059
    printf "$1" "$(cat "$state/user")" "$(cat "$state/password")" > "$state/users"
    chmod 600 "$state/users" "$state/password"
}

# Starts a server that runs in the foreground on the port its own config names: on a free
# port the first time (the caller's write_config PORT writes that config, and $state/port
# and url), on the port it had after a halt. $1 names it (its output goes to
# $state/$1.out); the rest is its command line. Writes $state/pid. (Tests/WebDAV/server.sh
# starts lighttpd so, Tests/WebDAV/nginx.sh nginx.)
start_configured_server() {
    local name=$1
    shift
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
        nohup "$@" > "$state/$name.out" 2>&1 < /dev/null &
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
    echo "could not start $name; see $state/error.log and $state/$name.out:" >&2
    cat "$state/error.log" "$state/$name.out" >&2 2>/dev/null || true
    exit 1
}

# Starts $1, a fake server in Python (Tests/GoogleDrive/fake_drive.py,
# Tests/CloudKit/fake_cloudkit.py), for $state: on a free port the first time, on the
# port it had after a halt. Writes $state/url, port and pid; the server's output goes to
# $state/server.log. $2 names the server in the message of a failed start ("the fake
# Google Drive").
start_python_server() {
    local script=$1 name=$2
    local python_bin
    python_bin=$(command -v python3 || echo /usr/bin/python3)
    mkdir -p "$state"
    if [ -f "$state/pid" ] && alive "$(cat "$state/pid")"; then
        return 0
    fi
    # Port 0 lets the server pick a free port and write it to port.new; after a halt,
    # it binds the port it had.
    local port=0
    if [ -f "$state/port" ]; then port=$(cat "$state/port"); fi
    rm -f "$state/port.new"
    nohup "$python_bin" "$script" --port "$port" --port-file "$state/port.new" \
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
    echo "could not start $name; see $state/server.log:" >&2
    cat "$state/server.log" >&2 2>/dev/null || true
    exit 1
}

# The command line of every server.sh: start|halt|stop STATE_DIR. Sets $command and
# $state, then runs the command: start is the script's own start function, halt stops
# the server (stop_process), stop stops it and those inside STATE_DIR (stop_all).
run_server_command() {
    command=${1:-}
    state=${2:-}
    if [ -z "$command" ] || [ -z "$state" ]; then
        echo "usage: $0 start|halt|stop STATE_DIR" >&2
        exit 64
    fi
    case "$command" in
        start) start ;;
        halt) stop_process ;;
        stop) stop_all ;;
        *) echo "usage: $0 start|halt|stop STATE_DIR" >&2; exit 64 ;;
    esac
}
