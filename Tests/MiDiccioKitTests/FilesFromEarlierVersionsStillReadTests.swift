import Foundation
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioFiles
@testable import MiDiccioModel

/// The everyday binary leaves out the older half of Foundation (README, "Start-up"), so
/// MiDiccio reads its small JSON files, %-escapes and file errors with code of its own
/// (`JSONText.parse`, `percentDecoded`, `FileSystem.describe`). What earlier versions
/// wrote with `JSONSerialization` (pretty-printed, slashes escaped) must still read.
@Suite("Sign-in files, addresses and file errors read as they did before")
struct FilesFromEarlierVersionsStillReadTests {
    /// Writes `text` to the file `name` in `folder` and gives its path.
    static func file(in folder: URL, _ name: String, _ text: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a WebDAV credentials file an earlier version wrote still reads, and a saved one reads back the same")
    func webDAVCredentials() throws {
        try withTemporaryDirectory { folder in
            let path = try Self.file(
                in: folder, "library.sqlite.credentials",
                #"""
                {
                  "format" : "midiccio-credentials",
                  "version" : 1,
                  "webdav" : {
                    "password" : "p\/w \u00e9\"",
                    "url" : "https:\/\/cloud.example.com\/dav\/MiDiccio",
                    "user" : "ana"
                  }
                }

                """#)
            let old = try #require(try WebDAVCredentials.load(from: path))
            #expect(old.address == "https://cloud.example.com/dav/MiDiccio")
            #expect(old.user == "ana")
            #expect(old.password == "p/w é\"")

            let saved = WebDAVCredentials(address: "https://h/dav", user: nil, password: "línea\n\"dos\"")
            try saved.save(to: path)
            let read = try #require(try WebDAVCredentials.load(from: path))
            #expect(read.address == saved.address && read.user == nil && read.password == saved.password)
            #expect(WebDAVCredentials.permissions(of: path) == 0o600)
        }
    }

    @Test("Google Drive and iCloud sign-in files of an earlier version still read, with the token's expiry as a number")
    func signInFiles() throws {
        try withTemporaryDirectory { folder in
            let google = try Self.file(
                in: folder, "g",
                #"""
                {
                  "accessToken" : "ya29.a0",
                  "accessTokenExpiry" : 1764600000123,
                  "clientId" : "123.apps.googleusercontent.com",
                  "format" : "midiccio-google-drive",
                  "refreshToken" : "1\/\/0g",
                  "scope" : "https:\/\/www.googleapis.com\/auth\/drive.appdata",
                  "version" : 1
                }
                """#)
            let drive = try #require(try GoogleDriveCredentials.load(from: google))
            #expect(drive.accessTokenExpiry == 1_764_600_000_123)
            #expect(drive.refreshToken == "1//0g" && drive.clientSecret == nil)
            #expect(drive.scope == "https://www.googleapis.com/auth/drive.appdata")
            try drive.save(to: google)
            let again = try #require(try GoogleDriveCredentials.load(from: google))
            #expect(again.accessToken == "ya29.a0" && again.accessTokenExpiry == 1_764_600_000_123 && again.clientID == drive.clientID)

            let icloud = try Self.file(
                in: folder, "i",
                #"""
                {
                  "apiToken" : "abc",
                  "container" : "iCloud.app.midiccio",
                  "environment" : "development",
                  "format" : "midiccio-icloud",
                  "version" : 1,
                  "webAuthToken" : "w+\/t"
                }
                """#)
            let apple = try #require(try ICloudCredentials.load(from: icloud))
            #expect(apple.environment == .development && apple.webAuthToken == "w+/t" && apple.userRecordName == nil)

            // A broken file says so, and says nothing of what it holds.
            _ = try Self.file(in: folder, "g", #"{"format": "midiccio-google-drive", "clientId": 5}"#)
            let error = #expect(throws: FileError.self) { try GoogleDriveCredentials.load(from: google) }
            #expect(error?.reason.contains("is not a MiDiccio Google Drive sign-in file") == true)
        }
    }

    @Test("JSON is read into Swift's own values: null, whole and fractional numbers, booleans, nesting; anything else is nil")
    func parse() throws {
        let value = JSONText.parse(Data(#"{"a": null, "b": [1, 2.5, true, "x"], "c": {"d": -7}, "big": 12345678901234, "e": 1e3}"#.utf8))
        let object = try #require(value as? [String: Any])
        #expect(object["a"] is JSONNull)
        let list = try #require(object["b"] as? [Any])
        #expect(list.count == 4)
        #expect(list[0] as? Int == 1)
        #expect(list[1] as? Double == 2.5)
        #expect(list[2] as? Bool == true && !(list[2] is Int))
        #expect(list[3] as? String == "x")
        #expect((object["c"] as? [String: Any])?["d"] as? Int == -7)
        #expect(object["big"] as? Int == 12_345_678_901_234)
        #expect(object["e"] as? Int == 1000 || object["e"] as? Double == 1000)
        #expect(JSONText.parse(Data(#"["a", "b"]"#.utf8)) as? [String] == ["a", "b"])
        for broken in ["", "{", "{} x", "[1 2]", "{'a': 1}", "nul"] {
            #expect(JSONText.parse(Data(broken.utf8)) == nil, "\(broken)")
        }
        // Arrays of strings that the fast path leaves to the decoder.
        #expect(JSONText.stringArray(#"[ "a" , "\u00e9" ]"#) == ["a", "é"])
        #expect(JSONText.stringArray(#"["a", 1]"#) == [])
    }

    @Test("%-escapes decode in WebDAV paths and pasted sign-in addresses; a broken escape is refused")
    func percentEscapes() throws {
        #expect("%41b%c3%A9+".percentDecoded == "Abé+")
        #expect("plain".percentDecoded == "plain")
        for broken in ["%", "%4", "%zz", "a%g1", "%ff", "%C3"] {
            #expect(broken.percentDecoded == nil, "\(broken)")
        }
        #expect(try WebDAVAddress.parse("  https://h.example/dav/my%20words/  ").address.decodedPath == "/dav/my words")
        // A `%` that starts no escape is taken as itself (URLComponents escapes it).
        #expect(try WebDAVAddress.parse("https://h.example/dav/%zz").address.decodedPath == "/dav/%zz")
        #expect(throws: WebDAVAddressError.self) { try WebDAVAddress.parse("https://h.example/dav/a%00b") }
        let query = SignInAnswer.query(
            ofPastedAddress: " http://127.0.0.1:8080/callback?code=4%2F0A+b&state=x%3Dy&code=second\n", holdingOneOf: ["code"])
        #expect(query == ["code": "4/0A b", "state": "x=y"])
        #expect(SignInAnswer.query(ofPastedAddress: "http://127.0.0.1/cb?code=%E0%A4", holdingOneOf: ["code"]) == nil)
    }

    @Test("a failed file operation says what the system said, without a closing period")
    func fileErrors() throws {
        try withTemporaryDirectory { folder in
            let missing = folder.appendingPathComponent("nowhere/file").path
            do {
                _ = try Data(contentsOf: URL(fileURLWithPath: missing))
                Issue.record("a missing file was read")
            } catch {
                #expect(FileSystem.describe(error) == FileSystem.errorText(ENOENT))
            }
            #expect(FileSystem.describe(POSIXError(.EACCES)) == FileSystem.errorText(EACCES))
            struct Described: LocalizedError {
                var errorDescription: String? { "the disk said no." }
            }
            #expect(FileSystem.describe(Described()) == "the disk said no")
            let error = #expect(throws: FileError.self) { try FileSystem.read(folder.path + "/none") }
            #expect(error?.reason == "no such file")
            let unreadable = #expect(throws: FileError.self) { try FileSystem.ChunkReader(missing) }
            #expect(unreadable?.path == missing && unreadable?.reason == "no such file")
            let folderError = #expect(throws: FileError.self) { try FileSystem.ChunkReader(folder.path, size: 4).next() }
            #expect(folderError?.reason == "cannot be read: \(FileSystem.errorText(EISDIR))")
        }
    }

    @Test("a file read in pieces gives every byte once, from any offset, and its prefix alone when asked")
    func readingInPieces() throws {
        try withTemporaryDirectory { folder in
            let path = try Self.file(in: folder, "ten", "0123456789")
            let reader = try FileSystem.ChunkReader(path, size: 4)
            var pieces: [String] = []
            while let piece = try reader.next() { pieces.append(String(decoding: piece, as: UTF8.self)) }
            #expect(pieces == ["0123", "4567", "89"])
            #expect(try FileSystem.ChunkReader(path, size: 4, from: 7).next().map { String(decoding: $0, as: UTF8.self) } == "789")
            #expect(try FileSystem.readPrefix(path, count: 3) == Data("012".utf8))
            #expect(try FileSystem.readPrefix(path, count: 100) == Data("0123456789".utf8))
            let empty = try Self.file(in: folder, "empty", "")
            #expect(try FileSystem.ChunkReader(empty).next() == nil)
            #expect(try FileSystem.readPrefix(empty, count: 8).isEmpty)
        }
    }
}
