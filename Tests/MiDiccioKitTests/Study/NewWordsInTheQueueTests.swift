import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// The queue finds its new words through the local "studied" mark kept beside the
/// schedule cache: these check the mark follows answers, undo and a rebuilt cache.
@Suite("New words in the study queue are exactly the never-answered ones")
struct NewWordsInTheQueueTests {
    private func newTerms(_ library: WordLibrary) throws -> [String] {
        try library.studyQueue(newLimit: 100).new.map(\.word.term)
    }

    @Test("an answered word leaves the new words, and comes back when its only answer is undone")
    func answerAndUndo() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let first = try library.add(WordContent(term: "uno")).word.id
            try library.add(WordContent(term: "dos"))
            #expect(try newTerms(library) == ["uno", "dos"])
            try library.review(first, grade: .good)
            #expect(try newTerms(library) == ["dos"])
            try library.undoLastReview()
            #expect(try newTerms(library) == ["uno", "dos"])
        }
    }

    @Test("after the cache is rebuilt (the desired retention changed) the same words are new")
    func rebuiltCache() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            var ids: [WordID] = []
            for number in 0..<6 { ids.append(try library.add(WordContent(term: "palabra \(number)")).word.id) }
            for id in ids.prefix(4) { try library.review(id, grade: .easy) }
            let before = try newTerms(library)
            #expect(before == ["palabra 4", "palabra 5"])
            try library.setSetting(.desiredRetention, to: "0.95")
            #expect(try newTerms(library) == before)
            let marked = try library.database.integer("SELECT count(*) FROM words WHERE studied = 1")
            #expect(marked == 4)
        }
    }
}
