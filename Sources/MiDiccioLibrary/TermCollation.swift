import CCollation
import MiDiccioModel

/// Locale-aware, case-insensitive ordering of terms through ICU collation sort keys.
///
/// The key is computed once when a word is saved and stored beside it, so sorting a
/// list of 100,000 words is an index scan, never 100,000 string comparisons.
final class TermCollation {
    private let collator: OpaquePointer?
    /// The locale whose order is used ("" is Unicode's root order).
    let locale: String
    private var buffer = [UInt8](repeating: 0, count: 256)

    /// Opens ICU's collator for `locale`; falls back to plain folded bytes if ICU fails.
    init(locale: String) {
        self.locale = locale
        // A locale ICU does not know falls back to the root order inside ICU; a NULL
        // collator (ICU data missing) falls back to folded bytes below.
        collator = midiccio_collator_open(locale)
    }

    deinit {
        if let collator { midiccio_collator_close(collator) }
    }

    /// The sort key of `term`: byte order of keys is the collation order of terms.
    func sortKey(_ term: String) -> [UInt8] {
        guard let collator else { return Array(TermKey.fold(term).utf8) }
        let utf16 = Array(term.utf16)
        let pointer = collator
        var length = utf16.withUnsafeBufferPointer { text in
            midiccio_collator_sort_key(pointer, text.baseAddress, Int32(text.count), &buffer, Int32(buffer.count))
        }
        if Int(length) > buffer.count {
            buffer = [UInt8](repeating: 0, count: Int(length) * 2)
            length = utf16.withUnsafeBufferPointer { text in
                midiccio_collator_sort_key(pointer, text.baseAddress, Int32(text.count), &buffer, Int32(buffer.count))
            }
        }
        // ICU counts the terminating zero byte in the length; the key ends before it.
        return Array(buffer[0..<max(0, Int(length) - 1)])
    }

    /// The locale named by the environment (LC_ALL, LC_COLLATE, LANG), "" when unset or "C".
    static func environmentLocale(_ environment: [String: String]) -> String {
        for name in ["LC_ALL", "LC_COLLATE", "LANG"] {
            if let value = environment[name], !value.isEmpty {
                let locale = String(value.split(separator: ".").first ?? "")
                return locale == "C" || locale == "POSIX" ? "" : locale
            }
        }
        return ""
    }
}
