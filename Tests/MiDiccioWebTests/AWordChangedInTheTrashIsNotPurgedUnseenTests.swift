import Foundation
import MiDiccioKit
import Testing

@testable import MiDiccioWeb

/// A word moved to the Trash here that another device had edited before the move reached
/// it: the Trash page showed it as it was, Empty Trash (or Delete permanently) synced
/// first, which brought the edit into the Trash, and then purged it, edit and all, on
/// every device. The command line refuses in that case (found by the exploratory helper,
/// round 27B #1). The same when another program changed the word in the Trash meanwhile.
@Suite("A word changed in the Trash since the page showed it is not deleted permanently unseen")
final class AWordChangedInTheTrashIsNotPurgedUnseenTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    /// The Trash as the page reads it: each entry's id and version, and the whole Trash's key.
    private func shownTrash() throws -> (ids: [String], versions: [String], whole: Int, key: String) {
        let page = try web.send("GET", "/api/trash").json
        let ids = (page["words"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        let versions = try #require(page["versions"] as? [String], "\(page)")
        return (ids, versions, page["whole"] as? Int ?? -1, page["wholeKey"] as? String ?? "")
    }

    /// Moves `term` to the Trash, has the page read the Trash, then changes the word there
    /// from a terminal: restored, edited, and moved to the Trash again (the helper's case
    /// without a sync; `TheTrashKnowsWhichWordsItHoldsTests` pulls an edit through one).
    private func trashedThenChanged(
        _ library: WordLibrary, _ term: String
    ) throws -> (WordID, shown: (ids: [String], versions: [String], whole: Int, key: String)) {
        let id = try library.add(WordContent(term: term, meaning: "as shown")).word.id
        _ = try library.delete([id])
        let shown = try shownTrash()
        _ = try library.restore([id])
        _ = try library.edit(id, WordEdit(notes: "written on another device"))
        _ = try library.delete([id])
        return (id, shown)
    }

    @Test("Delete permanently of a word changed since shown is refused and names it; shown again, it is deleted")
    func chosenWordChanged() throws {
        let library = try web.library()
        let (id, shown) = try trashedThenChanged(library, "nube")
        #expect(shown.ids == [id.rawValue] && shown.versions.count == 1)

        let refused = try web.send(
            "POST", "/api/bulk/purge", json: #"{"ids": ["\#(id.rawValue)"], "versions": ["\#(shown.versions[0])"]}"#)
        #expect(refused.status == 409)
        let message = refused.json["error"] as? String ?? ""
        #expect(message.contains("1 word chosen changed since the Trash was shown"), "\(message)")
        #expect(message.contains("\u{201C}nube\u{201D}") && message.contains("nothing was deleted"), "\(message)")
        #expect(try library.word(id)?.notes == "written on another device")

        let again = try shownTrash()
        #expect(again.versions != shown.versions)
        let purged = try web.send(
            "POST", "/api/bulk/purge", json: #"{"ids": ["\#(id.rawValue)"], "versions": ["\#(again.versions[0])"]}"#)
        #expect(purged.status == 200 && purged.json["purged"] as? Int == 1, "\(purged.json)")
        #expect(try library.word(id) == nil)
    }

    @Test("Empty Trash asked about a Trash whose word changed since is refused, as is every entry chosen from it")
    func emptyTrashOfAChangedWord() throws {
        let library = try web.library()
        let (id, shown) = try trashedThenChanged(library, "lluvia")
        let refused = try web.send("POST", "/api/trash/empty", json: #"{"expect": \#(shown.whole), "expectKey": "\#(shown.key)"}"#)
        #expect(refused.status == 409, "\(refused.json)")
        #expect(try library.word(id) != nil)
        let again = try shownTrash()
        #expect(again.whole == shown.whole && again.key != shown.key)
        let emptied = try web.send("POST", "/api/trash/empty", json: #"{"expect": \#(again.whole), "expectKey": "\#(again.key)"}"#)
        #expect(emptied.json["purged"] as? Int == 1, "\(emptied.json)")
    }

    @Test("versions that do not match the ids are refused as a bad request")
    func versionsOfAnotherLength() throws {
        let library = try web.library()
        let id = try library.add(WordContent(term: "sol")).word.id
        _ = try library.delete([id])
        let refused = try web.send("POST", "/api/bulk/purge", json: #"{"ids": ["\#(id.rawValue)"], "versions": []}"#)
        #expect(refused.status == 400)
        #expect(try library.word(id) != nil)
    }
}
