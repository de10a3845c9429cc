import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a sync killed while it writes into a cloud folder leaves there, and who removes it.
///
/// Every file goes to the folder under a temporary name (`.NAME.RANDOM.tmp`) and is
/// renamed into place; a process killed in between leaves the temporary file behind.
/// A device removes its own leftovers when it recovers the interrupted write or next
/// writes a snapshot (README, "Cloud layout"), so after a few ordinary syncs none may
/// remain: they hold a copy of what was being written, purged content included.
///
/// A device record (`devices/<id>.json`) has no in-flight note; its leftovers, and
/// those of the ids a copy of the library took over, are removed by every sync, which
/// lists `devices/` anyway (they were once left until the next snapshot).
@Suite("Temporary files a killed sync leaves in the cloud")
final class CloudLeftoverTests {
    let sandbox: Sandbox
    let children: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        children = try ChildProcesses(in: sandbox)
    }

    private var cloud: String { sandbox.path("cloud") }

    @Test("a sync killed while it writes its device record leaves no temporary file once the device has synced again")
    func interruptedDeviceRecord() throws {
        let library = sandbox.libraryPath
        try midiccio("remote", "set", "folder", cloud, "--library", library)
        try midiccio("add", "first", "--library", library)
        try midiccio("sync", "--library", library)
        let id = try deviceID(library)

        // Kill each sync the moment its record's temporary file appears; the write is a
        // few milliseconds, so a kill sometimes comes after the rename: then again.
        var leftovers: [String] = []
        for attempt in 0..<20 where leftovers.isEmpty {
            try midiccio("add", "word-\(attempt)", "--library", library)
            let sync = try children.start(["sync", "--library", library])
            while sync.poll() == nil {
                if !recordLeftovers(of: id).isEmpty {
                    sync.killNow()
                    break
                }
                usleep(100)
            }
            _ = children.finish(sync)
            leftovers = recordLeftovers(of: id)
        }
        try #require(!leftovers.isEmpty, "no sync was caught writing its device record in 20 attempts")

        // Ordinary syncs, each with a word to upload (and so a new record to write).
        for round in 0..<3 {
            try midiccio("add", "after-\(round)", "--library", library)
            try midiccio("sync", "--library", library)
        }
        #expect(recordLeftovers(of: id) == [], "still in the cloud after three syncs")
    }

    @Test("once both copies of a library have taken ids of their own, no temporary file of the old id stays in the cloud")
    func abandonedIdentity() throws {
        let laptop = sandbox.path("laptop.sqlite"), copy = sandbox.path("copy.sqlite")
        try midiccio("remote", "set", "folder", cloud, "--library", laptop)
        try midiccio("add", "first", "--library", laptop)
        try midiccio("sync", "--library", laptop)
        let oldID = try deviceID(laptop)
        try FileManager.default.copyItem(atPath: laptop, toPath: copy)
        // What a laptop sync killed during its record write leaves (the name
        // FileSystem.temporaryName gives it); CloudLeftoverTests.interruptedDeviceRecord
        // and the crash test make it with real kills.
        let record = "\(cloud)/devices/\(oldID).json"
        try FileManager.default.copyItem(atPath: record, toPath: "\(cloud)/devices/.\(oldID).json.0123456789abcdef.tmp")

        // Each finds out about the other and goes on under an id of its own; the old
        // id's files are then removed.
        for round in 0..<3 {
            for path in [laptop, copy] {
                try midiccio("add", "word-\(round)", "--library", path)
                try midiccio("sync", "--library", path)
            }
        }
        try #require(try deviceID(laptop) != oldID && deviceID(copy) != oldID, "both copies still use the old id")
        try #require(!sandbox.exists(record), "the old id's record was not removed: the clean-up did not run")
        #expect(recordLeftovers(of: oldID) == [], "still in the cloud after the old id's files were removed")
    }

    // MARK: - Helpers

    /// Runs the real `midiccio` and requires success.
    private func midiccio(_ arguments: String...) throws {
        let run = try children.run(arguments)
        try #require(run.succeeded, "\(run)")
    }

    /// The device id of the library at `path`.
    private func deviceID(_ path: String) throws -> String {
        let run = try children.run(["status", "--json", "--library", path])
        try #require(run.succeeded, "\(run)")
        let status = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        return try #require(status?["deviceId"] as? String)
    }

    /// Temporary files of the record of device `id` in the cloud's devices folder.
    private func recordLeftovers(of id: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(cloud)/devices")) ?? []
        return names.filter { $0.hasPrefix(".\(id).json.") && $0.hasSuffix(".tmp") }.sorted()
    }
}
