import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// A library moved to a machine with another ICU (or an ICU upgrade) holds sort keys and
/// term keys that this ICU would compute differently: term order and duplicate finding
/// would mix the two. Opening the library computes them again, once.
@Suite("Keys from another ICU are computed again")
struct KeysFromAnotherICUAreComputedAgainTests {
    /// Makes the library look written by another ICU: its recorded version and the keys of
    /// "árbol" and "Zebra" are not what this ICU computes.
    private func pretendAnotherICU(_ path: String) throws {
        let database = try Database(path: path, create: false)
        try database.defineSchemaGuard(newest: Migrations.all.count)
        try database.execute("UPDATE library_info SET value = '1.0.0' WHERE key = 'collation.icu'")
        try database.execute("UPDATE words SET sort_key = x'00', term_key = 'stale' WHERE term IN ('árbol', 'Zebra')")
    }

    @Test("a library written by another ICU orders and matches its terms as this ICU does once opened")
    func keysAreComputedAgain() throws {
        try withLibraryFile { path, clock in
            do {
                let library = try WordLibrary(path: path, clock: clock, environment: [:])
                for term in ["zorro", "árbol", "eagle", "Zebra", "abeja"] { try library.add(WordContent(term: term)) }
                #expect(try library.info("collation.icu") == TermCollation.keysVersion)
            }
            try pretendAnotherICU(path)

            let reopened = try WordLibrary(path: path, clock: clock, environment: [:])
            #expect(try reopened.list(ListQuery(sort: .term)).map(\.term) == ["abeja", "árbol", "eagle", "Zebra", "zorro"])
            #expect(try reopened.duplicates(of: "ARBOL").map(\.term) == ["árbol"])
            #expect(try reopened.info("collation.icu") == TermCollation.keysVersion)
        }
    }

    @Test("keys are computed again only when the ICU changed, and nothing synced moves")
    func onlyWhenTheICUChanged() throws {
        try withLibraryFile { path, clock in
            let before: LibrarySnapshot
            do {
                let library = try WordLibrary(path: path, clock: clock, environment: [:])
                for term in ["zorro", "árbol", "Zebra"] { try library.add(WordContent(term: term)) }
                before = try library.snapshot()
            }
            // Same ICU: a stale key is left alone (nothing is recomputed at every open).
            let database = try Database(path: path, create: false)
            try database.defineSchemaGuard(newest: Migrations.all.count)
            try database.execute("UPDATE words SET term_key = 'stale' WHERE term = 'zorro'")
            #expect(try WordLibrary(path: path, clock: clock, environment: [:]).duplicates(of: "zorro").isEmpty)

            // Another ICU: every key is right again, and the words themselves are as they were.
            try database.execute("UPDATE library_info SET value = '1.0.0' WHERE key = 'collation.icu'")
            let reopened = try WordLibrary(path: path, clock: clock, environment: [:])
            #expect(try reopened.duplicates(of: "zorro").map(\.term) == ["zorro"])
            #expect(try reopened.snapshot() == before)
        }
    }

    @Test("the computing says how far it has come, and nothing is said when the keys are current")
    func progressIsReported() throws {
        try withLibraryFile { path, clock in
            do {
                let library = try WordLibrary(path: path, clock: clock, environment: [:])
                for index in 0..<4_500 { try library.add(WordContent(term: "palabra \(index)")) }
            }
            var heard: [[Int]] = []
            _ = try WordLibrary(path: path, clock: clock, environment: [:], keyProgress: { heard.append([$0, $1]) })
            #expect(heard.isEmpty)

            try pretendAnotherICU(path)
            _ = try WordLibrary(path: path, clock: clock, environment: [:], keyProgress: { heard.append([$0, $1]) })
            // A report at the start and after each batch of 2,000 words.
            #expect(heard == [[0, 4_500], [2_000, 4_500], [4_000, 4_500], [4_500, 4_500]])
        }
    }
}
