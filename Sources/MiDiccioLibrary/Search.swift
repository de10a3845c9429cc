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
    /// Words not in the Trash that match `query`, best first, as `find` ranks them (an
    /// exact term match, then terms that start with the query, then the rest by
    /// relevance), without counting them. A query without words finds nothing.
    public func search(_ query: String, limit: Int = 20) throws -> [Word] {
        guard !Self.searchTokens(query).isEmpty, limit > 0 else { return [] }
        return try find(SearchRequest(query: query, limit: limit, counted: false)).words
    }

    /// How many full-text matches are ranked at most, the newest first: ranking (BM25)
    /// reads each match's column sizes, and a common word typed into a library of a
    /// million matches tens of thousands of them (39 ms at the 99th percentile). Below
    /// this many matches, every match is ranked; above it, the newest this many are.
    static let rankedMatches = 500

    /// The words of a query as the search index splits text: runs of letters, digits and
    /// combining marks; invisible format characters (a soft hyphen, a zero-width space)
    /// are left out without splitting, as the index's text leaves them (`SearchText`).
    /// Quotes and operators are dropped so no query is a syntax error.
    static func searchTokens(_ query: String) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in query.unicodeScalars {
            let properties = scalar.properties
            if properties.generalCategory == .format { continue }
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
    /// in all. Ranked by relevance, the page is read tier by tier and the matches are
    /// counted apart (`findRanked`); in a chosen order, one statement gathers the matches
    /// once, counts them and walks the order's index for the page.
    ///
    /// Ranked by relevance, the tiers are those of `search(_:limit:)`: an exact term,
    /// terms starting with the free words, terms holding them, then other fields. Within
    /// the full-text tiers, matches in the term and the newest `rankedMatches` matches
    /// are ranked by BM25, and the rest follow newest first: every match is still there.
    public func find(_ request: SearchRequest) throws -> SearchPage {
        let query = SearchQuery(parsing: request.query)
        let limit = max(0, request.limit)
        let offset = max(0, request.offset)
        let plan = try guarded { try searchPlan(query, tag: request.tag) }
        if request.sort == nil && plan.isRanked {
            return try guarded {
                try database.read { try findRanked(plan, limit: limit, offset: offset, counted: request.counted) }
            }
        }
        let (sql, values) = plan.statement(sort: request.sort, counted: request.counted)
        // One row past the page says whether more follow when nothing is counted.
        let rowsRead = request.counted ? limit : limit + 1
        let pageValues = values + [.integer(Int64(rowsRead)), .integer(Int64(offset))]
        let totalColumn = Int32(Self.columns.split(separator: ",").count)
        return try guarded {
            try database.read {
                var total = 0
                var words = try database.cached(sql).rows(pageValues) { row in
                    total = Int(row.int64(totalColumn))
                    return try Self.storedWord(row).word
                }
                guard request.counted else {
                    let hasMore = words.count > limit
                    words = Array(words.prefix(limit))
                    return SearchPage(words: words, total: nil, hasMore: hasMore)
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

    /// How many words outside the Trash match `query` and `tag`: the total `find` gives,
    /// on its own.
    public func countMatches(query: String, tag: String? = nil) throws -> Int {
        return try guarded {
            let (sql, values) = try searchPlan(SearchQuery(parsing: query), tag: tag).countStatement()
            return try database.read { Int(try database.cached(sql).rows(values) { $0.int64(0) }.first ?? 0) }
        }
    }

    /// The plan of a search, with the search index brought up to date first: every read of
    /// the index goes through a plan, so a write that holds changes back
    /// (`SearchChanges`) makes them before anything inside it searches.
    func searchPlan(_ query: SearchQuery, tag: String?) throws -> SearchPlan {
        try makeSearchChanges()
        return SearchPlan(query: query, tag: tag)
    }
}

/// The SQL of one search: the parts of the match set and the filters every part shares.
struct SearchPlan {
    let freeTokens: [String]
    let key: String
    /// Full-text clauses of the field prefixes (`{meaning} : ("house"*)`).
    let fieldClauses: [String]
    /// Each phrase of the full-text match alone (`"house"*`, `{meaning} : "big"*`), in the
    /// order the search index numbers them: the free words, then the field prefixes'.
    let phrases: [String]
    let tagKeys: [String]
    let excludedTagKeys: [String]

    init(query: SearchQuery, tag: String?) {
        freeTokens = Self.indexWords(query.text)
        key = TermKey.fold(query.text.trimmed)
        fieldClauses = query.fields.compactMap { match in
            let tokens = Self.indexWords(match.text)
            return tokens.isEmpty ? nil : "{\(match.field.rawValue)} : (\(Self.prefixes(tokens)))"
        }
        phrases =
            Self.phrases(freeTokens)
            + query.fields.flatMap { match in
                Self.phrases(Self.indexWords(match.text)).map { "{\(match.field.rawValue)} : \($0)" }
            }
        tagKeys = (query.tags + [tag ?? ""]).filter { !$0.isEmpty }.map(TagSet.key)
        excludedTagKeys = query.excludedTags.map(TagSet.key)
    }

    /// The words of `text` (`WordLibrary.searchTokens`) folded as the search index holds
    /// its text (`SearchText.fold`): a word of ideographs or kana becomes a phrase of them
    /// ("試 験"), found inside a longer run. A word that folds to nothing (marks alone) is
    /// left out; a double quote (from a full-width one) is dropped, as the index drops it.
    static func indexWords(_ text: String) -> [String] {
        WordLibrary.searchTokens(text).compactMap { token in
            let folded = SearchText.fold(token)
            guard folded.contains(where: { !$0.isWhitespace }) else { return nil }
            return folded.filter { $0 != "\"" }
        }
    }

    static func prefixes(_ tokens: [String]) -> String {
        phrases(tokens).joined(separator: " ")
    }

    /// The full-text phrase of each word typed: a prefix (`"hou"*`, the word being typed
    /// or a word cut short on purpose), except a word of one or two letters with more
    /// after it (`"a"` in "a house"), which was typed whole. As a prefix such a word
    /// matches nearly every word in the library: "a house" took 170 ms at a million words
    /// with `"a"*`, 6 ms with `"a"`.
    static func phrases(_ tokens: [String]) -> [String] {
        tokens.enumerated().map { index, token in
            index < tokens.count - 1 && token.count <= 2 ? "\"\(token)\"" : "\"\(token)\"*"
        }
    }

    /// The tag filters on the row number `column`.
    func tagFilter(_ column: String) -> (String, [SQLValue]) {
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

    /// The statement of a search in a chosen order (or of a search with nothing to rank
    /// by) and its values, without the page's LIMIT and OFFSET (its last two). Its rows:
    /// the word's columns, then the number of matches in all.
    ///
    /// The matches are gathered once; the page then walks the order's own index and keeps
    /// the matches, so a common query does not sort tens of thousands of words.
    func statement(sort: ListSort?, counted: Bool = true) -> (String, [SQLValue]) {
        let (index, order): (String, String)
        switch sort ?? .updated {
        case .updated: (index, order) = ("words_live_updated", "w.updated_at DESC, w.seq DESC")
        case .created: (index, order) = ("words_live_created", "w.created_at DESC, w.seq DESC")
        case .term: (index, order) = ("words_live_sort", "w.sort_key, w.term, w.seq")
        }
        let columns = WordLibrary.columns("w")
        guard isRanked else {
            let (tags, tagValues) = tagFilter("w.seq")
            let (countTags, _) = tagFilter("seq")
            return (
                """
                SELECT \(columns), \(counted ? "(SELECT count(*) FROM words WHERE deleted_at IS NULL\(countTags))" : "NULL")
                FROM words w INDEXED BY \(index) WHERE w.deleted_at IS NULL\(tags) ORDER BY \(order) LIMIT ? OFFSET ?
                """,
                (counted ? tagValues : []) + tagValues
            )
        }
        let (matches, values) = matchSet()
        return (
            """
            WITH matches(seq) AS MATERIALIZED (\(matches))
            SELECT \(columns), \(counted ? "(SELECT count(*) FROM matches)" : "NULL") FROM words w INDEXED BY \(index)
            WHERE w.deleted_at IS NULL AND w.seq IN (SELECT seq FROM matches) ORDER BY \(order) LIMIT ? OFFSET ?
            """,
            values
        )
    }

    /// Every match's row number, each once, in no order: the words a bulk action on "all
    /// matches" changes. The same match set as `find`, without ranking.
    func members() -> (String, [SQLValue]) {
        guard isRanked else {
            let (tags, tagValues) = tagFilter("seq")
            return ("SELECT seq FROM words WHERE deleted_at IS NULL\(tags)", tagValues)
        }
        return matchSet()
    }
}
