import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// A snapshot downloaded from iCloud as an asset is kept in a temporary file as it
/// arrives, not in memory, as from WebDAV and Google Drive.
@Suite("A large file from iCloud is kept on disk while it downloads", .enabled(if: ICloudTests.shouldRun, ICloudTests.skipReason))
struct ICloudLargeFilesKeptOnDiskTests {
    @Test("an asset of a megabyte or more is handed over from a temporary file, byte for byte; a small file from memory")
    func largeFromDisk() throws {
        try withICloud("large-files") { cloud in
            _ = try cloud.device("a")
            let storage = cloud.storage("a")
            var generator = SystemRandomNumberGenerator()
            let large = Data((0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try storage.write("snapshots/d/000000000001-ab.snap", large)
            try storage.write("changes/d/000000000002-cd.chg", Data("small".utf8))
            // A second device, whose index holds no bytes of either file.
            _ = try cloud.device("b")
            let other = cloud.storage("b")

            let held = try #require(try other.readBytes("snapshots/d/000000000001-ab.snap"))
            guard case .file(let file) = held else {
                Issue.record("a 3 MB download was kept in memory")
                return
            }
            var read = Data(count: file.size)
            let count = try read.withUnsafeMutableBytes { try held.read(at: 0, into: $0) }
            #expect(count == large.count && read == large)
            guard case .memory(let small) = try #require(try other.readBytes("changes/d/000000000002-cd.chg")) else {
                Issue.record("a small file was kept on disk")
                return
            }
            #expect(small == Data("small".utf8))
        }
    }

    @Test("a new device takes a snapshot of several megabytes through iCloud")
    func firstSyncFromDisk() throws {
        try withICloud("large-first-sync") { cloud in
            let a = try cloud.device("a")
            var generator = SystemRandomNumberGenerator()
            for index in 0..<2_000 {
                let noise = Data((0..<800).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
                try a.add("palabra\(index)", meaning: noise)
            }
            try a.sync()
            let b = try cloud.device("b")
            try b.sync()
            #expect(try b.everyWord() == a.everyWord())
            #expect(try b.everyWord().count == 2_000)
        }
    }
}
