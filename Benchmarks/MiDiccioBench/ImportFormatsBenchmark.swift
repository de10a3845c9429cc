import Foundation
import MiDiccioKit
import MiDiccioStore

/// The imports of issue 16 that `midiccio-bench library` times next to its own, each into
/// a library of its own: a list without a header, the same words as Quizlet's custom
/// separators and as an Anki plain-text export (both read as they stream since issue 12),
/// and a Kindle `vocab.db`.
enum ImportFormatsBenchmark {
    /// Rows of the list without a header (issue 16: 100,000).
    static let defaultListRows = 100_000
    /// Look-ups in the Kindle database (issue 16: 50,000).
    static let defaultKindleLookups = 50_000

    /// One timed import.
    struct Figure {
        var name: String
        var seconds: Double
        var added: Int
        /// The process's peak memory while it ran, and its resident memory just before
        /// (the bench's own library and caches), in MB; nil where not known.
        var peakMegabytes: Double?
        var residentBeforeMegabytes: Double?
    }

    /// Writes the files in `folder`, imports each into a new library, and returns the
    /// times. `listRows` and `lookups` scale with `--words` so that a small run stays small.
    static func measure(vocabulary: SyntheticVocabulary, listRows: Int, lookups: Int, in folder: String) throws -> [Figure] {
        let listPath = folder + "/list.tsv"
        let quizletPath = folder + "/quizlet.txt"
        let ankiPath = folder + "/anki.txt"
        do {
            // Let go before the imports, whose peak memory is measured.
            var list = ""
            var quizlet = ""
            var anki = "#separator:tab\n#html:true\n#tags column:3\n"
            list.reserveCapacity(listRows * 40)
            quizlet.reserveCapacity(listRows * 40)
            anki.reserveCapacity(listRows * 60)
            for index in 0..<listRows {
                let row = vocabulary.row(index)
                let term = oneLine(row.term), meaning = oneLine(row.meaning)
                list += term + "\t" + meaning + "\n"
                quizlet += term.replacingOccurrences(of: ";;", with: ";") + " - " + meaning.replacingOccurrences(of: ";;", with: ";") + ";;"
                anki += term + "\t<i>" + meaning + "</i>\t" + row.tags.joined(separator: " ") + "\n"
            }
            try Data(list.utf8).write(to: URL(fileURLWithPath: listPath))
            try Data(quizlet.utf8).write(to: URL(fileURLWithPath: quizletPath))
            try Data(anki.utf8).write(to: URL(fileURLWithPath: ankiPath))
        }
        var quizletOptions = ImportOptions()
        quizletOptions.format = .list
        quizletOptions.layout = ListLayout(separator: " - ", cardSeparator: ";;")

        let kindlePath = folder + "/vocab.db"
        try writeKindle(vocabulary: vocabulary, lookups: lookups, to: kindlePath)

        var figures: [Figure] = []
        for (name, path, options) in [
            ("import \(Format.grouped(listRows))-row list without a header (TSV)", listPath, ImportOptions()),
            ("import the same as a Quizlet list (\" - \" and \";;\")", quizletPath, quizletOptions),
            ("import the same as an Anki plain-text export (HTML, tags)", ankiPath, ImportOptions()),
            ("import Kindle vocab.db, \(Format.grouped(lookups)) look-ups", kindlePath, ImportOptions()),
        ] {
            let library = try WordLibrary(path: folder + "/\(figures.count).sqlite", environment: ["LANG": "es_ES.UTF-8"])
            Progress.note(name)
            let before = ProcessMemory.residentMegabytes()
            let reset = ProcessMemory.resetPeak()
            let (report, seconds) = try Stopwatch.measure { try library.importWords(from: path, options: options) }
            guard report.added > 0 else { throw BenchFailure("\(name) added no words") }
            figures.append(
                Figure(
                    name: name, seconds: seconds, added: report.added, peakMegabytes: reset ? ProcessMemory.peakMegabytes() : nil,
                    residentBeforeMegabytes: before))
        }
        return figures
    }

    private static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0.isNewline ? " " : $0 })
    }

    /// A `vocab.db` with Kindle's tables: about three look-ups per stem, in 50 books.
    private static func writeKindle(vocabulary: SyntheticVocabulary, lookups: Int, to path: String) throws {
        let database = try Database(path: path, create: true)
        try database.execute(
            """
            CREATE TABLE WORDS (id TEXT PRIMARY KEY NOT NULL UNIQUE, word TEXT, stem TEXT, lang TEXT,
                category INTEGER DEFAULT 0, timestamp INTEGER DEFAULT 0, profileid TEXT);
            CREATE TABLE LOOKUPS (id TEXT PRIMARY KEY NOT NULL UNIQUE, word_key TEXT, book_key TEXT,
                dict_key TEXT, pos TEXT, usage TEXT, timestamp INTEGER DEFAULT 0);
            CREATE TABLE BOOK_INFO (id TEXT PRIMARY KEY NOT NULL UNIQUE, asin TEXT, guid TEXT, lang TEXT,
                title TEXT, authors TEXT);
            CREATE INDEX lookupwordkey ON LOOKUPS (word_key);
            """)
        try database.write {
            for book in 0..<50 {
                try database.run(
                    "INSERT INTO BOOK_INFO VALUES (?, '', '', 'es', ?, ?)",
                    [.text("book\(book)"), .text("Libro \(book)"), .text("Autora \(book)")])
            }
            let stems = max(1, lookups / 3)
            for index in 0..<stems {
                let term = oneLine(vocabulary.row(index).term)
                try database.run(
                    "INSERT OR IGNORE INTO WORDS VALUES (?, ?, ?, 'es', 0, 0, '')",
                    [.text("es:\(term)#\(index)"), .text(term), .text(term)])
            }
            for index in 0..<lookups {
                let stem = index % stems
                let term = oneLine(vocabulary.row(stem).term)
                try database.run(
                    "INSERT INTO LOOKUPS VALUES (?, ?, ?, '', '', ?, ?)",
                    [
                        .text("l\(index)"), .text("es:\(term)#\(stem)"), .text("book\(index % 50)"),
                        .text("Frase \(index) con \(term) en su sitio."), .integer(1_704_067_200_000 + Int64(index) * 1000),
                    ])
            }
        }
    }
}
