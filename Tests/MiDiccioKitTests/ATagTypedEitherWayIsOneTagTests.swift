import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// "café" typed on one computer holds é as one character; pasted on a Mac it is often e
/// and an accent. Swift took them as one tag, but the tag rows, which the tag list and
/// `list --tag` read, keyed them by bytes: the tag list showed "café" twice, and
/// `list --tag café` found only the words spelled the way it was typed.
@Suite("A tag typed either way is one tag")
struct ATagTypedEitherWayIsOneTagTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test("the tag list counts both spellings as one tag, and either spelling finds both words")
    func oneTagInListAndFilter() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let first = try library.add(WordContent(term: "cortado", tags: [Self.composed])).word.id
            let second = try library.add(WordContent(term: "espresso", tags: ["CAFE\u{301}"])).word.id
            let tags = try library.tags()
            #expect(tags.count == 1)
            #expect(tags.first?.count == 2)
            for spelling in [Self.composed, Self.decomposed, "CAF\u{C9}"] {
                #expect(
                    Set(try library.list(ListQuery(tag: spelling)).map(\.id)) == [first, second], "tag \(Array(spelling.unicodeScalars))")
                #expect(try library.tagCount(spelling) == 2)
                #expect(Set(try library.search("tag:\(spelling)").map(\.id)) == [first, second])
            }
            #expect(try library.search("-tag:\(Self.decomposed)").isEmpty)
        }
    }

    @Test("keys stay as they were for ASCII, kana, CJK and Hangul, and compose what needs it")
    func keys() {
        #expect(TagSet.key("Verb_2") == "verb_2")
        #expect(TagSet.key("ひらがな") == "ひらがな")
        #expect(Array(TagSet.key("か\u{3099}").unicodeScalars) == ["\u{304C}"], "kana with a voicing mark composes")
        #expect(TagSet.key("漢字") == "漢字")
        #expect(Array(TagSet.key("\u{1100}\u{1161}").unicodeScalars) == ["\u{AC00}"], "Hangul letters compose")
        #expect(Array(TagSet.key("\u{212A}elvin").unicodeScalars) == Array("kelvin".unicodeScalars))
        #expect(Array(TagSet.key(Self.decomposed).utf8) == Array(Self.composed.utf8))
    }

    @Test("opening a library made before this change merges the two spellings' rows, and nothing is to upload")
    func migrationMergesRows() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let one = try library.add(WordContent(term: "cortado", tags: [Self.composed, "bar"])).word.id
            let two = try library.add(WordContent(term: "espresso", tags: [Self.decomposed])).word.id
            let three = try library.add(WordContent(term: "lungo", tags: [Self.decomposed])).word.id
            try library.markAllUploaded()
            // The rows as the older MiDiccio keyed them (case folded only), with their counts,
            // and one word holding both spellings' rows.
            let database = library.database
            try database.execute("DELETE FROM word_tags")
            try database.execute("DELETE FROM tag_counts")
            let insert = "INSERT INTO word_tags (tag_key, word_seq, tag) SELECT ?, seq, ? FROM words WHERE id = ?"
            for (id, tag) in [(one, Self.composed), (one, "bar"), (two, Self.decomposed), (three, Self.decomposed), (three, Self.composed)]
            {
                try database.run(insert, [.text(tag.lowercased()), .text(tag), .text(id.rawValue)])
            }
            #expect(try library.tags().count == 3, "before the update: café twice, and bar")
            try database.run("DELETE FROM schema_migrations WHERE name = '2026-12-tag-keys-composed'")

            let reopened = try WordLibrary(path: fixture.path, clock: fixture.clock, environment: [:])
            let tags = try reopened.tags()
            #expect(tags.map(\.count) == [3, 1], "café on three words, bar on one")
            #expect(Set(try reopened.list(ListQuery(tag: Self.decomposed)).map(\.id)) == [one, two, three])
            #expect(try reopened.database.integer("SELECT count(*) FROM word_tags") == 4)
            #expect(try reopened.database.integer("SELECT count(*) FROM words WHERE pending = 1") == 0)
            #expect(try reopened.word(two)?.tags == [Self.decomposed], "the word keeps the spelling it was given")
        }
    }
}
