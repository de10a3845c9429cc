import Foundation
import MiDiccioTesting

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

// Support for the sync tests only: several simulated devices, each a library file with
// its own manual clock, syncing through one in-memory cloud. Names carry a `Sync`
// prefix so they never collide with helpers elsewhere in this test target.

/// One cloud shared by several devices, and a temporary folder for their library files
/// that `withSyncFixture` removes afterwards.
final class SyncFixture {
    /// Where every device's clock starts unless told otherwise: an odd millisecond, so a
    /// rounded or lost millisecond shows.
    static let start = Timestamp(milliseconds: 1_764_000_000_123)
    /// One day, in milliseconds.
    static let day: Int64 = 86_400_000

    /// The folder holding this test's library files (and any backup it writes).
    let directory: URL
    /// The cloud every device of this fixture syncs with.
    let storage = MemoryStorage()
    /// Every device made so far, in order.
    private(set) var devices: [TestDevice] = []

    fileprivate init(directory: URL) {
        self.directory = directory
    }

    /// A path for a file named `name` in the fixture's folder.
    func file(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// A new device with an empty library, its clock at `start` plus `clockOffset` ms.
    func device(_ name: String, clockOffset: Int64 = 0) throws -> TestDevice {
        let clock = ManualClock(start: Timestamp(milliseconds: Self.start.milliseconds + clockOffset))
        let device = try TestDevice(name: name, path: file("\(name).sqlite"), storage: storage, clock: clock)
        devices.append(device)
        return device
    }

    /// A device whose library is a copy of `source`'s file, as copied to a new laptop: the
    /// same device id until a sync finds out.
    func copy(of source: TestDevice, as name: String) throws -> TestDevice {
        try source.copyLibraryFile(to: file("\(name).sqlite"))
        let clock = ManualClock(start: source.clock.now())
        let device = try TestDevice(name: name, path: file("\(name).sqlite"), storage: storage, clock: clock)
        devices.append(device)
        return device
    }

    /// Moves every device's clock forward by `milliseconds`.
    func advanceClocks(by milliseconds: Int64) {
        for device in devices { device.clock.advance(by: milliseconds) }
    }

    /// Syncs `devices` one after another, `rounds` times, moving every clock a second
    /// between syncs. Two rounds let every device see every other device's changes.
    func syncRounds(_ devices: [TestDevice], _ rounds: Int = 2, allowMassDelete: Bool = false) throws {
        for _ in 0..<rounds {
            for device in devices {
                advanceClocks(by: 1_000)
                try device.sync(allowMassDelete: allowMassDelete)
            }
        }
    }

    /// The numbers of `device`'s files of `kind` in the cloud, in order (a number twice
    /// when two files carry it).
    func seqs(_ kind: CloudLayout.Kind, of device: TestDevice) -> [Int64] {
        let folder = CloudLayout.folder(kind, of: device.id) + "/"
        return storage.files.keys.filter { $0.hasPrefix(folder) }
            .compactMap { CloudLayout.entry(fromName: String($0.dropFirst(folder.count)), kind: kind)?.seq }.sorted()
    }

    /// The path of `device`'s file of `kind` numbered `seq` (the first, should there be
    /// two), or nil.
    func path(_ kind: CloudLayout.Kind, of device: TestDevice, seq: Int64) -> String? {
        let folder = CloudLayout.folder(kind, of: device.id) + "/"
        return storage.files.keys.filter { $0.hasPrefix(folder) }.sorted().first {
            CloudLayout.entry(fromName: String($0.dropFirst(folder.count)), kind: kind)?.seq == seq
        }
    }

    /// The number in a change file's or snapshot's path, or nil.
    static func seq(of path: String) -> Int64? {
        let name = String(path.split(separator: "/").last ?? "")
        return CloudLayout.entry(fromName: name, kind: .changes)?.seq ?? CloudLayout.entry(fromName: name, kind: .snapshot)?.seq
    }

    /// The number of requests of `kind` ("list", "read", "write", "delete") the cloud
    /// has served, from every device.
    func requests(_ kind: String) -> Int {
        storage.requestCounts[kind] ?? 0
    }
}

/// Runs `body` with a fresh fixture in its own temporary folder, removed afterwards
/// (also when `body` throws). Nothing is shared between tests.
func withSyncFixture<T>(_ body: (SyncFixture) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("midiccio-sync-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(SyncFixture(directory: directory))
}

/// A test expectation that could not even be set up (a missing word, say).
struct SyncTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A mutable flag a `beforeWrite` hook can flip (closures there cannot capture `inout`).
final class SyncFlag {
    var value: Bool
    init(_ value: Bool = false) { self.value = value }
}

extension SyncError {
    /// The counts of a mass-deletion stop, else nil.
    var massDeletionCounts: (count: Int, of: Int)? {
        if case .massDeletion(let count, let total, _, _) = self { return (count, total) }
        return nil
    }

    /// True for `cloudTooNew`.
    var isCloudTooNew: Bool {
        if case .cloudTooNew = self { return true }
        return false
    }
}
