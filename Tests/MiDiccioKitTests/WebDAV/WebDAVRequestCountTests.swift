import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A sync costs what changed, not what exists (SYNC-NOTES lesson 6), counted in HTTP
/// requests against the real server: nothing to do costs at most 2 + (number of
/// devices) requests; one changed word a handful each way, whatever the library's size.
@Suite(
    "A WebDAV sync costs requests for what changed, not for what exists",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVRequestCountTests {
    struct Counts: CustomStringConvertible {
        var noOp: [String: Int]
        var push: [String: Int]
        var pull: [String: Int]

        static func total(_ counts: [String: Int]) -> Int { counts.values.reduce(0, +) }
        var description: String { "no-op \(noOp), push \(push), pull \(pull)" }
    }

    /// Two devices in sync with `words` words; then a no-op sync of a, one word edited on
    /// a and pushed, and pulled by b.
    static func measure(words: Int, mode: WebDAVStorage.WriteMode) throws -> Counts {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("counts")
        var options = WebDAVStorage.Options()
        options.writeMode = mode
        return try withWebDAVDirectory { directory in
            let storageA = server.storage(address, options: options), storageB = server.storage(address, options: options)
            let a = try webdavDevice(name: "a", directory: directory, storage: storageA)
            let b = try webdavDevice(name: "b", directory: directory, storage: storageB)
            var ids: [WordID] = []
            for index in 0..<words { ids.append(try a.add("palabra \(index)", meaning: "word \(index)")) }
            for _ in 0..<2 {
                try a.sync()
                try b.sync()
            }
            storageA.resetCounts()
            try a.sync()
            let noOp = storageA.requestCounts
            _ = try a.library.edit(ids[0], WordEdit(meaning: "changed"))
            storageA.resetCounts()
            try a.sync()
            let push = storageA.requestCounts
            storageB.resetCounts()
            try b.sync()
            let pull = storageB.requestCounts
            #expect(try b.word(ids[0]).meaning == "changed")
            return Counts(noOp: noOp, push: push, pull: pull)
        }
    }

    @Test("with two devices, a sync with nothing to do costs at most 2 + 2 requests and writes nothing")
    func nothingToDo() throws {
        let counts = try Self.measure(words: 50, mode: .temporaryThenMove)
        #expect(Counts.total(counts.noOp) <= 2 + 2, "\(counts)")
        #expect(counts.noOp["PUT"] == nil && counts.noOp["MOVE"] == nil && counts.noOp["DELETE"] == nil, "\(counts)")
    }

    // Beyond the files themselves, every sync reads this device's own record, and an
    // upload first lists this device's own change files: a record or a file under its
    // id that it did not write is how a library finds out it is a copy (issue "Never
    // lose a word"). That is one request more each way than before, and one more to push.
    @Test(
        "one changed word costs one change file and one device record each way: 7 requests to push and 6 to pull with direct PUTs, 9 and 7 with PUT and MOVE"
    )
    func oneWord() throws {
        let moved = try Self.measure(words: 50, mode: .temporaryThenMove)
        #expect(Counts.total(moved.push) <= 9, "\(moved)")
        #expect(Counts.total(moved.pull) <= 7, "\(moved)")
        let direct = try Self.measure(words: 50, mode: .directPut)
        #expect(Counts.total(direct.push) <= 7, "\(direct)")
        #expect(Counts.total(direct.pull) <= 6, "\(direct)")
        // What a user gets without choosing: the mode with the fewest requests.
        #expect(WebDAVStorage.Options().writeMode == .directPut)
    }

    @Test("the counts do not grow with the library")
    func independentOfSize() throws {
        let small = try Self.measure(words: 5, mode: .temporaryThenMove)
        let large = try Self.measure(words: 600, mode: .temporaryThenMove)
        #expect(Counts.total(large.noOp) == Counts.total(small.noOp), "\(small) vs \(large)")
        #expect(Counts.total(large.push) == Counts.total(small.push), "\(small) vs \(large)")
        #expect(Counts.total(large.pull) == Counts.total(small.pull), "\(small) vs \(large)")
    }
}
