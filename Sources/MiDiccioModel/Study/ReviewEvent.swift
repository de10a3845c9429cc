/// How well a word was remembered: the four answers of a review, as FSRS numbers them.
public enum ReviewGrade: Int, Hashable, Sendable, CaseIterable, Comparable {
    /// Forgotten.
    case again = 1
    /// Remembered with serious difficulty.
    case hard = 2
    /// Remembered.
    case good = 3
    /// Remembered at once.
    case easy = 4

    /// The grade's name as typed on the command line: "again", "hard", "good", "easy".
    public var name: String {
        switch self {
        case .again: "again"
        case .hard: "hard"
        case .good: "good"
        case .easy: "easy"
        }
    }

    /// The grade named `name` (case-insensitive), or the grade numbered `1`…`4`.
    public init?(name: String) {
        let lowered = name.lowercased()
        if let number = Int(lowered), let grade = ReviewGrade(rawValue: number) {
            self = grade
            return
        }
        guard let grade = Self.allCases.first(where: { $0.name == lowered }) else { return nil }
        self = grade
    }

    public static func < (lhs: ReviewGrade, rhs: ReviewGrade) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One answer to one word: immutable once made, synced as it is, never edited.
///
/// A word's schedule is not synced: every device replays the word's events in
/// `ReviewEvent.replayOrder`, so two reviews made offline on two devices both count and
/// both devices derive the same due date (issue 15).
public struct ReviewEvent: Hashable, Sendable {
    /// The word reviewed.
    public var wordID: WordID
    /// When the answer was given.
    public var time: Timestamp
    /// The answer.
    public var grade: ReviewGrade
    /// The id of the device that recorded it.
    public var device: String
    /// How long the answer took, in whole seconds (0 when unknown).
    public var seconds: Int

    /// The longest an answer is recorded as taking: a day. A card left shown longer was
    /// not being looked at all that time.
    public static let longestSeconds = 86_400

    /// Makes an event.
    public init(wordID: WordID, time: Timestamp, grade: ReviewGrade, device: String, seconds: Int = 0) {
        self.wordID = wordID
        self.time = time
        self.grade = grade
        self.device = device
        self.seconds = seconds
    }

    /// The order every device replays events in: by time, then by device id, then by
    /// grade (one device cannot record two answers to a word in one millisecond, but a
    /// copied library could), so the result never depends on the order they arrived in.
    public static func replayOrder(_ lhs: ReviewEvent, _ rhs: ReviewEvent) -> Bool {
        (lhs.time.milliseconds, lhs.device, lhs.grade.rawValue, lhs.seconds)
            < (rhs.time.milliseconds, rhs.device, rhs.grade.rawValue, rhs.seconds)
    }
}

/// One review event where a batch file holds it, read in place: valid only during the
/// call it is handed to. A new device's first sync stores a million of these without
/// making a `ReviewEvent` (two strings) for each.
package struct ReviewEventBytes {
    /// The word id's text: 36 bytes, already checked and lowercase.
    package var wordID: UnsafeRawBufferPointer
    /// When the answer was given, in milliseconds.
    package var time: Int64
    /// The device that recorded it, as an index into the device table it was read with
    /// (the library's review import numbers that table).
    package var device: Int
    /// The answer.
    package var grade: ReviewGrade
    /// How long the answer took, in whole seconds.
    package var seconds: Int

    /// Makes the view of one event.
    package init(wordID: UnsafeRawBufferPointer, time: Int64, device: Int, grade: ReviewGrade, seconds: Int) {
        self.wordID = wordID
        self.time = time
        self.device = device
        self.grade = grade
        self.seconds = seconds
    }
}
