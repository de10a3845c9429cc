import Foundation
import MiDiccioKit
import MiDiccioStore
import MiDiccioTesting
import Testing

@testable import MiDiccioCLICore
@testable import MiDiccioLibrary

/// A command run after another file was moved into the library's place, while another
/// program (here the test process, as the web app would) still has the file that was
/// there open. SQLite finds the log and its index by the path, and that program's log
/// held the old file's pages and its page count: the command read the file moved in
/// through them, and what it and the last connection to close wrote damaged it for good
/// (found by the exploratory helper, round 21B #3: `serve`, `midiccio add` and a copy
/// moved into place left a library no command could open).
@Suite("A command waits for the program holding a replaced library file, then uses the file moved in")
final class ACommandWaitsForTheProgramHoldingAReplacedFileTests {
    let sandbox: Sandbox
    let children: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        children = try ChildProcesses(in: sandbox)
    }

    /// Where the web app's last change is when the other file is moved in.
    enum AppsLastChange: String, CustomStringConvertible, CaseIterable {
        /// Still in the log beside the path: the command waits for the app to let go.
        case inTheLog = "the app's last change still in the log"
        /// Copied into the file by the app's checkpoint: the command need not wait, but the
        /// log's index still describes the old file while the app has it open.
        case copiedIntoItsFile = "the app's last change copied into its file"
        var description: String { rawValue }
    }

    /// Which of the two files holds a word with a long note, and is the larger.
    enum Larger: String, CustomStringConvertible, CaseIterable {
        /// The file the app has open: the file moved in reads without a fault through its log.
        case theAppsFile = "the app's file larger"
        /// The file moved in: reading it through the app's log meets pages past its end.
        case theFileMovedIn = "the file moved in larger"
        var description: String { rawValue }
    }

    @Test(
        "a command started after the move waits until the old file is let go, and both files stay whole",
        arguments: AppsLastChange.allCases, Larger.allCases)
    func commandWaitsThenWritesIntoTheFileMovedIn(_ last: AppsLastChange, _ larger: Larger) throws {
        let path = sandbox.libraryPath
        let note = String(repeating: "una nota larga ", count: 1_300)
        try sandbox.add("base")
        // Another computer's version of the library: a copy of this one, and a word more.
        let other = sandbox.path("other.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: other)
        let notes = larger == .theFileMovedIn ? ["--notes", note] : []
        #expect(sandbox.run(["--library", other, "add", "deOtro"] + notes).status == 0)

        // The web app, in another process: it has the library open and has just saved a
        // word.
        var app: WordLibrary? = try WordLibrary(path: path, create: false, environment: [:])
        _ = try app?.add(WordContent(term: "reciente", meaning: "saved by the app", notes: larger == .theAppsFile ? note : ""))
        if last == .copiedIntoItsFile { try app?.moveLogIntoFile() }

        // A sync program resolves a conflict: the file here is renamed aside, and the
        // other computer's version moved into its place.
        let aside = sandbox.path("library.sync-conflict-20261206-101010-ABCDEFG.sqlite")
        #expect(rename(path, aside) == 0)
        #expect(rename(other, path) == 0)

        let command = try children.start(["add", "después"])
        Thread.sleep(forTimeInterval: 1.0)
        if last == .inTheLog {
            #expect(command.poll() == nil, "the command did not wait for the app to let go of the file moved away")
        }
        // The app's next change meets the file moved in: refused, saved nowhere.
        #expect(throws: LibraryError.self) { _ = try app?.add(WordContent(term: "tarde", meaning: "m")) }
        app = nil

        let run = children.finish(command, timeout: 30)
        #expect(run.succeeded, "\(run)")
        #expect(try children.integrityCheck(path) == "ok")
        #expect(try allWords(inLibraryAt: path).values.map(\.content.term).sorted() == ["base", "deOtro", "después"])
        #expect(try termsOfLibraryFileAlone(aside) == ["base", "reciente"])
    }

    @Test("a command whose library file was replaced after it wrote says its work went into the file that was there")
    func commandTellsOfAFileReplacedAfterIt() throws {
        try sandbox.add("base")
        let other = sandbox.path("other.sqlite")
        try FileManager.default.copyItem(atPath: sandbox.libraryPath, toPath: other)
        for replaced in [false, true] {
            let io = CapturedIO()
            let context = ToolContext(global: GlobalOptions(), environment: sandbox.environment, io: io, remotes: .folderOnly)
            _ = try context.library().add(WordContent(term: "importada", meaning: "m"))
            context.noteIfFileReplaced()
            #expect(io.errorOutput.isEmpty, "\(io.errorOutput)")
            if replaced { #expect(rename(other, sandbox.libraryPath) == 0) }
            context.noteIfFileReplaced()
            #expect(io.errorOutput.contains("was replaced (another file was moved into its place) while this command ran") == replaced)
        }
    }
}
