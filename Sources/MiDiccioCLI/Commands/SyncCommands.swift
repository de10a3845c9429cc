import Foundation
import MiDiccioKit

/// `midiccio remote set`
struct RemoteSetCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["remote", "set"], abstract: "Sync this library through a folder your cloud keeps in sync.",
        discussion: """
            KIND is 'folder': any folder that Dropbox, Google Drive for desktop, iCloud Drive, OneDrive,
            Nextcloud's client or Syncthing syncs, or a shared drive. MiDiccio keeps its files in LOCATION.
            """,
        arguments: [ArgumentSpec(name: "kind", help: "folder"), ArgumentSpec(name: "location", help: "The folder's path.")],
        options: [OptionSpec(name: "device-name", valueName: "name", help: "How other devices see this one (default: the host name).")],
        examples: ["midiccio remote set folder ~/Dropbox/MiDiccio --device-name \"Ana's laptop\""])

    let remote: RemoteConfig
    let deviceName: String?

    init(_ arguments: ParsedArguments) throws {
        let kind = arguments.positionals[0]
        guard kind == "folder" else {
            throw UsageError(message: "unknown remote kind '\(kind)'; use: folder", spec: Self.spec)
        }
        let path = arguments.positionals[1]
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        remote = .folder(path: URL(fileURLWithPath: absolute).standardizedFileURL.path)
        deviceName = arguments.value("device-name")
    }

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        if let deviceName { try library.setDeviceName(deviceName) }
        try library.setRemote(remote)
        context.io.write("Remote set to \(remote.displayName). Run 'midiccio sync' to sync now.\n")
    }
}

/// `midiccio remote show`
struct RemoteShowCommand: ToolCommand {
    static let spec = CommandSpec(path: ["remote", "show"], abstract: "Show where this library syncs to.",
                                  options: [OptionSpec(name: "json", help: "Print as JSON.")])
    init(_ arguments: ParsedArguments) throws {}

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        let remote = try library.remote()
        if context.json {
            context.io.write("{\"remote\": \(remote.map { JSONText.quote($0.displayName) } ?? "null"), \"device\": \(JSONText.quote(try library.deviceName()))}\n")
        } else if let remote {
            context.io.write("\(remote.displayName) (this device: \(try library.deviceName()))\n")
        } else {
            context.note("No remote set. Set one with: midiccio remote set folder PATH")
        }
    }
}

/// `midiccio remote remove`
struct RemoteRemoveCommand: ToolCommand {
    static let spec = CommandSpec(path: ["remote", "remove"], abstract: "Stop syncing this library (its words stay here).")
    init(_ arguments: ParsedArguments) throws {}

    func run(_ context: ToolContext) throws {
        try context.library().setRemote(nil)
        context.io.write("This library no longer syncs. Its words are still here.\n")
    }
}

/// `midiccio sync`
struct SyncCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["sync"], abstract: "Sync with the remote now: pull other devices' changes, then upload yours.",
        options: [
            OptionSpec(name: "allow-mass-delete", help: "Accept a sync that moves more than half of the library to the Trash."),
            OptionSpec(name: "json", help: "Print what the sync did as JSON."),
        ])

    let allowMassDelete: Bool
    init(_ arguments: ParsedArguments) throws { allowMassDelete = arguments.flag("allow-mass-delete") }

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        guard let remote = try library.remote() else { throw SyncError.noRemote }
        let report = try SyncEngine(library: library, storage: remote.makeStorage(), appVersion: "midiccio \(Tool.version)")
            .sync(allowMassDelete: allowMassDelete)
        for skipped in report.skippedFiles {
            context.note("warning: skipped \(skipped.path): \(skipped.reason)")
        }
        if context.json {
            let skipped = report.skippedFiles.map { "{\"path\": \(JSONText.quote($0.path)), \"reason\": \(JSONText.quote($0.reason))}" }
            context.io.write("""
                {"pulled": \(report.pulled), "pushed": \(report.pushed), "merged": \(report.merged), \
                "skippedFiles": [\(skipped.joined(separator: ", "))], "fullUpload": \(report.fullUpload), \
                "snapshotWritten": \(report.snapshotWritten), "filesWritten": \(report.filesWritten), \
                "bytesWritten": \(report.bytesWritten), "filesRemoved": \(report.filesRemoved), \
                "purgedElsewhere": \(report.purgedElsewhere), "fullResync": \(report.fullResync)}

                """)
        } else {
            var line = "Synced with \(remote.displayName): \(report.pulled) pulled, \(report.pushed) pushed, \(report.merged) merged"
            if report.fullUpload { line += " (uploaded every word once)" }
            context.io.write(line + "\n")
            if report.purgedElsewhere > 0 {
                context.note("\(report.purgedElsewhere) word\(report.purgedElsewhere == 1 ? " was" : "s were") purged on another device and removed here; edits made here to them were discarded")
            }
            if report.fullResync { context.note("This device had not synced for a long time, so it read everything again before uploading.") }
        }
    }
}

/// `midiccio status`
struct StatusCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["status"], abstract: "Show this device, the remote, the last sync, pending changes and every device.",
        options: [OptionSpec(name: "json", help: "Print as JSON.")])
    init(_ arguments: ParsedArguments) throws {}

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        let counts = try library.counts()
        guard let remote = try library.remote() else {
            let pending = try SyncEngine(library: library, storage: MissingStorage()).status().pending
            if context.json {
                context.io.write("{\"device\": \(JSONText.quote(try library.deviceName())), \"remote\": null, \"words\": \(counts.words), \"trash\": \(counts.trash), \"pending\": \(pending)}\n")
            } else {
                context.io.write("This device  \(try library.deviceName())\nRemote       none (set one with: midiccio remote set folder PATH)\nWords        \(counts.words) (\(counts.trash) in the Trash)\n")
            }
            return
        }
        let status = try SyncEngine(library: library, storage: remote.makeStorage(), appVersion: "midiccio \(Tool.version)").status()
        if context.json {
            let devices = status.devices.map { device in
                "{\"id\": \(JSONText.quote(device.id)), \"name\": \(JSONText.quote(device.name)), \"app\": \(JSONText.quote(device.app)), "
                    + "\"lastSync\": \(device.lastSync.map { JSONText.quote($0.iso8601) } ?? "null"), \"agrees\": \(device.agrees), \"thisDevice\": \(device.isThisDevice)}"
            }
            context.io.write("""
                {"device": \(JSONText.quote(status.deviceName)), "deviceId": \(JSONText.quote(status.deviceID)), \
                "remote": \(JSONText.quote(status.remote ?? "")), "lastSync": \(status.lastSync.map { JSONText.quote($0.iso8601) } ?? "null"), \
                "words": \(counts.words), "trash": \(counts.trash), "pending": \(status.pending), "fullUploadPending": \(status.fullUploadPending), \
                "cloudProblem": \(status.cloudProblem.map(JSONText.quote) ?? "null"), "purgedElsewhere": \(status.purgedElsewhere), \
                "purgedContentMayRemain": [\(status.purgedContentRemains.map(JSONText.quote).joined(separator: ", "))], \
                "devices": [\(devices.joined(separator: ", "))]}

                """)
            return
        }
        var text = "This device  \(status.deviceName) (\(status.deviceID.prefix(8)))\n"
        text += "Remote       \(remote.displayName)\n"
        text += "Last sync    \(status.lastSync?.iso8601 ?? "never")\n"
        text += "Words        \(counts.words) (\(counts.trash) in the Trash)\n"
        text += "Pending      \(status.pending) word\(status.pending == 1 ? "" : "s") to upload" + (status.fullUploadPending ? " (the next sync uploads every word once)" : "") + "\n"
        if let problem = status.cloudProblem { text += "Cloud        cannot be read: \(problem)\n" }
        if status.purgedElsewhere > 0 {
            let count = status.purgedElsewhere
            text += "Purged       \(count) word\(count == 1 ? " was" : "s were") purged on other devices and removed here\n"
        }
        if status.purgedContentRemains.isEmpty {
            if status.purgeMarkers > 0 { text += "Cloud        no content of purged words remains in the cloud\n" }
        } else {
            text += "Cloud        content of purged words may remain in the cloud: " + status.purgedContentRemains.joined(separator: "; ") + "\n"
        }
        text += "Devices\n"
        let width = status.devices.map { $0.name.count }.max() ?? 0
        for device in status.devices {
            let agreement = device.isThisDevice ? "this device"
                : device.inactive ? "silent for over 180 days: it will read everything again when it returns"
                : (device.agrees ? "in agreement" : "differs (sync both to agree)")
            text += "  \(device.name.padded(to: width))  last sync \(device.lastSync?.iso8601 ?? "never")  \(agreement)\n"
        }
        context.io.write(text)
    }
}

/// Storage for a library with no remote: status reads only local state through it.
private final class MissingStorage: CloudStorage {
    var displayName: String { "none" }
    func list(_ folder: String) throws -> [CloudEntry] { throw SyncError.noRemote }
    func read(_ path: String) throws -> Data? { throw SyncError.noRemote }
    func write(_ path: String, _ data: Data) throws { throw SyncError.noRemote }
    func delete(_ path: String) throws -> Bool { throw SyncError.noRemote }
}
