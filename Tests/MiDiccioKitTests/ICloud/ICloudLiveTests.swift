import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// Against the real iCloud, only when asked: set `MIDICCIO_ICLOUD_TEST_CONTAINER`,
/// `MIDICCIO_ICLOUD_TEST_API_TOKEN` and `MIDICCIO_ICLOUD_TEST_WEB_AUTH_TOKEN` (the README
/// says how to get the web auth token once by hand). It uses the container's development
/// environment: makes a scratch zone, syncs two libraries through it, and deletes it.
@Suite(
    "Two libraries sync through the real iCloud (opt-in)",
    .enabled(if: LiveICloud.credentials != nil, "set MIDICCIO_ICLOUD_TEST_CONTAINER, _API_TOKEN and _WEB_AUTH_TOKEN to run it"))
struct ICloudLiveTests {
    @Test("a word added on one library reaches the other through a scratch zone in the development environment, and the zone is deleted")
    func twoLibraries() throws {
        let credentials = try #require(LiveICloud.credentials)
        // Apple's address, unless MIDICCIO_ICLOUD_API_URL says otherwise.
        let endpoints = CloudKitEndpoints.from(environment: ProcessInfo.processInfo.environment)
        let database = try #require(
            CloudKitDatabase(
                container: credentials.container, environment: .development, zone: "midiccio-live-test-\(UUID().uuidString.prefix(8))"))
        // One session for all: CloudKit may renew the token with any answer.
        let session = ICloudSession(credentials: credentials, path: nil)
        func storage() -> CloudKitStorage { CloudKitStorage(database: database, session: session, endpoints: endpoints) }
        let cleanup = storage()
        defer { try? cleanup.removeEverything() }
        try checkTwoLibrariesSync(through: storage)
        try cleanup.removeEverything()
        try cleanup.beginPass(cache: nil)
        #expect(try cleanup.list("").isEmpty)
    }
}

/// The live test's sign-in, from the environment.
enum LiveICloud {
    static var credentials: ICloudCredentials? {
        let environment = ProcessInfo.processInfo.environment
        guard let container = environment["MIDICCIO_ICLOUD_TEST_CONTAINER"], CloudKitDatabase.isContainer(container),
            let apiToken = environment["MIDICCIO_ICLOUD_TEST_API_TOKEN"], !apiToken.isEmpty,
            let token = environment["MIDICCIO_ICLOUD_TEST_WEB_AUTH_TOKEN"], !token.isEmpty
        else { return nil }
        return ICloudCredentials(container: container, environment: .development, apiToken: apiToken, webAuthToken: token)
    }
}
