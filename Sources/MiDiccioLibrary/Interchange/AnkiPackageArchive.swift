import CMinizip
import CZstd
import Foundation
import MiDiccioFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - The zip

/// An Anki package opened with minizip, read-only. The only owner of its `unzFile`.
///
/// Entries are read raw (their bytes as packed) and inflated here with zlib, so what an
/// entry unpacks to is counted on the bytes really produced: minizip's own inflate trusts
/// the size the zip states.
final class AnkiZip {
    /// An entry found by name: where it is in the zip's directory.
    struct Entry {
        /// Its name in the zip (`collection.anki21b` ...), for messages.
        let name: String
        fileprivate let position: unz64_file_pos
    }

    /// What the zip's directory states about an entry (which a hostile file may fake).
    struct Statement {
        var compressedBytes: UInt64
        var uncompressedBytes: UInt64
        var crc: UInt32
        var deflated: Bool
    }

    /// Nil for a zip without entries, which minizip cannot open (it takes an end record
    /// at the file's first byte for none at all).
    private let handle: unzFile?
    /// The zip file's size: no entry packs into more bytes than that, whatever it states.
    let fileBytes: UInt64

    /// Opens the zip at `path`; a file that is no zip, or a truncated one (its central
    /// directory, at the end, is missing), is refused here.
    init(path: String) throws(AnkiPackageError) {
        // minizip says only that opening failed; the system says why a file cannot be read.
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw AnkiPackageError(errno == ENOENT ? "no such file" : "cannot be read (\(FileSystem.errorText(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw AnkiPackageError("cannot be read (\(FileSystem.errorText(errno)))") }
        fileBytes = UInt64(max(status.st_size, 0))
        if let handle = unzOpen64(path) {
            self.handle = handle
        } else if Self.isEmptyZip(descriptor, bytes: fileBytes) {
            handle = nil
        } else {
            throw AnkiPackageError("not a zip file, or a truncated one (no central directory at its end); an Anki package is a zip file")
        }
    }

    deinit { if let handle { unzClose(handle) } }

    /// True when the file is only an end of central directory record (and its comment):
    /// a zip without entries.
    private static func isEmptyZip(_ descriptor: Int32, bytes: UInt64) -> Bool {
        var record = [UInt8](repeating: 0, count: 22)
        guard pread(descriptor, &record, record.count, 0) == record.count else { return false }
        let entries = record[8...11].allSatisfy { $0 == 0 }
        let commentBytes = UInt64(record[20]) | UInt64(record[21]) << 8
        return record.starts(with: [0x50, 0x4B, 0x05, 0x06]) && entries && bytes == 22 + commentBytes
    }

    /// The entry named exactly `name` (case counts), if there is one.
    func entry(named name: String) -> Entry? {
        guard let handle, unzLocateFile(handle, name, 1) == UNZ_OK else { return nil }
        var position = unz64_file_pos()
        guard unzGetFilePos64(handle, &position) == UNZ_OK else { return nil }
        return Entry(name: name, position: position)
    }

    /// What the directory states about `entry`; an entry MiDiccio cannot unpack (encrypted,
    /// or packed other than stored or deflated, which is all Anki writes) is refused here.
    func statement(of entry: Entry) throws(AnkiPackageError) -> Statement {
        var position = entry.position
        var info = unz_file_info64()
        guard let handle, unzGoToFilePos64(handle, &position) == UNZ_OK,
            unzGetCurrentFileInfo64(handle, &info, nil, 0, nil, 0, nil, 0) == UNZ_OK
        else {
            throw AnkiPackageError("\(entry.name) inside the package cannot be read (the zip's directory is damaged)")
        }
        // Bit 0 of the general purpose flags: the entry is encrypted.
        if info.flag & 1 != 0 {
            throw AnkiPackageError("\(entry.name) inside the package is encrypted; Anki never encrypts its packages")
        }
        guard info.compression_method == 0 || info.compression_method == UInt(Z_DEFLATED) else {
            throw AnkiPackageError(
                "\(entry.name) inside the package is packed with zip method \(info.compression_method); "
                    + "Anki only stores or deflates, and so does MiDiccio")
        }
        return Statement(
            compressedBytes: info.compressed_size, uncompressedBytes: info.uncompressed_size, crc: UInt32(truncatingIfNeeded: info.crc),
            deflated: info.compression_method == UInt(Z_DEFLATED))
    }

    /// Hands the entry's uncompressed bytes to `sink` a chunk at a time, as they are
    /// produced; then checks that the data ended where the zip says, with its CRC and its
    /// stated size (a damaged deflate stream or a wrong CRC is an error).
    func read(_ entry: Entry, into sink: (UnsafeRawBufferPointer) throws(AnkiPackageError) -> Void) throws(AnkiPackageError) {
        let stated = try statement(of: entry)
        guard let handle else { return }
        // Raw: minizip hands over the packed bytes, exactly the stated compressed size of
        // them (a file too short for it is a read error), and inflate runs here.
        let opened = unzOpenCurrentFile2(handle, nil, nil, 1)
        guard opened == UNZ_OK else {
            throw AnkiPackageError("\(entry.name) inside the package cannot be opened (\(Self.describe(opened)))")
        }
        defer { unzCloseCurrentFile(handle) }
        let inflater = stated.deflated ? try RawInflater(name: entry.name) : nil
        var crc = crc32(0, nil, 0)
        var produced: UInt64 = 0
        func counted(_ chunk: UnsafeRawBufferPointer) throws(AnkiPackageError) {
            crc = crc32(crc, chunk.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(chunk.count))
            produced += UInt64(chunk.count)
            try sink(chunk)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = unzReadCurrentFile(handle, buffer.baseAddress, UInt32(buffer.count))
            if count < 0 {
                throw AnkiPackageError("\(entry.name) inside the package cannot be read (\(Self.describe(count)))")
            }
            if count == 0 { break }
            let packed = UnsafeRawBufferPointer(rebasing: buffer[0..<Int(count)])
            if let inflater { try inflater.inflate(packed, into: counted) } else { try counted(packed) }
        }
        if let inflater, !inflater.ended {
            throw AnkiPackageError("\(entry.name) inside the package is damaged (its deflate data is cut short)")
        }
        guard UInt32(truncatingIfNeeded: crc) == stated.crc else {
            throw AnkiPackageError("\(entry.name) inside the package is damaged (its CRC does not match)")
        }
        guard produced == stated.uncompressedBytes else {
            throw AnkiPackageError(
                "\(entry.name) inside the package is damaged (it unpacks to \(produced) bytes, "
                    + "not the \(stated.uncompressedBytes) the zip states)")
        }
    }

    private static func describe(_ code: Int32) -> String {
        switch code {
        case UNZ_BADZIPFILE: return "the zip file is inconsistent"
        case UNZ_ERRNO: return "the zip file ends before its data does, or reading it failed"
        default: return "minizip error \(code)"
        }
    }
}

/// One raw deflate stream being inflated. The only owner of its `z_stream`, which stays
/// at one address (zlib keeps a pointer back to it).
private final class RawInflater {
    private let name: String
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// True once the deflate data has ended.
    private(set) var ended = false

    init(name: String) throws(AnkiPackageError) {
        self.name = name
        stream.initialize(to: z_stream())
        guard midiccio_inflate_init_raw(stream) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            output.deallocate()
            throw AnkiPackageError("cannot start inflating \(name) (out of memory)")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
    }

    /// Inflates `input`, handing every piece of output to `sink` as it comes, so no more
    /// than one buffer of it is ever held.
    func inflate(
        _ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws(AnkiPackageError) -> Void
    ) throws(AnkiPackageError) {
        guard let base = input.baseAddress, input.count > 0 else { return }
        if ended {
            throw AnkiPackageError("\(name) inside the package is damaged (bytes after the end of its deflate data)")
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        repeat {
            stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(output.count)
            let code = CMinizip.inflate(stream, Z_NO_FLUSH)
            guard code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR else {
                let detail = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(code)"
                throw AnkiPackageError("\(name) inside the package is damaged (\(detail))")
            }
            let count = output.count - Int(stream.pointee.avail_out)
            if count > 0 { try sink(UnsafeRawBufferPointer(rebasing: output[0..<count])) }
            if code == Z_STREAM_END {
                ended = true
                if stream.pointee.avail_in > 0 {
                    throw AnkiPackageError("\(name) inside the package is damaged (bytes after the end of its deflate data)")
                }
                return
            }
            // A full output buffer may hold back more output even when all input is taken.
        } while stream.pointee.avail_out == 0
    }
}

// MARK: - zstd

/// One zstd decompression stream (Anki's current packages compress the collection with
/// zstd). The only owner of its `ZSTD_DStream`.
final class ZstdStream {
    private let handle: OpaquePointer
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(ZSTD_DStreamOutSize()), alignment: 16)
    /// True when the last call ended exactly at the end of a frame.
    private(set) var atFrameEnd = true

    init() throws(AnkiPackageError) {
        guard let handle = ZSTD_createDStream() else {
            output.deallocate()
            throw AnkiPackageError("cannot start zstd decompression (out of memory)")
        }
        self.handle = handle
        ZSTD_initDStream(handle)
    }

    deinit {
        ZSTD_freeDStream(handle)
        output.deallocate()
    }

    /// Decompresses `input`, handing every piece of output to `sink` as it comes, so no
    /// more than one buffer of it is ever held.
    func decompress(
        _ input: UnsafeRawBufferPointer, name: String, into sink: (UnsafeRawBufferPointer) throws(AnkiPackageError) -> Void
    ) throws(AnkiPackageError) {
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        repeat {
            var target = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
            let result = ZSTD_decompressStream(handle, &target, &source)
            if ZSTD_isError(result) != 0 {
                throw AnkiPackageError("\(name) inside the package is not valid zstd data (\(String(cString: ZSTD_getErrorName(result))))")
            }
            atFrameEnd = result == 0
            if target.pos > 0 { try sink(UnsafeRawBufferPointer(rebasing: output[0..<target.pos])) }
            // A full output buffer may hold back more output even when all input is taken.
            if source.pos == source.size && target.pos < target.size { return }
        } while true
    }
}

// MARK: - Extraction with limits

/// Copies one entry of a package into a file, counting the bytes it really produces: the
/// sizes in a zip's directory may lie, so the limits are checked while reading.
struct AnkiCollectionExtraction {
    let zip: AnkiZip
    let entry: AnkiZip.Entry
    let zstdCompressed: Bool
    let limits: AnkiPackage.Limits

    /// Writes the collection to a new file at `destination` (mode 0600).
    /// Why the copy of `name` could not be written at `destination`, naming the folder it
    /// goes to: "No space left on device" alone sent people to free space beside the
    /// package or the library, in vain (found by the exploratory helper, round 14C).
    static func unwritten(_ name: String, _ problem: String, in destination: String) -> String {
        let folder = FileSystem.parent(of: FileSystem.parent(of: destination))
        return "cannot write a temporary copy of \(name) in the temporary folder \(folder) (\(problem)); "
            + "free some space there, or set TMPDIR to a folder with room"
    }

    func write(to destination: String) throws(AnkiPackageError) {
        let stated = try zip.statement(of: entry)
        // The ratio is measured against the entry's bytes in the package (never more
        // than the file's size); a zero makes any output a bomb past the free allowance.
        let packed = min(stated.compressedBytes, zip.fileBytes)
        if !zstdCompressed { try check(produced: stated.uncompressedBytes, packed: packed) }

        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw AnkiPackageError(Self.unwritten(name, FileSystem.errorText(errno), in: destination))
        }
        defer { close(descriptor) }
        var produced: UInt64 = 0
        let store = { (chunk: UnsafeRawBufferPointer) throws(AnkiPackageError) -> Void in
            produced += UInt64(chunk.count)
            try check(produced: produced, packed: packed)
            if let failure = FileSystem.writeAll(Data(chunk), to: descriptor) {
                throw AnkiPackageError(Self.unwritten(name, failure, in: destination))
            }
        }
        if zstdCompressed {
            let stream = try ZstdStream()
            var first = true
            try zip.read(entry) { (chunk) throws(AnkiPackageError) in
                if first {
                    first = false
                    guard chunk.count >= 4, chunk.prefix(4).elementsEqual([0x28, 0xB5, 0x2F, 0xFD]) else {
                        throw AnkiPackageError("\(name) inside the package is not zstd-compressed, as Anki writes it")
                    }
                }
                try stream.decompress(chunk, name: name, into: store)
            }
            guard !first, stream.atFrameEnd else {
                throw AnkiPackageError("\(name) inside the package ends in the middle of its zstd data")
            }
        } else {
            try zip.read(entry, into: store)
        }
    }

    private var name: String { entry.name }

    private func check(produced: UInt64, packed: UInt64) throws(AnkiPackageError) {
        if produced > UInt64(limits.collectionBytes) {
            throw AnkiPackageError(
                "\(name) inside the package unpacks to more than \(AnkiPackage.Limits.describe(bytes: limits.collectionBytes)), "
                    + "the most MiDiccio reads (a zip bomb, or not a vocabulary deck)")
        }
        if produced > UInt64(limits.ratioFreeBytes), produced / max(packed, 1) > UInt64(limits.ratio) {
            throw AnkiPackageError(
                "\(name) inside the package unpacks to more than \(limits.ratio) times its packed size "
                    + "(\(AnkiPackage.Limits.describe(bytes: Int(clamping: produced))) from "
                    + "\(AnkiPackage.Limits.describe(bytes: Int(clamping: packed)))): a zip bomb")
        }
    }
}

// MARK: - A private folder for the copy

/// Makes a new folder only this user can read, inside `parent` (the system's temporary
/// folder by default), for the unpacked collection; its owner removes it, whatever is in it.
/// Its name holds this process's id, so the folders of an import that was killed are
/// removed by the next one (`FileSystem.removeLeftoversOfEndedProcesses`).
func makePrivateTemporaryFolder(in parent: String? = nil) throws(AnkiPackageError) -> String {
    let parent = parent ?? FileManager.default.temporaryDirectory.path
    FileSystem.removeLeftoversOfEndedProcesses(in: parent, prefix: temporaryFolderPrefix)
    let folder = URL(fileURLWithPath: parent, isDirectory: true)
        .appendingPathComponent(
            "\(temporaryFolderPrefix)\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))", isDirectory: true
        ).path
    do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    } catch {
        throw AnkiPackageError("cannot make a temporary folder for the collection (\(FileSystem.describe(error)))")
    }
    return folder
}

/// How the unpacked collections' folders are named: then the process id, a dash, a random part.
let temporaryFolderPrefix = "midiccio-anki-"
