"""The HTTP plumbing the fake servers for MiDiccio's tests share (GoogleDrive/fake_drive.py,
CloudKit/fake_cloudkit.py): answers, requests, routing to a tenant, the request handler
and starting a server from the command line.

Python 3 standard library only. Each fake is run as a script from its own folder and
puts this one (Tests/) on sys.path to import this module.
"""

import argparse
import json
import os
import re
import signal
import socket
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

TENANT_PATH = re.compile(r"^/t/([A-Za-z0-9_-]{1,64})(/.*)?$")


def now_ms():
    return int(time.time() * 1000)


# --- Answers -------------------------------------------------------------------------

class Response:
    def __init__(self, status, body=b"", content_type=None, headers=(), reason=None):
        self.status, self.body, self.content_type = status, body, content_type
        self.headers, self.reason = list(headers), reason
        self.cut_after = None  # bytes of body sent before the connection is closed; None: all


CUT = object()  # the handler's answer for "close the connection without answering"


def json_response(status, obj, headers=(), indent=2):
    return Response(status, json.dumps(obj, indent=indent).encode(), "application/json; charset=UTF-8", headers)


# --- Requests ------------------------------------------------------------------------

class Request:
    def __init__(self, method, target, headers, body, host):
        split = urlsplit(target)
        self.method, self.path, self.headers, self.body, self.host = method, unquote(split.path), headers, body, host
        self.params = {}
        # parse_qsl turns '+' into a space, as a form decoder does: a token sent with its
        # '+' not encoded as %2B no longer matches.
        for key, value in parse_qsl(split.query, keep_blank_values=True):
            self.params.setdefault(key, value)
        self.base = None  # http://host/t/<tenant>, set by the router


# --- HTTP ----------------------------------------------------------------------------

class App:
    """The tenants, each made on first use, and the routing of a request to one.

    A fake subclasses it with new_tenant (a tenant named name), error (the exception
    its API answers with), no_tenant (the answer to a path outside /t/<tenant>/) and
    route (the answer to a request for tenant t, rest being the path after
    /t/<tenant>). route runs holding the tenant's lock; an error it raises is answered
    with its response().
    """

    error = Exception

    def __init__(self):
        self.tenants, self.lock = {}, threading.Lock()

    def tenant(self, name):
        with self.lock:
            if name not in self.tenants:
                self.tenants[name] = self.new_tenant(name)
            return self.tenants[name]

    def handle(self, req):
        m = TENANT_PATH.match(req.path)
        if not m:
            return self.no_tenant()
        t, rest = self.tenant(m.group(1)), m.group(2) or "/"
        req.base = "http://%s/t/%s" % (req.host, t.name)
        with t.lock:
            try:
                return self.route(t, rest, req)
            except self.error as e:
                return e.response()


class Handler(BaseHTTPRequestHandler):
    """Reads a request, hands it to the server's App, and sends its answer back.

    A fake subclasses it with server_version, log_name, verbose, request_class,
    unreadable (the answer to a body that cannot be read, why being the reason) and
    internal_error (the answer when the App fails).
    """

    protocol_version = "HTTP/1.1"
    log_name = "fake_server"
    verbose = False
    request_class = Request

    def version_string(self):
        return self.server_version

    def setup(self):
        super().setup()
        # Headers and body go out in two writes; without this, Nagle's algorithm holds the
        # body back until the client's delayed ACK, 40 ms a request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                line = self.rfile.readline(1024).split(b";")[0].strip()
                if not re.fullmatch(rb"[0-9A-Fa-f]{1,8}", line):
                    raise ValueError("bad chunk size")
                size = int(line, 16)
                if size == 0:
                    break
                chunk = self.rfile.read(size)
                if len(chunk) != size or self.rfile.readline(1024).strip():
                    raise ValueError("truncated chunk")
                chunks.append(chunk)
            while self.rfile.readline(65536).strip():
                pass  # trailers
            return b"".join(chunks)
        length = self.headers.get("Content-Length")
        if length is None:
            return b""
        if not length.strip().isdigit():
            raise ValueError("bad Content-Length")
        body = self.rfile.read(int(length))
        if len(body) != int(length):
            raise ValueError("truncated body")
        return body

    def dispatch(self):
        try:
            body = self.read_body()
        except (ValueError, OSError) as e:
            self.close_connection = True
            self.send(self.unreadable(e))
            return
        host = self.headers.get("Host") or "%s:%d" % self.server.server_address[:2]
        try:
            answer = self.server.app.handle(self.request_class(self.command, self.path, self.headers, body, host))
        except Exception:
            traceback.print_exc()
            answer = self.internal_error()
        if answer is CUT:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self.send(answer)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = dispatch

    def send(self, answer):
        try:
            self.send_response(answer.status, answer.reason)
            for name, value in answer.headers:
                # Some values echo the client's input: keep them on one line, in Latin-1.
                value = re.sub(r"[\r\n]+", " ", str(value)).encode("latin-1", "replace").decode("latin-1")
                self.send_header(name, value)
            if answer.content_type:
                self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            if answer.cut_after is not None:
                # A line that drops mid-answer: the headers and part of the body, then closed.
                self.wfile.write(answer.body[:answer.cut_after])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(answer.body)
        except OSError:
            self.close_connection = True

    def log_message(self, fmt, *args):
        if self.verbose:
            sys.stderr.write("%s %s %s\n" % (self.log_name, self.address_string(), fmt % args))


class Server(ThreadingHTTPServer):
    """A fake on host:port (port 0 picks a free one), its requests handled by handler
    and answered by app."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, host, port, handler, app):
        super().__init__((host, port), handler)
        self.app = app


def main(description, make_server):
    """Runs a fake from the command line, [--host 127.0.0.1] [--port 0] [--port-file PATH],
    until SIGTERM or ^C; make_server(host, port) makes the server."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 (the default) picks a free port")
    parser.add_argument("--port-file", help="write the port here once listening")
    args = parser.parse_args()
    server = make_server(args.host, args.port)
    if args.port_file:
        temporary = args.port_file + ".tmp"
        with open(temporary, "w") as out:
            out.write("%d\n" % server.server_address[1])
        os.replace(temporary, args.port_file)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
