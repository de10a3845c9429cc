import Foundation
import Testing

@testable import MiDiccioFiles
@testable import MiDiccioSync

#if canImport(Glibc)
import Glibc
#endif

/// A snapshot past a megabyte is compressed into a temporary file (issue 12). When no
/// temporary file can be made it stays in memory, as before there were any; when the
/// file cannot be written (the disk is full), the snapshot fails with the system's words
/// instead of handing on a file with a hole in it.
@Suite("A snapshot without a usable temporary file stays in memory or fails, saying why")
struct SnapshotTemporaryFileFailureTests {
    /// Three megabytes that barely compress, so the output passes a megabyte.
    private static let input: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        let words = (0..<(3 << 17)).map { _ in generator.next() as UInt64 }
        return words.withUnsafeBytes { Array($0) }
    }()

    private static func compressed(_ deflater: Deflater) {
        for start in stride(from: 0, to: input.count, by: 1 << 16) {
            deflater.feed(Array(input[start..<min(start + (1 << 16), input.count)]))
        }
    }

    @Test("no temporary file to be had: the snapshot stays in memory, the same bytes")
    func noTemporaryFile() throws {
        struct NoFolder: Error {}
        var asked = 0
        let spilling = Deflater(spillFrom: 1 << 20) {
            asked += 1
            throw NoFolder()
        }
        Self.compressed(spilling)
        let bytes = try spilling.finishBytes()
        #expect(!bytes.isFile)
        #expect(asked == 1)  // asked once, not again for every chunk
        let plain = Deflater()
        Self.compressed(plain)
        #expect(try bytes.wholeData() == plain.finish())
    }

    #if canImport(Glibc)
    @Test("a temporary file that cannot be written (a full disk): the snapshot fails with the system's words")
    func fullDisk() throws {
        let spilling = Deflater(spillFrom: 1 << 20) {
            let descriptor = open("/dev/full", O_WRONLY)
            guard descriptor >= 0 else { throw FileError(path: "/dev/full", reason: "cannot be opened") }
            return descriptor
        }
        Self.compressed(spilling)
        #expect {
            try spilling.finishBytes()
        } throws: { error in
            guard let error = error as? FileError else { return false }
            return error.path == "a temporary file for the snapshot" && error.reason.lowercased().contains("no space left")
        }
    }
    #endif
}
