import CZlib
import Foundation
import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel

/// A batch of records in the cloud: a device's change file or its snapshot.
public struct SyncBatch: Sendable {
    /// What the batch is.
    public enum Kind: UInt8, Sendable {
        /// Words changed since the device's previous change file.
        case changes = 1
        /// The device's full state, covering its own entries up to `seq` and other
        /// devices' entries up to `cursors`.
        case snapshot = 2
    }

    /// What the batch is.
    public var kind: Kind
    /// The device that wrote it.
    public var device: String
    /// Its sequence number in that device's stream.
    public var seq: Int64
    /// For snapshots: how far the device had read each other device.
    public var cursors: [String: Int64]
    /// The records.
    public var records: [SyncRecord]
    /// Purge markers (format 2).
    public var markers: [PurgeMarker]
    /// Synced settings (format 2).
    public var settings: [SettingRecord]
    /// Review events (format 4).
    public var events: [ReviewEvent]

    /// Makes a batch.
    public init(
        kind: Kind, device: String, seq: Int64, cursors: [String: Int64] = [:], records: [SyncRecord],
        markers: [PurgeMarker] = [], settings: [SettingRecord] = [], events: [ReviewEvent] = []
    ) {
        self.kind = kind
        self.device = device
        self.seq = seq
        self.cursors = cursors
        self.records = records
        self.markers = markers
        self.settings = settings
        self.events = events
    }

    /// The cloud format version a reader needs for this batch: 4 when it carries review
    /// events, 2 when it carries purge markers or settings, else 1 (so older devices can
    /// still read it).
    public var formatVersion: Int { Self.formatVersion(markers: markers, settings: settings, events: events) }

    /// The cloud format version of a batch carrying `markers`, `settings` and `events`.
    public static func formatVersion(markers: [PurgeMarker], settings: [SettingRecord], events: [ReviewEvent] = []) -> Int {
        if !events.isEmpty { return 4 }
        return markers.isEmpty && settings.isEmpty ? 1 : 2
    }
}

/// Why a batch file could not be read.
public struct BatchDecodeError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public var message: String
    public var description: String { message }
}

/// The file format of change files and snapshots: a small binary encoding (length-
/// prefixed UTF-8, little-endian integers, a table of writer ids) compressed with zlib.
///
/// File = "MDZ1" | uncompressed length (u64) | zlib stream. zlib's checksum catches a
/// truncated or damaged file, which is then reported and skipped, never half-applied.
public enum BatchCodec {
    static let fileMagic = Array("MDZ1".utf8)
    static let payloadMagic = Array("MDB1".utf8)
    /// Format 2 payloads add purge markers and settings after the records.
    static let payloadMagic2 = Array("MDB2".utf8)
    /// Format 4 payloads add review events after the settings.
    static let payloadMagic4 = Array("MDB4".utf8)
    /// Largest payload a reader accepts (a hostile file must not exhaust memory).
    static let maximumPayload = 1 << 31

    /// The compressed file bytes of `batch`.
    public static func encode(_ batch: SyncBatch) -> Data {
        // Writers in the order records name them first, as the table has always been.
        var writers: [String] = []
        var seen = Set<String>()
        for record in batch.records {
            for id in record.writers where seen.insert(id).inserted { writers.append(id) }
        }
        var file = BatchFileWriter(
            kind: batch.kind, device: batch.device, seq: batch.seq, cursors: batch.cursors, writers: writers,
            records: batch.records.count, formatVersion: batch.formatVersion)
        do {
            for record in batch.records { try file.append(record) }
            return try file.finish(markers: batch.markers, settings: batch.settings, events: batch.events)
        } catch {
            preconditionFailure("a batch holds the writers and records it was started with: \(error)")
        }
    }

    /// Reads a batch file; throws `BatchDecodeError` for anything damaged or foreign.
    /// `formatVersion` is the newest format the reader understands: a device of format 1
    /// refuses format 2 batches as written by a newer MiDiccio.
    public static func decode(_ data: Data, formatVersion: Int = CloudManifest.currentVersion) throws -> SyncBatch {
        let payload = try decompress(data)
        var reader = ByteReader(payload)
        let magic = try reader.bytes(4)
        let version: Int
        if magic == payloadMagic {
            version = 1
        } else if magic == payloadMagic2 {
            guard formatVersion >= 2 else { throw BatchDecodeError(message: "written by a newer MiDiccio (format 2)") }
            version = 2
        } else if magic == payloadMagic4 {
            guard formatVersion >= 4 else { throw BatchDecodeError(message: "written by a newer MiDiccio (format 4)") }
            version = 4
        } else {
            throw BatchDecodeError(message: "not a MiDiccio batch")
        }
        guard let kind = SyncBatch.Kind(rawValue: try reader.u8()) else { throw BatchDecodeError(message: "unknown batch kind") }
        let device = try reader.string()
        let seq = try reader.i64()
        var cursors: [String: Int64] = [:]
        for _ in 0..<(try reader.count()) { cursors[try reader.string()] = try reader.i64() }
        let writerTable = try (0..<(try reader.count())).map { _ in try reader.string() }
        let count = try reader.count()
        var records: [SyncRecord] = []
        records.reserveCapacity(count)
        for _ in 0..<count {
            let idText = try reader.string()
            guard let id = WordID(idText) else { throw BatchDecodeError(message: "bad word id \(idText.prefix(40))") }
            let created = Timestamp(milliseconds: try reader.i64())
            var word = Word(id: id, term: "", createdAt: created, updatedAt: created)
            var times = FieldTimes(all: created)
            var writers: [String] = []
            writers.reserveCapacity(WordField.allCases.count)
            for field in WordField.allCases {
                times[field] = Timestamp(milliseconds: try reader.i64())
                let index = Int(try reader.u32())
                guard index < writerTable.count else { throw BatchDecodeError(message: "bad writer index") }
                writers.append(writerTable[index])
                switch field {
                case .term: word.term = try reader.string()
                case .meaning: word.meaning = try reader.string()
                case .reading: word.reading = try reader.string()
                case .examples: word.examples = try reader.strings()
                case .notes: word.notes = try reader.string()
                case .tags: word.tags = try reader.strings()
                case .deleted:
                    let value = try reader.i64()
                    word.deletedAt = value < 0 ? nil : Timestamp(milliseconds: value)
                }
            }
            guard !word.term.isEmpty else { throw BatchDecodeError(message: "word \(id) has an empty term") }
            word.updatedAt = times.newest
            records.append(SyncRecord(word: word, times: times, writers: writers))
        }
        var markers: [PurgeMarker] = []
        var settings: [SettingRecord] = []
        if version >= 2 {
            for _ in 0..<(try reader.count()) {
                let idText = try reader.string()
                guard let id = WordID(idText) else { throw BatchDecodeError(message: "bad purged id \(idText.prefix(40))") }
                markers.append(PurgeMarker(id: id, purgedAt: Timestamp(milliseconds: try reader.i64())))
            }
            for _ in 0..<(try reader.count()) {
                settings.append(
                    SettingRecord(
                        key: try reader.string(), value: try reader.string(),
                        time: Timestamp(milliseconds: try reader.i64()), writer: try reader.string()))
            }
        }
        var events: [ReviewEvent] = []
        if version >= 4 {
            let devices = try (0..<(try reader.count())).map { _ in try reader.string() }
            let count = try reader.count()
            events.reserveCapacity(count)
            for _ in 0..<count {
                let idText = try reader.string()
                guard let id = WordID(idText) else { throw BatchDecodeError(message: "bad reviewed id \(idText.prefix(40))") }
                let time = Timestamp(milliseconds: try reader.i64())
                guard let grade = ReviewGrade(rawValue: Int(try reader.u8())) else { throw BatchDecodeError(message: "bad grade") }
                let index = Int(try reader.u32())
                guard index < devices.count else { throw BatchDecodeError(message: "bad review device index") }
                events.append(ReviewEvent(wordID: id, time: time, grade: grade, device: devices[index], seconds: Int(try reader.u32())))
            }
        }
        guard reader.isAtEnd else { throw BatchDecodeError(message: "unexpected bytes after the last record") }
        return SyncBatch(
            kind: kind, device: device, seq: seq, cursors: cursors, records: records, markers: markers, settings: settings,
            events: events)
    }

    // MARK: - zlib

    /// The batch file holding `bytes` as its payload, as written: for tests that damage
    /// a payload on purpose.
    package static func compress(_ bytes: [UInt8]) -> Data {
        let deflater = Deflater()
        deflater.feed(bytes)
        return deflater.finish()
    }

    package static func decompress(_ data: Data) throws -> [UInt8] {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, Array(bytes[0..<4]) == fileMagic else {
            throw BatchDecodeError(message: "not a MiDiccio batch file")
        }
        let length = bytes[4..<12].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // Deflate cannot expand data more than about 1032 times: a larger declared size is
        // a damaged or hostile header, refused before any memory is allocated for it.
        guard length <= UInt64(maximumPayload), length <= UInt64(bytes.count - 12) * 1032 + 1024 else {
            throw BatchDecodeError(message: "declared size too large")
        }
        var output = [UInt8](repeating: 0, count: Int(length))
        var outputLength = uLongf(length)
        let code = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in
                uncompress(out.baseAddress, &outputLength, input.baseAddress! + 12, uLong(input.count - 12))
            }
        }
        guard code == Z_OK, outputLength == uLongf(length) else {
            throw BatchDecodeError(message: "damaged or truncated (zlib error \(code))")
        }
        return output
    }
}

// MARK: - Byte encoding

struct ByteWriter {
    var buffer: [UInt8] = []

    mutating func bytes(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }
    mutating func u8(_ value: UInt8) { buffer.append(value) }
    mutating func u32(_ value: UInt32) {
        var little = value.littleEndian
        withUnsafeBytes(of: &little) { buffer.append(contentsOf: $0) }
    }
    mutating func i64(_ value: Int64) {
        var little = value.littleEndian
        withUnsafeBytes(of: &little) { buffer.append(contentsOf: $0) }
    }
    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            buffer.append(contentsOf: utf8)
        }
    }
    mutating func strings(_ list: [String]) {
        u32(UInt32(list.count))
        list.forEach { string($0) }
    }
}

struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    private mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else { throw BatchDecodeError(message: "truncated batch") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func bytes(_ count: Int) throws -> [UInt8] { Array(try take(count)) }
    mutating func u8() throws -> UInt8 { try take(1).first! }
    mutating func u32() throws -> UInt32 {
        let bytes = try take(4)
        return bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
    }
    mutating func i64() throws -> Int64 {
        let bytes = try take(8)
        return bytes.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
    }
    /// A count that must fit in what is left of the file (each item takes at least a byte).
    mutating func count() throws -> Int {
        let value = Int(try u32())
        guard value <= bytes.count - offset else { throw BatchDecodeError(message: "count larger than the file") }
        return value
    }
    mutating func string() throws -> String {
        let length = Int(try u32())
        return String(decoding: try take(length), as: UTF8.self)
    }
    mutating func strings() throws -> [String] {
        try (0..<(try count())).map { _ in try string() }
    }
}
