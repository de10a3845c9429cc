import Foundation

/// The folded form of a term used to find duplicates and to rank search results:
/// lowercase, without accents or other combining marks ("Café" and "cafe" share a key).
public enum TermKey {
    /// Folds `text` case- and accent-insensitively.
    public static func fold(_ text: String) -> String {
        // Fast path: plain ASCII needs only lowercasing.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        var scalars = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars
        where scalar.properties.generalCategory != .nonspacingMark {
            scalars.append(scalar)
        }
        return String(scalars).lowercased()
    }
}
