#!/usr/bin/env python3
"""A fake Google Drive (API v3) and Google OAuth 2.0 server for MiDiccio's tests.

Python 3 standard library only. Every URL starts with /t/<tenant>/; each tenant is an
empty Drive of its own, made on first use. README.md beside this file describes the
endpoints, the faults and the control API.

    fake_drive.py [--host 127.0.0.1] [--port 0] [--port-file PATH]

FAKE_DRIVE_VERBOSE=1 logs every request to stderr.
"""

import base64
import functools
import hashlib
import hmac
import html
import json
import os
import re
import secrets
import sys
import threading
import time
from datetime import datetime, timezone
from types import SimpleNamespace
from urllib.parse import parse_qsl, urlencode, urlsplit

# fake_server.py, the HTTP plumbing this fake shares with CloudKit/fake_cloudkit.py, is in
# Tests/, the folder above this one; this file runs as a script, so that goes on sys.path.
TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)
import fake_server  # noqa: E402
from fake_server import CUT, Response, json_response, now_ms  # noqa: E402

FOLDER = "application/vnd.google-apps.folder"
AUTH = "https://www.googleapis.com/auth/"
DRIVE, DRIVE_FILE, DRIVE_APPDATA, DRIVE_READONLY = (AUTH + s for s in ("drive", "drive.file", "drive.appdata", "drive.readonly"))
KNOWN_SCOPES = {DRIVE, DRIVE_FILE, DRIVE_APPDATA, DRIVE_READONLY, AUTH + "drive.metadata.readonly",
                AUTH + "userinfo.email", AUTH + "userinfo.profile", "openid", "email", "profile"}
SPACES = ("drive", "appDataFolder")
PKCE_VALUE = re.compile(r"^[A-Za-z0-9._~-]{43,128}$")
VERBOSE = os.environ.get("FAKE_DRIVE_VERBOSE") == "1"
PAGE_TOKEN_KEY = secrets.token_bytes(16)  # signs files.list page tokens, so garbled ones are caught
CODE_LIFETIME_MS = 10 * 60 * 1000

DRIVE_ENDPOINTS = ("files.list", "files.get", "files.media", "files.create", "files.update", "files.delete",
                   "upload.multipart", "upload.media", "upload.resumable.start", "upload.resumable.put",
                   "changes.list", "changes.startPageToken", "unknown")
OAUTH_ENDPOINTS = ("oauth.authorize", "oauth.token", "oauth.revoke")


def rfc3339(ms):
    return datetime.fromtimestamp(ms // 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (ms % 1000)


RFC3339 = re.compile(r"^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?([Zz]|[+-]\d\d:\d\d)$")


def parse_rfc3339(text):
    """Milliseconds since the epoch, or None when text is not an RFC 3339 time."""
    m = RFC3339.match(text) if isinstance(text, str) else None
    if not m:
        return None
    try:
        moment = datetime(*map(int, m.groups()[:6]), tzinfo=timezone.utc)
    except ValueError:
        return None
    ms = int(moment.timestamp()) * 1000 + int((m.group(7) or "0")[:3].ljust(3, "0"))
    zone = m.group(8)
    if zone.upper() != "Z":
        offset = (int(zone[1:3]) * 60 + int(zone[4:6])) * 60000
        ms -= offset if zone[0] == "+" else -offset
    return ms


def new_id():
    return "1" + secrets.token_urlsafe(24)


# --- Answers -------------------------------------------------------------------------

STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                405: "METHOD_NOT_ALLOWED", 409: "ABORTED", 412: "FAILED_PRECONDITION", 416: "OUT_OF_RANGE",
                429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 501: "NOT_IMPLEMENTED", 502: "UNAVAILABLE",
                503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}


class ApiError(Exception):
    """A Drive API error, answered in Google's JSON shape."""

    def __init__(self, code, reason, message, detail=None, domain="global", location=None,
                 location_type="parameter", headers=()):
        super().__init__(message)
        self.code, self.reason, self.message, self.detail = code, reason, message, detail or message
        self.domain, self.location, self.location_type, self.headers = domain, location, location_type, list(headers)

    def response(self):
        item = {"message": self.detail, "domain": self.domain, "reason": self.reason}
        if self.location:
            item.update(location=self.location, locationType=self.location_type)
        body = {"error": {"code": self.code, "message": self.message, "errors": [item],
                          "status": STATUS_NAMES.get(self.code, "UNKNOWN")}}
        return json_response(self.code, body, self.headers)


def invalid_value(location, why=None):
    # Google says only "Invalid Value"; the fake tells why in a header, for whoever debugs a client.
    return ApiError(400, "invalid", "Invalid Value", location=location,
                    headers=[("X-Fake-Drive-Detail", why)] if why else ())


def bad_request(message):
    return ApiError(400, "badRequest", message)


def not_found(file_id):
    return ApiError(404, "notFound", "File not found: %s." % file_id, location="fileId")


def unauthenticated():
    return ApiError(401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access "
                    "token, login cookie or other valid authentication credential.", detail="Invalid Credentials",
                    location="Authorization", location_type="header",
                    headers=[("WWW-Authenticate", 'Bearer realm="https://accounts.google.com/", error="invalid_token"')])


def insufficient_scopes():
    return ApiError(403, "insufficientPermissions", "Request had insufficient authentication scopes.",
                    detail="Insufficient Permission")


def quota_exceeded():
    return ApiError(403, "storageQuotaExceeded", "The user's Drive storage quota has been exceeded.")


def injected_error(status, reason=None, message=None):
    """The error a fault asks for: a rate limit, or a server error."""
    defaults = {403: ("userRateLimitExceeded", "User Rate Limit Exceeded"),
                429: ("rateLimitExceeded", "Rate Limit Exceeded"),
                500: ("backendError", "Internal Error"), 502: ("backendError", "Bad Gateway"),
                503: ("backendError", "Service Unavailable"), 504: ("backendError", "Deadline Exceeded")}
    default_reason, default_message = defaults.get(status, ("backendError", "Backend Error"))
    reason = reason or default_reason
    if message is None:
        message = {"rateLimitExceeded": "Rate Limit Exceeded", "userRateLimitExceeded": "User Rate Limit Exceeded",
                   "storageQuotaExceeded": "The user's Drive storage quota has been exceeded."}.get(reason, default_message)
    domain = "usageLimits" if reason in ("rateLimitExceeded", "userRateLimitExceeded") else "global"
    return ApiError(status, reason, message, domain=domain, headers=[("Retry-After", "0")] if status == 429 else ())


# --- Partial responses (the fields parameter) ----------------------------------------

FILE_FIELDS = dict.fromkeys(("kind", "id", "name", "mimeType", "parents", "createdTime", "modifiedTime", "size",
                             "md5Checksum", "version", "trashed", "spaces", "headRevisionId"))
FILE_LIST_FIELDS = {"kind": None, "incompleteSearch": None, "nextPageToken": None, "files": FILE_FIELDS}
CHANGE_FIELDS = {"kind": None, "changeType": None, "time": None, "removed": None, "fileId": None, "file": FILE_FIELDS}
CHANGE_LIST_FIELDS = {"kind": None, "nextPageToken": None, "newStartPageToken": None, "changes": CHANGE_FIELDS}
START_TOKEN_FIELDS = {"kind": None, "startPageToken": None}

FILE_DEFAULT = "kind,id,name,mimeType"
FILE_LIST_DEFAULT = "kind,incompleteSearch,nextPageToken,files(kind,id,name,mimeType)"
CHANGE_LIST_DEFAULT = "kind,nextPageToken,newStartPageToken,changes(kind,changeType,time,removed,fileId,file(kind,id,name,mimeType))"


class FieldMask:
    """A parsed, checked field mask: 'a,b(c,d),e/f,*'. A tree maps a name to None
    (the whole field) or to the tree of its sub-fields."""

    NAME = re.compile(r"\s*(\*|[A-Za-z_][A-Za-z0-9_]*)\s*")

    def __init__(self, text, schema, default):
        self.text = text if text and text.strip() else default
        self.pos = 0
        self.tree = self._list()
        if self.pos != len(self.text):
            self._fail(self.text[self.pos:])
        self._check(self.tree, schema, "")

    def apply(self, obj):
        return self._select(self.tree, obj)

    def _fail(self, what):
        raise ApiError(400, "invalidParameter", "Invalid field selection %s" % what.strip(), location="fields")

    def _peek(self, char):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1
        return self.text.startswith(char, self.pos)

    def _name(self):
        m = self.NAME.match(self.text, self.pos)
        if not m:
            self._fail(self.text[self.pos:] or self.text)
        self.pos = m.end()
        return m.group(1)

    def _list(self):
        tree = {}
        while True:
            path = [self._name()]
            while self._peek("/"):
                self.pos += 1
                path.append(self._name())
            sub = None
            if self._peek("("):
                self.pos += 1
                sub = self._list()
                if not self._peek(")"):
                    self._fail(self.text[self.pos:] or self.text)
                self.pos += 1
            for name in reversed(path[1:]):
                sub = {name: sub}
            self._merge(tree, path[0], sub)
            if not self._peek(","):
                return tree
            self.pos += 1

    def _merge(self, tree, name, sub):
        if name in tree and tree[name] is None:
            return
        if sub is None:
            tree[name] = None
            return
        target = tree.setdefault(name, {})
        for key, value in sub.items():
            self._merge(target, key, value)

    def _check(self, tree, schema, prefix):
        for name, sub in tree.items():
            if name == "*" and sub is None:
                continue
            if name not in schema or (sub is not None and schema[name] is None):
                self._fail(prefix + name)
            if sub is not None:
                self._check(sub, schema[name], prefix + name + "/")

    def _select(self, tree, obj):
        out = dict(obj) if "*" in tree else {}
        for name, sub in tree.items():
            if name == "*" or name not in obj:
                continue
            value = obj[name]
            if sub is not None and isinstance(value, list):
                value = [self._select(sub, item) for item in value]
            elif sub is not None and isinstance(value, dict):
                value = self._select(sub, value)
            out[name] = value
        return out


# --- Search queries (the q parameter) ------------------------------------------------

class Query:
    """A subset of Drive's query language: name, mimeType (= and !=), trashed (= and !=),
    'ID' in parents; joined by and / or, with parentheses. Parsed into a predicate."""

    TOKEN = re.compile(r"\s*(?:(!=|=|\(|\))|([A-Za-z_][A-Za-z0-9_]*)|(')|(\S))")

    def __init__(self, text, alias):
        self.alias = alias
        self.tokens = self._tokenize(text or "")
        self.i = 0
        self.match = self._or() if self.tokens else (lambda f: True)
        if self.i != len(self.tokens):
            self._fail("unexpected %r" % (self.tokens[self.i][1],))

    @staticmethod
    def _fail(why):
        raise invalid_value("q", "query: " + why)

    def _tokenize(self, text):
        tokens, pos = [], 0
        while True:
            m = self.TOKEN.match(text, pos)
            if not m:
                return tokens
            pos = m.end()
            if m.group(1):
                tokens.append(("op", m.group(1)))
            elif m.group(2):
                tokens.append(("word", m.group(2)))
            elif m.group(3):
                value = []
                while True:
                    if pos >= len(text):
                        self._fail("unterminated string")
                    char = text[pos]
                    pos += 1
                    if char == "'":
                        break
                    if char == "\\":
                        if pos >= len(text) or text[pos] not in "'\\":
                            self._fail("bad escape in string")
                        char = text[pos]
                        pos += 1
                    value.append(char)
                tokens.append(("str", "".join(value)))
            else:
                self._fail("unexpected %r" % m.group(4))

    def _next(self):
        if self.i >= len(self.tokens):
            self._fail("unexpected end")
        self.i += 1
        return self.tokens[self.i - 1]

    def _word(self, word):
        if self.i < len(self.tokens) and self.tokens[self.i][0] == "word" and self.tokens[self.i][1].lower() == word:
            self.i += 1
            return True
        return False

    def _or(self):
        left = self._and()
        while self._word("or"):
            left = (lambda a, b: lambda f: a(f) or b(f))(left, self._and())
        return left

    def _and(self):
        left = self._term()
        while self._word("and"):
            left = (lambda a, b: lambda f: a(f) and b(f))(left, self._term())
        return left

    def _term(self):
        kind, value = self._next()
        if (kind, value) == ("op", "("):
            inner = self._or()
            if self._next() != ("op", ")"):
                self._fail("missing )")
            return inner
        if kind == "str":
            if not (self._word("in") and self._word("parents")):
                self._fail("a string must be followed by 'in parents'")
            parent = self.alias(value)
            return lambda f: f.parent == parent
        if kind != "word" or value not in ("name", "mimeType", "trashed"):
            self._fail("unsupported term %r" % value)
        op = self._next()
        if op not in (("op", "="), ("op", "!=")):
            self._fail("unsupported operator %r after %s" % (op[1], value))
        operand = self._next()
        if value == "trashed":
            if operand[0] != "word" or operand[1].lower() not in ("true", "false"):
                self._fail("trashed takes true or false")
            wanted, get = operand[1].lower() == "true", (lambda f: f.trashed)
        else:
            if operand[0] != "str":
                self._fail("%s takes a quoted string" % value)
            wanted, get = operand[1], (lambda f: f.name) if value == "name" else (lambda f: f.mime)
        return (lambda f: get(f) == wanted) if op[1] == "=" else (lambda f: get(f) != wanted)


# --- One tenant's Drive --------------------------------------------------------------

class DriveFile:
    def __init__(self, file_id, name, mime, parent, space, created, content=None, system=False):
        self.id, self.name, self.mime, self.parent, self.space = file_id, name, mime, parent, space
        self.created = self.modified = created
        self.system = system  # the root and appDataFolder folders: never listed, never in changes
        self.trashed = self.trashed_with_parent = False
        self.version = self.change_seq = 0
        self.change_time = created
        self.lag = 0  # files.list answers still to leave this file out of (fault listLag)
        self.content = None
        if mime != FOLDER:
            self.set_content(content or b"")

    @property
    def is_folder(self):
        return self.mime == FOLDER

    def set_content(self, content):
        self.content = bytes(content)
        self.md5 = hashlib.md5(self.content).hexdigest()
        self.revision = "0B" + secrets.token_urlsafe(18)

    def resource(self):
        r = {"kind": "drive#file", "id": self.id, "name": self.name, "mimeType": self.mime}
        if self.parent:
            r["parents"] = [self.parent]
        r.update(createdTime=rfc3339(self.created), modifiedTime=rfc3339(self.modified), version=str(self.version),
                 trashed=self.trashed, spaces=[self.space])
        if not self.is_folder:
            r.update(size=str(len(self.content)), md5Checksum=self.md5, headRevisionId=self.revision)
        return r


class Tenant:
    """Files, changes, tokens, faults and counts of one tenant. Callers hold self.lock."""

    def __init__(self, name):
        self.name = name
        self.lock = threading.RLock()
        start = self.clock = now_ms()
        self.root = DriveFile(new_id(), "My Drive", FOLDER, None, "drive", start, system=True)
        self.appdata = DriveFile(new_id(), "Application Data", FOLDER, None, "appDataFolder", start, system=True)
        self.files = {self.root.id: self.root, self.appdata.id: self.appdata}
        self.seq = 0  # number of the last change
        self.removed = {}  # id of a deleted file -> (change number, time, space)
        self.codes, self.refresh_tokens, self.access_tokens, self.sessions = {}, {}, {}, {}
        self.faults = {}
        self.expiry = None  # [Drive requests left, access tokens that stop working after them]
        self.stats = dict.fromkeys(DRIVE_ENDPOINTS + OAUTH_ENDPOINTS, 0)

    # Files

    def alias(self, file_id):
        return {"root": self.root.id, "appDataFolder": self.appdata.id}.get(file_id, file_id)

    def get(self, file_id):
        f = self.files.get(self.alias(file_id))
        if f is None:
            raise not_found(file_id)
        return f

    def user_files(self):
        return [f for f in self.files.values() if not f.system]

    def touch(self, f, when=None):
        self.seq += 1
        f.change_seq = f.version = self.seq
        f.change_time = when or self.now()

    def now(self):
        """Milliseconds, never twice the same in one tenant: files made in a burst get
        distinct times, so the order by createdTime is the order they were made in."""
        self.clock = max(now_ms(), self.clock + 1)
        return self.clock

    def used_bytes(self):
        return sum(len(f.content) for f in self.user_files() if f.content is not None)

    def check_quota(self, new_size, old_size=0):
        limit = self.faults.get("quotaBytes")
        if limit is not None and self.used_bytes() - old_size + new_size > limit:
            raise quota_exceeded()

    def create(self, name, mime, parent, content=None, created=None, modified=None):
        when = self.now()
        created = when if created is None else created
        f = DriveFile(new_id(), name, mime, parent.id, parent.space, created, content)
        f.modified = modified if modified is not None else max(when, created)
        f.lag = self.faults.get("listLag", 0)
        self.files[f.id] = f
        self.touch(f, when)
        return f

    def children(self, folder):
        return [f for f in self.files.values() if f.parent == folder.id]

    def descendants(self, folder):
        found, todo = [], [folder]
        while todo:
            kids = self.children(todo.pop())
            found += kids
            todo += [k for k in kids if k.is_folder]
        return found

    def set_trashed(self, f, trashed):
        """Trashes or restores f (the caller touches f) and what it holds (touched here)."""
        f.trashed, f.trashed_with_parent = trashed, False
        for d in self.descendants(f):
            if trashed and not d.trashed:
                d.trashed = d.trashed_with_parent = True
                self.touch(d)
            elif not trashed and d.trashed_with_parent:
                d.trashed = d.trashed_with_parent = False
                self.touch(d)

    def delete(self, f):
        when = self.now()
        for gone in [f] + self.descendants(f):
            del self.files[gone.id]
            self.seq += 1
            self.removed[gone.id] = (self.seq, when, gone.space)

    # Tokens

    def issue_access_token(self, refresh):
        lifetime = self.faults.get("accessTokenLifetime", 3599)
        token = SimpleNamespace(value="ya29." + secrets.token_urlsafe(32), refresh=refresh, scopes=refresh.scopes,
                                expires_at=time.time() + lifetime, lifetime=lifetime, dead=False)
        self.access_tokens[token.value] = token
        return token

    def issue_refresh_token(self, client_id, scope):
        token = SimpleNamespace(value="1//" + secrets.token_urlsafe(32), client_id=client_id, scope=scope,
                                scopes=set(scope.split()), revoked=False)
        self.refresh_tokens[token.value] = token
        return token

    def revoke(self, refresh):
        refresh.revoked = True
        for token in self.access_tokens.values():
            if token.refresh is refresh:
                token.dead = True

    def authenticate(self, header):
        scheme, _, value = (header or "").strip().partition(" ")
        token = self.access_tokens.get(value.strip()) if scheme.lower() == "bearer" else None
        if token is None or token.dead or time.time() >= token.expires_at:
            raise unauthenticated()
        return token

    # Faults and counts

    def count(self, endpoint):
        self.stats[endpoint] = self.stats.get(endpoint, 0) + 1

    def before_drive_request(self):
        """expireAccessTokensAfter counts Drive requests down; when it runs out, the tokens
        it covers stop working."""
        if self.expiry is not None:
            if self.expiry[0] <= 0:
                for token in self.expiry[1]:
                    token.dead = True
                self.expiry = None
            else:
                self.expiry[0] -= 1

    def injected_fault(self):
        pending = self.faults.get("failNext")
        if pending:
            entry = pending.pop(0)
            if not pending:
                del self.faults["failNext"]
            raise injected_error(entry["status"], entry.get("reason"), entry.get("message"))
        limit = self.faults.get("rateLimit")
        if limit and limit["count"] > 0:
            limit["count"] -= 1
            if limit["count"] == 0:
                del self.faults["rateLimit"]
            raise injected_error(limit["status"], limit["reason"])


# --- Requests ------------------------------------------------------------------------

class Request(fake_server.Request):
    def json_body(self):
        return json_object(self.body)

    def form(self):
        try:
            return dict(parse_qsl(self.body.decode("utf-8"), keep_blank_values=True))
        except UnicodeDecodeError:
            return {}


def json_object(data):
    """A JSON object from a request body (an empty body is {}), or 400 parseError."""
    if not data.strip():
        return {}
    try:
        value = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        value = None
    if not isinstance(value, dict):
        raise ApiError(400, "parseError", "Parse Error")
    return value


def parse_multipart(content_type, body):
    """The (headers, content) parts of a multipart/related body."""
    def fail(why):
        raise bad_request("Malformed multipart body: %s." % why)

    m = re.match(r"\s*multipart/related\s*;(.*)$", content_type or "", re.I | re.S)
    b = m and re.search(r'boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))', m.group(1), re.I)
    if not b:
        fail("Content-Type must be multipart/related with a boundary")
    delimiter = b"\r\n--" + (b.group(1) or b.group(2)).encode("latin-1")
    segments = (b"\r\n" + body).split(delimiter)
    parts = []
    for segment in segments[1:]:
        if segment.startswith(b"--"):
            break
        line_end = segment.find(b"\r\n")
        if line_end < 0 or segment[:line_end].strip():
            fail("text after a boundary")
        segment = segment[line_end:]
        head, sep, content = segment.partition(b"\r\n\r\n")
        if not sep:
            fail("a part without a blank line after its headers")
        headers = {}
        for line in head.split(b"\r\n"):
            if line.strip():
                key, _, value = line.decode("latin-1").partition(":")
                headers[key.strip().lower()] = value.strip()
        parts.append((headers, content))
    else:
        fail("no closing boundary")
    if len(parts) != 2:
        fail("it needs exactly two parts, the metadata and the media, not %d" % len(parts))
    return parts


# --- The Drive API -------------------------------------------------------------------

CREATE_WRITABLE = {"name", "mimeType", "parents", "createdTime", "modifiedTime"}
UPDATE_WRITABLE = {"name", "mimeType", "trashed", "modifiedTime"}


def page_token_sign(payload):
    raw = base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")
    return raw + "." + hmac.new(PAGE_TOKEN_KEY, raw.encode(), "sha256").hexdigest()[:20]


def page_token_read(token):
    raw, _, mac = token.partition(".")
    expected = hmac.new(PAGE_TOKEN_KEY, raw.encode(), "sha256").hexdigest()[:20]
    if not hmac.compare_digest(mac.encode(), expected.encode()):
        raise invalid_value("pageToken", "garbled or foreign page token")
    return json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))


def compare_keys(a, b, descending):
    for x, y, desc in zip(a, b, descending):
        if x != y:
            return (1 if x < y else -1) if desc else (-1 if x < y else 1)
    return 0


class DriveApi:
    def __init__(self, tenant, req):
        self.t, self.req, self.p = tenant, req, req.params
        self.token = None

    def route(self, rest):
        upload = rest.startswith("/upload/")
        path = rest[len("/upload/drive/v3"):] if upload else rest[len("/drive/v3"):]
        method, m = self.req.method, re.fullmatch(r"/files(?:/([^/]+))?", path)
        if m and upload:
            kind = self.p.get("uploadType")
            if method == "PUT" and "upload_id" in self.p:
                return "upload.resumable.put", m.group(1)
            if (method == "POST" and not m.group(1)) or (method == "PATCH" and m.group(1)):
                names = {"multipart": "upload.multipart", "media": "upload.media", "resumable": "upload.resumable.start"}
                return names.get(kind, "bad.uploadType"), m.group(1)
        elif m:
            file_id = m.group(1)
            name = {("GET", False): "files.list", ("POST", False): "files.create", ("GET", True): "files.get",
                    ("PATCH", True): "files.update", ("DELETE", True): "files.delete"}.get((method, bool(file_id)))
            if name == "files.get" and self.p.get("alt") == "media":
                name = "files.media"
            if name:
                return name, file_id
        elif method == "GET" and path == "/changes":
            return "changes.list", None
        elif method == "GET" and path == "/changes/startPageToken":
            return "changes.startPageToken", None
        return "unknown", None

    def handle(self, rest):
        endpoint, file_id = self.route(rest)
        self.t.count("unknown" if endpoint == "bad.uploadType" else endpoint)
        if endpoint == "unknown":
            raise ApiError(404, "notFound", "No such method: %s %s" % (self.req.method, self.req.path))
        if endpoint == "bad.uploadType":
            raise invalid_value("uploadType", "uploadType must be media, multipart or resumable")
        self.t.before_drive_request()
        if endpoint != "upload.resumable.put":  # the session URL is itself the credential, as at Google
            self.token = self.t.authenticate(self.req.headers.get("Authorization"))
        self.t.injected_fault()
        if self.p.get("alt", "json") not in ("json", "media"):
            raise invalid_value("alt", "alt must be json or media")
        return getattr(self, endpoint.replace(".", "_"))(file_id)

    # Helpers

    def require(self, space, write=True):
        scopes = self.token.scopes
        if space == "appDataFolder":
            allowed = DRIVE_APPDATA in scopes or DRIVE in scopes
        else:
            allowed = DRIVE in scopes or DRIVE_FILE in scopes or (not write and DRIVE_READONLY in scopes)
        if not allowed:
            raise insufficient_scopes()

    def user_file(self, file_id, write=True):
        f = self.t.get(file_id)
        self.require(f.space, write)
        if write and f.system:
            raise ApiError(403, "insufficientFilePermissions", "The user does not have sufficient permissions for file %s." % file_id)
        return f

    def spaces(self):
        names = [s.strip() for s in self.p.get("spaces", "drive").split(",") if s.strip()]
        if not names or any(s not in SPACES for s in names):
            raise invalid_value("spaces", "spaces are drive and appDataFolder")
        for space in names:
            self.require(space, write=False)
        return set(names)

    def page_size(self):
        text = self.p.get("pageSize", "100")
        if not re.fullmatch(r"\d{1,9}", text) or not 1 <= int(text) <= 1000:
            raise invalid_value("pageSize", "Invalid value '%s'. Values must be within the range: [1, 1000]" % text)
        cap = self.t.faults.get("pageSizeCap")
        return min(int(text), cap) if cap else int(text)

    def answer(self, obj, schema=FILE_FIELDS, default=FILE_DEFAULT, fields=None):
        mask = FieldMask(self.p.get("fields") if fields is None else fields, schema, default)
        return json_response(200, mask.apply(obj))

    @staticmethod
    def check_writable(meta, writable):
        for key in meta:
            if key in FILE_FIELDS and key not in writable:
                raise ApiError(403, "fieldNotWritable", "The resource body includes fields which are not directly writable.",
                               location="body")
            if key not in writable:
                raise bad_request("Unknown or unsupported file field in the request body: %s" % key)
        for key in ("name", "mimeType"):
            if key in meta and not isinstance(meta[key], str):
                raise bad_request("%s must be a string." % key)
        for key in ("createdTime", "modifiedTime"):
            if key in meta and parse_rfc3339(meta[key]) is None:
                raise bad_request("%s must be an RFC 3339 date-time." % key)
        if "trashed" in meta and not isinstance(meta["trashed"], bool):
            raise bad_request("trashed must be true or false.")
        if "parents" in meta and (not isinstance(meta["parents"], list) or not all(isinstance(p, str) for p in meta["parents"])):
            raise bad_request("parents must be a list of file ids.")

    def parent_folder(self, file_id):
        parent = self.t.get(file_id)
        if not parent.is_folder:
            raise bad_request("The specified parent is not a folder.")
        self.require(parent.space)
        return parent

    def create_file(self, meta, content=None, media_type=None):
        self.check_writable(meta, CREATE_WRITABLE)
        parents = meta.get("parents") or ["root"]
        if len(parents) > 1:
            raise ApiError(403, "cannotAddParent", "Increasing the number of parents is not allowed.")
        parent = self.parent_folder(parents[0])
        mime = meta.get("mimeType") or media_type or "application/octet-stream"
        if mime == FOLDER and content:
            raise bad_request("A folder cannot have content.")
        if content is not None:
            self.t.check_quota(len(content))
        return self.t.create(meta.get("name", "Untitled"), mime, parent, content,
                             parse_rfc3339(meta.get("createdTime")), parse_rfc3339(meta.get("modifiedTime")))

    def update_file(self, f, meta, params, content=None):
        """Applies metadata, addParents/removeParents and new content, all checked first."""
        self.check_writable(meta, UPDATE_WRITABLE)
        if "mimeType" in meta and (meta["mimeType"] == FOLDER) != f.is_folder:
            raise bad_request("A file cannot become a folder, nor a folder a file.")
        if content is not None and f.is_folder:
            raise bad_request("A folder cannot have content.")
        add = [x for x in params.get("addParents", "").split(",") if x]
        remove = {self.t.alias(x) for x in params.get("removeParents", "").split(",") if x}
        parent = f.parent
        if add or remove:
            parents = [p for p in [f.parent] if p not in remove]
            for folder in [self.parent_folder(x) for x in add]:
                if folder.id not in parents:
                    parents.append(folder.id)
            if len(parents) > 1:
                raise ApiError(403, "cannotAddParent", "Increasing the number of parents is not allowed.")
            if not parents:
                raise bad_request("A file must keep one parent.")
            parent = parents[0]
            if self.t.files[parent].space != f.space:
                raise bad_request("Files cannot be moved between spaces.")
            if parent == f.id or any(d.id == parent for d in self.t.descendants(f)):
                raise bad_request("A folder cannot be moved into itself.")
        if content is not None:
            self.t.check_quota(len(content), len(f.content))
        when = self.t.now()
        f.name, f.mime = meta.get("name", f.name), meta.get("mimeType", f.mime)
        if content is not None:
            f.set_content(content)
        if "modifiedTime" in meta:
            f.modified = parse_rfc3339(meta["modifiedTime"])
        elif content is not None or parent != f.parent or set(meta) - {"trashed"}:
            f.modified = when
        f.parent = parent
        if "trashed" in meta and meta["trashed"] != f.trashed:
            self.t.set_trashed(f, meta["trashed"])
        self.t.touch(f, when)
        return f

    # Files

    def files_list(self, _=None):
        spaces = self.spaces()
        mask = FieldMask(self.p.get("fields"), FILE_LIST_FIELDS, FILE_LIST_DEFAULT)
        query = Query(self.p.get("q"), self.t.alias)
        order = []
        for item in (self.p.get("orderBy") or "createdTime").split(","):
            words = item.split()
            if not words or words[0] not in ("createdTime", "modifiedTime", "name") or words[1:] not in ([], ["desc"]):
                raise invalid_value("orderBy", "orderBy supports createdTime, modifiedTime and name, each with desc")
            order.append((words[0], len(words) == 2))
        size = self.page_size()
        descending = [desc for _, desc in order] + [False]
        attribute = {"createdTime": "created", "modifiedTime": "modified", "name": "name"}

        def key(f):
            return [getattr(f, attribute[name]) for name, _ in order] + [f.id]

        signature = hashlib.sha256(json.dumps([self.t.name, self.p.get("q", ""), sorted(spaces),
                                               self.p.get("orderBy", "")]).encode()).hexdigest()[:16]
        found = sorted((f for f in self.t.user_files() if f.space in spaces and query.match(f)),
                       key=functools.cmp_to_key(lambda a, b: compare_keys(key(a), key(b), descending)))
        if self.p.get("pageToken"):
            token = page_token_read(self.p["pageToken"])
            if token.get("s") != signature:
                raise invalid_value("pageToken", "this page token belongs to another query")
            found = [f for f in found if compare_keys(key(f), token["k"], descending) > 0]
        page, more = [], False
        for f in found:
            if len(page) == size:
                more = True
                break
            if f.lag > 0:  # listLag: this answer leaves the file out
                f.lag -= 1
                continue
            page.append(f)
        body = {"kind": "drive#fileList", "incompleteSearch": False, "files": [f.resource() for f in page]}
        if more:
            body["nextPageToken"] = page_token_sign({"s": signature, "k": key(page[-1])})
        return json_response(200, mask.apply(body))

    def files_get(self, file_id):
        return self.answer(self.user_file(file_id, write=False).resource())

    def files_media(self, file_id):
        f = self.user_file(file_id, write=False)
        if f.is_folder:
            raise ApiError(403, "fileNotDownloadable", "Only files with binary content can be downloaded.", location="alt")
        data, size = f.content, len(f.content)
        m = re.fullmatch(r"\s*bytes=(\d*)-(\d*)\s*", self.req.headers.get("Range") or "")
        if m and (m.group(1) or m.group(2)):
            if m.group(1):
                start, end = int(m.group(1)), min(int(m.group(2)) if m.group(2) else size - 1, size - 1)
            else:
                start, end = max(0, size - int(m.group(2))), size - 1
            if start > end:
                return Response(416, headers=[("Content-Range", "bytes */%d" % size)])
            return Response(206, data[start:end + 1], f.mime, [("Content-Range", "bytes %d-%d/%d" % (start, end, size))])
        return Response(200, data, f.mime)

    def files_create(self, _=None):
        meta = self.req.json_body()
        FieldMask(self.p.get("fields"), FILE_FIELDS, FILE_DEFAULT)  # a bad mask fails before anything changes
        return self.answer(self.create_file(meta).resource())

    def files_update(self, file_id):
        f = self.user_file(file_id)
        meta = self.req.json_body()
        FieldMask(self.p.get("fields"), FILE_FIELDS, FILE_DEFAULT)
        return self.answer(self.update_file(f, meta, self.p).resource())

    def files_delete(self, file_id):
        self.t.delete(self.user_file(file_id))
        return Response(204)

    # Uploads

    def upload_multipart(self, file_id):
        FieldMask(self.p.get("fields"), FILE_FIELDS, FILE_DEFAULT)
        (meta_headers, meta_bytes), (media_headers, media) = parse_multipart(self.req.headers.get("Content-Type"), self.req.body)
        meta_type = meta_headers.get("content-type", "application/json")
        if not meta_type.lower().startswith("application/json"):
            raise bad_request("The first part must be the JSON metadata, not %s." % meta_type)
        meta = json_object(meta_bytes)
        if file_id:
            f = self.update_file(self.user_file(file_id), meta, self.p, media)
        else:
            f = self.create_file(meta, media, media_headers.get("content-type"))
        return self.answer(f.resource())

    def upload_media(self, file_id):
        FieldMask(self.p.get("fields"), FILE_FIELDS, FILE_DEFAULT)
        if file_id:
            f = self.update_file(self.user_file(file_id), {}, self.p, self.req.body)
        else:
            f = self.create_file({}, self.req.body, self.req.headers.get("Content-Type"))
        return self.answer(f.resource())

    def upload_resumable_start(self, file_id):
        meta = self.req.json_body()
        FieldMask(self.p.get("fields"), FILE_FIELDS, FILE_DEFAULT)
        length = self.req.headers.get("X-Upload-Content-Length")
        if length is not None and not re.fullmatch(r"\d{1,15}", length.strip()):
            raise bad_request("X-Upload-Content-Length must be a number of bytes.")
        length = None if length is None else int(length)
        if file_id:
            f = self.user_file(file_id)
            self.check_writable(meta, UPDATE_WRITABLE)
            if f.is_folder:
                raise bad_request("A folder cannot have content.")
            old = len(f.content)
        else:
            self.check_writable(meta, CREATE_WRITABLE)
            for parent in meta.get("parents") or ["root"]:
                self.parent_folder(parent)
            old = 0
        if length is not None:
            self.t.check_quota(length, old)
        session = secrets.token_urlsafe(24)
        self.t.sessions[session] = SimpleNamespace(
            file_id=file_id and self.t.alias(file_id), meta=meta, params=dict(self.p), total=length,
            media_type=self.req.headers.get("X-Upload-Content-Type"), data=bytearray(), done=None, token=self.token)
        location = "%s/upload/drive/v3/files%s?uploadType=resumable&upload_id=%s" % (
            self.req.base, "/" + file_id if file_id else "", session)
        return Response(200, headers=[("Location", location), ("X-GUploader-UploadID", session)])

    def upload_resumable_put(self, file_id):
        s = self.t.sessions.get(self.p["upload_id"])
        if s is None or (file_id and self.t.alias(file_id) != s.file_id):
            raise ApiError(404, "notFound", "Upload session not found: %s." % self.p["upload_id"])
        fields = self.p.get("fields") or s.params.get("fields")
        if s.done:
            return self.answer(self.t.get(s.done).resource(), fields=fields)
        body, header = self.req.body, self.req.headers.get("Content-Range")
        if header is None:
            start, total = (0, len(body)) if body else (None, None)
        else:
            m = re.fullmatch(r"\s*bytes\s+(?:(\d+)-(\d+)|\*)/(\d+|\*)\s*", header)
            if not m:
                raise bad_request("Invalid Content-Range header: %s" % header)
            total = None if m.group(3) == "*" else int(m.group(3))
            start = None if m.group(1) is None else int(m.group(1))
            if start is None and body:
                raise bad_request("Content-Range bytes */N takes no body.")
            if start is not None and (int(m.group(2)) < start or len(body) != int(m.group(2)) - start + 1):
                raise bad_request("The body has %d bytes; Content-Range %s says otherwise." % (len(body), header))
        if total is not None:
            if s.total is not None and total != s.total:
                raise bad_request("The upload's total size was %d bytes, not %d." % (s.total, total))
            if total < len(s.data):
                raise bad_request("%d bytes were already received, more than the total of %d." % (len(s.data), total))
            s.total = total
        if start is not None:
            if start > len(s.data):
                raise bad_request("Invalid request. According to the Content-Range header, the upload offset is %d "
                                  "byte(s), which exceeds already uploaded size of %d byte(s)." % (start, len(s.data)))
            if s.total is not None and start + len(body) > s.total:
                raise bad_request("Content-Range goes past the upload's total size.")
            cut = self.t.faults.pop("cutResumableAfter", None)
            if cut is not None and body:
                body = body[:cut]
            s.data += body[len(s.data) - start:]
            if cut is not None and self.req.body:
                return CUT
        if s.total is not None and len(s.data) == s.total:
            return self.finish_upload(s, fields)
        headers = [("Range", "bytes=0-%d" % (len(s.data) - 1))] if s.data else []
        return Response(308, headers=headers, reason="Resume Incomplete")

    def finish_upload(self, s, fields):
        content, self.token = bytes(s.data), s.token
        try:
            if s.file_id:
                f = self.update_file(self.user_file(s.file_id), s.meta, s.params, content)
            else:
                f = self.create_file(s.meta, content, s.media_type)
        except ApiError:
            self.t.sessions.pop(self.p["upload_id"], None)
            raise
        s.done, s.data = f.id, bytearray()
        return self.answer(f.resource(), fields=fields)

    # Changes

    def changes_startPageToken(self, _=None):
        # Google's getStartPageToken takes no spaces: the token is one counter for the
        # whole account, which any scope may ask for (an app data token included).
        return self.answer({"kind": "drive#startPageToken", "startPageToken": str(self.t.seq + 1)},
                           START_TOKEN_FIELDS, "kind,startPageToken")

    def changes_list(self, _=None):
        token = self.p.get("pageToken")
        if not token:
            raise ApiError(400, "required", "Required parameter: pageToken", location="pageToken")
        if not re.fullmatch(r"[1-9][0-9]{0,15}", token) or int(token) > self.t.seq + 1:
            raise invalid_value("pageToken", "a changes page token is a number no greater than the start page token")
        spaces, size = self.spaces(), self.page_size()
        mask = FieldMask(self.p.get("fields"), CHANGE_LIST_FIELDS, CHANGE_LIST_DEFAULT)
        include_removed = self.p.get("includeRemoved", "true")
        if include_removed not in ("true", "false"):
            raise invalid_value("includeRemoved", "includeRemoved is true or false")
        first = int(token)
        entries = [(f.change_seq, f.change_time, f.id, f) for f in self.t.user_files()
                   if f.change_seq >= first and f.space in spaces]
        if include_removed == "true":
            entries += [(seq, when, file_id, None) for file_id, (seq, when, space) in self.t.removed.items()
                        if seq >= first and space in spaces]
        entries.sort(key=lambda e: e[0])
        changes = []
        for _, when, file_id, f in entries[:size]:
            change = {"kind": "drive#change", "changeType": "file", "time": rfc3339(when), "removed": f is None,
                      "fileId": file_id}
            if f is not None:
                change["file"] = f.resource()
            changes.append(change)
        body = {"kind": "drive#changeList", "changes": changes}
        if len(entries) > size:
            body["nextPageToken"] = str(entries[size - 1][0] + 1)
        else:
            body["newStartPageToken"] = str(self.t.seq + 1)
        return json_response(200, mask.apply(body))


# --- OAuth 2.0 -----------------------------------------------------------------------

class OAuthError(Exception):
    def __init__(self, status, error, description):
        super().__init__(description)
        self.status, self.error, self.description = status, error, description

    def response(self):
        return json_response(self.status, {"error": self.error, "error_description": self.description},
                             [("Cache-Control", "no-store")])


def html_error(error, description):
    page = ("<!DOCTYPE html><html><head><title>Error 400 (%s)</title></head><body><h1>Error 400: %s</h1>"
            "<p>%s</p></body></html>" % ((html.escape(error),) * 2 + (html.escape(description),)))
    return Response(400, page.encode(), "text/html; charset=utf-8")


def loopback(uri):
    try:
        u = urlsplit(uri or "")
        return (uri.isascii() and uri.isprintable() and " " not in uri and u.scheme == "http" and u.hostname in ("127.0.0.1", "localhost", "::1") and u.port is not None
                and not u.fragment and not u.username)
    except ValueError:
        return False


def pkce_s256(verifier):
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).decode().rstrip("=")


class OAuth:
    def __init__(self, tenant, req):
        self.t, self.req = tenant, req

    def handle(self, rest):
        method = self.req.method
        if rest == "/oauth/authorize" and method == "GET":
            self.t.count("oauth.authorize")
            return self.authorize()
        try:
            if rest == "/oauth/token" and method == "POST":
                self.t.count("oauth.token")
                return self.token()
            if rest == "/oauth/revoke" and method in ("POST", "GET"):
                self.t.count("oauth.revoke")
                return self.revoke()
            raise OAuthError(404, "not_found", "No such OAuth endpoint: %s %s" % (method, rest))
        except OAuthError as e:
            return e.response()

    def authorize(self):
        p = self.req.params
        for name in ("client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge"):
            if not p.get(name):
                return html_error("invalid_request", "Missing required parameter: %s" % name)
        if not loopback(p["redirect_uri"]):
            return html_error("invalid_request", "redirect_uri must be http://127.0.0.1:PORT/... or http://localhost:PORT/...")
        if p["response_type"] != "code":
            return html_error("unsupported_response_type", "Invalid response_type: %s" % p["response_type"])
        scopes = p["scope"].split()
        unknown = [s for s in scopes if s not in KNOWN_SCOPES]
        if unknown:
            return html_error("invalid_scope", "Some requested scopes were invalid: %s" % " ".join(unknown))
        if p.get("code_challenge_method") != "S256":
            return html_error("invalid_request", "code_challenge_method must be S256.")
        if not PKCE_VALUE.match(p["code_challenge"]):
            return html_error("invalid_request", "Invalid code_challenge.")
        if p.get("access_type", "offline") not in ("online", "offline"):
            return html_error("invalid_request", "Invalid access_type: %s" % p["access_type"])
        if any(x not in ("none", "consent", "select_account") for x in p.get("prompt", "consent").split()):
            return html_error("invalid_request", "Invalid prompt: %s" % p["prompt"])
        if self.t.faults.get("denyConsent"):
            answer = {"error": "access_denied", "state": p["state"]}
        else:
            code = "4/0A" + secrets.token_urlsafe(32)
            scope = " ".join(dict.fromkeys(scopes))
            self.t.codes[code] = SimpleNamespace(client_id=p["client_id"], redirect_uri=p["redirect_uri"], scope=scope,
                                                 challenge=p["code_challenge"], issued=now_ms(), used=False)
            answer = {"code": code, "state": p["state"], "scope": scope}
        uri = p["redirect_uri"]
        location = uri + ("&" if "?" in uri else "?") + urlencode(answer)
        return Response(302, b"", headers=[("Location", location)])

    def client(self, form):
        client_id, secret = form.get("client_id"), form.get("client_secret")
        scheme, _, value = (self.req.headers.get("Authorization") or "").partition(" ")
        if scheme.lower() == "basic":
            try:
                client_id, _, secret = base64.b64decode(value.strip()).decode("utf-8").partition(":")
            except ValueError:
                raise OAuthError(400, "invalid_request", "Malformed Basic authorization.")
        if not client_id:
            raise OAuthError(400, "invalid_request", "Missing required parameter: client_id")
        required = self.t.faults.get("clientSecret")
        if required is not None and secret != required:
            raise OAuthError(401, "invalid_client", "Unauthorized")
        return client_id

    def token(self):
        form = self.req.form()
        client_id = self.client(form)
        grant = form.get("grant_type")
        if grant == "authorization_code":
            for name in ("code", "code_verifier", "redirect_uri"):
                if not form.get(name):
                    raise OAuthError(400, "invalid_request", "Missing required parameter: %s" % name)
            code = self.t.codes.get(form["code"])
            if code is None:
                raise OAuthError(400, "invalid_grant", "Malformed auth code.")
            if code.used or now_ms() - code.issued > CODE_LIFETIME_MS or code.client_id != client_id:
                raise OAuthError(400, "invalid_grant", "Bad Request")
            if code.redirect_uri != form["redirect_uri"]:
                raise OAuthError(400, "redirect_uri_mismatch", "Bad Request")
            verifier = form["code_verifier"]
            if not PKCE_VALUE.match(verifier) or not hmac.compare_digest(pkce_s256(verifier), code.challenge):
                raise OAuthError(400, "invalid_grant", "Bad Request")
            code.used = True
            refresh = self.t.issue_refresh_token(client_id, code.scope)
            access = self.t.issue_access_token(refresh)
            return self.token_answer(access, refresh_token=refresh.value)
        if grant == "refresh_token":
            if not form.get("refresh_token"):
                raise OAuthError(400, "invalid_request", "Missing required parameter: refresh_token")
            refresh = self.t.refresh_tokens.get(form["refresh_token"])
            if refresh is None or refresh.revoked:
                raise OAuthError(400, "invalid_grant", "Token has been expired or revoked.")
            if refresh.client_id != client_id:
                raise OAuthError(401, "unauthorized_client", "Unauthorized")
            return self.token_answer(self.t.issue_access_token(refresh))
        raise OAuthError(400, "unsupported_grant_type", "Invalid grant_type: %s" % (grant or ""))

    @staticmethod
    def token_answer(access, **extra):
        body = {"access_token": access.value, "expires_in": access.lifetime, "scope": access.refresh.scope,
                "token_type": "Bearer"}
        body.update(extra)
        return json_response(200, body, [("Cache-Control", "no-store"), ("Pragma", "no-cache")])

    def revoke(self):
        value = self.req.params.get("token") or self.req.form().get("token")
        if not value:
            raise OAuthError(400, "invalid_request", "Missing required parameter: token")
        refresh = self.t.refresh_tokens.get(value)
        access = self.t.access_tokens.get(value)
        if access is not None and not access.dead:
            refresh = access.refresh
        if refresh is None or refresh.revoked:
            raise OAuthError(400, "invalid_token", "Token expired or revoked")
        self.t.revoke(refresh)
        return json_response(200, {})


# --- Control API (no authentication) -------------------------------------------------

KNOWN_FAULTS = {"pageSizeCap", "listLag", "rateLimit", "failNext", "expireAccessTokensAfter", "revokeRefreshTokens",
                "cutResumableAfter", "quotaBytes", "denyConsent", "clientSecret", "accessTokenLifetime"}


def whole(value, name, minimum=0):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise bad_request("Fault %s takes a whole number of at least %d." % (name, minimum))
    return value


class Control:
    def __init__(self, tenant, req):
        self.t, self.req = tenant, req

    def handle(self, rest):
        routes = {("POST", "/_fake/faults"): self.set_faults, ("GET", "/_fake/faults"): self.faults,
                  ("POST", "/_fake/grant"): self.grant, ("GET", "/_fake/stats"): self.stats,
                  ("POST", "/_fake/stats/reset"): self.reset_stats, ("GET", "/_fake/files"): self.files,
                  ("POST", "/_fake/create"): self.create}
        handler = routes.get((self.req.method, rest))
        if handler is None:
            raise ApiError(404, "notFound", "No such control endpoint: %s %s" % (self.req.method, rest))
        return handler()

    def faults(self):
        shown = json.loads(json.dumps(self.t.faults))
        if self.t.expiry is not None:
            shown["expireAccessTokensAfter"] = self.t.expiry[0]
        return json_response(200, {"faults": shown})

    def set_faults(self):
        changes, faults = self.req.json_body(), self.t.faults
        unknown = sorted(set(changes) - KNOWN_FAULTS)
        if unknown:
            raise bad_request("Unknown fault: %s" % ", ".join(unknown))
        for name, value in changes.items():
            if name == "revokeRefreshTokens":
                if value is True:
                    for refresh in self.t.refresh_tokens.values():
                        self.t.revoke(refresh)
            elif name == "expireAccessTokensAfter":
                self.t.expiry = None if value is None else [
                    whole(value, name), [a for a in self.t.access_tokens.values() if not a.dead]]
            elif value is None:
                faults.pop(name, None)
            elif name in ("pageSizeCap", "accessTokenLifetime"):
                faults[name] = whole(value, name, 1 if name == "pageSizeCap" else 0)
            elif name in ("listLag", "cutResumableAfter", "quotaBytes"):
                faults[name] = whole(value, name)
            elif name == "denyConsent":
                faults[name] = bool(value)
            elif name == "clientSecret":
                if not isinstance(value, str):
                    raise bad_request("Fault clientSecret takes a string.")
                faults[name] = value
            elif name == "rateLimit":
                if not isinstance(value, dict):
                    raise bad_request("Fault rateLimit takes {count, status, reason}.")
                status = whole(value.get("status", 403), "rateLimit.status", 400)
                reason = value.get("reason") or ("rateLimitExceeded" if status == 429 else "userRateLimitExceeded")
                faults[name] = {"count": whole(value.get("count", 1), "rateLimit.count"), "status": status, "reason": reason}
            elif name == "failNext":
                entries = value if isinstance(value, list) else [value]
                if not all(isinstance(e, dict) and "status" in e for e in entries):
                    raise bad_request("Fault failNext takes a list of {status[, reason, message]}.")
                for e in entries:
                    whole(e["status"], "failNext.status", 400)
                faults[name] = [dict(e) for e in entries]
        return self.faults()

    def grant(self):
        body = self.req.json_body()
        client_id, scope = body.get("client_id"), body.get("scope")
        if not isinstance(client_id, str) or not client_id or not isinstance(scope, str) or not scope.split():
            raise bad_request("grant takes {client_id, scope}.")
        unknown = [s for s in scope.split() if s not in KNOWN_SCOPES]
        if unknown:
            raise bad_request("Unknown scopes: %s" % " ".join(unknown))
        return json_response(200, {"refresh_token": self.t.issue_refresh_token(client_id, scope).value})

    def stats(self):
        drive = sum(self.t.stats[name] for name in self.t.stats if not name.startswith("oauth."))
        oauth = sum(self.t.stats[name] for name in self.t.stats if name.startswith("oauth."))
        return json_response(200, {"total": drive, "oauth": oauth, "byEndpoint": dict(self.t.stats)})

    def reset_stats(self):
        self.t.stats = dict.fromkeys(self.t.stats, 0)
        return json_response(200, {})

    def files(self):
        listed = []
        for f in sorted(self.t.user_files(), key=lambda f: (f.created, f.id)):
            entry = f.resource()
            if not f.is_folder:
                entry["content_base64"] = base64.b64encode(f.content).decode()
            listed.append(entry)
        return json_response(200, {"rootId": self.t.root.id, "appDataFolderId": self.t.appdata.id, "files": listed})

    def create(self):
        body = self.req.json_body()
        name, mime = body.get("name"), body.get("mimeType") or "application/octet-stream"
        parents, created, encoded = body.get("parents") or ["root"], body.get("createdTime"), body.get("content_base64") or ""
        if (not isinstance(name, str) or not isinstance(mime, str) or not isinstance(parents, list) or len(parents) != 1
                or not isinstance(parents[0], str) or not isinstance(encoded, str)):
            raise bad_request("create takes {name, parents: [one id], mimeType, createdTime?, content_base64?}.")
        if created is not None and parse_rfc3339(created) is None:
            raise bad_request("createdTime must be an RFC 3339 date-time.")
        try:
            content = base64.b64decode(encoded, validate=True)
        except ValueError:
            raise bad_request("content_base64 is not base64.")
        parent = self.t.get(parents[0])
        if not parent.is_folder:
            raise bad_request("The specified parent is not a folder.")
        if mime == FOLDER and content:
            raise bad_request("A folder cannot have content.")
        f = self.t.create(name, mime, parent, None if mime == FOLDER else content, parse_rfc3339(created))
        return json_response(200, f.resource())


# --- HTTP ----------------------------------------------------------------------------

class App(fake_server.App):
    error = ApiError

    def new_tenant(self, name):
        return Tenant(name)

    def no_tenant(self):
        return ApiError(404, "notFound", "Every path starts with /t/<tenant>/.").response()

    def route(self, t, rest, req):
        if rest.startswith("/_fake/"):
            return Control(t, req).handle(rest)
        if rest.startswith("/oauth/"):
            return OAuth(t, req).handle(rest)
        if rest.startswith(("/drive/v3/", "/upload/drive/v3/")):
            return DriveApi(t, req).handle(rest)
        return ApiError(404, "notFound", "Not Found: %s" % req.path).response()


class Handler(fake_server.Handler):
    server_version = "FakeDrive/1.0"
    log_name, verbose, request_class = "fake_drive", VERBOSE, Request

    def unreadable(self, why):
        return ApiError(400, "badRequest", "Unreadable request body: %s" % why).response()

    def internal_error(self):
        return ApiError(500, "backendError", "Internal Error").response()


class FakeDriveServer(fake_server.Server):
    def __init__(self, host="127.0.0.1", port=0):
        super().__init__(host, port, Handler, App())


if __name__ == "__main__":
    fake_server.main("A fake Google Drive and OAuth server for tests.", FakeDriveServer)
