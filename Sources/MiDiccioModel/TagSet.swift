/// Rules for tags: a set compared case-insensitively whose members keep the form and
/// order in which they were first written.
public enum TagSet {
    /// The comparison key of a tag (case folded).
    public static func key(_ tag: String) -> String { tag.lowercased() }

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
