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
}
