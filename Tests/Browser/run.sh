#!/usr/bin/env bash
# Browser tests of the MiDiccio web app: builds midiccio, serves a throwaway library on
# a free port of 127.0.0.1, drives Debian's headless Chromium through Selenium (pytest),
# saves a screenshot per scenario under .build/screenshots/, and stops the server by the
# process id it started (never by name, so other servers are left alone).
#
#   Tests/Browser/run.sh            build, install what is missing (as root), run
#   SWIFT=... SCRATCH=... run.sh    another toolchain or build folder
#   run.sh -k search                 only some scenarios (arguments go to pytest)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
swift=${SWIFT:-swift}
scratch=${SCRATCH:-.build}

# Chromium, its driver, Selenium and pytest: installed when missing and we may.
missing=""
for package in chromium chromium-driver; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = "0" ]; then
        echo "Installing system packages:$missing"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    else
        echo "The browser tests need:$missing (sudo apt-get install$missing)" >&2
        exit 1
    fi
fi
if ! python3 -c "import selenium, pytest" 2>/dev/null; then
    echo "Installing selenium and pytest with pip"
    python3 -m pip install -q selenium pytest 2>/dev/null \
        || python3 -m pip install -q --break-system-packages selenium pytest
fi

# midiccio hands serve (and sign-in, sync) to midiccio-online beside it: build both.
"$swift" build --scratch-path "$scratch" --product midiccio
"$swift" build --scratch-path "$scratch" --product midiccio-online
binary="$("$swift" build --scratch-path "$scratch" --show-bin-path)/midiccio"

work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid"
        wait "$server_pid" 2>/dev/null || true
    fi
    # The fake Google Drive started here (by the process id server.sh recorded).
    [ -d "$work/fake-drive" ] && bash "$root/Tests/GoogleDrive/server.sh" stop "$work/fake-drive"
    [ -d "$work/fake-cloudkit" ] && bash "$root/Tests/CloudKit/server.sh" stop "$work/fake-cloudkit"
    rm -rf "$work"
}
trap cleanup EXIT

# "Sign in with Google" goes to the fake Google Drive: the one make test started
# (MIDICCIO_GDRIVE_TEST_URL), else one started here; the tests use a tenant of their own.
drive=${MIDICCIO_GDRIVE_TEST_URL:-}
if [ -z "$drive" ]; then
    bash "$root/Tests/GoogleDrive/server.sh" start "$work/fake-drive"
    drive=$(cat "$work/fake-drive/url")
fi
drive="${drive%/}/t/browser$$"

# "Sign in with Apple" goes to the fake CloudKit the same way; its API token's callback
# is a free port other than serve's, so serve answers it with its one-shot receiver.
cloudkit=${MIDICCIO_ICLOUD_TEST_URL:-}
if [ -z "$cloudkit" ]; then
    bash "$root/Tests/CloudKit/server.sh" start "$work/fake-cloudkit"
    cloudkit=$(cat "$work/fake-cloudkit/url")
fi
cloudkit="${cloudkit%/}/t/browser$$"
callback_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
callback="http://127.0.0.1:$callback_port/icloud-callback"

# Port 0: the kernel picks a free port and serve prints the address it got.
MIDICCIO_OFFLINE=1 MIDICCIO_GDRIVE_API_URL="$drive" MIDICCIO_GDRIVE_OAUTH_URL="$drive/oauth" \
MIDICCIO_ICLOUD_API_URL="$cloudkit" MIDICCIO_ICLOUD_CONTAINER=iCloud.app.midiccio.browser \
MIDICCIO_ICLOUD_CALLBACK_URL="$callback" \
    "$binary" serve --library "$work/library.sqlite" --port 0 >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
url=""
for _ in $(seq 1 100); do
    url=$(grep -o 'http://[^ ]*' "$work/serve.out" 2>/dev/null || true)
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.err" >&2; exit 1; }
    sleep 0.1
done
[ -n "$url" ] || { echo "midiccio serve did not start" >&2; cat "$work/serve.err" >&2; exit 1; }
echo "Browser tests against $url"

mkdir -p "$root/.build/screenshots"
status=0
MIDICCIO_URL="$url" MIDICCIO_BINARY="$binary" MIDICCIO_LIBRARY="$work/library.sqlite" \
MIDICCIO_SCREENSHOTS="$root/.build/screenshots" MIDICCIO_WORK="$work" MIDICCIO_GDRIVE_FAKE="$drive" \
MIDICCIO_ICLOUD_FAKE="$cloudkit" MIDICCIO_ICLOUD_CALLBACK="$callback" \
    python3 -m pytest -q -p no:cacheprovider "$root/Tests/Browser" "$@" || status=$?
# pytest's 5 means it collected no tests: a broken test folder, not a pass.
if [ "$status" = "5" ]; then
    echo "pytest found no browser tests; treating that as a failure" >&2
    exit 1
fi
exit "$status"
