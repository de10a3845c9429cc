import Foundation
import MiDiccioKit
import Testing

@testable import MiDiccioWeb

/// With no remote, the Trash's clean-up (`trash.autoPurgeDays`) runs when a command opens
/// the library. The web app opens it once and stays: left running, it never cleaned the
/// Trash, and nothing in it said why words stayed (found by the exploratory helper, round
/// 17A G11). The page's sync, when it opens and every few minutes, now runs the clean-up
/// when there is no remote to sync with, and Settings says what it keeps and why.
@Suite("The web app cleans the Trash of a library that does not sync")
final class TheWebAppCleansTheTrashWithoutSyncTests {
    let web: WebFixture
    private static let day: Int64 = 86_400_000

    init() throws { web = try WebFixture() }

    /// Adds `term` through the app, moves it to the Trash, and has this device have seen it
    /// there `days` days ago; its id.
    private func inTheTrash(_ term: String, sinceDaysAgo days: Int64) throws -> String {
        let added = try web.send("POST", "/api/words", json: "{\"term\": \"\(term)\"}")
        let id = try #require((added.json["word"] as? [String: Any])?["id"] as? String ?? added.json["id"] as? String, "\(added.json)")
        #expect(try web.send("DELETE", "/api/words/\(id)").status == 200)
        let library = try web.library()
        let seen = Int64(Date().timeIntervalSince1970 * 1000) - days * Self.day
        try library.database.run("UPDATE words SET trash_seen_at = ? WHERE id = ?", [.integer(seen), .text(id)])
        return id
    }

    @Test("the page's sync with no remote purges what is past its days, says so, and keeps the rest")
    func purgesPastItsDays() throws {
        try web.library().setSetting(.autoPurgeDays, to: "7")
        _ = try inTheTrash("vieja", sinceDaysAgo: 8)
        _ = try inTheTrash("reciente", sinceDaysAgo: 2)
        // Settings read before the clean-up ran: nothing is kept, it goes at the page's sync
        // (it said a backup restore kept it, round 18A).
        #expect(try web.send("GET", "/api/status").json["trashHeld"] is NSNull)
        let response = try web.send("POST", "/api/sync")
        #expect(response.status == 200)
        #expect(response.json["synced"] as? Bool == false)
        #expect(response.json["purged"] as? Int == 1, "\(response.json)")
        let notes = try #require(response.json["notes"] as? [String])
        #expect(notes.count == 1 && notes.first?.hasPrefix("Deleted permanently 1 word that had been in the Trash") == true, "\(notes)")
        let trash = try web.send("GET", "/api/trash").json
        #expect((trash["words"] as? [[String: Any]])?.compactMap { $0["term"] as? String } == ["reciente"], "\(trash)")

        let again = try web.send("POST", "/api/sync").json
        #expect(again["purged"] as? Int == 0)
        #expect((again["notes"] as? [String])?.isEmpty == true)
    }

    @Test("a sync through a cloud that runs the clean-up says what it deleted, as the command line does")
    func aSyncSaysWhatTheCleanUpDeleted() throws {
        let folder = web.directory + "/cloud"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(try web.send("PUT", "/api/remote", json: "{\"folder\": \"\(folder)\"}").status == 200)
        try web.library().setSetting(.autoPurgeDays, to: "7")
        let id = try inTheTrash("vieja", sinceDaysAgo: 0)
        #expect(try web.send("POST", "/api/sync").json["synced"] as? Bool == true)
        // Sent, and seen in the Trash eight days ago since.
        let seen = Int64(Date().timeIntervalSince1970 * 1000) - 8 * Self.day
        try web.library().database.run("UPDATE words SET trash_seen_at = ? WHERE id = ?", [.integer(seen), .text(id)])
        let response = try web.send("POST", "/api/sync").json
        #expect(response["purged"] as? Int == 1, "\(response)")
        let notes = try #require(response["notes"] as? [String])
        #expect(notes.contains { $0.hasPrefix("Deleted permanently 1 word that had been in the Trash") }, "\(notes)")
    }

    @Test("what the clean-up deleted as serve opened the library, the page's first sync says, once")
    func whatServeDeletedAtStartIsSaid() throws {
        web.app.notePurgedAtStart(2)
        let response = try web.send("POST", "/api/sync").json
        #expect(response["purged"] as? Int == 2, "\(response)")
        let notes = try #require(response["notes"] as? [String])
        #expect(notes == [WordLibrary.autoPurgedNote(2)], "\(notes)")
        let again = try web.send("POST", "/api/sync").json
        #expect(again["purged"] as? Int == 0 && (again["notes"] as? [String])?.isEmpty == true, "\(again)")
    }

    @Test("with the setting off, nothing goes")
    func nothingWithTheSettingOff() throws {
        _ = try inTheTrash("vieja", sinceDaysAgo: 400)
        let response = try web.send("POST", "/api/sync").json
        #expect(response["purged"] as? Int == 0)
        #expect((try web.send("GET", "/api/trash").json["words"] as? [[String: Any]])?.count == 1)
    }

    @Test("a library that synced with another device keeps them, and Settings says why")
    func keptForTheOtherDevicesSaysWhy() throws {
        let folder = web.directory + "/cloud"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let other = try WordLibrary(path: web.directory + "/other.sqlite", environment: [:])
        try other.setRemote(.folder(path: folder))
        try other.setDeviceName("phone")
        _ = try SyncEngine(library: other, storage: FolderStorage(root: folder), appVersion: "test").sync()
        #expect(try web.send("PUT", "/api/remote", json: "{\"folder\": \"\(folder)\"}").status == 200)
        #expect(try web.send("POST", "/api/sync").json["synced"] as? Bool == true)
        #expect(try web.send("PUT", "/api/remote", json: "{\"folder\": \"\"}").status == 200)
        try web.library().setSetting(.autoPurgeDays, to: "7")
        #expect(try web.send("GET", "/api/status").json["trashHeld"] is NSNull)
        _ = try inTheTrash("vieja", sinceDaysAgo: 8)

        #expect(try web.send("POST", "/api/sync").json["purged"] as? Int == 0)
        let held = try #require(web.send("GET", "/api/status").json["trashHeld"] as? String)
        #expect(held.contains("1 word in the Trash is past trash.autoPurgeDays (7) and kept"), "\(held)")
        #expect(held.contains("phone"), "\(held)")
    }
}
