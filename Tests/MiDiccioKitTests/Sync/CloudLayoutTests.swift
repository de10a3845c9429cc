import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rules of the cloud layout: a manifest with the format name and versions; a device too
/// old for the cloud stops syncing and keeps its local work; each device writes only its
/// own files; readers ignore files they do not understand and report, never crash on, a
/// corrupt or truncated file while the rest of the sync goes on.
@Suite("The cloud folder's layout: manifest, own files only, unknown and damaged files")
struct CloudLayoutTests {
    // MARK: - Manifest

    @Test("the first device to sync writes a manifest with the format name and versions")
    func manifestWritten() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            try a.add("uno")
            try a.sync()
            let data = try #require(fixture.storage.files[CloudLayout.manifestPath])
            let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(manifest["format"] as? String == "midiccio-sync")
            // Format 6: the clean-up's purge markers (format 5 added tag clocks, format 4 review
            // events, format 3 gave file names a random part); only format-6 devices may read
            // or write.
            #expect(manifest["version"] as? Int == 6)
            #expect(manifest["minimumReadVersion"] as? Int == 6)
            #expect(manifest["minimumWriteVersion"] as? Int == 6)
            #expect(a.cloud.requests("write", under: CloudLayout.manifestPath).count == 1)

            let b = try fixture.device("b")
            try b.sync()
            #expect(b.cloud.requests("write", under: CloudLayout.manifestPath).isEmpty, "later devices keep the manifest")
            #expect(fixture.storage.files[CloudLayout.manifestPath] == data)
        }
    }

    /// A manifest as a newer MiDiccio might write it.
    private func newerManifest(version: Int, read: Int, write: Int) -> Data {
        Data(
            """
            {"format": "midiccio-sync", "version": \(version), "minimumReadVersion": \(read), "minimumWriteVersion": \(write), "addedLater": true}
            """.utf8)
    }

    /// A device too old for the cloud: either an older MiDiccio (format 1) meeting a
    /// format-2 folder, or this MiDiccio meeting a folder from a future version.
    enum TooOld: String, CaseIterable {
        case formatOneDevice, currentDevice

        var deviceFormat: Int? { self == .formatOneDevice ? 1 : nil }
        var cloudVersion: Int { self == .formatOneDevice ? 2 : CloudManifest.currentVersion + 1 }
    }

    @Test("a cloud copy written by a newer MiDiccio stops the sync with a message asking to update", arguments: TooOld.allCases)
    func tooNewMessage(_ situation: TooOld) throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            if let format = situation.deviceFormat { a.engine.formatVersion = format }
            try a.add("uno")
            let version = situation.cloudVersion
            fixture.storage.plant(CloudLayout.manifestPath, newerManifest(version: version, read: 1, write: version))
            let error = #expect(throws: SyncError.self) { try a.sync() }
            #expect(error?.isCloudTooNew == true)
            let message = error.map { "\($0)" } ?? ""
            #expect(
                message.contains("this cloud copy was written by a newer MiDiccio; update to keep syncing"),
                "the issue's wording; got: \(message)")
            // Which format this build writes, so the person can tell whether a build is new enough.
            #expect(message.contains("this MiDiccio format \(CloudManifest.currentVersion)"), "\(message)")
        }
    }

    @Test("a device too old for the cloud copy keeps all its local work, pending words included")
    func tooNewKeepsLocalWork() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let shared = try a.add("compartida")
            try fixture.syncRounds([a, b])
            try b.library.edit(shared, WordEdit(meaning: "edited on b"))
            try b.sync()

            try a.add("nueva en a")
            try a.library.edit(shared, WordEdit(notes: "edited on a"))
            let before = try a.everyStoredWord()
            #expect(try a.pendingCount() == 2)
            fixture.storage.plant(
                CloudLayout.manifestPath,
                newerManifest(version: CloudManifest.currentVersion + 1, read: 1, write: CloudManifest.currentVersion + 1))
            let cloudBefore = fixture.storage.files

            a.cloud.resetRequests()
            #expect(throws: SyncError.self) { try a.sync() }
            #expect(try a.everyStoredWord() == before, "nothing pulled, nothing marked uploaded")
            #expect(try a.pendingCount() == 2)
            #expect(a.cloud.requests("write").isEmpty)
            #expect(fixture.storage.files == cloudBefore)
        }
    }

    @Test("a cloud copy that a newer MiDiccio wrote but still lets this version read and write syncs normally")
    func newerButCompatibleSyncs() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            fixture.storage.plant(CloudLayout.manifestPath, newerManifest(version: CloudManifest.currentVersion + 1, read: 1, write: 1))
            let id = try a.add("compatible")
            try fixture.syncRounds([a, b])
            #expect(try b.has(id))
        }
    }

    // MARK: - Files readers ignore

    @Test("conflicted copies, temporary files and other apps' files in the cloud folder are ignored")
    func unknownFilesIgnored() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.add("uno")
            try fixture.syncRounds([a, b])

            let intruderWord = Word(id: WordID.random(), term: "intruder", createdAt: SyncFixture.start, updatedAt: SyncFixture.start)
            let intruder = BatchCodec.encode(
                SyncBatch(
                    kind: .changes, device: a.id, seq: 2,
                    records: [
                        SyncRecord(
                            word: intruderWord, times: FieldTimes(all: SyncFixture.start),
                            writers: Array(repeating: a.id, count: WordField.allCases.count))
                    ]))
            let record = try #require(fixture.storage.files[CloudLayout.devicePath(a.id)])
            let planted: [String: Data] = [
                "devices/\(a.id) (conflicted copy).json": record,
                "devices/\(a.id) (Ana's conflicted copy 2026-11-29).json": Data("{broken".utf8),
                "devices/.\(a.id).json.8231.tmp": record,
                "changes/\(a.id)/000000000002 (1).chg": intruder,
                "changes/\(a.id)/.000000000002.chg.1234.tmp": intruder,
                "snapshots/\(a.id)/000000000002 (conflicted copy).snap": intruder,
                "desktop.ini": Data("[.ShellClassInfo]".utf8),
                "devices/.DS_Store": Data([0, 0, 0, 1]),
                "changes/Thumbs.db": Data([1, 2, 3]),
                "notes from another app.txt": Data("hello".utf8),
            ]
            for (path, data) in planted { fixture.storage.plant(path, data) }

            try a.add("dos")
            fixture.advanceClocks(by: 1_000)
            let reportA = try a.sync()
            let reportB = try b.sync()
            #expect(reportA.skippedFiles.isEmpty)
            #expect(reportB.skippedFiles.isEmpty, "ignored, not reported: \(reportB.skippedFiles)")
            #expect(try b.has(intruderWord.id) == false, "a conflicted or temporary copy is never read")
            #expect(try a.everyWord() == b.everyWord())
            #expect(try b.library.counts().words == 2)
            let seen = try b.engine.status().devices.map(\.id)
            #expect(Set(seen) == [a.id, b.id], "conflicted device records are not devices")
            // A record write of a's that stopped half way leaves `.<id>.json.<random>.tmp`:
            // a's own leftover, which its syncs remove. Everything else is left alone.
            let ownLeftover = "devices/.\(a.id).json.8231.tmp"
            #expect(fixture.storage.files[ownLeftover] == nil, "a removes its own leftover record file")
            for (path, data) in planted where path != ownLeftover {
                #expect(fixture.storage.files[path] == data, "\(path) left alone")
            }
        }
    }

    // MARK: - Damaged files

    /// Ways a change file can arrive damaged.
    enum Damage: String, CaseIterable {
        case truncated, flippedByte, otherBytes, empty
    }

    private func damage(_ data: Data, _ damage: Damage) -> Data {
        switch damage {
        case .truncated: return data.prefix(data.count / 2)
        case .flippedByte:
            var bytes = [UInt8](data)
            bytes[bytes.count / 2] ^= 0x5A
            return Data(bytes)
        case .otherBytes: return Data("this is not a change file".utf8)
        case .empty: return Data()
        }
    }

    @Test("a damaged change file is reported, the rest of the sync goes on and local data is untouched", arguments: Damage.allCases)
    func damagedChangeFileReported(_ kind: Damage) throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b"), c = try fixture.device("c")
            let shared = try a.add("compartida", meaning: "shared")
            try fixture.syncRounds([a, b, c])
            let sharedOnB = try b.stored(shared)

            try a.library.edit(shared, WordEdit(meaning: "edited on a"))
            let fromA = try a.add("de a")
            try a.sync()
            let fromC = try c.add("de c")
            try c.sync()
            let mine = try b.add("de b")

            let path = try #require(fixture.path(.changes, of: a, seq: 2))
            let real = try #require(fixture.storage.files[path])
            fixture.storage.faults.corruptReads[path] = damage(real, kind)

            let report = try b.sync()
            #expect(report.skippedFiles.map(\.path) == [path])
            #expect(report.skippedFiles.first?.reason.isEmpty == false)
            #expect(try b.stored(shared) == sharedOnB, "the damaged file is not half applied")
            #expect(try b.has(fromA) == false)
            #expect(try b.has(fromC), "other devices' changes still arrive")
            #expect(report.pushed == 1, "b's own change still goes up")
            #expect(try b.stored(mine).pending == false)

            // Once the file arrives whole, the next sync takes it.
            fixture.storage.faults.corruptReads = [:]
            let next = try b.sync()
            #expect(next.skippedFiles.isEmpty)
            #expect(try b.word(shared).meaning == "edited on a")
            #expect(try b.has(fromA))
            try fixture.syncRounds([a, b, c])
            #expect(try a.everyWord() == b.everyWord())
            #expect(try c.everyWord() == b.everyWord())
        }
    }

    @Test("a damaged device record is reported and the other devices still sync")
    func damagedDeviceRecordReported() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b"), c = try fixture.device("c")
            try fixture.syncRounds([a, b, c])
            let fromC = try c.add("de c")
            try c.sync()
            let path = CloudLayout.devicePath(a.id)
            fixture.storage.faults.corruptReads[path] = Data("{\"format\": \"midiccio-device\", \"dev".utf8)
            let report = try b.sync()
            #expect(report.skippedFiles.map(\.path) == [path])
            #expect(try b.has(fromC))
        }
    }

    // MARK: - Immutable change files

    @Test(
        "a second sync of one library while one runs (two windows or processes) waits its turn: no change file is written twice, no edit lost"
    )
    func concurrentSyncsOfOneLibrary() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let first = try a.add("uno"), second = try a.add("dos")
            try fixture.syncRounds([a, b])

            // Another process of the app on the same library, with its own engine.
            let otherLibrary = try a.secondConnection()
            let otherCloud = RecordingCloud(fixture.storage)
            let otherEngine = SyncEngine(library: otherLibrary, storage: otherCloud)
            otherEngine.lockTimeout = 0
            let started = SyncFlag()
            let refused = SyncFlag()
            fixture.storage.beforeWrite = { path in
                guard path.hasPrefix(CloudLayout.changesFolder(a.id) + "/"), !started.value else { return }
                started.value = true
                // While a's upload is on its way, the other process edits a word and syncs.
                try otherLibrary.edit(second, WordEdit(meaning: "edited in the other window"))
                do {
                    try otherEngine.sync()
                } catch let error as SyncError {
                    if case .busy = error { refused.value = true } else { throw error }
                }
            }
            fixture.advanceClocks(by: 1_000)
            try a.library.edit(first, WordEdit(meaning: "edited in this window"))
            try a.sync()
            fixture.storage.beforeWrite = nil
            #expect(started.value)
            #expect(refused.value, "the second sync must wait for the first (here it gives up at once)")

            let changeWrites = a.cloud.requests("write", under: CloudLayout.changesFolder(a.id)).map(\.path)
            let otherWrites = otherCloud.requests("write", under: CloudLayout.changesFolder(a.id)).map(\.path)
            #expect(
                Set(changeWrites).isDisjoint(with: otherWrites), "the same change file written twice: \(changeWrites) and \(otherWrites)")

            fixture.advanceClocks(by: 1_000)
            try a.sync()
            try b.sync()
            #expect(try b.word(first).meaning == "edited in this window")
            #expect(try b.word(second).meaning == "edited in the other window", "the other window's edit reached b")
        }
    }

    // MARK: - Own files only

    @Test("a device reconnected to the same cloud continues its numbering and never rewrites a change file")
    func reconnectingNeverRewritesChangeFiles() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let cloud = RemoteConfig.folder(path: fixture.file("cloud"))
            try a.library.setRemote(cloud)
            let id = try a.add("uno")
            for index in 0..<3 {
                fixture.advanceClocks(by: 1_000)
                try a.library.edit(id, WordEdit(notes: "edit \(index)"))
                try a.sync()
            }
            try b.sync()
            let before = fixture.storage.files.filter { $0.key.hasPrefix(CloudLayout.changesFolder(a.id) + "/") }
            #expect(!before.isEmpty)

            try a.library.setRemote(nil)
            try a.library.setRemote(cloud)
            fixture.advanceClocks(by: 1_000)
            try a.library.edit(id, WordEdit(meaning: "after reconnecting"))
            try a.sync()
            for (path, data) in before {
                #expect(fixture.storage.files[path] == nil || fixture.storage.files[path] == data, "\(path) rewritten")
            }
            try b.sync()
            #expect(try b.word(id).meaning == "after reconnecting")
            #expect(try b.everyWord() == a.everyWord())
        }
    }

    @Test("each device writes and removes only its own files")
    func devicesWriteOnlyTheirOwnFiles() throws {
        try withSyncFixture { fixture in
            let devices = [try fixture.device("a"), try fixture.device("b"), try fixture.device("c")]
            for device in devices { device.engine.snapshotInterval = 2 }
            var ids: [WordID] = []
            for round in 0..<8 {
                for device in devices {
                    ids.append(try device.add("\(device.name) \(round)"))
                    // Edit a word another device added, once it has arrived here.
                    if let other = try ids.dropLast().last(where: {
                        try device.has($0) && device.word($0).term.hasPrefix(device.name) == false
                    }) {
                        try device.library.edit(other, WordEdit(notes: "round \(round) on \(device.name)"))
                    }
                    fixture.advanceClocks(by: 1_000)
                    try device.sync()
                }
            }
            try fixture.syncRounds(devices)

            for path in fixture.storage.files.keys where path != CloudLayout.manifestPath {
                let owners = devices.filter { $0.owns(path) }
                #expect(owners.count == 1, "\(path) belongs to exactly one device")
            }
            for device in devices {
                for request in device.cloud.requests where request.kind == "write" || request.kind == "delete" {
                    let allowed = device.owns(request.path) || (request.kind == "write" && request.path == CloudLayout.manifestPath)
                    #expect(allowed, "\(device.name) \(request.kind) \(request.path)")
                }
            }
            #expect(devices.flatMap { $0.cloud.requests("write", under: CloudLayout.manifestPath) }.count == 1)
            #expect(devices.contains { !$0.cloud.requests("delete").isEmpty }, "compaction ran, so removals were checked too")
            #expect(try devices[0].everyWord() == devices[1].everyWord())
            #expect(try devices[0].everyWord() == devices[2].everyWord())
        }
    }
}
