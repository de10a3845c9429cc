import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A server that goes away in the middle of a sync: nothing is half-applied locally,
/// and once it is back the next sync resumes and every device converges.
///
/// Each test runs its own lighttpd (so stopping it disturbs no other test) and stops it
/// at every point of a sync in turn, through a storage wrapper that stops the server
/// just before the Nth call.
@Suite(
    "A WebDAV server that stops in the middle of a sync",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason), .serialized)
struct WebDAVServerStopsMidSyncTests {
    @Test("stopped before any call of a sync, nothing is half-applied, and the next sync resumes and converges")
    func stopAtEveryPoint() throws {
        _ = try WebDAVTestServer.require()
        let server = try PrivateWebDAVServer()
        let address = try server.freshAddress("stops")
        try withWebDAVDirectory { directory in
            let cloud = InterceptingStorage(server.storage(address))
            let a = try webdavDevice(name: "a", directory: directory, storage: server.storage(address), cloud: cloud)
            let b = try webdavDevice(name: "b", directory: directory, storage: server.storage(address))
            var ids = [try a.add("uno"), try b.add("dos")]
            try a.sync()
            try b.sync()
            try a.sync()

            var point = 1
            var completed = false
            while !completed, point < 40 {
                // Changes on both sides, so the sync both pulls and pushes.
                ids.append(try a.add("a\(point)"))
                _ = try a.library.edit(ids[0], WordEdit(notes: "a \(point)"))
                ids.append(try b.add("b\(point)"))
                _ = try b.library.edit(ids[1], WordEdit(notes: "b \(point)"))
                try b.sync()

                let before = try a.library.allStored()
                let stopAt = point
                cloud.before = { _, number, _ in
                    if number == stopAt { try server.halt() }
                }
                cloud.resetCalls()
                do {
                    try a.sync()
                    completed = true
                } catch let error as SyncError {
                    // Before anything was saved here the error is the cloud's; after the
                    // pull was saved it says so ("the sync stopped ... Kept: ...").
                    let cause: Error
                    switch error {
                    case .cloud(let cloud): cause = cloud
                    case .stopped(let stopped, let kept):
                        cause = stopped
                        #expect(!kept.isEmpty, "stop at call \(point): a stopped sync says what it kept")
                    default: cause = error
                    }
                    guard case CloudError.unavailable = cause else {
                        Issue.record("stop at call \(point): expected unavailable, got \(error)")
                        break
                    }
                    try checkNothingHalfApplied(
                        before: before, after: a.library.allStored(), stoppedAt: point,
                        newWord: "b\(point)", edited: ids[1], editedNotes: "b \(point)",
                        localEdit: ids[0], localNotes: "a \(point)")
                }
                cloud.before = nil
                try server.start()
                // The next sync resumes and all converge.
                try a.sync()
                try b.sync()
                try a.sync()
                #expect(try a.everyWord() == b.everyWord(), "stop at call \(point)")
                #expect(try a.pendingCount() == 0 && b.pendingCount() == 0, "stop at call \(point)")
                point += 1
            }
            #expect(completed, "a sync with no stop inside it was reached")
            #expect(point > 4, "the sync was stopped at several points")
        }
    }

    /// After a failed sync the library holds its old words, or those plus the whole
    /// batch pulled from b (b's new word and b's edit together, never one without the
    /// other); no word is lost, no field goes back in time, no local edit is lost.
    private func checkNothingHalfApplied(
        before: [StoredWord], after: [StoredWord], stoppedAt point: Int,
        newWord: String, edited: WordID, editedNotes: String,
        localEdit: WordID, localNotes: String
    ) throws {
        let now = Dictionary(uniqueKeysWithValues: after.map { ($0.word.id, $0) })
        for previous in before {
            guard let word = now[previous.word.id] else {
                Issue.record("stop at call \(point): \(previous.word.term) disappeared")
                continue
            }
            for field in WordField.allCases {
                #expect(word.times[field] >= previous.times[field], "stop at call \(point): \(word.word.term) went back in time")
            }
        }
        let pulledWord = after.contains { $0.word.term == newWord }
        let pulledEdit = now[edited]?.word.notes == editedNotes
        #expect(pulledWord == pulledEdit, "stop at call \(point): half of b's changes were applied")
        #expect(now[localEdit]?.word.notes == localNotes, "stop at call \(point): the local edit was lost")
    }

    @Test("a server that stops for good leaves the sync failing as unavailable, not hanging")
    func staysDown() throws {
        _ = try WebDAVTestServer.require()
        let server = try PrivateWebDAVServer()
        let address = try server.freshAddress("down")
        try withWebDAVDirectory { directory in
            let a = try webdavDevice(name: "a", directory: directory, storage: server.storage(address))
            _ = try a.add("uno")
            try a.sync()
            _ = try a.add("dos")
            try server.halt()
            let before = try a.library.allStored()
            #expect(throws: SyncError.self) { try a.sync() }
            #expect(try a.library.allStored() == before)
            try server.start()
            try a.sync()
            #expect(try a.pendingCount() == 0)
        }
    }
}
