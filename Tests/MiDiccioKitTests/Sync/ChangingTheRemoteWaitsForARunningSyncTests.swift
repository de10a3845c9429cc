import Foundation
import MiDiccioTesting
import Synchronization
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Setting another remote while a sync runs (`remote set` in a terminal, Settings in the web
/// app) waits for that sync: it went on with the old cloud and then saved where it had got
/// to there as the new cloud's, and every later sync failed with "has no midiccio-sync.json"
/// (found by the exploratory helper, round 9).
@Suite("Changing the remote waits for a running sync")
struct ChangingTheRemoteWaitsForARunningSyncTests {
    @Test("a remote set while a sync is uploading is set once that sync is done, and the next sync starts the new cloud")
    func remoteSetWaitsForTheSync() throws {
        try withSyncFixture { fixture in
            let device = try fixture.device("a")
            try device.library.setRemote(.folder(path: fixture.file("old-cloud")))
            try device.add("palabra")
            let uploading = DispatchSemaphore(value: 0)
            let goOn = DispatchSemaphore(value: 0)
            let held = Mutex(false)
            fixture.storage.beforeWrite = { _ in
                let first = held.withLock { taken in
                    defer { taken = true }
                    return !taken
                }
                guard first else { return }
                uploading.signal()
                goOn.wait()
            }
            let syncDone = Mutex(false)
            nonisolated(unsafe) let syncingDevice = device
            let syncing = Thread {
                _ = try? syncingDevice.sync()
                syncDone.withLock { $0 = true }
            }
            syncing.start()
            uploading.wait()

            // As another program: its own connection to the library.
            nonisolated(unsafe) let other = try WordLibrary(path: device.path, environment: [:])
            let newCloud = fixture.file("new-cloud")
            try FileManager.default.createDirectory(atPath: newCloud, withIntermediateDirectories: true)
            let setDone = Mutex(false)
            let setting = Thread {
                try? other.setRemote(.folder(path: newCloud))
                setDone.withLock { $0 = true }
            }
            setting.start()
            Thread.sleep(forTimeInterval: 0.3)
            #expect(!setDone.withLock { $0 }, "it waits for the sync")
            goOn.signal()
            for _ in 0..<200 where !(setDone.withLock { $0 } && syncDone.withLock { $0 }) { Thread.sleep(forTimeInterval: 0.05) }
            #expect(setDone.withLock { $0 } && syncDone.withLock { $0 })
            #expect(try other.remote() == .folder(path: newCloud))

            // The new cloud is new to this library: its first sync there starts it.
            let engine = SyncEngine(library: other, storage: FolderStorage(root: newCloud))
            let report = try engine.sync()
            #expect(report.startedCloud)
            #expect(FileManager.default.fileExists(atPath: newCloud + "/midiccio-sync.json"))
        }
    }

    /// A sync made for the old cloud that got the lock after the move synced with the
    /// cloud just left, on the state the move had reset (found by the exploratory helper,
    /// round 22B #4).
    @Test("a sync whose library was set to another cloud while it waited stops, writes nowhere, and says so")
    func aSyncMadeForTheOldCloudStops() throws {
        try withTemporaryDirectory { directory in
            let library = try WordLibrary(path: directory.appendingPathComponent("a.sqlite").path, environment: [:])
            _ = try library.add(WordContent(term: "palabra", meaning: "word"))
            let old = directory.appendingPathComponent("old-cloud").path, new = directory.appendingPathComponent("new-cloud").path
            for folder in [old, new] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            try library.setRemote(.folder(path: old))
            let engine = SyncEngine(library: library, storage: FolderStorage(root: old))
            engine.expectedRemote = .folder(path: old)
            // Set while the sync waited for the lock.
            try library.setRemote(.folder(path: new))
            #expect {
                try engine.sync()
            } throws: { error in
                guard case SyncError.remoteChanged = error else { return false }
                let said = "was set to sync with folder \(new) while this sync waited for another; nothing was changed here"
                return "\(error)".contains(said)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: old).isEmpty)
            #expect(try SyncStore(library).pendingCount() == 1)
        }
    }
}
