import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// Backup, restore with its preview and undo, the Trash and import/export, as the
/// Settings screen uses them.
@Suite("Settings routes of the web app")
final class BackupRouteTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("a restore is previewed without changing anything, then done, then undone")
    func restorePreviewAndUndo() throws {
        let library = try web.library()
        try library.add(WordContent(term: "uno"))
        let backup = try web.send("GET", "/api/backup")
        #expect(backup.status == 200)
        #expect(backup.headers["content-disposition"]?.contains("attachment") == true)
        try library.add(WordContent(term: "dos"))

        let preview = try web.send("POST", "/api/backup/restore?dryRun=1&replace=1", body: backup.body)
        #expect(preview.status == 200)
        #expect(preview.json["trashed"] as? Int == 1)
        #expect(try library.counts().words == 2, "the preview changed nothing")

        let restored = try web.send("POST", "/api/backup/restore?replace=1", body: backup.body)
        #expect(restored.json["trashed"] as? Int == 1)
        #expect(try library.list().map(\.term) == ["uno"])
        #expect(try web.send("GET", "/api/status").json["canUndoRestore"] as? Bool == true)

        #expect(try web.send("POST", "/api/backup/undo").status == 200)
        #expect(Set(try library.list().map(\.term)) == ["uno", "dos"])
        #expect(try web.send("POST", "/api/backup/undo").status == 409, "one step only")
    }

    @Test("an undo names the restore by its key: another restore of a file of the same name since is not undone in its place")
    func undoNamesTheRestoreByItsKey() throws {
        let library = try web.library()
        try library.add(WordContent(term: "uno"))
        let backup = try web.send("GET", "/api/backup")
        try library.add(WordContent(term: "extra"))
        #expect(try web.send("POST", "/api/backup/restore?replace=1&name=backup.json", body: backup.body).status == 200)
        let shown = try web.send("GET", "/api/status").json
        let key = try #require(shown["restoreUndoKey"] as? String)
        let text = try #require(shown["restoreUndoSource"] as? String)
        // A terminal restores another backup.json within the minute.
        try library.add(WordContent(term: "dos"))
        let other = try web.send("GET", "/api/backup")
        let folder = web.directory + "/terminal"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try other.body.write(to: URL(fileURLWithPath: folder + "/backup.json"))
        try library.add(WordContent(term: "tres"))
        _ = try library.restoreBackup(from: folder + "/backup.json", replace: true)
        #expect(try web.send("GET", "/api/status").json["restoreUndoSource"] as? String == text, "the same name and minute")
        func undo(expecting expect: String) throws -> Int {
            let body = String(decoding: try JSONSerialization.data(withJSONObject: ["expect": expect]), as: UTF8.self)
            return try web.send("POST", "/api/backup/undo", json: body).status
        }
        for expect in [key, text] { #expect(try undo(expecting: expect) == 409, "\(expect)") }
        let now = try #require(try web.send("GET", "/api/status").json["restoreUndoKey"] as? String)
        #expect(now != key)
        #expect(try undo(expecting: now) == 200)
        #expect(try library.list().map(\.term).contains("tres"), "the terminal's restore undone")
    }

    @Test("a backup of several megabytes downloads whole from its file, with its length and the security headers")
    func largeBackupDownload() throws {
        let library = try web.library()
        let notes = String(repeating: "una nota larga, con acentos y 漢字; ", count: 30)
        _ = try library.writingInBulk {
            for index in 0..<3_000 { _ = try library.add(WordContent(term: "palabra\(index)", notes: notes)) }
        }
        let backup = try web.send("GET", "/api/backup")
        #expect(backup.status == 200)
        #expect(backup.body.count > 3 << 20)
        #expect(backup.headers["content-length"] == String(backup.body.count))
        #expect(backup.headers["x-content-type-options"] == "nosniff")
        let object = try #require(try JSONSerialization.jsonObject(with: backup.body) as? [String: Any])
        #expect(object["wordCount"] as? Int == 3_000)
        #expect((object["words"] as? [Any])?.count == 3_000)
    }

    @Test("a broken backup is refused by its own name with nothing changed")
    func brokenBackup() throws {
        let answer = try web.send("POST", "/api/backup/restore?name=mine.json", body: Data("{\"format\": 1".utf8))
        #expect(answer.status == 422)
        let message = try #require(answer.json["error"] as? String)
        #expect(message.contains("mine.json"))
        #expect(!message.contains("midiccio-web-"), "the temporary path stays private")
    }

    @Test("the Trash lists deleted words; purge and empty remove them for good")
    func trashPurgeAndEmpty() throws {
        let library = try web.library()
        let one = try library.add(WordContent(term: "uno")).word.id
        let two = try library.add(WordContent(term: "dos")).word.id
        try library.delete([one, two])
        let trash = try web.send("GET", "/api/trash").words
        #expect(trash.count == 2)
        #expect(trash.allSatisfy { $0["deletedAt"] is String })
        #expect(try web.send("POST", "/api/trash/\(one)/purge").status == 200)
        #expect(try web.send("POST", "/api/trash/empty").json["purged"] as? Int == 1)
        #expect(try web.send("GET", "/api/trash").words.isEmpty)
    }

    @Test("CSV exported by the web app imports back")
    func csvRoundTrip() throws {
        _ = try web.send("POST", "/api/words", json: #"{"term": "gato", "meaning": "cat", "tags": ["animals"]}"#)
        let csv = try web.send("GET", "/api/export?format=csv")
        #expect(csv.headers["content-type"]?.hasPrefix("text/csv") == true)
        let imported = try web.send("POST", "/api/import?format=csv", body: csv.body)
        #expect(imported.json["added"] as? Int == 1)
        #expect(imported.json["duplicatesAdded"] as? Int == 1)
    }

    @Test("an import file may be far larger than other requests")
    func importUploadLimit() throws {
        let big = Data(repeating: UInt8(ascii: "x"), count: 200_000)
        let answer = try web.send("POST", "/api/import?format=csv&name=big.csv", body: big)
        #expect(answer.status == 422, "read and judged as a sheet, not refused for its size")
        #expect(try web.library().counts().words == 0)
    }

    @Test("a sync folder set from Settings syncs, and status shows this device")
    func remoteAndSync() throws {
        let folder = web.directory + "/cloud"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try web.send("POST", "/api/words", json: #"{"term": "nube"}"#)
        let set = try web.send("PUT", "/api/remote", json: "{\"folder\": \"\(folder)\"}")
        #expect(set.status == 200)
        #expect(set.json["remoteFolder"] as? String == folder)
        let sync = try web.send("POST", "/api/sync")
        #expect(sync.json["synced"] as? Bool == true)
        #expect(sync.json["pushed"] as? Int == 1)
        let status = try web.send("GET", "/api/status").json
        #expect(status["pending"] as? Int == 0)
        #expect((status["devices"] as? [[String: Any]])?.first?["isThisDevice"] as? Bool == true)
        #expect(try web.send("PUT", "/api/remote", json: #"{"folder": "relative/path"}"#).json["field"] as? String == "folder")
    }

    @Test("an empty file chosen to restore or import is named as empty; with no file chosen the page is asked for one")
    func emptyUploads() throws {
        for (target, done) in [("/api/backup/restore", "restored"), ("/api/import", "imported")] {
            let empty = try web.send("POST", target + "?name=vac%C3%ADo.json")
            #expect(empty.status == 400)
            #expect(empty.json["error"] as? String == "vacío.json is empty (0 bytes); nothing was \(done)", "\(empty.text)")
            #expect(empty.json["field"] as? String == "file")
            let none = try web.send("POST", target)
            #expect((none.json["error"] as? String ?? "").hasPrefix("choose a"), "\(none.text)")
        }
    }

    @Test(
        "a sync folder that is a file, or inside a folder that does not exist, is refused as the command line refuses it, naming it",
        arguments: ["file", "missing", "unwritable"])
    func badFolderRefused(_ kind: String) throws {
        let good = web.directory + "/cloud"
        try FileManager.default.createDirectory(atPath: good, withIntermediateDirectories: true)
        #expect(try web.send("PUT", "/api/remote", json: "{\"folder\": \"\(good)\"}").status == 200)
        let file = web.directory + "/notes.txt"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        // /proc: a folder no file can be made in, whoever runs the test (root too).
        let path = kind == "file" ? file : kind == "unwritable" ? "/proc" : web.directory + "/nope/deeper"

        let refused = try web.send("PUT", "/api/remote", json: "{\"folder\": \"\(path)\"}")
        #expect(refused.status == 400)
        #expect(refused.json["field"] as? String == "folder")
        let message = refused.json["error"] as? String ?? ""
        let expected =
            switch kind {
            case "file": "\(file) is a file, not a folder"
            case "unwritable": "cannot write in /proc"
            default: "\(web.directory)/nope does not exist"
            }
        #expect(message.contains(expected), "\(message)")
        #expect(try web.send("GET", "/api/status").json["remoteFolder"] as? String == good, "the remote set before stays")
        #expect(!FileManager.default.fileExists(atPath: web.directory + "/nope"))
    }

    @Test("a WebDAV server set from Settings keeps its password beside the library, owner-only, and never sends it back")
    func webDAVRemote() throws {
        let secret = "s3cret-\(UUID().uuidString)"
        let set = try web.send(
            "PUT", "/api/remote",
            json: """
                {"webdav": "https://cloud.example.com/remote.php/dav/files/ana/MiDiccio", "user": "ana", "password": "\(secret)"}
                """)
        #expect(set.status == 200)
        #expect(set.json["remoteWebDAV"] as? String == "https://cloud.example.com/remote.php/dav/files/ana/MiDiccio")
        #expect(set.json["remoteUser"] as? String == "ana")
        #expect(!set.text.contains(secret))
        #expect(!(try web.send("GET", "/api/status")).text.contains(secret))

        let credentials = web.libraryPath + ".credentials"
        let attributes = try FileManager.default.attributesOfItem(atPath: credentials)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: credentials)), as: UTF8.self).contains(secret))
        #expect(!String(decoding: try Data(contentsOf: URL(fileURLWithPath: web.libraryPath)), as: UTF8.self).contains(secret))

        let bad = try web.send("PUT", "/api/remote", json: #"{"webdav": "ftp://example.com/x"}"#)
        #expect(bad.status == 400)
        #expect(bad.json["field"] as? String == "webdav")
        let noUser = try web.send("PUT", "/api/remote", json: #"{"webdav": "https://example.com/x", "password": "p"}"#)
        #expect(noUser.json["field"] as? String == "user")
    }
}
