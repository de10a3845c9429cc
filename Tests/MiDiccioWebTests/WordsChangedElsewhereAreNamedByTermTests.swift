import Foundation
import MiDiccioKit
import Testing

@testable import MiDiccioWeb

/// A word the page shows can change elsewhere meanwhile (another window, the command
/// line, a sync). The page then showed the library's own messages, with word ids in
/// them ("no word with id 46a702a7-…"); it names words by their terms, and says what
/// happened.
@Suite("Words changed elsewhere are named by their terms, never by ids")
final class WordsChangedElsewhereAreNamedByTermTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("saving a word moved to the Trash or purged elsewhere, restoring one restored elsewhere: said without ids")
    func saidWithoutIDs() throws {
        let library = try web.library()
        let word = try library.add(WordContent(term: "conc", meaning: "m")).word
        _ = try library.delete([word.id])

        let inTrash = try web.send("PUT", "/api/words/\(word.id)", json: #"{"meaning": "typed"}"#)
        #expect(inTrash.status == 409)
        let trashMessage = inTrash.json["error"] as? String ?? ""
        #expect(trashMessage.contains("\u{201C}conc\u{201D} is in the Trash now"), "\(trashMessage)")
        #expect(!trashMessage.contains(word.id.rawValue))

        _ = try library.restore([word.id])
        let restored = try web.send("POST", "/api/trash/restore", json: #"{"ids": ["\#(word.id)"]}"#)
        let restoredMessage = restored.json["error"] as? String ?? ""
        #expect(!restoredMessage.contains(word.id.rawValue), "\(restoredMessage)")

        _ = try library.delete([word.id])
        _ = try library.purge([word.id])
        let purged = try web.send("PUT", "/api/words/\(word.id)", json: #"{"meaning": "typed"}"#)
        #expect(purged.status == 404)
        let purgedMessage = purged.json["error"] as? String ?? ""
        #expect(purgedMessage.contains("deleted permanently"), "\(purgedMessage)")
        #expect(!purgedMessage.contains(word.id.rawValue))
    }
}
