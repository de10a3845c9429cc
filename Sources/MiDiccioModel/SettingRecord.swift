/// A synced setting with the time and writer that last set it (last writer wins).
public struct SettingRecord: Hashable, Sendable {
    /// The setting's key ("trash.autoPurgeDays").
    public var key: String
    /// Its value.
    public var value: String
    /// When it was set.
    public var time: Timestamp
    /// The device that set it.
    public var writer: String

    /// Makes a setting record.
    public init(key: String, value: String, time: Timestamp, writer: String) {
        self.key = key
        self.value = value
        self.time = time
        self.writer = writer
    }
}
