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

    /// Exports the words not in the Trash as MiDiccio CSV or TSV, without the study
    /// columns; see `exportSheet(to:format:studyColumns:)`.
    @discardableResult
    public func exportSheet(to path: String, format: SheetFormat) throws -> Int {
        try exportSheet(to: path, format: format, studyColumns: false)
    }

    /// Exports the words not in the Trash as MiDiccio CSV or TSV (oldest first), which
    /// `importSheet` reads back without loss. With `studyColumns`, each word's `due` time
    /// (ISO 8601, empty while new) and study `state` follow the other columns. An existing
    /// file is replaced only when it is such an export, or with `overwrite`; a symbolic
    /// link's file is written (`exportDestination`).
    @discardableResult
    public func exportSheet(to target: String, format: SheetFormat, studyColumns: Bool, overwrite: Bool = false) throws -> Int {
        let path = try exportDestination(target, kind: .sheet, overwrite: overwrite)
        let study = try studyColumns ? studyStates() : nil
        // Row by row as the words are read, in one read transaction: a library of a million
        // words is never held whole, nor is its text. The file appears whole, or not at all.
        return try guarded {
            try database.read {
                var exported = 0
                try files {
                    try FileSystem.writeAtomically(to: path) { write in
                        var output: [UInt8] = []
                        WordSheet.appendHeader(format: format, study: study != nil, to: &output)
                        try write(Data(output))
                        output.removeAll(keepingCapacity: true)
                        try database.cached("SELECT \(Self.columns) FROM words WHERE deleted_at IS NULL ORDER BY created_at, seq")
                            .forEachRow { row in
                                let word = try Self.storedWord(row).word
                                let sheetRow = SheetRow(
                                    term: word.term, meaning: word.meaning, reading: word.reading,
                                    examples: word.examples, notes: word.notes, tags: word.tags)
                                let columns = study.map { study in
                                    study[word.id.rawValue].map { (due: $0.due.iso8601, state: $0.state.rawValue) } ?? (
                                        due: "", state: "new"
                                    )
                                }
                                WordSheet.append(sheetRow, study: columns, format: format, to: &output)
                                try write(Data(output))
                                output.removeAll(keepingCapacity: true)
                                exported += 1
                            }
                    }
                }
                return exported
            }
        }
    }

    /// Every studied word's state and due time, from the schedule cache (brought up to
    /// date first), by word id.
    private func studyStates() throws -> [String: (state: StudyState, due: Timestamp)] {
        let scheduler = try scheduler()
        try makeStudyCacheCurrent(for: scheduler)
        return try guarded {
            var states: [String: (state: StudyState, due: Timestamp)] = [:]
            try database.cached("SELECT word_id, state, due FROM study_cache").forEachRow { row in
                let index = Int(row.int64(1))
                let state = StudyState.allCases.indices.contains(index) ? StudyState.allCases[index] : .new
                states[row.text(0)] = (state, Timestamp(milliseconds: row.int64(2)))
            }
            return states
        }
    }
}
