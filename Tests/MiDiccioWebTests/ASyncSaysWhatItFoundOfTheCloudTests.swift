import Foundation
import MiDiccioKit
import MiDiccioSync
import Testing

@testable import MiDiccioWeb

/// What a sync found of the cloud (a new one it started, one started again elsewhere, one
/// set back to) was said by the command line only: the page said "Synced". `api/sync`
/// now gives the same notes (`SyncReport.cloudNotes`), and the page shows them.
@Suite("A sync from the web app says what it found of the cloud, as the command line does")
final class ASyncSaysWhatItFoundOfTheCloudTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    private func notes() throws -> [String] {
        let response = try web.send("POST", "/api/sync")
        #expect(response.status == 200)
        return try #require(response.json["notes"] as? [String], "\(response.json)")
    }

    @Test("a new cloud started, then nothing to say, then a cloud started again elsewhere: each said once")
    func notesOfTheCloud() throws {
        let folder = web.directory + "/cloud"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try web.send("POST", "/api/words", json: #"{"term": "palabra"}"#)
        #expect(try web.send("PUT", "/api/remote", json: "{\"folder\": \"\(folder)\"}").status == 200)
        let first = try notes()
        #expect(first.count == 1 && first.first?.contains("so this sync started it there") == true, "\(first)")
        let started = first.first ?? ""
        #expect(started.contains("check the sync folder in Settings"), "\(first)")
        #expect(!started.contains("midiccio remote"), "no command-line advice: \(first)")
        #expect(try notes().isEmpty)

        let manifestPath = folder + "/midiccio-sync.json"
        var manifest = try #require(CloudManifest.decode(try Data(contentsOf: URL(fileURLWithPath: manifestPath))))
        manifest.cloud = CloudManifest.newCloudID()
        try manifest.encoded().write(to: URL(fileURLWithPath: manifestPath))
        let again = try notes()
        #expect(again.count == 1 && again.first?.contains("was started again since this device last synced") == true, "\(again)")
        #expect(try notes().isEmpty)
    }

    @Test("words another device purged are named, and edits made here to them are said to be discarded")
    func purgedElsewhere() throws {
        let folder = web.directory + "/cloud"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let saved = try web.send("POST", "/api/words", json: #"{"term": "palabra"}"#)
        let id = try #require((saved.json["word"] as? [String: Any])?["id"] as? String, "\(saved.json)")
        _ = try web.send("POST", "/api/words", json: #"{"term": "otra"}"#)
        #expect(try web.send("PUT", "/api/remote", json: "{\"folder\": \"\(folder)\"}").status == 200)
        _ = try notes()

        // Another device purges "palabra" while the page edits it.
        let other = try WordLibrary(path: web.directory + "/other.sqlite")
        try other.setRemote(.folder(path: folder))
        let engine = SyncEngine(library: other, storage: FolderStorage(root: folder), appVersion: "test")
        _ = try engine.sync()
        let wordID = try #require(WordID(id))
        _ = try other.delete([wordID])
        _ = try other.purge([wordID])
        _ = try engine.sync()
        #expect(try web.send("PUT", "/api/words/\(id)", json: #"{"term": "palabra", "meaning": "word"}"#).status == 200)

        let response = try web.send("POST", "/api/sync")
        #expect(response.status == 200)
        #expect(response.json["purgedEditedHere"] as? Int == 1)
        let note = response.json["purgeNote"] as? String ?? ""
        let said =
            "1 word was purged on another device and removed here: \u{201C}palabra\u{201D}; it had edits (or study answers) made here"
        #expect(note.contains(said), "\(response.json)")
        #expect(try web.library().counts().words == 1)
        let quiet = try web.send("POST", "/api/sync")
        #expect(quiet.json["purgeNote"] is NSNull && quiet.json["purgedEditedHere"] as? Int == 0, "\(quiet.json)")
    }

    @Test("a change file another device's record names that is not in the cloud: the device is named until its word arrives")
    func missingChangeFile() throws {
        let folder = web.directory + "/cloud"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try web.send("PUT", "/api/remote", json: "{\"folder\": \"\(folder)\"}").status == 200)
        let other = try WordLibrary(path: web.directory + "/other.sqlite")
        try other.setRemote(.folder(path: folder))
        try other.setDeviceName("Tablet")
        let engine = SyncEngine(library: other, storage: FolderStorage(root: folder), appVersion: "test")
        _ = try other.add(WordContent(term: "perro"))
        _ = try engine.sync()
        _ = try notes()
        let before = Set(try FileManager.default.subpathsOfDirectory(atPath: folder))
        _ = try other.add(WordContent(term: "lobo"))
        _ = try engine.sync()
        let written = try FileManager.default.subpathsOfDirectory(atPath: folder)
        let lost = try #require(written.first { $0.hasSuffix(".chg") && !before.contains($0) })
        try FileManager.default.removeItem(atPath: folder + "/" + lost)

        let response = try web.send("POST", "/api/sync")
        #expect(response.json["unreadFrom"] as? [String] == ["Tablet"], "\(response.json)")
        let said = try #require(response.json["notes"] as? [String])
        #expect(said.contains { $0.hasPrefix("Not every change of Tablet has arrived here yet") }, "\(said)")
        _ = try engine.sync()
        #expect(try notes().isEmpty)
        #expect(try web.library().search("lobo").count == 1)
    }
}
