/// The size limits of a word, with the checks that enforce them.
public enum WordLimits {
    /// Longest term, in characters.
    public static let termLength = 500
    /// Longest meaning, reading, notes or example, in characters.
    public static let textLength = 20_000
    /// Most tags a word is given: by adding it, editing it or a bulk action.
    public static let tagCount = 50
    /// Most tags a backup restore or an import takes on one word. Sync merges a word's
    /// tags one tag at a time, so devices that each put on tags within `tagCount` can
    /// give it more together (30 on one device and 30 others on another make 60), and a
    /// backup or an export of such a word must still restore or import (found by the
    /// exploratory helper: the whole file was refused). An edit of such a word may take
    /// tags off it but put none on (`WordContent.validated(tagLimit:)`).
    public static let heldTagCount = 1_000
    /// Longest tag, in characters.
    public static let tagLength = 64
    /// Most examples on one word.
    public static let exampleCount = 50
    /// Most characters one word can hold, every field at its limit: the term, meaning,
    /// reading and notes, `exampleCount` examples and `tagCount` tags.
    public static let wordCharacters = termLength + 3 * textLength + exampleCount * textLength + tagCount * tagLength
}

/// Why a word cannot be stored: the field at fault and what is wrong with it.
public struct WordValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field at fault, named as in `--json` output (`term`, `tags` ...).
    public var field: String
    /// What is wrong, in words a user understands.
    public var message: String

    /// Makes an error for `field`.
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}

extension WordContent {
    /// The content trimmed and checked against `WordLimits`, or the first problem found.
    ///
    /// Term, meaning, reading and notes lose surrounding whitespace; examples are
    /// trimmed and empty ones dropped; tags are trimmed, deduplicated case-insensitively
    /// and may not contain whitespace (Anki's convention, so tags survive a text export).
    /// At most `tagLimit` tags: `WordLimits.tagCount` unless the content comes from a
    /// word that may hold more (see `WordLimits.heldTagCount`).
    ///
    /// A term must show something: one made only of invisible characters (a zero-width
    /// space U+200B, a word joiner, a Hangul filler) looks empty in every list, and is
    /// refused as an empty one is. `keepingTerm` is the term of the word an edit changes, and
    /// a backup's words pass `invisibleTermAllowed`: such a word, stored by an older
    /// version or another device, can still be edited and restored.
    public func validated(
        tagLimit: Int = WordLimits.tagCount, keepingTerm: String? = nil, invisibleTermAllowed: Bool = false
    ) throws(WordValidationError) -> WordContent {
        let term = term.trimmed
        guard !term.isEmpty else { throw WordValidationError(field: "term", message: "must not be empty") }
        guard invisibleTermAllowed || term == keepingTerm || term.hasVisibleCharacter else {
            throw WordValidationError(
                field: "term", message: "shows nothing: it holds only invisible characters (such as the zero-width space U+200B)")
        }
        try Self.check(term, field: "term", limit: WordLimits.termLength)
        let meaning = meaning.trimmed, reading = reading.trimmed, notes = notes.trimmed
        try Self.check(meaning, field: "meaning", limit: WordLimits.textLength)
        try Self.check(reading, field: "reading", limit: WordLimits.textLength)
        try Self.check(notes, field: "notes", limit: WordLimits.textLength)

        let examples = examples.map(\.trimmed).filter { !$0.isEmpty }
        guard examples.count <= WordLimits.exampleCount else {
            throw WordValidationError(field: "examples", message: "at most \(WordLimits.exampleCount) examples (got \(examples.count))")
        }
        for (index, example) in examples.enumerated() {
            try Self.check(example, field: "examples[\(index + 1)]", limit: WordLimits.textLength)
            guard !example.containsLineBreak else {
                throw WordValidationError(
                    field: "examples[\(index + 1)]", message: "an example is one line; split it into several examples")
            }
        }

        let trimmedTags = tags.map(\.trimmed).filter { !$0.isEmpty }
        let tags = trimmedTags.count < 2 ? trimmedTags : TagSet.deduplicated(trimmedTags)
        guard tags.count <= tagLimit else {
            // A limit between the two is the count of a word that holds more (an edit).
            let held = tagLimit > WordLimits.tagCount && tagLimit < WordLimits.heldTagCount
            throw WordValidationError(
                field: "tags",
                message: held
                    ? "this word holds \(tagLimit) tags (more than the \(WordLimits.tagCount) a word can be given: tags put on it "
                        + "on several devices, or by an import or a restore); an edit can take tags off it, or swap one for "
                        + "another, but not leave it with more (got \(tags.count))"
                    : "at most \(tagLimit) tags (got \(tags.count))")
        }
        for tag in tags {
            try Self.refuseNUL(tag, field: "tags")
            guard tag.utf8.count <= WordLimits.tagLength || tag.count <= WordLimits.tagLength else {
                throw WordValidationError(
                    field: "tags", message: "tag \"\(tag.prefix(20))…\" is \(tag.count) characters; the limit is \(WordLimits.tagLength)")
            }
            guard !tag.containsWhitespace else {
                throw WordValidationError(field: "tags", message: "tag \"\(tag)\" contains a space; use - or _ instead")
            }
        }
        return WordContent(term: term, meaning: meaning, reading: reading, examples: examples, notes: notes, tags: tags)
    }

    private static func check(_ text: String, field: String, limit: Int) throws(WordValidationError) {
        try refuseNUL(text, field: field)
        // Counting characters is O(n); the UTF-8 length bounds it cheaply for the usual case.
        if text.utf8.count <= limit { return }
        let count = text.count
        guard count <= limit else {
            throw WordValidationError(field: field, message: "is \(count) characters; the limit is \(limit)")
        }
    }
}

extension WordContent {
    /// Refuses a NUL character (U+0000): no text file carries one, so a word holding it
    /// could not come back from the library's own CSV export or a sheet (the API took
    /// one; the export of that library was then refused as a binary file).
    fileprivate static func refuseNUL(_ text: String, field: String) throws(WordValidationError) {
        guard text.utf8.contains(0) else { return }
        throw WordValidationError(field: field, message: "contains a NUL character (U+0000), which no text file can carry")
    }
}

extension String {
    /// True when some character shows: one that is neither whitespace, a control, nor a
    /// character Unicode says to leave unshown (format characters such as U+200B and
    /// U+2060, and the other default-ignorable code points).
    package var hasVisibleCharacter: Bool {
        // Plain ASCII is decided from the bytes: anything past the space but DEL shows.
        if utf8.contains(where: { $0 > 0x20 && $0 < 0x7F }) { return true }
        return unicodeScalars.contains { scalar in
            let properties = scalar.properties
            return !properties.isWhitespace && !properties.isDefaultIgnorableCodePoint
                && properties.generalCategory != .format && properties.generalCategory != .control
        }
    }

    /// True when some character is a line break (`Character.isNewline`).
    package var containsLineBreak: Bool {
        // Plain ASCII (the usual case) is decided from the bytes: \n, \v, \f and \r.
        if let ascii = asciiContains({ $0 >= 0x0A && $0 <= 0x0D }) { return ascii }
        return contains(where: \.isNewline)
    }

    /// True when some character is whitespace (`Character.isWhitespace`), line breaks
    /// included.
    package var containsWhitespace: Bool {
        // Plain ASCII: a tab, a line break or a space.
        if let ascii = asciiContains({ $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }) { return ascii }
        return contains(where: \.isWhitespace)
    }

    /// Whether a byte matches `test`, for text that is plain ASCII; nil for other text.
    private func asciiContains(_ test: (UInt8) -> Bool) -> Bool? {
        var found = false
        for byte in utf8 {
            if byte >= 0x80 { return nil }
            if test(byte) { found = true }
        }
        return found
    }

    /// The string without leading and trailing whitespace or newlines. A character counts
    /// as whitespace only when all of it is: a space carrying a combining accent (" \u{301}",
    /// an accent shown on its own) stays, where `Character.isWhitespace`, which looks at its
    /// first part only, dropped it without a word (found by the exploratory helper, round
    /// 19B).
    package var trimmed: String {
        // Fast path: text that neither starts nor ends with whitespace (the usual case).
        if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x80, last > 0x20, last < 0x80 {
            return self
        }
        if isEmpty { return self }
        func shows(_ character: Character) -> Bool {
            !character.isWhitespace || !character.unicodeScalars.allSatisfy(\.properties.isWhitespace)
        }
        guard let first = firstIndex(where: shows) else { return "" }
        let last = lastIndex(where: shows)!
        if first == startIndex && last == index(before: endIndex) { return self }
        return String(self[first...last])
    }
}
