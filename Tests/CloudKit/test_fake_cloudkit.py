"""Self-test of the fake CloudKit Web Services server, over real HTTP.

    python3 -m unittest discover -s Tests/CloudKit -p 'test_*.py'
"""

import base64
import http.client
import json
import os
import unittest
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import fake_cloudkit  # puts Tests/ on sys.path, for fake_server_testing too
import fake_server_testing

HERE = os.path.dirname(os.path.abspath(__file__))
CONTAINER = "iCloud.org.example.midiccio"
API_TOKEN = "0123456789abcdef0123456789abcdef"

server = None


def setUpModule():
    global server
    server = fake_server_testing.serve(fake_cloudkit.FakeCloudKitServer("127.0.0.1", 0))


def tearDownModule():
    fake_server_testing.stop(server)


class Account(fake_server_testing.TenantClient):
    """One tenant, one keep-alive connection, one web auth token."""

    def __init__(self, test, environment="development"):
        super().__init__(test, server)
        self.environment = environment
        self.api_token = API_TOKEN
        self.token = self.control("POST", "grant").json["webAuthToken"]

    def url(self, url):
        """The path part of an absolute URL on the fake."""
        split = urlsplit(url)
        self.test.assertEqual(split.netloc, "127.0.0.1:%d" % self.port)
        return split.path + ("?" + split.query if split.query else "")

    def config(self, **settings):
        answer = self.control("POST", "config", settings)
        self.test.assertEqual(answer.status, 200, answer.body)

    def faults(self, *faults):
        answer = self.control("POST", "faults", list(faults))
        self.test.assertEqual(answer.status, 200, answer.body)

    def call(self, op, body=None, method="POST", token=None, api_token=None, environment=None, database="private",
             container=CONTAINER, raw_query=None):
        query = raw_query if raw_query is not None else "ckAPIToken=%s&ckWebAuthToken=%s" % (
            quote(api_token or self.api_token, safe=""), quote(token or self.token, safe=""))
        path = "/database/1/%s/%s/%s/%s?%s" % (container, environment or self.environment, database, op, query)
        data = None if body is None else json.dumps(body)
        return self.raw(method, path, data, {"Content-Type": "application/json"} if data else {})

    def ok(self, op, body=None, **kw):
        answer = self.call(op, body, **kw)
        self.test.assertEqual(answer.status, 200, answer.body)
        return answer.json

    def make_zone(self, name="MiDiccio", **kw):
        result = self.ok("zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": name}}}]}, **kw)
        self.test.assertNotIn("serverErrorCode", result["zones"][0])
        return result["zones"][0]

    def modify(self, *operations, zone="MiDiccio", atomic=None, **kw):
        body = {"operations": list(operations), "zoneID": {"zoneName": zone}}
        if atomic is not None:
            body["atomic"] = atomic
        return self.ok("records/modify", body, **kw)["records"]

    def changes(self, token=None, zone="MiDiccio", limit=None):
        entry = {"zoneID": {"zoneName": zone}}
        if token is not None:
            entry["syncToken"] = token
        if limit is not None:
            entry["resultsLimit"] = limit
        return self.ok("changes/zone", {"zones": [entry]})["zones"][0]


def op(kind, name, fields=None, tag=None, record_type="CloudFile"):
    record = {"recordName": name, "recordType": record_type}
    if fields is not None:
        record["fields"] = fields
    if tag is not None:
        record["recordChangeTag"] = tag
    return {"operationType": kind, "record": record}


def data(content):
    return {"value": base64.b64encode(content).decode(), "type": "BYTES"}


class Base(unittest.TestCase):
    def account(self, **kw):
        a = Account(self, **kw)
        self.addCleanup(a.close)
        return a

    def assertError(self, answer, status, code):
        self.assertEqual(answer.status, status, answer.body)
        body = answer.json
        self.assertEqual(body["serverErrorCode"], code)
        self.assertIn("reason", body)
        self.assertIn("uuid", body)
        return body


class AuthenticationTests(Base):
    def test_environment_and_api_token(self):
        a = self.account()
        self.assertError(a.call("zones/list", environment="staging"), 400, "BAD_REQUEST")
        self.assertError(a.call("zones/list", api_token="short"), 401, "AUTHENTICATION_FAILED")
        a.config(apiTokens=["KnownToken1"])
        self.assertError(a.call("zones/list"), 401, "AUTHENTICATION_FAILED")
        self.assertEqual(a.call("zones/list", api_token="KnownToken1").status, 200)

    def test_missing_unknown_or_expired_web_auth_token_gets_421_with_redirect(self):
        a = self.account()
        answer = a.call("zones/list", raw_query="ckAPIToken=" + API_TOKEN)
        body = self.assertError(answer, 421, "AUTHENTICATION_REQUIRED")
        redirect = urlsplit(body["redirectURL"])
        self.assertEqual(redirect.path, "/t/%s/_signin" % a.tenant)
        self.assertEqual(parse_qs(redirect.query)["apiToken"], [API_TOKEN])
        self.assertError(a.call("zones/list", token="nonsense"), 421, "AUTHENTICATION_REQUIRED")
        # Tokens hold '+', '/' and '='; one sent without URL-encoding does not match.
        for char in "+/=":
            self.assertIn(char, a.token)
        unencoded = "ckAPIToken=%s&ckWebAuthToken=%s" % (API_TOKEN, a.token)
        self.assertError(a.call("zones/list", raw_query=unencoded), 421, "AUTHENTICATION_REQUIRED")
        # Expiry by lifetime, and all at once through the control API.
        a.config(tokenLifetime=0)
        short = a.control("POST", "grant").json["webAuthToken"]
        self.assertError(a.call("zones/list", token=short), 421, "AUTHENTICATION_REQUIRED")
        self.assertEqual(a.call("zones/list").status, 200)
        a.control("POST", "expire-tokens")
        self.assertError(a.call("zones/list"), 421, "AUTHENTICATION_REQUIRED")

    def test_sign_in_redirects_to_the_callback_with_a_token(self):
        a = self.account()
        redirect = a.call("zones/list", token="x").json["redirectURL"]
        self.assertEqual(a.raw("GET", a.url(redirect)).status, 400)  # no callback set yet
        a.config(callbackURL="http://127.0.0.1:5555/cb?state=abc")
        answer = a.raw("GET", a.url(redirect))
        self.assertEqual(answer.status, 302)
        location = urlsplit(answer.header("Location"))
        self.assertEqual((location.netloc, location.path), ("127.0.0.1:5555", "/cb"))
        query = parse_qs(location.query)
        self.assertEqual(query["state"], ["abc"])
        token = query["ckWebAuthToken"][0]
        self.assertEqual(a.call("zones/list", token=token).status, 200)
        caller = a.ok("users/caller", method="GET", token=token, database="public")
        self.assertTrue(caller["userRecordName"].startswith("_"))
        self.assertEqual(a.ok("users/caller", {}, token=token, database="public"), caller)
        self.assertError(a.call("users/caller", method="GET", token="x", database="public"), 421,
                         "AUTHENTICATION_REQUIRED")
        # Deny (Advanced Data Protection, or a cancelled sign-in): back with no token.
        a.config(deny=True)
        denied = a.raw("GET", a.url(redirect))
        self.assertEqual((denied.status, denied.header("Location")), (302, "http://127.0.0.1:5555/cb?state=abc"))

    def test_rotation_with_grace(self):
        a = self.account()
        self.assertIsNone(a.call("zones/list").header(fake_cloudkit.WEB_AUTH_TOKEN_HEADER))
        a.config(rotate=True, rotationGrace=60)
        first = a.call("zones/list")
        new = first.header("X-Apple-CloudKit-Web-Auth-Token")
        self.assertTrue(new and new != a.token)
        self.assertEqual(a.call("zones/list").status, 200)  # the old one, within its grace
        self.assertEqual(a.call("zones/list", token=new).status, 200)
        a.config(rotationGrace=0)
        answer = a.call("zones/list", token=new)
        newest = answer.header("X-Apple-CloudKit-Web-Auth-Token")
        self.assertError(a.call("zones/list", token=new), 421, "AUTHENTICATION_REQUIRED")
        self.assertEqual(a.call("zones/list", token=newest).status, 200)
        # Errors carry no new token.
        self.assertIsNone(a.call("records/modify", {}, token=newest).header("X-Apple-CloudKit-Web-Auth-Token"))


class ZoneTests(Base):
    def test_zones_per_tenant_and_environment(self):
        a, b = self.account(), self.account()
        created = a.make_zone()
        self.assertEqual(created["zoneID"]["zoneName"], "MiDiccio")
        self.assertIn("syncToken", created)
        self.assertEqual(a.make_zone()["zoneID"]["zoneName"], "MiDiccio")  # idempotent
        names = lambda acct, **kw: [z["zoneID"]["zoneName"] for z in acct.ok("zones/list", method="GET", **kw)["zones"]]
        self.assertEqual(names(a), ["_defaultZone", "MiDiccio"])
        self.assertEqual(a.ok("zones/list", {})["zones"][1]["zoneID"]["zoneName"], "MiDiccio")
        self.assertEqual(names(a, environment="production"), ["_defaultZone"])
        self.assertEqual(names(b), ["_defaultZone"])

    def test_delete_zone_removes_its_records(self):
        a = self.account()
        a.make_zone()
        a.modify(op("create", "r1", {"data": data(b"x" * 100)}))
        self.assertEqual(a.stats()["bytesStored"], 100)
        result = a.ok("zones/modify", {"operations": [{"operationType": "delete", "zone": {"zoneID": {"zoneName": "MiDiccio"}}}]})
        self.assertEqual(result["zones"][0], {"zoneID": {"zoneName": "MiDiccio", "ownerRecordName": result["zones"][0]["zoneID"]["ownerRecordName"]}, "deleted": True})
        self.assertEqual(a.stats()["bytesStored"], 0)
        again = a.ok("zones/modify", {"operations": [{"operationType": "delete", "zone": {"zoneID": {"zoneName": "MiDiccio"}}}]})
        self.assertEqual(again["zones"][0]["serverErrorCode"], "ZONE_NOT_FOUND")
        a.make_zone()
        self.assertEqual(a.changes()["records"], [])


class RecordTests(Base):
    def setUp(self):
        self.a = self.account()
        self.a.make_zone()

    def test_create_lookup_and_record_shape(self):
        a = self.a
        [record] = a.modify(op("create", "r1", {"data": data(b"hello"), "n": {"value": 7}, "s": {"value": "é"},
                                                "t": {"value": 1700000000123, "type": "TIMESTAMP"}}))
        self.assertEqual(set(record), {"recordName", "recordType", "recordChangeTag", "fields", "created", "modified", "deleted"})
        self.assertEqual(record["fields"]["n"], {"value": 7, "type": "INT64"})
        self.assertEqual(record["fields"]["s"], {"value": "é", "type": "STRING"})
        self.assertEqual(record["fields"]["t"], {"value": 1700000000123, "type": "TIMESTAMP"})
        self.assertEqual(record["created"]["deviceID"], "2")
        self.assertIsInstance(record["created"]["timestamp"], int)
        self.assertFalse(record["deleted"])
        found = a.ok("records/lookup", {"records": [{"recordName": "r1"}, {"recordName": "nope"}],
                                        "zoneID": {"zoneName": "MiDiccio"}, "desiredKeys": ["n"]})["records"]
        self.assertEqual(found[0]["fields"], {"n": {"value": 7, "type": "INT64"}})
        self.assertEqual(found[0]["recordChangeTag"], record["recordChangeTag"])
        self.assertEqual((found[1]["recordName"], found[1]["serverErrorCode"]), ("nope", "NOT_FOUND"))
        self.assertError(a.call("records/lookup", {"records": [{"recordName": "x"}] * 201}), 400, "BAD_REQUEST")
        stored = a.control("GET", "records", query="?" + urlencode({"container": CONTAINER, "environment": "development", "zone": "MiDiccio"})).json
        self.assertEqual([r["recordName"] for r in stored["records"]], ["r1"])

    def test_every_operation_type(self):
        a = self.a
        [r] = a.modify(op("create", "r", {"a": {"value": "1"}, "b": {"value": "2"}}))
        [e] = a.modify(op("create", "r", {"a": {"value": "x"}}))
        self.assertEqual(e["serverErrorCode"], "EXISTS")
        [c] = a.modify(op("update", "r", {"a": {"value": "x"}}, tag="stale"))
        self.assertEqual(c["serverErrorCode"], "CONFLICT")
        [u] = a.modify(op("update", "r", {"a": {"value": "3"}}, tag=r["recordChangeTag"]))
        self.assertEqual({k: v["value"] for k, v in u["fields"].items()}, {"a": "3", "b": "2"})  # merged
        self.assertNotEqual(u["recordChangeTag"], r["recordChangeTag"])
        self.assertEqual(u["created"], r["created"])
        [f] = a.modify(op("forceUpdate", "r", {"b": {"value": "4"}}, tag="whatever"))
        self.assertEqual({k: v["value"] for k, v in f["fields"].items()}, {"a": "3", "b": "4"})
        [p] = a.modify(op("replace", "r", {"c": {"value": "5"}}, tag=f["recordChangeTag"]))
        self.assertEqual(list(p["fields"]), ["c"])  # replaced
        [s] = a.modify(op("replace", "r", {"c": {"value": "6"}}, tag=f["recordChangeTag"]))
        self.assertEqual(s["serverErrorCode"], "CONFLICT")
        [n] = a.modify(op("update", "missing", {"c": {"value": "6"}}, tag="t"))
        self.assertEqual(n["serverErrorCode"], "NOT_FOUND")
        [fc] = a.modify(op("forceUpdate", "new1", {"x": {"value": 1}}))
        [fr] = a.modify(op("forceReplace", "new2", {"x": {"value": 1}}))
        self.assertFalse(fc["deleted"] or fr["deleted"])
        [d] = a.modify(op("delete", "r", tag="stale"))
        self.assertEqual(d["serverErrorCode"], "CONFLICT")
        [d] = a.modify(op("delete", "r", tag=p["recordChangeTag"]))
        self.assertEqual(d, {"recordName": "r", "deleted": True})
        [g] = a.modify(op("forceDelete", "r"))
        self.assertEqual(g["serverErrorCode"], "NOT_FOUND")
        [g] = a.modify(op("forceDelete", "new1"))
        self.assertEqual(g, {"recordName": "new1", "deleted": True})
        [bad] = a.modify(op("upsert", "q"))
        self.assertEqual(bad["serverErrorCode"], "BAD_REQUEST")

    def test_atomic_and_non_atomic_batches(self):
        a = self.a
        a.modify(op("create", "exists"))
        results = a.modify(op("create", "one"), op("create", "exists"), op("create", "two"))
        self.assertEqual([r.get("serverErrorCode") for r in results], ["ATOMIC_ERROR", "EXISTS", "ATOMIC_ERROR"])
        self.assertEqual(a.ok("records/lookup", {"records": [{"recordName": "one"}], "zoneID": {"zoneName": "MiDiccio"}})["records"][0]["serverErrorCode"], "NOT_FOUND")
        results = a.modify(op("create", "one"), op("create", "exists"), op("create", "two"), atomic=False)
        self.assertEqual([r.get("serverErrorCode") for r in results], [None, "EXISTS", None])
        self.assertEqual([r["recordName"] for r in results], ["one", "exists", "two"])
        missing = a.modify(op("create", "x"), op("create", "y"), zone="Nowhere")
        self.assertEqual([r["serverErrorCode"] for r in missing], ["ZONE_NOT_FOUND", "ZONE_NOT_FOUND"])

    def test_limits_and_quota(self):
        a = self.a
        too_many = a.call("records/modify", {"operations": [op("create", "r%d" % i) for i in range(201)],
                                             "zoneID": {"zoneName": "MiDiccio"}})
        self.assertEqual(self.assertError(too_many, 400, "BAD_REQUEST")["reason"], "limit exceeded: at most 200 operations a request")
        self.assertEqual(len(a.modify(*[op("create", "r%d" % i) for i in range(200)])), 200)
        [big] = a.modify(op("create", "big", {"data": data(b"x" * 1_000_001)}))
        self.assertEqual((big["serverErrorCode"], big["reason"]), ("BAD_REQUEST", "record too large"))
        [fits] = a.modify(op("create", "fits", {"data": data(b"x" * 999_990), "name": {"value": "0123456789"}}))
        self.assertNotIn("serverErrorCode", fits)
        a.modify(op("forceDelete", "fits"))
        a.config(quota=150)
        [ok] = a.modify(op("create", "q1", {"data": data(b"x" * 100)}))
        self.assertNotIn("serverErrorCode", ok)
        [full] = a.modify(op("create", "q2", {"data": data(b"x" * 100)}))
        self.assertEqual(full["serverErrorCode"], "QUOTA_EXCEEDED")
        [shrink] = a.modify(op("forceReplace", "q1", {"data": data(b"x" * 10)}))
        self.assertNotIn("serverErrorCode", shrink)
        self.assertEqual(a.stats()["bytesStored"], 10)
        a.config(quota=None)
        [ok] = a.modify(op("create", "q2", {"data": data(b"x" * 1000)}))
        self.assertNotIn("serverErrorCode", ok)


class ChangeTests(Base):
    def setUp(self):
        self.a = self.account()
        self.a.make_zone()

    def test_changes_with_sync_token_and_paging(self):
        a = self.a
        start = a.changes()
        self.assertEqual((start["records"], start["moreComing"]), ([], False))
        a.modify(*[op("create", "r%d" % i, {"n": {"value": i}}) for i in range(5)])
        page = a.changes(start["syncToken"], limit=2)
        self.assertEqual(([r["recordName"] for r in page["records"]], page["moreComing"]), (["r0", "r1"], True))
        page2 = a.changes(page["syncToken"], limit=2)
        page3 = a.changes(page2["syncToken"], limit=2)
        self.assertEqual([r["recordName"] for r in page2["records"] + page3["records"]], ["r2", "r3", "r4"])
        self.assertFalse(page3["moreComing"])
        token = page3["syncToken"]
        self.assertEqual(a.changes(token)["records"], [])
        # One entry per record, latest state, in the order of last change; deletions only
        # of records the token knew.
        [r1] = a.ok("records/lookup", {"records": [{"recordName": "r1"}], "zoneID": {"zoneName": "MiDiccio"}})["records"]
        a.modify(op("update", "r1", {"n": {"value": 10}}, tag=r1["recordChangeTag"]))
        a.modify(op("forceDelete", "r0"), op("create", "tmp"))
        a.modify(op("forceDelete", "tmp"), op("forceUpdate", "r1", {"n": {"value": 11}}))
        later = a.changes(token)
        self.assertEqual([(r["recordName"], r["deleted"]) for r in later["records"]], [("r0", True), ("r1", False)])
        self.assertEqual(later["records"][0], {"recordName": "r0", "deleted": True})
        self.assertEqual(later["records"][1]["fields"]["n"]["value"], 11)
        whole = a.changes()
        self.assertEqual(sorted(r["recordName"] for r in whole["records"]), ["r1", "r2", "r3", "r4"])

    def test_unknown_tokens_and_zones(self):
        a = self.a
        token = a.changes()["syncToken"]
        self.assertEqual(a.changes("garbled")["serverErrorCode"], "BAD_REQUEST")
        self.assertEqual(a.changes("garbled")["reason"], "sync token expired")
        a.make_zone("Other")
        self.assertEqual(a.changes(token, zone="Other")["serverErrorCode"], "BAD_REQUEST")
        self.assertEqual(a.changes(zone="Nowhere")["serverErrorCode"], "ZONE_NOT_FOUND")
        self.assertEqual(a.changes(zone="_defaultZone")["serverErrorCode"], "BAD_REQUEST")
        a.control("POST", "delete-zone", {"container": CONTAINER, "environment": "development", "zoneName": "MiDiccio"})
        self.assertEqual(a.changes(token)["serverErrorCode"], "ZONE_NOT_FOUND")
        a.make_zone()
        self.assertEqual(a.changes(token)["reason"], "sync token expired")
        # Two zones in one request, each answered on its own.
        both = a.ok("changes/zone", {"zones": [{"zoneID": {"zoneName": "MiDiccio"}}, {"zoneID": {"zoneName": "Nowhere"}}]})
        self.assertNotIn("serverErrorCode", both["zones"][0])
        self.assertEqual(both["zones"][1]["serverErrorCode"], "ZONE_NOT_FOUND")

    def test_records_changes(self):
        a = self.a
        a.modify(op("create", "r0"), op("create", "r1"))
        first = a.ok("records/changes", {"zoneID": {"zoneName": "MiDiccio"}, "resultsLimit": 1})
        self.assertEqual(set(first), {"zoneID", "records", "syncToken", "moreComing"})
        self.assertEqual(([r["recordName"] for r in first["records"]], first["moreComing"]), (["r0"], True))
        rest = a.ok("records/changes", {"zoneID": {"zoneName": "MiDiccio"}, "syncToken": first["syncToken"]})
        self.assertEqual([r["recordName"] for r in rest["records"]], ["r1"])
        self.assertError(a.call("records/changes", {"zoneID": {"zoneName": "Nowhere"}}), 404, "ZONE_NOT_FOUND")
        self.assertError(a.call("records/changes", {"zoneID": {"zoneName": "MiDiccio"}, "syncToken": "x"}), 400, "BAD_REQUEST")


class AssetTests(Base):
    def upload(self, a, content, name="big", field="file"):
        tokens = a.ok("assets/upload", {"zoneID": {"zoneName": "MiDiccio"},
                                        "tokens": [{"recordType": "CloudFile", "recordName": name, "fieldName": field}]})["tokens"]
        self.assertEqual((tokens[0]["recordName"], tokens[0]["fieldName"]), (name, field))
        answer = a.raw("POST", a.url(tokens[0]["url"]), content)
        self.assertEqual(answer.status, 200, answer.body)
        single = answer.json["singleFile"]
        self.assertEqual(set(single), {"wrappingKey", "fileChecksum", "receipt", "referenceChecksum", "size"})
        self.assertEqual(single["size"], len(content))
        self.assertEqual(a.raw("POST", a.url(tokens[0]["url"]), content).status, 404)  # single use
        return single

    def test_upload_in_chunks_refused(self):
        a = self.account()
        a.make_zone()
        tokens = a.ok("assets/upload", {"zoneID": {"zoneName": "MiDiccio"},
                                        "tokens": [{"recordType": "CloudFile", "recordName": "big", "fieldName": "file"}]})["tokens"]
        # http.client sends an iterable without a length in chunks.
        self.assertEqual(a.raw("POST", a.url(tokens[0]["url"]), iter([b"abc", b"def"])).status, 411)
        # The upload URL is still unused: the bytes with their length are kept.
        answer = a.raw("POST", a.url(tokens[0]["url"]), b"abcdef")
        self.assertEqual((answer.status, answer.json["singleFile"]["size"]), (200, 6))

    def test_upload_keeping_part_of_the_body(self):
        a = self.account()
        a.make_zone()
        self.assertEqual(a.raw("POST", "/_fake/faults", json.dumps({"op": "records/modify", "keep": 3})).status, 400)
        a.faults({"op": "asset.put", "keep": 4})
        tokens = a.ok("assets/upload", {"zoneID": {"zoneName": "MiDiccio"},
                                        "tokens": [{"recordType": "CloudFile", "recordName": "big", "fieldName": "file"}]})["tokens"]
        answer = a.raw("POST", a.url(tokens[0]["url"]), b"abcdefgh")
        self.assertEqual((answer.status, answer.json["singleFile"]["size"]), (200, 4))
        [record] = a.modify(op("create", "big", {"file": {"type": "ASSETID", "value": answer.json["singleFile"]}}))
        self.assertEqual(a.raw("GET", a.url(record["fields"]["file"]["value"]["downloadURL"])).body, b"abcd")

    def test_upload_attach_download_replace(self):
        a = self.account()
        a.make_zone()
        content = os.urandom(3000)
        single = self.upload(a, content)
        [record] = a.modify(op("create", "big", {"file": {"type": "ASSETID", "value": single}}))
        value = record["fields"]["file"]["value"]
        self.assertEqual(record["fields"]["file"]["type"], "ASSETID")
        self.assertEqual((value["fileChecksum"], value["size"]), (single["fileChecksum"], 3000))
        self.assertIn("${f}", value["downloadURL"])
        self.assertEqual(a.raw("GET", a.url(value["downloadURL"].replace("${f}", "big.bin"))).body, content)
        self.assertEqual(a.raw("GET", a.url(value["downloadURL"])).body, content)
        self.assertEqual(a.stats()["bytesStored"], 3000)
        # The receipt is used up; a mismatched one is refused.
        [again] = a.modify(op("create", "big2", {"file": {"type": "ASSETID", "value": single}}))
        self.assertEqual(again["serverErrorCode"], "BAD_REQUEST")
        other = self.upload(a, b"abc", name="big3")
        [wrong] = a.modify(op("create", "big3", {"file": {"type": "ASSETID", "value": dict(other, size=4)}}))
        self.assertEqual(wrong["serverErrorCode"], "BAD_REQUEST")
        [unknown] = a.modify(op("create", "big3", {"file": {"type": "ASSETID", "value": dict(other, receipt="nope")}}))
        self.assertEqual(unknown["serverErrorCode"], "BAD_REQUEST")
        # Replacing the asset: the old download URL answers 404.
        newer = self.upload(a, b"second")
        [replaced] = a.modify(op("forceReplace", "big", {"file": {"type": "ASSETID", "value": newer}}))
        self.assertEqual(a.raw("GET", a.url(value["downloadURL"])).status, 404)
        self.assertEqual(a.raw("GET", a.url(replaced["fields"]["file"]["value"]["downloadURL"])).body, b"second")
        self.assertEqual(a.stats()["bytesStored"], 6)
        # Download URLs expire.
        a.config(downloadLifetime=0)
        [looked] = a.ok("records/lookup", {"records": [{"recordName": "big"}], "zoneID": {"zoneName": "MiDiccio"}})["records"]
        self.assertEqual(a.raw("GET", a.url(looked["fields"]["file"]["value"]["downloadURL"])).status, 404)
        stats = a.stats()["requests"]
        self.assertEqual((stats["assets/upload"], stats["asset.put"]), (3, 6))
        self.assertGreaterEqual(stats["asset.get"], 4)


class FaultTests(Base):
    def test_faults_status_code_retry_after_times_and_drop(self):
        a = self.account()
        a.make_zone()
        a.faults({"op": "records/modify", "status": 429, "code": "THROTTLED", "retryAfter": 1.5, "times": 2})
        for _ in range(2):
            body = self.assertError(a.call("records/modify", {"operations": [op("create", "r")], "zoneID": {"zoneName": "MiDiccio"}}), 429, "THROTTLED")
            self.assertEqual(body["retryAfter"], 1.5)
        self.assertEqual(a.changes()["records"], [])  # nothing was applied
        self.assertEqual(len(a.modify(op("create", "r"))), 1)
        # Faults come after the authentication checks.
        a.faults({"op": "*", "status": 503})
        self.assertError(a.call("zones/list", token="x"), 421, "AUTHENTICATION_REQUIRED")
        body = self.assertError(a.call("zones/list"), 503, "TRY_AGAIN_LATER")
        self.assertIn("retryAfter", body)
        self.assertEqual(a.call("zones/list").status, 200)
        a.faults({"op": "changes/zone", "drop": True})
        with self.assertRaises((http.client.HTTPException, ConnectionError)):
            a.call("changes/zone", {"zones": [{"zoneID": {"zoneName": "MiDiccio"}}]})
        a.conn.close()
        self.assertEqual(len(a.changes()["records"]), 1)
        self.assertEqual(a.control("POST", "faults", [{"op": "nope"}]).status, 400)

    def test_cut_body_takes_effect_and_rotates(self):
        a = self.account()
        a.make_zone()
        a.config(rotate=True, rotationGrace=0)
        a.faults({"op": "records/modify", "cutBody": True})
        with self.assertRaises((http.client.HTTPException, ConnectionError)):
            a.call("records/modify", {"operations": [op("create", "r")], "zoneID": {"zoneName": "MiDiccio"}}).json
        a.conn.close()
        # The old token died with the answer whose body was cut; the change was made.
        self.assertError(a.call("zones/list"), 421, "AUTHENTICATION_REQUIRED")
        a.config(rotate=False)
        a.token = a.control("POST", "grant").json["webAuthToken"]
        self.assertEqual(len(a.changes()["records"]), 1)

    def test_stats_and_reset(self):
        a = self.account()
        a.make_zone()
        a.changes()
        a.changes()
        requests = a.stats()["requests"]
        self.assertEqual((requests["zones/modify"], requests["changes/zone"], requests["records/modify"]), (1, 2, 0))
        a.control("POST", "stats/reset")
        self.assertEqual(sum(a.stats()["requests"].values()), 0)

    def test_tenants_are_apart(self):
        a, b = self.account(), self.account()
        a.make_zone()
        a.modify(op("create", "r"))
        b.make_zone()
        self.assertEqual(b.changes()["records"], [])
        self.assertError(b.call("zones/list", token=a.token), 421, "AUTHENTICATION_REQUIRED")


class ScriptTests(unittest.TestCase):
    def test_server_script_starts_and_stops(self):
        fake_server_testing.check_server_script(self, os.path.join(HERE, "server.sh"))


if __name__ == "__main__":
    unittest.main()
