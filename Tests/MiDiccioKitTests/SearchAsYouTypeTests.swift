import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Search as you type")
struct SearchAsYouTypeTests {
    @Test("each prefix typed so far finds the word", arguments: ["p", "pa", "pal", "pala", "palab", "palabra", "PAL", "Palabra"])
    func prefixesFindTheWord(query: String) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "palabra", meaning: "word")).word
            try library.add(WordContent(term: "casa", meaning: "house"))
            #expect(try library.search(query).map(\.id) == [word.id])
        }
    }

    @Test(
        "search ignores case and accents both ways",
        arguments: [
            ("café", "cafe"), ("café", "CAFE"), ("cafe", "café"), ("niño", "nino"), ("Ñandú", "ñan"), ("crème brûlée", "creme bru"),
        ])
    func ignoresCaseAndAccents(term: String, query: String) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: term)).word
            try library.add(WordContent(term: "otra cosa"))
            #expect(try library.search(query).map(\.id) == [word.id])
        }
    }

    @Test(
        "every field is searched",
        arguments: [
            (WordContent(term: "x1", meaning: "mariposa"), "maripo"),
            (WordContent(term: "x2", reading: "maripōsa"), "mariposa"),
            (WordContent(term: "x3", examples: ["Vi una mariposa azul."]), "azu"),
            (WordContent(term: "x4", notes: "aprendida en México"), "mexico"),
            (WordContent(term: "x5", tags: ["insectos"]), "insect"),
        ])
    func searchesEveryField(content: WordContent, query: String) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(content).word
            try library.add(WordContent(term: "ruido", meaning: "noise"))
            #expect(try library.search(query).map(\.id) == [word.id])
        }
    }

    @Test("an exact term match ranks first, then terms starting with the query, then other matches")
    func ranking() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            // Added in the reverse of the expected order, so insertion order cannot explain a pass.
            let inMeaning = try library.add(WordContent(term: "vocablo", meaning: "palabra, término")).word
            let inNotes = try library.add(WordContent(term: "verbo", notes: "una palabra de acción")).word
            let prefixLater = try library.add(WordContent(term: "palabras", meaning: "words")).word
            let prefixFirst = try library.add(WordContent(term: "palabra clave", meaning: "keyword")).word
            let exact = try library.add(WordContent(term: "Palabra", meaning: "word")).word
            try library.add(WordContent(term: "palabrota", meaning: "swear word"))
            try library.add(WordContent(term: "casa", meaning: "house"))

            let results = try library.search("palabra").map(\.id)
            try #require(results.count == 5)
            #expect(results[0] == exact.id)
            // Within the term-prefix tier, terms come in folded order.
            #expect(Array(results[1...2]) == [prefixFirst.id, prefixLater.id])
            #expect(Set(results[3...4]) == [inMeaning.id, inNotes.id])
        }
    }

    @Test("an exact match with different case and accents still ranks first")
    func foldedExactMatchRanksFirst() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let prefix = try library.add(WordContent(term: "cafetería")).word
            let meaning = try library.add(WordContent(term: "espresso", meaning: "un café fuerte")).word
            let exact = try library.add(WordContent(term: "Café")).word
            #expect(try library.search("CAFE").map(\.id) == [exact.id, prefix.id, meaning.id])
        }
    }

    @Test("a query of several words matches words that contain all of them")
    func severalWords() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let both = try library.add(WordContent(term: "buenos días", meaning: "good morning")).word
            try library.add(WordContent(term: "buenas noches", meaning: "good night"))
            #expect(try library.search("buenos di").map(\.id) == [both.id])
            #expect(try library.search("good morn").map(\.id) == [both.id])
        }
    }

    @Test("a word of one or two letters with more typed after it is a whole word; the last word is still a prefix")
    func shortWordsBeforeOthersAreWhole() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let aHouse = try library.add(WordContent(term: "casa", meaning: "a house")).word
            let another = try library.add(WordContent(term: "otra casa", meaning: "another house")).word
            let toGo = try library.add(WordContent(term: "ir", meaning: "to go")).word
            let toGame = try library.add(WordContent(term: "jugar", meaning: "tomorrow a good game")).word
            #expect(try library.search("a house").map(\.id) == [aHouse.id])
            #expect(Set(try library.search("house").map(\.id)) == [aHouse.id, another.id])
            #expect(try library.search("to go").map(\.id) == [toGo.id])
            // The last word is being typed: a prefix however short.
            #expect(Set(try library.search("house a").map(\.id)) == [aHouse.id, another.id])
            #expect(try library.search("game to").map(\.id) == [toGame.id])
            // Field prefixes follow the same rule.
            #expect(try library.search("meaning:\"a house\"").map(\.id) == [aHouse.id])
        }
    }

    @Test("deleted words never show, in any tier")
    func deletedWordsNeverShow() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let exact = try library.add(WordContent(term: "palabra")).word
            let prefix = try library.add(WordContent(term: "palabras")).word
            let other = try library.add(WordContent(term: "vocablo", meaning: "palabra")).word
            let kept = try library.add(WordContent(term: "verbo", meaning: "palabra de acción")).word
            try library.delete([exact.id, prefix.id, other.id])
            #expect(try library.search("palabra").map(\.id) == [kept.id])
            #expect(try library.search("pal").map(\.id) == [kept.id])
            try library.restore([prefix.id])
            #expect(try library.search("palabra").map(\.id) == [prefix.id, kept.id])
        }
    }

    @Test(
        "punctuation, quotes and search operators never cause an error",
        arguments: [
            "\"", "*", "\"\"\"", "(", ")", "-", "^", ":", "+", "'", "%", "_", "\\", "NEAR(", "\"pal", "pal*\"",
            "AND", "OR", "NOT", "and or not", "' OR 1=1 --", "term:pal", "{term}: pal", "", "   ", "…", "🙂",
        ])
    func oddQueriesDoNotThrow(query: String) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.add(WordContent(term: "palabra", meaning: "word"))
            let andar = try library.add(WordContent(term: "andar", meaning: "to walk; or to go on foot")).word
            let results = try library.search(query)
            let letters = query.unicodeScalars.filter { $0.properties.isAlphabetic }
            if letters.isEmpty {
                #expect(results.isEmpty)
            }
            if query == "AND" {
                // Taken as the start of a word, not as an operator.
                #expect(results.map(\.id) == [andar.id])
            }
        }
    }

    @Test("limit caps the number of results and zero returns none")
    func limit() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            for index in 0..<30 {
                try library.add(WordContent(term: "gato \(index)", meaning: "cat"))
            }
            #expect(try library.search("gato", limit: 7).count == 7)
            #expect(try library.search("cat", limit: 25).count == 25)
            #expect(try library.search("gato").count == 20)
            #expect(try library.search("gato", limit: 0).isEmpty)
            #expect(Set(try library.search("gato", limit: 100).map(\.id)).count == 30)
        }
    }
}
