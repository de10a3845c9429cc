import MiDiccioModel

/// A search as typed: free words, which match any field, plus field prefixes.
///
/// `tag:verbs` keeps words tagged "verbs" (any case), `-tag:done` leaves out words tagged
/// "done", and `term:`, `meaning:`, `reading:`, `examples:` (or `example:`) and `notes:`
/// (or `note:`) match their words in that field only. A value may be quoted to hold
/// spaces: `meaning:"big house"`. Anything else (`foo:bar` too) is a free word.
public struct SearchQuery: Sendable, Equatable {
    /// A field a prefix can name.
    public enum Field: String, Sendable, CaseIterable {
        case term, reading, meaning, examples, notes
    }

    /// The free words, as typed, separated by single spaces.
    public var text: String
    /// Words to match in one field only, with the field.
    public var fields: [FieldMatch]
    /// Every one of these tags is required.
    public var tags: [String]
    /// None of these tags may be present.
    public var excludedTags: [String]

    /// Words that must appear in one field.
    public struct FieldMatch: Sendable, Equatable {
        /// The field.
        public var field: Field
        /// The words, as typed.
        public var text: String
    }

    /// Reads the prefixes out of `typed`.
    public init(parsing typed: String) {
        var free: [String] = []
        var fields: [FieldMatch] = []
        var tags: [String] = []
        var excluded: [String] = []
        for part in Self.parts(typed) {
            let excluding = part.hasPrefix("-")
            let body = excluding ? String(part.dropFirst()) : part
            guard let colon = body.firstIndex(of: ":") else {
                free.append(part)
                continue
            }
            let name = body[..<colon].lowercased()
            let value = String(body[body.index(after: colon)...].filter { $0 != "\"" })
            if name == "tag" || name == "tags" {
                if !value.isEmpty {
                    if excluding { excluded.append(value) } else { tags.append(value) }
                }
            } else if !excluding, let field = Self.field(named: name) {
                if !value.isEmpty { fields.append(FieldMatch(field: field, text: value)) }
            } else {
                free.append(part)
            }
        }
        self.text = free.joined(separator: " ")
        self.fields = fields
        self.tags = tags
        self.excludedTags = excluded
    }

    /// True when the query holds nothing to match or filter by.
    public var isEmpty: Bool { text.isEmpty && fields.isEmpty && tags.isEmpty && excludedTags.isEmpty }

    private static func field(named name: String) -> Field? {
        switch name {
        case "example": .examples
        case "note": .notes
        default: Field(rawValue: name)
        }
    }

    /// The query split at white space outside double quotes; the quotes stay in the parts.
    private static func parts(_ typed: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        for character in typed {
            if character == "\"" { quoted.toggle() }
            if character.isWhitespace && !quoted {
                if !current.isEmpty { parts.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }
}

/// A search for one page of results: what was typed, a tag to keep, an order, a page.
public struct SearchRequest: Sendable {
    /// The query as typed (see `SearchQuery` for its prefixes).
    public var query: String
    /// Only words with this tag (any case), on top of the query's own `tag:` prefixes.
    public var tag: String?
    /// The order; nil ranks by relevance (an exact term first, then terms starting with
    /// the query, then the rest by BM25), or newest change first when the query has no
    /// free words to rank by.
    public var sort: ListSort?
    /// The most words on the page.
    public var limit: Int
    /// How many matches come before the page.
    public var offset: Int
    /// False to leave the total out: counting reads every match, which is most of the cost
    /// of a common query in a large library, so a page shown as someone types can come
    /// first and its count after (`countMatches`).
    public var counted: Bool

    /// Makes a request; defaults to the first 50 matches by relevance, counted.
    public init(
        query: String, tag: String? = nil, sort: ListSort? = nil, limit: Int = 50, offset: Int = 0, counted: Bool = true
    ) {
        self.query = query
        self.tag = tag
        self.sort = sort
        self.limit = limit
        self.offset = offset
        self.counted = counted
    }
}

/// One page of search results.
public struct SearchPage: Sendable {
    /// The words on this page, in order.
    public var words: [Word]
    /// How many words match in all (every page); nil when the request was not `counted`.
    public var total: Int?
    /// True when matches follow this page.
    public var hasMore: Bool
}
