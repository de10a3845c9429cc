/// One entry of a person's word list, as the user sees it.
///
/// `updatedAt` is the newest of the word's field times (see `FieldTimes`); `deletedAt`
/// is nil unless the word is in the Trash (deletion only sets this flag: a soft delete).
public struct Word: Hashable, Sendable {
    /// The word's identity, shared by every device.
    public var id: WordID
    /// The word itself: trimmed, never empty.
    public var term: String
    /// What it means.
    public var meaning: String
    /// How it is pronounced or read (kana, pinyin, IPA ...).
    public var reading: String
    /// Example sentences, one line each.
    public var examples: [String]
    /// Free notes.
    public var notes: String
    /// Tags: a set compared case-insensitively, kept in the form and order first written.
    public var tags: [String]
    /// When the word was first added.
    public var createdAt: Timestamp
    /// The newest change to any of its fields.
    public var updatedAt: Timestamp
    /// When it was moved to the Trash; nil when it is not in the Trash.
    public var deletedAt: Timestamp?

    /// Makes a word from all of its fields.
    public init(
        id: WordID, term: String, meaning: String = "", reading: String = "",
        examples: [String] = [], notes: String = "", tags: [String] = [],
        createdAt: Timestamp, updatedAt: Timestamp, deletedAt: Timestamp? = nil
    ) {
        self.id = id
        self.term = term
        self.meaning = meaning
        self.reading = reading
        self.examples = examples
        self.notes = notes
        self.tags = tags
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }

    /// True when the word is in the Trash.
    public var isDeleted: Bool { deletedAt != nil }

    /// The user-visible content: everything but the times.
    public var content: WordContent {
        WordContent(term: term, meaning: meaning, reading: reading, examples: examples, notes: notes, tags: tags)
    }

    /// True when `field` holds exactly the same value in both words, byte for byte
    /// (`SameBytes`; sync and the library decide per field what changed; tags compare as
    /// written, in order).
    public func hasSameValue(_ field: WordField, as other: Word) -> Bool {
        guard let texts = texts(of: field), let others = other.texts(of: field) else { return deletedAt == other.deletedAt }
        return SameBytes.equal(texts, others)
    }

    /// True when this word's value of `field` orders after `other`'s: the last tie-break
    /// of the merge rules, for two values written at the same millisecond by the same
    /// device id (two copies of one library file). Lists compare element by element,
    /// a missing Trash time orders first; texts as `SameBytes.ordersAfter`.
    public func valueOrdersAfter(_ field: WordField, _ other: Word) -> Bool {
        guard let texts = texts(of: field), let others = other.texts(of: field) else {
            return (deletedAt?.milliseconds ?? -1) > (other.deletedAt?.milliseconds ?? -1)
        }
        return SameBytes.ordersAfter(texts, others)
    }

    /// The value of a text field as a list (one text, or the examples or tags); nil for
    /// the Trash time. A one-text list compares and orders as its text does.
    private func texts(of field: WordField) -> [String]? {
        switch field {
        case .term: [term]
        case .meaning: [meaning]
        case .reading: [reading]
        case .examples: examples
        case .notes: [notes]
        case .tags: tags
        case .deleted: nil
        }
    }

    /// Copies the value of `field` from `other`.
    public mutating func takeValue(_ field: WordField, from other: Word) {
        switch field {
        case .term: term = other.term
        case .meaning: meaning = other.meaning
        case .reading: reading = other.reading
        case .examples: examples = other.examples
        case .notes: notes = other.notes
        case .tags: tags = other.tags
        case .deleted: deletedAt = other.deletedAt
        }
    }

    /// True when both words say the same thing (tags compared as a case-insensitive set).
    ///
    /// Product notes: "equal time and identical content: already synced, do nothing".
    public func hasSameContent(as other: Word) -> Bool {
        content == other.content && deletedAt == other.deletedAt
    }
}

/// The editable fields of a word, without identity or times.
public struct WordContent: Hashable, Sendable {
    /// See `Word.term`.
    public var term: String
    /// See `Word.meaning`.
    public var meaning: String
    /// See `Word.reading`.
    public var reading: String
    /// See `Word.examples`.
    public var examples: [String]
    /// See `Word.notes`.
    public var notes: String
    /// See `Word.tags`.
    public var tags: [String]

    /// Makes content; call `validated()` before storing it.
    public init(
        term: String, meaning: String = "", reading: String = "", examples: [String] = [],
        notes: String = "", tags: [String] = []
    ) {
        self.term = term
        self.meaning = meaning
        self.reading = reading
        self.examples = examples
        self.notes = notes
        self.tags = tags
    }

    public static func == (lhs: WordContent, rhs: WordContent) -> Bool {
        lhs.term == rhs.term && lhs.meaning == rhs.meaning && lhs.reading == rhs.reading
            && lhs.examples == rhs.examples && lhs.notes == rhs.notes
            && TagSet.sameTags(lhs.tags, rhs.tags)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(term)
        hasher.combine(meaning)
        hasher.combine(reading)
        hasher.combine(examples)
        hasher.combine(notes)
        hasher.combine(Set(tags.map(TagSet.key)))
    }
}

/// The fields that sync merges one by one (last writer wins per field).
public enum WordField: String, CaseIterable, Sendable {
    case term, meaning, reading, examples, notes, tags
    /// The Trash flag: deleting and restoring are edits of this field.
    case deleted

    /// The field's position in `allCases`.
    public var index: Int {
        switch self {
        case .term: 0
        case .meaning: 1
        case .reading: 2
        case .examples: 3
        case .notes: 4
        case .tags: 5
        case .deleted: 6
        }
    }
}

/// The time of each field's last change; a word's `updatedAt` is the newest of them.
public struct FieldTimes: Hashable, Sendable {
    /// Per-field times, indexed by `WordField`.
    public var term, meaning, reading, examples, notes, tags, deleted: Timestamp

    /// Makes field times that all read `time` (a word just added).
    public init(all time: Timestamp) {
        term = time
        meaning = time
        reading = time
        examples = time
        notes = time
        tags = time
        deleted = time
    }

    /// The time of `field`.
    public subscript(field: WordField) -> Timestamp {
        get {
            switch field {
            case .term: term
            case .meaning: meaning
            case .reading: reading
            case .examples: examples
            case .notes: notes
            case .tags: tags
            case .deleted: deleted
            }
        }
        set {
            switch field {
            case .term: term = newValue
            case .meaning: meaning = newValue
            case .reading: reading = newValue
            case .examples: examples = newValue
            case .notes: notes = newValue
            case .tags: tags = newValue
            case .deleted: deleted = newValue
            }
        }
    }

    /// The newest field time: what `updatedAt` must equal.
    public var newest: Timestamp {
        WordField.allCases.map { self[$0] }.max()!
    }
}
