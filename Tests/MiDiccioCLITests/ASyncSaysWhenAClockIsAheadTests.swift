import Foundation
import Testing

/// A device whose clock was hours ahead won every edit it made over later edits made on
/// the others, and nothing said so. `sync` and `status` now name it and say how far.
@Suite("A sync says when another device's clock is ahead")
final class ASyncSaysWhenAClockIsAheadTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    /// Puts in the cloud the record a device whose clock is `ahead` seconds ahead writes
    /// at its first sync.
    func addFastDevice(cloud: String, ahead: TimeInterval) throws {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let record = """
            {"format": "midiccio-device", "formatVersion": 3, "device": "0c10c4a0-0000-4000-8000-00000000a4ea",
             "name": "fast phone", "app": "midiccio 0.1.0", "lastSync": "\(format.string(from: Date().addingTimeInterval(ahead)))",
             "lastSeq": 0, "snapshotSeq": 0, "read": {}, "digest": "0", "wordCount": 0, "instance": "00000000000000a1",
             "changes": [], "purgeClean": {"count": 0, "digest": "0"}}
            """
        try Data(record.utf8).write(to: URL(fileURLWithPath: cloud + "/devices/0c10c4a0-0000-4000-8000-00000000a4ea.json"))
    }

    @Test("sync warns, names the device and how far; --json and status say the same; the words still sync")
    func warns() throws {
        let cloud = sandbox.path("cloud")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("reloj")
        #expect(sandbox.run("sync").status == 0)
        try addFastDevice(cloud: cloud, ahead: 95 * 60)

        let sync = sandbox.run("sync")
        #expect(sync.status == 0, "\(sync.errorOutput)")
        #expect(sync.errorOutput.contains("warning: fast phone's clock is about 95 minutes ahead of this device's"), "\(sync.errorOutput)")
        let json = sandbox.run("sync", "--json")
        #expect(
            json.output.contains(
                #""clockAhead": {"device": "fast phone", "deviceId": "0c10c4a0-0000-4000-8000-00000000a4ea", "minutes": 95}"#),
            "\(json.output)")
        let status = sandbox.run("status")
        #expect(status.output.contains("Warning      fast phone's clock is about 95 minutes ahead"), "\(status.output)")

        try addFastDevice(cloud: cloud, ahead: 60)
        #expect(!sandbox.run("sync").errorOutput.contains("clock"), "a minute of drift says nothing")
        #expect(sandbox.run("sync", "--json").output.contains(#""clockAhead": null"#))
    }
}
