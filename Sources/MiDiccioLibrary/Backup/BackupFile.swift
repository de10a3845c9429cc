import Foundation
import MiDiccioModel

/// The backup file format: one JSON object holding every word, Trash included.
///
/// ```json
/// { "format": "midiccio-backup", "version": 2, "exportedAt": "2026-11-29T10:00:00.123Z",
///   "reviews": [ { "word": "…", "time": "…", "grade": "good", "device": "…", "seconds": 4 } ],
///   "words": [ { "id": "…", "term": "…", … , "deletedAt": null } ] }
/// ```
/// Version 2 added the review history (`reviews`); version 1 files still restore.
/// Readers ignore keys they do not know, so later versions can add fields.
public enum BackupFile {
    /// The value of the `format` key.
    public static let formatName = "midiccio-backup"
    /// The newest format version this MiDiccio writes and reads.
    public static let version = 2

    /// The backup text for `words` and their review history, exported at `time`.
    public static func encode(_ words: [Word], reviews: [ReviewEvent] = [], exportedAt time: Timestamp) -> String {
        var writer = Writer()
        var text = writer.start(wordCount: words.count, reviews: reviews, exportedAt: time)
        for word in words { text += writer.next(word) }
        return text + writer.end()
    }

    /// The text of a backup in pieces, as `encode` writes it whole, so that a library of
    /// any size is exported without holding its words or its text: the header and the
    /// review history, then each word's piece in turn, then the end.
    struct Writer {
        private var written = 0

        /// The start of a backup of `wordCount` words (the count the file states), with
        /// the review history.
        func start(wordCount: Int, reviews: [ReviewEvent], exportedAt time: Timestamp) -> String {
            var text = "{\n  \"format\": \(JSONText.quote(formatName)),\n  \"version\": \(version),\n"
            text += "  \"exportedAt\": \(JSONText.quote(time.iso8601)),\n  \"wordCount\": \(wordCount),\n"
            // The history before the words, so the file still ends with the word list.
            text += "  \"reviews\": ["
            text += reviews.map { event in
                "\n    {\"word\": \(JSONText.quote(event.wordID.rawValue)), \"time\": \(JSONText.quote(event.time.iso8601)), "
                    + "\"grade\": \(JSONText.quote(event.grade.name)), \"device\": \(JSONText.quote(event.device)), "
                    + "\"seconds\": \(event.seconds)}"
            }.joined(separator: ",")
            return text + (reviews.isEmpty ? "],\n  \"words\": [" : "\n  ],\n  \"words\": [")
        }

        /// The piece for the next word.
        mutating func next(_ word: Word) -> String {
            defer { written += 1 }
            return (written == 0 ? "\n    " : ",\n    ") + WordJSON.object(word, indent: 6)
        }

        /// The end of the word list and of the file.
        func end() -> String {
            written == 0 ? "]\n}\n" : "\n  ]\n}\n"
        }
    }

    /// Reads and checks a whole backup. Any problem throws `invalidBackup` naming the
    /// entry (or the JSON position) and the field; nothing is returned half-read.
    public static func decode(_ data: Data, file: String) throws -> [Word] {
        try decodeWithReviews(data, file: file).words
    }

    /// Like `decode`, with the review history (empty in a version 1 file).
    public static func decodeWithReviews(_ data: Data, file: String) throws -> (words: [Word], reviews: [ReviewEvent]) {
        func fail(_ location: String?, _ message: String) -> LibraryError {
            .invalidBackup(file: file, location: location, message: message)
        }
        if data.isEmpty { throw fail(nil, "the file is empty") }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw fail(Self.position(of: error, in: data), "not valid JSON (the file may be truncated or corrupt): \(Self.reason(error))")
        }
        guard let object = root as? [String: Any] else { throw fail(nil, "expected a JSON object at the top level") }
        guard let format = object["format"] as? String, format == formatName else {
            throw fail(nil, "\"format\" must be \"\(formatName)\"; this is not a MiDiccio backup")
        }
        guard let version = object["version"] as? Int else { throw fail(nil, "\"version\" is missing or not a number") }
        guard version <= Self.version, version >= 1 else {
            throw fail(nil, "backup format version \(version) is newer than this MiDiccio reads (\(Self.version)); update MiDiccio")
        }
        guard let entries = object["words"] as? [Any] else { throw fail(nil, "\"words\" is missing or not a list") }
        if let count = object["wordCount"] as? Int, count != entries.count {
            throw fail(nil, "the file says it holds \(count) words but has \(entries.count); it may be truncated")
        }
        var seen: [WordID: Int] = [:]
        var words: [Word] = []
        words.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let word = try decodeWord(entry, location: "entry \(index + 1)", file: file)
            if let first = seen[word.id] {
                throw fail("entry \(index + 1)", "id \(word.id) is already used by entry \(first)")
            }
            seen[word.id] = index + 1
            words.append(word)
        }
        var reviews: [ReviewEvent] = []
        if let list = object["reviews"] {
            guard let entries = list as? [Any] else { throw fail(nil, "\"reviews\" is not a list") }
            for (index, entry) in entries.enumerated() {
                let location = "review \(index + 1)"
                guard let review = entry as? [String: Any] else { throw fail(location, "expected an object") }
                guard let idText = review["word"] as? String, let id = WordID(idText) else {
                    throw fail(location, "\"word\" must be a word id")
                }
                guard let timeText = review["time"] as? String, let time = Timestamp(iso8601: timeText) else {
                    throw fail(location, "\"time\" must be an ISO 8601 time")
                }
                guard let gradeText = review["grade"] as? String, let grade = ReviewGrade(name: gradeText), Int(gradeText) == nil else {
                    throw fail(location, "\"grade\" must be again, hard, good or easy")
                }
                guard let device = review["device"] as? String, !device.isEmpty, device.utf8.count <= 100 else {
                    throw fail(location, "\"device\" must be a device id")
                }
                let seconds = review["seconds"] as? Int ?? 0
                guard seconds >= 0 else { throw fail(location, "\"seconds\" must not be negative") }
                reviews.append(ReviewEvent(wordID: id, time: time, grade: grade, device: device, seconds: seconds))
            }
        }
        return (words, reviews)
    }

    /// Reads one word object (as in backups and undo data).
    static func decodeWord(_ entry: Any, location: String, file: String) throws -> Word {
        func fail(_ field: String?, _ message: String) -> LibraryError {
            .invalidBackup(file: file, location: location + (field.map { ", field \"\($0)\"" } ?? ""), message: message)
        }
        guard let object = entry as? [String: Any] else { throw fail(nil, "expected a word object") }
        guard let idText = object["id"] as? String else { throw fail("id", "missing or not text") }
        guard let id = WordID(idText) else { throw fail("id", "\"\(idText.prefix(60))\" is not a UUID") }
        func text(_ key: String, required: Bool = false) throws -> String {
            guard let value = object[key], !(value is NSNull) else {
                if required { throw fail(key, "missing") }
                return ""
            }
            guard let string = value as? String else { throw fail(key, "must be text") }
            return string
        }
        func list(_ key: String) throws -> [String] {
            guard let value = object[key], !(value is NSNull) else { return [] }
            guard let strings = value as? [String] else { throw fail(key, "must be a list of text") }
            return strings
        }
        func time(_ key: String, required: Bool) throws -> Timestamp? {
            guard let value = object[key], !(value is NSNull) else {
                if required { throw fail(key, "missing") }
                return nil
            }
            guard let string = value as? String, let time = Timestamp(iso8601: string) else {
                throw fail(key, "must be a UTC time like 2026-11-29T10:00:00.123Z (at most 3 fractional digits)")
            }
            return time
        }
        let raw = WordContent(
            term: try text("term", required: true), meaning: try text("meaning"), reading: try text("reading"),
            examples: try list("examples"), notes: try text("notes"), tags: try list("tags"))
        let content: WordContent
        do {
            content = try raw.validated()
        } catch {
            throw fail(error.field, error.message)
        }
        let created = try time("createdAt", required: true)!
        let updated = try time("updatedAt", required: true)!
        guard updated >= created else { throw fail("updatedAt", "is earlier than createdAt") }
        return Word(
            id: id, term: content.term, meaning: content.meaning, reading: content.reading,
            examples: content.examples, notes: content.notes, tags: content.tags,
            createdAt: created, updatedAt: updated, deletedAt: try time("deletedAt", required: false))
    }

    private static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }

    /// "line L, column C" of a JSON syntax error. Foundation reports the offset in
    /// userInfo on Apple platforms and only in the message ("around character 47") on
    /// Linux; a file that ends too early is placed at its last line.
    private static func position(of error: Error, in data: Data) -> String? {
        let nsError = error as NSError
        var offset = nsError.userInfo["NSJSONSerializationErrorIndex"] as? Int
        let message = reason(error)
        if offset == nil, let range = message.range(of: "character ") {
            offset = Int(message[range.upperBound...].prefix { $0.isNumber })
        }
        if offset == nil, message.lowercased().contains("end of file") || message.lowercased().contains("unexpected end") {
            offset = data.count
        }
        guard let offset else { return nil }
        var line = 1, column = 1
        for byte in data.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return "line \(line), column \(column)"
    }
}
