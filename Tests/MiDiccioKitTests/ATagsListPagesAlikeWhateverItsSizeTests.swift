import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// A list page of a common tag walks the order's index and looks each word's tag up; a rare
/// tag's words are read and sorted (issue 12: the most used tag of a million words took
/// 77 ms to sort for its first page). The plan is chosen from the counts the library keeps;
/// whichever it is, the pages are the same: the whole list's words that carry the tag.
@Suite("A tag's list pages alike whether the tag is common or rare")
struct ATagsListPagesAlikeWhateverItsSizeTests {
    @Test("every page of a common and a rare tag, in each order, by offset and by key, is the whole list filtered")
    func pagesAreTheWholeListFiltered() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            var ids: [WordID] = []
            for index in 0..<240 {
                var tags = index % 3 != 0 ? ["común"] : []
                if index % 80 == 7 { tags.append("raro") }
                // Repeated terms and shared times: ties in every order.
                ids.append(try library.add(WordContent(term: "palabra\(index % 50)", tags: tags)).word.id)
                if index % 5 == 0 { fixture.clock.advance(by: 1) }
            }
            for index in stride(from: 0, to: 240, by: 17) {
                fixture.clock.advance(by: 3)
                try library.edit(ids[index], WordEdit(meaning: "cambiada"))
            }
            // Tagged words in the Trash are in neither list nor count.
            _ = try library.delete([ids[1], ids[2], ids[7]])

            // 157 of 237 live words carry "común" (a page reaching 104 words walks), 2 carry "raro".
            #expect(try library.tagCount("común") == 157)
            #expect(try library.walksOrder(forTag: "común", reaching: 9))
            #expect(try library.walksOrder(forTag: "común", reaching: 104))
            #expect(try !library.walksOrder(forTag: "común", reaching: 105))
            #expect(try !library.walksOrder(forTag: "común", reaching: nil))
            #expect(try !library.walksOrder(forTag: "raro", reaching: 9))

            for sort in ListSort.allCases {
                let whole = try library.list(ListQuery(sort: sort))
                for tag in ["común", "COMÚN", "raro", "ninguno"] {
                    let expected = whole.filter { $0.tags.contains { TagSet.key($0) == TagSet.key(tag) } }.map(\.id)
                    #expect(try library.list(ListQuery(tag: tag, sort: sort)).map(\.id) == expected)
                    for offset in [0, 9, 95, 96, 150, 157, 400] {
                        let page = try library.list(ListQuery(tag: tag, sort: sort, limit: 9, offset: offset))
                        #expect(page.map(\.id) == Array(expected.dropFirst(offset).prefix(9)), "\(sort) \(tag) offset \(offset)")
                    }
                    var byKey: [WordID] = []
                    var after: WordID?
                    while true {
                        let page = try library.list(ListQuery(tag: tag, sort: sort, limit: 9, after: after)).map(\.id)
                        byKey += page
                        guard page.count == 9, let last = page.last else { break }
                        after = last
                    }
                    #expect(byKey == expected, "\(sort) \(tag) by key")
                }
            }
        }
    }
}
