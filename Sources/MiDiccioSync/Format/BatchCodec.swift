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

    /// For a batch read with `BatchCodec.decodeStreaming`: its file, the format version it
    /// was read with, how many records it holds, and how many review events and whether
    /// they lie in key order; `records` and `events` are empty then.
    package var recordFile: (bytes: CloudBytes, formatVersion: Int, count: Int, events: Int, eventsInKeyOrder: Bool)?

    /// How many records the batch holds.
    public var recordCount: Int { recordFile?.count ?? records.count }

    /// How many review events the batch holds.
    public var eventCount: Int { recordFile?.events ?? events.count }

    /// Calls `body` with each record in order, decoding them one at a time from the file
    /// when the batch was read as a stream.
    public func forEachRecord(_ body: (SyncRecord) throws -> Void) throws {
        guard let file = recordFile else {
            try records.forEach(body)
            return
        }
        var reader = try BatchFileReader(file.bytes, formatVersion: file.formatVersion)
        while let record = try reader.next() { try body(record) }
    }

    /// Calls `body` with each record in order, then hands the batch's review events to
    /// `events`. A batch read as a stream is read through once more: its records one at a
    /// time, then its events straight from the file when they lie in key order (the bulk
    /// path: no event is made whole), else made whole and sorted (`ReviewEventImport`).
    ///
    /// A large file (`recordsAsideFrom` words or more, or as many events in key order as
    /// `events.readsAsideFrom`) is decoded on a second thread while this one merges
    /// what it has decoded. With `columnsLocale` (a library that had no words), that
    /// thread also makes each record's derived columns under that term order and hands
    /// them to `body` beside it, for a word new here; otherwise `body` gets nil.
    /// `recordsDone` runs after the last record, before any event.
    package func forEachRecord(
        _ body: (SyncRecord, WordLibrary.NewWordColumns?) throws -> Void, recordsDone: () throws -> Void = {},
        thenEventsInto events: ReviewEventImport, recordsAsideFrom: Int, columnsLocale: String? = nil
    ) throws {
        guard let file = recordFile else {
            for record in records { try body(record, nil) }
            try recordsDone()
            if !self.events.isEmpty { try events.insert(self.events) }
            return
        }
        if file.count >= recordsAsideFrom || (file.eventsInKeyOrder && file.events >= events.readsAsideFrom) {
            return try forEachRecord(body, recordsDone: recordsDone, readingAsideInto: events, columnsLocale: columnsLocale)
        }
        var reader = try BatchFileReader(file.bytes, formatVersion: file.formatVersion)
        let maker = columnsLocale.map { WordLibrary.ColumnMaker(locale: $0) }
        while let record = try reader.next() { try body(record, maker?.columns(for: record.word)) }
        try recordsDone()
        guard file.events > 0 else { return }
        _ = try reader.readTrailer()
        if file.eventsInKeyOrder {
            let devices = try events.deviceNumbers(for: reader.eventDevices)
            while try reader.nextEvent({ try events.insert($0, devices: devices) }) {}
        } else {
            var whole: [ReviewEvent] = []
            whole.reserveCapacity(file.events)
            while let event = try reader.nextEvent() { whole.append(event) }
            try events.insert(whole)
        }
    }

    /// What the thread reading a batch file aside hands over, in the file's order:
    /// records a few hundred at a time (with their derived columns when asked for), then
    /// the events' device table and events a few thousand at a time, or (not in key
    /// order) every event at once.
    private enum AsideRead: Sendable {
        case records([(SyncRecord, WordLibrary.NewWordColumns?)])
        case devices([String])
        case events([ReviewEventRow])
        case wholeEvents([ReviewEvent])
    }

    /// Records decoded aside in one block: enough to make handing them over cheap, few
    /// enough that the blocks waiting between the threads stay small.
    static let asideRecordBlock = 256

    /// `forEachRecord(_:recordsDone:thenEventsInto:recordsAsideFrom:columnsLocale:)` with the file decoded
    /// on a second thread. At most a few blocks wait between the two (`Handoff`'s bounded
    /// queue).
    private func forEachRecord(
        _ body: (SyncRecord, WordLibrary.NewWordColumns?) throws -> Void, recordsDone: () throws -> Void,
        readingAsideInto events: ReviewEventImport, columnsLocale: String?
    ) throws {
        guard let file = recordFile else { return }
        let bytes = file.bytes, version = file.formatVersion, eventsInKeyOrder = file.eventsInKeyOrder
        let eventCount = file.events
        var devices: [Int64] = []
        var recordsEnded = false
        func endRecords() throws {
            guard !recordsEnded else { return }
            recordsEnded = true
            try recordsDone()
        }
        try Handoff.run(
            capacity: 8,
            produce: { emit in
                var reader = try BatchFileReader(bytes, formatVersion: version)
                let maker = columnsLocale.map { WordLibrary.ColumnMaker(locale: $0) }
                var records: [(SyncRecord, WordLibrary.NewWordColumns?)] = []
                records.reserveCapacity(Self.asideRecordBlock)
                while let record = try reader.next() {
                    records.append((record, maker?.columns(for: record.word)))
                    guard records.count == Self.asideRecordBlock else { continue }
                    try emit(AsideRead.records(records))
                    records.removeAll(keepingCapacity: true)
                }
                if !records.isEmpty { try emit(.records(records)) }
                guard eventCount > 0 else { return }
                _ = try reader.readTrailer()
                guard eventsInKeyOrder else {
                    var whole: [ReviewEvent] = []
                    whole.reserveCapacity(eventCount)
                    while let event = try reader.nextEvent() { whole.append(event) }
                    try emit(.wholeEvents(whole))
                    return
                }
                try emit(.devices(reader.eventDevices))
                var block: [ReviewEventRow] = []
                block.reserveCapacity(4_096)
                while try reader.nextEvent({ block.append(ReviewEventRow($0)) }) {
                    guard block.count == 4_096 else { continue }
                    try emit(.events(block))
                    block.removeAll(keepingCapacity: true)
                }
                if !block.isEmpty { try emit(.events(block)) }
            },
            consume: { item in
                switch item {
                case .records(let records): for (record, columns) in records { try body(record, columns) }
                case .devices(let table):
                    try endRecords()
                    devices = try events.deviceNumbers(for: table)
                case .events(let block): try events.insert(block, devices: devices)
                case .wholeEvents(let whole):
                    try endRecords()
                    try events.insert(whole)
                }
            })
        try endRecords()
    }

    /// The cloud format version this batch is written in: always the current one (6) now,
    /// since every record carries its tag clock (written in format 4 or older, a record's
    /// tags would read as a list that replaces the whole list) and every marker says whether
    /// the Trash's clean-up left it. Before format 5, the oldest format that could hold the
    /// batch was chosen, so that older devices could still read it.
    public var formatVersion: Int { Self.formatVersion(markers: markers, settings: settings, events: events) }

    /// The cloud format version of a batch carrying `markers`, `settings` and `events`.
    public static func formatVersion(markers: [PurgeMarker], settings: [SettingRecord], events: [ReviewEvent] = []) -> Int {
        CloudManifest.currentVersion
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
    /// Format 5 payloads add each record's tag clock after its tags: its floor (-1: none),
    /// a count, then per tag its form, time, 1 or 0 (on or off), order time and position.
    static let payloadMagic5 = Array("MDB5".utf8)
    /// Format 6 payloads add to each purge marker a byte, 1 for one the Trash's clean-up
    /// left (then the purged version's Trash time and newest field time) and 0 for a
    /// person's purge (`PurgeMarker.cleanUp`).
    static let payloadMagic6 = Array("MDB6".utf8)

    /// The payload magic a batch of format `version` starts with (format 3 changed names,
    /// not payloads).
    static func payloadMagic(ofVersion version: Int) -> [UInt8] {
        switch version {
        case ...1: payloadMagic
        case 2...3: payloadMagic2
        case 4: payloadMagic4
        case 5: payloadMagic5
        default: payloadMagic6
        }
    }
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

    /// Reads a batch file whole; throws `BatchDecodeError` for anything damaged or
    /// foreign. `formatVersion` is the newest format the reader understands: a device of
    /// format 1 refuses format 2 batches as written by a newer MiDiccio.
    public static func decode(_ data: Data, formatVersion: Int = CloudManifest.currentVersion) throws -> SyncBatch {
        var reader = try BatchFileReader(data, formatVersion: formatVersion)
        var records: [SyncRecord] = []
        records.reserveCapacity(reader.recordCount)
        while let record = try reader.next() { records.append(record) }
        let (markers, settings, events) = try reader.finish()
        return SyncBatch(
            kind: reader.kind, device: reader.device, seq: reader.seq, cursors: reader.cursors, records: records,
            markers: markers, settings: settings, events: events)
    }

    /// Reads a batch file through once, checking all of it as `decode` does, and returns
    /// the batch with its records and review events left in the file:
    /// `SyncBatch.forEachRecord` decodes them one at a time, so a new device's first sync
    /// of a million words or events never holds them all.
    public static func decodeStreaming(_ data: Data, formatVersion: Int = CloudManifest.currentVersion) throws -> SyncBatch {
        try decodeStreaming(.memory(data), formatVersion: formatVersion)
    }

    /// `decodeStreaming(_:formatVersion:)` of a file in memory or held open: one held open
    /// is read a piece at a time, at every pass.
    public static func decodeStreaming(_ bytes: CloudBytes, formatVersion: Int = CloudManifest.currentVersion) throws -> SyncBatch {
        var reader = try BatchFileReader(bytes, formatVersion: formatVersion)
        while try reader.skip() {}
        let (markers, settings) = try reader.readTrailer()
        var order = EventKeyOrder()
        while try reader.nextEvent({ order.see($0) }) {}
        try reader.end()
        var batch = SyncBatch(
            kind: reader.kind, device: reader.device, seq: reader.seq, cursors: reader.cursors, records: [],
            markers: markers, settings: settings)
        batch.recordFile = (bytes, formatVersion, reader.recordCount, reader.eventCount, order.inOrder)
        return batch
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

/// Follows review events as a file holds them and tells whether they come in the
/// reviews table's key order as far as it matters for storing them: word id (compared
/// byte by byte, as the table's 16-byte key sorts), then time. Events of one word at one
/// millisecond from two devices may come in either order.
struct EventKeyOrder {
    /// False once an event came before the one preceding it.
    private(set) var inOrder = true
    private var previousID: [UInt8] = []
    private var previousTime: Int64 = 0

    mutating func see(_ event: ReviewEventBytes) {
        guard inOrder else { return }
        defer { previousTime = event.time }
        if previousID.isEmpty || !event.wordID.elementsEqual(previousID) {
            if !previousID.isEmpty && event.wordID.lexicographicallyPrecedes(previousID) { inOrder = false }
            previousID = Array(event.wordID)
            return
        }
        if event.time < previousTime { inOrder = false }
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
