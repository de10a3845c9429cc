import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioStore
@testable import MiDiccioWeb

/// A Kindle word looked up in more sentences than one word holds becomes several words of
/// its term; the import page says so rather than counting them as duplicates (found by the
/// exploratory helper, round 26B #5).
@Suite("A word looked up more often than a word holds sentences imports whole")
final class AWordLookedUpOftenImportsWholeTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("the preview and the import give the words made of its sentences past 50 apart, and no duplicate")
    func splitWordsAreNamed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vocab-\(UUID().uuidString).db").path
        try FileManager.default.copyItem(atPath: testFixture("Import/vocab.db"), toPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let database = try Database(path: path, create: false)
            try database.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120) "
                    + "INSERT INTO LOOKUPS (id, word_key, book_key, usage, timestamp) "
                    + "SELECT 'many' || i, 'en:hobbit', 'hobbit:1', 'Sentence ' || i || ' with the hobbit.', 1709251200000 + i FROM n;"
                    + "PRAGMA journal_mode = DELETE;")
        }
        let file = try #require(FileManager.default.contents(atPath: path))
        let preview = try web.send("POST", "/api/import?name=vocab.db&dryRun=1", body: file)
        #expect(preview.status == 200 && preview.json["splitWords"] as? Int == 2 && preview.json["rows"] as? Int == 3, "\(preview.json)")
        let answer = try web.send("POST", "/api/import?name=vocab.db&skipDuplicates=1", body: file)
        #expect(answer.json["added"] as? Int == 5 && answer.json["skippedDuplicates"] as? Int == 0, "\(answer.json)")
        #expect(answer.json["duplicatesAdded"] as? Int == 0)
    }
}
