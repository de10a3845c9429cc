import CCollation

/// The folded form of a term used to find duplicates and to rank search results:
/// case-folded, without accents or other combining marks ("Café" and "cafe" share a
/// key, and so do "Straße" and "strasse", "ο Άνθρωπος" and "ο ανθρωπος", "ёлка" and
/// "елка"), without invisible format characters (Unicode category Cf:
/// "pal\u{200B}abra" and "palabra" share a key), with compatibility forms as their
/// letters ("ＴＯＥＩＣ" and "toeic") and letters with a stroke as the letter ("Łódź" and
/// "lodz"); kana keep their voicing ("がっこう" is not "かっこう"). Composed and decomposed
/// spellings share a key too (`midiccio_fold` in CCollation says how). When this changes,
/// `foldVersion` does. The key is local: it is never synced, and each
/// device computes it from the term, which keeps what was typed.
public enum TermKey {
    /// The version of the folding rules (`fold`, `SearchText.fold`). A library records it
    /// with the ICU's (`TermCollation.keysVersion`) and, when either changes, computes its
    /// term keys and its search index again (`WordLibrary.refreshTermKeys`). 2: every
    /// script's marks, compatibility forms, letters with a stroke, kana's voicing kept.
    static let foldVersion = 2

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
        // ICU unavailable: case folding and Cf removal alone are still better than nothing.
        return Self.folded(text, by: midiccio_fold)
            ?? String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .format }))
            .lowercased()
    }

    /// `text` through one of the C folds (`midiccio_fold`, `midiccio_search_fold`), with a
    /// larger buffer when the first is too small; nil when ICU fails.
    static func folded(
        _ text: String,
        by fold: (UnsafePointer<UInt16>?, Int32, UnsafeMutablePointer<UInt16>?, Int32) -> Int32
    ) -> String? {
        let utf16 = Array(text.utf16)
        var out = [UInt16](repeating: 0, count: utf16.count * 3 + 16)
        for _ in 0..<2 {
            let length = utf16.withUnsafeBufferPointer { input in
                out.withUnsafeMutableBufferPointer { output in
                    fold(input.baseAddress, Int32(input.count), output.baseAddress, Int32(output.count))
                }
            }
            guard length >= 0 else { return nil }
            if Int(length) <= out.count { return String(decoding: out[0..<Int(length)], as: UTF16.self) }
            out = [UInt16](repeating: 0, count: Int(length))
        }
        return nil
    }

    /// `text` as spelled, but for case and invisible format characters (Unicode category
    /// Cf); composed and decomposed accents are one spelling, as Swift compares strings.
    /// What `--no-duplicates` skips by: "año" is not "ano", nor "Maße" "Masse", though
    /// `fold` makes them one term for the duplicate warning.
    public static func spelling(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .format })).lowercased()
    }
}
