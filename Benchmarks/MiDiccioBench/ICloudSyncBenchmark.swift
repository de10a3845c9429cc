import Foundation
import MiDiccioKit
import MiDiccioTesting

/// `midiccio-bench sync --backend icloud-fake`: the sync figures through the fake
/// CloudKit of the tests (Tests/CloudKit, real HTTP on 127.0.0.1), with the requests of
/// each as the fake counts them, against the targets of issue 17.
///
/// It also measures the other storage model the issue weighs, one record per word: the
/// same words sent as `records/modify` batches of 200 and read back with `changes/zone`
/// pages of 200, so the README can compare the two by requests and time.
///
/// It starts the fake with Tests/CloudKit/server.sh (run it from the repository) and
/// stops it at the end.
enum ICloudSyncBenchmark {
    /// The usage line.
    static let usage = "midiccio-bench sync --backend icloud-fake [--words <n>] [--seed <s>]"

    static func run(_ arguments: [String]) throws {
        let run = try FakeCloudSyncBenchmark.Run(
            arguments, usage: usage, fake: "fake CloudKit", script: "Tests/CloudKit/server.sh", workspace: "midiccio-bench-icloud")
        defer { run.workspace.remove() }
        let server = try FakeCloudKit.start(script: run.script)
        defer { server.stop() }
        let tenant = server.tenant("bench")
        let database = CloudKitDatabase(container: "iCloud.app.midiccio.bench", environment: .development)!
        let grant = try tenant.grant()
        let credentials = ICloudCredentials(
            container: database.container, environment: database.environment, apiToken: "midiccioBenchApiToken",
            webAuthToken: grant.token)
        let service = FakeCloudSyncBenchmark.Service(
            title: "iCloud back end (the tests' fake CloudKit on 127.0.0.1, one record per cloud file)",
            storage: {
                var options = CloudKitStorage.Options()
                options.timeout = 60
                return CloudKitStorage(
                    database: database, session: ICloudSession(credentials: credentials, path: nil),
                    endpoints: CloudKitEndpoints(api: tenant.base), options: options)
            },
            requests: { try tenant.stats().values.reduce(0, +) }, resetRequests: { try tenant.resetStats() })
        var table = try FakeCloudSyncBenchmark.measure(
            service, wordCount: run.wordCount, seed: run.seed, targets: .init(noOp: 1, oneWord: 3, firstSync: nil),
            in: run.workspace.path + "/libraries")

        Progress.note("the other model: one record per word")
        let library = try WordLibrary(path: run.workspace.path + "/libraries/a.sqlite")
        let words = try library.list(ListQuery(sort: .created, limit: run.wordCount))
        let perWord = PerWordRecords(
            base: tenant.base + "/database/1/\(database.container)/development/private/", apiToken: credentials.apiToken,
            webAuthToken: grant.token)
        try tenant.resetStats()
        let (_, uploadSeconds) = try Stopwatch.measure { try perWord.upload(words) }
        let uploadRequests = try tenant.stats().values.reduce(0, +)
        try tenant.resetStats()
        let (read, readSeconds) = try Stopwatch.measure { try perWord.readAll() }
        guard read == words.count else { throw BenchFailure("the per-word zone gave back \(read) of \(words.count) records") }
        let readRequests = try tenant.stats().values.reduce(0, +)
        table.rows.append([
            "other model, one record per word: full upload", Format.decimal(uploadSeconds, 3) + " s", String(uploadRequests), "", "",
        ])
        table.rows.append([
            "other model, one record per word: first sync", Format.decimal(readSeconds, 3) + " s", String(readRequests), "", "",
        ])
        print("midiccio-bench sync: \(service.title), 2 devices, \(Machine.coreCount) cores")
        print(table.rendered(), terminator: "")
    }
}

/// Words as CloudKit records of their own, each field with its own time: what a second
/// sync engine on CloudKit's records would send and read. Only for measuring.
private struct PerWordRecords {
    var base: String
    var apiToken: String
    var webAuthToken: String
    let zone = "PerWord"

    func upload(_ words: [Word]) throws {
        _ = try post("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": zone]]]]])
        for start in stride(from: 0, to: words.count, by: 200) {
            let operations: [[String: Any]] = words[start..<min(words.count, start + 200)].map { word in
                func text(_ value: String) -> [String: Any] { ["value": value, "type": "STRING"] }
                func time(_ value: Timestamp) -> [String: Any] { ["value": value.milliseconds, "type": "TIMESTAMP"] }
                let fields: [String: Any] = [
                    "term": text(word.term), "meaning": text(word.meaning), "reading": text(word.reading),
                    "examples": text(word.examples.joined(separator: "\n")), "notes": text(word.notes),
                    "tags": text(word.tags.joined(separator: " ")), "createdAt": time(word.createdAt),
                    "termAt": time(word.updatedAt), "meaningAt": time(word.updatedAt), "readingAt": time(word.updatedAt),
                    "examplesAt": time(word.updatedAt), "notesAt": time(word.updatedAt), "tagsAt": time(word.updatedAt),
                ]
                return [
                    "operationType": "create",
                    "record": ["recordName": word.id.rawValue, "recordType": "Word", "fields": fields] as [String: Any],
                ]
            }
            let answer = try post("records/modify", ["operations": operations, "zoneID": ["zoneName": zone], "atomic": false])
            let results = answer["records"] as? [[String: Any]] ?? []
            guard results.count == operations.count, results.allSatisfy({ $0["serverErrorCode"] == nil }) else {
                throw BenchFailure("records/modify failed: \(results.first { $0["serverErrorCode"] != nil } ?? [:])")
            }
        }
    }

    func readAll() throws -> Int {
        var token: String?
        var count = 0
        while true {
            var request: [String: Any] = ["zoneID": ["zoneName": zone], "resultsLimit": 200]
            if let token { request["syncToken"] = token }
            let answer = try post("changes/zone", ["zones": [request]])
            guard let result = (answer["zones"] as? [[String: Any]])?.first else { throw BenchFailure("changes/zone failed") }
            count += (result["records"] as? [Any])?.count ?? 0
            token = result["syncToken"] as? String
            if result["moreComing"] as? Bool != true { return count }
        }
    }

    private func post(_ operation: String, _ body: [String: Any]) throws -> [String: Any] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let query =
            "?ckAPIToken=\(apiToken)&ckWebAuthToken=\(webAuthToken.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        let answer = BlockingJSONRequest.send(
            "POST", URL(string: base + operation + query)!, body: try JSONSerialization.data(withJSONObject: body), timeout: 120)
        guard answer.status == 200, let object = answer.object else { throw BenchFailure("the fake CloudKit refused \(operation)") }
        return object
    }
}
