import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// A snapshot downloaded from Google Drive is kept in a temporary file as it arrives, not
/// in memory, as from WebDAV.
@Suite(
    "A large file from Google Drive is kept on disk while it downloads",
    .enabled(if: GoogleDriveTests.shouldRun, GoogleDriveTests.skipReason))
struct GoogleDriveLargeFilesKeptOnDiskTests {
    @Test("a file of a megabyte or more is handed over from a temporary file, byte for byte; a small one from memory")
    func largeFromDisk() throws {
        try withDrive("large-files") { drive in
            _ = try drive.device("a")
            let storage = drive.storage("a")
            var generator = SystemRandomNumberGenerator()
            let large = Data((0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try storage.write("snapshots/d/000000000001-ab.snap", large)
            try storage.write("changes/d/000000000002-cd.chg", Data("small".utf8))

            let held = try #require(try storage.readBytes("snapshots/d/000000000001-ab.snap"))
            guard case .file(let file) = held else {
                Issue.record("a 3 MB download was kept in memory")
                return
            }
            var read = Data(count: file.size)
            let count = try read.withUnsafeMutableBytes { try held.read(at: 0, into: $0) }
            #expect(count == large.count && read == large)
            guard case .memory(let small) = try #require(try storage.readBytes("changes/d/000000000002-cd.chg")) else {
                Issue.record("a small download was kept on disk")
                return
            }
            #expect(small == Data("small".utf8))
        }
    }

    @Test("a new device takes a snapshot of several megabytes through Drive")
    func firstSyncFromDisk() throws {
        try withDrive("large-first-sync") { drive in
            let a = try drive.device("a")
            var generator = SystemRandomNumberGenerator()
            for index in 0..<2_000 {
                let noise = Data((0..<800).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
                try a.add("palabra\(index)", meaning: noise)
            }
            try a.sync()
            let b = try drive.device("b")
            try b.sync()
            #expect(try b.everyWord() == a.everyWord())
            #expect(try b.everyWord().count == 2_000)
        }
    }
}
