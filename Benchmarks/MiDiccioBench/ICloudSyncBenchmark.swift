import Dispatch
import Foundation
import MiDiccioKit
import MiDiccioTesting
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
        var rest = arguments
        _ = WebDAVSyncBenchmark.take("backend", from: &rest)
        let options = try BenchOptions(rest, accepting: ["words", "seed"], usage: usage)
        let wordCount = try options.integer("words", default: 100_000, in: 10...5_000_000)
        let seed = try options.unsigned("seed", default: 1)
        let script = FileManager.default.currentDirectoryPath + "/Tests/CloudKit/server.sh"
        guard FileManager.default.fileExists(atPath: script) else {
            throw BenchUsageError(message: "no fake CloudKit: run from the repository (for Tests/CloudKit/server.sh)", usage: usage)
        }
        let workspace = try TemporaryDirectory(prefix: "midiccio-bench-icloud")
        defer { workspace.remove() }
        let server = try FakeCloudKit.start(script: script)
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
            service, wordCount: wordCount, seed: seed, targets: .init(noOp: 1, oneWord: 3, firstSync: nil),
            in: workspace.path + "/libraries")

        Progress.note("the other model: one record per word")
        let library = try WordLibrary(path: workspace.path + "/libraries/a.sqlite")
        let words = try library.list(ListQuery(sort: .created, limit: wordCount))
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
        var request = URLRequest(url: URL(string: base + operation + query)!)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.timeoutInterval = 120
        let result = Mutex<(Data?, Int)?>(nil)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            result.withLock { $0 = (data, (response as? HTTPURLResponse)?.statusCode ?? 0) }
            done.signal()
        }.resume()
        done.wait()
        guard let (data, status) = result.withLock({ $0 }), status == 200, let data,
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { throw BenchFailure("the fake CloudKit refused \(operation)") }
        return object
    }
}
