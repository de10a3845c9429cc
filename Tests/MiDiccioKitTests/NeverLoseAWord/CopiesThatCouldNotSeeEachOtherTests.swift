import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Two copies of one library file that synced through a file-sync client before either
/// saw the other's files (each machine's folder is its own until the client delivers).
/// Both wrote under the one id they share, and one of them wrote a snapshot past the
/// other's files. The copy that finds out takes a new id and reads the old id's folders:
/// every file there, not only its newest snapshot and what follows it, so a word the
/// other copy uploaded is kept even when that other copy is then lost.
@Suite("Copies of a library that synced before they could see each other")
struct CopiesThatCouldNotSeeEachOtherTests {
    /// The files of `source` under `changes/` and `snapshots/` that `target` lacks,
    /// copied into it, as a file-sync client delivers them late.
    @discardableResult
    private func deliver(
        from source: MemoryStorage, to target: MemoryStorage, under prefixes: [String] = ["changes/", "snapshots/"]
    ) -> [String] {
        let present = target.files
        var delivered: [String] = []
        for (path, data) in source.files where present[path] == nil || (path.hasPrefix("devices/") && present[path] != data) {
            guard prefixes.contains(where: path.hasPrefix) else { continue }
            target.plant(path, data)
            delivered.append(path)
        }
        return delivered
    }

    /// A laptop with one word synced, and a copy of its file on a second laptop whose
    /// synced folder starts as a copy of the first one's; `copied` is what that folder
    /// started with.
    private func laptopAndItsCopy(
        _ directory: URL
    ) throws -> (
        laptop: TestDevice, laptopCloud: MemoryStorage, second: TestDevice, secondCloud: MemoryStorage, early: WordID,
        copied: Set<String>
    ) {
        let laptopCloud = MemoryStorage()
        let laptop = try TestDevice(
            name: "laptop", path: directory.appendingPathComponent("laptop.sqlite").path, storage: laptopCloud,
            clock: ManualClock(start: Timestamp(milliseconds: 1_780_000_000_000)))
        let early = try laptop.add("temprano")
        try laptop.sync()
        let secondCloud = MemoryStorage()
        for (path, data) in laptopCloud.files { secondCloud.plant(path, data) }
        let secondPath = directory.appendingPathComponent("second.sqlite").path
        try laptop.copyLibraryFile(to: secondPath)
        let second = try TestDevice(
            name: "second laptop", path: secondPath, storage: secondCloud, clock: ManualClock(start: laptop.clock.now()))
        return (laptop, laptopCloud, second, secondCloud, early, Set(laptopCloud.files.keys))
    }

    /// A phone on `cloud`, its clock where `laptop`'s is.
    private func phone(in directory: URL, on cloud: MemoryStorage, from laptop: TestDevice) throws -> TestDevice {
        try TestDevice(
            name: "phone", path: directory.appendingPathComponent("phone.sqlite").path, storage: cloud,
            clock: ManualClock(start: laptop.clock.now()))
    }

    @Test(
        "a word a copy uploaded under the shared id is kept when the other copy's snapshot went past it and that copy is lost",
        arguments: [false, true])
    func wordBelowTheOtherCopysSnapshot(lostCopyWroteASnapshotToo: Bool) throws {
        try withTemporaryDirectory { directory in
            // The file is copied to a second laptop, whose synced folder starts as a copy
            // of the first one's.
            let (laptop, laptopCloud, second, secondCloud, early, _) = try laptopAndItsCopy(directory)
            if lostCopyWroteASnapshotToo { second.tune = { $0.snapshotInterval = 1 } }
            #expect(second.id == laptop.id)

            // Each writes under the shared id without seeing the other's files.
            second.clock.advance(by: 1_000)
            let fromSecond = try second.add("del segundo", meaning: "uploaded by the copy that is then lost")
            try second.sync()
            laptop.tune = { $0.snapshotInterval = 1 }
            laptop.clock.advance(by: 2_000)
            let fromLaptop = try laptop.add("del primero")
            try laptop.sync()
            let snapshots = laptopCloud.files.keys.filter { $0.hasPrefix("snapshots/\(laptop.id)/") }
            #expect(!snapshots.isEmpty, "the laptop's snapshot covers the number of the second laptop's file")

            // The client delivers the second laptop's files; then that laptop is lost.
            let delivered = deliver(from: secondCloud, to: laptopCloud)
            #expect(delivered.contains { $0.hasPrefix("snapshots/") } == lostCopyWroteASnapshotToo)
            let sharedID = laptop.id
            laptop.clock.advance(by: 1_000)
            let afterward = try laptop.add("después")
            try laptop.sync()

            let phone = try phone(in: directory, on: laptopCloud, from: laptop)
            for _ in 0..<3 {
                for device in [laptop, phone] {
                    device.clock.advance(by: 1_000)
                    try device.sync()
                }
            }
            #expect(laptop.id != sharedID, "the laptop found the other copy's file under its id")
            for device in [laptop, phone] {
                for id in [early, fromSecond, fromLaptop, afterward] {
                    #expect(try device.has(id), "\(device.name): \((try? device.library.list().map(\.term)) ?? [])")
                }
            }
            #expect(try laptop.everyWord() == phone.everyWord())
        }
    }

    @Test("a copy's file that arrives after the takeover, numbered below where it read, is read before the old id's files are removed")
    func fileArrivingAfterTheTakeover() throws {
        try withTemporaryDirectory { directory in
            let (laptop, laptopCloud, second, secondCloud, _, copied) = try laptopAndItsCopy(directory)

            for term in ["uno", "dos", "tres"] {
                laptop.clock.advance(by: 1_000)
                try laptop.add(term)
                try laptop.sync()
            }
            second.clock.advance(by: 1_000)
            let fromSecond = try second.add("del segundo", meaning: "its file arrives after the takeover")
            try second.sync()

            // The client brings the second laptop's record first; the laptop takes over.
            #expect(deliver(from: secondCloud, to: laptopCloud, under: ["devices/"]).count == 1)
            let shared = laptop.id
            laptop.clock.advance(by: 1_000)
            try laptop.sync()
            #expect(laptop.id != shared)
            // Then its change file; the second laptop is lost.
            let late = secondCloud.files.filter { $0.key.hasPrefix("changes/") && !copied.contains($0.key) }
            #expect(late.count == 1)
            for (path, data) in late { laptopCloud.plant(path, data) }
            for _ in 0..<3 {
                laptop.clock.advance(by: 1_000)
                try laptop.sync()
            }
            let phone = try phone(in: directory, on: laptopCloud, from: laptop)
            try phone.sync()
            #expect(try laptop.word(fromSecond).meaning == "its file arrives after the takeover")
            #expect(try phone.has(fromSecond))
            #expect(!laptopCloud.files.keys.contains { $0.contains(shared) }, "the old id's files are removed once read")
        }
    }

    /// Two days and a little: long enough for a device to count as silent.
    private static let laterOn: Int64 = 2 * 86_400_000 + 60_000

    @Test("a third device that read one copy's file of a number reads the other copy's too, once both copies are silent")
    func thirdDeviceReadsBothCopiesFiles() throws {
        try withTemporaryDirectory { directory in
            let (laptop, laptopCloud, second, secondCloud, _, _) = try laptopAndItsCopy(directory)
            let phone = try phone(in: directory, on: laptopCloud, from: laptop)
            try phone.sync()
            second.clock.advance(by: 1_000)
            let fromSecond = try second.add("del segundo")
            try second.sync()
            laptop.clock.advance(by: 2_000)
            try laptop.add("del primero")
            try laptop.sync()
            phone.clock.advance(by: 3_000)
            try phone.sync()
            // The second laptop's file and record come after; then both laptops are lost.
            #expect(deliver(from: secondCloud, to: laptopCloud, under: ["changes/", "devices/"]).count == 2)
            phone.clock.advance(by: 1_000)
            try phone.sync()
            // Its number was read already, under another name: since round 9 that is read as
            // a library put back (AComputerRestoredWithItsSyncedFolderTests), at once.
            #expect(try phone.has(fromSecond))
            phone.clock.advance(by: Self.laterOn)
            try phone.sync()
            #expect(try phone.has(fromSecond))
        }
    }

    @Test("a copy's file that arrives without its record after the takeover ended is read, and passed on, once silent")
    func fileArrivingAfterTheTakeoverEnded() throws {
        try withTemporaryDirectory { directory in
            let (laptop, laptopCloud, second, secondCloud, _, copied) = try laptopAndItsCopy(directory)
            let phone = try phone(in: directory, on: laptopCloud, from: laptop)
            try phone.sync()
            second.clock.advance(by: 1_000)
            try second.add("primero del segundo")
            try second.sync()
            let first = Set(secondCloud.files.keys.filter { $0.hasPrefix("changes/") && !copied.contains($0) })
            let firstRecord = try #require(secondCloud.files[CloudLayout.devicePath(second.id)])
            second.clock.advance(by: 1_000)
            let late = try second.add("segundo del segundo")
            try second.sync()
            // Its first file and record reach the laptop, which takes over and, in time,
            // removes the old id's files and record.
            for path in first { laptopCloud.plant(path, secondCloud.files[path]!) }
            laptopCloud.plant(CloudLayout.devicePath(second.id), firstRecord)
            let shared = second.id
            for _ in 0..<4 {
                for device in [laptop, phone] {
                    device.clock.advance(by: 1_000)
                    try device.sync()
                }
            }
            #expect(!laptopCloud.files.keys.contains { $0.contains(shared) }, "the takeover ended")
            // Its second file comes alone; the second laptop is lost.
            let second2 = secondCloud.files.filter { $0.key.hasPrefix("changes/") && !copied.contains($0.key) && !first.contains($0.key) }
            #expect(second2.count == 1)
            for (path, data) in second2 { laptopCloud.plant(path, data) }
            for device in [laptop, phone] { device.clock.advance(by: Self.laterOn) }
            for _ in 0..<2 {
                for device in [laptop, phone] { try device.sync() }
            }
            #expect(try laptop.has(late) && phone.has(late))
        }
    }
}
