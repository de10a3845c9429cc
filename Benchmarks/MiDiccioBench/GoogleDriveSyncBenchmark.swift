import Foundation
import MiDiccioKit
import MiDiccioTesting

/// `midiccio-bench sync --backend gdrive-fake`: the sync figures through the fake Google
/// Drive of the tests (Tests/GoogleDrive, real HTTP on 127.0.0.1), with the number of
/// Drive API requests of each, as the fake counts them: the full upload, a new device's
/// first sync, a sync with nothing to do, and one changed word each way.
///
/// It starts the fake with Tests/GoogleDrive/server.sh (run it from the repository) and
/// stops it at the end. Times are local-network times: they show the client's own
/// cost, not Google's latency.
enum GoogleDriveSyncBenchmark {
    /// The usage line.
    static let usage = "midiccio-bench sync --backend gdrive-fake [--words <n>] [--seed <s>]"

    /// The targets of issue 11, "Figures".
    enum Target {
        /// Requests of a sync with nothing to do.
        static let noOpRequests = 1
        /// Requests to push, or to pull, one changed word.
        static let oneWordRequests = 4
        /// Requests of a new device's first sync.
        static let firstSyncRequests = 6
    }

    static func run(_ arguments: [String]) throws {
        let run = try FakeCloudSyncBenchmark.Run(
            arguments, usage: usage, fake: "fake Google Drive", script: "Tests/GoogleDrive/server.sh", workspace: "midiccio-bench-gdrive")
        defer { run.workspace.remove() }
        let server = try FakeGoogleDrive.start(script: run.script)
        defer { server.stop() }
        let tenant = server.tenant("bench")
        let credentials = try tenant.credentials(for: .appData)
        let service = FakeCloudSyncBenchmark.Service(
            title: "Google Drive back end (the tests' fake Drive on 127.0.0.1, app data folder)",
            storage: {
                var options = GoogleDriveStorage.Options()
                options.timeout = 60
                return tenant.storage(.appData, credentials: credentials, options: options)
            },
            requests: { try tenant.stats().total }, resetRequests: { try tenant.resetStats() })
        let table = try FakeCloudSyncBenchmark.measure(
            service, wordCount: run.wordCount, seed: run.seed,
            targets: .init(noOp: Target.noOpRequests, oneWord: Target.oneWordRequests, firstSync: Target.firstSyncRequests),
            in: run.workspace.path + "/libraries")
        print("midiccio-bench sync: \(service.title), 2 devices, \(Machine.coreCount) cores")
        print(table.rendered(), terminator: "")
    }
}
