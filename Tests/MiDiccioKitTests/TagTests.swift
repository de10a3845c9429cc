import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Tags")
struct TagTests {
    @Test("tags are a set compared ignoring case, kept in the form and order first written")
    func tagsAreACaseInsensitiveSet() throws {
        try withTemporaryLibrary { fixture in
            let word = try fixture.library.add(WordContent(term: "t", tags: ["Verb", "es", "verb", "VERB", "ES", "a1"])).word
            #expect(word.tags == ["Verb", "es", "a1"])
            #expect(try fixture.library.word(word.id)?.tags == ["Verb", "es", "a1"])
        }
    }

    @Test("adding a tag that is already there in another case changes nothing")
    func addExistingTagInOtherCase() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "t", tags: ["Verb"])).word
            fixture.clock.advance(by: 1_000)
            let edited = try library.edit(word.id, WordEdit(addTags: ["VERB", "verb"]))
            #expect(edited.tags == ["Verb"])
            #expect(try library.required(word.id).times.tags == word.createdAt)
        }
    }

    @Test("removing a tag works in any case and adding puts new tags at the end", arguments: ["NOUN", "noun", "Noun"])
    func removeInAnyCase(removed: String) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "t", tags: ["a1", "noun", "es"])).word
            let edited = try library.edit(word.id, WordEdit(addTags: ["Food"], removeTags: [removed]))
            #expect(edited.tags == ["a1", "es", "Food"])
            #expect(try library.list(ListQuery(tag: "noun")).isEmpty)
            #expect(try library.list(ListQuery(tag: "food")).map(\.id) == [word.id])
            #expect(try library.search("food").map(\.id) == [word.id])
        }
    }

    @Test("a tag removed and added in one edit ends up added")
    func removeThenAdd() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "t", tags: ["old", "keep"])).word
            let edited = try library.edit(word.id, WordEdit(addTags: ["OLD"], removeTags: ["old"]))
            #expect(edited.tags == ["keep", "OLD"])
        }
    }

    @Test("replacing the tags then adding and removing applies in that order")
    func replaceThenAdjust() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "t", tags: ["x", "y"])).word
            let edited = try library.edit(word.id, WordEdit(tags: ["p", "q", "r"], addTags: ["s"], removeTags: ["Q", "x"]))
            #expect(edited.tags == ["p", "r", "s"])
        }
    }

    @Test("tag counts merge spellings, leave out the Trash and put the most used first")
    func tagCounts() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.add(WordContent(term: "uno", tags: ["Spanish", "numbers"]))
            try library.add(WordContent(term: "dos", tags: ["spanish", "numbers"]))
            try library.add(WordContent(term: "tres", tags: ["SPANISH"]))
            try library.add(WordContent(term: "casa", tags: ["nouns"]))
            let gone = try library.add(WordContent(term: "gato", tags: ["nouns", "animals"])).word
            try library.delete([gone.id])

            let counts = try library.tags()
            #expect(counts.map(\.count) == [3, 2, 1])
            #expect(counts.map { TagSet.key($0.tag) } == ["spanish", "numbers", "nouns"])
            #expect(["Spanish", "spanish", "SPANISH"].contains(counts[0].tag))

            try library.restore([gone.id])
            let restored = try library.tags()
            #expect(restored.first { $0.tag == "nouns" }?.count == 2)
            #expect(restored.first { $0.tag == "animals" }?.count == 1)
        }
    }

    @Test("a tag with a space in it is refused and the message suggests - or _")
    func tagWithSpaceRefused() throws {
        try withTemporaryLibrary { fixture in
            let error = #expect(throws: LibraryError.self) {
                try fixture.library.add(WordContent(term: "t", tags: ["phrasal verbs"]))
            }
            #expect(error?.validationError?.field == "tags")
            #expect(error?.description.contains("use - or _") == true)
        }
    }
}
