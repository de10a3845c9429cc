"""Self-test of the fake Google Drive, over real HTTP.

    python3 -m unittest discover -s Tests/GoogleDrive -p 'test_*.py'
"""

import base64
import hashlib
import http.client
import json
import os
import secrets
import threading
import unittest
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import fake_drive  # puts Tests/ on sys.path, for fake_server_testing too
import fake_server_testing

APPDATA = fake_drive.DRIVE_APPDATA
DRIVE_FILE = fake_drive.DRIVE_FILE
FOLDER = fake_drive.FOLDER
HERE = os.path.dirname(os.path.abspath(__file__))

server = None


def setUpModule():
    global server
    server = fake_server_testing.serve(fake_drive.FakeDriveServer("127.0.0.1", 0))


def tearDownModule():
    fake_server_testing.stop(server)


class Answer(fake_server_testing.Answer):
    @property
    def reason(self):
        return self.json["error"]["errors"][0]["reason"]


class Drive(fake_server_testing.TenantClient):
    """One tenant, one keep-alive connection, one access token."""

    answer_class = Answer

    def __init__(self, test, scope=APPDATA + " " + DRIVE_FILE, client_id="client-1"):
        super().__init__(test, server)
        self.client_id = client_id
        self.refresh_token = self.control("POST", "grant", {"client_id": client_id, "scope": scope}).json["refresh_token"]
        self.access_token = self.refresh().json["access_token"]

    def faults(self, **faults):
        answer = self.control("POST", "faults", faults)
        self.test.assertEqual(answer.status, 200, answer.body)
        return answer.json

    def refresh(self, **extra):
        form = {"grant_type": "refresh_token", "refresh_token": self.refresh_token, "client_id": self.client_id}
        form.update(extra)
        return self.raw("POST", "/oauth/token", urlencode(form), {"Content-Type": "application/x-www-form-urlencoded"})

    def api(self, method, path, params=None, body=None, headers=None, token=None):
        headers = dict(headers or {})
        if token is not False:
            headers["Authorization"] = "Bearer " + (token or self.access_token)
        if isinstance(body, dict):
            body = json.dumps(body)
            headers.setdefault("Content-Type", "application/json; charset=UTF-8")
        query = ("?" + urlencode(params)) if params else ""
        return self.raw(method, path + query, body, headers)

    def ok(self, method, path, params=None, body=None, headers=None, status=200):
        answer = self.api(method, path, params, body, headers)
        self.test.assertEqual(answer.status, status, answer.body)
        return answer.json if answer.body else None

    def mkdir(self, name, parent="appDataFolder"):
        return self.ok("POST", "/drive/v3/files", {"fields": "*"}, {"name": name, "mimeType": FOLDER, "parents": [parent]})

    def upload(self, name, content, parent="appDataFolder", fields="*", mime="text/plain"):
        body, ctype = multipart({"name": name, "parents": [parent]}, content, mime)
        return self.ok("POST", "/upload/drive/v3/files", {"uploadType": "multipart", "fields": fields}, body,
                       {"Content-Type": ctype})

    def list(self, q, spaces="appDataFolder", fields="nextPageToken,files(id,name,createdTime)", **params):
        params.update(q=q, spaces=spaces, fields=fields)
        return self.ok("GET", "/drive/v3/files", params)

    def list_all(self, q, **params):
        names, token, pages = [], None, 0
        while True:
            page = self.list(q, **dict(params, **({"pageToken": token} if token else {})))
            names += [f["name"] for f in page["files"]]
            pages += 1
            token = page.get("nextPageToken")
            if not token:
                return names, pages


def multipart(meta, content, mime="application/octet-stream", boundary="b0und4ry"):
    body = (b"--" + boundary.encode() + b"\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n" +
            json.dumps(meta).encode() + b"\r\n--" + boundary.encode() + b"\r\nContent-Type: " + mime.encode() +
            b"\r\n\r\n" + content + b"\r\n--" + boundary.encode() + b"--\r\n")
    return body, "multipart/related; boundary=" + boundary


class Base(unittest.TestCase):
    def drive(self, **kw):
        d = Drive(self, **kw)
        self.addCleanup(d.close)
        return d

    def assertError(self, answer, status, reason):
        self.assertEqual(answer.status, status, answer.body)
        error = answer.json["error"]
        self.assertEqual(error["code"], status)
        self.assertEqual(error["errors"][0]["reason"], reason)
        self.assertIn("message", error)
        self.assertIn("status", error)


class OAuthTests(Base):
    def authorize(self, d, **params):
        query = dict(client_id="client-1", redirect_uri="http://127.0.0.1:5555/cb", response_type="code",
                     scope=APPDATA, state="st/ate", code_challenge=self.challenge, code_challenge_method="S256",
                     access_type="offline", prompt="consent")
        query.update(params)
        query = {k: v for k, v in query.items() if v is not None}
        return d.raw("GET", "/oauth/authorize?" + urlencode(query))

    def setUp(self):
        self.verifier = secrets.token_urlsafe(48)
        self.challenge = base64.urlsafe_b64encode(hashlib.sha256(self.verifier.encode()).digest()).decode().rstrip("=")

    def exchange(self, d, code, verifier=None, redirect="http://127.0.0.1:5555/cb", **extra):
        form = dict(grant_type="authorization_code", code=code, code_verifier=verifier or self.verifier,
                    redirect_uri=redirect, client_id="client-1", client_secret="anything")
        form.update(extra)
        return d.raw("POST", "/oauth/token", urlencode(form), {"Content-Type": "application/x-www-form-urlencoded"})

    def test_authorization_code_with_pkce(self):
        d = self.drive()
        answer = self.authorize(d)
        self.assertEqual(answer.status, 302)
        location = urlsplit(answer.header("Location"))
        self.assertEqual((location.scheme, location.netloc, location.path), ("http", "127.0.0.1:5555", "/cb"))
        query = parse_qs(location.query)
        self.assertEqual(query["state"], ["st/ate"])
        self.assertEqual(query["scope"], [APPDATA])
        code = query["code"][0]
        wrong = self.exchange(d, code, verifier=secrets.token_urlsafe(48))
        self.assertEqual((wrong.status, wrong.json["error"]), (400, "invalid_grant"))
        mismatch = self.exchange(d, code, redirect="http://127.0.0.1:5556/cb")
        self.assertEqual(mismatch.status, 400)
        tokens = self.exchange(d, code)
        self.assertEqual(tokens.status, 200, tokens.body)
        body = tokens.json
        self.assertEqual(set(body), {"access_token", "expires_in", "refresh_token", "scope", "token_type"})
        self.assertEqual((body["expires_in"], body["token_type"], body["scope"]), (3599, "Bearer", APPDATA))
        again = self.exchange(d, code)
        self.assertEqual((again.status, again.json["error"]), (400, "invalid_grant"))
        unknown = self.exchange(d, "4/nonsense")
        self.assertEqual((unknown.status, unknown.json["error"]), (400, "invalid_grant"))
        # The new tokens work, and refreshing gives a new access token but no refresh token.
        self.assertEqual(d.api("GET", "/drive/v3/files/appDataFolder", token=body["access_token"]).status, 200)
        d.refresh_token = body["refresh_token"]
        refreshed = d.refresh()
        self.assertEqual(refreshed.status, 200)
        self.assertEqual(set(refreshed.json), {"access_token", "expires_in", "scope", "token_type"})
        self.assertEqual(d.stats()["byEndpoint"]["oauth.authorize"], 1)

    def test_authorize_rejects_bad_requests_with_an_html_page(self):
        d = self.drive()
        for bad in (dict(client_id=None), dict(redirect_uri="https://example.com/cb"),
                    dict(redirect_uri="http://127.0.0.1/cb"), dict(redirect_uri="http://10.0.0.1:80/cb"),
                    dict(response_type="token"), dict(scope="https://www.googleapis.com/auth/bogus"),
                    dict(code_challenge_method="plain"), dict(code_challenge=None), dict(code_challenge="short"),
                    dict(state=None), dict(redirect_uri="http://127.0.0.1:5/cb\r\nX-Evil: 1"),
                    dict(redirect_uri="http://127.0.0.1:5/caf\u00e9")):
            answer = self.authorize(d, **bad)
            self.assertEqual(answer.status, 400, bad)
            self.assertTrue(answer.header("Content-Type").startswith("text/html"))
        self.assertEqual(self.authorize(d, redirect_uri="http://localhost:9/x?keep=1").status, 302)
        self.assertIn("keep=1&code=", self.authorize(d, redirect_uri="http://localhost:9/x?keep=1").header("Location"))

    def test_deny_consent(self):
        d = self.drive()
        d.faults(denyConsent=True)
        query = parse_qs(urlsplit(self.authorize(d).header("Location")).query)
        self.assertEqual(query, {"error": ["access_denied"], "state": ["st/ate"]})
        d.faults(denyConsent=None)
        self.assertIn("code", parse_qs(urlsplit(self.authorize(d).header("Location")).query))

    def test_client_secret(self):
        d = self.drive()
        d.faults(clientSecret="s3cret")
        wrong = d.refresh(client_secret="nope")
        self.assertEqual((wrong.status, wrong.json["error"]), (401, "invalid_client"))
        missing = d.refresh()
        self.assertEqual(missing.status, 401)
        self.assertEqual(d.refresh(client_secret="s3cret").status, 200)
        basic = base64.b64encode(b"client-1:s3cret").decode()
        form = urlencode({"grant_type": "refresh_token", "refresh_token": d.refresh_token})
        answer = d.raw("POST", "/oauth/token", form, {"Authorization": "Basic " + basic,
                                                      "Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(answer.status, 200, answer.body)

    def test_token_endpoint_errors(self):
        d = self.drive()
        self.assertEqual(d.refresh(client_id="other-client").status, 401)
        self.assertEqual(d.refresh(grant_type="password").json["error"], "unsupported_grant_type")
        self.assertEqual(d.refresh(refresh_token="1//unknown").json,
                         {"error": "invalid_grant", "error_description": "Token has been expired or revoked."})

    def test_revoke(self):
        d = self.drive()
        self.assertEqual(d.raw("POST", "/oauth/revoke?token=" + quote(d.refresh_token)).json, {})
        self.assertError(d.api("GET", "/drive/v3/files/appDataFolder"), 401, "authError")
        self.assertEqual(d.refresh().json["error"], "invalid_grant")
        self.assertEqual(d.raw("POST", "/oauth/revoke", "token=" + quote(d.refresh_token)).status, 400)
        # Revoking through the form body, and through an access token.
        e = self.drive()
        self.assertEqual(e.raw("POST", "/oauth/revoke", "token=" + quote(e.access_token),
                               {"Content-Type": "application/x-www-form-urlencoded"}).status, 200)
        self.assertEqual(e.refresh().status, 400)

    def test_revoke_refresh_tokens_fault(self):
        d = self.drive()
        d.faults(revokeRefreshTokens=True)
        self.assertEqual(d.refresh().json["error"], "invalid_grant")
        self.assertError(d.api("GET", "/drive/v3/files/appDataFolder"), 401, "authError")

    def test_tenants_do_not_share_tokens(self):
        a, b = self.drive(), self.drive()
        self.assertError(b.api("GET", "/drive/v3/files/appDataFolder", token=a.access_token), 401, "authError")


class AuthAndScopeTests(Base):
    def test_missing_and_unknown_tokens(self):
        d = self.drive()
        for token in (False, "garbage"):
            answer = d.api("GET", "/drive/v3/files", token=token)
            self.assertError(answer, 401, "authError")
            self.assertEqual(answer.json["error"]["status"], "UNAUTHENTICATED")
            self.assertEqual(answer.json["error"]["errors"][0]["location"], "Authorization")

    def test_expired_by_time(self):
        d = self.drive()
        d.faults(accessTokenLifetime=0)
        token = d.refresh().json
        self.assertEqual(token["expires_in"], 0)
        self.assertError(d.api("GET", "/drive/v3/files", token=token["access_token"]), 401, "authError")

    def test_expire_access_tokens_after_n_requests(self):
        d = self.drive()
        d.faults(expireAccessTokensAfter=2)
        for _ in range(2):
            self.assertEqual(d.api("GET", "/drive/v3/files", {"spaces": "appDataFolder"}).status, 200)
        self.assertError(d.api("GET", "/drive/v3/files", {"spaces": "appDataFolder"}), 401, "authError")
        d.access_token = d.refresh().json["access_token"]
        self.assertEqual(d.api("GET", "/drive/v3/files", {"spaces": "appDataFolder"}).status, 200)

    def test_appdata_scope_cannot_touch_drive_files(self):
        full = self.drive()
        visible = full.mkdir("Visible", parent="root")
        only_appdata = Drive(self, scope=APPDATA)
        self.addCleanup(only_appdata.close)
        only_appdata.tenant = full.tenant
        only_appdata.refresh_token = full.control("POST", "grant", {"client_id": "client-1", "scope": APPDATA}).json["refresh_token"]
        only_appdata.access_token = only_appdata.refresh().json["access_token"]
        self.assertError(only_appdata.api("GET", "/drive/v3/files/" + visible["id"]), 403, "insufficientPermissions")
        self.assertError(only_appdata.api("GET", "/drive/v3/files", {"spaces": "drive"}), 403, "insufficientPermissions")
        self.assertError(only_appdata.api("POST", "/drive/v3/files", body={"name": "x"}), 403, "insufficientPermissions")
        self.assertEqual(only_appdata.mkdir("ok")["spaces"], ["appDataFolder"])

    def test_drive_file_scope_cannot_touch_appdata(self):
        d = self.drive(scope=DRIVE_FILE)
        self.assertError(d.api("GET", "/drive/v3/files", {"spaces": "appDataFolder"}), 403, "insufficientPermissions")
        self.assertError(d.api("POST", "/drive/v3/files", body={"name": "x", "parents": ["appDataFolder"]}),
                         403, "insufficientPermissions")
        self.assertEqual(d.mkdir("MiDiccio", parent="root")["spaces"], ["drive"])


class FileTests(Base):
    def test_aliases_and_default_fields(self):
        d = self.drive()
        appdata = d.ok("GET", "/drive/v3/files/appDataFolder")
        self.assertEqual(set(appdata), {"kind", "id", "name", "mimeType"})
        self.assertNotEqual(appdata["id"], "appDataFolder")
        self.assertEqual(appdata["mimeType"], FOLDER)
        root = d.ok("GET", "/drive/v3/files/root", {"fields": "id"})
        self.assertNotEqual(root["id"], appdata["id"])
        folder = d.mkdir("changes")
        self.assertEqual(folder["parents"], [appdata["id"]])
        self.assertNotIn("size", folder)
        self.assertNotIn("md5Checksum", folder)
        listed = d.ok("GET", "/drive/v3/files", {"spaces": "appDataFolder"})
        self.assertEqual(set(listed), {"kind", "incompleteSearch", "files"})
        self.assertEqual(listed["files"], [{"kind": "drive#file", "id": folder["id"], "name": "changes", "mimeType": FOLDER}])

    def test_multipart_upload_get_and_download(self):
        d = self.drive()
        folder = d.mkdir("words")
        content = b"hello \x00\xff world"
        f = d.upload("a.json", content, parent=folder["id"], mime="application/json")
        self.assertEqual(f["size"], str(len(content)))
        self.assertEqual(f["md5Checksum"], hashlib.md5(content).hexdigest())
        self.assertEqual(f["spaces"], ["appDataFolder"])
        self.assertRegex(f["createdTime"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertIsInstance(f["version"], str)
        got = d.ok("GET", "/drive/v3/files/" + f["id"], {"fields": "id,name,parents,size,md5Checksum"})
        self.assertEqual(got, {k: f[k] for k in ("id", "name", "parents", "size", "md5Checksum")})
        media = d.api("GET", "/drive/v3/files/" + f["id"], {"alt": "media"})
        self.assertEqual((media.status, media.body, media.header("Content-Type")), (200, content, "application/json"))
        part = d.api("GET", "/drive/v3/files/" + f["id"], {"alt": "media"}, headers={"Range": "bytes=2-4"})
        self.assertEqual((part.status, part.body, part.header("Content-Range")), (206, b"llo", "bytes 2-4/14"))
        tail = d.api("GET", "/drive/v3/files/" + f["id"], {"alt": "media"}, headers={"Range": "bytes=-5"})
        self.assertEqual(tail.body, b"world")
        self.assertEqual(d.api("GET", "/drive/v3/files/" + f["id"], {"alt": "media"},
                               headers={"Range": "bytes=99-"}).status, 416)
        self.assertError(d.api("GET", "/drive/v3/files/" + folder["id"], {"alt": "media"}), 403, "fileNotDownloadable")

    def test_not_found(self):
        d = self.drive()
        for method, params in (("GET", None), ("GET", {"alt": "media"}), ("PATCH", None), ("DELETE", None)):
            answer = d.api(method, "/drive/v3/files/nosuchid", params, body={} if method == "PATCH" else None)
            self.assertError(answer, 404, "notFound")
            self.assertEqual(answer.json["error"]["message"], "File not found: nosuchid.")

    def test_media_upload(self):
        d = self.drive()
        f = d.ok("POST", "/upload/drive/v3/files", {"uploadType": "media", "fields": "*"}, b"raw bytes",
                 {"Content-Type": "text/csv"})
        self.assertEqual((f["name"], f["mimeType"], f["size"]), ("Untitled", "text/csv", "9"))
        self.assertEqual(f["spaces"], ["drive"])
        updated = d.ok("PATCH", "/upload/drive/v3/files/" + f["id"], {"uploadType": "media", "fields": "*"}, b"new",
                       {"Content-Type": "text/csv"})
        self.assertEqual(updated["size"], "3")
        self.assertGreater(int(updated["version"]), int(f["version"]))
        self.assertEqual(d.api("GET", "/drive/v3/files/" + f["id"], {"alt": "media"}).body, b"new")

    def test_multipart_update_replaces_content_and_metadata(self):
        d = self.drive()
        f = d.upload("a", b"one")
        body, ctype = multipart({"name": "b"}, b"two!")
        updated = d.ok("PATCH", "/upload/drive/v3/files/" + f["id"], {"uploadType": "multipart", "fields": "*"}, body,
                       {"Content-Type": ctype})
        self.assertEqual((updated["name"], updated["size"], updated["md5Checksum"]), ("b", "4", hashlib.md5(b"two!").hexdigest()))
        self.assertNotEqual(updated["headRevisionId"], f["headRevisionId"])
        self.assertGreater(int(updated["version"]), int(f["version"]))

    def test_rename_trash_and_move(self):
        d = self.drive()
        a, b = d.mkdir("a"), d.mkdir("b")
        f = d.upload("x", b"1", parent=a["id"])
        renamed = d.ok("PATCH", "/drive/v3/files/" + f["id"], {"fields": "name,version"}, {"name": "y"})
        self.assertEqual(renamed["name"], "y")
        moved = d.ok("PATCH", "/drive/v3/files/" + f["id"], {"addParents": b["id"], "removeParents": a["id"],
                                                             "fields": "parents"}, {})
        self.assertEqual(moved["parents"], [b["id"]])
        self.assertError(d.api("PATCH", "/drive/v3/files/" + f["id"], {"addParents": a["id"]}, {}), 403, "cannotAddParent")
        self.assertError(d.api("PATCH", "/drive/v3/files/" + f["id"], body={"parents": [a["id"]]}), 403, "fieldNotWritable")
        self.assertError(d.api("PATCH", "/drive/v3/files/" + a["id"], {"addParents": a["id"], "removeParents": "appDataFolder"}, {}),
                         400, "badRequest")
        self.assertError(d.api("PATCH", "/drive/v3/files/" + f["id"], body={"colour": "red"}), 400, "badRequest")
        trashed = d.ok("PATCH", "/drive/v3/files/" + b["id"], {"fields": "trashed"}, {"trashed": True})
        self.assertTrue(trashed["trashed"])
        self.assertTrue(d.ok("GET", "/drive/v3/files/" + f["id"], {"fields": "trashed"})["trashed"])
        d.ok("PATCH", "/drive/v3/files/" + b["id"], body={"trashed": False})
        self.assertFalse(d.ok("GET", "/drive/v3/files/" + f["id"], {"fields": "trashed"})["trashed"])

    def test_delete_folder_deletes_descendants(self):
        d = self.drive()
        top = d.mkdir("top")
        sub = d.mkdir("sub", parent=top["id"])
        f = d.upload("f", b"x", parent=sub["id"])
        token = d.ok("GET", "/drive/v3/changes/startPageToken")["startPageToken"]
        answer = d.api("DELETE", "/drive/v3/files/" + top["id"])
        self.assertEqual((answer.status, answer.body), (204, b""))
        for gone in (top, sub, f):
            self.assertError(d.api("GET", "/drive/v3/files/" + gone["id"]), 404, "notFound")
        changes = d.ok("GET", "/drive/v3/changes", {"pageToken": token, "spaces": "appDataFolder",
                                                     "fields": "changes(fileId,removed,file)"})["changes"]
        self.assertEqual(sorted(c["fileId"] for c in changes), sorted([top["id"], sub["id"], f["id"]]))
        self.assertTrue(all(c["removed"] and "file" not in c for c in changes))
        self.assertError(d.api("DELETE", "/drive/v3/files/appDataFolder"), 403, "insufficientFilePermissions")

    def test_field_masks(self):
        d = self.drive()
        f = d.upload("a", b"abc")
        get = lambda fields: d.api("GET", "/drive/v3/files/" + f["id"], {"fields": fields})
        self.assertEqual(set(get("*").json), set(fake_drive.FILE_FIELDS))
        self.assertEqual(set(get("id, name ,size").json), {"id", "name", "size"})
        self.assertError(get("id,nope"), 400, "invalidParameter")
        self.assertEqual(get("id,nope").json["error"]["message"], "Invalid field selection nope")
        self.assertError(get("files(id)"), 400, "invalidParameter")
        self.assertError(get("id("), 400, "invalidParameter")
        self.assertError(get("id(name)"), 400, "invalidParameter")
        lst = lambda fields: d.api("GET", "/drive/v3/files", {"spaces": "appDataFolder", "fields": fields})
        self.assertEqual(lst("files/id").json, {"files": [{"id": f["id"]}]})
        self.assertEqual(lst("kind,files(id,size)").json, {"kind": "drive#fileList", "files": [{"id": f["id"], "size": "3"}]})
        self.assertEqual(set(lst("*").json["files"][0]), set(fake_drive.FILE_FIELDS))
        self.assertError(lst("files(id,bogus)"), 400, "invalidParameter")
        self.assertError(lst("nextPageToken,items"), 400, "invalidParameter")
        self.assertError(d.api("POST", "/drive/v3/files", {"fields": "idd"}, {"name": "n"}), 400, "invalidParameter")
        self.assertEqual(len(d.control("GET", "files").json["files"]), 1)  # the bad mask created nothing

    def test_malformed_requests(self):
        d = self.drive()
        self.assertError(d.api("POST", "/drive/v3/files", body="{not json", headers={"Content-Type": "application/json"}),
                         400, "parseError")
        self.assertError(d.api("POST", "/drive/v3/files", body="[1]"), 400, "parseError")
        self.assertError(d.api("POST", "/upload/drive/v3/files", {"uploadType": "multipart"}, b"junk",
                               {"Content-Type": "multipart/related; boundary=zz"}), 400, "badRequest")
        self.assertError(d.api("POST", "/upload/drive/v3/files", {"uploadType": "multipart"}, b"x",
                               {"Content-Type": "application/json"}), 400, "badRequest")
        self.assertError(d.api("POST", "/upload/drive/v3/files", {"uploadType": "weird"}, b"x"), 400, "invalid")
        self.assertError(d.api("GET", "/drive/v3/nothing"), 404, "notFound")
        self.assertError(d.api("POST", "/drive/v3/files", body={"name": 3}), 400, "badRequest")
        self.assertError(d.api("POST", "/drive/v3/files", body={"name": "x", "parents": ["nope"]}), 404, "notFound")
        self.assertError(d.api("POST", "/drive/v3/files", body={"name": "x", "parents": ["a", "b"]}), 403, "cannotAddParent")
        self.assertError(d.api("POST", "/drive/v3/files", body={"name": "x", "id": "mine"}), 403, "fieldNotWritable")
        self.assertEqual(d.raw("GET", "/../etc").status, 404)
        self.assertEqual(d.raw("GET", "/_fake/nothing").status, 404)

    def test_chunked_request_body_and_keep_alive(self):
        d = self.drive()
        conn = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
        self.addCleanup(conn.close)
        chunks = iter([b'{"name": ', b'"chunky", "parents": ["appDataFolder"]}'])
        conn.request("POST", "/t/%s/drive/v3/files" % d.tenant, body=chunks, encode_chunked=True,
                     headers={"Authorization": "Bearer " + d.access_token, "Content-Type": "application/json",
                              "Transfer-Encoding": "chunked"})
        response = conn.getresponse()
        self.assertEqual((response.status, json.loads(response.read())["name"]), (200, "chunky"))
        sock = conn.sock
        for _ in range(3):
            conn.request("GET", "/t/%s/drive/v3/files/appDataFolder" % d.tenant,
                         headers={"Authorization": "Bearer " + d.access_token})
            response = conn.getresponse()
            response.read()
            self.assertEqual(response.status, 200)
        self.assertIs(conn.sock, sock)  # one connection throughout


class ListTests(Base):
    def test_queries(self):
        d = self.drive()
        a = d.mkdir("a")
        d.upload("it's", b"1", parent=a["id"])
        d.upload("back\\slash", b"2", parent=a["id"])
        d.upload("plain", b"3", parent=a["id"], mime="text/csv")
        gone = d.upload("gone", b"4", parent=a["id"])
        d.ok("PATCH", "/drive/v3/files/" + gone["id"], body={"trashed": True})
        names = lambda q: sorted(d.list_all(q)[0])
        parent = "'%s' in parents" % a["id"]
        self.assertEqual(names(parent), ["back\\slash", "gone", "it's", "plain"])  # trashed ones too
        self.assertEqual(names(parent + " and trashed = false"), ["back\\slash", "it's", "plain"])
        self.assertEqual(names("trashed=true"), ["gone"])
        self.assertEqual(names("name = 'it\\'s'"), ["it's"])
        self.assertEqual(names("name = 'back\\\\slash'"), ["back\\slash"])
        self.assertEqual(names("name != 'plain' and " + parent + " and trashed = false"), ["back\\slash", "it's"])
        self.assertEqual(names("mimeType = 'text/csv'"), ["plain"])
        self.assertEqual(names("mimeType = '%s'" % FOLDER), ["a"])
        self.assertEqual(names("mimeType != '%s' and trashed = false" % FOLDER), ["back\\slash", "it's", "plain"])
        self.assertEqual(names("name = 'plain' or name = 'gone'"), ["gone", "plain"])
        self.assertEqual(names("(name = 'plain' or name = 'a') and mimeType = '%s'" % FOLDER), ["a"])
        self.assertEqual(names("'appDataFolder' in parents"), ["a"])
        self.assertEqual(names("'nosuch' in parents"), [])
        detail = d.api("GET", "/drive/v3/files", {"q": "name = '\u4e2d\r\nX-Evil: 1' and", "spaces": "appDataFolder"})
        self.assertError(detail, 400, "invalid")
        self.assertIsNone(detail.header("X-Evil"))
        self.assertIn("end", detail.header("X-Fake-Drive-Detail"))
        for bad in ("name contains 'x'", "name = x", "name = 'x", "fullText = 'x'", "'x' in owners", "trashed = maybe",
                    "name = 'a' and", "name = 'a\\n'", "(name = 'a'", "modifiedTime > '2020-01-01'"):
            self.assertError(d.api("GET", "/drive/v3/files", {"q": bad, "spaces": "appDataFolder"}), 400, "invalid")

    def test_spaces(self):
        d = self.drive()
        d.mkdir("hidden")
        d.mkdir("Visible", parent="root")
        self.assertEqual(d.list_all("", spaces="drive")[0], ["Visible"])
        self.assertEqual(d.list_all("", spaces="appDataFolder")[0], ["hidden"])
        self.assertEqual(sorted(d.list_all("", spaces="drive,appDataFolder")[0]), ["Visible", "hidden"])
        self.assertEqual(d.ok("GET", "/drive/v3/files", {"fields": "files(name)"})["files"], [{"name": "Visible"}])
        self.assertError(d.api("GET", "/drive/v3/files", {"spaces": "photos"}), 400, "invalid")

    def test_duplicates_and_order(self):
        d = self.drive()
        made = [d.control("POST", "create", {"name": "changes", "parents": ["appDataFolder"], "mimeType": FOLDER,
                                             "createdTime": t}).json
                for t in ("2026-01-02T00:00:00.000Z", "2026-01-01T00:00:00.500Z", "2026-01-01T00:00:00.500Z")]
        listed = d.list("name = 'changes'", fields="files(id,createdTime)")["files"]
        first_two = sorted([made[1], made[2]], key=lambda f: f["id"])
        self.assertEqual([f["id"] for f in listed], [first_two[0]["id"], first_two[1]["id"], made[0]["id"]])
        self.assertEqual(listed[0]["createdTime"], "2026-01-01T00:00:00.500Z")
        desc = d.list("", fields="files(id)", orderBy="createdTime desc")["files"]
        self.assertEqual(desc[0]["id"], made[0]["id"])
        d.ok("PATCH", "/drive/v3/files/" + made[0]["id"], body={"name": "aaa"})
        self.assertEqual(d.list("", fields="files(name)", orderBy="name")["files"][0]["name"], "aaa")
        self.assertEqual(d.list("", fields="files(id)", orderBy="modifiedTime desc")["files"][0]["id"], made[0]["id"])
        self.assertError(d.api("GET", "/drive/v3/files", {"orderBy": "size"}), 400, "invalid")

    def test_paging(self):
        d = self.drive()
        for i in range(7):
            d.upload("f%d" % i, b"x")
        names, pages = d.list_all("", pageSize=3)
        self.assertEqual((names, pages), (["f%d" % i for i in range(7)], 3))
        d.faults(pageSizeCap=2)
        names, pages = d.list_all("")
        self.assertEqual((names, pages), (["f%d" % i for i in range(7)], 4))
        token = d.list("")["nextPageToken"]
        self.assertError(d.api("GET", "/drive/v3/files", {"spaces": "appDataFolder", "pageToken": token[:-3] + "abc"}),
                         400, "invalid")
        self.assertError(d.api("GET", "/drive/v3/files", {"spaces": "appDataFolder", "pageToken": "é garbage"}), 400, "invalid")
        self.assertError(d.api("GET", "/drive/v3/files", {"spaces": "appDataFolder", "q": "name = 'f1'", "pageToken": token}),
                         400, "invalid")
        for bad in ("0", "1001", "x"):
            self.assertError(d.api("GET", "/drive/v3/files", {"pageSize": bad}), 400, "invalid")

    def test_list_lag(self):
        d = self.drive()
        d.faults(listLag=2)
        f = d.upload("late", b"x")
        self.assertEqual(d.list_all("")[0], [])
        self.assertEqual(d.list_all("name = 'other'")[0], [])  # does not include it anyway: no lag spent
        self.assertEqual(d.list_all("")[0], [])
        self.assertEqual(d.list_all("")[0], ["late"])
        d.ok("GET", "/drive/v3/files/" + f["id"])  # get and media see it at once
        self.assertEqual(d.api("GET", "/drive/v3/files/" + f["id"], {"alt": "media"}).body, b"x")


class ChangesTests(Base):
    def test_changes(self):
        d = self.drive()
        start = d.ok("GET", "/drive/v3/changes/startPageToken", {"spaces": "appDataFolder"})
        self.assertEqual(set(start), {"kind", "startPageToken"})
        self.assertEqual(start["kind"], "drive#startPageToken")
        token = start["startPageToken"]
        empty = d.ok("GET", "/drive/v3/changes", {"pageToken": token, "spaces": "appDataFolder"})
        self.assertEqual(empty, {"kind": "drive#changeList", "changes": [], "newStartPageToken": token})
        a = d.upload("a", b"1")
        b = d.upload("b", b"2")
        d.mkdir("V", parent="root")
        d.ok("PATCH", "/drive/v3/files/" + a["id"], body={"name": "a2"})  # a changes again: one change, latest state
        d.ok("PATCH", "/drive/v3/files/" + b["id"], body={"trashed": True})
        c = d.upload("c", b"3")
        d.api("DELETE", "/drive/v3/files/" + c["id"])
        page = d.ok("GET", "/drive/v3/changes", {"pageToken": token, "spaces": "appDataFolder"})
        self.assertEqual([(x["fileId"], x["removed"]) for x in page["changes"]],
                         [(a["id"], False), (b["id"], False), (c["id"], True)])
        first = page["changes"][0]
        self.assertEqual(set(first), {"kind", "changeType", "time", "removed", "fileId", "file"})
        self.assertEqual((first["kind"], first["changeType"]), ("drive#change", "file"))
        self.assertEqual(first["file"], {"kind": "drive#file", "id": a["id"], "name": "a2", "mimeType": "text/plain"})
        masked = d.ok("GET", "/drive/v3/changes", {"pageToken": token, "spaces": "appDataFolder",
                                                   "fields": "changes(fileId,removed,file(id,name,parents,trashed)),newStartPageToken"})
        self.assertEqual(masked["changes"][1]["file"]["trashed"], True)
        self.assertNotIn("file", masked["changes"][2])
        self.assertEqual(masked["changes"][0]["file"]["parents"], [a["parents"][0]])
        new_token = page["newStartPageToken"]
        self.assertGreater(int(new_token), int(token))
        self.assertEqual(d.ok("GET", "/drive/v3/changes", {"pageToken": new_token, "spaces": "appDataFolder"})["changes"], [])
        drive_only = d.ok("GET", "/drive/v3/changes", {"pageToken": token, "fields": "changes(file/name)"})
        self.assertEqual(drive_only["changes"], [{"file": {"name": "V"}}])
        no_removed = d.ok("GET", "/drive/v3/changes", {"pageToken": token, "spaces": "appDataFolder",
                                                       "includeRemoved": "false"})
        self.assertEqual(len(no_removed["changes"]), 2)

    def test_paging_and_bad_tokens(self):
        d = self.drive()
        token = d.ok("GET", "/drive/v3/changes/startPageToken")["startPageToken"]
        ids = [d.upload("f%d" % i, b"x")["id"] for i in range(5)]
        d.faults(pageSizeCap=2)
        seen, pages, page_token = [], 0, token
        while True:
            page = d.ok("GET", "/drive/v3/changes", {"pageToken": page_token, "spaces": "appDataFolder",
                                                     "fields": "nextPageToken,newStartPageToken,changes(fileId)"})
            pages += 1
            seen += [c["fileId"] for c in page["changes"]]
            self.assertNotEqual("nextPageToken" in page, "newStartPageToken" in page)
            if "newStartPageToken" in page:
                break
            page_token = page["nextPageToken"]
        self.assertEqual((seen, pages), (ids, 3))
        future = str(int(page["newStartPageToken"]) + 1)
        for bad in (future, "abc", "0", "-1"):
            self.assertError(d.api("GET", "/drive/v3/changes", {"pageToken": bad}), 400, "invalid")
        self.assertError(d.api("GET", "/drive/v3/changes"), 400, "required")
        self.assertError(d.api("GET", "/drive/v3/changes", {"pageToken": token, "fields": "changes(foo)"}),
                         400, "invalidParameter")


class ResumableTests(Base):
    def start(self, d, meta, length, file_id=None, fields="*"):
        path = "/upload/drive/v3/files" + ("/" + file_id if file_id else "")
        answer = d.api("PATCH" if file_id else "POST", path, {"uploadType": "resumable", "fields": fields}, meta,
                       {"X-Upload-Content-Type": "application/octet-stream", "X-Upload-Content-Length": str(length)})
        self.assertEqual(answer.status, 200, answer.body)
        location = urlsplit(answer.header("Location"))
        self.assertEqual(location.netloc, "127.0.0.1:%d" % d.port)
        self.assertTrue(location.path.startswith("/t/%s/upload/drive/v3/files" % d.tenant))
        self.assertIn("upload_id=", location.query)
        return location.path[len("/t/" + d.tenant):] + "?" + location.query

    def put(self, d, session, data, first, total):
        rng = "bytes %d-%d/%d" % (first, first + len(data) - 1, total) if data else "bytes */%d" % total
        return d.raw("PUT", session, data, {"Content-Range": rng})

    def test_chunks_status_and_completion(self):
        d = self.drive()
        content = os.urandom(1000)
        session = self.start(d, {"name": "big", "parents": ["appDataFolder"]}, len(content))
        status = self.put(d, session, b"", 0, len(content))
        self.assertEqual((status.status, status.header("Range")), (308, None))
        answer = self.put(d, session, content[:400], 0, len(content))
        self.assertEqual((answer.status, answer.header("Range")), (308, "bytes=0-399"))
        status = self.put(d, session, b"", 0, len(content))
        self.assertEqual((status.status, status.header("Range")), (308, "bytes=0-399"))
        overlapping = self.put(d, session, content[300:700], 300, len(content))
        self.assertEqual(overlapping.header("Range"), "bytes=0-699")
        self.assertEqual(self.put(d, session, content[800:], 800, len(content)).status, 400)  # a gap
        done = self.put(d, session, content[700:], 700, len(content))
        self.assertEqual(done.status, 200, done.body)
        self.assertEqual((done.json["name"], done.json["size"]), ("big", "1000"))
        self.assertEqual(done.json["md5Checksum"], hashlib.md5(content).hexdigest())
        self.assertEqual(self.put(d, session, b"", 0, len(content)).json["id"], done.json["id"])
        self.assertEqual(d.api("GET", "/drive/v3/files/" + done.json["id"], {"alt": "media"}).body, content)
        self.assertError(d.raw("PUT", "/upload/drive/v3/files?uploadType=resumable&upload_id=nope", b"x",
                               {"Content-Range": "bytes 0-0/1"}), 404, "notFound")
        stats = d.stats()["byEndpoint"]
        self.assertEqual((stats["upload.resumable.start"], stats["upload.resumable.put"]), (1, 8))

    def test_total_unknown_until_the_last_chunk(self):
        d = self.drive()
        answer = d.api("POST", "/upload/drive/v3/files", {"uploadType": "resumable"}, {"name": "s"})
        session = answer.header("Location").split("/t/%s" % d.tenant, 1)[1]
        self.assertEqual(d.raw("PUT", session, b"abc", {"Content-Range": "bytes 0-2/*"}).header("Range"), "bytes=0-2")
        self.assertEqual(d.raw("PUT", session, b"", {"Content-Range": "bytes */2"}).status, 400)
        done = d.raw("PUT", session, b"de", {"Content-Range": "bytes 3-4/5"})
        self.assertEqual((done.status, done.json["name"]), (200, "s"))

    def test_update_by_resumable_and_whole_put(self):
        d = self.drive()
        f = d.upload("x", b"old")
        session = self.start(d, {"name": "y"}, 5, file_id=f["id"])
        done = d.raw("PUT", session, b"newer")
        self.assertEqual((done.status, done.json["id"], done.json["name"], done.json["size"]), (200, f["id"], "y", "5"))

    def test_cut_connection_then_resume(self):
        d = self.drive()
        content = os.urandom(5000)
        session = self.start(d, {"name": "cut", "parents": ["appDataFolder"]}, len(content))
        d.faults(cutResumableAfter=1234)
        with self.assertRaises((http.client.RemoteDisconnected, ConnectionError)):
            self.put(d, session, content, 0, len(content))
        d.conn.close()
        status = self.put(d, session, b"", 0, len(content))
        self.assertEqual((status.status, status.header("Range")), (308, "bytes=0-1233"))
        done = self.put(d, session, content[1234:], 1234, len(content))
        self.assertEqual(done.status, 200)
        self.assertEqual(d.api("GET", "/drive/v3/files/" + done.json["id"], {"alt": "media"}).body, content)
        self.assertNotIn("cutResumableAfter", d.control("GET", "faults").json["faults"])

    def test_quota(self):
        d = self.drive()
        d.upload("a", b"x" * 60)
        d.faults(quotaBytes=100)
        self.assertError(d.api("POST", "/upload/drive/v3/files", {"uploadType": "media"}, b"y" * 41), 403,
                         "storageQuotaExceeded")
        body, ctype = multipart({"name": "b", "parents": ["appDataFolder"]}, b"y" * 41)
        answer = d.api("POST", "/upload/drive/v3/files", {"uploadType": "multipart"}, body, {"Content-Type": ctype})
        self.assertError(answer, 403, "storageQuotaExceeded")
        self.assertEqual(answer.json["error"]["message"], "The user's Drive storage quota has been exceeded.")
        answer = d.api("POST", "/upload/drive/v3/files", {"uploadType": "resumable"}, {"name": "c"},
                       {"X-Upload-Content-Length": "41"})
        self.assertError(answer, 403, "storageQuotaExceeded")
        # Declared length unknown at the start: refused when the last byte arrives.
        session = self.start(d, {"name": "c"}, 0)
        d.faults(quotaBytes=60)
        answer = d.api("POST", "/upload/drive/v3/files", {"uploadType": "resumable"}, {"name": "d"})
        session = answer.header("Location").split("/t/%s" % d.tenant, 1)[1]
        self.assertError(d.raw("PUT", session, b"zz", {"Content-Range": "bytes 0-1/2"}), 403, "storageQuotaExceeded")
        self.assertEqual([f["name"] for f in d.control("GET", "files").json["files"]], ["a"])
        self.assertEqual(d.upload("a2", b"")["size"], "0")


class FaultAndControlTests(Base):
    def test_rate_limits(self):
        d = self.drive()
        d.faults(rateLimit={"count": 2, "status": 403, "reason": "userRateLimitExceeded"})
        for _ in range(2):
            answer = d.api("GET", "/drive/v3/files")
            self.assertError(answer, 403, "userRateLimitExceeded")
            self.assertEqual(answer.json["error"]["errors"][0]["domain"], "usageLimits")
        self.assertEqual(d.api("GET", "/drive/v3/files").status, 200)
        d.faults(rateLimit={"count": 1, "status": 429, "reason": "rateLimitExceeded"})
        answer = d.api("GET", "/drive/v3/files")
        self.assertError(answer, 429, "rateLimitExceeded")
        self.assertEqual((answer.json["error"]["status"], answer.header("Retry-After")), ("RESOURCE_EXHAUSTED", "0"))
        self.assertEqual(d.api("GET", "/drive/v3/files").status, 200)

    def test_fail_next(self):
        d = self.drive()
        d.faults(failNext=[{"status": 503}, {"status": 500}, {"status": 403, "reason": "rateLimitExceeded"}])
        self.assertError(d.api("GET", "/drive/v3/files"), 503, "backendError")
        self.assertError(d.api("GET", "/drive/v3/files"), 500, "backendError")
        self.assertError(d.api("GET", "/drive/v3/files"), 403, "rateLimitExceeded")
        self.assertEqual(d.api("GET", "/drive/v3/files").status, 200)
        self.assertEqual(d.refresh().status, 200)  # faults are for the Drive API only

    def test_fault_validation_and_removal(self):
        d = self.drive()
        self.assertEqual(d.control("POST", "faults", {"pageSizeCapp": 2}).status, 400)
        self.assertEqual(d.control("POST", "faults", {"pageSizeCap": 0}).status, 400)
        self.assertEqual(d.control("POST", "faults", {"rateLimit": 3}).status, 400)
        self.assertEqual(d.faults(pageSizeCap=2, quotaBytes=10)["faults"], {"pageSizeCap": 2, "quotaBytes": 10})
        self.assertEqual(d.faults(pageSizeCap=None)["faults"], {"quotaBytes": 10})

    def test_stats(self):
        d = self.drive()
        d.control("POST", "stats/reset")
        f = d.upload("a", b"1")
        d.api("GET", "/drive/v3/files")
        d.api("GET", "/drive/v3/files/" + f["id"])
        d.api("GET", "/drive/v3/files/" + f["id"], {"alt": "media"})
        d.api("PATCH", "/drive/v3/files/" + f["id"], body={"name": "b"})
        d.api("POST", "/drive/v3/files", body={"name": "c"})
        d.api("DELETE", "/drive/v3/files/" + f["id"])
        token = d.ok("GET", "/drive/v3/changes/startPageToken")["startPageToken"]
        d.api("GET", "/drive/v3/changes", {"pageToken": token})
        d.api("GET", "/drive/v3/files", token="bad")  # refused, still a request
        d.refresh()
        stats = d.stats()
        expected = {"files.list": 2, "files.get": 1, "files.media": 1, "files.create": 1, "files.update": 1,
                    "files.delete": 1, "upload.multipart": 1, "changes.list": 1, "changes.startPageToken": 1,
                    "oauth.token": 1}
        self.assertEqual({k: v for k, v in stats["byEndpoint"].items() if v}, expected)
        self.assertEqual((stats["total"], stats["oauth"]), (10, 1))
        d.control("POST", "stats/reset")
        self.assertEqual(d.stats()["total"], 0)

    def test_control_files_and_create(self):
        d = self.drive()
        folder = d.control("POST", "create", {"name": "F", "parents": ["root"], "mimeType": FOLDER}).json
        other = d.control("POST", "create", {"name": "n", "parents": [folder["id"]], "mimeType": "text/plain",
                                             "createdTime": "2020-05-06T07:08:09.010Z",
                                             "content_base64": base64.b64encode(b"by someone else").decode()}).json
        self.assertEqual((other["createdTime"], other["size"]), ("2020-05-06T07:08:09.010Z", "15"))
        listing = d.control("GET", "files").json
        self.assertEqual([f["name"] for f in listing["files"]], ["n", "F"])  # by createdTime
        entry = listing["files"][0]
        self.assertEqual(base64.b64decode(entry["content_base64"]), b"by someone else")
        for key in ("id", "name", "parents", "mimeType", "createdTime", "size", "spaces", "trashed"):
            self.assertIn(key, entry)
        self.assertIn("appDataFolderId", listing)
        self.assertEqual(d.api("GET", "/drive/v3/files/" + other["id"], {"alt": "media"}).body, b"by someone else")
        self.assertEqual(d.control("POST", "create", {"name": "x", "parents": ["nope"]}).status, 404)
        self.assertEqual(d.control("POST", "create", {"name": "x", "createdTime": "yesterday"}).status, 400)

    def test_parallel_tenants(self):
        errors = []

        def work():
            try:
                d = Drive(self)
                for i in range(10):
                    d.upload("f%d" % i, b"x")
                names, _ = d.list_all("")
                if names != ["f%d" % i for i in range(10)]:
                    errors.append(names)
                d.close()
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])


class ScriptTests(unittest.TestCase):
    def test_server_sh_start_and_stop(self):
        fake_server_testing.check_server_script(self, os.path.join(HERE, "server.sh"))


if __name__ == "__main__":
    unittest.main()
