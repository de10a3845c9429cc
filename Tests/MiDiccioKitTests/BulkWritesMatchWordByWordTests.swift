import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Import, restore and a new device's first sync write in bulk (issue 12, item 1): the
/// search entries of the rows they insert are made in one statement at the end. The
/// library must end exactly as word-by-word writing leaves it: the same rows, tags,
/// search results and digest, and a search index that agrees with its rows.
@Suite("Bulk writes leave the library exactly as word-by-word writes do")
struct BulkWritesMatchWordByWordTests {
    /// Every row of the words and tags tables, as text.
    static func rows(_ library: WordLibrary) throws -> [String] {
        func table(_ name: String, order: String) throws -> [String] {
            let columns = try library.database.prepare("SELECT name FROM pragma_table_info('\(name)')").rows { $0.text(0) }
            let each = columns.map { "quote(\($0))" }.joined(separator: " || '|' || ")
            return try library.database.prepare("SELECT \(each) FROM \(name) ORDER BY \(order)").rows { $0.text(0) }
        }
        return try table("words", order: "seq") + table("word_tags", order: "word_seq, tag_key")
    }

    /// What a handful of searches find, by id.
    static func searches(_ library: WordLibrary) throws -> [[String]] {
        try ["pal", "casa", "word", "ejemplo", "nota", "etiqueta", "zz", "über", "日本"].map { query in
            try library.search(query, limit: 50).map(\.id.rawValue)
        }
    }

    /// That the search indexes (the whole one and the terms') hold exactly the rows' text:
    /// FTS5's own check of their structure, then their words, with each one's row, column
    /// and place, against those of indexes made afresh from the rows. (The indexes are
    /// contentless: FTS5 has no content to check them against by itself.)
    static func indexAgrees(_ library: WordLibrary) throws {
        let database = library.database
        try database.write {
            try database.execute("INSERT INTO words_fts (words_fts) VALUES ('integrity-check')")
            try database.execute("INSERT INTO terms_fts (terms_fts) VALUES ('integrity-check')")
            let indexes = [
                ("words_fts", "term, reading, meaning, examples, notes, tags", SearchText.columns),
                ("terms_fts", "term", "midiccio_search_text(term)"),
            ]
            for (table, columns, values) in indexes {
                try database.execute(
                    """
                    CREATE VIRTUAL TABLE temp.fresh USING fts5 (\(columns), content = '', tokenize = 'unicode61 remove_diacritics 2');
                    INSERT INTO temp.fresh (rowid, \(columns)) SELECT seq, \(values) FROM words WHERE deleted_at IS NULL ORDER BY seq;
                    CREATE VIRTUAL TABLE temp.held USING fts5vocab (main, \(table), 'instance');
                    CREATE VIRTUAL TABLE temp.made USING fts5vocab (temp, fresh, 'instance');
                    """)
                let words = try database.integer("SELECT count(*) FROM temp.made") ?? 0
                let missing = try database.integer("SELECT count(*) FROM (SELECT * FROM temp.made EXCEPT SELECT * FROM temp.held)") ?? -1
                let extra = try database.integer("SELECT count(*) FROM (SELECT * FROM temp.held EXCEPT SELECT * FROM temp.made)") ?? -1
                #expect(missing == 0 && extra == 0, "\(table): \(missing) of \(words) words missing, \(extra) more")
                try database.execute("DROP TABLE temp.held; DROP TABLE temp.made; DROP TABLE temp.fresh")
            }
        }
    }

    /// The library's schema: tables and indexes as their statements made them.
    static func schema(_ library: WordLibrary) throws -> [String] {
        try library.database.prepare("SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_schema ORDER BY name").rows {
            $0.text(0)
        }
    }

    static func compare(_ bulk: WordLibrary, _ wordByWord: WordLibrary) throws {
        #expect(try schema(bulk) == schema(wordByWord))
        #expect(try rows(bulk) == rows(wordByWord))
        #expect(try searches(bulk) == searches(wordByWord))
        #expect(try bulk.libraryDigest() == wordByWord.libraryDigest())
        try indexAgrees(bulk)
        try indexAgrees(wordByWord)
    }

    /// How many words a bulk write must expect before it builds the indexes again at its
    /// end: always (1), and never (so each row goes into them as it is written).
    static let indexThresholds = [1, Int.max]

    /// Two empty libraries with the same ids, clock and locale; the second writes word by
    /// word, the first in bulk, building the indexes at the end from `deferIndexesFrom` words.
    static func pair(_ directory: URL, deferIndexesFrom: Int = Int.max) throws -> (WordLibrary, WordLibrary) {
        func make(_ name: String) throws -> WordLibrary {
            var generator = SeededGenerator(seed: 42)
            let clock = ManualClock(start: Timestamp(milliseconds: 1_764_000_000_123))
            return try WordLibrary(
                path: directory.appendingPathComponent(name).path, clock: clock, environment: ["LANG": "es_ES.UTF-8"],
                makeID: { WordID.random(using: &generator) })
        }
        let wordByWord = try make("b.sqlite")
        wordByWord.usesBulkWrites = false
        let bulk = try make("a.sqlite")
        bulk.deferredIndexesFrom = deferIndexesFrom
        return (bulk, wordByWord)
    }

    static let sheet: String = {
        var lines = ["term\tmeaning\treading\texamples\tnotes\ttags"]
        let long = String(repeating: "ñ", count: WordLimits.textLength)
        lines.append("palabra\tword\tpa·la·bra\t\"Una palabra.\nOtra palabra.\"\tuna nota\tetiqueta spanish")
        lines.append("Palabra\ta duplicate\t\t\t\tEtiqueta")
        lines.append("casa\thouse\t\tejemplo de casa\t\t")
        lines.append("über\tover\t\t\tnota alemana\tdeutsch")
        lines.append("日本語\tJapanese\tにほんご\t\t\tjapanese")
        lines.append(
            "\(String(repeating: "z", count: WordLimits.termLength))\t\(long)\t\(long)\t\t\(long)\t\(String(repeating: "t", count: WordLimits.tagLength))"
        )
        for index in 0..<300 { lines.append("pal\(index)\tword \(index)\t\t\t\tt\(index % 7)") }
        return lines.joined(separator: "\n") + "\n"
    }()

    @Test("an import with duplicates, accents, CJK and every field at its limit", arguments: indexThresholds)
    func importSheet(deferIndexesFrom: Int) throws {
        try withTemporaryDirectory { directory in
            let (bulk, wordByWord) = try Self.pair(directory, deferIndexesFrom: deferIndexesFrom)
            let path = directory.appendingPathComponent("words.tsv").path
            try Data(Self.sheet.utf8).write(to: URL(fileURLWithPath: path))
            _ = try bulk.add(WordContent(term: "ya estaba", meaning: "already there"))
            _ = try wordByWord.add(WordContent(term: "ya estaba", meaning: "already there"))
            #expect(try bulk.importSheet(from: path, format: .tsv).added == wordByWord.importSheet(from: path, format: .tsv).added)
            try Self.compare(bulk, wordByWord)
        }
    }

    @Test("an import with a bad row changes nothing, search index included")
    func badRow() throws {
        try withTemporaryDirectory { directory in
            let (bulk, _) = try Self.pair(directory)
            _ = try bulk.add(WordContent(term: "uno", meaning: "one"))
            let before = try Self.rows(bulk)
            let path = directory.appendingPathComponent("bad.tsv").path
            try Data("term\tmeaning\ndos\ttwo\n\tno term\n".utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: LibraryError.self) { try bulk.importSheet(from: path, format: .tsv) }
            #expect(try Self.rows(bulk) == before)
            #expect(try bulk.search("dos").isEmpty)
            try Self.indexAgrees(bulk)
        }
    }

    /// The backup file of a library that imported `sheet` and moved five words to the
    /// Trash (made in `directory`, under the pair's ids).
    static func backupOfSheet(in directory: URL) throws -> String {
        let (source, _) = try pair(directory.appendingPathComponent("source").createdDirectory())
        let path = directory.appendingPathComponent("words.tsv").path
        try Data(sheet.utf8).write(to: URL(fileURLWithPath: path))
        _ = try source.importSheet(from: path, format: .tsv)
        let ids = try source.list(ListQuery(limit: 20)).map(\.id)
        _ = try source.delete(Array(ids[0..<5]))
        let backup = directory.appendingPathComponent("backup.json").path
        _ = try source.exportBackup(to: backup)
        return backup
    }

    @Test(
        "a backup restore over a library with words, edited and deleted ones among them, the backup read in line or aside",
        arguments: indexThresholds, asideThresholds)
    func restore(deferIndexesFrom: Int, readAsideFrom: Int) throws {
        try withTemporaryDirectory { directory in
            let backup = try Self.backupOfSheet(in: directory)
            let (bulk, wordByWord) = try Self.pair(directory, deferIndexesFrom: deferIndexesFrom)
            bulk.restoreReadAsideFrom = readAsideFrom
            wordByWord.restoreReadAsideFrom = Int.max
            for library in [bulk, wordByWord] {
                _ = try library.add(WordContent(term: "local", meaning: "only here"))
                _ = try library.restoreBackup(from: backup, replace: true)
            }
            try Self.compare(bulk, wordByWord)
        }
    }

    /// The term keys and sort keys of every word, by id: what a first sync makes on the
    /// thread that decodes a large file must be what the writing thread would make.
    static func keys(_ library: WordLibrary) throws -> [String] {
        try library.database.prepare("SELECT id || ' ' || term_key || ' ' || hex(sort_key) FROM words ORDER BY id").rows { $0.text(0) }
    }

    /// Every word's row number and sync columns, in row order, and every tag row: the
    /// rows must go in in the order of the file, pending as word by word.
    static func rowOrder(_ library: WordLibrary) throws -> [String] {
        let words = "SELECT seq || ' ' || id || ' ' || pending || ' ' || local_change FROM words ORDER BY seq"
        let tags = "SELECT word_seq || ' ' || tag_key || ' ' || tag FROM word_tags ORDER BY word_seq, tag_key"
        return try library.database.prepare(words).rows { $0.text(0) } + library.database.prepare(tags).rows { $0.text(0) }
    }

    /// How many words a batch file must hold to be decoded on a second thread (with
    /// each new word's keys made there): always (1), and never.
    static let asideThresholds = [1, Int.max]

    @Test(
        "a backup restored into an empty library, with a purged word in it, goes in as looked up word by word, and undoes the same",
        arguments: asideThresholds)
    func restoreIntoEmpty(readAsideFrom: Int) throws {
        try withTemporaryDirectory { directory in
            let backup = try Self.backupOfSheet(in: directory)
            let (bulk, wordByWord) = try Self.pair(directory.appendingPathComponent("into").createdDirectory(), deferIndexesFrom: 1)
            bulk.restoreReadAsideFrom = readAsideFrom
            wordByWord.restoreReadAsideFrom = Int.max
            var reports: [RestoreReport] = []
            for library in [bulk, wordByWord] {
                // A word added, moved to the Trash and purged: the library is empty again but
                // keeps its marker. The libraries draw ids as the source did, so the backup
                // holds a word of that id, which must not come back.
                let added = try library.add(WordContent(term: "purgada", meaning: "purged")).word.id
                _ = try library.delete([added])
                _ = try library.purge([added])
                #expect(try library.counts().words == 0)
                reports.append(try library.restoreBackup(from: backup))
            }
            #expect(reports[0] == reports[1])
            #expect(reports[0].skippedPurged == 1)
            try Self.compare(bulk, wordByWord)
            let undo = """
                SELECT word_id || ' ' || ifnull(prior, '-') || ' ' || ifnull(restored_updated_at, '-') FROM restore_undo ORDER BY word_id
                """
            #expect(try bulk.database.prepare(undo).rows { $0.text(0) } == wordByWord.database.prepare(undo).rows { $0.text(0) })
            #expect(try bulk.undoRestore() == wordByWord.undoRestore())
            try Self.compare(bulk, wordByWord)
        }
    }

    @Test(
        "a new device's first sync of the seeded simulation's kind of library: edits, Trash, purges and tags",
        arguments: indexThresholds, asideThresholds)
    func firstSync(deferIndexesFrom: Int, readAsideFrom: Int) throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            var generator = SeededGenerator(seed: 5)
            var ids: [WordID] = []
            for index in 0..<400 {
                ids.append(try a.add("palabra \(index)", meaning: "word \(index)", tags: ["t\(index % 9)"]))
            }
            for term in ["über", "Ñandú", "ÁRBOL", "日本語", "ﬁn", "e\u{301}cole"] { ids.append(try a.add(term, meaning: "m")) }
            for _ in 0..<120 {
                let id = ids[Int.random(in: 0..<ids.count, using: &generator)]
                _ = try a.library.edit(id, WordEdit(notes: "nota \(Int.random(in: 0..<1000, using: &generator))"))
            }
            _ = try a.library.delete(Array(ids[10..<40]))
            _ = try a.library.purge(Array(ids[10..<15]))
            try a.sync()
            let bulk = try fixture.device("bulk"), wordByWord = try fixture.device("word-by-word")
            wordByWord.library.usesBulkWrites = false
            bulk.library.deferredIndexesFrom = deferIndexesFrom
            bulk.library.recordsReadAsideFrom = readAsideFrom
            wordByWord.library.recordsReadAsideFrom = Int.max
            try bulk.sync()
            try wordByWord.sync()
            #expect(try bulk.library.list().count == 376)
            #expect(try bulk.everyWord() == wordByWord.everyWord())
            #expect(try Self.keys(bulk.library) == Self.keys(wordByWord.library))
            #expect(try Self.rowOrder(bulk.library) == Self.rowOrder(wordByWord.library))
            #expect(try Self.searches(bulk.library) == Self.searches(wordByWord.library))
            #expect(try bulk.library.libraryDigest() == wordByWord.library.libraryDigest())
            #expect(try Self.schema(bulk.library) == Self.schema(wordByWord.library))
            try Self.indexAgrees(bulk.library)
        }
    }

    @Test("a device with words of its own merges a large file decoded on a second thread as one decoded in line")
    func pullReadAside() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            var ids: [WordID] = []
            for index in 0..<50 { ids.append(try a.add("palabra \(index)", meaning: "word \(index)", tags: ["t\(index % 3)"])) }
            try a.sync()
            let aside = try fixture.device("aside"), inLine = try fixture.device("in-line")
            aside.library.recordsReadAsideFrom = 1
            inLine.library.recordsReadAsideFrom = Int.max
            try aside.sync()
            try inLine.sync()
            // Edits, deletes and new words, over words both devices hold.
            for id in ids[0..<20] { _ = try a.library.edit(id, WordEdit(meaning: "changed", tags: ["nueva"])) }
            _ = try a.library.delete(Array(ids[20..<25]))
            for index in 0..<30 { _ = try a.add("nueva \(index)", meaning: "new \(index)") }
            try a.sync()
            try aside.sync()
            try inLine.sync()
            #expect(try aside.library.list().count == 75)
            #expect(try aside.everyWord() == inLine.everyWord())
            #expect(try aside.everyWord() == a.everyWord())
            #expect(try Self.keys(aside.library) == Self.keys(inLine.library))
            #expect(try Self.searches(aside.library) == Self.searches(inLine.library))
            #expect(try aside.library.libraryDigest() == inLine.library.libraryDigest())
            try Self.indexAgrees(aside.library)
        }
    }

    @Test("a bulk write that fails after dropping the indexes leaves them, and every row, as they were")
    func failedBulkWriteKeepsIndexes() throws {
        try withTemporaryDirectory { directory in
            let (bulk, _) = try Self.pair(directory, deferIndexesFrom: 1)
            _ = try bulk.add(WordContent(term: "uno", meaning: "one", tags: ["número"]))
            let schema = try Self.schema(bulk), rows = try Self.rows(bulk)
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try bulk.writingInBulk(expectedWords: 10) {
                    // The indexes are gone inside the write...
                    #expect(try Self.schema(bulk) != schema)
                    _ = try bulk.add(WordContent(term: "dos", meaning: "two", tags: ["número"]))
                    throw Stop()
                }
            }
            // ...and back, with nothing of the write, once it failed.
            #expect(try Self.schema(bulk) == schema)
            #expect(try Self.rows(bulk) == rows)
            #expect(try bulk.search("dos").isEmpty)
            #expect(try bulk.list(ListQuery(sort: .term)).map(\.term) == ["uno"])
            try Self.indexAgrees(bulk)
        }
    }

    @Test("a bulk write into a library that holds more words than it expects keeps its indexes")
    func smallBulkWriteKeepsIndexes() throws {
        try withTemporaryDirectory { directory in
            let (bulk, _) = try Self.pair(directory, deferIndexesFrom: 1)
            for index in 0..<5 { _ = try bulk.add(WordContent(term: "w\(index)", meaning: "m")) }
            let schema = try Self.schema(bulk)
            try bulk.writingInBulk(expectedWords: 3) {
                #expect(try Self.schema(bulk) == schema)
                _ = try bulk.add(WordContent(term: "nuevo", meaning: "new"))
            }
            #expect(try bulk.counts().words == 6)
        }
    }
}

extension URL {
    fileprivate func createdDirectory() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}
