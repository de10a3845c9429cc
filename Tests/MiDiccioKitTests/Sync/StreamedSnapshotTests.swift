import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: a new device reads a snapshot one word at a time (issue 12): the file is checked
/// whole before any word of it is merged, and its words are never all held decoded.
@Suite("A snapshot is read one word at a time, and checked whole before any word is used")
struct StreamedSnapshotTests {
    private static let writer = "0f0e0d0c-0b0a-4908-8706-050403020100"

    /// A snapshot of `count` words with enough text to span many inflate blocks.
    /// With `noise`, each meaning also carries random hex that barely compresses, so the
    /// file spans several of the pieces a held-open file is read in.
    private static func snapshot(_ count: Int, lastTerm: String? = nil, noise: Bool = false) -> SyncBatch {
        var generator = SystemRandomNumberGenerator()
        let created = Timestamp(milliseconds: 1_764_000_000_000)
        let records = (0..<count).map { index in
            let term = index == count - 1 ? (lastTerm ?? "palabra \(index)") : "palabra \(index)"
            let word = Word(
                id: WordID.random(using: &generator), term: term,
                meaning: "significado \(index) " + String(repeating: "ñ", count: index % 300)
                    + (noise ? (0..<24).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined() : ""),
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

    @Test("a snapshot past a megabyte is compressed into a temporary file: the same bytes as in memory, read back whole")
    func compressedIntoAFile() throws {
        let batch = Self.snapshot(4_000, noise: true)
        let inMemory = BatchCodec.encode(batch)
        #expect(inMemory.count > 1 << 20)
        var file = BatchFileWriter(
            kind: batch.kind, device: batch.device, seq: batch.seq, cursors: batch.cursors, writers: [Self.writer],
            records: batch.records.count, formatVersion: batch.formatVersion, spillFrom: 1 << 20)
        for record in batch.records { try file.append(record) }
        let bytes = try file.finishBytes()
        guard case .file(let held) = bytes else {
            Issue.record("a snapshot of \(inMemory.count) bytes was kept in memory")
            return
        }
        #expect(held.size == inMemory.count)
        #expect(try bytes.wholeData() == inMemory)
        var read: [SyncRecord] = []
        try BatchCodec.decodeStreaming(bytes).forEachRecord { read.append($0) }
        #expect(read == batch.records)

        // A small one stays in memory.
        var small = BatchFileWriter(
            kind: .snapshot, device: batch.device, seq: 1, cursors: [:], writers: [Self.writer], records: 1, formatVersion: 1,
            spillFrom: 1 << 20)
        try small.append(batch.records[0])
        #expect(!(try small.finishBytes()).isFile)
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

    /// `data` written into a synced folder as a snapshot, and the folder.
    private func inFolder(_ data: Data, _ directory: URL) throws -> (FolderStorage, String) {
        let storage = FolderStorage(root: directory.appendingPathComponent("cloud").path)
        let path = "snapshots/device/000000000003.snp"
        try storage.write(path, data)
        return (storage, path)
    }

    @Test("a snapshot in a synced folder is read from the open file a piece at a time, with the same words")
    func fromAFolderInPieces() throws {
        try withTemporaryDirectory { directory in
            let batch = Self.snapshot(4_000, noise: true)
            let data = BatchCodec.encode(batch)
            let (storage, path) = try inFolder(data, directory)
            #expect(data.count > storage.heldOpenFrom, "the file is held open, and spans several pieces")
            let bytes = try #require(try storage.readBytes(path))
            guard case .file = bytes else {
                Issue.record("the folder handed the snapshot over whole")
                return
            }
            let streamed = try BatchCodec.decodeStreaming(bytes)
            var read: [SyncRecord] = []
            try streamed.forEachRecord { read.append($0) }
            #expect(read == batch.records)
            // A small file (a change file) is read whole: a sync never holds many open.
            try storage.write("changes/device/000000000004.chg", BatchCodec.encode(Self.snapshot(10)))
            guard case .memory = try #require(try storage.readBytes("changes/device/000000000004.chg")) else {
                Issue.record("a small file was held open")
                return
            }
            // Read through a second time, as a first sync does.
            var again = 0
            try streamed.forEachRecord { _ in again += 1 }
            #expect(again == 4_000)
        }
    }

    @Test("a held-open snapshot stays readable when another device deletes or replaces it meanwhile")
    func heldOpenThroughCompaction() throws {
        try withTemporaryDirectory { directory in
            let batch = Self.snapshot(1_500, noise: true)
            let (storage, path) = try inFolder(BatchCodec.encode(batch), directory)
            storage.heldOpenFrom = 0
            let streamed = try BatchCodec.decodeStreaming(try #require(try storage.readBytes(path)))
            try storage.write(path, BatchCodec.encode(Self.snapshot(10)))
            try storage.delete(path)
            var read: [SyncRecord] = []
            try streamed.forEachRecord { read.append($0) }
            #expect(read == batch.records)
        }
    }

    @Test("a snapshot in a synced folder cut short or damaged is refused before any word is used")
    func fromAFolderDamaged() throws {
        try withTemporaryDirectory { directory in
            let data = BatchCodec.encode(Self.snapshot(2_000, noise: true))
            var damaged = data
            damaged[data.count - 5_000] ^= 0xFF
            for (index, bad) in [data.prefix(data.count / 2), data.prefix(data.count - 1), damaged, data + [0x00]].enumerated() {
                let storage = FolderStorage(root: directory.appendingPathComponent("cloud\(index)").path)
                storage.heldOpenFrom = 0
                try storage.write("snapshots/d/000000000003.snp", Data(bad))
                let bytes = try #require(try storage.readBytes("snapshots/d/000000000003.snp"))
                #expect(throws: BatchDecodeError.self) { try BatchCodec.decodeStreaming(bytes) }
            }
        }
    }
}
