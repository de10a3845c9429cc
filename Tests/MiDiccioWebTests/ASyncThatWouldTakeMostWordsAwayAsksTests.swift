import Foundation
import MiDiccioKit
import MiDiccioSync
import Testing

@testable import MiDiccioWeb

/// The page synced on its own, was stopped by the guard against a sync taking most of
/// the library away, said "will try again" for ever, and had no way past it; the message
/// spoke of the Trash when the words would be purged for good.
@Suite("A sync that would take most words away asks the person, and Sync anyway goes on")
final class ASyncThatWouldTakeMostWordsAwayAsksTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("another device purged most words: 409 says they would be gone for good, and allowMassDelete=1 goes on")
    func purgedElsewhere() throws {
        let folder = web.directory + "/cloud"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<24 { _ = try web.send("POST", "/api/words", json: #"{"term": "palabra\#(index)"}"#) }
        #expect(try web.send("PUT", "/api/remote", json: "{\"folder\": \"\(folder)\"}").status == 200)
        #expect(try web.send("POST", "/api/sync").status == 200)

        // Another device, with all 24 words, purges 20 of them.
        let other = try WordLibrary(path: web.directory + "/other.sqlite")
        try other.setRemote(.folder(path: folder))
        let engine = SyncEngine(library: other, storage: FolderStorage(root: folder), appVersion: "test")
        _ = try engine.sync()
        var first20 = ListQuery()
        first20.limit = 20
        let ids = try other.list(first20).map(\.id)
        _ = try other.delete(ids)
        _ = try other.purge(ids)
        _ = try engine.sync()

        let stopped = try web.send("POST", "/api/sync")
        #expect(stopped.status == 409)
        #expect(stopped.json["field"] as? String == "massDeletion")
        let message = stopped.json["error"] as? String ?? ""
        #expect(message.contains("deleted them permanently"), "\(message)")
        #expect(message.contains("Download a backup") && message.contains("Sync anyway"), "\(message)")
        #expect(!message.contains("midiccio sync"), "no command-line advice on the page")
        #expect(try web.library().counts().words == 24, "nothing was changed")

        let anyway = try web.send("POST", "/api/sync?allowMassDelete=1")
        #expect(anyway.status == 200)
        #expect(try web.library().counts().words == 4)
    }
}
