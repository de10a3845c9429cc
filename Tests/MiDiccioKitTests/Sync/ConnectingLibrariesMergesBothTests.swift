import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: connecting a library that already has words to a cloud that already has words
/// merges both; nothing is overwritten wholesale.
@Suite("Connecting two libraries that already have words to one cloud merges both")
struct ConnectingLibrariesMergesBothTests {
    /// A library with words that was never synced, and what it held.
    private func libraryWithWords(_ fixture: SyncFixture, _ name: String, _ terms: [String]) throws -> (TestDevice, [Word]) {
        let device = try fixture.device(name)
        for term in terms { try device.add(term, meaning: "\(term) (from \(name))", tags: [name]) }
        fixture.advanceClocks(by: 1_000)
        try device.library.edit(try device.everyWord()[0].id, WordEdit(notes: "edited on \(name) before connecting"))
        try device.library.delete([try device.everyWord()[1].id])
        return (device, try device.everyWord())
    }

    @Test("two libraries that both have words connect to one cloud and both end up with all the words")
    func bothLibrariesMerge() throws {
        try withSyncFixture { fixture in
            let (a, wordsA) = try libraryWithWords(fixture, "laptop", ["sol", "luna", "estrella", "nube"])
            let (b, wordsB) = try libraryWithWords(fixture, "phone", ["mar", "río", "lago"])
            // Connecting a library that has words schedules a full upload (RemoteSettings).
            try a.library.setRemote(.folder(path: fixture.file("cloud")))
            try b.library.setRemote(.folder(path: fixture.file("cloud")))
            try fixture.syncRounds([a, b])

            let expected = (wordsA + wordsB).sorted { $0.id < $1.id }
            #expect(try a.everyWord() == expected, "nothing overwritten, nothing lost on the laptop")
            #expect(try b.everyWord() == expected, "nothing overwritten, nothing lost on the phone")
            #expect(try a.pendingCount() == 0 && b.pendingCount() == 0)
        }
    }

    @Test("a library with words joins a cloud that other devices have used for a while, and keeps its own words")
    func joiningAnUsedCloudMerges() throws {
        try withSyncFixture { fixture in
            let first = try fixture.device("first"), second = try fixture.device("second")
            for index in 0..<8 { try first.add("nube \(index)") }
            try fixture.syncRounds([first, second])
            for index in 0..<3 { try second.add("lluvia \(index)") }
            try fixture.syncRounds([first, second])
            let cloudWords = try first.everyWord()

            let (late, lateWords) = try libraryWithWords(fixture, "late", ["viento", "nieve"])
            try late.library.setRemote(.folder(path: fixture.file("cloud")))
            try fixture.syncRounds([late, first, second])

            let expected = (cloudWords + lateWords).sorted { $0.id < $1.id }
            for device in [first, second, late] {
                #expect(try device.everyWord() == expected, "\(device.name)")
            }
        }
    }

    @Test("connecting without a full upload still uploads the words added before connecting")
    func pendingWordsUploadedOnConnect() throws {
        try withSyncFixture { fixture in
            let (a, wordsA) = try libraryWithWords(fixture, "a", ["uno", "dos"])
            let (b, wordsB) = try libraryWithWords(fixture, "b", ["tres", "cuatro"])
            try fixture.syncRounds([a, b])
            let expected = (wordsA + wordsB).sorted { $0.id < $1.id }
            #expect(try a.everyWord() == expected)
            #expect(try b.everyWord() == expected)
        }
    }
}
