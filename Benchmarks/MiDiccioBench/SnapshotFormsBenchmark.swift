import CCollation
import CSQLite
import CZstd
import Foundation
import MiDiccioKit
import MiDiccioStore

/// `midiccio-bench snapshot-forms`: issue 12, item 3 — what a new device's first sync
/// would cost with the snapshot in another form, measured beside the form MiDiccio
/// uses, on the same words in one run:
///
/// - **change file** (used): the snapshot a full upload writes, read word by word by the
///   sync engine and written through the bulk path (the real first sync, merge rules and
///   all).
/// - **synced columns as an SQLite file**: the words' synced columns in a table of their
///   own, zstd-compressed; a new device attaches it and fills its tables set-based:
///   rows in id order, the local keys through SQL functions backed by the ICU collator in
///   C, the search index, the tag rows and their counts, the indexes built after.
/// - **prebuilt SQLite file**: the whole library, its indexes and search index included
///   (`VACUUM INTO`), zstd-compressed; a new device copies its pages in (SQLite's backup
///   API), as Anki's full download does.
/// - **prebuilt SQLite file, tables copied in**: the same file, its tables copied inside one
///   write transaction of the library, which leaves the rest of the library alone.
///
/// No other form is used by MiDiccio: this measures them so the README can say why
/// (the digest a real adoption also computes, and its checks, are left out).
enum SnapshotFormsBenchmark {
    /// The subcommand as `main.swift` registers it.
    static let subcommand = BenchSubcommand(
        name: "snapshot-forms",
        abstract: "A new device's first sync from the change-file snapshot against two SQLite-file forms.",
        usage: "midiccio-bench snapshot-forms [--words <n>] [--seed <s>]",
        options: [
            ("--words <n>", "Words in the library (default 100000)."),
            ("--seed <s>", "Seed of the generated words (default 1)."),
        ],
        run: { try run($0) })

    /// One form's figures.
    struct Figures {
        var form: String
        var compressedBytes: Int
        /// Seconds the uploading device spends making the file (compression included).
        var make: Double
        /// Seconds the new device spends adopting it (decompression included).
        var adopt: Double
        /// Where the adoption's time went, when it was timed step by step.
        var steps = ""
    }

    /// Times the steps of an adoption (a class: steps nest inside the commit's).
    final class Steps {
        private var parts: [(name: String, seconds: Double)] = []

        /// Runs `body` and notes its time under `name`; with `after`, the time from the
        /// end of that step to the end of `body` (what a transaction's commit took).
        func time<T>(_ name: String, after: String? = nil, _ body: () throws -> T) rethrows -> T {
            let start = Stopwatch.nanoseconds()
            let result = try body()
            let end = Stopwatch.nanoseconds()
            let from = after.flatMap { ended[$0] } ?? start
            parts.append((name, Double(end - from) / 1e9))
            ended[name] = end
            return result
        }

        private var ended: [String: UInt64] = [:]

        /// "decompress 0.02 s, rows and keys 0.40 s, ...".
        var summary: String {
            parts.map { "\($0.name) \(Format.decimal($0.seconds, 2)) s" }.joined(separator: ", ")
        }
    }

    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, accepting: ["words", "seed"], usage: subcommand.usage)
        let wordCount = try options.integer("words", default: 100_000, in: 10...5_000_000)
        let seed = try options.unsigned("seed", default: 1)
        let workspace = try TemporaryDirectory(prefix: "midiccio-bench-forms")
        defer { workspace.remove() }

        let pair = try SyncBenchmark.Pair(words: wordCount, seed: seed, in: workspace.path + "/pair")
        Progress.note("full upload and first sync through the change-file snapshot")
        let (_, upload) = try Stopwatch.measure { try pair.engineA.sync() }
        let (_, firstSync) = try Stopwatch.measure { try pair.engineB.sync() }
        guard try pair.b.counts().words == wordCount else { throw BenchFailure("the first sync did not bring every word") }
        let snapshots = try FileManager.default.subpathsOfDirectory(atPath: workspace.path + "/pair/cloud")
            .filter { $0.hasSuffix(".snap") }
        let snapshotBytes = try snapshots.reduce(0) {
            $0 + ((try FileManager.default.attributesOfItem(atPath: workspace.path + "/pair/cloud/" + $1)[.size] as? Int) ?? 0)
        }
        var figures = [Figures(form: "change file (used)", compressedBytes: snapshotBytes, make: upload, adopt: firstSync)]

        let source = pair.a.path
        let expected = try wordCounts(source)
        Progress.note("synced columns as an SQLite file")
        figures.append(try syncedColumns(from: source, in: workspace.path, expected: expected))
        Progress.note("prebuilt SQLite file")
        figures.append(try prebuilt(from: source, in: workspace.path, expected: expected))
        Progress.note("prebuilt SQLite file, its tables copied in the library's own transaction")
        figures.append(try prebuiltTables(from: source, in: workspace.path, expected: expected))

        var table = TextTable(
            header: ["snapshot form", "compressed", "make (uploader)", "adopt (new device)", "× change file"],
            rightAligned: [false, true, true, true, true])
        for figure in figures {
            table.rows.append([
                figure.form, Format.decimal(Double(figure.compressedBytes) / 1e6, 1) + " MB", Format.decimal(figure.make, 3) + " s",
                Format.decimal(figure.adopt, 3) + " s", Format.decimal(figure.adopt / firstSync, 2) + "×",
            ])
        }
        print("midiccio-bench snapshot-forms: \(Format.grouped(wordCount)) words, \(Machine.coreCount) cores")
        print(table.rendered(), terminator: "")
        for figure in figures where !figure.steps.isEmpty { print("\(figure.form), adopting: \(figure.steps)") }
    }

    // MARK: - The forms

    /// The words' synced columns in their own table, compressed; adopted set-based.
    static func syncedColumns(from source: String, in folder: String, expected: Counts) throws -> Figures {
        let file = folder + "/columns.sqlite", packed = file + ".zst", unpacked = folder + "/columns-in.sqlite"
        let target = try emptyLibrary(folder + "/columns-library.sqlite")
        let (_, make) = try Stopwatch.measure {
            // Opened with the right to create: ATTACH makes the snapshot file.
            let database = try Database(path: source, create: true)
            let columns = try syncedColumns(database)
            try database.run("ATTACH DATABASE ? AS snapshot", [.text(file)])
            try database.execute("PRAGMA snapshot.journal_mode = OFF")
            try database.execute("CREATE TABLE snapshot.words AS SELECT \(columns) FROM words ORDER BY id")
            try database.execute("DETACH DATABASE snapshot")
            try compress(file, to: packed)
        }
        let steps = Steps()
        let (_, adopt) = try Stopwatch.measure {
            try steps.time("decompress") { try decompress(packed, to: unpacked) }
            let database = try libraryConnection(target)
            try defineKeyFunctions(database)
            let columns = try syncedColumns(database)
            try database.run("ATTACH DATABASE ? AS snapshot", [.text(unpacked)])
            try steps.time("commit", after: "indexes") {
                try database.write {
                    let indexes = try database.prepare(
                        "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('words', 'word_tags') AND sql IS NOT NULL"
                    ).rows([]) { (name: $0.text(0), sql: $0.text(1)) }
                    for index in indexes { try database.execute("DROP INDEX \"\(index.name)\"") }
                    let trigger = try database.text(
                        "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = 'tag_counts_tag_added'")
                    if trigger != nil { try database.execute("DROP TRIGGER tag_counts_tag_added") }
                    try steps.time("rows and keys") {
                        try database.execute(
                            """
                            INSERT INTO words (\(columns), pending, local_change, term_key, sort_key)
                            SELECT \(columns), 0, 0, bench_term_key(term), bench_sort_key(term) FROM snapshot.words ORDER BY id
                            """)
                    }
                    try steps.time("search index") {
                        try database.execute(
                            """
                            INSERT INTO words_fts (rowid, term, reading, meaning, examples, notes, tags)
                            SELECT seq, term, reading, meaning, examples, notes, tags FROM words WHERE +deleted_at IS NULL ORDER BY seq
                            """)
                        try database.execute(
                            "INSERT INTO terms_fts (rowid, term) SELECT seq, term FROM words WHERE +deleted_at IS NULL ORDER BY seq")
                    }
                    try steps.time("tags") {
                        try database.execute(
                            """
                            INSERT OR IGNORE INTO word_tags (tag_key, word_seq, tag)
                            SELECT bench_term_key(t.value), w.seq, t.value FROM words w, json_each(w.tags) t ORDER BY w.seq, t.key
                            """)
                        try database.execute(
                            """
                            INSERT INTO tag_counts (tag_key, tag, count)
                            SELECT t.tag_key, min(t.tag), count(*) FROM word_tags t JOIN words w ON w.seq = t.word_seq
                            WHERE w.deleted_at IS NULL GROUP BY t.tag_key
                            """)
                        if let trigger { try database.execute(trigger) }
                    }
                    try steps.time("indexes") { for index in indexes { try database.execute(index.sql) } }
                }
            }
            try database.execute("DETACH DATABASE snapshot")
        }
        try check(target, against: expected, form: "synced columns")
        return Figures(
            form: "synced columns as an SQLite file", compressedBytes: try size(packed), make: make, adopt: adopt,
            steps: steps.summary)
    }

    /// The whole library with its indexes, compressed; adopted by copying its pages.
    static func prebuilt(from source: String, in folder: String, expected: Counts) throws -> Figures {
        let file = folder + "/prebuilt.sqlite", packed = file + ".zst", unpacked = folder + "/prebuilt-in.sqlite"
        let target = try emptyLibrary(folder + "/prebuilt-library.sqlite")
        let make = try makePrebuilt(from: source, file: file, packed: packed)
        let (_, adopt) = try Stopwatch.measure {
            try decompress(packed, to: unpacked)
            let from = try Database(path: unpacked, create: false, readOnly: true)
            let into = try libraryConnection(target)
            guard let backup = sqlite3_backup_init(into.handle, "main", from.handle, "main") else {
                throw BenchFailure("sqlite3_backup_init: \(String(cString: sqlite3_errmsg(into.handle)))")
            }
            let step = sqlite3_backup_step(backup, -1)
            let finish = sqlite3_backup_finish(backup)
            guard step == SQLITE_DONE, finish == SQLITE_OK else { throw BenchFailure("backup: step \(step), finish \(finish)") }
        }
        try check(target, against: expected, form: "prebuilt")
        return Figures(form: "prebuilt SQLite file (with indexes)", compressedBytes: try size(packed), make: make, adopt: adopt)
    }

    /// Counts the prebuilt file's words that break what the library holds a word to: an
    /// id in the form of a lowercase UUID, the fields' lengths (`WordLimits`), examples and
    /// tags as JSON arrays no longer than their limits, and whole-number times. What an
    /// untrusted file's rows would be checked against, timed in SQL.
    static let rowsBreakingLimits = """
        SELECT count(*) FROM snapshot.words WHERE NOT (
            bench_is_word_id(id)
            AND length(term) BETWEEN 1 AND \(WordLimits.termLength)
            AND length(meaning) <= \(WordLimits.textLength) AND length(reading) <= \(WordLimits.textLength)
            AND length(notes) <= \(WordLimits.textLength)
            AND json_type(examples) = 'array' AND json_type(tags) = 'array'
            AND json_array_length(examples) <= \(WordLimits.exampleCount)
            AND json_array_length(tags) <= \(WordLimits.tagCount)
            AND typeof(created_at) = 'integer' AND typeof(updated_at) = 'integer'
            AND typeof(deleted_at) IN ('integer', 'null')
        )
        """

    /// `bench_is_word_id(text)`: 1 for an id as the library stores it (a lowercase UUID,
    /// checked by `WordID.lowercasedIfValid`, which must then leave it as it was), else 0.
    /// SQLite's own GLOB or `ltrim` took 0.18–0.24 s over 100,000 ids; this takes a few
    /// milliseconds.
    static func defineWordIDCheck(_ database: Database) throws {
        let code = sqlite3_create_function_v2(
            database.handle, "bench_is_word_id", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, arguments in
                guard let context, let arguments, let value = arguments[0], let text = sqlite3_value_text(value) else {
                    sqlite3_result_int(context, 0)
                    return
                }
                let stored = Array(UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))))
                var checked = stored
                let valid = checked.withUnsafeMutableBytes(WordID.lowercasedIfValid) && checked == stored
                sqlite3_result_int(context, valid ? 1 : 0)
            }, nil, nil, nil)
        guard code == SQLITE_OK else { throw BenchFailure("cannot define bench_is_word_id") }
    }

    /// The tables a prebuilt file hands over: the words, their tag rows and counts, and
    /// the search indexes' own tables (FTS5 keeps its index in ordinary tables).
    static let prebuiltTables = [
        "words", "word_tags", "tag_counts", "words_fts_data", "words_fts_idx", "words_fts_docsize", "words_fts_config",
        "terms_fts_data", "terms_fts_idx", "terms_fts_docsize", "terms_fts_config",
    ]

    /// The same prebuilt file, adopted inside one write transaction of the library itself:
    /// the library is checked to hold no word under the write lock, then each table is
    /// copied with `INSERT INTO main.t SELECT * FROM snapshot.t`. With the triggers off
    /// and the two schemas alike, SQLite copies rows and index entries as they are (its
    /// transfer optimisation) instead of building the indexes and search index again.
    /// Unlike the backup API this leaves every other table (this device's own state)
    /// alone, and nothing can be written between the check and the copy. Also timed: the
    /// checks an untrusted file would need (`quick_check` of the file, its rows against the
    /// limits, its term and sort keys made again, and the search index's own
    /// `integrity-check` once copied).
    static func prebuiltTables(from source: String, in folder: String, expected: Counts) throws -> Figures {
        let file = folder + "/tables.sqlite", packed = file + ".zst", unpacked = folder + "/tables-in.sqlite"
        let target = try emptyLibrary(folder + "/tables-library.sqlite")
        let make = try makePrebuilt(from: source, file: file, packed: packed)
        let steps = Steps()
        let (_, adopt) = try Stopwatch.measure {
            try steps.time("decompress") { try decompress(packed, to: unpacked) }
            let database = try libraryConnection(target)
            try database.execute("PRAGMA foreign_keys = OFF")
            try database.run("ATTACH DATABASE ? AS snapshot", [.text(unpacked)])
            try steps.time("quick_check") {
                guard try database.text("PRAGMA snapshot.quick_check") == "ok" else { throw BenchFailure("quick_check failed") }
            }
            try steps.time("row checks") {
                try defineWordIDCheck(database)
                guard try database.integer(Self.rowsBreakingLimits) == 0 else { throw BenchFailure("rows break the limits") }
            }
            try steps.time("keys made again") {
                try defineKeyFunctions(database)
                _ = try database.integer(
                    "SELECT sum(length(bench_term_key(term)) + length(bench_sort_key(term))) FROM snapshot.words")
            }
            try steps.time("commit", after: "copy") {
                try database.write {
                    guard try database.integer("SELECT EXISTS (SELECT 1 FROM main.words)") == 0 else {
                        throw BenchFailure("the library already holds words")
                    }
                    let names = prebuiltTables.map { "'\($0)'" }.joined(separator: ", ")
                    let triggers = try database.prepare(
                        "SELECT name, sql FROM main.sqlite_schema WHERE type = 'trigger' AND tbl_name IN (\(names))"
                    ).rows([]) { (name: $0.text(0), sql: $0.text(1)) }
                    try steps.time("copy") {
                        for trigger in triggers { try database.execute("DROP TRIGGER main.\"\(trigger.name)\"") }
                        for table in prebuiltTables {
                            try database.execute("DELETE FROM main.\(table)")
                            try database.execute("INSERT INTO main.\(table) SELECT * FROM snapshot.\(table)")
                        }
                        for trigger in triggers { try database.execute(trigger.sql) }
                    }
                }
            }
            try database.execute("DETACH DATABASE snapshot")
        }
        let (_, indexCheck) = try Stopwatch.measure {
            let database = try libraryConnection(target)
            try database.execute("INSERT INTO words_fts (words_fts) VALUES ('integrity-check')")
            try database.execute("INSERT INTO terms_fts (terms_fts) VALUES ('integrity-check')")
        }
        try check(target, against: expected, form: "prebuilt tables")
        return Figures(
            form: "prebuilt SQLite file, tables copied in", compressedBytes: try size(packed), make: make, adopt: adopt,
            steps: steps.summary + "; then the search index's integrity-check \(Format.decimal(indexCheck, 2)) s")
    }

    // MARK: - Support

    /// Seconds the uploader spends making a prebuilt file: the whole library at `source`
    /// copied into `file` (`VACUUM INTO`), then compressed into `packed`.
    static func makePrebuilt(from source: String, file: String, packed: String) throws -> Double {
        try Stopwatch.measure {
            let database = try Database(path: source, create: true)
            try database.run("VACUUM INTO ?", [.text(file)])
            try compress(file, to: packed)
        }.seconds
    }

    /// What a form must bring over: words, search matches for one common prefix, tag rows.
    struct Counts: Equatable {
        var words: Int64
        var matches: Int64
        var tagRows: Int64
    }

    static func wordCounts(_ path: String) throws -> Counts {
        let database = try Database(path: path, create: false, readOnly: true)
        return Counts(
            words: try database.integer("SELECT count(*) FROM words") ?? 0,
            matches: try database.integer("SELECT count(*) FROM words_fts WHERE words_fts MATCH 'a*'") ?? 0,
            tagRows: try database.integer("SELECT count(*) FROM word_tags") ?? 0)
    }

    static func check(_ path: String, against expected: Counts, form: String) throws {
        let found = try wordCounts(path)
        guard found == expected else { throw BenchFailure("the \(form) form brought \(found), not \(expected)") }
    }

    /// A new, empty library (MiDiccio's schema and settings), closed again.
    static func emptyLibrary(_ path: String) throws -> String {
        _ = try WordLibrary(path: path, environment: ["LANG": "es_ES.UTF-8"])
        return path
    }

    /// A connection set up as the library's own are (WAL, full sync, foreign keys).
    static func libraryConnection(_ path: String) throws -> Database {
        let database = try Database(path: path, create: true)
        for pragma in ["journal_mode = WAL", "synchronous = FULL", "foreign_keys = ON", "cache_size = -20480"] {
            try database.execute("PRAGMA \(pragma)")
        }
        return database
    }

    /// The columns of `words` that sync carries: every one but the local ones.
    static func syncedColumns(_ database: Database) throws -> String {
        let local: Set = ["seq", "pending", "local_change", "term_key", "sort_key", "trash_seen_at", "studied"]
        return try database.prepare("SELECT name FROM pragma_table_info('words') ORDER BY cid").rows([]) { $0.text(0) }
            .filter { !local.contains($0) }.joined(separator: ", ")
    }

    /// `bench_term_key(text)` and `bench_sort_key(text)`: the term key (folded) and the
    /// Spanish collation key, computed in C by ICU as the library computes them in Swift.
    static func defineKeyFunctions(_ database: Database) throws {
        guard let collator = midiccio_collator_open("es_ES") else { throw BenchFailure("ICU has no collator") }
        let foldCode = sqlite3_create_function_v2(
            database.handle, "bench_term_key", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, arguments in
                guard let context, let arguments, let value = arguments[0], let text = sqlite3_value_text16(value) else {
                    sqlite3_result_null(context)
                    return
                }
                let units = Int(sqlite3_value_bytes16(value)) / 2
                var out = [UInt16](repeating: 0, count: units * 3 + 16)
                let length = midiccio_fold(text.assumingMemoryBound(to: UInt16.self), Int32(units), &out, Int32(out.count))
                sqlite3_result_text16(context, out, max(0, length) * 2, midiccio_sqlite_transient())
            }, nil, nil, nil)
        let sortCode = sqlite3_create_function_v2(
            database.handle, "bench_sort_key", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, UnsafeMutableRawPointer(collator),
            { context, _, arguments in
                guard let context, let arguments, let value = arguments[0], let text = sqlite3_value_text16(value) else {
                    sqlite3_result_null(context)
                    return
                }
                let collator = OpaquePointer(sqlite3_user_data(context))
                let units = Int32(sqlite3_value_bytes16(value) / 2)
                var key = [UInt8](repeating: 0, count: 256)
                var length = midiccio_collator_sort_key(collator, text.assumingMemoryBound(to: UInt16.self), units, &key, 256)
                if length > 256 {
                    key = [UInt8](repeating: 0, count: Int(length))
                    length = midiccio_collator_sort_key(collator, text.assumingMemoryBound(to: UInt16.self), units, &key, length)
                }
                sqlite3_result_blob(context, key, max(0, length - 1), midiccio_sqlite_transient())
            }, nil, nil, nil)
        guard foldCode == SQLITE_OK, sortCode == SQLITE_OK else { throw BenchFailure("cannot define the key functions") }
    }

    static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// zstd level 3 of the file at `path`, one frame.
    static func compress(_ path: String, to output: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var packed = Data(count: ZSTD_compressBound(data.count))
        let written = packed.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { ZSTD_compress(out.baseAddress, out.count, $0.baseAddress, $0.count, 3) }
        }
        guard ZSTD_isError(written) == 0 else { throw BenchFailure("zstd could not compress \(path)") }
        try packed.prefix(written).write(to: URL(fileURLWithPath: output))
    }

    static func decompress(_ path: String, to output: String) throws {
        let packed = try Data(contentsOf: URL(fileURLWithPath: path))
        let size = packed.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        guard size < UInt64(Int.max) else { throw BenchFailure("\(path) does not say its size") }
        var data = Data(count: Int(size))
        let read = data.withUnsafeMutableBytes { out in
            packed.withUnsafeBytes { ZSTD_decompress(out.baseAddress, out.count, $0.baseAddress, $0.count) }
        }
        guard ZSTD_isError(read) == 0, read == Int(size) else { throw BenchFailure("zstd could not read \(path)") }
        try data.write(to: URL(fileURLWithPath: output))
    }
}
