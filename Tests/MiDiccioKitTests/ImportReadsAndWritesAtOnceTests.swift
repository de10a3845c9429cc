import Foundation
import MiDiccioTesting
import Synchronization
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// An import of a CSV or TSV reads and checks its rows on one thread while another
/// writes them (issue 12, "use the second core"), through `Handoff`, a bounded queue.
/// The rules of an import do not change: a bad row anywhere leaves nothing imported and
/// names its line, and the words come in the order of the file.
@Suite("An import reads its rows on one thread while another writes them")
struct ImportReadsAndWritesAtOnceTests {
    private struct Broken: Error, Equatable { let at: Int }

    @Test("batches arrive in order, and the reader's error only after the batches before it")
    func readerErrorComesAfterItsBatches() {
        var seen: [Int] = []
        #expect(throws: Broken(at: 50)) {
            try Handoff.run(capacity: 3) { emit in
                for batch in 0..<50 { try emit(batch) }
                throw Broken(at: 50)
            } consume: { (batch: Int) in
                seen.append(batch)
            }
        }
        #expect(seen == Array(0..<50))
    }

    @Test("a writer's error stops the reader, which never gets far ahead")
    func writerErrorStopsTheReader() {
        let made = Atomic<Int>(0)
        let mostAhead = Atomic<Int>(0)
        var taken = 0
        #expect(throws: Broken(at: 10)) {
            try Handoff.run(capacity: 4) { emit in
                for batch in 0..<100_000 {
                    try emit(batch)
                    made.add(1, ordering: .sequentiallyConsistent)
                }
            } consume: { (batch: Int) in
                taken += 1
                let ahead = made.load(ordering: .sequentiallyConsistent) - taken
                if ahead > mostAhead.load(ordering: .sequentiallyConsistent) {
                    mostAhead.store(ahead, ordering: .sequentiallyConsistent)
                }
                if batch == 10 { throw Broken(at: 10) }
                Thread.sleep(forTimeInterval: 0.001)
            }
        }
        // `run` returned only after the reader stopped: its count no longer moves.
        let stoppedAt = made.load(ordering: .sequentiallyConsistent)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(made.load(ordering: .sequentiallyConsistent) == stoppedAt)
        // Bounded: at most the queue's four batches (and the one being put) ahead.
        #expect(stoppedAt <= 11 + 5)
        #expect(mostAhead.load(ordering: .sequentiallyConsistent) <= 5)
    }

    @Test("a bad row thousands of rows in leaves nothing imported and names its line")
    func badRowLateInTheFile() throws {
        try withTemporaryDirectory { directory in
            let library = try WordLibrary(path: directory.appendingPathComponent("library.sqlite").path, environment: [:])
            _ = try library.add(WordContent(term: "antes", meaning: "before"))
            var rows = (0..<5_000).map { "palabra\($0)\tword \($0)" }
            // Line 4,002 of the file (after the header): a term past the 500-character limit.
            rows[4_000] = String(repeating: "x", count: 501) + "\ttoo long"
            let path = directory.appendingPathComponent("words.tsv").path
            try Data(("term\tmeaning\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
            #expect {
                try library.importWords(from: path)
            } throws: { error in
                guard case LibraryError.invalidImport(let file, let line, _) = error else { return false }
                return file == path && line == 4_002
            }
            #expect(try library.list().map(\.term) == ["antes"])
        }
    }

    @Test("the words, samples and counts are those of the file, in its order")
    func wordsInFileOrder() throws {
        try withTemporaryDirectory { directory in
            let library = try WordLibrary(path: directory.appendingPathComponent("library.sqlite").path, environment: [:])
            let count = WordLibrary.importBatchRows * 3 + 7
            let rows = (0..<count).map { "término\($0)\tmeaning \($0)\t\t\t\ttag\($0 % 3)" }
            let path = directory.appendingPathComponent("words.tsv").path
            try Data(("term\tmeaning\treading\texamples\tnotes\ttags\n" + rows.joined(separator: "\n")).utf8)
                .write(to: URL(fileURLWithPath: path))
            var options = ImportOptions()
            options.sampleSize = 5
            let report = try library.importWords(from: path, options: options)
            #expect(report.added == count && report.rowCount == count)
            #expect(report.sample.map(\.term) == (0..<5).map { "término\($0)" })
            let stored = try library.database.prepare("SELECT term FROM words ORDER BY seq").rows { $0.text(0) }
            #expect(stored == (0..<count).map { "término\($0)" })
            #expect(try library.countMatches(query: "", tag: "tag1") == (0..<count).filter { $0 % 3 == 1 }.count)
        }
    }
}

/// An empty file is bad input, said as such, rather than "Imported 0 words" read as a list.
@Suite("Importing an empty file")
struct ImportingAnEmptyFileTests {
    @Test("an empty file is refused, named, and changes nothing")
    func emptyFileRefused() throws {
        try withTemporaryDirectory { directory in
            let library = try WordLibrary(path: directory.appendingPathComponent("library.sqlite").path, environment: [:])
            let path = directory.appendingPathComponent("empty.tsv").path
            try Data().write(to: URL(fileURLWithPath: path))
            #expect {
                try library.importWords(from: path)
            } throws: { error in
                guard case LibraryError.invalidImport(let file, _, let message) = error else { return false }
                return file == path && message.contains("empty")
            }
            #expect(try library.list().isEmpty)
        }
    }
}
