import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel
import MiDiccioSync

/// How words are shown to people: short aligned tables and a detail view, plain text
/// when output is not a terminal or NO_COLOR is set.
package struct WordPrinter {
    /// True when ANSI colour may be used.
    package var colour: Bool

    private func dim(_ text: String) -> String { colour ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    private func bold(_ text: String) -> String { colour ? "\u{1B}[1m\(text)\u{1B}[0m" : text }

    /// One line per word: short id, term, meaning, tags, aligned in columns.
    package func table(_ words: [Word], showDeleted: Bool = false) -> String {
        let termWidth = min(30, words.map { $0.term.displayWidth }.max() ?? 0)
        return words.map { word in
            var line = dim(String(word.id.rawValue.prefix(8))) + "  " + bold(word.term.oneLine.shownSafely.padded(to: termWidth))
            let meaning = word.meaning.oneLine.shownSafely
            if !meaning.isEmpty { line += "  " + meaning.truncated(to: 50) }
            if !word.tags.isEmpty { line += "  " + dim(word.tags.map { "#\($0)" }.joined(separator: " ").shownSafely) }
            if showDeleted, let deletedAt = word.deletedAt { line += "  " + dim("deleted \(deletedAt.iso8601)") }
            return line + "\n"
        }.joined()
    }

    /// Every field of one word, one per line.
    package func detail(_ word: Word) -> String {
        var rows: [(String, String)] = [("term", word.term)]
        if !word.reading.isEmpty { rows.append(("reading", word.reading)) }
        if !word.meaning.isEmpty { rows.append(("meaning", word.meaning)) }
        for (index, example) in word.examples.enumerated() { rows.append((index == 0 ? "examples" : "", "- " + example)) }
        if !word.notes.isEmpty { rows.append(("notes", word.notes)) }
        if !word.tags.isEmpty { rows.append(("tags", word.tags.joined(separator: ", "))) }
        rows.append(("id", word.id.rawValue))
        rows.append(("created", word.createdAt.iso8601))
        rows.append(("updated", word.updatedAt.iso8601))
        if let deletedAt = word.deletedAt { rows.append(("deleted", "\(deletedAt.iso8601) (in the Trash)")) }
        return rows.map { name, value in
            let lines = value.shownSafely.split(separator: "\n", omittingEmptySubsequences: false)
            let indent = String(repeating: " ", count: 10)
            return dim(name.padded(to: 8)) + "  " + lines.joined(separator: "\n" + indent) + "\n"
        }.joined()
    }
}

extension String {
    /// The text with every control character but the line break and the tab shown as
    /// U+FFFD: a word from a sync or an imported deck may hold an escape sequence, which a
    /// terminal would run (colours, a bell, a changed title) instead of showing. The
    /// explicit bidirectional embeddings, overrides and isolates (U+202A–U+202E,
    /// U+2066–U+2069) are shown as U+FFFD too: they run nothing, but they reorder the text
    /// that follows them, so a term could be made to look like another one.
    package var shownSafely: String {
        // Plain text (the usual case) is passed on as it is, decided from the bytes: C0
        // controls, DEL, C1 controls (0xC2 0x80–0x9F in UTF-8) and the bidirectional
        // controls (0xE2 0x80 0xAA–0xAE, 0xE2 0x81 0xA6–0xA9).
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        let clean = utf8.allSatisfy { byte in
            defer { (beforePrevious, previous) = (previous, byte) }
            if byte < 0x20 { return byte == 0x0A || byte == 0x09 }
            if byte == 0x7F { return false }
            if previous == 0xC2 && byte >= 0x80 && byte <= 0x9F { return false }
            guard beforePrevious == 0xE2 else { return true }
            return !((previous == 0x80 && (0xAA...0xAE).contains(byte)) || (previous == 0x81 && (0xA6...0xA9).contains(byte)))
        }
        if clean { return self }
        var result = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            let control = (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
            let bidi = (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            result.append(control || bidi ? "\u{FFFD}" : scalar)
        }
        return String(result)
    }

    /// The string with line breaks shown as " / ", for one-line tables.
    package var oneLine: String { split(whereSeparator: \.isNewline).joined(separator: " / ") }

    /// Columns the text takes in a terminal (East Asian wide characters count two).
    package var displayWidth: Int {
        reduce(0) { width, character in
            guard let scalar = character.unicodeScalars.first else { return width }
            let wide =
                (0x1100...0x115F).contains(scalar.value) || (0x2E80...0xA4CF).contains(scalar.value)
                || (0xAC00...0xD7A3).contains(scalar.value) || (0xF900...0xFAFF).contains(scalar.value)
                || (0xFF00...0xFF60).contains(scalar.value) || (0x1F300...0x1FAFF).contains(scalar.value)
            return width + (wide ? 2 : 1)
        }
    }

    package func padded(to width: Int) -> String {
        let current = displayWidth
        return current >= width ? self : self + String(repeating: " ", count: width - current)
    }

    package func truncated(to width: Int) -> String {
        count > width ? String(prefix(width - 1)) + "…" : self
    }
}
