import Foundation
import Testing

@Suite("Where the library lives")
final class LibraryLocationTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private func terms(at path: String) throws -> [String] {
        let result = sandbox.run(["list", "--json", "--library", path])
        try #require(result.status == 0, "\(result.errorOutput)")
        return try result.jsonArray().compactMap { $0["term"] as? String }
    }

    @Test("without --library or MIDICCIO_LIBRARY the library is created at $XDG_DATA_HOME/midiccio/library.sqlite")
    func xdgDataHome() throws {
        let environment = ["XDG_DATA_HOME": sandbox.path("xdg"), "HOME": sandbox.path("home")]
        let result = sandbox.run(["add", "palabra"], environment: environment)
        #expect(result.status == 0, "\(result.errorOutput)")
        let expected = sandbox.path("xdg/midiccio/library.sqlite")
        #expect(sandbox.exists(expected))
        #expect(!sandbox.exists(sandbox.path("home")))
        #expect(try terms(at: expected) == ["palabra"])
    }

    @Test(
        "with XDG_DATA_HOME unset or empty the library is created at $HOME/.local/share/midiccio/library.sqlite",
        arguments: [nil, ""] as [String?])
    func homeFallback(xdgDataHome: String?) throws {
        var environment = ["HOME": sandbox.path("home")]
        environment["XDG_DATA_HOME"] = xdgDataHome
        let result = sandbox.run(["add", "palabra"], environment: environment)
        #expect(result.status == 0, "\(result.errorOutput)")
        let expected = sandbox.path("home/.local/share/midiccio/library.sqlite")
        #expect(sandbox.exists(expected))
        #expect(try terms(at: expected) == ["palabra"])
    }

    @Test("the default library is the same one on the next run")
    func defaultLibraryPersists() throws {
        let environment = ["XDG_DATA_HOME": sandbox.path("xdg"), "HOME": sandbox.path("home")]
        sandbox.run(["add", "uno"], environment: environment)
        sandbox.run(["add", "dos"], environment: environment)
        let list = sandbox.run(["list", "--json", "--sort", "term"], environment: environment)
        #expect(try list.jsonArray().compactMap { $0["term"] as? String } == ["dos", "uno"])
    }

    @Test("MIDICCIO_LIBRARY wins over XDG_DATA_HOME")
    func environmentVariable() throws {
        let environment = [
            "MIDICCIO_LIBRARY": sandbox.path("mine.sqlite"), "XDG_DATA_HOME": sandbox.path("xdg"),
            "HOME": sandbox.path("home"),
        ]
        #expect(sandbox.run(["add", "palabra"], environment: environment).status == 0)
        #expect(sandbox.exists(sandbox.path("mine.sqlite")))
        #expect(!sandbox.exists(sandbox.path("xdg")))
    }

    @Test("--library wins over MIDICCIO_LIBRARY")
    func optionWinsOverEnvironment() throws {
        let result = sandbox.run(["add", "palabra", "--library", sandbox.path("option.sqlite")])
        #expect(result.status == 0)
        #expect(sandbox.exists(sandbox.path("option.sqlite")))
        #expect(!sandbox.exists(sandbox.libraryPath))
        #expect(try terms(at: sandbox.path("option.sqlite")) == ["palabra"])
    }

    @Test(
        "--library may come before the command, as a global option",
        arguments: [
            ["--library", "before.sqlite", "add", "palabra"], ["--library=before.sqlite", "add", "palabra"],
        ])
    func globalOptionBeforeCommand(arguments: [String]) throws {
        let arguments = arguments.map { $0.replacingOccurrences(of: "before.sqlite", with: sandbox.path("before.sqlite")) }
        let result = sandbox.run(arguments)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(sandbox.exists(sandbox.path("before.sqlite")))
    }

    @Test("a library in a folder that does not exist yet is created with its folders")
    func createsFolders() throws {
        let path = sandbox.path("a/b/c/words.sqlite")
        #expect(sandbox.run("add", "palabra", "--library", path).status == 0)
        #expect(try terms(at: path) == ["palabra"])
    }

    @Test("a command that only reads still creates an empty library on first use")
    func createdOnFirstUse() {
        let result = sandbox.run("list")
        #expect(result.status == 0)
        #expect(result.output.isEmpty)
        #expect(result.errorOutput.hasPrefix("No words yet."))
        #expect(sandbox.exists(sandbox.libraryPath))
    }

    @Test("a closed library holds every word in its one file: the log beside it is kept but empty, so the file alone can be copied")
    func closedLibraryIsWhole() throws {
        let path = sandbox.path("words/library.sqlite")
        for term in ["uno", "dos", "tres"] {
            try #require(sandbox.run(["add", term, "--library", path]).status == 0)
        }
        // SQLite's write-ahead log and its index stay between runs (opening is quicker
        // when they need not be created and deleted each time), emptied on close.
        #expect(sandbox.contents(of: path + "-wal") == Data())
        #expect(sandbox.exists(path + "-shm"))
        let copy = sandbox.path("copy/library.sqlite")
        try FileManager.default.createDirectory(atPath: sandbox.path("copy"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        #expect(try terms(at: copy).sorted() == ["dos", "tres", "uno"])
        #expect(try terms(at: path).sorted() == ["dos", "tres", "uno"])
    }

    /// The bytes of a real SQLite database that belongs to another application: a
    /// MiDiccio library whose header says another application id and the rollback journal.
    private func anotherApplicationsDatabase() throws -> Data {
        let donor = sandbox.path("donor/library.sqlite")
        try #require(sandbox.run(["add", "palabra", "--library", donor]).status == 0)
        var bytes = [UInt8](try #require(sandbox.contents(of: donor)))
        let log = sandbox.contents(of: donor + "-wal") ?? Data()
        try #require(bytes.count >= 100 && log.isEmpty, "the library was not checkpointed on close")
        bytes[18] = 1
        bytes[19] = 1
        bytes.replaceSubrange(68..<72, with: Array("Othr".utf8))
        try FileManager.default.removeItem(atPath: sandbox.path("donor"))
        return Data(bytes)
    }

    @Test(
        "a file that is not a library is refused with exit 1, a message saying so, and left as it was",
        arguments: ["a text file", "another application's SQLite database"])
    func notALibrary(kind: String) throws {
        let content = kind == "a text file" ? Data("term,meaning\nuno,one\n".utf8) : try anotherApplicationsDatabase()
        let reason = kind == "a text file" ? "it is not an SQLite database" : "it is another application's SQLite database"
        let path = sandbox.path("notes.txt")
        try content.write(to: URL(fileURLWithPath: path))

        for arguments in [["add", "palabra"], ["list"], ["import", path], ["backup", "restore", path]] {
            let result = sandbox.run(arguments + ["--library", path])
            #expect(result.status == 1, "\(arguments)")
            #expect(result.output.isEmpty)
            #expect(result.errorOutput.contains("is not a MiDiccio library"), "\(result.errorOutput)")
            #expect(result.errorOutput.contains(reason), "\(result.errorOutput)")
        }
        #expect(sandbox.contents(of: path) == content)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory)
        #expect(leftovers == ["notes.txt"], "files created beside it: \(leftovers)")
    }

    @Test("a damaged file that starts like an SQLite database is refused with exit 1 and left as it was")
    func damagedDatabase() throws {
        let content = Data("SQLite format 3\0".utf8) + Data(repeating: 0xA5, count: 4080)
        let path = sandbox.path("damaged.sqlite")
        try content.write(to: URL(fileURLWithPath: path))
        let result = sandbox.run("list", "--library", path)
        #expect(result.status == 1)
        #expect(result.errorOutput.hasPrefix("Error: "))
        #expect(result.errorOutput.contains(path))
        #expect(sandbox.contents(of: path) == content)
    }
}
