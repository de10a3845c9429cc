/// Rules for tags: a set compared case-insensitively whose members keep the form and
/// order in which they were first written.
public enum TagSet {
    /// The comparison key of a tag: case folded, then in Unicode's composed form (NFC), so
    /// "café" typed with é as one character and "café" pasted as e and an accent (as macOS
    /// often writes it) are one tag in the tag rows too, whose keys SQLite compares as bytes.
    public static func key(_ tag: String) -> String {
        let folded = tag.lowercased()
        // The standard library's own NFC, by which Swift compares strings: keys equal as
        // bytes exactly when Swift takes the tags as equal (Foundation's form of it would
        // link the older Foundation into every command: README, "Start-up").
        return isComposed(folded) ? folded : String(decoding: folded._nfcCodeUnits, as: UTF8.self)
    }

    /// True when `text` is surely already in composed form: every character is below
    /// U+0300, where the combining marks start, or is a kana (but for the two combining
    /// voicing marks), a CJK ideograph or a Hangul syllable. A text of these alone has
    /// nothing to compose and nothing that NFC changes, so nearly every tag skips the
    /// normalization.
    static func isComposed(_ text: String) -> Bool {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return true }
        return text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0..<0x300, 0x3040...0x3098, 0x309B...0x30FF, 0x4E00...0x9FFF, 0xAC00...0xD7A3: true
            default: false
            }
        }
    }

    /// Drops later duplicates (case-insensitively), keeping the first-written form.
    public static func deduplicated(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        return tags.filter { seen.insert(key($0)).inserted }
    }

    /// True when both lists hold the same tags, ignoring case and order.
    public static func sameTags(_ lhs: [String], _ rhs: [String]) -> Bool {
        if lhs == rhs { return true }
        return Set(lhs.map(key)) == Set(rhs.map(key))
    }

    /// Removes `removed` (in any case), then adds `added` (unless already present in any case).
    public static func applying(adding added: [String], removing removed: [String], to tags: [String]) -> [String] {
        let removedKeys = Set(removed.map(key))
        return deduplicated(tags.filter { !removedKeys.contains(key($0)) } + added)
    }
}
