import Foundation

/// Minimal JSON writing with a fixed key order (people read backups and `--json`
/// output; a stable order keeps diffs small), and string-array reading.
public enum JSONText {
    /// `text` as a JSON string literal.
    public static func quote(_ text: String) -> String {
        // Most text needs no escaping at all: one scan of the bytes decides.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }) {
            return "\"" + text + "\""
        }
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20 || s.value == 0x2028 || s.value == 0x2029:
                out += "\\u" + String(repeating: "0", count: 4 - String(s.value, radix: 16).count) + String(s.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON array of strings.
    static func array(_ items: [String]) -> String {
        if items.isEmpty { return "[]" }
        return "[" + items.map(quote).joined(separator: ",") + "]"
    }

    /// Reads a JSON array of strings written by `array`; [] for anything else.
    static func stringArray(_ text: String) -> [String] {
        if text == "[]" { return [] }
        guard let data = text.data(using: .utf8),
              let value = try? JSONSerialization.jsonObject(with: data) as? [String] else { return [] }
        return value
    }
}
