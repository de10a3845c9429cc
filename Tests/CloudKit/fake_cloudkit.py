#!/usr/bin/env python3
"""A fake CloudKit Web Services server (the private database of iCloud accounts) for
MiDiccio's tests.

Python 3 standard library only. Every URL starts with /t/<tenant>/; each tenant is an
iCloud account of its own, made empty on first use, with its data kept apart per
(container, environment). README.md beside this file describes the endpoints, the
faults and the control API, following the contract agreed for issue 17 with the Swift
client.

    fake_cloudkit.py [--host 127.0.0.1] [--port 0] [--port-file PATH]

FAKE_CLOUDKIT_VERBOSE=1 logs every request to stderr.

Each behaviour below is marked "Apple:" when Apple's CloudKit Web Services Reference
documents it, and "Assumption:" when the reference is silent and the fake (or the
contract) chose.
"""

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import secrets
import sys
import threading
import time
import uuid
from collections import OrderedDict
from urllib.parse import quote, urlencode

# fake_server.py, the HTTP plumbing this fake shares with GoogleDrive/fake_drive.py, is in
# Tests/, the folder above this one; this file runs as a script, so that goes on sys.path.
TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)
import fake_server  # noqa: E402
from fake_server import CUT, Response, now_ms  # noqa: E402

# Apple: [path]/database/[version]/[container]/[environment]/[database]/[operation].
DATABASE_PATH = re.compile(r"^/database/([^/]+)/([^/]+)/([^/]+)/([^/]+)/(.+)$")
API_TOKEN_FORM = re.compile(r"^[A-Za-z0-9]{8,}$")  # Assumption: the default set of accepted API tokens
ZONE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,255}$")  # Assumption
VERBOSE = os.environ.get("FAKE_CLOUDKIT_VERBOSE") == "1"
SIGNING_KEY = secrets.token_bytes(16)  # signs sync tokens and download URLs, so garbled ones are caught

DEFAULT_ZONE = "_defaultZone"  # Apple: the default zone's name
MAX_OPERATIONS = 200  # Apple (Data Size Limits): operations, records and tokens per request
MAX_RECORD_BYTES = 1_000_000  # Apple: 1 MB a record, asset fields not counted; the exact count is an assumption
UPLOAD_LIFETIME = 15 * 60  # Assumption (contract): an upload URL lasts 15 minutes
WEB_AUTH_TOKEN_HEADER = "X-Apple-CloudKit-Web-Auth-Token"  # Assumption (contract): the rotation header

# Apple (Error Codes): the HTTP status of each serverErrorCode.
STATUS_BY_CODE = {"ACCESS_DENIED": 403, "ATOMIC_ERROR": 400, "AUTHENTICATION_FAILED": 401,
                  "AUTHENTICATION_REQUIRED": 421, "BAD_REQUEST": 400, "CONFLICT": 409, "EXISTS": 409,
                  "INTERNAL_ERROR": 500, "NOT_FOUND": 404, "QUOTA_EXCEEDED": 413, "THROTTLED": 429,
                  "TRY_AGAIN_LATER": 503, "VALIDATING_REFERENCE_ERROR": 412, "ZONE_NOT_FOUND": 404}
CODE_BY_STATUS = {400: "BAD_REQUEST", 401: "AUTHENTICATION_FAILED", 403: "ACCESS_DENIED", 404: "NOT_FOUND",
                  409: "CONFLICT", 412: "VALIDATING_REFERENCE_ERROR", 413: "QUOTA_EXCEEDED",
                  421: "AUTHENTICATION_REQUIRED", 429: "THROTTLED", 500: "INTERNAL_ERROR", 503: "TRY_AGAIN_LATER"}

PRIVATE_OPERATIONS = ("zones/modify", "zones/list", "records/modify", "records/lookup", "changes/zone",
                      "records/changes", "assets/upload")
STAT_NAMES = PRIVATE_OPERATIONS + ("users/caller", "asset.put", "asset.get", "signin", "unknown")
GET_ALLOWED = {"zones/list", "users/caller"}  # Apple documents GET for these two; the fake takes POST too

# Apple (Types and Dictionaries): the field types MiDiccio uses.
FIELD_TYPES = {"STRING", "INT64", "DOUBLE", "BYTES", "TIMESTAMP", "ASSETID"}

CONFIG_DEFAULTS = {"apiTokens": None, "callbackURL": None, "rotate": False, "rotationGrace": 60,
                   "tokenLifetime": 1800, "deny": False, "quota": None, "downloadLifetime": 3600}


def sign(text):
    return hmac.new(SIGNING_KEY, text.encode(), "sha256").hexdigest()[:20]


# --- Answers -------------------------------------------------------------------------

def json_response(status, obj, headers=()):
    return fake_server.json_response(status, obj, headers, indent=1)


class CkError(Exception):
    """An error of the whole request, answered in CloudKit's shape.

    Apple: {"uuid", "serverErrorCode", "reason"}, with "redirectURL" for
    AUTHENTICATION_REQUIRED and "retryAfter" (seconds) for THROTTLED and TRY_AGAIN_LATER.
    """

    def __init__(self, code, reason, status=None, **extra):
        super().__init__(reason)
        self.code, self.reason, self.extra = code, reason, extra
        self.status = status or STATUS_BY_CODE.get(code, 400)

    def response(self):
        body = {"uuid": str(uuid.uuid4()), "serverErrorCode": self.code, "reason": self.reason}
        body.update({k: v for k, v in self.extra.items() if v is not None})
        return json_response(self.status, body)


def bad_request(reason):
    return CkError("BAD_REQUEST", reason)


class RecordError(Exception):
    """A per-record (or per-zone) error, answered inside a 200."""

    def __init__(self, code, reason):
        super().__init__(reason)
        self.code, self.reason = code, reason


# --- Data ----------------------------------------------------------------------------

class Asset:
    """Uploaded bytes. Pending (known by its receipt) until a record takes it."""

    def __init__(self, content, record_name, field_name):
        self.id = secrets.token_hex(12)
        self.content = content
        self.size = len(content)
        # Assumption: Apple's checksums and keys are opaque; these only have to be stable and distinct.
        self.checksum = base64.b64encode(hashlib.sha256(content).digest()[:20]).decode()
        self.wrapping_key = base64.b64encode(secrets.token_bytes(32)).decode()
        self.reference_checksum = base64.b64encode(hashlib.sha256(self.wrapping_key.encode()).digest()[:20]).decode()
        self.receipt = "r" + secrets.token_hex(16)
        self.record_name, self.field_name = record_name, field_name
        self.used = False

    def single_file(self):
        # Apple (Upload Asset Data): the answer to the upload is {"singleFile": {...}} with these keys.
        return {"wrappingKey": self.wrapping_key, "fileChecksum": self.checksum, "receipt": self.receipt,
                "referenceChecksum": self.reference_checksum, "size": self.size}


class Record:
    def __init__(self, name, record_type, fields, tag, created, modified):
        self.name, self.type, self.fields, self.tag = name, record_type, fields, tag
        self.created, self.modified = created, modified  # {"timestamp", "userRecordName", "deviceID"}

    def assets(self):
        """Field name -> Asset, for the asset fields."""
        return {k: v["asset"] for k, v in self.fields.items() if v["type"] == "ASSETID"}

    def field_bytes(self):
        return sum(field_size(v) for v in self.fields.values() if v["type"] != "ASSETID")

    def stored_bytes(self):
        return self.field_bytes() + sum(a.size for a in self.assets().values())


def field_size(field):
    """Assumption (contract): BYTES count decoded, strings as UTF-8, numbers as 8 bytes."""
    kind, value = field["type"], field["value"]
    if kind == "STRING":
        return len(value.encode("utf-8"))
    if kind == "BYTES":
        return len(field["decoded"])
    return 8


class Entry:
    """A record name's place in its zone's change history."""

    def __init__(self):
        self.seq = 0
        self.record = None  # None: deleted
        self.lives = []  # [born, died) change numbers; died None while the record exists

    def existed_at(self, seq):
        return any(born <= seq and (died is None or seq < died) for born, died in self.lives)


class Zone:
    def __init__(self, name):
        self.name = name
        self.uid = secrets.token_hex(8)  # a zone made again is another zone: old sync tokens fail
        self.seq = 0
        self.records = {}
        self.entries = OrderedDict()  # record name -> Entry, in the order of each name's last change

    def sync_token(self, seq=None):
        raw = "%s.%d" % (self.uid, self.seq if seq is None else seq)
        return base64.b64encode(("%s.%s" % (raw, sign(raw))).encode()).decode()

    def read_token(self, token):
        """The change number a sync token of this zone stands for, or None."""
        try:
            uid, seq, mac = base64.b64decode(token, validate=True).decode().split(".")
            seq = int(seq)
        except (ValueError, TypeError, UnicodeDecodeError, binascii.Error):
            return None
        if not hmac.compare_digest(mac, sign("%s.%d" % (uid, seq))) or uid != self.uid or not 0 <= seq <= self.seq:
            return None
        return seq

    def changes(self, since, limit):
        """(entries, new seq, more): the names changed after `since`, each once in its latest
        state, oldest change first; deletions only of records that existed at `since`."""
        newer = []
        for name in reversed(self.entries):
            entry = self.entries[name]
            if entry.seq <= since:
                break
            newer.append((name, entry))
        newer.reverse()
        picked, last = [], since
        for name, entry in newer:
            if entry.record is None and not entry.existed_at(since):
                last = entry.seq
                continue
            if len(picked) == limit:
                return picked, last, True
            picked.append((name, entry))
            last = entry.seq
        return picked, self.seq, False


class Database:
    """The private database of one (container, environment)."""

    def __init__(self):
        self.zones = {DEFAULT_ZONE: Zone(DEFAULT_ZONE)}


class Token:
    def __init__(self, value, expires_at):
        self.value, self.expires_at, self.dies_at = value, expires_at, None

    def alive(self, now):
        return now < self.expires_at and (self.dies_at is None or now < self.dies_at)


def new_web_auth_token():
    # Assumption: Apple's tokens are opaque, and contain '+', '/' and '='; these do too,
    # so a client that forgets to URL-encode them fails here as it would at Apple.
    core = base64.b64encode(secrets.token_bytes(40)).decode()
    return "%s+%s/%s" % (core[:16], core[16:32], core[32:])


class Tenant:
    """One iCloud account. Callers hold self.lock."""

    def __init__(self, name):
        self.name = name
        self.lock = threading.RLock()
        self.user = "_" + secrets.token_hex(16)  # Apple: user record names start with '_'
        self.config = dict(CONFIG_DEFAULTS)
        self.databases = {}
        self.tokens = {}
        self.uploads = {}  # upload id -> {"expires", "record", "field", "zone"}
        self.receipts = {}  # receipt -> pending Asset
        self.assets = {}  # asset id -> Asset held by a record
        self.faults = []
        self.stats = dict.fromkeys(STAT_NAMES, 0)
        self.bytes_stored = 0
        self.tag_counter = 0

    def database(self, container, environment, make=True):
        key = (container, environment)
        if key not in self.databases and make:
            self.databases[key] = Database()
        return self.databases.get(key)

    def count(self, name):
        self.stats[name] = self.stats.get(name, 0) + 1

    def new_tag(self):
        self.tag_counter += 1
        return "%s%s" % (base36(self.tag_counter), secrets.token_hex(2))

    def issue_token(self):
        if len(self.tokens) > 10000:  # rotation makes many; forget the dead ones now and then
            now = time.time()
            self.tokens = {v: t for v, t in self.tokens.items() if t.alive(now)}
        token = Token(new_web_auth_token(), time.time() + self.config["tokenLifetime"])
        self.tokens[token.value] = token
        return token

    def valid_api_token(self, value):
        allowed = self.config["apiTokens"]
        return bool(value) and (value in allowed if allowed is not None else bool(API_TOKEN_FORM.match(value)))

    def drop_zone(self, database, name):
        zone = database.zones.pop(name)
        for record in zone.records.values():
            self.release(record)

    def release(self, record, keep=()):
        """A record (or its old state) leaves the store: its bytes and assets go."""
        self.bytes_stored -= record.stored_bytes()
        for asset in record.assets().values():
            if asset not in keep:
                self.assets.pop(asset.id, None)

    def take_fault(self, op):
        """The first fault matching op, counted down; None when there is none."""
        for fault in self.faults:
            if fault["op"] in ("*", op):
                fault["times"] -= 1
                if fault["times"] <= 0:
                    self.faults.remove(fault)
                return fault
        return None


def base36(n):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


# --- Requests ------------------------------------------------------------------------

class Request(fake_server.Request):
    def json_body(self, required=True):
        if not self.body.strip():
            if required:
                raise bad_request("The request needs a JSON body.")
            return {}
        try:
            value = json.loads(self.body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise bad_request("The body is not valid JSON.")
        if not isinstance(value, dict):
            raise bad_request("The body must be a JSON object.")
        return value


def zone_name_of(body, key="zoneID"):
    """Apple: a zoneID dictionary {"zoneName", "ownerRecordName"?}; the default zone when absent."""
    zone_id = body.get(key)
    if zone_id is None:
        return DEFAULT_ZONE
    if not isinstance(zone_id, dict) or not isinstance(zone_id.get("zoneName"), str) or not zone_id["zoneName"]:
        raise bad_request("zoneID must be {\"zoneName\": ...}.")
    return zone_id["zoneName"]


def desired_keys(body, default=None):
    keys = body.get("desiredKeys", default)
    if keys is not None and (not isinstance(keys, list) or not all(isinstance(k, str) for k in keys)):
        raise bad_request("desiredKeys must be a list of field names.")
    return keys


def results_limit(body, default=MAX_OPERATIONS):
    limit = body.get("resultsLimit", default)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise bad_request("resultsLimit must be a whole number of at least 1.")
    return min(limit, MAX_OPERATIONS)  # Assumption (contract): larger limits are capped at 200


# --- The database API ----------------------------------------------------------------

class DatabaseApi:
    def __init__(self, tenant, req):
        self.t, self.req = tenant, req
        self.token = None

    def handle(self, rest):
        m = DATABASE_PATH.match(rest)
        if not m:
            self.t.count("unknown")
            raise CkError("NOT_FOUND", "No such endpoint: %s" % rest)
        version, self.container, self.environment, database, op = m.groups()
        known = op in PRIVATE_OPERATIONS or op == "users/caller"
        self.t.count(op if known else "unknown")
        if version != "1":
            raise bad_request("Unknown protocol version %s." % version)  # Apple: the version is 1
        # Apple: development or production.
        if self.environment not in ("development", "production"):
            raise bad_request("Unknown environment %s." % self.environment)
        if not known:
            raise CkError("NOT_FOUND", "No such operation: %s" % op)
        # Apple: users/caller lives in the public database; the fake serves the rest only in the private one.
        if database != ("public" if op == "users/caller" else "private"):
            raise bad_request("The fake serves %s only in the %s database." % (
                op, "public" if op == "users/caller" else "private"))
        if self.req.method != "POST" and not (self.req.method == "GET" and op in GET_ALLOWED):
            raise bad_request("%s takes POST." % op)
        self.authenticate()
        fault = self.t.take_fault(op)
        if fault is not None and not fault["cutBody"]:
            return fault_answer(fault)
        body = self.req.json_body(required=False) if self.req.method == "POST" else {}
        answer = self.rotate(getattr(self, op.replace("/", "_"))(body))
        if fault is not None:
            # The request took effect and its headers went out; half its body did.
            answer.cut_after = len(answer.body) // 2
        return answer

    def authenticate(self):
        """Apple (Accessing CloudKit Using an API Token): ckAPIToken and ckWebAuthToken in the
        query. An unknown API token: 401 AUTHENTICATION_FAILED. No valid web auth token: 421
        AUTHENTICATION_REQUIRED with a redirectURL to sign in."""
        api_token = self.req.params.get("ckAPIToken", "")
        if not self.t.valid_api_token(api_token):
            raise CkError("AUTHENTICATION_FAILED", "Unknown API token.")
        token = self.t.tokens.get(self.req.params.get("ckWebAuthToken", ""))
        if token is None or not token.alive(time.time()):
            query = urlencode({"apiToken": api_token, "container": self.container, "environment": self.environment})
            raise CkError("AUTHENTICATION_REQUIRED", "request needs authorization",
                          redirectURL="%s/_signin?%s" % (self.req.base, query))
        self.token = token

    def rotate(self, answer):
        """Assumption (contract): with rotation on, every successful answer carries a new
        web auth token in X-Apple-CloudKit-Web-Auth-Token; the old one keeps working for
        rotationGrace seconds."""
        if self.t.config["rotate"] and answer.status == 200:
            new = self.t.issue_token()
            dies = time.time() + self.t.config["rotationGrace"]
            old = self.token
            old.dies_at = dies if old.dies_at is None else min(old.dies_at, dies)
            answer.headers.append((WEB_AUTH_TOKEN_HEADER, new.value))
        return answer

    # Helpers

    def database(self):
        return self.t.database(self.container, self.environment)

    def render(self, record, keys=None):
        """Apple (Record Dictionary): a record as the API answers it."""
        fields = {}
        for name, field in record.fields.items():
            if keys is not None and name not in keys:
                continue
            if field["type"] == "ASSETID":
                asset = field["asset"]
                fields[name] = {"type": "ASSETID", "value": {
                    "fileChecksum": asset.checksum, "size": asset.size, "downloadURL": self.download_url(asset)}}
            else:
                fields[name] = {"type": field["type"], "value": field["value"]}
        return {"recordName": record.name, "recordType": record.type, "recordChangeTag": record.tag,
                "fields": fields, "created": dict(record.created), "modified": dict(record.modified), "deleted": False}

    def download_url(self, asset):
        """Apple: an asset's downloadURL holds the placeholder ${f}, which the client replaces
        with a file name. Assumption: it expires after downloadLifetime seconds."""
        expires = int(time.time() + self.t.config["downloadLifetime"])
        path = "%s/%d" % (asset.id, expires)
        return "%s/_download/%s/%s/${f}" % (self.req.base, path, sign(self.t.name + "/" + path))

    # Zones

    def zones_list(self, body):
        # Apple (zones/list): every zone of the database; _defaultZone always is one.
        zones = self.database().zones
        names = [DEFAULT_ZONE] + sorted(n for n in zones if n != DEFAULT_ZONE)
        return json_response(200, {"zones": [self.zone_dict(zones[n]) for n in names]})

    def zone_dict(self, zone):
        zone_id = {"zoneName": zone.name, "ownerRecordName": self.t.user}
        entry = {"zoneID": zone_id}
        if zone.name != DEFAULT_ZONE:
            entry.update(syncToken=zone.sync_token(), atomic=True)
        return entry

    def zones_modify(self, body):
        operations = body.get("operations")
        if not isinstance(operations, list) or not operations:
            raise bad_request("operations must be a non-empty list.")
        if len(operations) > MAX_OPERATIONS:
            raise bad_request("limit exceeded: at most %d operations a request" % MAX_OPERATIONS)
        db, results = self.database(), []
        for op in operations:
            kind = op.get("operationType") if isinstance(op, dict) else None
            zone_id = (op.get("zone") or {}).get("zoneID") if isinstance(op, dict) and isinstance(op.get("zone"), dict) else None
            name = zone_id.get("zoneName") if isinstance(zone_id, dict) else None
            shown = {"zoneName": name, "ownerRecordName": self.t.user}
            if not isinstance(name, str) or not ZONE_NAME.match(name):
                results.append({"zoneID": shown, "serverErrorCode": "BAD_REQUEST", "reason": "bad zone name"})
            elif kind == "create":
                # Apple (CloudKit behaviour, per the contract): creating an existing zone succeeds.
                if name not in db.zones:
                    db.zones[name] = Zone(name)
                results.append(self.zone_dict(db.zones[name]))
            elif kind == "delete":
                if name == DEFAULT_ZONE:
                    # Assumption: the default zone cannot be deleted.
                    results.append({"zoneID": shown, "serverErrorCode": "BAD_REQUEST",
                                    "reason": "the default zone cannot be deleted"})
                elif name not in db.zones:
                    results.append({"zoneID": shown, "serverErrorCode": "ZONE_NOT_FOUND", "reason": "zone not found"})
                else:
                    # Assumption: a deleted zone answers {"zoneID", "deleted": true}.
                    self.t.drop_zone(db, name)
                    results.append({"zoneID": shown, "deleted": True})
            else:
                results.append({"zoneID": shown, "serverErrorCode": "BAD_REQUEST",
                                 "reason": "operationType must be create or delete"})
        return json_response(200, {"zones": results})

    # Records

    def records_lookup(self, body):
        wanted = body.get("records")
        if not isinstance(wanted, list):
            raise bad_request("records must be a list.")
        if len(wanted) > MAX_OPERATIONS:
            raise bad_request("limit exceeded: at most %d records a request" % MAX_OPERATIONS)
        keys = desired_keys(body)
        zone = self.database().zones.get(zone_name_of(body))
        results = []
        for item in wanted:
            name = item.get("recordName") if isinstance(item, dict) else None
            if not isinstance(name, str):
                results.append({"recordName": name, "serverErrorCode": "BAD_REQUEST", "reason": "recordName missing"})
            elif zone is None:
                # Assumption: a missing zone is a per-record ZONE_NOT_FOUND, as in records/modify.
                results.append({"recordName": name, "serverErrorCode": "ZONE_NOT_FOUND", "reason": "zone not found"})
            elif name not in zone.records:
                results.append({"recordName": name, "serverErrorCode": "NOT_FOUND", "reason": "record not found"})
            else:
                results.append(self.render(zone.records[name], keys))
        return json_response(200, {"records": results})

    def records_modify(self, body):
        operations = body.get("operations")
        if not isinstance(operations, list):
            raise bad_request("operations must be a list.")
        # Apple (Data Size Limits): 200 operations a request. Assumption: more is a 400 for the
        # whole request, and nothing is applied.
        if len(operations) > MAX_OPERATIONS:
            raise bad_request("limit exceeded: at most %d operations a request" % MAX_OPERATIONS)
        atomic = body.get("atomic", True)  # Apple: atomic defaults to true
        if not isinstance(atomic, bool):
            raise bad_request("atomic must be true or false.")
        keys = desired_keys(body)
        zone = self.database().zones.get(zone_name_of(body))
        if zone is None:
            # Assumption (contract): every operation gets ZONE_NOT_FOUND, inside a 200.
            results = [{"recordName": record_name_of(op), "serverErrorCode": "ZONE_NOT_FOUND",
                        "reason": "zone not found"} for op in operations]
            return json_response(200, {"records": results})
        staged = Staging(self.t, zone)
        outcomes = []
        for op in operations:
            try:
                outcomes.append(staged.apply(op))
            except RecordError as e:
                outcomes.append(({"recordName": record_name_of(op), "serverErrorCode": e.code, "reason": e.reason}, None))
        failed = any(change is None for _, change in outcomes)
        if atomic and failed:
            # Apple: with atomic, one failure fails the whole batch; the others get ATOMIC_ERROR.
            # Assumption: the contract applies this in every zone; Apple says atomic works only in custom zones.
            results = [answer if change is None else
                       {"recordName": answer["recordName"], "serverErrorCode": "ATOMIC_ERROR",
                        "reason": "atomic batch failed"} for answer, change in outcomes]
            return json_response(200, {"records": results})
        results = []
        for answer, change in outcomes:
            if change is not None:
                staged.commit(change)
                if change[1] is not None:
                    answer = self.render(change[1], keys)
            results.append(answer)
        return json_response(200, {"records": results})

    # Changes

    def changes_zone(self, body):
        zones = body.get("zones")
        if not isinstance(zones, list) or not zones:
            raise bad_request("zones must be a non-empty list.")
        keys, limit = desired_keys(body), results_limit(body)
        db, results = self.database(), []
        for item in zones:
            if not isinstance(item, dict):
                raise bad_request("each zone must be a dictionary.")
            name = zone_name_of(item)
            try:
                zone_keys, zone_limit = desired_keys(item, keys), results_limit(item, limit)
                results.append(self.zone_changes(db, name, item.get("syncToken"), zone_limit, zone_keys))
            except (RecordError, CkError) as e:
                # Apple (Zone Fetch Error Dictionary): per-zone errors sit in the zone's entry.
                results.append({"zoneID": {"zoneName": name, "ownerRecordName": self.t.user},
                                "serverErrorCode": e.code, "reason": e.reason})
        return json_response(200, {"zones": results})

    def records_changes(self, body):
        # Apple (records/changes): one zone, answered {"zoneID", "records", "syncToken", "moreComing"}.
        name = zone_name_of(body)
        try:
            answer = self.zone_changes(self.database(), name, body.get("syncToken"), results_limit(body),
                                       desired_keys(body))
        except RecordError as e:
            raise CkError(e.code, e.reason)
        return json_response(200, answer)

    def zone_changes(self, db, name, token, limit, keys):
        zone = db.zones.get(name)
        if zone is None:
            raise RecordError("ZONE_NOT_FOUND", "zone not found")
        if name == DEFAULT_ZONE:
            # Apple (issue 17's reading): changes work only in custom zones. Assumption: BAD_REQUEST.
            raise RecordError("BAD_REQUEST", "changes are only available in custom zones")
        since = 0
        if token is not None:
            since = zone.read_token(token) if isinstance(token, str) else None
            if since is None:
                # Assumption (contract): an unknown sync token is BAD_REQUEST "sync token expired".
                raise RecordError("BAD_REQUEST", "sync token expired")
        picked, seq, more = zone.changes(since, limit)
        records = [self.render(e.record, keys) if e.record is not None else {"recordName": n, "deleted": True}
                   for n, e in picked]
        return {"zoneID": {"zoneName": name, "ownerRecordName": self.t.user}, "records": records,
                "syncToken": zone.sync_token(seq), "moreComing": more}

    # Assets

    def assets_upload(self, body):
        tokens = body.get("tokens")
        if not isinstance(tokens, list) or not tokens:
            raise bad_request("tokens must be a non-empty list.")
        if len(tokens) > MAX_OPERATIONS:
            raise bad_request("limit exceeded: at most %d tokens a request" % MAX_OPERATIONS)
        name = zone_name_of(body)
        if name not in self.database().zones:
            raise CkError("ZONE_NOT_FOUND", "zone not found")  # Assumption
        answers = []
        for item in tokens:
            if not isinstance(item, dict) or not isinstance(item.get("fieldName"), str):
                raise bad_request("each token needs a fieldName.")
            record_name = item.get("recordName") or str(uuid.uuid4())  # Apple: the default is a random UUID
            upload_id = secrets.token_urlsafe(18)
            self.t.uploads[upload_id] = {"expires": time.time() + UPLOAD_LIFETIME, "record": record_name,
                                         "field": item["fieldName"]}
            # Apple (Token Response Dictionary): recordName, fieldName, url.
            answers.append({"recordName": record_name, "fieldName": item["fieldName"],
                            "url": "%s/_upload/%s" % (self.req.base, upload_id)})
        return json_response(200, {"tokens": answers})

    # Users

    def users_caller(self, body):
        # Apple (users/caller): the signed-in user's record name.
        return json_response(200, {"userRecordName": self.t.user})


def record_name_of(op):
    record = op.get("record") if isinstance(op, dict) else None
    return record.get("recordName") if isinstance(record, dict) else None


class Staging:
    """The operations of one records/modify, worked out against the zone as the earlier
    operations of the batch leave it, and applied (committed) only afterwards."""

    OPERATION_TYPES = ("create", "update", "forceUpdate", "replace", "forceReplace", "delete", "forceDelete")

    def __init__(self, tenant, zone):
        self.t, self.zone = tenant, zone
        self.view = {}  # record name -> Record or None (deleted), as the batch leaves it
        self.delta = 0  # bytes the batch adds to the tenant's store
        self.receipts = set()

    def current(self, name):
        return self.view[name] if name in self.view else self.zone.records.get(name)

    def apply(self, op):
        """(answer, change) for one operation; raises RecordError."""
        if not isinstance(op, dict) or not isinstance(op.get("record"), dict):
            raise RecordError("BAD_REQUEST", "an operation needs a record")
        kind, given = op.get("operationType"), op["record"]
        if kind not in self.OPERATION_TYPES:
            raise RecordError("BAD_REQUEST", "unknown operationType %r" % (kind,))
        name = given.get("recordName")
        if name is None and kind in ("create", "forceUpdate", "forceReplace"):
            name = given["recordName"] = str(uuid.uuid4())  # Apple: the default recordName is a random UUID
        if not isinstance(name, str) or not name:
            raise RecordError("BAD_REQUEST", "recordName missing")
        old = self.current(name)
        tag = given.get("recordChangeTag")
        if kind in ("update", "replace", "delete"):
            # Apple: these check recordChangeTag; a stale one is CONFLICT.
            if old is None:
                raise RecordError("NOT_FOUND", "record not found")
            if not isinstance(tag, str):
                raise RecordError("BAD_REQUEST", "recordChangeTag missing")  # Assumption
            if tag != old.tag:
                raise RecordError("CONFLICT", "record changed: recordChangeTag is stale")
        if kind == "create" and old is not None:
            raise RecordError("EXISTS", "record exists")  # Apple: EXISTS
        if kind in ("delete", "forceDelete"):
            if old is None:
                # Assumption (contract): forceDelete of a missing record is NOT_FOUND.
                raise RecordError("NOT_FOUND", "record not found")
            self.view[name] = None
            self.delta -= old.stored_bytes()
            return {"recordName": name, "deleted": True}, (name, None, old)
        record_type = given.get("recordType", old.type if old is not None else None)
        if not isinstance(record_type, str) or not record_type:
            raise RecordError("BAD_REQUEST", "recordType missing")
        fields = given.get("fields", {})
        if not isinstance(fields, dict):
            raise RecordError("BAD_REQUEST", "fields must be a dictionary")
        # Apple: update and forceUpdate change the given fields; replace and forceReplace
        # set all of them. Assumption (contract): the force forms create a missing record.
        merged = dict(old.fields) if old is not None and kind in ("update", "forceUpdate") else {}
        receipts = set()
        for field_name, field in fields.items():
            checked = self.check_field(name, field_name, field, old, receipts)
            if checked is None:
                merged.pop(field_name, None)  # Assumption: a null value removes the field
            else:
                merged[field_name] = checked
        stamp = {"timestamp": now_ms(), "userRecordName": self.t.user, "deviceID": "2"}
        new = Record(name, record_type, merged, self.t.new_tag(), dict(old.created) if old else stamp, stamp)
        if new.field_bytes() > MAX_RECORD_BYTES:
            raise RecordError("BAD_REQUEST", "record too large")  # Apple: 1 MB a record, assets excluded
        delta = new.stored_bytes() - (old.stored_bytes() if old is not None else 0)
        quota = self.t.config["quota"]
        if quota is not None and delta > 0 and self.t.bytes_stored + self.delta + delta > quota:
            # Apple: QUOTA_EXCEEDED when the user's iCloud storage is full. Assumption: per record.
            raise RecordError("QUOTA_EXCEEDED", "quota exceeded")
        self.delta += delta
        self.receipts |= receipts
        self.view[name] = new
        return {"recordName": name}, (name, new, old)

    def check_field(self, record_name, field_name, field, old, receipts):
        """The field as stored, None to remove it; raises RecordError."""
        if not isinstance(field, dict) or "value" not in field:
            raise RecordError("BAD_REQUEST", "field %s needs a value" % field_name)
        value, kind = field["value"], field.get("type")
        if value is None:
            return None
        if kind is None:
            # Assumption (contract): without a type, STRING or INT64 (and DOUBLE) from the JSON value.
            if isinstance(value, str):
                kind = "STRING"
            elif isinstance(value, int) and not isinstance(value, bool):
                kind = "INT64"
            elif isinstance(value, float):
                kind = "DOUBLE"
            elif isinstance(value, dict) and "receipt" in value:
                kind = "ASSETID"
            else:
                raise RecordError("BAD_REQUEST", "field %s: cannot tell its type" % field_name)
        if kind not in FIELD_TYPES:
            raise RecordError("BAD_REQUEST", "field %s: unsupported type %s" % (field_name, kind))
        bad = RecordError("BAD_REQUEST", "field %s: not a valid %s value" % (field_name, kind))
        stored = {"type": kind, "value": value}
        if kind == "STRING" and not isinstance(value, str):
            raise bad
        if kind in ("INT64", "TIMESTAMP") and (isinstance(value, bool) or not isinstance(value, int)):
            raise bad  # Apple: TIMESTAMP is milliseconds since 1970, a number
        if kind == "DOUBLE" and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise bad
        if kind == "BYTES":
            # Apple: BYTES values are base64.
            try:
                stored["decoded"] = base64.b64decode(value, validate=True) if isinstance(value, str) else None
            except (binascii.Error, ValueError):
                stored["decoded"] = None
            if stored["decoded"] is None:
                raise bad
        if kind == "ASSETID":
            stored = {"type": kind, "value": None, "asset": self.check_asset(record_name, field_name, value, old, receipts)}
        return stored

    def check_asset(self, record_name, field_name, value, old, receipts):
        """Apple: an asset field takes the singleFile dictionary of its upload.
        Assumption: the receipt must be known, unused, for this record and field, and its
        checksums and size must match; a value without a receipt whose fileChecksum is the
        field's current asset keeps that asset."""
        if not isinstance(value, dict):
            raise RecordError("BAD_REQUEST", "field %s: an asset takes a dictionary" % field_name)
        receipt = value.get("receipt")
        if receipt is None:
            current = old.fields.get(field_name) if old is not None else None
            if current is not None and current["type"] == "ASSETID" and value.get("fileChecksum") == current["asset"].checksum:
                return current["asset"]
            raise RecordError("BAD_REQUEST", "field %s: asset without a receipt" % field_name)
        asset = self.t.receipts.get(receipt)
        if asset is None or asset.used or receipt in self.receipts or receipt in receipts:
            raise RecordError("BAD_REQUEST", "field %s: unknown or used asset receipt" % field_name)
        expected = {"fileChecksum": asset.checksum, "size": asset.size, "wrappingKey": asset.wrapping_key,
                    "referenceChecksum": asset.reference_checksum}
        if any(key in value and value[key] != want for key, want in expected.items()) or "fileChecksum" not in value:
            raise RecordError("BAD_REQUEST", "field %s: asset receipt does not match" % field_name)
        if (asset.record_name, asset.field_name) != (record_name, field_name):
            raise RecordError("BAD_REQUEST", "field %s: the asset was uploaded for %s.%s" % (
                field_name, asset.record_name, asset.field_name))
        receipts.add(receipt)
        return asset

    def commit(self, change):
        name, new, old = change
        zone, t = self.zone, self.t
        keep = set(new.assets().values()) if new is not None else set()
        if old is not None and zone.records.get(name) is old:
            t.release(old, keep)
        zone.seq += 1
        entry = zone.entries.pop(name, None) or Entry()
        entry.seq = zone.seq
        if new is None:
            zone.records.pop(name, None)
            if entry.lives and entry.lives[-1][1] is None:
                entry.lives[-1][1] = zone.seq
        else:
            zone.records[name] = new
            if not entry.lives or entry.lives[-1][1] is not None:
                entry.lives.append([zone.seq, None])
            t.bytes_stored += new.stored_bytes()
            for asset in new.assets().values():
                asset.used = True
                t.receipts.pop(asset.receipt, None)
                t.assets[asset.id] = asset
        entry.record = new
        zone.entries[name] = entry


def fault_answer(fault):
    """Assumption (contract): an injected failure, in CloudKit's error shape."""
    if fault["drop"]:
        return CUT
    code = fault["code"]
    retry = fault.get("retryAfter")
    if retry is None and code in ("THROTTLED", "TRY_AGAIN_LATER"):
        retry = 0
    return CkError(code, fault.get("reason") or "injected fault", status=fault["status"], retryAfter=retry).response()


# --- Sign-in, uploads and downloads ------------------------------------------------

class Content:
    """The sign-in page and the content host's upload and download URLs: no tokens."""

    def __init__(self, tenant, req):
        self.t, self.req = tenant, req

    def signin(self):
        """Apple: the redirectURL of a 421 leads to Apple's sign-in, which sends the user back to
        the callback URL set for the API token, with ckWebAuthToken in its query.
        Assumption: the page signs in at once and answers 302; with "deny", 302 with no token."""
        self.t.count("signin")
        if self.req.method != "GET":
            return page(405, "The sign-in page takes GET.")
        api_token = self.req.params.get("apiToken", "")
        if not self.t.valid_api_token(api_token):
            return page(400, "Unknown API token.")
        callback = self.t.config["callbackURL"]
        if not callback:
            return page(400, "No sign-in callback URL is set for this API token.")
        if self.t.config["deny"]:
            return Response(302, b"", None, [("Location", callback)])
        token = self.t.issue_token()
        joiner = "&" if "?" in callback else "?"
        location = "%s%sckWebAuthToken=%s" % (callback, joiner, quote(token.value, safe=""))
        return Response(302, b"", None, [("Location", location)])

    def upload(self, upload_id):
        """Assumption (contract): POST the bytes to the upload URL, once, within 15 minutes."""
        self.t.count("asset.put")
        if self.req.method != "POST":
            raise bad_request("The upload URL takes POST.")
        slot = self.t.uploads.get(upload_id)
        if slot is None or time.time() >= slot["expires"]:
            self.t.uploads.pop(upload_id, None)
            raise CkError("NOT_FOUND", "unknown, used or expired upload URL")
        fault = self.t.take_fault("asset.put")
        kept = self.req.body
        if fault is not None and fault["keep"] is not None:
            kept = kept[:fault["keep"]]  # a content host that lost the end of the body
        elif fault is not None:
            return fault_answer(fault)
        # Assumption: like other object stores (S3 answers 411 MissingContentLength), the
        # content host wants the body's length; a body in chunks is refused.
        if "chunked" in (self.req.headers.get("Transfer-Encoding") or "").lower():
            return json_response(411, {"error": "the upload needs a Content-Length"})
        del self.t.uploads[upload_id]
        asset = Asset(kept, slot["record"], slot["field"])
        self.t.receipts[asset.receipt] = asset
        return json_response(200, {"singleFile": asset.single_file()})

    def download(self, rest):
        self.t.count("asset.get")
        m = re.fullmatch(r"([0-9a-f]+)/(\d+)/([0-9a-f]+)(?:/[^/]*)?", rest)
        if self.req.method != "GET" or not m:
            raise CkError("NOT_FOUND", "not found")
        asset_id, expires, mac = m.groups()
        path = "%s/%s" % (asset_id, expires)
        asset = self.t.assets.get(asset_id)
        if (not hmac.compare_digest(mac, sign(self.t.name + "/" + path)) or time.time() >= int(expires)
                or asset is None):
            raise CkError("NOT_FOUND", "unknown, expired or replaced asset")
        fault = self.t.take_fault("asset.get")
        if fault is not None:
            return fault_answer(fault)
        return Response(200, asset.content, "application/octet-stream")


def page(status, text):
    body = "<!DOCTYPE html><html><head><title>Sign in</title></head><body><p>%s</p></body></html>" % text
    return Response(status, body.encode(), "text/html; charset=UTF-8")


# --- Control API (no authentication) -------------------------------------------------

class Control:
    def __init__(self, tenant, req):
        self.t, self.req = tenant, req

    def handle(self, rest):
        routes = {("POST", "/_fake/faults"): self.set_faults, ("GET", "/_fake/faults"): self.faults,
                  ("POST", "/_fake/config"): self.set_config, ("GET", "/_fake/config"): self.show_config,
                  ("POST", "/_fake/grant"): self.grant, ("POST", "/_fake/expire-tokens"): self.expire_tokens,
                  ("POST", "/_fake/delete-zone"): self.delete_zone, ("GET", "/_fake/stats"): self.stats,
                  ("POST", "/_fake/stats/reset"): self.reset_stats, ("GET", "/_fake/records"): self.records}
        handler = routes.get((self.req.method, rest))
        if handler is None:
            raise CkError("NOT_FOUND", "No such control endpoint: %s %s" % (self.req.method, rest))
        return handler()

    def faults(self):
        return json_response(200, {"faults": self.t.faults})

    def set_faults(self):
        try:
            entries = json.loads(self.req.body.decode("utf-8") or "[]")
        except (ValueError, UnicodeDecodeError):
            raise bad_request("faults takes a JSON list.")
        if isinstance(entries, dict):
            entries = [entries]
        if not isinstance(entries, list):
            raise bad_request("faults takes a JSON list.")
        faults = []
        for e in entries:
            if not isinstance(e, dict):
                raise bad_request("each fault is a dictionary.")
            unknown = sorted(set(e) - {"op", "status", "code", "retryAfter", "times", "drop", "reason", "keep",
                                 "cutBody"})
            if unknown:
                raise bad_request("unknown fault keys: %s" % ", ".join(unknown))
            code, status = e.get("code"), e.get("status")
            if status is None:
                status = STATUS_BY_CODE.get(code, 503)
            if isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599:
                raise bad_request("status must be an HTTP error status.")
            code = code or CODE_BY_STATUS.get(status, "INTERNAL_ERROR")
            times, retry = e.get("times", 1), e.get("retryAfter")
            if isinstance(times, bool) or not isinstance(times, int) or times < 1:
                raise bad_request("times must be a whole number of at least 1.")
            if retry is not None and (isinstance(retry, bool) or not isinstance(retry, (int, float)) or retry < 0):
                raise bad_request("retryAfter must be a number of seconds.")
            op = e.get("op", "*")
            if op != "*" and op not in STAT_NAMES:
                raise bad_request("unknown op %r" % (op,))
            keep = e.get("keep")
            if keep is not None and (op != "asset.put" or isinstance(keep, bool) or not isinstance(keep, int) or keep < 0):
                raise bad_request("keep is a number of bytes, for asset.put only.")
            faults.append({"op": op, "status": status, "code": code, "retryAfter": retry, "times": times,
                           "drop": bool(e.get("drop", False)), "reason": e.get("reason"), "keep": keep,
                           "cutBody": bool(e.get("cutBody", False))})
        self.t.faults = faults
        return self.faults()

    def show_config(self):
        return json_response(200, self.t.config)

    def set_config(self):
        changes = self.req.json_body()
        unknown = sorted(set(changes) - set(CONFIG_DEFAULTS))
        if unknown:
            raise bad_request("unknown settings: %s" % ", ".join(unknown))

        def number(name, value, optional=False):
            if value is None and optional:
                return None
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise bad_request("%s takes a number of at least 0." % name)
            return value

        for name, value in changes.items():
            if name == "apiTokens":
                if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
                    raise bad_request("apiTokens takes a list of strings, or null.")
            elif name == "callbackURL":
                if value is not None and not isinstance(value, str):
                    raise bad_request("callbackURL takes a string, or null.")
            elif name in ("rotate", "deny"):
                if not isinstance(value, bool):
                    raise bad_request("%s takes true or false." % name)
            else:
                value = number(name, value, optional=name == "quota")
            self.t.config[name] = value
        return self.show_config()

    def grant(self):
        token = self.t.issue_token()
        return json_response(200, {"webAuthToken": token.value, "userRecordName": self.t.user})

    def expire_tokens(self):
        now = time.time()
        for token in self.t.tokens.values():
            token.dies_at = now
        return json_response(200, {})

    def delete_zone(self):
        body = self.req.json_body()
        db = self.t.database(body.get("container"), body.get("environment"), make=False)
        name = body.get("zoneName")
        if db is None or name not in db.zones or name == DEFAULT_ZONE:
            raise CkError("ZONE_NOT_FOUND", "zone not found")
        self.t.drop_zone(db, name)
        return json_response(200, {})

    def stats(self):
        return json_response(200, {"requests": dict(self.t.stats), "bytesStored": self.t.bytes_stored})

    def reset_stats(self):
        self.t.stats = dict.fromkeys(self.t.stats, 0)
        return json_response(200, {})

    def records(self):
        p = self.req.params
        db = self.t.database(p.get("container"), p.get("environment"), make=False)
        zone = db.zones.get(p.get("zone") or DEFAULT_ZONE) if db is not None else None
        if zone is None:
            raise CkError("ZONE_NOT_FOUND", "zone not found")
        listed = []
        for record in sorted(zone.records.values(), key=lambda r: r.name):
            fields = {}
            for name, field in record.fields.items():
                if field["type"] == "ASSETID":
                    asset = field["asset"]
                    fields[name] = {"type": "ASSETID", "value": {
                        "fileChecksum": asset.checksum, "size": asset.size,
                        "content_base64": base64.b64encode(asset.content).decode()}}
                else:
                    fields[name] = {"type": field["type"], "value": field["value"]}
            listed.append({"recordName": record.name, "recordType": record.type, "recordChangeTag": record.tag,
                           "fields": fields, "created": record.created, "modified": record.modified})
        return json_response(200, {"records": listed, "syncToken": zone.sync_token()})


# --- HTTP ----------------------------------------------------------------------------

class App(fake_server.App):
    error = CkError

    def new_tenant(self, name):
        return Tenant(name)

    def no_tenant(self):
        return CkError("NOT_FOUND", "Every path starts with /t/<tenant>/.").response()

    def route(self, t, rest, req):
        if rest.startswith("/_fake/"):
            return Control(t, req).handle(rest)
        if rest == "/_signin":
            return Content(t, req).signin()
        if rest.startswith("/_upload/"):
            return Content(t, req).upload(rest[len("/_upload/"):])
        if rest.startswith("/_download/"):
            return Content(t, req).download(rest[len("/_download/"):])
        return DatabaseApi(t, req).handle(rest)


class Handler(fake_server.Handler):
    server_version = "FakeCloudKit/1.0"
    log_name, verbose, request_class = "fake_cloudkit", VERBOSE, Request

    def unreadable(self, why):
        return bad_request("Unreadable request body: %s" % why).response()

    def internal_error(self):
        return CkError("INTERNAL_ERROR", "internal error").response()


class FakeCloudKitServer(fake_server.Server):
    def __init__(self, host="127.0.0.1", port=0):
        super().__init__(host, port, Handler, App())


if __name__ == "__main__":
    fake_server.main("A fake CloudKit Web Services server for tests.", FakeCloudKitServer)
