import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A sync program (Dropbox, Syncthing) passes files on in any order: it may deliver a
/// device's change file and not yet its record. When that device is then lost (a laptop
/// stolen before the record went out), no record names its files, and readers, who read
/// what records name, never read them (found by the fuzzer and the simulation). Every
/// two days, with the look for stray files, each device now lists which devices have
/// folders and reads, once, every file of a device that has no record.
@Suite("Words of a device whose record never reached the cloud reach the others")
struct ADeviceWhoseRecordNeverArrivedTests {
    /// How often a device looks for stray files (`SyncEngine.strayFileAge`).
    private static let twoDays: Int64 = 2 * 86_400_000

    /// A laptop and a phone that synced a first word; then the phone adds `term`, syncs,
    /// and its record leaves the cloud, as if a sync program had passed on its files and
    /// not its record before the phone was lost. Returns the laptop, the word, and the
    /// paths of the phone's files.
    private func phoneLostBeforeItsRecord(
        _ fixture: CloudBackendFixture, term: String, meaning: String
    ) throws -> (laptop: TestDevice, word: WordID, files: [String]) {
        let laptop = try fixture.device("laptop")
        let phone = try fixture.device("phone")
        try laptop.add("casa")
        try fixture.syncRounds([laptop, phone])
        fixture.advanceClocks(by: 1_000)
        let word = try phone.add(term, meaning: meaning)
        try phone.sync()
        #expect(try fixture.storage().delete(CloudLayout.devicePath(phone.id)))
        let files = fixture.files.keys.filter {
            ($0.hasPrefix("changes/\(phone.id)/") || $0.hasPrefix("snapshots/\(phone.id)/")) && CloudLayout.entry(fromPath: $0) != nil
        }
        #expect(!files.isEmpty)
        return (laptop, word, files)
    }

    @Test("a new device reads the files of a device that has no record at its first sync", arguments: CloudBackend.available)
    func newDeviceReadsThem(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let (_, word, files) = try phoneLostBeforeItsRecord(fixture, term: "perdida", meaning: "its record never arrived")
            let tablet = try fixture.device("tablet")
            let report = try tablet.sync()
            #expect(try tablet.word(word).meaning == "its record never arrived")
            #expect(report.strayFiles == files.count, "\(files)")
            fixture.advanceClocks(by: Self.twoDays)
            #expect(try tablet.sync().strayFiles == 0, "each file is read once")
        }
    }

    @Test("a device that looked less than two days ago reads them at its next look", arguments: CloudBackend.available)
    func nextLookReadsThem(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let (laptop, word, files) = try phoneLostBeforeItsRecord(fixture, term: "olvidada", meaning: "read two days later")
            try laptop.sync()
            #expect(try !laptop.has(word), "the laptop looked at its first sync, less than two days ago")
            fixture.advanceClocks(by: Self.twoDays)
            let report = try laptop.sync()
            #expect(try laptop.word(word).meaning == "read two days later")
            #expect(report.strayFiles == files.count)
        }
    }

    @Test("a word purged after it was read stays purged on a new device, and status says its text is still in those files")
    func purgedStaysPurged() throws {
        try withBackend(.folder) { fixture in
            let (laptop, word, _) = try phoneLostBeforeItsRecord(fixture, term: "secreta", meaning: "qzxunrecordedqzx")
            fixture.advanceClocks(by: Self.twoDays)
            try laptop.sync()
            #expect(try laptop.has(word))
            #expect(try laptop.engine.status().purgedContentRemains.isEmpty, "nothing was purged yet")
            try laptop.library.delete([word])
            try laptop.library.purge([word])
            try fixture.syncRounds([laptop], 3)
            let tablet = try fixture.device("tablet")
            try tablet.sync()
            #expect(try !tablet.has(word) && !tablet.library.trash().contains { $0.id == word })
            #expect(fixture.cloudHolds("qzxunrecordedqzx"), "no device removes those files")
            let remains = try laptop.engine.status().purgedContentRemains
            #expect(remains.contains { $0.contains("no record") }, "\(remains)")
        }
    }

    @Test("the folders of an id that a copy took over are read by the takeover, not as a device without a record")
    func takenOverIdIsNotUnrecorded() throws {
        try withBackend(.folder) { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            try laptop.add("casa")
            try fixture.syncRounds([laptop, phone])
            let copy = try fixture.copy(of: laptop, as: "laptop-copy")
            try copy.add("copia")
            try fixture.syncRounds([copy, laptop, phone])
            fixture.advanceClocks(by: Self.twoDays)
            for device in [copy, laptop, phone] {
                let report = try device.sync()
                #expect(report.strayFiles == 0, "\(device.name)")
                #expect(try device.terms() == ["casa", "copia"], "\(device.name)")
            }
        }
    }
}
