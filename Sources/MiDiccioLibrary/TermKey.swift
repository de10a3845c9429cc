import CCollation

/// The folded form of a term used to find duplicates and to rank search results:
/// case-folded, without accents or other combining marks ("Café" and "cafe" share a
/// key, and so do "Straße" and "strasse"), and without invisible format characters
/// (Unicode category Cf: "pal\u{200B}abra" and "palabra" share a key). Composed and
/// decomposed spellings share a key too. The key is local: it is never synced, and each
/// device computes it from the term, which keeps what was typed.
public enum TermKey {
    /// Folds `text` case- and accent-insensitively.
    public static func fold(_ text: String) -> String {
        // Fast path: plain ASCII only needs lowercasing.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            if !text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return text }
            return String(unsafeUninitializedCapacity: text.utf8.count) { out in
                for (index, byte) in text.utf8.enumerated() { out[index] = byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }
                return text.utf8.count
            }
        }
        let utf16 = Array(text.utf16)
        var out = [UInt16](repeating: 0, count: utf16.count * 3 + 16)
        let length = utf16.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                midiccio_fold(input.baseAddress, Int32(input.count), output.baseAddress, Int32(output.count))
            }
        }
        // ICU unavailable: case folding and Cf removal alone are still better than nothing.
        guard length >= 0 else {
            return String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .format }))
                .lowercased()
        }
        return String(decoding: out[0..<Int(length)], as: UTF16.self)
    }

    /// `text` as spelled, but for case and invisible format characters (Unicode category
    /// Cf); composed and decomposed accents are one spelling, as Swift compares strings.
    /// What `--no-duplicates` skips by: "año" is not "ano", nor "Maße" "Masse", though
    /// `fold` makes them one term for the duplicate warning.
    public static func spelling(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .format })).lowercased()
    }
}
