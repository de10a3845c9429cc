import Foundation
import MiDiccioKit
import MiDiccioTesting
import Testing

/// A person opens a word in the web app's editor; meanwhile a sync, or `midiccio edit` in
/// a terminal, gives the word a note and a tag. The editor sent every field as it had shown
/// them, so saving a new meaning wrote the old note and tags back: the other change was
/// gone without a word (found in a browser). The editor now sends what it showed as
/// `base`, and only the fields the person changed are set, the tags as added and removed.
@Suite("An edit in the web app keeps what changed elsewhere while the editor was open")
final class AnEditKeepsWhatChangedElsewhereMeanwhileTests {
    let web: WebFixture
    let id: WordID
    /// The word's fields as the editor showed them, as it sends them.
    let shown = #"{"term": "perro", "reading": "", "meaning": "dog", "examples": ["el perro", ""], "notes": "", "tags": ["animal"]}"#

    init() throws {
        web = try WebFixture()
        let added = try web.library().add(
            WordContent(term: "perro", meaning: "dog", examples: ["el perro"], tags: ["animal"]))
        id = added.word.id
    }

    /// The editor's save: `fields` over what it showed, with what it showed as `base`.
    private func save(_ fields: [String: Any], base: Bool = true) throws -> RawResponse {
        var body = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as! [String: Any]
        for (name, value) in fields { body[name] = value }
        if base { body["base"] = try JSONSerialization.jsonObject(with: Data(shown.utf8)) }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        return try web.send("PUT", "/api/words/\(id)", json: text)
    }

    /// What another program does meanwhile: a note and a tag.
    private func changeElsewhere() throws {
        _ = try web.library().edit(id, WordEdit(notes: "from the other laptop", addTags: ["viaje"]))
    }

    @Test("a new meaning is saved, and the note and the tag put on elsewhere stay")
    func otherFieldsKept() throws {
        try changeElsewhere()
        let saved = try save(["meaning": "a dog"])
        #expect(saved.status == 200, "\(saved.text)")
        let word = try #require(try web.library().word(id))
        #expect(word.meaning == "a dog")
        #expect(word.notes == "from the other laptop")
        #expect(Set(word.tags) == ["animal", "viaje"])
        #expect(word.examples == ["el perro"])
        #expect(saved.json["keptFromElsewhere"] as? [String] == ["notes", "tags"])
    }

    @Test("tags added and removed in the editor are added and removed; one put on elsewhere stays")
    func tagsMerge() throws {
        try changeElsewhere()
        #expect(try save(["tags": ["mascota"]]).status == 200)
        #expect(Set(try #require(try web.library().word(id)).tags) == ["mascota", "viaje"])
    }

    @Test(
        "tags only reordered, or their case changed, in the editor keep a tag taken off elsewhere off and one put on elsewhere",
        arguments: [
            (["food", "verb", "spanish"], ["food", "verb", "travel"]),
            (["Verb", "spanish", "food"], ["Verb", "food", "travel"]),
        ])
    func reorderOverChangesElsewhere(typed: [String], expected: [String]) throws {
        let word = try web.library().add(WordContent(term: "hablar", tags: ["verb", "spanish", "food"])).word
        _ = try web.library().edit(word.id, WordEdit(addTags: ["travel"], removeTags: ["spanish"]))
        let shown: [String: Any] = ["term": "hablar", "reading": "", "meaning": "", "examples": [""], "notes": "", "tags": word.tags]
        var body = shown
        body["tags"] = typed
        body["base"] = shown
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let saved = try web.send("PUT", "/api/words/\(word.id)", json: text)
        #expect(saved.status == 200, "\(saved.text)")
        #expect(try web.library().word(word.id)?.tags == expected)
        #expect(saved.json["keptFromElsewhere"] as? [String] == ["tags"])
    }

    @Test("a field changed both here and elsewhere takes what was typed here, the last save")
    func sameFieldTakesTheSave() throws {
        try changeElsewhere()
        let saved = try save(["notes": "typed in the editor"])
        #expect(saved.status == 200)
        #expect(try web.library().word(id)?.notes == "typed in the editor")
        #expect(saved.json["keptFromElsewhere"] as? [String] == ["tags"])
        // The page is told what the save replaced, to say so.
        let replaced = try #require(saved.json["replacedFromElsewhere"] as? [[String: Any]])
        #expect(replaced.count == 1)
        #expect(replaced.first?["field"] as? String == "notes")
        #expect(replaced.first?["was"] as? String == "from the other laptop")
    }

    @Test("with nothing changed elsewhere, the answer names nothing kept")
    func nothingElsewhere() throws {
        let saved = try save(["meaning": "a dog", "examples": ["el perro", "un perro"]])
        #expect(saved.status == 200)
        #expect(saved.json["keptFromElsewhere"] == nil)
        #expect(saved.json["replacedFromElsewhere"] == nil)
        #expect(try web.library().word(id)?.examples == ["el perro", "un perro"])
    }

    @Test("without base (a script), every field sent is set, as before")
    func withoutBaseEveryFieldIsSet() throws {
        try changeElsewhere()
        #expect(try save(["meaning": "a dog"], base: false).status == 200)
        let word = try #require(try web.library().word(id))
        #expect(word.notes == "")
        #expect(word.tags == ["animal"])
    }

    @Test("a base that is not an object is refused, naming it, and nothing changes")
    func badBase() throws {
        let answer = try web.send("PUT", "/api/words/\(id)", json: #"{"meaning": "x", "base": "dog"}"#)
        #expect(answer.status == 400)
        #expect(answer.json["field"] as? String == "base")
        #expect(try web.library().word(id)?.meaning == "dog")
    }
}
