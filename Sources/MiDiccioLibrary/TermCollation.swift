import CCollation
import MiDiccioModel

/// Locale-aware, case-insensitive ordering of terms through ICU collation sort keys.
///
/// The key is computed once when a word is saved and stored beside it, so sorting a
/// list of 100,000 words is an index scan, never 100,000 string comparisons.
final class TermCollation {
    /// ICU's collator, opened when the first key is needed (most commands never need one,
    /// and opening it loads collation data): nil until then, `.some(nil)` when ICU failed.
    private var opened: OpaquePointer?? = nil
    private var collator: OpaquePointer? {
        if let opened { return opened }
        // A locale ICU does not know falls back to the root order inside ICU; a NULL
        // collator (ICU data missing) falls back to folded bytes in `sortKey`.
        let collator = midiccio_collator_open(locale)
        opened = .some(collator)
        return collator
    }
    /// The locale whose order is used ("" is Unicode's root order).
    let locale: String
    private var buffer = [UInt8](repeating: 0, count: 256)

    /// ICU's collator for `locale`; plain folded bytes if ICU fails.
    init(locale: String) {
        self.locale = locale
    }

    /// The version of the ICU that computes sort keys and term keys ("76.1.0"). Keys
    /// stored by another version may order or match differently, so a library records it
    /// and computes its keys again when it changes (`WordLibrary.refreshTermKeys`).
    static let icuVersion: String = {
        var text = [CChar](repeating: 0, count: 32)
        midiccio_icu_version(&text, Int32(text.count))
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// What a library records of the rules its term keys, sort keys and search index were
    /// made by ("76.1.0 fold 2"): the ICU's version and the folding rules'
    /// (`TermKey.foldVersion`). When it differs, `WordLibrary.refreshTermKeys` makes them again.
    static let keysVersion = "\(icuVersion) fold \(TermKey.foldVersion)"

    deinit {
        if case .some(.some(let collator)) = opened { midiccio_collator_close(collator) }
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
