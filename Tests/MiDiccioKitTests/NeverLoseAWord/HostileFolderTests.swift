import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

#if canImport(Glibc)
import Glibc
#endif

/// Finding 5 and the smaller ones: the cloud folder is shared with other programs and
/// devices. A file that cannot be read, something that is not a regular file where one
/// should be, or a link out of the folder is skipped and reported like a damaged file,
/// and the rest of the sync goes on: other devices' changes arrive, this device's
/// changes go up.
@Suite("A cloud folder with things in it that are not MiDiccio's files")
struct HostileFolderTests {
    /// Two devices on one folder; b has uploaded one change file, which `plant` then
    /// replaces with something else. Returns the devices and that file's path on disk.
    private func setUp(_ fixture: CloudBackendFixture) throws -> (TestDevice, TestDevice, String) {
        let a = try fixture.device("a"), b = try fixture.device("b")
        try a.add("de a")
        try fixture.syncRounds([a, b])
        try b.add("de b")
        fixture.advanceClocks(by: 1_000)
        try b.sync()
        let path = try #require(fixture.files.keys.filter { $0.hasPrefix(CloudLayout.changesFolder(b.id)) }.sorted().last)
        return (a, b, path)
    }

    /// Syncs `a` after `b`'s change file was replaced: the sync goes through, reports the
    /// file, and a's own change still goes up.
    private func expectSkippedAndGoingOn(
        _ fixture: CloudBackendFixture, _ a: TestDevice, _ path: String,
        reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let mine = try a.add("sube igual")
        fixture.advanceClocks(by: 1_000)
        let report = try a.sync()
        #expect(report.skippedFiles.map(\.path) == [path], "\(report.skippedFiles)", sourceLocation: sourceLocation)
        #expect(report.skippedFiles.first?.reason.contains(reason) == true, "\(report.skippedFiles)", sourceLocation: sourceLocation)
        #expect(report.pushed == 1, sourceLocation: sourceLocation)
        #expect(try a.stored(mine).pending == false, sourceLocation: sourceLocation)
    }

    @Test("a pipe where another device's change file should be is skipped and reported, and never waited on")
    func fifoIsSkipped() throws {
        try withBackend(.folder) { fixture in
            let (a, _, path) = try setUp(fixture)
            try FileManager.default.removeItem(atPath: fixture.diskPath(path))
            #expect(mkfifo(fixture.diskPath(path), 0o644) == 0)
            try expectSkippedAndGoingOn(fixture, a, path, reason: "not a regular file")
        }
    }

    @Test("a link to /dev/zero where a change file should be is skipped: links out of the folder are never followed")
    func linkOutsideIsSkipped() throws {
        try withBackend(.folder) { fixture in
            let (a, _, path) = try setUp(fixture)
            try FileManager.default.removeItem(atPath: fixture.diskPath(path))
            try FileManager.default.createSymbolicLink(atPath: fixture.diskPath(path), withDestinationPath: "/dev/zero")
            try expectSkippedAndGoingOn(fixture, a, path, reason: "outside the cloud folder")
        }
    }

    @Test("a folder where a change file should be is skipped and reported by name")
    func folderIsSkipped() throws {
        try withBackend(.folder) { fixture in
            let (a, _, path) = try setUp(fixture)
            try FileManager.default.removeItem(atPath: fixture.diskPath(path))
            try FileManager.default.createDirectory(atPath: fixture.diskPath(path), withIntermediateDirectories: false)
            try expectSkippedAndGoingOn(fixture, a, path, reason: "a folder is where a file should be")
        }
    }

    @Test("a link that loops where a change file should be is reported, not taken for a file still on its way")
    func loopingLinkIsReported() throws {
        try withBackend(.folder) { fixture in
            let (a, _, path) = try setUp(fixture)
            try FileManager.default.removeItem(atPath: fixture.diskPath(path))
            try FileManager.default.createSymbolicLink(atPath: fixture.diskPath(path), withDestinationPath: fixture.diskPath(path))
            try expectSkippedAndGoingOn(fixture, a, path, reason: "loops")
        }
    }

    @Test(
        "a change file nobody may read is skipped and reported, and the sync goes on",
        .enabled(if: getuid() != 0, "root reads files whatever their mode"))
    func unreadableFileIsSkipped() throws {
        try withBackend(.folder) { fixture in
            let (a, _, path) = try setUp(fixture)
            #expect(chmod(fixture.diskPath(path), 0) == 0)
            defer { chmod(fixture.diskPath(path), 0o644) }
            try expectSkippedAndGoingOn(fixture, a, path, reason: "ermission")
        }
    }

    @Test("a device record that is a pipe is skipped and reported, and the sync goes on")
    func recordPipeIsSkipped() throws {
        try withBackend(.folder) { fixture in
            let (a, b, _) = try setUp(fixture)
            let record = CloudLayout.devicePath(b.id)
            try FileManager.default.removeItem(atPath: fixture.diskPath(record))
            #expect(mkfifo(fixture.diskPath(record), 0o644) == 0)
            let mine = try a.add("sube igual")
            fixture.advanceClocks(by: 1_000)
            let report = try a.sync()
            #expect(report.skippedFiles.map(\.path) == [record])
            #expect(try a.stored(mine).pending == false)
        }
    }

    @Test("a folder where this device's record goes stops the sync with a message naming it, and keeps the changes pending")
    func folderInTheWayOfTheRecord() throws {
        try withBackend(.folder) { fixture in
            let a = try fixture.device("a")
            try a.add("uno")
            try a.sync()
            let record = fixture.diskPath(CloudLayout.devicePath(a.id))
            try FileManager.default.removeItem(atPath: record)
            try FileManager.default.createDirectory(atPath: record + "/inside", withIntermediateDirectories: true)
            try a.add("dos")
            fixture.advanceClocks(by: 1_000)
            let error = try #require(throws: SyncError.self) { try a.sync() }
            #expect("\(error)".contains(CloudLayout.devicePath(a.id)), "\(error)")
            #expect(!"\(error)".contains("error 13") && !"\(error)".contains("LibraryError"), "\(error)")
        }
    }

    @Test(
        "a manifest caught half written stops the sync with a message that the next sync tries again, and changes nothing",
        arguments: CloudBackend.available)
    func halfWrittenManifest(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let a = try fixture.device("a")
            try a.add("uno")
            try a.sync()
            let manifest = try #require(fixture.files[CloudLayout.manifestPath])
            try a.add("dos")
            let before = try a.everyStoredWord()
            try fixture.storage().write(CloudLayout.manifestPath, manifest.prefix(manifest.count / 2))
            let error = try #require(throws: SyncError.self) { try a.sync() }
            #expect("\(error)".contains("the next sync will try again"), "\(error)")
            #expect(!"\(error)".contains("not a MiDiccio manifest\")"), "\(error)")
            #expect(try a.everyStoredWord() == before)
            try fixture.storage().write(CloudLayout.manifestPath, manifest)
            #expect(try a.sync().pushed == 1)
        }
    }

    @Test(
        "a manifest damaged for good: the message says to remove it, and once removed the devices sync again and lose nothing",
        arguments: CloudBackend.available)
    func damagedManifestRemoved(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let a = try fixture.device("a")
            let b = try fixture.device("b")
            try a.add("uno")
            try a.sync()
            try b.sync()
            try fixture.storage().write(CloudLayout.manifestPath, Data("{\"damaged".utf8))
            try a.add("dos")
            try b.add("tres")
            let error = try #require(throws: SyncError.self) { try a.sync() }
            #expect("\(error)".contains("remove \(CloudLayout.manifestPath)"), "\(error)")
            try fixture.storage().delete(CloudLayout.manifestPath)
            try a.sync()
            try b.sync()
            try a.sync()
            #expect(Set(try a.library.list().map(\.term)) == ["uno", "dos", "tres"])
            #expect(Set(try b.library.list().map(\.term)) == ["uno", "dos", "tres"])
        }
    }
}
