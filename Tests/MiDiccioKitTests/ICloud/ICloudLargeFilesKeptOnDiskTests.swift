import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
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
            // Read by a second device, whose index holds no bytes of either file.
            _ = try cloud.device("b")
            try LargeCloudFiles.expectLargeOnDiskSmallInMemory(writer: cloud.storage("a"), reader: cloud.storage("b"))
        }
    }

    @Test("a new device takes a snapshot of several megabytes through iCloud")
    func firstSyncFromDisk() throws {
        try withICloud("large-first-sync") { cloud in
            try LargeCloudFiles.expectSecondDeviceTakesNoisySnapshot(try cloud.device("a")) { try cloud.device("b") }
        }
    }
}
