import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioModel

/// What the opt-in live tests check in a real cloud: two libraries, each on a
/// connection of its own from `storage`, pass a word each way.
func checkTwoLibrariesSync(through storage: () -> any CloudStorage) throws {
    try withTemporaryDirectory { directory in
        let start = CloudBackendFixture.start
        let a = try TestDevice(
            name: "a", path: directory.appendingPathComponent("a.sqlite").path, storage: storage(), clock: ManualClock(start: start))
        let b = try TestDevice(
            name: "b", path: directory.appendingPathComponent("b.sqlite").path, storage: storage(), clock: ManualClock(start: start))
        let hund = try a.add("hund", meaning: "dog")
        try a.sync()
        try b.sync()
        #expect(try b.word(hund).meaning == "dog")
        let katze = try b.add("katze", meaning: "cat")
        b.clock.advance(by: 1_000)
        try b.sync()
        a.clock.advance(by: 2_000)
        try a.sync()
        #expect(try a.word(katze).meaning == "cat")
    }
}
