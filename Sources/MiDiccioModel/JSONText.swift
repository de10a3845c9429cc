import Foundation

/// JSON's `null` among the Swift values `JSONText.parse` and the backup reader make.
package struct JSONNull: Sendable, Hashable {
    /// The null.
    package init() {}
}

/// Minimal JSON writing with a fixed key order (people read backups and `--json`
/// output; a stable order keeps diffs small), and string-array reading.
public enum JSONText {
    /// `text` as a JSON string literal.
    public static func quote(_ text: String) -> String {
        // Most text needs no escaping at all: one scan of the bytes decides.
        if !needsEscaping(text) { return "\"" + text + "\"" }
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

    /// False when `text` goes between quotes as it is. (0xE2 starts U+2028 and U+2029,
    /// which are escaped too, and other characters: those take the careful path.)
    private static func needsEscaping(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }
    }

    /// A JSON object from already-encoded values, keys in the order given (people read
    /// this output; a stable order keeps it readable). `spaced` writes `{"a": 1, "b": 2}`
    /// as the command-line tool prints it; otherwise it is compact.
    public static func object(_ pairs: [(String, String)], spaced: Bool = false) -> String {
        let colon = spaced ? ": " : ":", comma = spaced ? ", " : ","
        return "{" + pairs.map { quote($0.0) + colon + $0.1 }.joined(separator: comma) + "}"
    }

    /// A small file's JSON object, a line ending it: `object`'s spaced form with the keys
    /// sorted, as the sign-in and credentials files are written.
    package static func fileObject(_ pairs: [(String, String)]) -> Data {
        Data((object(pairs.sorted { $0.0 < $1.0 }, spaced: true) + "\n").utf8)
    }

    /// `text` as a JSON string, or `null`.
    public static func optional(_ text: String?) -> String { text.map(quote) ?? "null" }

    /// A time as an ISO 8601 JSON string, or `null`.
    public static func time(_ time: Timestamp?) -> String { optional(time?.iso8601) }

    /// A JSON array of strings.
    package static func array(_ items: [String]) -> String {
        if items.isEmpty { return "[]" }
        // Built in one buffer: every save writes two of these.
        var out = "["
        out.reserveCapacity(items.reduce(2) { $0 + $1.utf8.count + 3 })
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(",") }
            if needsEscaping(item) {
                out.append(quote(item))
            } else {
                out.append("\"")
                out.append(item)
                out.append("\"")
            }
        }
        out.append("]")
        return out
    }

    /// Reads a JSON array of strings written by `array`; [] for anything else.
    ///
    /// Every word read from the store parses two of these, so the common case is read by
    /// hand in one pass; anything unusual goes to JSONDecoder.
    package static func stringArray(_ text: String) -> [String] {
        if text == "[]" { return [] }
        if let fast = fastStringArray(text) { return fast }
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    /// Reads a whole JSON document into Swift values: `[String: Any]`, `[Any]`, `String`,
    /// `Bool`, `Int` (a whole number that fits), `Double` and `JSONNull`; nil when `data`
    /// is not JSON. It stands in for Foundation's `JSONSerialization`, which lives in the
    /// part of Foundation the everyday binary leaves out (README, "Start-up"), and its
    /// values are Swift's own, never `NSNumber` or `NSNull`.
    package static func parse(_ data: Data) -> Any? {
        (try? JSONDecoder().decode(ParsedValue.self, from: data))?.value
    }

    /// One value of a document `parse` reads.
    private struct ParsedValue: Decodable {
        let value: Any

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = JSONNull()
            } else if let bool = try? container.decode(Bool.self) {
                value = bool
            } else if let integer = try? container.decode(Int.self) {
                value = integer
            } else if let number = try? container.decode(Double.self) {
                value = number
            } else if let text = try? container.decode(String.self) {
                value = text
            } else if let array = try? container.decode([ParsedValue].self) {
                value = array.map(\.value)
            } else {
                value = try container.decode([String: ParsedValue].self).mapValues(\.value)
            }
        }
    }

    /// `["a","b\"c"]` without whitespace, with the escapes `array` writes; nil otherwise.
    private static func fastStringArray(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            guard bytes.count >= 2, bytes[0] == 0x5B, bytes[bytes.count - 1] == 0x5D else { return nil }
            var result: [String] = []
            var index = 1
            while index < bytes.count - 1 {
                guard bytes[index] == 0x22 else { return nil }
                index += 1
                var start = index
                var current: [UInt8] = []
                var escaped = false
                while index < bytes.count - 1, bytes[index] != 0x22 {
                    if bytes[index] == 0x5C {
                        // Rare: an escape. Copy what came before, then decode it.
                        escaped = true
                        current.append(contentsOf: bytes[start..<index])
                        guard index + 1 < bytes.count - 1 else { return nil }
                        switch bytes[index + 1] {
                        case 0x22: current.append(0x22)
                        case 0x5C: current.append(0x5C)
                        case 0x2F: current.append(0x2F)
                        case 0x6E: current.append(0x0A)
                        case 0x72: current.append(0x0D)
                        case 0x74: current.append(0x09)
                        default: return nil  // \u and friends: leave them to Foundation
                        }
                        index += 2
                        start = index
                    } else {
                        index += 1
                    }
                }
                guard index < bytes.count - 1 else { return nil }
                if escaped {
                    current.append(contentsOf: bytes[start..<index])
                    result.append(String(decoding: current, as: UTF8.self))
                } else {
                    result.append(String(decoding: bytes[start..<index], as: UTF8.self))
                }
                index += 1
                if index < bytes.count - 1 {
                    guard bytes[index] == 0x2C else { return nil }
                    index += 1
                }
            }
            return result
        }
    }
}
