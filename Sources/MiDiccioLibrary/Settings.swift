import MiDiccioModel
import MiDiccioStore

/// A library setting that syncs to every device (last writer wins per key).
public enum LibrarySetting: String, CaseIterable, Sendable {
    /// Words in the Trash longer than this many days are purged ("off" by default).
    case autoPurgeDays = "trash.autoPurgeDays"
    /// Trash entries older than this many days are hidden from the Trash list (but still
    /// restorable with `trash --all`); "off" by default.
    case hideAfterDays = "trash.hideAfterDays"

    /// The value when never set.
    public var defaultValue: String { "off" }

    /// What the setting does, for `config list`.
    public var summary: String {
        switch self {
        case .autoPurgeDays: "purge words that have been in the Trash longer than this many days"
        case .hideAfterDays: "hide Trash entries older than this many days (trash --all shows them)"
        }
    }

    /// Checks and normalises a value: "off" or a whole number of days from 1 to 36,500.
    public func validated(_ value: String) throws -> String {
        let trimmed = value.trimmed.lowercased()
        if trimmed == "off" { return "off" }
        guard let days = Int(trimmed), (1...36_500).contains(days) else {
            throw LibraryError.invalidWord(
                WordValidationError(field: rawValue, message: "must be off or a whole number of days from 1 to 36500, not '\(value)'"))
        }
        return String(days)
    }
}

extension WordLibrary {
    /// The value of `setting` ("off" unless set).
    public func setting(_ setting: LibrarySetting) throws -> String {
        try guarded {
            try database.text("SELECT value FROM settings WHERE key = ?", [.text(setting.rawValue)]) ?? setting.defaultValue
        }
    }

    /// Sets `setting` on this device; the next sync carries it to the others.
    public func setSetting(_ setting: LibrarySetting, to value: String) throws {
        let value = try setting.validated(value)
        try writing {
            let previous = try database.integer("SELECT time FROM settings WHERE key = ?", [.text(setting.rawValue)])
            let time = max(clock.now().milliseconds, (previous ?? 0) + 1)
            try storeSetting(key: setting.rawValue, value: value, time: Timestamp(milliseconds: time), writer: deviceID, pending: true)
        }
    }

    /// A setting's value in days, nil when "off".
    func settingDays(_ setting: LibrarySetting) throws -> Int? {
        Int(try self.setting(setting))
    }

    package func storeSetting(key: String, value: String, time: Timestamp, writer: String, pending: Bool) throws {
        try database.run(
            """
            INSERT INTO settings (key, value, time, writer, pending) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, time = excluded.time, writer = excluded.writer,
                pending = excluded.pending
            """, [.text(key), .text(value), .time(time), .text(writer), .integer(pending ? 1 : 0)])
    }
}
