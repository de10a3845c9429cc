/// A word as it travels between devices: every field with the time of its last change
/// and the id of the device that made it. Nothing else (no local row numbers, no
/// pending flags) leaves the device.
public struct SyncRecord: Hashable, Sendable {
    /// The values (its `updatedAt` is the newest field time).
    public var word: Word
    /// The time of each field's last change.
    public var times: FieldTimes
    /// The device id that wrote each field, indexed like `WordField.allCases`.
    public var writers: [String]
    /// When each tag was put on or taken off (sync merges tags one at a time).
    public var tagClock: TagClock

    /// Makes a record; `writers` must have one entry per `WordField`.
    public init(word: Word, times: FieldTimes, writers: [String], tagClock: TagClock = .implied) {
        precondition(writers.count == WordField.allCases.count, "one writer per field")
        self.word = word
        self.times = times
        self.writers = writers
        self.tagClock = tagClock
    }
}
