import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// A snapshot downloaded from iCloud as an asset is kept in a temporary file as it
/// arrives, not in memory, as from WebDAV and Google Drive; one uploaded goes from its
/// temporary file, with its length (the fake, like other object stores, refuses a body in
/// chunks).
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

    @Test("a file held open goes up as an asset from it with its length, byte for byte, and never over another")
    func uploadFromFile() throws {
        try withICloud("large-upload") { cloud in
            _ = try cloud.device("a")
            let storage = cloud.storage("a")
            storage.resetCounts()
            try LargeCloudFiles.expectCreatedFromFile(storage)
            #expect(storage.requestCounts["asset.put"] == 1)
        }
    }

    @Test("an asset iCloud keeps short is never attached to a record: the upload fails, saying so")
    func shortAssetRefused() throws {
        try withICloud("large-upload-short") { cloud in
            _ = try cloud.device("a")
            _ = try cloud.device("b")
            let storage = cloud.storage("a"), other = cloud.storage("b")
            let bytes = LargeCloudFiles.noise(2 << 20)
            let path = "snapshots/d/000000000002-bb.snap"
            try cloud.tenant.setFaults([.assetKeeping(bytes.count - 1_000)])
            #expect {
                try storage.create(path, bytes: try LargeCloudFiles.heldInFile(bytes))
            } throws: { error in
                guard case CloudError.failed(let failed, let reason) = error else { return false }
                return failed == path && reason == "iCloud kept \(bytes.count - 1_000) of the \(bytes.count) bytes sent"
            }
            // No record was saved: another device finds nothing there, and sent again the
            // file is kept whole.
            try other.beginPass(cache: nil)
            #expect(try other.read(path) == nil)
            try storage.create(path, bytes: try LargeCloudFiles.heldInFile(bytes))
            try other.beginPass(cache: nil)
            #expect(try other.read(path) == bytes)
        }
    }

    @Test("a new device takes a snapshot of several megabytes through iCloud")
    func firstSyncFromDisk() throws {
        try withICloud("large-first-sync") { cloud in
            try LargeCloudFiles.expectSecondDeviceTakesNoisySnapshot(try cloud.device("a")) { try cloud.device("b") }
        }
    }
}
