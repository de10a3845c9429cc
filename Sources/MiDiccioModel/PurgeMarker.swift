/// A purge marker: all that is left of a permanently deleted word.
public struct PurgeMarker: Hashable, Sendable {
    /// The purged word's id.
    public var id: WordID
    /// When it was purged.
    public var purgedAt: Timestamp

    /// Makes a marker.
    public init(id: WordID, purgedAt: Timestamp) {
        self.id = id
        self.purgedAt = purgedAt
    }
}
