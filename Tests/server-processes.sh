# Shell functions the test servers' scripts share (Tests/WebDAV/server.sh,
# Tests/GoogleDrive/server.sh and Tests/CloudKit/server.sh source this file): is a port
# taken, is a process running, and stopping a server by the process id it recorded,
# never by name.

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
