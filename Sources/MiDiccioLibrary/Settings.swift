import MiDiccioModel
import MiDiccioStore

/// A library setting that syncs to every device (last writer wins per key).
public enum LibrarySetting: String, CaseIterable, Sendable {
    /// Words in the Trash longer than this many days are purged ("off" by default).
    case autoPurgeDays = "trash.autoPurgeDays"
    /// Trash entries older than this many days are hidden from the Trash list (but still
    /// restorable with `trash --all`); "off" by default.
    case hideAfterDays = "trash.hideAfterDays"
    /// The share of reviews that should be remembered, 0.70 to 0.99 (FSRS; default 0.9).
    case desiredRetention = "study.desiredRetention"
    /// New words a day that studying introduces (default 20).
    case newPerDay = "study.newPerDay"
    /// Reviews a day at most (default 200).
    case reviewsPerDay = "study.reviewsPerDay"

    /// The value when never set.
    public var defaultValue: String {
        switch self {
        case .autoPurgeDays, .hideAfterDays: "off"
        case .desiredRetention: "0.9"
        case .newPerDay: "20"
        case .reviewsPerDay: "200"
        }
    }

    /// What the setting does, for `config list`.
    public var summary: String {
        switch self {
        case .autoPurgeDays: "purge words that have been in the Trash longer than this many days"
        case .hideAfterDays: "hide Trash entries older than this many days (trash --all shows them)"
        case .desiredRetention: "the share of reviews to remember, 0.70 to 0.99 (shorter intervals when higher)"
        case .newPerDay: "new words a day that studying brings in (0 to 9999)"
        case .reviewsPerDay: "reviews a day at most (0 to 99999)"
        }
    }

    /// Checks and normalises a value: for the Trash settings "off" or a whole number of
    /// days from 1 to 36,500; for the study settings a number in their range.
    public func validated(_ value: String) throws -> String {
        let trimmed = value.trimmed.lowercased()
        switch self {
        case .autoPurgeDays, .hideAfterDays: break
        case .desiredRetention:
            guard let share = Double(trimmed), share >= 0.7, share <= 0.99 else {
                throw LibraryError.invalidWord(
                    WordValidationError(field: rawValue, message: "must be a number from 0.70 to 0.99, not '\(value)'"))
            }
            return String(share)
        case .newPerDay, .reviewsPerDay:
            let most = self == .newPerDay ? 9_999 : 99_999
            guard let count = Int(trimmed), (0...most).contains(count) else {
                throw LibraryError.invalidWord(
                    WordValidationError(field: rawValue, message: "must be a whole number from 0 to \(most), not '\(value)'"))
            }
            return String(count)
        }
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
