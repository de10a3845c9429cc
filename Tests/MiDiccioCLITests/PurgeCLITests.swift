import Foundation
import MiDiccioCLI
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync

/// `midiccio purge`, `trash empty`, `trash --all` and `config`, and the issue's end-to-end
/// scenario: a purge on one device while another, offline, edits the same word.
@Suite("Deleting permanently from the command line")
final class PurgeCLITests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    /// Runs `midiccio` with `input` on standard input, which may pretend to be a terminal.
    private func run(
        _ arguments: [String], input: String = "", inputIsTerminal: Bool = false,
        library: String? = nil
    ) -> ToolRun {
        let io = CapturedIO(input: input)
        io.inputIsTerminal = inputIsTerminal
        var environment = sandbox.environment
        if let library { environment["MIDICCIO_LIBRARY"] = library }
        // Commands that show words would sync first; these tests sync only when they say so.
        environment["MIDICCIO_OFFLINE"] = "1"
        let status = Tool.run(arguments, environment: environment, io: io)
        return ToolRun(status: status, output: io.output, errorOutput: io.errorOutput)
    }

    private func trashIDs(_ options: String...) throws -> [String] {
        let result = run(["trash", "--json"] + options)
        try #require(result.status == 0, "trash: \(result.errorOutput)")
        return try result.jsonArray().compactMap { $0["id"] as? String }
    }

    /// Adds words and moves them to the Trash; returns their ids.
    private func trashed(_ terms: String...) throws -> [String] {
        try terms.map { term in
            let id = try sandbox.add(term)
            try #require(run(["delete", id]).status == 0)
            return id
        }
    }

    // MARK: - purge

    @Test("purge ID deletes a word in the Trash permanently")
    func purgeOneWord() throws {
        let kept = try sandbox.add("gato")
        let ids = try trashed("murciélago", "golondrina")
        let result = run(["purge", String(ids[0].prefix(8))])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == "Purged \"murciélago\" (\(ids[0])) permanently\n")
        #expect(try trashIDs() == [ids[1]])
        #expect(run(["show", ids[0]]).status == 1, "the word is gone")
        #expect(try sandbox.listedWords().compactMap { $0["id"] as? String } == [kept])
    }

    @Test("purge --json prints the purged ids")
    func purgeJSON() throws {
        let ids = try trashed("murciélago", "golondrina")
        let result = run(["purge", ids[0], ids[1], "--json"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try result.parsedJSON() as? [String] == ids)
        #expect(try trashIDs().isEmpty)
    }

    @Test("purging a word that is not in the Trash fails, says to delete it first, and purges nothing")
    func purgeLiveWordFails() throws {
        let live = try sandbox.add("ventana")
        let inTrash = try trashed("puerta")
        let result = run(["purge", inTrash[0], live])
        #expect(result.status == 1)
        #expect(result.errorOutput.hasPrefix("Error: "), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("delete it first"), "\(result.errorOutput)")
        #expect(result.output.isEmpty)
        #expect(try trashIDs() == inTrash, "all or nothing")
        #expect(try sandbox.listedWords().compactMap { $0["id"] as? String } == [live])
    }

    @Test("purge without an id is a usage error")
    func purgeNeedsAnID() {
        #expect(run(["purge"]).status == 64)
    }

    // MARK: - trash empty

    @Test("trash empty --yes purges every word in the Trash and nothing else")
    func trashEmptyYes() throws {
        let kept = try sandbox.add("gato")
        _ = try trashed("murciélago", "golondrina")
        let result = run(["trash", "empty", "--yes"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == "Purged 2 words permanently\n")
        #expect(try trashIDs("--all").isEmpty)
        #expect(try sandbox.listedWords().compactMap { $0["id"] as? String } == [kept])

        let again = run(["trash", "empty", "--yes"])
        #expect(again.status == 0)
        #expect(again.errorOutput.contains("The Trash is empty"))
    }

    @Test("trash empty without --yes, when standard input is not a terminal, fails and purges nothing")
    func trashEmptyNeedsYesInScripts() throws {
        let ids = try trashed("murciélago", "golondrina")
        let result = run(["trash", "empty"], input: "y\n")
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("--yes"), "\(result.errorOutput)")
        #expect(Set(try trashIDs()) == Set(ids))
    }

    @Test(
        "trash empty on a terminal asks first, and purges only on yes",
        arguments: [
            ("n\n", false), ("\n", false), ("", false), ("no\n", false), ("y\n", true), ("yes\n", true), ("Y\n", true),
        ])
    func trashEmptyAsks(answer: String, purges: Bool) throws {
        let ids = try trashed("murciélago", "golondrina")
        let result = run(["trash", "empty"], input: answer, inputIsTerminal: true)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("[y/N]"), "it asks: \(result.errorOutput)")
        #expect(result.errorOutput.contains("2 words"), "\(result.errorOutput)")
        if purges {
            #expect(result.output == "Purged 2 words permanently\n")
            #expect(try trashIDs().isEmpty)
        } else {
            #expect(result.output.isEmpty)
            #expect(result.errorOutput.contains("Nothing was purged"))
            #expect(Set(try trashIDs()) == Set(ids))
        }
    }

    // MARK: - config

    /// The study settings' defaults, which `config list` shows after the Trash's.
    static let studyDefaults = ["study.desiredRetention": "0.9", "study.newPerDay": "20", "study.reviewsPerDay": "200"]

    @Test("config list shows both Trash settings, off by default, and the study settings, also as JSON")
    func configList() throws {
        let result = run(["config", "list"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("trash.autoPurgeDays     off"), "\(lines)")
        #expect(lines[1].hasPrefix("trash.hideAfterDays     off"), "\(lines)")
        #expect(lines[2].hasPrefix("study.desiredRetention  0.9"), "\(lines)")
        let json = run(["config", "list", "--json"])
        #expect(json.status == 0)
        #expect(
            try json.jsonObject() as? [String: String]
                == ["trash.autoPurgeDays": "off", "trash.hideAfterDays": "off"].merging(Self.studyDefaults) { $1 })
    }

    @Test("config set stores a value that config get and config list then show")
    func configSetGet() throws {
        let set = run(["config", "set", "trash.hideAfterDays", "30"])
        #expect(set.status == 0, "\(set.errorOutput)")
        #expect(set.output == "trash.hideAfterDays = 30\n")
        #expect(run(["config", "get", "trash.hideAfterDays"]).output == "30\n")
        #expect(run(["config", "get", "trash.autoPurgeDays"]).output == "off\n")
        #expect(
            try run(["config", "list", "--json"]).jsonObject() as? [String: String]
                == ["trash.autoPurgeDays": "off", "trash.hideAfterDays": "30"].merging(Self.studyDefaults) { $1 })
        #expect(run(["config", "set", "trash.hideAfterDays", "OFF"]).output == "trash.hideAfterDays = off\n")
    }

    @Test(
        "config with an unknown key is a usage error (64)",
        arguments: [
            ["config", "get", "trash.purgeDays"], ["config", "set", "colour", "red"], ["config", "set", "trash.autoPurgeDays"],
            ["config", "get"],
        ])
    func configBadKey(arguments: [String]) throws {
        let result = run(arguments)
        #expect(result.status == 64, "\(result.errorOutput)")
        #expect(result.errorOutput.hasPrefix("Error: "))
        #expect(run(["config", "get", "trash.autoPurgeDays"]).output == "off\n")
    }

    @Test("config set with a bad value fails (1) with a clear error and changes nothing", arguments: ["0", "-1", "soon", "1.5", "36501"])
    func configBadValue(value: String) throws {
        #expect(run(["config", "set", "trash.autoPurgeDays", "30"]).status == 0)
        let result = run(["config", "set", "trash.autoPurgeDays", value])
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("must be off or a whole number of days"), "\(result.errorOutput)")
        #expect(run(["config", "get", "trash.autoPurgeDays"]).output == "30\n")
    }

    // MARK: - trash --all

    @Test("trash hides entries older than trash.hideAfterDays and says so; trash --all shows them; they can still be restored")
    func trashAllShowsHidden() throws {
        // A word moved to the Trash 40 days ago, through a library whose clock says so.
        let now = SystemClock().now().milliseconds
        let old: String = try {
            let clock = ManualClock(start: Timestamp(milliseconds: now - 40 * 86_400_000))
            let library = try WordLibrary(path: sandbox.libraryPath, clock: clock, environment: [:])
            let word = try library.add(WordContent(term: "antigua")).word
            try library.delete([word.id])
            return word.id.rawValue
        }()
        let recent = try trashed("reciente")[0]
        #expect(run(["config", "set", "trash.hideAfterDays", "30"]).status == 0)

        #expect(try trashIDs() == [recent])
        let listed = run(["trash"])
        #expect(listed.status == 0)
        #expect(listed.output.contains("reciente"))
        #expect(!listed.output.contains("antigua"))
        #expect(listed.errorOutput.contains("1 older word hidden"), "\(listed.errorOutput)")
        #expect(listed.errorOutput.contains("trash --all"), "\(listed.errorOutput)")

        #expect(try trashIDs("--all") == [recent, old])
        let all = run(["trash", "--all"])
        #expect(all.output.contains("antigua"))
        #expect(!all.errorOutput.contains("hidden"))

        #expect(run(["restore", old]).status == 0)
        #expect(try sandbox.listedWords().compactMap { $0["id"] as? String } == [old])
    }

    @Test("with trash.autoPurgeDays set and no remote, a word in the Trash longer than that is purged when the Trash is shown")
    func autoPurgeWithoutRemote() throws {
        let now = SystemClock().now().milliseconds
        let (old, recent): (String, String) = try {
            let clock = ManualClock(start: Timestamp(milliseconds: now - 31 * 86_400_000))
            let library = try WordLibrary(path: sandbox.libraryPath, clock: clock, environment: [:])
            let old = try library.add(WordContent(term: "antigua")).word
            let recent = try library.add(WordContent(term: "reciente")).word
            try library.delete([old.id])
            clock.advance(by: 2 * 86_400_000)
            try library.delete([recent.id])
            return (old.id.rawValue, recent.id.rawValue)
        }()
        #expect(run(["config", "set", "trash.autoPurgeDays", "30"]).status == 0)
        let shown = run(["trash"])
        #expect(shown.status == 0)
        #expect(!shown.output.contains("antigua"), "a word 31 days in the Trash is still listed:\n\(shown.output)")
        #expect(try trashIDs("--all") == [recent])
        #expect(run(["show", old]).status == 1)
    }

    // MARK: - End to end

    /// Every file under `folder`, by path relative to it.
    private func cloudFiles(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return files }
        while let relative = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            let path = folder + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return files
    }

    /// What of the word the cloud folder still holds: any secret in a file's bytes or in
    /// a change file's or snapshot's decompressed payload, or a record with its id.
    private func cloudFindings(_ folder: String, id: String, secrets: [String]) throws -> [String] {
        var findings: [String] = []
        for (path, data) in try cloudFiles(folder).sorted(by: { $0.key < $1.key }) {
            for secret in secrets where data.range(of: Data(secret.utf8)) != nil {
                findings.append("\(path) holds \(secret)")
            }
            guard path.hasSuffix(".chg") || path.hasSuffix(".snap") else { continue }
            // "MDZ1", the payload's length as 8 little-endian bytes, then a zlib stream.
            #expect(data.prefix(4) == Data("MDZ1".utf8), "\(path)")
            let payload = Data(try BatchCodec.decompress(data))
            for secret in secrets where payload.range(of: Data(secret.utf8)) != nil {
                findings.append("\(path) holds \(secret) once decompressed")
            }
            if try BatchCodec.decode(data).records.contains(where: { $0.word.id.rawValue == id }) {
                findings.append("\(path) holds a record of the word")
            }
        }
        return findings
    }

    private func secret(_ label: String) -> String {
        "zq\(label)" + UUID().uuidString.lowercased().filter(\.isLetter)
    }

    @Test(
        "a purge on one device while another device, offline, edits the same word: after both sync the word is gone from both, and from the cloud after compaction",
        arguments: [false, true])
    func purgeWhileOtherDeviceEditsOffline(editorSyncsFirst: Bool) throws {
        let cloud = sandbox.path("cloud")
        let laptop = sandbox.path("laptop.sqlite"), phone = sandbox.path("phone.sqlite")
        let secrets = [secret("notes"), secret("example"), secret("edit")]
        func on(_ library: String, _ arguments: String...) throws -> ToolRun {
            let result = run(arguments, library: library)
            try #require(result.status == 0, "\(arguments.joined(separator: " ")): \(result.errorOutput)")
            return result
        }
        func sync(_ library: String) throws -> [String: Any] {
            try on(library, "sync", "--json").jsonObject()
        }

        let added = try on(
            laptop, "add", "murciélago", "--meaning", "bat", "--notes", "nota \(secrets[0])",
            "--example", "un ejemplo \(secrets[1])", "--tag", "animales", "--json")
        let id = try #require(try added.jsonObject()["id"] as? String)
        _ = try on(laptop, "add", "gato", "--meaning", "cat")
        _ = try on(laptop, "remote", "set", "folder", cloud, "--device-name", "laptop")
        _ = try sync(laptop)
        _ = try on(phone, "remote", "set", "folder", cloud, "--device-name", "phone")
        _ = try sync(phone)
        #expect(try on(phone, "show", id, "--json").jsonObject()["notes"] as? String == "nota \(secrets[0])")
        #expect(try !cloudFindings(cloud, id: id, secrets: secrets).isEmpty, "the setup put the word in the cloud")

        // The laptop purges while the phone, offline, edits the same word.
        _ = try on(laptop, "delete", id)
        _ = try on(laptop, "purge", id)
        _ = try on(phone, "edit", id, "--meaning", "bat, edited offline \(secrets[2])")
        var purgedOnPhone = 0
        if editorSyncsFirst {
            purgedOnPhone += try sync(phone)["purgedElsewhere"] as? Int ?? -1
            #expect(
                try cloudFindings(cloud, id: id, secrets: [secrets[2]]).contains { $0.contains("once decompressed") },
                "the phone uploaded its edit before it saw the purge")
        }
        for _ in 0..<3 {
            _ = try sync(laptop)
            purgedOnPhone += try sync(phone)["purgedElsewhere"] as? Int ?? -1
        }

        for library in [laptop, phone] {
            let show = run(["show", id], library: library)
            #expect(show.status == 1, "\(library) still shows the word")
            let listed = try on(library, "list", "--json").jsonArray().compactMap { $0["term"] as? String }
            #expect(listed == ["gato"], "\(library)")
            #expect(try on(library, "trash", "--all", "--json").jsonArray().isEmpty, "\(library)")
            #expect(try on(library, "search", "murciélago", "--json").output == "[]\n")
            let status = try on(library, "status", "--json").jsonObject()
            #expect(status["pending"] as? Int == 0, "\(library)")
            #expect(status["purgedContentMayRemain"] as? [String] == [], "\(library): \(status)")
            for file in [library, library + "-wal"] {
                let bytes = FileManager.default.contents(atPath: file) ?? Data()
                for secret in secrets { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds \(secret)") }
            }
        }
        #expect(purgedOnPhone == 1, "the phone's syncs report the purge once")
        #expect(try on(phone, "status", "--json").jsonObject()["purgedElsewhere"] as? Int == 1)
        #expect(try on(phone, "status").output.contains("purged on other devices"))

        let files = try cloudFiles(cloud)
        #expect(files.keys.contains { $0.hasSuffix(".snap") }, "the cloud holds snapshots: \(files.keys.sorted())")
        #expect(try cloudFindings(cloud, id: id, secrets: secrets) == [])
    }

    @Test(
        "sync names the words another device purged, and says edits were discarded only of those edited here and not synced yet, as a command that syncs first does"
    )
    func purgeNoteNamesOnlyEditedWords() throws {
        let cloud = sandbox.path("cloud")
        let laptop = sandbox.path("laptop.sqlite"), phone = sandbox.path("phone.sqlite")
        func on(_ library: String, _ arguments: String...) throws -> ToolRun {
            let result = run(arguments, library: library)
            try #require(result.status == 0, "\(arguments.joined(separator: " ")): \(result.errorOutput)")
            return result
        }
        let ids = try ["uno", "dos", "tres", "cuatro"].map { term in
            try #require(try on(laptop, "add", term, "--json").jsonObject()["id"] as? String)
        }
        _ = try on(laptop, "remote", "set", "folder", cloud)
        _ = try on(laptop, "sync")
        _ = try on(phone, "remote", "set", "folder", cloud)
        _ = try on(phone, "sync")

        // Three purged on the laptop while the phone, offline, edits one of them.
        for id in ids.prefix(3) {
            _ = try on(laptop, "delete", id)
            _ = try on(laptop, "purge", id)
        }
        _ = try on(laptop, "sync")
        _ = try on(phone, "edit", ids[1], "--meaning", "two")
        let first = try on(phone, "sync")
        #expect(
            first.errorOutput.contains(
                "3 words were purged on another device and removed here: \u{201C}uno\u{201D}, \u{201C}dos\u{201D}, \u{201C}tres\u{201D}; 1 of them (\u{201C}dos\u{201D}) had edits (or study answers) made here and not synced yet, which were discarded"
            ),
            "\(first.errorOutput)")

        // One more, which the phone never touched: nothing is said of edits.
        _ = try on(laptop, "delete", ids[3])
        _ = try on(laptop, "purge", ids[3])
        _ = try on(laptop, "sync")
        let second = try on(phone, "sync", "--json").jsonObject()
        #expect(second["purgedElsewhere"] as? Int == 1 && second["purgedEditedHere"] as? Int == 0)
        #expect(second["purgedTerms"] as? [String] == ["cuatro"] && second["purgedEditedTerms"] as? [String] == [])

        // A command that syncs first (here `list`) says the same as `sync`: the phone adds a
        // word and edits it, the laptop purges it, and the phone's next `list` pulls that.
        let seis = try #require(try on(phone, "add", "seis", "--json").jsonObject()["id"] as? String)
        _ = try on(phone, "sync")
        _ = try on(laptop, "sync")
        _ = try on(laptop, "delete", seis)
        _ = try on(laptop, "purge", seis)
        _ = try on(laptop, "sync")
        _ = try on(phone, "edit", seis, "--meaning", "six")
        var environment = sandbox.environment
        environment["MIDICCIO_LIBRARY"] = phone
        let io = CapturedIO(input: "")
        #expect(Tool.run(["list"], environment: environment, io: io) == 0)
        #expect(
            io.errorOutput.contains(
                "1 word was purged on another device and removed here: \u{201C}seis\u{201D}; it had edits (or study answers) made here and not synced yet, which were discarded"
            ), "\(io.errorOutput)")
        #expect(!io.output.contains("seis"))
    }
}
