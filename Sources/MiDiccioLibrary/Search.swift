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

// MARK: - Search pages

/// Search with prefixes, a tag, an order and pages: what the web app and `midiccio search`
/// ask for. Every match is found and counted, whatever the page.
extension WordLibrary {
    /// One page of the words outside the Trash that match `request`, with how many match
    /// in all. One SQL statement finds, filters, orders, counts and pages them.
    ///
    /// Ranked by relevance, the tiers are those of `search(_:limit:)`: an exact term,
    /// terms starting with the free words, terms holding them, then other fields. Within
    /// the full-text tiers, matches in the term and the newest `rankedMatches` matches
    /// are ranked by BM25, and the rest follow newest first: every match is still there.
    public func find(_ request: SearchRequest) throws -> SearchPage {
        let query = SearchQuery(parsing: request.query)
        let limit = max(0, request.limit)
        let offset = max(0, request.offset)
        let plan = SearchPlan(query: query, tag: request.tag)
        let (sql, values) = plan.statement(sort: request.sort)
        let pageValues = values + [.integer(Int64(limit)), .integer(Int64(offset))]
        let totalColumn = Int32(Self.columns.split(separator: ",").count)
        return try guarded {
            try database.read {
                var total = 0
                let words = try database.cached(sql).rows(pageValues) { row in
                    total = Int(row.int64(totalColumn))
                    return try Self.storedWord(row).word
                }
                if words.isEmpty && offset > 0 {
                    // Past the end: the page has no row to carry the total.
                    _ = try database.cached(sql).rows(values + [.integer(1), .integer(0)]) { row in
                        total = Int(row.int64(totalColumn))
                    }
                }
                return SearchPage(words: words, total: total, hasMore: offset + words.count < total)
            }
        }
    }
}

/// The SQL of one search: the parts of the match set and the filters every part shares.
struct SearchPlan {
    let freeTokens: [String]
    let key: String
    /// Full-text clauses of the field prefixes (`{meaning} : ("house"*)`).
    let fieldClauses: [String]
    let tagKeys: [String]
    let excludedTagKeys: [String]

    init(query: SearchQuery, tag: String?) {
        freeTokens = WordLibrary.searchTokens(query.text)
        key = TermKey.fold(query.text.trimmed)
        fieldClauses = query.fields.compactMap { match in
            let tokens = WordLibrary.searchTokens(match.text)
            return tokens.isEmpty ? nil : "{\(match.field.rawValue)} : (\(Self.prefixes(tokens)))"
        }
        tagKeys = (query.tags + [tag ?? ""]).filter { !$0.isEmpty }.map(TagSet.key)
        excludedTagKeys = query.excludedTags.map(TagSet.key)
    }

    private static func prefixes(_ tokens: [String]) -> String {
        tokens.map { "\"\($0)\"*" }.joined(separator: " ")
    }

    /// The tag filters on the row number `column`.
    private func tagFilter(_ column: String) -> (String, [SQLValue]) {
        var sql = ""
        var values: [SQLValue] = []
        for key in tagKeys {
            sql += " AND \(column) IN (SELECT word_seq FROM word_tags WHERE tag_key = ?)"
            values.append(.text(key))
        }
        for key in excludedTagKeys {
            sql += " AND \(column) NOT IN (SELECT word_seq FROM word_tags WHERE tag_key = ?)"
            values.append(.text(key))
        }
        return (sql, values)
    }

    /// The statement and its values, without the page's LIMIT and OFFSET (its last two).
    /// Its rows: the word's columns, then the number of matches in all.
    func statement(sort: ListSort?) -> (String, [SQLValue]) {
        let (parts, values, ranked) = hits()
        let best =
            parts.count == 1
            ? "hits"
            : "(SELECT seq, min(tier) AS tier, k, score FROM hits GROUP BY seq)"
        let order: String
        var join = ""
        switch ranked ? sort : sort ?? .updated {
        case nil:
            order = "b.tier, CASE b.tier WHEN 1 THEN b.k END, b.score IS NULL, b.score, CASE WHEN b.tier < 2 THEN b.seq ELSE -b.seq END"
        case .updated?:
            join = " JOIN words o ON o.seq = b.seq"
            order = "o.updated_at DESC, o.seq DESC"
        case .created?:
            join = " JOIN words o ON o.seq = b.seq"
            order = "o.created_at DESC, o.seq DESC"
        case .term?:
            join = " JOIN words o ON o.seq = b.seq"
            order = "o.sort_key, o.term, o.seq"
        }
        let sql = """
            WITH hits(seq, tier, k, score) AS (\(parts.joined(separator: " UNION ALL "))),
            page AS (SELECT b.seq, row_number() OVER (ORDER BY \(order)) AS position, count(*) OVER () AS total
                     FROM \(best) AS b\(join) ORDER BY \(order) LIMIT ? OFFSET ?)
            SELECT \(WordLibrary.columns("w")), page.total FROM page JOIN words w ON w.seq = page.seq ORDER BY page.position
            """
        return (sql, values)
    }

    /// Every match's row number (`seq`), each once, in no order: the words a bulk action on
    /// "all matches" changes. The same match set as `statement(sort:)`, without ranking.
    func members() -> (String, [SQLValue]) {
        let (parts, values, _) = hits()
        return ("WITH hits(seq, tier, k, score) AS (\(parts.joined(separator: " UNION ALL "))) SELECT DISTINCT seq FROM hits", values)
    }

    /// The parts of the match set (each a SELECT of seq, tier, k, score), their values,
    /// and whether there are words to rank by.
    private func hits() -> (parts: [String], values: [SQLValue], ranked: Bool) {
        var parts: [String] = []
        var values: [SQLValue] = []
        let (tags, tagValues) = tagFilter("seq")
        let fieldMatch = fieldClauses.joined(separator: " AND ")
        let ranked = !freeTokens.isEmpty || !fieldClauses.isEmpty
        if !freeTokens.isEmpty {
            // The two term tiers come from the term index (cheap even for one letter).
            var fields = ""
            var fieldValues: [SQLValue] = []
            if !fieldClauses.isEmpty {
                fields = " AND seq IN (SELECT rowid FROM words_fts WHERE words_fts MATCH ?)"
                fieldValues = [.text(fieldMatch)]
            }
            parts.append(
                "SELECT seq, 0 AS tier, NULL AS k, NULL AS score FROM words WHERE term_key = ? AND deleted_at IS NULL\(tags)\(fields)")
            values += [.text(key)] + tagValues + fieldValues
            parts.append(
                "SELECT seq, 1, term_key, NULL FROM words WHERE term_key > ? AND term_key < ? AND deleted_at IS NULL\(tags)\(fields)")
            values += [.text(key), .text(key + "\u{10FFFF}")] + tagValues + fieldValues
        }
        // A one-letter query is answered from terms only (see `search(_:limit:)`).
        if !fieldClauses.isEmpty || (!freeTokens.isEmpty && key.count > 1) {
            let free = Self.prefixes(freeTokens)
            // Parts of a full-text query are joined by an explicit AND: FTS5 reads two
            // column-filtered groups side by side as a syntax error.
            let all = ((free.isEmpty ? [] : ["(\(free))"]) + fieldClauses).joined(separator: " AND ")
            // "+rowid": a rowid constraint handed to FTS5 runs the whole match once per
            // tagged word (46 s for a tag on 4,600 words); filtered after the match, 5 ms.
            let (ftsTags, ftsTagValues) = tagFilter("+rowid")
            // Matches in the term (few) are all ranked, and so are the newest others.
            var inTerm = "0"
            if !freeTokens.isEmpty {
                inTerm = "rowid IN (SELECT rowid FROM words_fts WHERE words_fts MATCH ?)"
                values.append(.text((["{term} : (\(free))"] + fieldClauses).joined(separator: " AND ")))
            }
            parts.append(
                """
                SELECT rowid, CASE WHEN \(inTerm) THEN 2 ELSE 3 END, NULL,
                    CASE WHEN \(inTerm) OR rowid >= coalesce((SELECT rowid FROM words_fts WHERE words_fts MATCH ?\(ftsTags)
                                                 ORDER BY rowid DESC LIMIT 1 OFFSET \(WordLibrary.rankedMatches - 1)), 0)
                         THEN bm25(words_fts, \(SearchRanking.bm25Weights)) END
                FROM words_fts WHERE words_fts MATCH ?\(ftsTags)
                """)
            if !freeTokens.isEmpty { values.append(values[values.count - 1]) }
            values += [.text(all)] + ftsTagValues + [.text(all)] + ftsTagValues
        }
        if parts.isEmpty {
            parts.append("SELECT seq, 3 AS tier, NULL AS k, NULL AS score FROM words WHERE deleted_at IS NULL\(tags)")
            values += tagValues
        }
        return (parts, values, ranked)
    }
}
