import MiDiccioModel
import MiDiccioStore

/// How search ranks full-text matches.
enum SearchRanking {
    /// BM25 weights of the search index's columns, in their order: term, reading,
    /// meaning, examples, notes, tags. A match in the term weighs most.
    static let bm25Weights = "10.0, 6.0, 4.0, 1.0, 1.0, 3.0"
}

/// Search as you type: case- and accent-insensitive, every word of the query a prefix.
extension WordLibrary {
    /// Words not in the Trash that match `query`, best first: an exact term match, then
    /// terms that start with the query, then the rest ranked by relevance (BM25, with a
    /// match in the term weighing most).
    public func search(_ query: String, limit: Int = 20) throws -> [Word] {
        let tokens = Self.searchTokens(query)
        guard !tokens.isEmpty, limit > 0 else { return [] }
        let key = TermKey.fold(query.trimmed)
        return try guarded {
            try database.read {
                var results: [Word] = []
                var seen = Set<WordID>()
                func take(_ words: [Word]) {
                    for word in words where results.count < limit && seen.insert(word.id).inserted {
                        results.append(word)
                    }
                }
                // The two term tiers come straight from the term index: cheap even when a
                // one-letter query matches a third of the library.
                take(
                    try database.cached("SELECT \(Self.columns) FROM words WHERE term_key = ? AND deleted_at IS NULL ORDER BY seq LIMIT ?")
                        .rows([.text(key), .integer(Int64(limit))], Self.storedWord).map(\.word))
                if results.count < limit {
                    take(
                        try database.cached(
                            """
                            SELECT \(Self.columns) FROM words WHERE term_key > ? AND term_key < ? AND deleted_at IS NULL
                            ORDER BY term_key LIMIT ?
                            """
                        ).rows([.text(key), .text(key + "\u{10FFFF}"), .integer(Int64(limit))], Self.storedWord).map(\.word))
                }
                // A one-letter query is answered from terms only: as a full-text prefix it
                // matches half the library and takes a hundred times longer.
                if results.count < limit && key.count > 1 {
                    let match = tokens.map { "\"\($0)\"*" }.joined(separator: " ")
                    // Terms that hold every word of the query, not at their start ("chpé" in
                    // "méde chpéño"): few, so all are ranked. Then every column, ranked among
                    // the newest `rankedMatches` matches only.
                    for query in ["{term} : (\(match))", match] where results.count < limit {
                        take(try rankedMatches(query, limit: limit + results.count))
                    }
                }
                return results
            }
        }
    }

    /// How many full-text matches are ranked at most, the newest first: ranking (BM25)
    /// reads each match's column sizes, and a common word typed into a library of a
    /// million matches tens of thousands of them (39 ms at the 99th percentile). Below
    /// this many matches, every match is ranked; above it, the newest this many are.
    static let rankedMatches = 500

    /// Words outside the Trash matching the full-text `query`, best first (BM25, a term
    /// match weighing most), among its newest `rankedMatches` matches. Only the page's rows
    /// are read. (Spelling bm25() out is about a third faster than the configured rank.)
    private func rankedMatches(_ query: String, limit: Int) throws -> [Word] {
        try database.cached(
            """
            SELECT \(Self.columns("w")) FROM
                (SELECT seq, score FROM
                    (SELECT rowid AS seq, bm25(words_fts, \(SearchRanking.bm25Weights)) AS score
                     FROM words_fts WHERE words_fts MATCH ? ORDER BY rowid DESC LIMIT \(Self.rankedMatches))
                 ORDER BY score LIMIT ?) AS hit
            JOIN words w ON w.seq = hit.seq ORDER BY hit.score
            """
        ).rows([.text(query), .integer(Int64(limit))], Self.storedWord).map(\.word)
    }

    /// The words of a query as the search index splits text: runs of letters, digits and
    /// combining marks. Quotes and operators are dropped so no query is a syntax error.
    static func searchTokens(_ query: String) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in query.unicodeScalars {
            let properties = scalar.properties
            if properties.isAlphabetic || properties.numericType != nil || properties.generalCategory == .nonspacingMark
                || properties.generalCategory == .decimalNumber
            {
                current.append(scalar)
            } else if !current.isEmpty {
                tokens.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { tokens.append(String(current)) }
        return tokens
    }
}
