import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: change files and snapshots are compressed with zlib, and a reader reports,
/// never crashes on, a corrupt or truncated file.
@Suite("Change files keep every word exactly and damaged ones are refused, never crash")
struct BatchCodecTests {
    private static let writerA = "0f0e0d0c-0b0a-4908-8706-050403020100"
    private static let writerB = "ffeeddcc-bbaa-4998-8877-665544332211"

    /// A record whose field times differ, written by two devices.
    private static func record(_ word: Word, base: Int64, deleted: Bool = false) -> SyncRecord {
        var word = word
        var times = FieldTimes(all: Timestamp(milliseconds: base))
        times.meaning = Timestamp(milliseconds: base + 1)
        times.notes = Timestamp(milliseconds: base + 7)
        if deleted {
            times.deleted = Timestamp(milliseconds: base + 9)
            word.deletedAt = times.deleted
        }
        word.updatedAt = times.newest
        var writers = Array(repeating: writerA, count: WordField.allCases.count)
        writers[WordField.notes.index] = writerB
        return SyncRecord(word: word, times: times, writers: writers)
    }

    /// Words with text that breaks naive encoders.
    private static func awkwardBatch() -> SyncBatch {
        let created = Timestamp(milliseconds: 1_764_000_000_123)
        let words = [
            Word(
                id: WordID("11111111-2222-4333-8444-555555555555")!, term: "🦊 zorro 🇪🇸", meaning: "fox\nzorro\r\nrenard",
                reading: "ˈθoro", examples: ["El zorro 🦊 corre.", "", "línea\ncon salto"], notes: "",
                tags: ["animales", "🐾", "Ñandú"], createdAt: created, updatedAt: created),
            Word(id: WordID("aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee")!, term: "x", createdAt: created, updatedAt: created),
            Word(
                id: WordID("01234567-89ab-4cde-8f01-23456789abcd")!, term: "largo", meaning: "\u{0}nul\u{0}",
                notes: String(repeating: "ñ🦊a\n", count: 5_000), tags: [""], createdAt: created, updatedAt: created),
            Word(
                id: WordID("fedcba98-7654-4321-8fed-cba987654321")!, term: "  espacios  ", meaning: "\"quotes\" and \\ backslash",
                examples: [String(repeating: "e", count: 20_000)], createdAt: created, updatedAt: created),
        ]
        let records = words.enumerated().map { index, word in
            record(word, base: created.milliseconds + Int64(index) * 100, deleted: index == 1)
        }
        return SyncBatch(kind: .changes, device: writerA, seq: 42, cursors: [writerB: 7, "another": 0], records: records)
    }

    @Test("awkward text round-trips exactly: emoji, newlines, empty fields and 20,000-character notes")
    func awkwardRoundTrip() throws {
        let batch = Self.awkwardBatch()
        #expect(batch.records[2].word.notes.count == 20_000)
        let decoded = try BatchCodec.decode(BatchCodec.encode(batch))
        #expect(decoded.kind == batch.kind)
        #expect(decoded.device == batch.device)
        #expect(decoded.seq == batch.seq)
        #expect(decoded.cursors == batch.cursors)
        #expect(decoded.records == batch.records)
    }

    @Test("a snapshot with no words and a batch of the smallest times round-trip")
    func edgeCasesRoundTrip() throws {
        let empty = SyncBatch(kind: .snapshot, device: Self.writerB, seq: 1, records: [])
        let decodedEmpty = try BatchCodec.decode(BatchCodec.encode(empty))
        #expect(decodedEmpty.kind == .snapshot)
        #expect(decodedEmpty.records.isEmpty)

        let epoch = Timestamp(milliseconds: 0)
        let word = Word(id: WordID.random(), term: "t", createdAt: epoch, updatedAt: epoch)
        let record = SyncRecord(word: word, times: FieldTimes(all: epoch), writers: Array(repeating: "", count: WordField.allCases.count))
        let decoded = try BatchCodec.decode(BatchCodec.encode(SyncBatch(kind: .changes, device: "", seq: 0, records: [record])))
        #expect(decoded.records == [record])
    }

    @Test("a file is compressed: a long repetitive note takes far fewer bytes than its text")
    func compressed() {
        let data = BatchCodec.encode(Self.awkwardBatch())
        #expect(data.count < 20_000)
        #expect(Array(data.prefix(4)) == Array("MDZ1".utf8))
    }

    @Test("every truncation of a change file is refused with a decode error")
    func truncatedRefused() {
        let data = BatchCodec.encode(Self.awkwardBatch())
        for length in 0..<data.count {
            #expect(throws: BatchDecodeError.self, "cut at \(length) of \(data.count)") {
                _ = try BatchCodec.decode(data.prefix(length))
            }
        }
    }

    @Test("a flipped bit or byte anywhere in a change file is refused, or at worst reads back the very same words")
    func flippedByteRefused() {
        let batch = Self.awkwardBatch()
        let data = [UInt8](BatchCodec.encode(batch))
        var refused = 0, harmless = 0
        for index in data.indices {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = data
                damaged[index] ^= mask
                do {
                    let decoded = try BatchCodec.decode(Data(damaged))
                    // Deflate can encode the same bytes in several ways (a repeat found at
                    // another distance): such a change damages nothing.
                    if decoded.records == batch.records && decoded.device == batch.device && decoded.seq == batch.seq
                        && decoded.cursors == batch.cursors && decoded.kind == batch.kind
                    {
                        harmless += 1
                    } else {
                        Issue.record("byte \(index) ^ \(mask) was read as different words")
                    }
                } catch is BatchDecodeError {
                    refused += 1
                } catch {
                    Issue.record("byte \(index) ^ \(mask): \(error) is not a BatchDecodeError")
                }
            }
        }
        #expect(refused > harmless, "\(refused) refused, \(harmless) harmless")
        // The header (magic and declared size) and the checksum are never harmless.
        for index in Array(0..<12) + Array(data.count - 4..<data.count) {
            var damaged = data
            damaged[index] ^= 0x01
            #expect(throws: BatchDecodeError.self, "byte \(index)") { _ = try BatchCodec.decode(Data(damaged)) }
        }
    }

    @Test("a file whose compressed data is intact but whose content is damaged is refused or read, never a crash")
    func damagedContentNeverCrashes() throws {
        let payload = try BatchCodec.decompress(BatchCodec.encode(Self.awkwardBatch()))
        // Every truncation of the content, correctly compressed: refused.
        for length in stride(from: 0, to: payload.count, by: max(1, payload.count / 2_000)) {
            #expect(throws: BatchDecodeError.self, "content cut at \(length)") {
                _ = try BatchCodec.decode(BatchCodec.compress(Array(payload.prefix(length))))
            }
        }
        // Changed bytes in the content: each either reads as some batch or is refused.
        var generator = SeededGenerator(seed: 20_261_129)
        for _ in 0..<2_000 {
            var damaged = payload
            let index = Int.random(in: 0..<damaged.count, using: &generator)
            damaged[index] = UInt8.random(in: 0...255, using: &generator)
            do {
                _ = try BatchCodec.decode(BatchCodec.compress(damaged))
            } catch is BatchDecodeError {
            } catch {
                Issue.record("byte \(index): \(error) is not a BatchDecodeError")
            }
        }
        // Trailing bytes after the last record are refused.
        #expect(throws: BatchDecodeError.self) { _ = try BatchCodec.decode(BatchCodec.compress(payload + [0])) }
    }

    @Test(
        "files that are not change files at all are refused",
        arguments: [
            Data(), Data("MDZ1".utf8), Data("{\"format\": \"midiccio-sync\"}".utf8), Data(repeating: 0xFF, count: 64),
            Data("MDZ1".utf8) + Data(repeating: 0, count: 8),
        ])
    func foreignFilesRefused(_ data: Data) {
        #expect(throws: BatchDecodeError.self) { _ = try BatchCodec.decode(data) }
    }
}
