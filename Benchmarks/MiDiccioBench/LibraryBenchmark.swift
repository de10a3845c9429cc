import Foundation
import MiDiccioKit
import MiDiccioTesting

/// `midiccio-bench library`: the figures of one person's large word list — importing it,
/// searching it as they type, opening the first page of the list, and the memory it takes.
enum LibraryBenchmark {
    /// The subcommand as `main.swift` registers it.
    static let subcommand = BenchSubcommand(
        name: "library",
        abstract: "Import, search, list and memory figures for a large generated library.",
        usage: "midiccio-bench library [--words <n>] [--seed <s>] [--library <path>]",
        options: [
            ("--words <n>", "How many words to generate and import (default 100000)."),
            ("--seed <s>", "Seed of the generated words and queries (default 1)."),
            (
                "--library <path>",
                "Only search and list this library, kept by an earlier run of the same --words and --seed "
                    + "(MIDICCIO_BENCH_KEEP=1): no import, no floor, no other formats."
            ),
        ],
        run: { try run($0) })

    /// The targets of the "Benchmark" section of issue 2, for this machine.
    enum Target {
        /// Import of the whole TSV, in seconds.
        static let importSeconds = 1.0
        /// Import of the whole TSV, as a multiple of the sqlite3 shell's floor (issue 12).
        static let importOverFloor = 1.6
        /// Median as-you-type search, in milliseconds.
        static let searchP50 = 2.0
        /// 99th percentile as-you-type search, in milliseconds.
        static let searchP99 = 10.0
        /// First page (50 words) of the list, in milliseconds.
        static let firstPage = 30.0
        /// Peak resident memory of the whole run, in megabytes (exclusive).
        static let peakMemory = 150.0
    }

    /// How often each first-page query runs; the median is reported.
    static let listRuns = 20
    /// How often the sqlite3 shell's floor runs; the median is reported.
    static let floorRuns = 3

    /// Runs the benchmark described by `arguments` and prints its table.
    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, accepting: ["words", "seed", "library"], usage: subcommand.usage)
        let wordCount = try options.integer("words", default: 100_000, in: 1...5_000_000)
        let seed = try options.unsigned("seed", default: 1)
        if let path = options.text("library") {
            try runOnKeptLibrary(path, wordCount: wordCount, seed: seed)
            return
        }

        let workspace = try TemporaryDirectory(prefix: "midiccio-bench")
        defer { workspace.remove() }
        let vocabulary = SyntheticVocabulary(seed: seed)

        Progress.note("writing \(Format.grouped(wordCount)) words as TSV")
        let sheetPath = workspace.path + "/words.tsv"
        let sheetBytes = try vocabulary.writeSheet(count: wordCount, to: sheetPath)
        let memoryBeforeLibrary = ProcessMemory.peakMegabytes()

        // A fixed collation locale, so the figures do not depend on the caller's LANG.
        let library = try WordLibrary(path: workspace.path + "/library.sqlite", environment: ["LANG": "es_ES.UTF-8"])

        Progress.note("importing")
        let cpuBefore = Stopwatch.cpuNanoseconds()
        let (report, importSeconds) = try Stopwatch.measure {
            try library.importSheet(from: sheetPath, format: .tsv)
        }
        let importCPUSeconds = Double(Stopwatch.cpuNanoseconds() - cpuBefore) / 1e9
        let stored = try library.counts().words
        guard report.added == wordCount, stored == wordCount else {
            throw BenchFailure("import added \(report.added) words and the library holds \(stored); expected \(wordCount)")
        }
        Progress.note("importing with the sqlite3 shell (the floor)")
        let floorSeconds = try (0..<floorRuns).map { run in
            try measureFloor(sheetPath: sheetPath, database: workspace.path + "/floor-\(run).sqlite")
        }

        Progress.note("searching")
        let queries = SearchQuerySet(vocabulary: vocabulary, wordCount: wordCount).queries
        let search = try measureSearch(queries, in: library)

        Progress.note("listing")
        var firstPage: [(ListSort, Double)] = []
        for sort in [ListSort.updated, .term, .created] {
            firstPage.append((sort, try measureFirstPage(sort, in: library, expected: min(50, wordCount))))
        }
        let peakMemory = ProcessMemory.peakMegabytes()

        // Issue 16's imports, at its sizes for the default run and scaled down with --words.
        let scale = Double(wordCount) / 100_000
        let formats = try ImportFormatsBenchmark.measure(
            vocabulary: vocabulary,
            listRows: max(1, Int(Double(ImportFormatsBenchmark.defaultListRows) * scale)),
            lookups: max(3, Int(Double(ImportFormatsBenchmark.defaultKindleLookups) * scale)), in: workspace.path)

        printReport(
            LibraryFigures(
                wordCount: wordCount, seed: seed, sheetBytes: sheetBytes, importSeconds: importSeconds,
                importCPUSeconds: importCPUSeconds, floorSeconds: Statistics.median(floorSeconds) ?? 0,
                duplicatesAdded: report.duplicatesAdded, search: search, firstPage: firstPage,
                memoryBeforeLibrary: memoryBeforeLibrary, peakMemory: peakMemory, formats: formats))
    }

    /// Searches and lists a library an earlier run kept, to compare builds without
    /// importing again; prints the search and list figures only.
    static func runOnKeptLibrary(_ path: String, wordCount: Int, seed: UInt64) throws {
        let library = try WordLibrary(path: path, environment: ["LANG": "es_ES.UTF-8"])
        let stored = try library.counts().words
        guard stored == wordCount else {
            throw BenchFailure("\(path) holds \(stored) words; --words says \(wordCount)")
        }
        Progress.note("searching")
        let queries = SearchQuerySet(vocabulary: SyntheticVocabulary(seed: seed), wordCount: wordCount).queries
        let search = try measureSearch(queries, in: library)
        Progress.note("listing")
        var firstPage: [(ListSort, Double)] = []
        for sort in [ListSort.updated, .term, .created] {
            firstPage.append((sort, try measureFirstPage(sort, in: library, expected: min(50, wordCount))))
        }
        printReport(
            LibraryFigures(
                wordCount: wordCount, seed: seed, sheetBytes: 0, importSeconds: 0, importCPUSeconds: 0, floorSeconds: 0,
                duplicatesAdded: 0, search: search, firstPage: firstPage, memoryBeforeLibrary: nil,
                peakMemory: ProcessMemory.peakMegabytes(), keptLibrary: path))
    }

    // MARK: - Measurements

    /// The least an import can cost (issue 12): the sqlite3 shell, as a whole process,
    /// reads the same TSV into a plain table with `.import` and builds a full-text index
    /// over it in one go, with the tokenizer MiDiccio's search uses. In seconds.
    static func measureFloor(sheetPath: String, database: String) throws -> Double {
        let shell = try StartupBenchmark.sqliteShell()
        let milliseconds = try StartupBenchmark.timeProcess([
            shell, database,
            "CREATE TABLE words (term TEXT, meaning TEXT, reading TEXT, examples TEXT, notes TEXT, tags TEXT)",
            "CREATE VIRTUAL TABLE words_fts USING fts5 (term, reading, meaning, examples, notes, tags, "
                + "content = 'words', tokenize = 'unicode61 remove_diacritics 2')",
            ".mode tabs", ".import --skip 1 '\(sheetPath)' words",
            "INSERT INTO words_fts (words_fts) VALUES ('rebuild')",
        ])
        try? FileManager.default.removeItem(atPath: database)
        return milliseconds / 1000
    }

    /// Runs every query once to warm caches, then once more timed, one at a time. Times
    /// `find` as the web app runs it while someone types (the first page of 20, the total
    /// left out), then the count it asks for after (`countMatches`), apart.
    static func measureSearch(_ queries: [SearchQuery], in library: WordLibrary) throws -> [SearchSample] {
        func page(_ query: SearchQuery) throws -> [Word] {
            try library.find(SearchRequest(query: query.text, limit: 20, counted: false)).words
        }
        for query in queries { _ = try page(query) }
        return try queries.map { query in
            let (results, seconds) = try Stopwatch.measure { try page(query) }
            let (_, countSeconds) = try Stopwatch.measure { try library.countMatches(query: query.text) }
            return SearchSample(
                query: query, milliseconds: seconds * 1000, countMilliseconds: countSeconds * 1000, resultCount: results.count)
        }
    }

    /// The median time, in milliseconds, of `listRuns` requests for the first 50 words.
    static func measureFirstPage(_ sort: ListSort, in library: WordLibrary, expected: Int) throws -> Double {
        var samples: [Double] = []
        for _ in 0..<listRuns {
            let (page, seconds) = try Stopwatch.measure { try library.list(ListQuery(sort: sort, limit: 50)) }
            guard page.count == expected else {
                throw BenchFailure("list sorted by \(sort.rawValue) returned \(page.count) words; expected \(expected)")
            }
            samples.append(seconds * 1000)
        }
        return Statistics.median(samples) ?? 0
    }

    // MARK: - Report

    /// Everything one run measured.
    struct LibraryFigures {
        /// Words generated and imported.
        var wordCount: Int
        /// The seed of the words and queries.
        var seed: UInt64
        /// Size of the TSV file.
        var sheetBytes: Int
        /// Wall time of `importSheet`.
        var importSeconds: Double
        /// CPU time of the process during `importSheet` (user and system).
        var importCPUSeconds: Double
        /// The sqlite3 shell's import of the same TSV (median of `floorRuns`).
        var floorSeconds: Double
        /// Rows whose term was already in the library (the generator repeats some terms).
        var duplicatesAdded: Int
        /// One sample per query.
        var search: [SearchSample]
        /// Median first-page time in milliseconds, per sort order.
        var firstPage: [(ListSort, Double)]
        /// Peak memory after writing the TSV, before the library was opened.
        var memoryBeforeLibrary: Double?
        /// Peak memory of the main import, search and list (before the other formats).
        var peakMemory: Double?
        /// The imports of a list without a header and of a Kindle database.
        var formats: [ImportFormatsBenchmark.Figure] = []
        /// The library searched when an earlier run's was reused (`--library`): nothing
        /// was imported.
        var keptLibrary: String?
    }

    /// Prints the machine, the main table, then the search figures per kind of query.
    static func printReport(_ figures: LibraryFigures) {
        var output = "midiccio-bench library\n"
        if Machine.isDebugBuild { output += "WARNING: debug build; figures are meaningless (use -c release)\n" }
        output +=
            "words: \(Format.grouped(figures.wordCount)) (seed \(figures.seed)), "
            + "TSV \(Format.decimal(Double(figures.sheetBytes) / 1e6, 1)) MB, cores: \(Machine.coreCount)\n\n"

        let latencies = figures.search.map(\.milliseconds)
        let p50 = Statistics.percentile(latencies, 50) ?? 0
        let p99 = Statistics.percentile(latencies, 99) ?? 0
        var table = TextTable(header: ["figure", "value", "target", "result"], rightAligned: [false, true, true, false])
        func add(_ figure: String, _ value: Double, _ unit: String, digits: Int, target: Double, strict: Bool = false) {
            let passed = strict ? value < target : value <= target
            table.rows.append([
                figure, "\(Format.decimal(value, digits)) \(unit)",
                "\(strict ? "<" : "≤") \(Format.decimal(target, 0)) \(unit)", passed ? "pass" : "FAIL",
            ])
        }
        if let kept = figures.keptLibrary {
            output += "searching \(kept) (kept by an earlier run): nothing imported\n\n"
        } else {
            add(
                "import \(Format.grouped(figures.wordCount)) words (TSV)", figures.importSeconds, "s", digits: 3,
                target: Target.importSeconds)
        }
        if figures.floorSeconds > 0 {
            let ratio = figures.importSeconds / figures.floorSeconds
            table.rows.append([
                "import / sqlite3 shell floor (\(Format.decimal(figures.floorSeconds, 3)) s)", "\(Format.decimal(ratio, 2))×",
                "≤ \(Format.decimal(Target.importOverFloor, 1))×", ratio <= Target.importOverFloor ? "pass" : "FAIL",
            ])
        }
        add("search p50 (\(latencies.count) as-you-type queries)", p50, "ms", digits: 3, target: Target.searchP50)
        add("search p99", p99, "ms", digits: 3, target: Target.searchP99)
        let counts = figures.search.map(\.countMilliseconds)
        for (name, percentile) in [("count of every match, p50", 50.0), ("count of every match, p99", 99.0)] {
            let value = Statistics.percentile(counts, percentile) ?? 0
            table.rows.append([name, "\(Format.decimal(value, 3)) ms", "—", ""])
        }
        for (sort, milliseconds) in figures.firstPage {
            add(
                "first page of list, sort \(sort.rawValue) (median of \(listRuns))", milliseconds, "ms", digits: 3,
                target: Target.firstPage)
        }
        if let peak = figures.peakMemory {
            add("peak memory (VmHWM)", peak, "MB", digits: 1, target: Target.peakMemory, strict: true)
        } else {
            table.rows.append(["peak memory (VmHWM)", "n/a", "< \(Format.decimal(Target.peakMemory, 0)) MB", "n/a"])
        }
        output += table.rendered()
        if !figures.formats.isEmpty {
            var imports = TextTable(
                header: ["other formats", "value", "words added", "peak memory (resident before)"], rightAligned: [false, true, true, true])
            for figure in figures.formats {
                let memory = figure.peakMegabytes.map { peak in
                    "\(Format.decimal(peak, 1)) MB" + (figure.residentBeforeMegabytes.map { " (\(Format.decimal($0, 1)) MB)" } ?? "")
                }
                imports.rows.append([
                    figure.name, "\(Format.decimal(figure.seconds, 3)) s", Format.grouped(figure.added), memory ?? "n/a",
                ])
            }
            output += "\n" + imports.rendered()
        }

        if figures.keptLibrary == nil {
            output +=
                "\nimport: \(Format.decimal(figures.importSeconds * 1e6 / Double(figures.wordCount), 1)) µs per word"
                + ", CPU time \(Format.decimal(figures.importCPUSeconds, 3)) s"
                + ", \(Format.grouped(figures.duplicatesAdded)) repeated terms added as duplicates"
        }
        if let before = figures.memoryBeforeLibrary {
            output += "; peak memory before opening the library: \(Format.decimal(before, 1)) MB"
        }
        output += "\n\nsearch by kind of query:\n"
        var kinds = TextTable(
            header: ["query kind", "queries", "p50", "max", "avg results"],
            rightAligned: [false, true, true, true, true])
        for kind in SearchQuery.Kind.allCases {
            let samples = figures.search.filter { $0.query.kind == kind }
            guard !samples.isEmpty else { continue }
            let times = samples.map(\.milliseconds)
            let results = Double(samples.map(\.resultCount).reduce(0, +)) / Double(samples.count)
            kinds.rows.append([
                kind.description, "\(samples.count)",
                "\(Format.decimal(Statistics.median(times) ?? 0, 3)) ms",
                "\(Format.decimal(times.max() ?? 0, 3)) ms", Format.decimal(results, 1),
            ])
        }
        output += kinds.rendered()
        let slowest = figures.search.sorted { $0.milliseconds > $1.milliseconds }.prefix(5)
        output +=
            "slowest: "
            + slowest.map { "\"\($0.query.text)\" \(Format.decimal($0.milliseconds, 2)) ms" }
            .joined(separator: ", ") + "\n"
        let unexpected = figures.search.filter { ($0.resultCount == 0) != ($0.query.kind == .noMatch) }
        if !unexpected.isEmpty {
            output +=
                "WARNING: \(unexpected.count) queries found results contrary to their kind: "
                + unexpected.prefix(5).map { "\"\($0.query.text)\"" }.joined(separator: ", ") + "\n"
        }
        print(output, terminator: "")
    }
}

// MARK: - Queries

/// One query a person types into the search box, and why it is in the set.
struct SearchQuery {
    /// What the query is meant to exercise.
    enum Kind: Int, CaseIterable, CustomStringConvertible {
        /// The first 1–5 characters of a term, as typed letter by letter.
        case prefix1 = 1, prefix2, prefix3, prefix4, prefix5
        /// Words or word prefixes from a meaning (full-text search, not the term index).
        case meaning
        /// A term with accents, typed without them (`cancion` for `canción`).
        case accentFree
        /// Text that occurs nowhere in the library.
        case noMatch

        /// A short label for the report.
        var description: String {
            switch self {
            case .prefix1, .prefix2, .prefix3, .prefix4, .prefix5: "term prefix, \(rawValue) char\(rawValue == 1 ? "" : "s")"
            case .meaning: "meaning words"
            case .accentFree: "term without accents"
            case .noMatch: "matches nothing"
            }
        }
    }

    /// The kind of query.
    var kind: Kind
    /// The text passed to `WordLibrary.search`.
    var text: String
}

/// The time and result count of one timed search.
struct SearchSample {
    /// The query.
    var query: SearchQuery
    /// Wall time of the first page (`find`, not counted).
    var milliseconds: Double
    /// Wall time of counting every match (`countMatches`).
    var countMilliseconds: Double
    /// How many words it returned (at most 20).
    var resultCount: Int
}

/// The fixed list of 200 as-you-type queries for a generated vocabulary: 150 term
/// prefixes (30 terms × 1–5 characters), 25 meaning queries, 15 accent-free terms and
/// 10 queries that match nothing. Same seed and size, same queries.
struct SearchQuerySet {
    /// The queries, in the order they run.
    let queries: [SearchQuery]

    /// Derives the queries from rows of `vocabulary` chosen by a generator of its seed.
    init(vocabulary: SyntheticVocabulary, wordCount: Int) {
        var random = SeededGenerator(seed: vocabulary.seed ^ 0x5EA4_C400_0000_0001)
        var queries: [SearchQuery] = []

        /// The first row at or after a random position (wrapping) whose term satisfies
        /// `accept`; the random row itself when none does.
        func term(where accept: (String) -> Bool) -> SheetRow {
            let start = random.next(below: wordCount)
            for step in 0..<min(wordCount, 10_000) {
                let row = vocabulary.row((start + step) % wordCount)
                if accept(row.term) { return row }
            }
            return vocabulary.row(start)
        }

        for _ in 0..<30 {
            let typed = term { $0.count >= 5 }.term
            for length in 1...5 {
                queries.append(SearchQuery(kind: SearchQuery.Kind(rawValue: length)!, text: String(typed.prefix(length))))
            }
        }
        for index in 0..<25 {
            let words = vocabulary.row(random.next(below: wordCount)).meaning.split(separator: " ").map(String.init)
            let longest = words.max { $0.count < $1.count } ?? words[0]
            let text =
                switch index % 3 {
                case 0: longest
                case 1: String(longest.prefix(max(1, longest.count - 2)))
                default: words.suffix(2).joined(separator: " ")
                }
            queries.append(SearchQuery(kind: .meaning, text: text))
        }
        for index in 0..<15 {
            let folded = TermKey.fold(term { !$0.unicodeScalars.allSatisfy(\.isASCII) }.term)
            let text = index.isMultiple(of: 2) ? folded : String(folded.prefix(max(3, folded.count - 2)))
            queries.append(SearchQuery(kind: .accentFree, text: text))
        }
        // Letters and clusters that neither the syllables nor the English words produce.
        for text in ["qxz", "zzyzx", "wkq", "xjq", "qqqq", "kvvk", "jxjx", "zqk", "wwxy", "qjz xk"] {
            queries.append(SearchQuery(kind: .noMatch, text: text))
        }
        self.queries = queries
    }
}
