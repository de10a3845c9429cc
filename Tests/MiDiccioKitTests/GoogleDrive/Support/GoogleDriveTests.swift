import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud

/// Where the Google Drive tests find the fake Drive: the one `make test` starts
/// (`MIDICCIO_GDRIVE_TEST_URL`). Without it they are skipped with a reason, except
/// under CI, where they run and fail: a CI run must never pass by not testing.
enum GoogleDriveTests {
    /// Whether the Google Drive tests run.
    static var shouldRun: Bool { FakeGoogleDrive.shared != nil || WebDAVTestServer.inCI }

    /// Why they were skipped.
    static let skipReason: Comment =
        "needs the fake Google Drive: run 'make test', which starts it and sets MIDICCIO_GDRIVE_TEST_URL"

    /// The server, or an error that fails the test.
    static func requireServer() throws -> FakeGoogleDrive {
        guard let server = FakeGoogleDrive.shared else {
            throw WebDAVTestSetupError(
                "MIDICCIO_GDRIVE_TEST_URL is not set, so there is no fake Google Drive; run the tests with 'make test'")
        }
        return server
    }

    /// A fresh, empty Drive for one test.
    static func tenant(_ label: String) throws -> FakeDriveTenant { try requireServer().tenant(label) }
}
