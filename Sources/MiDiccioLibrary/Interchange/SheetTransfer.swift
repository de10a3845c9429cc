import Foundation
import MiDiccioFiles
import MiDiccioModel
import MiDiccioStore

/// What an import did.
public struct ImportReport: Hashable, Sendable {
    /// Words added.
    public var added = 0
    /// Rows skipped because their term was already in the library (with `skipDuplicates`).
    public var skippedDuplicates = 0
    /// Rows added although their term was already in the library.
    public var duplicatesAdded = 0
    /// Media references (sounds, images) left out of the words (Anki packages).
    public var droppedMediaReferences = 0
    /// Notes left out because their term field holds no text (Anki packages).
    public var notesWithoutTerm = 0

    /// Makes an empty report.
    public init() {}
}

extension WordLibrary {
    /// Imports MiDiccio CSV/TSV or an Anki "Notes in Plain Text" export.
    ///
    /// All or nothing: every row is read and checked first; a bad row throws
    /// `invalidImport` with its line number and nothing is imported. `progress` is called
    /// with (rows done, rows in the file) once the file is checked, then every
    /// `progressInterval` rows while writing, and last when every row is done.
    public func importSheet(
        from path: String, format: SheetFormat? = nil, skipDuplicates: Bool = false,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> ImportReport {
        if AnkiPackage.isPackage(at: path) {
            return try importAnkiPackage(from: path, skipDuplicates: skipDuplicates, progress: progress)
        }
        let data = try readInputFile(path)
        guard let text = String(data: data, encoding: .utf8) else {
            throw LibraryError.invalidImport(file: path, line: nil, message: "the file is not UTF-8 text")
        }
        let rows: [SheetRow]
        do {
            rows = try WordSheet.read(text, format: format)
        } catch {
            throw LibraryError.invalidImport(file: path, line: error.line, message: error.message)
        }
        let contents = try rows.map { row in
            do {
                return try WordContent(
                    term: row.term, meaning: row.meaning, reading: row.reading,
                    examples: row.examples, notes: row.notes, tags: row.tags
                ).validated()
            } catch {
                throw LibraryError.invalidImport(file: path, line: row.line, message: String(describing: error))
            }
        }
        return try writeImported(contents, skipDuplicates: skipDuplicates, progress: progress)
    }

    /// Adds checked words as one transaction: the writing half of every import.
    func writeImported(
        _ contents: [WordContent], skipDuplicates: Bool, progress: ((_ done: Int, _ total: Int) -> Void)?
    ) throws -> ImportReport {
        progress?(0, contents.count)
        return try writingInBulk {
            var report = ImportReport()
            // Every term already in the library, read once: a query per row cost more
            // than the rest of the duplicate handling.
            var seenKeys = Set(try database.cached("SELECT term_key FROM words WHERE deleted_at IS NULL").rows([]) { $0.text(0) })
            let now = clock.now()
            for (index, content) in contents.enumerated() {
                if let progress, index > 0, index % Self.progressInterval == 0 { progress(index, contents.count) }
                let key = TermKey.fold(content.term)
                let isDuplicate = !seenKeys.insert(key).inserted
                if isDuplicate && skipDuplicates {
                    report.skippedDuplicates += 1
                    continue
                }
                if isDuplicate { report.duplicatesAdded += 1 }
                let word = Word(
                    id: randomID(), term: content.term, meaning: content.meaning, reading: content.reading,
                    examples: content.examples, notes: content.notes, tags: content.tags,
                    createdAt: now, updatedAt: now)
                try save(word, times: FieldTimes(all: now), previous: nil, pending: true)
                report.added += 1
            }
            progress?(contents.count, contents.count)
            return report
        }
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
