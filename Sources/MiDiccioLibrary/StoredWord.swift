import MiDiccioModel

/// A word as the store holds it: the user's fields plus the sync state kept beside them.
public struct StoredWord: Hashable, Sendable {
    /// The word itself.
    public var word: Word
    /// The time of each field's last change.
    public var times: FieldTimes
    /// True when a local change has not been uploaded yet.
    public var pending: Bool
    /// The library-wide change counter at this word's last local change; sync uses it
    /// to notice a word edited while its upload was in flight (it stays pending).
    public var localChange: Int64
    /// Who wrote each field's value, indexed like `WordField.allCases`: 0 is this
    /// device, other numbers are rows of `sync_devices`.
    package var writers: [Int64]
    /// When each tag was put on or taken off (`TagClock`).
    public var tagClock: TagClock = .implied
    /// The row number inside this library only.
    package var seq: Int64

    /// Every field written by this device.
    static let localWriters = [Int64](repeating: 0, count: WordField.allCases.count)
}

/// How `list` orders words.
public enum ListSort: String, Sendable, CaseIterable {
    /// Most recently changed first.
    case updated
    /// Most recently added first.
    case created
    /// By term, in the library's collation order (case-insensitive, locale-aware).
    case term
}

/// What `list` shows: optional tag filter, order and one page.
public struct ListQuery: Sendable {
    /// Only words with this tag (any case).
    public var tag: String?
    /// The order.
    public var sort: ListSort
    /// At most this many words (nil: all).
    public var limit: Int?
    /// Skip this many words first.
    public var offset: Int
    /// Start after this word (in this order), whatever its position: a deep page is found
    /// through the index by key, not by counting the words before it. Skipping `offset`
    /// words then counts from there. A word in the Trash or gone starts at the beginning.
    public var after: WordID?
    /// Start after this place in the order (`WordLibrary.listPlace(of:sort:)`): where the
    /// page before ended as it was shown, whatever has become of its last word since (renamed,
    /// edited or moved to the Trash elsewhere, the next page started from the word's new
    /// place, or from the beginning: round 15B). Taken before `after`.
    public var afterPlace: String?

    /// Makes a query; defaults to everything, newest change first.
    public init(
        tag: String? = nil, sort: ListSort = .updated, limit: Int? = nil, offset: Int = 0, after: WordID? = nil,
        afterPlace: String? = nil
    ) {
        self.tag = tag
        self.sort = sort
        self.limit = limit
        self.offset = offset
        self.after = after
        self.afterPlace = afterPlace
    }
}

/// A tag and how many words (not in the Trash) carry it.
public struct TagCount: Hashable, Sendable {
    /// The tag, in one of the forms it was written.
    public var tag: String
    /// Number of words with it.
    public var count: Int
}

/// A change to some fields of a word; nil fields stay as they are.
public struct WordEdit: Sendable {
    /// New term.
    public var term: String?
    /// New meaning.
    public var meaning: String?
    /// New reading.
    public var reading: String?
    /// New examples (replacing all of them).
    public var examples: [String]?
    /// New notes.
    public var notes: String?
    /// New tags (replacing all of them), applied before `addTags` and `removeTags`.
    public var tags: [String]?
    /// Tags to add (kept once, case-insensitively).
    public var addTags: [String]
    /// Tags to remove (in any case).
    public var removeTags: [String]

    /// Makes an edit; every field defaults to "unchanged".
    public init(
        term: String? = nil, meaning: String? = nil, reading: String? = nil, examples: [String]? = nil,
        notes: String? = nil, tags: [String]? = nil, addTags: [String] = [], removeTags: [String] = []
    ) {
        self.term = term
        self.meaning = meaning
        self.reading = reading
        self.examples = examples
        self.notes = notes
        self.tags = tags
        self.addTags = addTags
        self.removeTags = removeTags
    }

    /// `content` with this edit applied (not yet validated).
    func applied(to content: WordContent) -> WordContent {
        var result = content
        if let term { result.term = term }
        if let meaning { result.meaning = meaning }
        if let reading { result.reading = reading }
        if let examples { result.examples = examples }
        if let notes { result.notes = notes }
        if let tags { result.tags = tags }
        result.tags = TagSet.applying(adding: addTags, removing: removeTags, to: result.tags)
        return result
    }
}

/// The outcome of adding a word: the word, and any live words with the same term.
public struct AddResult: Sendable {
    /// The word as stored.
    public var word: Word
    /// Words already in the library whose term matches case- and accent-insensitively.
    public var duplicates: [Word]
}
