import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// People copy their library file to a new laptop or into a backup while the web app is
/// still running. The app keeps the library open while it is in use, and SQLite moves its
/// write-ahead log into the file only once the log passes 4 MB (a command that closes
/// meanwhile is not the last connection), so the newest words were in the log alone, and
/// a copy of the file alone lacked them.
@Suite("A copy of the library file taken while the web app runs")
final class ACopyTakenWhileTheAppRunsHoldsEveryWordTests {
    let web: WebFixture
    private var copies = 0

    init() throws { web = try WebFixture() }

    @Test(
        "words added through the web app, then by a command while it runs, are in the library file itself within seconds, while the app keeps it open"
    )
    func copyHoldsEveryWord() throws {
        for term in ["uno", "dos"] {
            let added = try web.send("POST", "/api/words", json: #"{"term": "\#(term)", "meaning": "número"}"#)
            #expect(added.status == 201)
        }
        let log = (try? FileManager.default.attributesOfItem(atPath: web.libraryPath + "-wal")[.size] as? Int) ?? 0
        #expect(log > 0, "the words were written to the log first")
        #expect(try copiedTerms(holding: 2) == ["dos", "uno"])

        // Then a `midiccio add` in a terminal, and nothing more through the app: the
        // command's connection closes, but it is not the last one.
        try web.library().add(WordContent(term: "tres", meaning: "número"))
        #expect(try copiedTerms(holding: 3) == ["dos", "tres", "uno"])

        // The app still has the library open, and goes on using it.
        #expect(try web.send("POST", "/api/words", json: #"{"term": "cuatro"}"#).status == 201)
        #expect(try web.library().list().count == 4)
    }

    /// The terms in a copy of the library file alone, as a person copies it, taken every
    /// quarter of a second until one holds `count` words or 20 s have passed. A copy taken
    /// at the very moment the log moves into the file may be torn; the next one is taken
    /// a moment later.
    private func copiedTerms(holding count: Int) throws -> [String] {
        let folder = web.directory + "/copies"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let deadline = Date().addingTimeInterval(20)
        var terms: [String] = []
        while terms.count < count && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.25)
            copies += 1
            let copy = folder + "/library-\(copies).sqlite"
            try FileManager.default.copyItem(atPath: web.libraryPath, toPath: copy)
            terms = (try? WordLibrary(path: copy).list().map(\.term).sorted()) ?? []
        }
        return terms
    }
}
