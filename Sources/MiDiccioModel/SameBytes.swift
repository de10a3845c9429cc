/// Texts compared byte for byte. Swift's `==` takes canonically equivalent texts as equal
/// ("é" written as one character, and as e with a combining accent, as macOS often pastes
/// it): right for search and for finding duplicates, but a merge that took two such values
/// as one kept each device's own bytes for good, with the devices "in agreement" (found by
/// the exploratory helper, round 13A, for a tag).
public enum SameBytes {
    /// True when `one` and `other` are the same bytes.
    public static func equal(_ one: String, _ other: String) -> Bool {
        one.utf8.elementsEqual(other.utf8)
    }

    /// True when the two lists hold the same texts, byte for byte, in the same order.
    public static func equal(_ one: [String], _ other: [String]) -> Bool {
        one.count == other.count && zip(one, other).allSatisfy { equal($0, $1) }
    }

    /// True when `one` orders after `other`: as Swift orders texts, and between two that
    /// Swift takes as equal, by their bytes, so that every device picks the same one.
    public static func ordersAfter(_ one: String, _ other: String) -> Bool {
        if one != other { return one > other }
        return other.utf8.lexicographicallyPrecedes(one.utf8)
    }

    /// True when the list `one` orders after `other`, text by text as `ordersAfter`, a
    /// list that another begins with ordering first.
    public static func ordersAfter(_ one: [String], _ other: [String]) -> Bool {
        for (mine, theirs) in zip(one, other) where !equal(mine, theirs) { return ordersAfter(mine, theirs) }
        return one.count > other.count
    }
}
