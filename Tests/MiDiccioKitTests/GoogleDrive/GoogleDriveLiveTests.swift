import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// Against the real Google Drive, only when asked: set `MIDICCIO_GDRIVE_TEST_CLIENT_ID`,
/// `MIDICCIO_GDRIVE_TEST_CLIENT_SECRET` and `MIDICCIO_GDRIVE_TEST_REFRESH_TOKEN` (a
/// refresh token of that client with the drive.file scope; the README says how to get
/// one). It makes a scratch folder in My Drive, syncs two libraries through it, and
/// removes it.
@Suite(
    "Two libraries sync through the real Google Drive (opt-in)",
    .enabled(if: LiveDrive.credentials != nil, "set MIDICCIO_GDRIVE_TEST_CLIENT_ID, _SECRET and _REFRESH_TOKEN to run it"))
struct GoogleDriveLiveTests {
    @Test("a word added on one library reaches the other through a scratch folder in My Drive, and the folder is removed")
    func twoLibraries() throws {
        let credentials = try #require(LiveDrive.credentials)
        // Google's addresses, unless MIDICCIO_GDRIVE_API_URL / _OAUTH_URL say otherwise.
        let endpoints = GoogleDriveEndpoints.from(environment: ProcessInfo.processInfo.environment)
        let space = GoogleDriveSpace.folder("midiccio-live-test-\(UUID().uuidString.prefix(8))")
        func storage() -> GoogleDriveStorage {
            GoogleDriveStorage(
                space: space,
                tokens: GoogleAccessTokens(credentials: credentials, path: nil, service: GoogleTokenService(endpoints: endpoints)),
                endpoints: endpoints)
        }
        let cleanup = storage()
        defer { try? cleanup.removeEverything() }
        try checkTwoLibrariesSync(through: storage)
        try cleanup.removeEverything()
        #expect(try storage().list("").isEmpty)
    }
}

/// The live test's sign-in, from the environment.
enum LiveDrive {
    static var credentials: GoogleDriveCredentials? {
        let environment = ProcessInfo.processInfo.environment
        guard let id = environment["MIDICCIO_GDRIVE_TEST_CLIENT_ID"], !id.isEmpty,
            let token = environment["MIDICCIO_GDRIVE_TEST_REFRESH_TOKEN"], !token.isEmpty
        else { return nil }
        return GoogleDriveCredentials(
            clientID: id, clientSecret: environment["MIDICCIO_GDRIVE_TEST_CLIENT_SECRET"], refreshToken: token,
            scope: GoogleDriveSpace.folder("").scope)
    }
}
