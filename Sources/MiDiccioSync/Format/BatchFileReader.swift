import CZlib
import Foundation
import MiDiccioCloud
import MiDiccioModel

/// Reads a batch file record by record, inflating as it goes: a snapshot of a million
/// words is held compressed, plus one block of its payload, never as a million decoded
/// words (issue 12, item 4). `BatchCodec` reads every batch through it, so there is one
/// decoder.
package struct BatchFileReader {
    /// The batch's kind, device, sequence number and cursors, read when the reader opens.
    package let kind: SyncBatch.Kind
    /// The device that wrote the batch.
    package let device: String
    /// Its sequence number in that device's stream.
    package let seq: Int64
    /// For snapshots: how far the writer had read each other device.
    package let cursors: [String: Int64]
    /// How many records the batch holds.
    package let recordCount: Int
    /// The payload format: 1, 2 with purge markers and settings after the records, 4
    /// with review events after those, 5 with each record's tag clock.
    package let version: Int
    private let writerTable: [String]
    private var source: PayloadSource
    private var recordsRead = 0
    /// The device ids review events name by index (format 4), read by `readTrailer`.
    package private(set) var eventDevices: [String] = []
    /// How many review events follow the settings, read by `readTrailer`.
    package private(set) var eventCount = 0
    private var eventsRead = 0

    /// Opens `data` and reads its header. `formatVersion` is the newest format the reader
    /// understands: a device of format 1 refuses format 2 batches as written by a newer
    /// MiDiccio.
    package init(_ data: Data, formatVersion: Int) throws {
        try self.init(.memory(data), formatVersion: formatVersion)
    }

    /// Opens the batch file `bytes` (in memory or held open) and reads its header.
    package init(_ bytes: CloudBytes, formatVersion: Int) throws {
        source = try PayloadSource(bytes)
        let magic = try source.bytes(4)
        if magic == BatchCodec.payloadMagic {
            version = 1
        } else if magic == BatchCodec.payloadMagic2 {
            guard formatVersion >= 2 else { throw BatchDecodeError(message: "written by a newer MiDiccio (format 2)") }
            version = 2
        } else if magic == BatchCodec.payloadMagic4 {
            guard formatVersion >= 4 else { throw BatchDecodeError(message: "written by a newer MiDiccio (format 4)") }
            version = 4
        } else if magic == BatchCodec.payloadMagic5 {
            guard formatVersion >= 5 else { throw BatchDecodeError(message: "written by a newer MiDiccio (format 5)") }
            version = 5
        } else if magic == BatchCodec.payloadMagic6 {
            guard formatVersion >= 6 else { throw BatchDecodeError(message: "written by a newer MiDiccio (format 6)") }
            version = 6
        } else {
            throw BatchDecodeError(message: "not a MiDiccio batch")
        }
        guard let kind = SyncBatch.Kind(rawValue: try source.u8()) else { throw BatchDecodeError(message: "unknown batch kind") }
        self.kind = kind
        device = try source.string()
        seq = try source.i64()
        var cursors: [String: Int64] = [:]
        for _ in 0..<(try source.count()) { cursors[try source.string()] = try source.i64() }
        self.cursors = cursors
        var writers: [String] = []
        for _ in 0..<(try source.count()) { writers.append(try source.string()) }
        writerTable = writers
        recordCount = try source.count()
    }

    /// The next record, or nil after the last. A bad id, an empty term or an unknown
    /// writer throws `BatchDecodeError`.
    package mutating func next() throws -> SyncRecord? {
        guard recordsRead < recordCount else { return nil }
        recordsRead += 1
        let idText = try source.string()
        guard let id = WordID(idText) else { throw BatchDecodeError(message: "bad word id \(idText.prefix(40))") }
        let created = Timestamp(milliseconds: try source.i64())
        var word = Word(id: id, term: "", createdAt: created, updatedAt: created)
        var times = FieldTimes(all: created)
        var writers: [String] = []
        writers.reserveCapacity(WordField.allCases.count)
        var tagClock = TagClock.implied
        for field in WordField.allCases {
            times[field] = Timestamp(milliseconds: try source.i64())
            writers.append(try writer())
            switch field {
            case .term: word.term = try source.string()
            case .meaning: word.meaning = try source.string()
            case .reading: word.reading = try source.string()
            case .examples: word.examples = try source.strings()
            case .notes: word.notes = try source.string()
            case .tags:
                word.tags = try source.strings()
                if version >= 5 {
                    let floor = try source.i64()
                    tagClock.floor = floor < 0 ? nil : Timestamp(milliseconds: floor)
                    for _ in 0..<(try source.count()) {
                        let form = try source.string()
                        let time = Timestamp(milliseconds: try source.i64())
                        let present = try source.u8()
                        guard present <= 1 else { throw BatchDecodeError(message: "word \(id) has a bad tag mark") }
                        let orderTime = Timestamp(milliseconds: try source.i64())
                        let position = Int(try source.u32())
                        tagClock.marks[TagSet.key(form)] = TagClock.Mark(
                            time: time, isPresent: present == 1, orderTime: orderTime, position: position, form: form)
                    }
                } else {
                    // Before format 5 a record's tags were one field: a list written whole.
                    tagClock = .writtenWhole(at: times.tags)
                }
            case .deleted:
                let value = try source.i64()
                word.deletedAt = value < 0 ? nil : Timestamp(milliseconds: value)
            }
        }
        guard !word.term.isEmpty else { throw BatchDecodeError(message: "word \(id) has an empty term") }
        word.updatedAt = times.newest
        return SyncRecord(word: word, times: times, writers: writers, tagClock: tagClock)
    }

    /// Checks the next record as `next()` would, making none of its text: the first
    /// reading of a snapshot, which only has to find out whether the whole file is sound.
    /// False after the last record.
    package mutating func skip() throws -> Bool {
        guard recordsRead < recordCount else { return false }
        recordsRead += 1
        let idText = try source.string()
        guard WordID(idText) != nil else { throw BatchDecodeError(message: "bad word id \(idText.prefix(40))") }
        try source.skip(8)
        for field in WordField.allCases {
            try source.skip(8)
            _ = try writer()
            switch field {
            case .term:
                guard try source.skipString() > 0 else { throw BatchDecodeError(message: "word \(idText) has an empty term") }
            case .meaning, .reading, .notes: _ = try source.skipString()
            case .examples:
                for _ in 0..<(try source.count()) { _ = try source.skipString() }
            case .tags:
                for _ in 0..<(try source.count()) { _ = try source.skipString() }
                if version >= 5 {
                    try source.skip(8)
                    for _ in 0..<(try source.count()) {
                        _ = try source.skipString()
                        try source.skip(8)
                        guard try source.u8() <= 1 else { throw BatchDecodeError(message: "word \(idText) has a bad tag mark") }
                        try source.skip(12)
                    }
                }
            case .deleted: try source.skip(8)
            }
        }
        return true
    }

    /// Reads what follows the records (purge markers and settings in format 2, review
    /// events in format 4) and checks that nothing else does; call after the last record.
    package mutating func finish() throws -> (markers: [PurgeMarker], settings: [SettingRecord], events: [ReviewEvent]) {
        let (markers, settings) = try readTrailer()
        var events: [ReviewEvent] = []
        events.reserveCapacity(eventCount)
        while let event = try nextEvent() { events.append(event) }
        try end()
        return (markers, settings, events)
    }

    /// Reads the purge markers and settings (format 2; each marker's kind in format 6) and
    /// the head of the review events (format 4: their device table and count); call after
    /// the last record. The events follow, one at a time (`nextEvent`), then `end`.
    package mutating func readTrailer() throws -> (markers: [PurgeMarker], settings: [SettingRecord]) {
        guard recordsRead == recordCount else { throw BatchDecodeError(message: "records left unread") }
        var markers: [PurgeMarker] = []
        var settings: [SettingRecord] = []
        if version >= 2 {
            for _ in 0..<(try source.count()) {
                let idText = try source.string()
                guard let id = WordID(idText) else { throw BatchDecodeError(message: "bad purged id \(idText.prefix(40))") }
                let purgedAt = Timestamp(milliseconds: try source.i64())
                var cleanUp: PurgeMarker.CleanUp?
                if version >= 6 {
                    switch try source.u8() {
                    case 0: break
                    case 1:
                        cleanUp = PurgeMarker.CleanUp(
                            trashedAt: Timestamp(milliseconds: try source.i64()), newest: Timestamp(milliseconds: try source.i64()))
                    case let kind: throw BatchDecodeError(message: "bad purge marker kind \(kind)")
                    }
                }
                markers.append(PurgeMarker(id: id, purgedAt: purgedAt, cleanUp: cleanUp))
            }
            for _ in 0..<(try source.count()) {
                settings.append(
                    SettingRecord(
                        key: try source.string(), value: try source.string(),
                        time: Timestamp(milliseconds: try source.i64()), writer: try source.string()))
            }
        }
        if version >= 4 {
            eventDevices = try (0..<(try source.count())).map { _ in try source.string() }
            eventCount = try source.count()
        }
        return (markers, settings)
    }

    /// The next review event, made whole, or nil after the last.
    package mutating func nextEvent() throws -> ReviewEvent? {
        let devices = eventDevices
        var event: ReviewEvent?
        _ = try nextEvent { bytes in
            let id = WordID(uncheckedRawValue: String(decoding: bytes.wordID, as: UTF8.self))
            event = ReviewEvent(
                wordID: id, time: Timestamp(milliseconds: bytes.time), grade: bytes.grade, device: devices[bytes.device],
                seconds: bytes.seconds)
        }
        return event
    }

    /// Hands the next review event to `body` as it lies in the payload, checked and its id
    /// lowercased (as `WordID` makes it), with no string made; false after the last. The
    /// bytes are valid only during the call; `device` indexes `eventDevices`.
    package mutating func nextEvent(_ body: (ReviewEventBytes) throws -> Void) throws -> Bool {
        guard eventsRead < eventCount else { return false }
        eventsRead += 1
        let idLength = Int(try source.u32())
        guard idLength == Self.wordIDLength else {
            throw BatchDecodeError(message: "bad reviewed id \(try source.string(count: idLength).prefix(40))")
        }
        // The id and the fixed fields after it in one piece, so the id stays in place while
        // they are read: time (8), grade (1), device index (4), seconds (4).
        let deviceCount = eventDevices.count
        let event = try source.withNextBytes(Self.wordIDLength + 17) { raw -> ReviewEventBytes in
            let id = UnsafeMutableRawBufferPointer(rebasing: raw[0..<Self.wordIDLength])
            guard WordID.lowercasedIfValid(id) else {
                throw BatchDecodeError(message: "bad reviewed id \(String(decoding: id, as: UTF8.self))")
            }
            let time = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: 36, as: Int64.self))
            guard let grade = ReviewGrade(rawValue: Int(raw[44])) else { throw BatchDecodeError(message: "bad grade") }
            let device = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 45, as: UInt32.self)))
            guard device < deviceCount else { throw BatchDecodeError(message: "bad review device index") }
            let seconds = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 49, as: UInt32.self)))
            return ReviewEventBytes(wordID: UnsafeRawBufferPointer(id), time: time, device: device, grade: grade, seconds: seconds)
        }
        try body(event)
        return true
    }

    /// Checks that every event was read and that nothing follows the last one.
    package mutating func end() throws {
        guard eventsRead == eventCount else { throw BatchDecodeError(message: "review events left unread") }
        try source.checkEnd()
    }

    /// The length of a word id's text.
    private static let wordIDLength = 36

    private mutating func writer() throws -> String {
        let index = Int(try source.u32())
        guard index < writerTable.count else { throw BatchDecodeError(message: "bad writer index") }
        return writerTable[index]
    }
}

/// The payload of a batch file, inflated block by block as it is read. The file's
/// declared length bounds every count and string before its bytes are inflated, and
/// zlib's checksum is checked when the stream ends (`checkEnd`).
private struct PayloadSource {
    private let inflater: Inflater
    /// Inflated bytes not yet read start at `offset`.
    private var buffer: [UInt8] = []
    private var offset = 0
    /// Payload bytes read so far, and how many the file declares.
    private var position = 0
    private let length: Int
    private static let blockSize = 1 << 18

    init(_ file: CloudBytes) throws {
        var header = [UInt8](repeating: 0, count: 12)
        let read = try header.withUnsafeMutableBytes { try file.read(at: 0, into: $0) }
        guard read == 12, header.prefix(4).elementsEqual(BatchCodec.fileMagic) else {
            throw BatchDecodeError(message: "not a MiDiccio batch file")
        }
        let declared = header[4...].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // Deflate cannot expand data more than about 1032 times: a larger declared size is
        // a damaged or hostile header, refused before any memory is allocated for it.
        guard declared <= UInt64(BatchCodec.maximumPayload), declared <= UInt64(file.count - 12) * 1032 + 1024 else {
            throw BatchDecodeError(message: "declared size too large")
        }
        length = Int(declared)
        inflater = try Inflater(file, from: 12, length: length)
    }

    /// Makes `count` bytes readable at `offset`, inflating more as needed.
    private mutating func need(_ count: Int) throws {
        guard count >= 0, length - position >= count else { throw BatchDecodeError(message: "truncated batch") }
        guard buffer.count - offset < count else { return }
        buffer.removeSubrange(0..<offset)
        offset = 0
        // Never more than the file declares is left to inflate (a small change file asks
        // for a few hundred bytes, not a block).
        let declaredLeft = length - position
        while buffer.count < count {
            let before = buffer.count
            try inflater.inflate(into: &buffer, atMost: max(count, min(Self.blockSize, declaredLeft)) - buffer.count)
            guard buffer.count > before else { throw BatchDecodeError(message: "truncated batch") }
        }
    }

    /// Makes `count` bytes readable and moves past them; returns where they start.
    private mutating func advance(_ count: Int) throws -> Int {
        try need(count)
        let start = offset
        offset += count
        position += count
        return start
    }

    mutating func bytes(_ count: Int) throws -> [UInt8] {
        let start = try advance(count)
        return Array(buffer[start..<start + count])
    }
    mutating func skip(_ count: Int) throws { _ = try advance(count) }
    /// Hands the next `count` bytes to `body` where they lie (it may change them) and
    /// moves past them; they are valid only during the call.
    mutating func withNextBytes<T>(_ count: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> T) throws -> T {
        let start = try advance(count)
        return try buffer.withUnsafeMutableBytes { try body(UnsafeMutableRawBufferPointer(rebasing: $0[start..<start + count])) }
    }
    mutating func u8() throws -> UInt8 { buffer[try advance(1)] }
    mutating func u32() throws -> UInt32 {
        let start = try advance(4)
        return UInt32(littleEndian: buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: UInt32.self) })
    }
    mutating func i64() throws -> Int64 {
        let start = try advance(8)
        return Int64(littleEndian: buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: Int64.self) })
    }
    /// A count that must fit in what is left of the payload (each item takes at least a byte).
    mutating func count() throws -> Int {
        let value = Int(try u32())
        guard value <= length - position else { throw BatchDecodeError(message: "count larger than the file") }
        return value
    }
    mutating func string() throws -> String {
        try string(count: Int(try u32()))
    }
    /// A string of `count` bytes whose length was already read.
    mutating func string(count: Int) throws -> String {
        let start = try advance(count)
        return buffer.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<start + count]), as: UTF8.self) }
    }
    /// Passes over a string without making it; returns its length in bytes.
    mutating func skipString() throws -> Int {
        let count = Int(try u32())
        try skip(count)
        return count
    }
    mutating func strings() throws -> [String] {
        try (0..<(try count())).map { _ in try string() }
    }
    /// Throws unless every declared byte was read and the zlib stream ends there, its
    /// checksum sound.
    mutating func checkEnd() throws {
        guard position == length, offset == buffer.count else {
            throw BatchDecodeError(message: "unexpected bytes after the last record")
        }
        guard try inflater.isAtEnd() else { throw BatchDecodeError(message: "damaged or truncated (more data than declared)") }
    }
}

/// A zlib inflate stream over a batch file's compressed bytes, read from the file a
/// quarter megabyte at a time (or where they lie, for a file in memory).
private final class Inflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let input: CloudBytes
    /// Where the compressed bytes start in `input`.
    private let start: Int
    /// Where zlib writes, before the bytes are appended to the reader's buffer.
    private let scratch: UnsafeMutableBufferPointer<UInt8>
    /// The compressed bytes read from a held-open file and not yet inflated.
    private var window: [UInt8] = []
    private var windowUsed = 0
    /// Compressed bytes inflated so far.
    private var consumed = 0
    private var ended = false
    private static let windowSize = 1 << 18

    /// Inflates `input` from `start`; its payload is declared to be `length` bytes long.
    init(_ input: CloudBytes, from start: Int, length: Int) throws {
        self.input = input
        self.start = start
        scratch = .allocate(capacity: min(1 << 18, max(length, 64)))
        stream.initialize(to: z_stream())
        let code = inflateInit_(stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard code == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            scratch.deallocate()
            throw BatchDecodeError(message: "zlib could not start (error \(code))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        scratch.deallocate()
    }

    /// How many compressed bytes there are.
    private var compressedCount: Int { input.count - start }

    /// Appends up to `limit` inflated bytes to `buffer` (none once the stream ended).
    func inflate(into buffer: inout [UInt8], atMost limit: Int) throws {
        var left = limit
        while left > 0, !ended {
            let size = min(left, scratch.count)
            let produced = try step(size)
            guard produced > 0 else { return }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<produced]))
            left -= produced
        }
    }

    /// Inflates at most `size` bytes into `scratch`; returns how many it made.
    private func step(_ size: Int) throws -> Int {
        switch input {
        case .memory(let data):
            return try data.withUnsafeBytes { raw in
                try step(size, from: UnsafeRawBufferPointer(rebasing: raw[(start + consumed)...]))
            }
        case .file(let file):
            if windowUsed == window.count, consumed < compressedCount {
                window = [UInt8](repeating: 0, count: min(Self.windowSize, compressedCount - consumed))
                let read = try window.withUnsafeMutableBytes { try file.read(at: start + consumed, into: $0) }
                window.removeLast(window.count - read)
                windowUsed = 0
            }
            let before = consumed
            let produced = try window.withUnsafeBytes { raw in
                try step(size, from: UnsafeRawBufferPointer(rebasing: raw[windowUsed...]))
            }
            windowUsed += consumed - before
            return produced
        }
    }

    /// Inflates at most `size` bytes from `available`, the compressed bytes not yet
    /// inflated (or the part of them read so far); returns how many bytes it made.
    private func step(_ size: Int, from available: UnsafeRawBufferPointer) throws -> Int {
        let base = available.bindMemory(to: UInt8.self).baseAddress.map { UnsafeMutablePointer(mutating: $0) }
        stream.pointee.next_in = base
        stream.pointee.avail_in = uInt(available.count)
        stream.pointee.next_out = scratch.baseAddress
        stream.pointee.avail_out = uInt(size)
        let code = CZlib.inflate(stream, Z_NO_FLUSH)
        consumed += available.count - Int(stream.pointee.avail_in)
        let produced = size - Int(stream.pointee.avail_out)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        switch code {
        case Z_STREAM_END: ended = true
        case Z_OK: break
        case Z_BUF_ERROR where produced > 0: break
        default: throw BatchDecodeError(message: "damaged or truncated (zlib error \(code))")
        }
        return produced
    }

    /// True when the stream ends after what was read, with its checksum checked and no
    /// compressed byte left over.
    func isAtEnd() throws -> Bool {
        if !ended {
            var probe: [UInt8] = []
            try inflate(into: &probe, atMost: 1)
            guard probe.isEmpty else { return false }
        }
        return ended && consumed == compressedCount
    }
}
