import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// People copy their library file to a new laptop or into a backup while the web app is
/// still running in the background. The app keeps the library open for days, and SQLite
/// moves its write-ahead log into the file only once the log passes 4 MB, so the newest
/// words were in the log alone, and a copy of the file alone lacked them.
@Suite("A copy of the library file taken while the web app runs")
final class ACopyTakenWhileTheAppRunsHoldsEveryWordTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("words added through the web app are in the library file itself within seconds, while the app keeps it open")
    func copyHoldsEveryWord() throws {
        for term in ["uno", "dos", "tres"] {
            let added = try web.send("POST", "/api/words", json: #"{"term": "\#(term)", "meaning": "número"}"#)
            #expect(added.status == 201)
        }
        // The log holds the words now; the file itself should within about a second.
        let log = (try? FileManager.default.attributesOfItem(atPath: web.libraryPath + "-wal")[.size] as? Int) ?? 0
        #expect(log > 0, "the words were written to the log first")

        let folder = web.directory + "/copies"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let deadline = Date().addingTimeInterval(20)
        var terms: [String] = []
        var attempt = 0
        while terms.count < 3 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.25)
            attempt += 1
            // The file alone, as a person copies it; a copy taken at the very moment the
            // log moves into it may be torn, and the next one is taken a moment later.
            let copy = folder + "/library-\(attempt).sqlite"
            try FileManager.default.copyItem(atPath: web.libraryPath, toPath: copy)
            terms = (try? WordLibrary(path: copy).list().map(\.term).sorted()) ?? []
        }
        #expect(terms == ["dos", "tres", "uno"])
        // The app still has the library open, and goes on using it.
        #expect(try web.send("POST", "/api/words", json: #"{"term": "cuatro"}"#).status == 201)
        #expect(try web.library().list().count == 4)
    }
}
