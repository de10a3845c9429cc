import MiDiccioModel

extension WordLibrary {
    /// Imports the notes of an Anki package (`.apkg` or `.colpkg`) as words.
    ///
    /// All or nothing, like `importSheet`: the package is read and every word checked
    /// before anything is written; a problem names the file (and the note) and nothing is
    /// imported. `fields` lists choices of the term's and the meaning's fields
    /// (`AnkiPackage.read`; empty: the first two of each note type). The report also counts the media references dropped and the
    /// notes left out for having no term.
    public func importAnkiPackage(
        from path: String, fields: [[String]] = [], skipDuplicates: Bool = false, limits: AnkiPackage.Limits = AnkiPackage.Limits(),
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> ImportReport {
        try checkNotLibrary(path)
        let package: AnkiPackage
        do {
            package = try AnkiPackage.read(from: path, fields: fields, limits: limits)
        } catch {
            throw LibraryError.invalidImport(file: path, line: nil, message: error.message)
        }
        let contents = try package.notes.map { note in
            let row = note.row
            do {
                return try WordContent(
                    term: row.term, meaning: row.meaning, reading: row.reading,
                    examples: row.examples, notes: row.notes, tags: row.tags
                ).validated()
            } catch {
                throw LibraryError.invalidImport(
                    file: path, line: nil, message: "note \(note.id) (\"\(row.term.prefix(40))\"): \(error)")
            }
        }
        var report = try writeImported(contents, skipDuplicates: skipDuplicates, progress: progress)
        report.droppedMediaReferences = package.droppedMediaReferences
        report.notesWithoutTerm = package.notesWithoutTerm
        return report
    }
}
