import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioFiles
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A library reached through a symbolic link to its file (a handy link, `MIDICCIO_LIBRARY`
/// set to one while the web app uses the file's own path) keeps its side files beside the
/// file itself: one sync lock, one password, one sign-in. They were named after the path as
/// given, so a sync through the link and one through the file ran at once and each took the
/// library for a copy of another (a new device id and every word uploaded again, each
/// time), and a WebDAV password set one way was missing the other (found by the exploratory
/// helper, round 12B).
@Suite("A library reached through a link is the same library")
struct ALibraryReachedThroughALinkIsTheSameLibraryTests {
    @Test("a sync through the link waits for the one through the file, and both find the same password and sign-ins")
    func oneLockOneSetOfCredentials() throws {
        try withTemporaryDirectory { directory in
            let real = directory.appendingPathComponent("library.sqlite").path
            _ = try WordLibrary(path: real, environment: [:])
            let link = directory.appendingPathComponent("handy.sqlite").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)

            // The file's own path, with any link among its folders resolved too.
            let file = try #require(FileSystem.realPath(link))
            let held = try SyncLock(libraryPath: real)
            #expect(throws: SyncError.self) { _ = try SyncLock(libraryPath: link, timeout: 0.2) }
            withExtendedLifetime(held) {}
            #expect(WebDAVCredentials.filePath(forLibrary: link) == file + ".credentials")
            #expect(GoogleDriveCredentials.filePath(forLibrary: link) == file + ".google-drive")
            #expect(ICloudCredentials.filePath(forLibrary: link) == file + ".icloud")
            // A path that is not a link keeps its side files beside it, as given.
            #expect(WebDAVCredentials.filePath(forLibrary: real) == real + ".credentials")
        }
    }
}
