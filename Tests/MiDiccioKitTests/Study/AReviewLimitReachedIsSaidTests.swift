import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// With today's review limit used, words due now are held back: the queue read as empty,
/// and the terminal and the Study page said "Nothing to study now" and "Nothing is
/// scheduled" while words pressed "again" a minute before waited (found by the
/// exploratory helper, round 14B). The queue now counts the words the limit holds back.
@Suite("A review limit reached is said, not taken for nothing to study")
struct AReviewLimitReachedIsSaidTests {
    @Test("words due beyond today's review limit are counted; none when the limit cut nothing")
    func heldBackCounted() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.setSetting(.reviewsPerDay, to: "2")
            var ids: [WordID] = []
            for number in 0..<5 { ids.append(try library.add(WordContent(term: "palabra \(number)")).word.id) }
            #expect(try library.studyQueue().dueBeyondLimit == 0, "new words only: nothing held back")
            for id in ids { try library.review(id, grade: .again) }
            fixture.clock.advance(by: 10 * 60_000)
            var queue = try library.studyQueue()
            #expect(queue.due.count == 2)
            #expect(queue.dueBeyondLimit == 3)
            for card in queue.due { try library.review(card.word.id, grade: .good) }
            queue = try library.studyQueue()
            #expect(queue.cards.isEmpty)
            #expect(queue.dueBeyondLimit == 3, "the limit is why there is no card")
            try library.setSetting(.reviewsPerDay, to: "100")
            queue = try library.studyQueue()
            #expect(queue.due.count == 3)
            #expect(queue.dueBeyondLimit == 0)
        }
    }
}
