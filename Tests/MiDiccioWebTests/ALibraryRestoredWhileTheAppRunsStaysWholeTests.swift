import Foundation
import MiDiccioKit
import MiDiccioStore
import MiDiccioTesting
import Testing

@testable import MiDiccioWeb

/// People restore their library file from a backup, or copy another one over it, while
/// the web app sits in the background. The app kept its connections open for days: they
/// read their cached pages of the file that was there before and wrote them into the new
/// one, a malformed library (found by hand, with `cp` and with a move), or went on
/// writing into the file moved away, whose words then vanished. The app now closes its
/// connections when left alone, and opens new ones when the file is not as it left it.
@Suite("A library file restored from a backup while the web app runs")
final class ALibraryRestoredWhileTheAppRunsStaysWholeTests {
    let web: WebFixture
    let backupPath: String

    init() throws {
        web = try WebFixture()
        // A backup of another library: nothing of the app's file is in it.
        backupPath = web.directory + "/backup.sqlite"
        let backup = try WordLibrary(path: backupPath)
        for term in ["respaldo", "copia", "reserva"] { try backup.add(WordContent(term: term, meaning: "guardada")) }
    }

    /// Whether the app holds connections when the backup is put in place.
    enum Moment: String, CustomTestStringConvertible {
        /// Left alone: the app has closed the library.
        case idle = "while the app sits idle"
        /// Right after a request: a connection is open, with pages of the file in its cache.
        case inUse = "while the app is in use"

        var testDescription: String { rawValue }
    }

    @Test(
        "a backup put in place is the library the app's next request uses, whole",
        arguments: BackupPutInPlace.allCases, [Moment.idle, .inUse])
    func replaced(_ how: BackupPutInPlace, _ moment: Moment) throws {
        try useTheApp()
        try waitUntilTheAppIsIdle()
        if moment == .inUse { #expect(try web.send("GET", "/api/words?limit=50").status == 200) }
        try replace(how)
        try expectTheBackupThenNewWords()
    }

    @Test("a backup moved into place while a connection still writes to the old file waits for it, and takes nothing from it")
    func movedInWhileAConnectionIsLent() throws {
        // The words just added are still in the log, not yet in the file.
        try useTheApp()
        let held = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let app = web.app
        Thread.detachNewThread {
            // A long action, or the app's own thread, holding a connection to the old file.
            _ = try? app.pool.withLibrary { _ in
                held.signal()
                Thread.sleep(forTimeInterval: 1)
            }
            done.signal()
        }
        held.wait()
        try replace(.movedIn)
        let started = Date()
        #expect(try web.send("POST", "/api/words", json: #"{"term": "despues0"}"#).status == 201)
        #expect(Date().timeIntervalSince(started) > 0.5, "the request waited for the connection to the old file")
        done.wait()

        let shown = try web.send("GET", "/api/words?limit=50")
        #expect(shown.json["total"] as? Int == 4)
        let check = try Database(path: web.libraryPath, create: false)
        #expect(try check.text("PRAGMA integrity_check") == "ok")
        #expect(try web.library().list().map(\.term).sorted() == ["copia", "despues0", "reserva", "respaldo"])
    }

    // MARK: - Steps

    /// Words added and listed through the app: its connections hold pages of the file in
    /// their caches, and the log holds the words.
    private func useTheApp() throws {
        for index in 1...30 {
            let added = try web.send(
                "POST", "/api/words", json: #"{"term": "antes\#(index)", "meaning": "\#(String(repeating: "x", count: 300))"}"#)
            #expect(added.status == 201)
        }
        #expect(try web.send("GET", "/api/words?limit=50").status == 200)
    }

    /// Waits (at most 20 s) until the app has closed the library: the last connection to
    /// close empties the log.
    private func waitUntilTheAppIsIdle() throws {
        let deadline = Date().addingTimeInterval(20)
        while logSize() > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(logSize() == 0, "the app closed the library once left alone")
    }

    private func replace(_ how: BackupPutInPlace) throws {
        try how.put(backupPath, at: web.libraryPath)
    }

    private func logSize() -> Int {
        (try? FileManager.default.attributesOfItem(atPath: web.libraryPath + "-wal")[.size] as? Int) ?? 0
    }

    /// The app shows the backup's words, adds new ones to it, and the file passes SQLite's
    /// integrity check with exactly those words.
    private func expectTheBackupThenNewWords() throws {
        let shown = try web.send("GET", "/api/words?limit=50")
        #expect(shown.status == 200)
        #expect(shown.json["total"] as? Int == 3)
        for index in 1...5 {
            #expect(try web.send("POST", "/api/words", json: #"{"term": "despues\#(index)"}"#).status == 201)
        }
        let check = try Database(path: web.libraryPath, create: false)
        #expect(try check.text("PRAGMA integrity_check") == "ok")
        let terms = try web.library().list().map(\.term).sorted()
        #expect(terms == ["copia", "despues1", "despues2", "despues3", "despues4", "despues5", "reserva", "respaldo"])
    }
}
