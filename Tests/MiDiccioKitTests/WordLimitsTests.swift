import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// One row of the limits table: a word, and the field an error must name (nil: accepted).
struct LimitCase: Sendable, CustomTestStringConvertible {
    var name: String
    var content: WordContent
    var refusedField: String?

    var testDescription: String { name }

    static func text(_ count: Int, _ character: Character = "a") -> String {
        String(repeating: character, count: count)
    }

    static let all: [LimitCase] = [
        LimitCase(name: "term of 500 characters", content: WordContent(term: text(500)), refusedField: nil),
        LimitCase(name: "term of 501 characters", content: WordContent(term: text(501)), refusedField: "term"),
        LimitCase(name: "term of 500 accented characters (1,000 bytes)", content: WordContent(term: text(500, "é")), refusedField: nil),
        LimitCase(name: "term of 501 emoji", content: WordContent(term: text(501, "👩‍👩‍👧")), refusedField: "term"),
        LimitCase(name: "empty term", content: WordContent(term: ""), refusedField: "term"),
        LimitCase(name: "whitespace-only term", content: WordContent(term: " \t\n\u{00A0} "), refusedField: "term"),
        LimitCase(name: "meaning of 20,000 characters", content: WordContent(term: "t", meaning: text(20_000)), refusedField: nil),
        LimitCase(name: "meaning of 20,001 characters", content: WordContent(term: "t", meaning: text(20_001)), refusedField: "meaning"),
        LimitCase(name: "reading of 20,000 characters", content: WordContent(term: "t", reading: text(20_000)), refusedField: nil),
        LimitCase(name: "reading of 20,001 characters", content: WordContent(term: "t", reading: text(20_001)), refusedField: "reading"),
        LimitCase(name: "notes of 20,000 characters", content: WordContent(term: "t", notes: text(20_000)), refusedField: nil),
        LimitCase(name: "notes of 20,001 characters", content: WordContent(term: "t", notes: text(20_001)), refusedField: "notes"),
        LimitCase(name: "an example of 20,000 characters", content: WordContent(term: "t", examples: [text(20_000)]), refusedField: nil),
        LimitCase(
            name: "second example of 20,001 characters", content: WordContent(term: "t", examples: ["ok", text(20_001)]),
            refusedField: "examples[2]"),
        LimitCase(name: "50 examples", content: WordContent(term: "t", examples: (1...50).map { "example \($0)" }), refusedField: nil),
        LimitCase(
            name: "51 examples", content: WordContent(term: "t", examples: (1...51).map { "example \($0)" }), refusedField: "examples"),
        LimitCase(name: "an example of two lines", content: WordContent(term: "t", examples: ["one\ntwo"]), refusedField: "examples[1]"),
        LimitCase(name: "50 tags", content: WordContent(term: "t", tags: (1...50).map { "tag\($0)" }), refusedField: nil),
        LimitCase(name: "51 tags", content: WordContent(term: "t", tags: (1...51).map { "tag\($0)" }), refusedField: "tags"),
        LimitCase(
            name: "51 tags that are 50 ignoring case", content: WordContent(term: "t", tags: (1...50).map { "tag\($0)" } + ["TAG1"]),
            refusedField: nil),
        LimitCase(name: "a tag of 64 characters", content: WordContent(term: "t", tags: [text(64)]), refusedField: nil),
        LimitCase(name: "a tag of 65 characters", content: WordContent(term: "t", tags: [text(65)]), refusedField: "tags"),
        LimitCase(name: "a tag with a space", content: WordContent(term: "t", tags: ["two words"]), refusedField: "tags"),
    ]
}

@Suite("Word limits")
struct WordLimitsTests {
    @Test("a word at a limit is added and a word past it is refused, naming the field", arguments: LimitCase.all)
    func addChecksLimits(limit: LimitCase) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            if let field = limit.refusedField {
                let error = #expect(throws: LibraryError.self) { try library.add(limit.content) }
                #expect(error?.validationError?.field == field)
                #expect(error?.description.hasPrefix("\(field): ") == true, "\(String(describing: error))")
                #expect(try library.counts().words == 0)
            } else {
                let word = try library.add(limit.content).word
                #expect(try library.word(word.id) == word)
                #expect(word.term == limit.content.term.trimmingCharacters(in: .whitespacesAndNewlines))
                #expect(try library.counts().words == 1)
            }
        }
    }

    @Test(
        "an edit past a limit is refused, naming the field, and leaves the word as it was",
        arguments: LimitCase.all.filter { $0.refusedField != nil })
    func editChecksLimits(limit: LimitCase) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "t", meaning: "m", tags: ["keep"])).word
            let before = try library.snapshot()
            fixture.clock.advance(by: 1_000)
            let content = limit.content
            let edit = WordEdit(
                term: content.term, meaning: content.meaning, reading: content.reading,
                examples: content.examples, notes: content.notes, tags: content.tags)
            let error = #expect(throws: LibraryError.self) { try library.edit(word.id, edit) }
            #expect(error?.validationError?.field == limit.refusedField)
            #expect(try library.snapshot() == before)
        }
    }

    @Test("surrounding whitespace is trimmed and blank examples and tags are dropped")
    func trimsFields() throws {
        try withTemporaryLibrary { fixture in
            let word = try fixture.library.add(
                WordContent(
                    term: "  \tpalabra \n", meaning: " word ", reading: " pa-LA-bra ",
                    examples: ["  Una palabra. ", "   ", ""], notes: "\n note \n", tags: [" es ", "", "  "])
            ).word
            #expect(
                word.content
                    == WordContent(
                        term: "palabra", meaning: "word", reading: "pa-LA-bra",
                        examples: ["Una palabra."], notes: "note", tags: ["es"]))
            #expect(word.tags == ["es"])
            #expect(try fixture.library.word(word.id) == word)
        }
    }

    @Test("an accent shown on its own (a space carrying it) is kept at either end of a field, and makes a term")
    func anAccentOnItsOwnIsKept() throws {
        try withTemporaryLibrary { fixture in
            let word = try fixture.library.add(
                WordContent(
                    term: " \u{301}", meaning: "the acute accent: \u{301}", examples: [" \u{300} is the grave accent "],
                    notes: " \u{303}\n"
                )
            ).word
            #expect(word.term.unicodeScalars.map(\.value) == [0x20, 0x301])
            #expect(word.meaning == "the acute accent: \u{301}")
            #expect(word.examples == [" \u{300} is the grave accent"])
            #expect(word.notes == " \u{303}")
            #expect(try fixture.library.word(word.id) == word)
        }
    }

    @Test("the limits are counted in characters a person sees, not in bytes")
    func limitsCountCharacters() throws {
        // 500 family emoji are 500 characters but 9,000 bytes.
        let term = String(repeating: "👩‍👩‍👧", count: 500)
        #expect(term.utf8.count == 9_000)
        let content = try WordContent(term: term).validated()
        #expect(content.term.count == WordLimits.termLength)
    }

    @Test(
        "a NUL character, which no text file carries, is refused in every field, naming it",
        arguments: ["term", "meaning", "reading", "notes", "examples[1]", "tags"])
    func nulRefused(_ field: String) throws {
        let nul = "a\u{0}b"
        var content = WordContent(term: "palabra")
        switch field {
        case "term": content.term = nul
        case "meaning": content.meaning = nul
        case "reading": content.reading = nul
        case "notes": content.notes = nul
        case "examples[1]": content.examples = [nul]
        default: content.tags = [nul]
        }
        try withTemporaryLibrary { fixture throws in
            let error = #expect(throws: LibraryError.self) { try fixture.library.add(content) }
            guard case .invalidWord(let problem) = error else {
                Issue.record("expected invalidWord, got \(String(describing: error))")
                return
            }
            #expect(problem.field == field)
            #expect(problem.message.contains("NUL"))
            #expect(try fixture.library.counts().words == 0)
        }
    }
}
