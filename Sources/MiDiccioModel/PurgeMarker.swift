/// A purge marker: all that is left of a permanently deleted word.
public struct PurgeMarker: Hashable, Sendable {
    /// The purged word's id.
    public var id: WordID
    /// When it was purged.
    public var purgedAt: Timestamp
    /// Set when the Trash's clean-up (`trash.autoPurgeDays`) purged the word rather than a
    /// person (format 6; nil in older files, whose markers all count as a person's): the
    /// times of the version it purged. A device that holds the word out of its Trash with a
    /// change newer than all of them keeps that change (`SyncStore.apply`).
    public var cleanUp: CleanUp?

    /// The times of the version the Trash's clean-up purged.
    public struct CleanUp: Hashable, Sendable {
        /// When it went to the Trash: the time of its Trash flag.
        public var trashedAt: Timestamp
        /// The newest time of any of its fields.
        public var newest: Timestamp

        /// Makes the times of a purged version.
        public init(trashedAt: Timestamp, newest: Timestamp) {
            self.trashedAt = trashedAt
            self.newest = newest
        }
    }

    /// Makes a marker.
    public init(id: WordID, purgedAt: Timestamp, cleanUp: CleanUp? = nil) {
        self.id = id
        self.purgedAt = purgedAt
        self.cleanUp = cleanUp
    }
}
