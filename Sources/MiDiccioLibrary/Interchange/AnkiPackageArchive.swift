import CZip
import CZstd
import Foundation
import MiDiccioFiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - The zip

/// An Anki package opened with libzip, read-only. The only owner of its `zip_t`.
final class AnkiZip {
    private let handle: OpaquePointer

    /// Opens the zip at `path`; a file that is no zip, or a truncated one (its central
    /// directory, at the end, is missing), is refused here.
    init(path: String) throws(AnkiPackageError) {
        var code: Int32 = 0
        guard let handle = zip_open(path, ZIP_RDONLY, &code) else {
            throw AnkiPackageError(Self.describe(openError: code))
        }
        self.handle = handle
    }

    deinit { zip_discard(handle) }

    /// The index of the entry named exactly `name`, if there is one.
    func entry(named name: String) -> UInt64? {
        let index = zip_name_locate(handle, name, 0)
        return index < 0 ? nil : UInt64(index)
    }

    /// The sizes the zip's directory states for an entry (which a hostile file may fake:
    /// `copy` counts the bytes it really gets).
    func statedSizes(of index: UInt64, name: String) throws(AnkiPackageError) -> (compressed: UInt64, uncompressed: UInt64) {
        var status = zip_stat_t()
        zip_stat_init(&status)
        guard zip_stat_index(handle, index, 0, &status) == 0 else {
            throw AnkiPackageError("\(name) inside the package cannot be read (\(String(cString: zip_strerror(handle))))")
        }
        if status.valid & UInt64(ZIP_STAT_ENCRYPTION_METHOD) != 0, status.encryption_method != UInt16(ZIP_EM_NONE) {
            throw AnkiPackageError("\(name) inside the package is encrypted; Anki never encrypts its packages")
        }
        let compressed = status.valid & UInt64(ZIP_STAT_COMP_SIZE) != 0 ? status.comp_size : 0
        let uncompressed = status.valid & UInt64(ZIP_STAT_SIZE) != 0 ? status.size : 0
        return (compressed, uncompressed)
    }

    /// Hands the entry's uncompressed bytes to `sink` a chunk at a time (after libzip's
    /// own checks: a damaged deflate stream or a wrong CRC is an error).
    func read(_ index: UInt64, name: String, into sink: (UnsafeRawBufferPointer) throws(AnkiPackageError) -> Void) throws(AnkiPackageError)
    {
        guard let file = zip_fopen_index(handle, index, 0) else {
            throw AnkiPackageError("\(name) inside the package cannot be opened (\(String(cString: zip_strerror(handle))))")
        }
        defer { zip_fclose(file) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = zip_fread(file, buffer.baseAddress, UInt64(buffer.count))
            if count < 0 {
                throw AnkiPackageError("\(name) inside the package is damaged (\(String(cString: zip_file_strerror(file))))")
            }
            if count == 0 { return }
            try sink(UnsafeRawBufferPointer(rebasing: buffer[0..<Int(count)]))
        }
    }

    private static func describe(openError code: Int32) -> String {
        var error = zip_error_t()
        zip_error_init_with_code(&error, code)
        defer { zip_error_fini(&error) }
        let detail = String(cString: zip_error_strerror(&error))
        switch code {
        case ZIP_ER_NOENT: return "no such file"
        case ZIP_ER_NOZIP: return "not a zip file, or a truncated one (\(detail)); an Anki package is a zip file"
        case ZIP_ER_INCONS: return "the zip file is inconsistent (\(detail))"
        case ZIP_ER_OPEN, ZIP_ER_READ: return "cannot be read (\(detail))"
        default: return "cannot be opened as a zip file (\(detail))"
        }
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
    let index: UInt64
    let name: String
    let zstdCompressed: Bool
    let limits: AnkiPackage.Limits

    /// Writes the collection to a new file at `destination` (mode 0600).
    func write(to destination: String) throws(AnkiPackageError) {
        let stated = try zip.statedSizes(of: index, name: name)
        if !zstdCompressed { try check(produced: stated.uncompressed, packed: stated.compressed) }
        // The ratio is measured against the entry's bytes in the package (never more
        // than the file's size); a zero makes any output a bomb past the free allowance.
        let packed = stated.compressed

        let descriptor = open(destination, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw AnkiPackageError("cannot write a temporary copy of \(name) (\(FileSystem.errorText(errno)))")
        }
        defer { close(descriptor) }
        var produced: UInt64 = 0
        let store = { (chunk: UnsafeRawBufferPointer) throws(AnkiPackageError) -> Void in
            produced += UInt64(chunk.count)
            try check(produced: produced, packed: packed)
            if let failure = FileSystem.writeAll(Data(chunk), to: descriptor) {
                throw AnkiPackageError("cannot write a temporary copy of \(name) (\(failure))")
            }
        }
        if zstdCompressed {
            let stream = try ZstdStream()
            var first = true
            try zip.read(index, name: name) { (chunk) throws(AnkiPackageError) in
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
            try zip.read(index, name: name, into: store)
        }
    }

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

/// Runs `body` with a new folder only this user can read, inside `parent` (the system's
/// temporary folder by default), removed afterwards whatever happens (SQLite may leave a
/// journal beside the collection).
func withPrivateTemporaryFolder<T>(in parent: String? = nil, _ body: (String) throws(AnkiPackageError) -> T) throws(AnkiPackageError) -> T {
    let folder = (parent.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory)
        .appendingPathComponent("midiccio-anki-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))", isDirectory: true).path
    do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    } catch {
        throw AnkiPackageError("cannot make a temporary folder for the collection (\(error.localizedDescription))")
    }
    defer { try? FileManager.default.removeItem(atPath: folder) }
    return try body(folder)
}
