import CZlib
import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioModel

/// Writes a batch file record by record, compressing as it goes: a snapshot of a
/// million words holds its compressed bytes and one block of records in memory, never
/// the words themselves or their whole encoding (issue 12, item 4). `BatchCodec.encode`
/// writes every batch through it, so there is one encoder.
package struct BatchFileWriter {
    /// Encoded bytes not yet compressed; handed to zlib once they pass `blockSize`.
    private var block = ByteWriter()
    private let deflater: Deflater
    private let writerIndex: [String: UInt32]
    private let declaredRecords: Int
    private var writtenRecords = 0
    private let formatVersion: Int
    static let blockSize = 1 << 18

    /// Starts a batch that will hold exactly `records` records, all written by devices
    /// among `writers`; `formatVersion` 2 carries purge markers and settings. With
    /// `spillFrom`, compressed bytes past that many go on in a nameless temporary file
    /// (see `finishBytes`).
    package init(
        kind: SyncBatch.Kind, device: String, seq: Int64, cursors: [String: Int64], writers: [String], records: Int,
        formatVersion: Int, spillFrom: Int? = nil
    ) {
        deflater = Deflater(spillFrom: spillFrom)
        self.formatVersion = formatVersion
        declaredRecords = records
        var index: [String: UInt32] = [:]
        var table: [String] = []
        for id in writers where index[id] == nil {
            index[id] = UInt32(table.count)
            table.append(id)
        }
        writerIndex = index
        block.bytes(BatchCodec.payloadMagic(ofVersion: formatVersion))
        block.u8(kind.rawValue)
        block.string(device)
        block.i64(seq)
        block.u32(UInt32(cursors.count))
        for (device, seq) in cursors.sorted(by: { $0.key < $1.key }) {
            block.string(device)
            block.i64(seq)
        }
        block.u32(UInt32(table.count))
        table.forEach { block.string($0) }
        block.u32(UInt32(records))
    }

    /// Adds one record. Its writers must be among those the batch was started with.
    package mutating func append(_ record: SyncRecord) throws {
        guard writtenRecords < declaredRecords else {
            throw BatchDecodeError(message: "more records than the \(declaredRecords) the batch was started with")
        }
        let word = record.word
        block.string(word.id.rawValue)
        block.i64(word.createdAt.milliseconds)
        for field in WordField.allCases {
            block.i64(record.times[field].milliseconds)
            guard let writer = writerIndex[record.writers[field.index]] else {
                throw BatchDecodeError(message: "word \(word.id) names writer \(record.writers[field.index]), unknown to the batch")
            }
            block.u32(writer)
            switch field {
            case .term: block.string(word.term)
            case .meaning: block.string(word.meaning)
            case .reading: block.string(word.reading)
            case .examples: block.strings(word.examples)
            case .notes: block.string(word.notes)
            case .tags:
                block.strings(word.tags)
                if formatVersion >= 5 {
                    let clock = record.tagClock
                    block.i64(clock.floor?.milliseconds ?? -1)
                    block.u32(UInt32(clock.marks.count))
                    for mark in clock.marks.sorted(by: { $0.key < $1.key }).map(\.value) {
                        block.string(mark.form)
                        block.i64(mark.time.milliseconds)
                        block.u8(mark.isPresent ? 1 : 0)
                        block.i64(mark.orderTime.milliseconds)
                        block.u32(UInt32(clamping: mark.position))
                    }
                }
            case .deleted: block.i64(word.deletedAt?.milliseconds ?? -1)
            }
        }
        writtenRecords += 1
        if block.buffer.count >= Self.blockSize {
            deflater.feed(block.buffer)
            block.buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Ends the batch with its purge markers and settings (format 2) and review events
    /// (format 4) and returns the file's bytes. Throws when fewer records came than the
    /// batch was started with, or events that its format cannot carry.
    package mutating func finish(
        markers: [PurgeMarker] = [], settings: [SettingRecord] = [], events: [ReviewEvent] = []
    ) throws -> Data {
        try writeEnd(markers: markers, settings: settings, events: events)
        return try deflater.finishBytes().wholeData()
    }

    /// Like `finish`, for a writer started with `spillFrom`: the file's bytes in memory,
    /// or, past that size, in the temporary file, held open (a snapshot of a million
    /// words never sits whole in memory, and is uploaded or copied from there). Throws
    /// also when the temporary file could not be written (a full disk).
    package mutating func finishBytes(
        markers: [PurgeMarker] = [], settings: [SettingRecord] = [], events: [ReviewEvent] = []
    ) throws -> CloudBytes {
        try writeEnd(markers: markers, settings: settings, events: events)
        return try deflater.finishBytes()
    }

    /// Writes what follows the records, and hands the rest of the block to zlib.
    private mutating func writeEnd(markers: [PurgeMarker], settings: [SettingRecord], events: [ReviewEvent]) throws {
        guard writtenRecords == declaredRecords else {
            throw BatchDecodeError(message: "\(writtenRecords) records written of the \(declaredRecords) the batch was started with")
        }
        if formatVersion >= 2 {
            block.u32(UInt32(markers.count))
            for marker in markers {
                block.string(marker.id.rawValue)
                block.i64(marker.purgedAt.milliseconds)
                guard formatVersion >= 6 else { continue }
                if let cleanUp = marker.cleanUp {
                    block.u8(1)
                    block.i64(cleanUp.trashedAt.milliseconds)
                    block.i64(cleanUp.newest.milliseconds)
                } else {
                    block.u8(0)
                }
            }
            block.u32(UInt32(settings.count))
            for setting in settings {
                block.string(setting.key)
                block.string(setting.value)
                block.i64(setting.time.milliseconds)
                block.string(setting.writer)
            }
        }
        if formatVersion >= 4 {
            // Device ids once, in a table; events name them by index (a million events
            // from three devices).
            var index: [String: UInt32] = [:]
            var table: [String] = []
            for event in events where index[event.device] == nil {
                index[event.device] = UInt32(table.count)
                table.append(event.device)
            }
            block.strings(table)
            block.u32(UInt32(events.count))
            for event in events {
                block.string(event.wordID.rawValue)
                block.i64(event.time.milliseconds)
                block.u8(UInt8(event.grade.rawValue))
                block.u32(index[event.device]!)
                block.u32(UInt32(clamping: event.seconds))
                if block.buffer.count >= Self.blockSize {
                    deflater.feed(block.buffer)
                    block.buffer.removeAll(keepingCapacity: true)
                }
            }
        } else if !events.isEmpty {
            throw BatchDecodeError(message: "review events need format 4, not \(formatVersion)")
        }
        deflater.feed(block.buffer)
        block.buffer = []
    }
}

/// A zlib stream writing "MDZ1" | uncompressed length (u64, little-endian) | deflate
/// data, the batch file layout. Its output is kept in chunks and joined once at the end,
/// so the file is never held twice while it grows; with `spillFrom`, output past that
/// size goes on in a nameless temporary file instead, the header written last.
final class Deflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    /// Where zlib writes; copied into `chunks` after each call.
    private let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
    private var chunks: [[UInt8]] = []
    /// Compressed bytes held in `chunks`.
    private var held = 0
    private var total: UInt64 = 0
    private static let chunkSize = 1 << 20
    private let spillFrom: Int?
    /// The temporary file's descriptor once output went there (-1 before), how many
    /// bytes it holds after the header's place, and the first failure to write it.
    private var spill: Int32 = -1
    private var spilled = 0
    private var spillFailure: String?
    private var cannotSpill = false
    private static let headerSize = 12
    /// Makes the temporary file: a descriptor open for writing.
    private let makeFile: () throws -> Int32

    /// A stream kept in memory, or with `spillFrom` in a temporary file from that size on,
    /// made by `makeFile` (a nameless one in the temporary folder).
    init(spillFrom: Int? = nil, makeFile: @escaping () throws -> Int32 = FileSystem.anonymousFile) {
        self.spillFrom = spillFrom
        self.makeFile = makeFile
        stream.initialize(to: z_stream())
        // Level 1: these files are written on every sync; speed matters more than bytes.
        let code = deflateInit_(stream, 1, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(code == Z_OK, "zlib deflateInit failed with \(code)")
    }

    deinit {
        if spill >= 0 { close(spill) }
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Compresses `bytes` (more may follow).
    func feed(_ bytes: [UInt8]) {
        total += UInt64(bytes.count)
        run(bytes, flush: Z_NO_FLUSH)
    }

    /// Ends the stream and returns the whole file, of a stream made without `spillFrom`.
    func finish() -> Data {
        precondition(spillFrom == nil, "a stream that may spill to a file ends with finishBytes")
        run([], flush: Z_FINISH)
        return memoryFile()
    }

    /// Ends the stream and returns the whole file: in memory, or in the temporary file
    /// once the output passed `spillFrom`.
    func finishBytes() throws -> CloudBytes {
        run([], flush: Z_FINISH)
        if spill >= 0 {
            moveChunksToFile()
            if spillFailure == nil { spillFailure = header.withUnsafeBytes { FileSystem.writeAll($0, to: spill, at: 0) } }
            if let spillFailure { throw FileError(path: "a temporary file for the snapshot", reason: spillFailure) }
            let file = OpenedFile(descriptor: spill, path: "a temporary file for the snapshot", size: Self.headerSize + spilled)
            spill = -1
            return .file(file)
        }
        return .memory(memoryFile())
    }

    /// The header and the chunks held, as one file (the chunks let go as they are copied).
    private func memoryFile() -> Data {
        var file = Data(capacity: Self.headerSize + held)
        file.append(contentsOf: header)
        for index in chunks.indices {
            file.append(contentsOf: chunks[index])
            chunks[index] = []
        }
        return file
    }

    /// The magic and the uncompressed length.
    private var header: [UInt8] {
        var header = BatchCodec.fileMagic
        withUnsafeBytes(of: total.littleEndian) { header.append(contentsOf: $0) }
        return header
    }

    private func run(_ input: [UInt8], flush: Int32) {
        input.withUnsafeBufferPointer { input in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            while true {
                stream.pointee.next_out = scratch.baseAddress
                stream.pointee.avail_out = uInt(scratch.count)
                let code = deflate(stream, flush)
                precondition(code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR, "zlib deflate failed with \(code)")
                keep(scratch.count - Int(stream.pointee.avail_out))
                let done = flush == Z_FINISH ? code == Z_STREAM_END : stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0
                if done { break }
            }
            stream.pointee.next_in = nil
        }
    }

    /// Moves the first `count` bytes of `scratch` to the output.
    private func keep(_ count: Int) {
        guard count > 0 else { return }
        if chunks.isEmpty || chunks[chunks.count - 1].count >= Self.chunkSize { chunks.append([]) }
        chunks[chunks.count - 1].append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<count]))
        held += count
        if let spillFrom, !cannotSpill, spill >= 0 || held >= spillFrom, held >= Self.chunkSize { moveChunksToFile() }
    }

    /// Writes the chunks held to the temporary file (made at the first call, its header's
    /// place left empty) and lets them go. A failure is kept for `finishBytes` to throw.
    private func moveChunksToFile() {
        if spill < 0 {
            // No temporary file to be had: the output stays in memory, as without
            // `spillFrom` (no worse than before).
            guard !cannotSpill, let descriptor = try? makeFile() else {
                cannotSpill = true
                return
            }
            spill = descriptor
        }
        for chunk in chunks where spillFailure == nil {
            spillFailure = chunk.withUnsafeBytes { FileSystem.writeAll($0, to: spill, at: Self.headerSize + spilled) }
            spilled += chunk.count
        }
        chunks.removeAll()
        held = 0
    }
}
