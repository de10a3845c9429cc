"""What the self-tests of the fake servers share (GoogleDrive/test_fake_drive.py,
CloudKit/test_fake_cloudkit.py): a fake served from a thread, a tenant of it reached over
one keep-alive connection, and the check of a fake's server.sh.

Python 3 standard library only. The fakes put this folder (Tests/) on sys.path when the
self-tests import them.
"""

import http.client
import json
import os
import secrets
import subprocess
import tempfile
import threading
from urllib.parse import urlsplit


def serve(server):
    """Serves server (a fake_server.Server) from a thread of its own; stop(server) ends it."""
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def stop(server):
    server.shutdown()
    server.server_close()


class Answer:
    def __init__(self, response, body):
        self.status, self.headers, self.body = response.status, response, body

    def header(self, name):
        return self.headers.getheader(name)

    @property
    def json(self):
        return json.loads(self.body)


class TenantClient:
    """A new tenant of the fake server serves, over one keep-alive connection, for test.
    Every answer is checked for a Content-Length that matches its body."""

    answer_class = Answer

    def __init__(self, test, server):
        self.test = test
        self.tenant = "t-" + secrets.token_hex(6)
        self.port = server.server_address[1]
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)

    def close(self):
        self.conn.close()

    def raw(self, method, path, body=None, headers=None):
        """A request for path in this tenant (or for path itself when it starts with /t/)."""
        if isinstance(body, str):
            body = body.encode()
        self.conn.request(method, path if path.startswith("/t/") else "/t/%s%s" % (self.tenant, path), body=body,
                          headers=headers or {})
        response = self.conn.getresponse()
        data = response.read()
        length = response.getheader("Content-Length")
        self.test.assertIsNotNone(length, "%s %s answered without Content-Length" % (method, path))
        self.test.assertEqual(int(length), len(data))
        return self.answer_class(response, data)

    def control(self, method, name, obj=None, query=""):
        return self.raw(method, "/_fake/" + name + query, None if obj is None else json.dumps(obj))

    def stats(self):
        return self.control("GET", "stats").json


def read(path):
    with open(path) as f:
        return f.read().strip()


def check_server_script(test, script):
    """script (a fake's server.sh) starts the fake, writing STATE_DIR/url, port and pid,
    and stops it by its process id, removing STATE_DIR."""
    state = os.path.join(tempfile.mkdtemp(prefix="fake-server-test."), "state")
    try:
        subprocess.run(["bash", script, "start", state], check=True, timeout=30)
        url, port, pid = (read(os.path.join(state, name)) for name in ("url", "port", "pid"))
        port, pid = int(port), int(pid)
        test.assertEqual(url, "http://127.0.0.1:%d" % port)
        split = urlsplit(url)
        conn = http.client.HTTPConnection(split.hostname, split.port, timeout=10)
        conn.request("GET", "/t/script/_fake/stats")
        test.assertEqual(conn.getresponse().status, 200)
        conn.close()
    finally:
        subprocess.run(["bash", script, "stop", state], check=True, timeout=30)
    test.assertFalse(os.path.exists(state))
    try:
        with open("/proc/%d/status" % pid) as status:
            test.assertIn("\tZ", status.read())  # exited, not yet reaped
    except FileNotFoundError:
        pass
    os.rmdir(os.path.dirname(state))
