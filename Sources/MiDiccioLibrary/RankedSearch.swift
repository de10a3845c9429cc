import Foundation
import MiDiccioModel
import MiDiccioStore

// MARK: - Pages ranked by relevance, one tier at a time

/// A search ranked by relevance reads its page tier by tier, each tier from its own index
/// in its own order, and stops as soon as the page is full. The first page of a two-letter
/// query then comes from the term index alone; only the total reads every full-text match.
extension WordLibrary {
    /// The page and total of a ranked search (`find` with no sort and words to rank by).
    func findRanked(_ plan: SearchPlan, limit: Int, offset: Int, counted: Bool) throws -> SearchPage {
        var skip = offset
        // Uncounted, one row past the page says whether more follow.
        var wanted = counted ? limit : limit + 1
        var seqs: [Int64] = []
        var threshold: Int64 = 0
        // Every word the term tiers hold, while each was read whole from its start: the
        // full-text tiers then leave these out without matching the term column again.
        var termTierWords: Set<Int64>? = []
        for index in plan.tierCount where wanted > 0 {
            if index == SearchPlan.newestRankedTier {
                // Read whole (at most `rankedMatches` rows) and ordered here.
                let (ranked, oldestRanked) = try newestRanked(plan, excluding: termTierWords)
                threshold = oldestRanked
                if skip >= ranked.count {
                    skip -= ranked.count
                } else {
                    let taken = ranked[skip..<min(ranked.count, skip + wanted)]
                    seqs += taken
                    wanted -= taken.count
                    skip = 0
                }
                continue
            }
            let tier = plan.tier(index, threshold: threshold, excluding: termTierWords)
            let rows = try database.cached("SELECT \(tier.column) FROM \(tier.source) ORDER BY \(tier.order) LIMIT ? OFFSET ?")
                .rows(tier.values + [.integer(Int64(wanted)), .integer(Int64(skip))]) { $0.int64(0) }
            if index < SearchPlan.newestRankedTier {
                // Whole only when nothing was skipped and the tier ended before the page did.
                if skip > 0 || rows.count == wanted {
                    termTierWords = nil
                } else {
                    termTierWords?.formUnion(rows)
                }
            }
            if rows.isEmpty {
                if skip > 0 {
                    // The whole tier comes before the page.
                    let size = try database.cached("SELECT count(*) FROM \(tier.source)").rows(tier.values) { $0.int64(0) }
                    skip -= Int(size.first ?? 0)
                }
            } else {
                skip = 0
                seqs += rows
                wanted -= rows.count
            }
        }
        guard counted else {
            return SearchPage(words: try wordsInOrder(Array(seqs.prefix(limit))), total: nil, hasMore: seqs.count > limit)
        }
        let (countSQL, countValues) = plan.countStatement()
        let total = Int(try database.cached(countSQL).rows(countValues) { $0.int64(0) }.first ?? 0)
        let words = try wordsInOrder(seqs)
        return SearchPage(words: words, total: total, hasMore: offset + words.count < total)
    }

    /// The newest `rankedMatches` full-text matches that no earlier tier holds, best first
    /// (BM25, then newest), read in one pass over the search index; and the row number
    /// from which matches are ranked (the oldest of those read, or 0 when every match was).
    /// `termTierWords`, when known, are every word of the earlier tiers; without them, the
    /// statement finds which matches those tiers hold.
    ///
    /// When fewer than `rankedMatches` were read (every match), the order is SQLite's
    /// bm25() exactly. When that many were (only the newest are ranked), every word of the
    /// query weighs the same: BM25's
    /// IDF needs each word's document count, a second pass over each word's whole
    /// document list (4 ms of a 9 ms search at a million words), and the ranking is
    /// already that of the newest matches only.
    private func newestRanked(_ plan: SearchPlan, excluding termTierWords: Set<Int64>?) throws -> ([Int64], Int64) {
        let (sql, values) = plan.newestMatchesStatement(termTiersKnown: termTierWords != nil)
        var oldest: Int64 = 0
        var read = 0
        var matches: [(seq: Int64, stats: FullTextMatchStats)] = []
        try database.cached(sql).forEachRow(values) { row in
            read += 1
            oldest = row.int64(0)
            guard row.int64(2) == 0, termTierWords?.contains(oldest) != true else { return }
            matches.append((oldest, row.withBytes(1) { FullTextMatchStats($0) }))
        }
        let everyMatchRead = read < WordLibrary.rankedMatches
        var idf = [Double](repeating: 1, count: plan.phrases.count)
        if everyMatchRead, let rows = matches.first?.stats.rows {
            // As bm25() finds it (fts5_aux.c, fts5Bm25GetData).
            for (index, phrase) in plan.phrases.enumerated() {
                let hits =
                    try database.cached("SELECT count(*) FROM words_fts WHERE words_fts MATCH ?")
                    .rows([.text(phrase)]) { $0.int64(0) }.first ?? 0
                let value = log((Double(rows - hits) + 0.5) / (Double(hits) + 0.5))
                idf[index] = value <= 0 ? 1e-6 : value
            }
        }
        var ranked = matches.map { (seq: $0.seq, score: $0.stats.bm25(idf: idf)) }
        ranked.sort { $0.score != $1.score ? $0.score < $1.score : $0.seq > $1.seq }
        return (ranked.map(\.seq), read == WordLibrary.rankedMatches ? oldest : 0)
    }

    /// The words with row numbers `seqs`, in that order.
    private func wordsInOrder(_ seqs: [Int64]) throws -> [Word] {
        guard !seqs.isEmpty else { return [] }
        let list = SearchPlan.jsonList(seqs)
        var bySeq: [Int64: Word] = [:]
        _ = try database.cached("SELECT \(Self.columns) FROM words WHERE seq IN (SELECT value FROM json_each(?))")
            .rows([.text(list)]) { row in bySeq[row.int64(0)] = try Self.storedWord(row).word }
        return seqs.compactMap { bySeq[$0] }
    }
}

/// What `midiccio_match_stats` (CFullTextRank) gives for one full-text match: the inputs
/// of SQLite's bm25() but the document count of each phrase.
struct FullTextMatchStats {
    /// Rows in the search index.
    var rows: Int64 = 0
    /// Tokens in the search index, all rows.
    var tokens: Double = 0
    /// Tokens in this row.
    var length: Double = 0
    /// Each phrase's hits in this row, weighted by column.
    var hits: [Double] = []

    /// Reads the function's blob of native doubles; empty values when it is too short.
    init(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count / MemoryLayout<Double>.size
        guard count >= 3 else { return }
        let values = (0..<count).map { bytes.loadUnaligned(fromByteOffset: $0 * MemoryLayout<Double>.size, as: Double.self) }
        rows = Int64(values[0])
        tokens = values[1]
        length = values[2]
        hits = Array(values[3...])
    }

    /// The score SQLite's bm25() gives this match (lower is better) with these IDF
    /// weights, one per phrase: the same operations in the same order (fts5_aux.c,
    /// fts5Bm25Function), so equal inputs give the same number.
    func bm25(idf: [Double]) -> Double {
        let k1 = 1.2
        let b = 0.75
        let averageLength = tokens / Double(rows)
        var score = 0.0
        for (index, frequency) in hits.enumerated() where index < idf.count {
            score += idf[index] * ((frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + b * length / averageLength)))
        }
        return -1.0 * score
    }
}

/// One tier of a ranked search: where its rows come from, their order and the values.
struct SearchTier {
    /// The row number column (`seq` or the search index's `rowid`).
    let column: String
    /// `table WHERE ...`, without an order.
    let source: String
    /// The tier's order, with a last key that breaks every tie.
    let order: String
    /// The values of `source`'s placeholders.
    let values: [SQLValue]
}

extension SearchPlan {
    /// True when the query has text or field prefixes: its matches are found through the
    /// term index or the search index, and ranked. Text without a word for the search index
    /// (`🐱`, `%`) still matches the terms starting with it: taken for no search, it listed
    /// every word while the count said 3, and "all 3 matches" put the whole library in the Trash.
    var isRanked: Bool { !key.isEmpty || !fieldClauses.isEmpty }

    /// True when the search index is read: a one-letter query is answered from terms
    /// only (see `search(_:limit:)`).
    var usesFullText: Bool { !fieldClauses.isEmpty || (!freeTokens.isEmpty && key.count > 1) }

    /// The upper end of the term index range of terms starting with the query.
    private var keyEnd: String { key + "\u{10FFFF}" }

    /// The tiers in their order, as indexes for `tier(_:threshold:)`: the exact term, terms
    /// starting with the query, terms holding its words, the newest other matches ranked,
    /// then the older ones newest first.
    var tierCount: Range<Int> {
        let termTiers = key.isEmpty ? 2..<2 : 0..<2
        guard usesFullText else { return termTiers }
        return (freeTokens.isEmpty ? 3 : termTiers.lowerBound)..<5
    }

    /// Words the term tiers hold, by the filters every tier shares (tags, field prefixes).
    private var termFilters: (String, [SQLValue]) {
        var (sql, values) = tagFilter("seq")
        if !fieldClauses.isEmpty {
            sql += " AND seq IN (SELECT rowid FROM words_fts WHERE words_fts MATCH ?)"
            values.append(.text(fieldClauses.joined(separator: " AND ")))
        }
        return (sql, values)
    }

    /// The full-text match of every free word and field prefix, with the tag filters.
    var fullTextFilter: (String, [SQLValue]) {
        let free = freeTokens.isEmpty ? [] : ["(\(Self.prefixes(freeTokens)))"]
        let all = (free + fieldClauses).joined(separator: " AND ")
        // "+rowid": a rowid constraint handed to FTS5 runs the whole match once per
        // tagged word; filtered after the match it is cheap.
        let (tags, tagValues) = tagFilter("+rowid")
        return ("words_fts MATCH ?\(tags)", [.text(all)] + tagValues)
    }

    /// The full-text match in the term only (tier 2): the query's words in the index of
    /// terms (`terms_fts`), a tenth the size of the whole search index; with field
    /// prefixes, which only the whole index holds, in its term column.
    /// `rank` orders its rows best first.
    private var termMatch: (table: String, match: String, rank: String) {
        guard !fieldClauses.isEmpty else { return ("terms_fts", Self.prefixes(freeTokens), "bm25(terms_fts)") }
        return (
            "words_fts", (["{term} : (\(Self.prefixes(freeTokens)))"] + fieldClauses).joined(separator: " AND "),
            "bm25(words_fts, \(SearchRanking.bm25Weights))"
        )
    }

    /// Leaves out full-text matches (rows of `table`) a term tier already holds.
    private func notInTermTiers(_ table: String = "words_fts") -> (String, [SQLValue]) {
        guard !freeTokens.isEmpty else { return ("", []) }
        return (
            " AND NOT EXISTS (SELECT 1 FROM words r WHERE r.seq = \(table).rowid AND r.term_key >= ? AND r.term_key < ?)",
            [.text(key), .text(keyEnd)]
        )
    }

    /// The tier read whole by `newestRanked`: the newest full-text matches, ranked.
    static let newestRankedTier = 3

    /// Tier `index` (see `tierCount`) other than `newestRankedTier`; `threshold` is the row
    /// number from which full-text matches are ranked. `termTierWords`, when known, are
    /// every word of the term tiers (0 to 2), which the last tier then leaves out as they
    /// are instead of matching the term column again.
    func tier(_ index: Int, threshold: Int64, excluding termTierWords: Set<Int64>? = nil) -> SearchTier {
        switch index {
        case 0:
            let (filters, values) = termFilters
            return SearchTier(
                column: "seq", source: "words WHERE term_key = ? AND deleted_at IS NULL\(filters)", order: "seq",
                values: [.text(key)] + values)
        case 1:
            let (filters, values) = termFilters
            return SearchTier(
                column: "seq", source: "words WHERE term_key > ? AND term_key < ? AND deleted_at IS NULL\(filters)",
                order: "term_key, seq", values: [.text(key), .text(keyEnd)] + values)
        case 2:
            let (tags, tagValues) = tagFilter("+rowid")
            let (table, match, rank) = termMatch
            let (outside, outsideValues) = notInTermTiers(table)
            return SearchTier(
                column: "rowid", source: "\(table) WHERE \(table) MATCH ?\(tags)\(outside)", order: "\(rank), rowid DESC",
                values: [.text(match)] + tagValues + outsideValues)
        default:
            // The matches older than the ranked ones, newest first.
            let (match, matchValues) = fullTextFilter
            var (outside, outsideValues) = notInTermTiers()
            var (notInTerm, notInTermValues) = notInTermMatch
            if let termTierWords, !freeTokens.isEmpty {
                (notInTerm, notInTermValues) = ("", [])
                (outside, outsideValues) = (" AND +rowid NOT IN (SELECT value FROM json_each(?))", [.text(Self.jsonList(termTierWords))])
            }
            return SearchTier(
                column: "rowid", source: "words_fts WHERE \(match) AND rowid < ?\(notInTerm)\(outside)", order: "rowid DESC",
                values: matchValues + [.integer(threshold)] + notInTermValues + outsideValues)
        }
    }

    /// Leaves out matches in the term (tier 2).
    private var notInTermMatch: (String, [SQLValue]) {
        guard !freeTokens.isEmpty else { return ("", []) }
        let (table, match, _) = termMatch
        return (" AND +rowid NOT IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?)", [.text(match)])
    }

    /// A JSON array of row numbers, for `json_each`.
    static func jsonList(_ seqs: some Sequence<Int64>) -> String {
        "[" + seqs.map(String.init).joined(separator: ",") + "]"
    }

    /// The newest `rankedMatches` full-text matches, newest first. Its rows: the row
    /// number, the match's BM25 inputs (`FullTextMatchStats`), and 1 when an earlier tier
    /// holds the word (its term holds the query), else 0; always 0 when `termTiersKnown`
    /// (the caller holds those words, and matching the term column again would cost as
    /// much as the tier itself).
    func newestMatchesStatement(termTiersKnown: Bool = false) -> (String, [SQLValue]) {
        let (match, matchValues) = fullTextFilter
        var earlier = "0"
        var earlierValues: [SQLValue] = []
        if !freeTokens.isEmpty && !termTiersKnown {
            let (table, match, _) = termMatch
            earlier = """
                (+rowid IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?)
                 OR EXISTS (SELECT 1 FROM words r WHERE r.seq = words_fts.rowid AND r.term_key >= ? AND r.term_key < ?))
                """
            earlierValues = [.text(match), .text(key), .text(keyEnd)]
        }
        return (
            """
            SELECT rowid, midiccio_match_stats(words_fts, \(SearchRanking.bm25Weights)), \(earlier) FROM words_fts WHERE \(match)
            ORDER BY rowid DESC LIMIT \(WordLibrary.rankedMatches)
            """,
            earlierValues + matchValues
        )
    }

    /// A statement whose rows are the row numbers of every match, once each: the term
    /// tiers' words and the full-text matches.
    func matchSet() -> (String, [SQLValue]) {
        let (filters, values) = termFilters
        let terms = "SELECT seq FROM words WHERE term_key >= ? AND term_key < ? AND deleted_at IS NULL\(filters)"
        let termValues: [SQLValue] = [.text(key), .text(keyEnd)] + values
        guard usesFullText else { return (terms, termValues) }
        let (match, matchValues) = fullTextFilter
        guard !freeTokens.isEmpty else { return ("SELECT rowid FROM words_fts WHERE \(match)", matchValues) }
        return ("SELECT rowid FROM words_fts WHERE \(match) UNION \(terms)", matchValues + termValues)
    }

    /// The statement that counts every match of a ranked search, whatever the tier.
    func countStatement() -> (String, [SQLValue]) {
        let (matches, values) = matchSet()
        return ("SELECT count(*) FROM (\(matches))", values)
    }
}
