import MiDiccioModel

/// The JSON form of words, shared by `--json` output and backup files: an object with
/// exactly the fields of `Word`, times in ISO 8601 UTC with three fractional digits.
public enum WordJSON {
    /// One word as a JSON object; `indent` spaces before each key when pretty.
    public static func object(_ word: Word, pretty: Bool = true, indent: Int = 2) -> String {
        let pad = pretty ? "\n" + String(repeating: " ", count: indent) : ""
        let close = pretty ? "\n" + String(repeating: " ", count: max(0, indent - 2)) : ""
        let space = pretty ? " " : ""
        let fields: [(String, String)] = [
            ("id", JSONText.quote(word.id.rawValue)),
            ("term", JSONText.quote(word.term)),
            ("meaning", JSONText.quote(word.meaning)),
            ("reading", JSONText.quote(word.reading)),
            ("examples", JSONText.array(word.examples)),
            ("notes", JSONText.quote(word.notes)),
            ("tags", JSONText.array(word.tags)),
            ("createdAt", JSONText.quote(word.createdAt.iso8601)),
            ("updatedAt", JSONText.quote(word.updatedAt.iso8601)),
            ("deletedAt", word.deletedAt.map { JSONText.quote($0.iso8601) } ?? "null"),
        ]
        return "{" + fields.map { pad + JSONText.quote($0.0) + ":" + space + $0.1 }.joined(separator: ",") + close + "}"
    }

    /// One word as a pretty JSON object with `extra` keys after its own (values already
    /// JSON), as `show --json` adds `study`.
    public static func object(_ word: Word, extra: [(String, String)]) -> String {
        let base = object(word)
        guard !extra.isEmpty else { return base }
        return String(base.dropLast(2)) + "," + extra.map { "\n  " + JSONText.quote($0.0) + ": " + $0.1 }.joined(separator: ",") + "\n}"
    }

    /// A list of words as a compact JSON array (one line).
    public static func compactArray(_ words: [Word]) -> String {
        "[" + words.map { object($0, pretty: false) }.joined(separator: ",") + "]"
    }

    /// A list of words as a JSON array (pretty: one key per line).
    public static func array(_ words: [Word]) -> String {
        if words.isEmpty { return "[]" }
        return "[\n  " + words.map { object($0, indent: 4) }.joined(separator: ",\n  ") + "\n]"
    }
}
