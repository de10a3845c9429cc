import MiDiccioStore

/// The search-index changes a write makes to rows, held back and made together, in row
/// order.
///
/// Made one at a time, between a word's other statements, they cost a write of many words
/// dearly. Before each statement that SQLite may have to undo on its own (a tag row, a
/// word moved to the Trash or out of it: their triggers and foreign keys give them a
/// statement journal; an update that sets no column a trigger reads has none since
/// `HotStatements.IndexedColumns`), SQLite asks FTS5 for a savepoint, and FTS5 writes
/// out the entries it holds in memory as a new segment of the index. Word by word that is
/// a segment of a word or two each time, merged again and again: pulling 50,000 changed
/// words spent a fifth of its time writing and merging them (README, "Bulk work").
///
/// A row changed twice keeps the entry the index held before the first change and the
/// entry after the last, so the index always takes out exactly what it holds.
struct SearchChanges {
    /// For each row changed: the index's entry for it before (nil: none), and the entry
    /// it should hold after (nil: none), as `WordLibrary.searchValues` gives them.
    private var rows: [Int64: (before: [SQLValue]?, after: [SQLValue]?)] = [:]

    /// How many rows may have changes held back before they are made: a write of a
    /// million words keeps at most this many words' text in memory.
    let limit: Int

    /// No changes yet; they are made once `limit` rows have some.
    init(limit: Int) {
        self.limit = limit
    }

    /// True when there is nothing to make.
    var isEmpty: Bool { rows.isEmpty }

    /// True when as many rows as `limit` have changes held back.
    var isFull: Bool { rows.count >= limit }

    /// Notes that the index's entry `values` of row `seq` is to be taken out.
    mutating func remove(_ values: [SQLValue], seq: Int64) {
        if let row = rows[seq] {
            rows[seq] = (row.before, nil)
        } else {
            rows[seq] = (values, nil)
        }
    }

    /// Notes that `values` is to be the index's entry for row `seq`.
    mutating func add(_ values: [SQLValue], seq: Int64) {
        rows[seq] = (rows[seq]?.before, values)
    }

    /// The changes to make, in row order: for each row, its old entry taken out, then
    /// its new one put in (the order FTS5 takes without writing out what it holds);
    /// a row whose entry ends as it began has none.
    func steps() -> [(remove: [SQLValue]?, add: [SQLValue]?)] {
        rows.keys.sorted().compactMap { seq in
            guard let row = rows[seq], row.before != row.after else { return nil }
            return (row.before, row.after)
        }
    }
}
