import Foundation
import MiDiccioFiles
import MiDiccioModel
import MiDiccioStore

extension WordLibrary {
    /// Imports MiDiccio CSV/TSV or an Anki "Notes in Plain Text" export; `format` nil
    /// recognises every format `importWords` knows. See `importWords`.
    public func importSheet(
        from path: String, format: SheetFormat? = nil, skipDuplicates: Bool = false,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> ImportReport {
        var options = ImportOptions()
        options.format = format.map { $0 == .csv ? .csv : .tsv }
        options.skipDuplicates = skipDuplicates
        return try importWords(from: path, options: options, progress: progress)
    }

    /// Exports the words not in the Trash as MiDiccio CSV or TSV (oldest first), which
    /// `importSheet` reads back without loss.
    @discardableResult
    public func exportSheet(to path: String, format: SheetFormat) throws -> Int {
        try checkNotLibrary(path)
        let words = try guarded {
            try database.cached("SELECT \(Self.columns) FROM words WHERE deleted_at IS NULL ORDER BY created_at, seq")
                .rows([], Self.storedWord).map(\.word)
        }
        let rows = words.map {
            SheetRow(
                term: $0.term, meaning: $0.meaning, reading: $0.reading,
                examples: $0.examples, notes: $0.notes, tags: $0.tags)
        }
        try files { try FileSystem.writeAtomically(Data(WordSheet.write(rows, format: format).utf8), to: path) }
        return words.count
    }
}
