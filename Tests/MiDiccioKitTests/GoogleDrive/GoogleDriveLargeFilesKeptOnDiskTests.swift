import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// A snapshot downloaded from Google Drive is kept in a temporary file as it arrives, not
/// in memory, as from WebDAV; one uploaded goes up from its temporary file a piece at a
/// time.
@Suite(
    "A large file from Google Drive is kept on disk while it downloads",
    .enabled(if: GoogleDriveTests.shouldRun, GoogleDriveTests.skipReason))
struct GoogleDriveLargeFilesKeptOnDiskTests {
    @Test("a file of a megabyte or more is handed over from a temporary file, byte for byte; a small one from memory")
    func largeFromDisk() throws {
        try withDrive("large-files") { drive in
            _ = try drive.device("a")
            try LargeCloudFiles.expectLargeOnDiskSmallInMemory(writer: drive.storage("a"), reader: drive.storage("a"))
        }
    }

    @Test("a file held open goes up resumably a piece at a time, byte for byte, and never over another")
    func uploadFromFile() throws {
        try withDrive("large-upload") { drive in
            var options = FakeDriveTenant.quickOptions()
            options.multipartLimit = 1 << 20
            options.resumablePiece = 256 * 1024
            drive.options = options
            _ = try drive.device("a")
            try LargeCloudFiles.expectCreatedFromFile(drive.storage("a"))
            // 3 MB in pieces of 256 KiB.
            #expect(try drive.tenant.stats().byEndpoint["upload.resumable.put"] == 12)
        }
    }

    @Test("a new device takes a snapshot of several megabytes through Drive")
    func firstSyncFromDisk() throws {
        try withDrive("large-first-sync") { drive in
            try LargeCloudFiles.expectSecondDeviceTakesNoisySnapshot(try drive.device("a")) { try drive.device("b") }
        }
    }
}
