import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("List order, tag filter and paging")
struct ListOrderTests {
    @Test("sorting by term ignores case")
    func termOrderIgnoresCase() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            for term in ["cherry", "apple", "Banana"] { try library.add(WordContent(term: term)) }
            #expect(try library.list(ListQuery(sort: .term)).map(\.term) == ["apple", "Banana", "cherry"])
        }
    }

    @Test("sorting by term puts accented letters with their base letter, not after z")
    func termOrderIsLocaleAware() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            for term in ["zorro", "fábrica", "Éclair", "eagle", "árbol", "Zebra", "abeja", "nube", "oso"] {
                try library.add(WordContent(term: term))
            }
            let terms = try library.list(ListQuery(sort: .term)).map(\.term)
            #expect(terms == ["abeja", "árbol", "eagle", "Éclair", "fábrica", "nube", "oso", "Zebra", "zorro"])
        }
    }

    @Test("renaming a word moves it in term order")
    func renameMovesInTermOrder() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let apple = try library.add(WordContent(term: "apple")).word
            try library.add(WordContent(term: "banana"))
            try library.edit(apple.id, WordEdit(term: "zucchini"))
            #expect(try library.list(ListQuery(sort: .term)).map(\.term) == ["banana", "zucchini"])
        }
    }

    @Test("sorting by updated puts the latest change first; by created the latest addition first")
    func updatedAndCreatedOrder() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a")).word
            fixture.clock.advance(by: 10)
            let b = try library.add(WordContent(term: "b")).word
            fixture.clock.advance(by: 10)
            let c = try library.add(WordContent(term: "c")).word
            fixture.clock.advance(by: 10)
            try library.edit(a.id, WordEdit(meaning: "changed"))

            #expect(try library.list().map(\.id) == [a.id, c.id, b.id])
            #expect(try library.list(ListQuery(sort: .updated)).map(\.id) == [a.id, c.id, b.id])
            #expect(try library.list(ListQuery(sort: .created)).map(\.id) == [c.id, b.id, a.id])
        }
    }

    @Test("the tag filter matches in any case and leaves out the Trash", arguments: ["verbs", "VERBS", "Verbs", "vErBs"])
    func tagFilterAnyCase(tag: String) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let hablar = try library.add(WordContent(term: "hablar", tags: ["Verbs", "es"])).word
            fixture.clock.advance(by: 1)
            let comer = try library.add(WordContent(term: "comer", tags: ["verbs"])).word
            fixture.clock.advance(by: 1)
            try library.add(WordContent(term: "casa", tags: ["nouns", "es"]))
            let gone = try library.add(WordContent(term: "ir", tags: ["VERBS"])).word
            try library.delete([gone.id])

            #expect(try library.list(ListQuery(tag: tag)).map(\.id) == [comer.id, hablar.id])
            #expect(try library.list(ListQuery(tag: tag, sort: .term)).map(\.term) == ["comer", "hablar"])
            #expect(try library.list(ListQuery(tag: "nothing-here")).isEmpty)
        }
    }

    @Test("limit and offset page through the whole list without gaps or repeats", arguments: ListSort.allCases)
    func paging(sort: ListSort) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            for index in 0..<11 {
                try library.add(WordContent(term: "palabra \(index)", tags: index.isMultiple(of: 2) ? ["par"] : []))
                fixture.clock.advance(by: 1)
            }
            let all = try library.list(ListQuery(sort: sort))
            #expect(all.count == 11)
            var paged: [Word] = []
            for offset in stride(from: 0, to: 12, by: 3) {
                let page = try library.list(ListQuery(sort: sort, limit: 3, offset: offset))
                #expect(page.count == min(3, 11 - offset))
                paged += page
            }
            #expect(paged == all)
            #expect(try library.list(ListQuery(sort: sort, limit: 5, offset: 11)).isEmpty)
            #expect(try library.list(ListQuery(sort: sort, limit: 0)).isEmpty)
            #expect(try library.list(ListQuery(sort: sort, offset: 9)) == Array(all[9...]))

            let tagged = try library.list(ListQuery(tag: "PAR", sort: sort))
            #expect(tagged.count == 6)
            #expect(try library.list(ListQuery(tag: "par", sort: sort, limit: 2, offset: 4)) == Array(tagged[4...5]))
        }
    }
}
