import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// A replace gives every word of the backup a new time, so it wins on every device; into a
/// library that holds no words (a new laptop) that undid, on every device it then synced
/// with, each edit made since the backup. The app says when a replace merged instead.
@Suite("A replace restore into an empty library merges, and the app is told")
final class AReplaceRestoreIntoAnEmptyLibraryMergesTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("into the empty library the report says it merged; into one that holds words it replaces")
    func mergedIntoEmpty() throws {
        let elsewhere = try WordLibrary(path: web.directory + "/elsewhere.sqlite")
        try elsewhere.add(WordContent(term: "uno", meaning: "one"))
        let path = web.directory + "/backup.json"
        try elsewhere.exportBackup(to: path)
        let backup = try Data(contentsOf: URL(fileURLWithPath: path))

        let first = try web.send("POST", "/api/backup/restore?replace=1&key=r1", body: backup)
        #expect(first.status == 200)
        #expect(first.json["mergedIntoEmpty"] as? Bool == true)
        #expect(first.json["added"] as? Int == 1)
        let second = try web.send("POST", "/api/backup/restore?replace=1&key=r2", body: backup)
        #expect(second.json["mergedIntoEmpty"] as? Bool == false)
        #expect(second.json["unchanged"] as? Int == 1)
    }
}
