import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A device removes its own change files once its snapshot covers them and every device
/// has read them. A sync program may bring one back (it had not passed the removal on
/// yet, or a folder was put back from a copy): the device took it for a copy's file, said
/// the library was "a copy of another library file" and went on under a new id (found by
/// the exploratory helper). It now remembers the files it removed, for as long as it
/// keeps old files at all, and removes one that comes back again.
@Suite("A file a device removed that comes back is its own, not a copy's")
struct AFileItRemovedComesBackTests {
    @Test("a change file removed by compaction and brought back is removed again, and the device keeps its id")
    func removedFileBroughtBack() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            laptop.engine.snapshotInterval = 3
            var removed: (path: String, data: Data)?
            for index in 1...8 where removed == nil {
                let before = fixture.storage.files.filter { $0.key.hasPrefix("changes/\(laptop.id)/") }
                try laptop.add("palabra \(index)")
                try fixture.syncRounds([laptop, phone], 1)
                removed = before.first { fixture.storage.files[$0.key] == nil }.map { ($0.key, $0.value) }
            }
            let (path, data) = try #require(removed, "compaction removed a change file of the laptop's")
            let id = laptop.id

            fixture.storage.plant(path, data)
            try laptop.add("después")
            fixture.advanceClocks(by: 1_000)
            let report = try laptop.sync()
            #expect(report.newIdentity == nil, "\(String(describing: report.newIdentity))")
            #expect(laptop.id == id)
            #expect(fixture.storage.files[path] == nil, "removed again")
            try fixture.syncRounds([phone, laptop])
            #expect(try phone.everyWord() == laptop.everyWord())
        }
    }
}
