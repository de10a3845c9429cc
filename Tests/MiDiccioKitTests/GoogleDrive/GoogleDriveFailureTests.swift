import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// How a Google Drive sync meets Drive's failures (issue 11, "Failures"): rate limits
/// are waited out, an expired access token is renewed, a revoked sign-in and a full
/// Drive stop the sync with a message that says what to do, and nothing is lost.
@Suite(
    "Google Drive's refusals and failures",
    .enabled(if: GoogleDriveTests.shouldRun, GoogleDriveTests.skipReason))
struct GoogleDriveFailureTests {
    /// Options that record the waits asked for instead of waiting.
    static func recording(_ waits: DelayRecorder) -> GoogleDriveStorage.Options {
        var options = FakeDriveTenant.quickOptions()
        options.sleep = { seconds in waits.record(seconds) }
        return options
    }

    @Test(
        "403 userRateLimitExceeded and 429 answers are retried after growing waits, and the sync goes through",
        arguments: [[403: "userRateLimitExceeded"], [429: "rateLimitExceeded"]])
    func rateLimits(_ refusal: [Int: String]) throws {
        let (status, reason) = try #require(refusal.first)
        let waits = DelayRecorder()
        try withDrive("rate-\(status)") { drive in
            drive.options = Self.recording(waits)
            let a = try drive.device("a")
            let hund = try a.add("hund", meaning: "dog")
            try a.sync()
            _ = try a.library.edit(hund, WordEdit(meaning: "hound"))
            try drive.tenant.setFaults(["rateLimit": ["count": 3, "status": status, "reason": reason]])
            try a.sync()
            let b = try drive.device("b")
            try b.sync()
            #expect(try b.word(hund).meaning == "hound")
        }
        let asked = waits.delays
        #expect(asked.count == 3, "\(asked)")
        // Exponential with jitter (50% to 150%): 0.5 s, 1 s, 2 s before jitter.
        if asked.count == 3 {
            #expect(asked[0] >= 0.25 && asked[0] <= 0.75)
            #expect(asked[2] >= 1 && asked[2] <= 3)
            #expect(asked[2] > asked[0])
        }
    }

    @Test("503 and 500 answers are retried, as WebDAV's are, and the sync goes through")
    func serverErrors() throws {
        let waits = DelayRecorder()
        try withDrive("5xx") { drive in
            drive.options = Self.recording(waits)
            let a = try drive.device("a")
            let hund = try a.add("hund", meaning: "dog")
            try drive.tenant.setFaults(["failNext": [["status": 503], ["status": 500], ["status": 502]]])
            try a.sync()
            let b = try drive.device("b")
            try b.sync()
            #expect(try b.has(hund))
        }
        #expect(waits.delays.count == 3)
    }

    @Test("a Drive that keeps failing stops the sync as unreachable, and the words wait here")
    func serverDown() throws {
        try withDrive("down") { drive in
            let a = try drive.device("a")
            let hund = try a.add("hund", meaning: "dog")
            try drive.tenant.setFaults(["failNext": Array(repeating: ["status": 503], count: 12)])
            let error = #expect(throws: (any Error).self) { try a.sync() }
            #expect("\(error.map { "\($0)" } ?? "")".contains("Google Drive answered 503"))
            #expect(try a.has(hund))
            #expect(try a.pendingCount() == 1)
        }
    }

    @Test("a refusal of the whole request names no file: 'the cloud', not 'cloud file /'")
    func aRefusalOfTheWholeRequestNamesNoFile() throws {
        try withDrive("daily-limit") { drive in
            let a = try drive.device("a")
            let hund = try a.add("hund", meaning: "dog")
            try drive.tenant.setFaults(["failNext": [["status": 403, "reason": "dailyLimitExceeded"]]])
            let error = #expect(throws: (any Error).self) { try a.sync() }
            let message = "\(error.map { "\($0)" } ?? "")"
            #expect(message.contains("the cloud: Google Drive answered"), "\(message)")
            #expect(!message.contains("cloud file /"), "\(message)")
            #expect(try a.has(hund))
        }
        #expect(CloudError.failed(path: "changes/a/1.chg", reason: "x").description == "cloud file changes/a/1.chg: x")
    }

    @Test("an access token that expires in the middle of a sync is renewed once, and the sync goes through")
    func tokenExpiresMidSync() throws {
        try withDrive("expiry") { drive in
            let a = try drive.device("a"), b = try drive.device("b")
            try drive.syncRounds([a, b], 1)
            for index in 0..<5 { _ = try a.add("palabra \(index)", meaning: "word \(index)") }
            // The tokens both devices hold now stop working after two more requests.
            try drive.tenant.setFaults(["expireAccessTokensAfter": 2])
            try a.sync()
            try b.sync()
            #expect(try b.library.list().count == 5)
            let tokens = try drive.tenant.stats().byEndpoint["oauth.token"]
            #expect(tokens == 4, "\(String(describing: tokens))")
        }
    }

    @Test("a revoked sign-in stops the sync with 'sign in again', and nothing changes here")
    func revokedSignIn() throws {
        try withDrive("revoked") { drive in
            let a = try drive.device("a")
            let hund = try a.add("hund", meaning: "dog")
            try a.sync()
            let before = try a.state()
            _ = try a.library.edit(hund, WordEdit(meaning: "hound"))
            let edited = try a.state()
            try drive.tenant.setFaults(["revokeRefreshTokens": true, "expireAccessTokensAfter": 0])
            let error = #expect(throws: (any Error).self) { try a.sync() }
            let message = "\(error.map { "\($0)" } ?? "")"
            #expect(
                message.contains("Google Drive refused this device's sign-in; sign in again with: midiccio remote set gdrive"), "\(message)"
            )
            #expect(try a.state() == edited)
            #expect(try a.pendingCount() == 1)
            #expect(before != edited)
        }
    }

    @Test("a full Drive stops the sync with 'your Google Drive is full', and the words wait here")
    func fullDrive() throws {
        try withDrive("full") { drive in
            let a = try drive.device("a")
            _ = try a.add("hund", meaning: "dog")
            try a.sync()
            try drive.tenant.setFaults(["quotaBytes": 1])
            let katze = try a.add("katze", meaning: "cat")
            let error = #expect(throws: (any Error).self) { try a.sync() }
            #expect("\(error.map { "\($0)" } ?? "")".contains("your Google Drive is full"))
            #expect(try a.has(katze))
            #expect(try a.pendingCount() == 1)
            try drive.tenant.setFaults(["quotaBytes": NSNull()])
            try a.sync()
            let b = try drive.device("b")
            try b.sync()
            #expect(try b.has(katze))
        }
    }

    @Test("a large upload cut off in the middle resumes where it stopped")
    func resumableUpload() throws {
        try withDrive("resumable") { drive in
            var options = FakeDriveTenant.quickOptions()
            options.multipartLimit = 4 * 1024
            drive.options = options
            let a = try drive.device("a")
            for index in 0..<400 { _ = try a.add("palabra \(index)", meaning: String(repeating: "meaning \(index) ", count: 4)) }
            try drive.tenant.setFaults(["cutResumableAfter": 5_000])
            try a.sync()
            let stats = try drive.tenant.stats().byEndpoint
            #expect((stats["upload.resumable.put"] ?? 0) >= 2, "\(stats)")
            let b = try drive.device("b")
            try b.sync()
            #expect(try b.library.list().count == 400)
        }
    }

    @Test(
        "a visible folder moved into another, or put in Drive's Trash, is said to be so, with the way back",
        arguments: ["moved", "trashed"])
    func folderMovedOrTrashed(how: String) throws {
        try withDrive("moved-\(how)", space: .folder("MiDiccio")) { drive in
            let a = try drive.device("a")
            _ = try a.add("hund", meaning: "dog")
            try a.sync()
            let folder = try #require(
                try drive.tenant.rawFiles().first { $0["name"] as? String == "MiDiccio" && $0["trashed"] as? Bool != true }?["id"]
                    as? String)
            // The person moves the folder into "Archive", or puts it in the Trash, in Drive.
            let api = drive.storage("a").api
            if how == "moved" {
                let archive = try drive.tenant.create(name: "Archive", parent: "root", folder: true)
                _ = try api.json(
                    GoogleDriveAPI.Call(
                        method: "PATCH", path: "/drive/v3/files/\(folder)",
                        query: [("addParents", archive), ("removeParents", "root")], body: Data("{}".utf8),
                        headers: ["Content-Type": "application/json"], about: "/", kind: "files.update"))
            } else {
                _ = try api.json(
                    GoogleDriveAPI.Call(
                        method: "PATCH", path: "/drive/v3/files/\(folder)", body: Data(#"{"trashed": true}"#.utf8),
                        headers: ["Content-Type": "application/json"], about: "/", kind: "files.update"))
            }
            _ = try a.add("katze", meaning: "cat")
            let error = #expect(throws: (any Error).self) { try a.sync() }
            let message = "\(error.map { "\($0)" } ?? "")"
            // It asked whether the library was signed in to another account, and said to
            // start over, which left the folder behind (round 26A #2).
            let wanted = how == "moved" ? "move it back to the top of My Drive" : "restore it there (Trash, then Restore)"
            #expect(message.contains(wanted) && !message.contains("another account"), "\(message)")
            #expect(try a.pendingCount() == 1, "nothing was changed here")
        }
    }
}
