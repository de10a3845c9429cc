import Foundation
import Testing

@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: a new device reads a snapshot one word at a time (issue 12): the file is checked
/// whole before any word of it is merged, and its words are never all held decoded.
@Suite("A snapshot is read one word at a time, and checked whole before any word is used")
struct StreamedSnapshotTests {
    private static let writer = "0f0e0d0c-0b0a-4908-8706-050403020100"

    /// A snapshot of `count` words with enough text to span many inflate blocks.
    private static func snapshot(_ count: Int, lastTerm: String? = nil) -> SyncBatch {
        var generator = SystemRandomNumberGenerator()
        let created = Timestamp(milliseconds: 1_764_000_000_000)
        let records = (0..<count).map { index in
            let term = index == count - 1 ? (lastTerm ?? "palabra \(index)") : "palabra \(index)"
            let word = Word(
                id: WordID.random(using: &generator), term: term,
                meaning: "significado \(index) " + String(repeating: "ñ", count: index % 300),
                examples: ["Una frase \(index)."], tags: ["t\(index % 7)"], createdAt: created, updatedAt: created)
            return SyncRecord(
                word: word, times: FieldTimes(all: created), writers: Array(repeating: writer, count: WordField.allCases.count))
        }
        return SyncBatch(kind: .snapshot, device: writer, seq: 3, cursors: ["other": 2], records: records)
    }

    @Test("a streamed snapshot holds no decoded word, and hands out the same words in the same order")
    func sameWordsOneAtATime() throws {
        let batch = Self.snapshot(3_000)
        let data = BatchCodec.encode(batch)
        let streamed = try BatchCodec.decodeStreaming(data)
        #expect(streamed.records.isEmpty)
        #expect(streamed.recordCount == 3_000)
        #expect(streamed.device == batch.device && streamed.seq == 3 && streamed.cursors == batch.cursors)
        var read: [SyncRecord] = []
        try streamed.forEachRecord { read.append($0) }
        #expect(read == batch.records)
        #expect(try BatchCodec.decode(data).records == batch.records)
    }

    @Test("a word damaged at the end of a snapshot is found before the first word is handed out")
    func damageAtTheEndRefusedFirst() throws {
        let data = BatchCodec.encode(Self.snapshot(2_000, lastTerm: ""))
        #expect(throws: BatchDecodeError.self) { try BatchCodec.decodeStreaming(data) }
    }

    @Test("a snapshot cut short anywhere after its first words is refused before any word is used")
    func truncatedRefused() throws {
        let data = BatchCodec.encode(Self.snapshot(2_000))
        for cut in [data.count / 2, data.count - 20, data.count - 1] {
            #expect(throws: BatchDecodeError.self) { try BatchCodec.decodeStreaming(data.prefix(cut)) }
        }
        var longer = data
        longer.append(contentsOf: [0x00, 0x01])
        #expect(throws: BatchDecodeError.self) { try BatchCodec.decodeStreaming(longer) }
    }
}
