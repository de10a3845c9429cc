import Foundation
import MiDiccioModel

/// The backup file format: one JSON object holding every word, Trash included.
///
/// ```json
/// { "format": "midiccio-backup", "version": 2, "exportedAt": "2026-11-29T10:00:00.123Z",
///   "reviews": [ { "word": "…", "time": "…", "grade": "good", "device": "…", "seconds": 4 } ],
///   "words": [ { "id": "…", "term": "…", … , "deletedAt": null } ] }
/// ```
/// Version 2 added the review history (`reviews`); version 1 files still restore. Since
/// 2026-12-06 a backup also holds the library's synced settings, each with when and by
/// which device it was set (optional, so older files restore as before):
///
/// ```json
/// "settings": { "study.newPerDay": { "value": "5", "time": "…", "writer": "…" } },
/// ```
/// Readers ignore keys they do not know, so later versions can add fields. Each word also
/// carries `times`, when each field last changed (since 2026-12-04; optional, so older
/// MiDiccio reads these files as before): a merge then takes a field from the backup only
/// where the backup's is newer. A word whose tags were not all written at once carries
/// `tagClock` too (since 2026-12-04), when each tag was put on or taken off, so that a
/// merge takes the tags one at a time, as sync does:
///
/// ```json
/// "tagClock": { "floor": "…", "tags": [ { "tag": "verbo", "on": true, "time": "…", "placedAt": "…", "position": 0 } ] }
/// ```
public enum BackupFile {
    /// A word as a backup holds it: with the time of each field's last change, when the
    /// file says (`times`), and its tags' clock, when the file has one (`tagClock`).
    public typealias Entry = (word: Word, times: FieldTimes?, tagClock: TagClock?)

    /// The value of the `format` key.
    public static let formatName = "midiccio-backup"
    /// The newest format version this MiDiccio writes and reads.
    public static let version = 2

    /// The backup text for `words` (with each one's field times and tag clock, in the same
    /// order, when given) and their review history, exported at `time` by `device`.
    public static func encode(
        _ words: [Word], times: [FieldTimes]? = nil, tagClocks: [TagClock]? = nil, reviews: [ReviewEvent] = [],
        settings: [SettingRecord] = [], exportedAt time: Timestamp, exportedBy device: String? = nil
    ) -> String {
        var writer = Writer()
        var text = writer.start(wordCount: words.count, reviews: reviews, settings: settings, exportedAt: time, exportedBy: device)
        for (index, word) in words.enumerated() { text += writer.next(word, times: times?[index], tagClock: tagClocks?[index]) }
        return text + writer.end()
    }

    /// The text of a backup in pieces, as `encode` writes it whole, so that a library of
    /// any size is exported without holding its words or its text: the header and the
    /// review history, then each word's piece in turn, then the end.
    struct Writer {
        private var written = 0

        /// The start of a backup of `wordCount` words (the count the file states), with
        /// the library's settings (those ever set) and the review history.
        func start(
            wordCount: Int, reviews: [ReviewEvent], settings: [SettingRecord] = [], exportedAt time: Timestamp,
            exportedBy device: String? = nil
        ) -> String {
            var text = "{\n  \"format\": \(JSONText.quote(formatName)),\n  \"version\": \(version),\n"
            text += "  \"exportedAt\": \(JSONText.quote(time.iso8601)),\n"
            if let device { text += "  \"exportedBy\": \(JSONText.quote(device)),\n" }
            text += "  \"wordCount\": \(wordCount),\n"
            if !settings.isEmpty {
                let pairs = settings.map { setting in
                    (
                        setting.key,
                        JSONText.object(
                            [
                                ("value", JSONText.quote(setting.value)), ("time", JSONText.quote(setting.time.iso8601)),
                                ("writer", JSONText.quote(setting.writer)),
                            ], spaced: true)
                    )
                }
                text += "  \"settings\": " + JSONText.object(pairs, spaced: true) + ",\n"
            }
            // The history before the words, so the file still ends with the word list.
            text += "  \"reviews\": ["
            text += reviews.map { event in
                "\n    {\"word\": \(JSONText.quote(event.wordID.rawValue)), \"time\": \(JSONText.quote(event.time.iso8601)), "
                    + "\"grade\": \(JSONText.quote(event.grade.name)), \"device\": \(JSONText.quote(event.device)), "
                    + "\"seconds\": \(event.seconds)}"
            }.joined(separator: ",")
            return text + (reviews.isEmpty ? "],\n  \"words\": [" : "\n  ],\n  \"words\": [")
        }

        /// The piece for the next word, with the time of each field's last change and its
        /// tags' clock (left out when the list says all it does).
        mutating func next(_ word: Word, times: FieldTimes?, tagClock: TagClock? = nil) -> String {
            defer { written += 1 }
            // A reader refuses a field time later than `updatedAt`: a library's own words
            // always pass (`updatedAt` is the newest field time; kept so if ever not).
            var word = word
            if let newest = times?.newest, newest > word.updatedAt { word.updatedAt = newest }
            if let clock = tagClock {
                let newest = ([clock.floor].compactMap { $0 } + clock.marks.values.flatMap { [$0.time, $0.orderTime] }).max()
                if let newest, newest > word.updatedAt { word.updatedAt = newest }
            }
            var object = WordJSON.object(word, indent: 6)
            if let times {
                let pairs = WordField.allCases.map { (BackupFile.timesKey($0), JSONText.quote(times[$0].iso8601)) }
                object = String(object.dropLast(6)) + ",\n      \"times\": " + JSONText.object(pairs, spaced: true) + "\n    }"
            }
            if let tagClock, tagClock != .implied {
                object = String(object.dropLast(6)) + ",\n      \"tagClock\": " + BackupFile.tagClockText(tagClock) + "\n    }"
            }
            return (written == 0 ? "\n    " : ",\n    ") + object
        }

        /// The end of the word list and of the file.
        func end() -> String {
            written == 0 ? "]\n}\n" : "\n  ]\n}\n"
        }
    }

    /// A word's `tagClock` as a backup writes it: the floor when there is one, and each
    /// tag's mark, in key order.
    static func tagClockText(_ clock: TagClock) -> String {
        let marks = clock.marks.sorted { $0.key < $1.key }.map { _, mark in
            JSONText.object(
                [
                    ("tag", JSONText.quote(mark.form)), ("on", mark.isPresent ? "true" : "false"),
                    ("time", JSONText.quote(mark.time.iso8601)), ("placedAt", JSONText.quote(mark.orderTime.iso8601)),
                    ("position", String(mark.position)),
                ], spaced: true)
        }
        var pairs: [(String, String)] = []
        if let floor = clock.floor { pairs.append(("floor", JSONText.quote(floor.iso8601))) }
        pairs.append(("tags", "[" + marks.joined(separator: ", ") + "]"))
        return JSONText.object(pairs, spaced: true)
    }

    /// The key of `field` in a word's `times`.
    static func timesKey(_ field: WordField) -> String { field.rawValue }

    /// Reads and checks a whole backup. Any problem throws `invalidBackup` naming the
    /// entry (or the JSON position) and the field; nothing is returned half-read.
    public static func decode(_ data: Data, file: String) throws -> [Word] {
        try decodeWithReviews(data, file: file).words
    }

    /// Like `decode`, with the time of each field's last change where the file gives it.
    public static func decodeEntries(_ data: Data, file: String) throws -> [Entry] {
        var entries: [Entry] = []
        let pieces = { () -> () -> [UInt8]? in
            var given = false
            return {
                defer { given = true }
                return given || data.isEmpty ? nil : [UInt8](data)
            }
        }
        _ = try check(pieces: pieces(), file: file)
        try forEachWord(pieces: pieces(), file: file) { entries.append($0) }
        return entries
    }

    /// Like `decode`, with the review history (empty in a version 1 file).
    public static func decodeWithReviews(_ data: Data, file: String) throws -> (words: [Word], reviews: [ReviewEvent]) {
        func whole() -> () -> [UInt8]? {
            var given = false
            return {
                defer { given = true }
                return given || data.isEmpty ? nil : [UInt8](data)
            }
        }
        let checked = try check(pieces: whole(), file: file)
        var words: [Word] = []
        words.reserveCapacity(checked.wordCount)
        try forEachWord(pieces: whole(), file: file) { words.append($0.word) }
        return (words, checked.reviews)
    }

    /// What checking a backup found: how many words it holds, every one of them checked,
    /// and its review history.
    struct Checked {
        var wordCount: Int
        var reviews: [ReviewEvent]
        /// The library settings the backup holds (none in a backup written before them).
        var settings: [SettingRecord] = []
    }

    /// Checks a whole backup whose text `next` hands over in pieces (nil at its end),
    /// holding one entry at a time: any problem throws `invalidBackup` naming the entry
    /// (or the JSON position) and the field. A syntax error anywhere comes first, then the
    /// top level (format, version, the word list and its count), then the first bad word,
    /// then the review history, as a whole-file check finds them.
    ///
    /// With `onWord`, each word is handed over as soon as it is checked, in file order,
    /// until the first bad one: a restore writes them in its transaction as they come and
    /// rolls it back when the check throws at the end. What `onWord` throws stops the
    /// reading and comes back as it is.
    static func check(
        pieces next: () throws -> [UInt8]?, file: String, onWord: ((Entry) throws -> Void)? = nil
    ) throws -> Checked {
        func fail(_ location: String?, _ message: String) -> LibraryError {
            .invalidBackup(file: file, location: location, message: message)
        }
        var firstBadWord: Error?
        var firstBadReview: Error?
        // Ids as their 16 bytes, with the entry that used each first.
        var seen: [IDBytes: Int] = [:]
        var reviews: [ReviewEvent] = []
        let reader = BackupReader { list, entry, index in
            switch list {
            case .words:
                guard firstBadWord == nil else { return }
                let word: Entry
                do {
                    word = try decodeEntry(entry, location: "entry \(index + 1)", file: file)
                    let key = IDBytes(word.word.id)
                    if let first = seen[key] {
                        throw fail("entry \(index + 1)", "id \(word.word.id) is already used by entry \(first)")
                    }
                    seen[key] = index + 1
                } catch {
                    firstBadWord = error
                    return
                }
                try onWord?(word)
            case .reviews:
                guard firstBadReview == nil else { return }
                do {
                    reviews.append(try decodeReview(entry, location: "review \(index + 1)", file: file))
                } catch {
                    firstBadReview = error
                }
            }
        }
        var empty = true
        // The file's first byte that is not white space: "{" in every backup.
        var first: UInt8?
        // Its first bytes, which tell a backup saved again as UTF-16.
        var head: [UInt8] = []
        do {
            try reader.read(pieces: {
                let piece = try next()
                if piece != nil { empty = false }
                if first == nil, let piece { first = piece.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } }
                if head.count < 128, let piece { head += piece.prefix(128 - head.count) }
                return piece
            })
        } catch let error as BackupReader.SyntaxError {
            if empty { throw fail(nil, "the file is empty") }
            if UTF16Text.looksLike(head) {
                throw fail(nil, "this is UTF-16 text, not UTF-8 (a backup edited and saved as \"Unicode\", say): " + UTF16Text.advice)
            }
            // Wrong from its first character: another kind of file (a CSV export, a zip).
            if let first, first != UInt8(ascii: "{") {
                throw fail(nil, "this is not a MiDiccio backup (one is JSON text starting with \"{\"); to read a word list, use import")
            }
            throw fail(
                "line \(error.line), column \(error.column)", "not valid JSON (the file may be truncated or corrupt): \(error.reason)")
        }
        if empty { throw fail(nil, "the file is empty") }
        let outline = reader.outline
        guard outline.isObject else { throw fail(nil, "expected a JSON object at the top level") }
        guard let format = outline.values["format"] as? String, format == formatName else {
            throw fail(nil, "\"format\" must be \"\(formatName)\"; this is not a MiDiccio backup")
        }
        guard let version = outline.values["version"] as? Int else {
            if outline.values["version"] is Double { throw fail(nil, "\"version\" must be a whole number (1 to \(Self.version))") }
            throw fail(nil, "\"version\" is missing or not a number")
        }
        guard version >= 1 else { throw fail(nil, "backup format version \(version) is not one MiDiccio writes (1 to \(Self.version))") }
        guard version <= Self.version else {
            throw fail(nil, "backup format version \(version) is newer than this MiDiccio reads (\(Self.version)); update MiDiccio")
        }
        guard outline.lists[.words] == 1, outline.values["words"] == nil else {
            throw fail(nil, (outline.lists[.words] ?? 0) > 1 ? "\"words\" appears more than once" : "\"words\" is missing or not a list")
        }
        let count = outline.entries[.words] ?? 0
        if let stated = outline.values["wordCount"] as? Int, stated > count {
            throw fail(nil, "the file says it holds \(stated) words but has \(count); it may be truncated")
        }
        if let firstBadWord { throw firstBadWord }
        // More than it says is not a file cut short: a word named twice (found first, above)
        // or words added by hand (round 27B #7, called "truncated").
        if let stated = outline.values["wordCount"] as? Int, stated != count {
            throw fail(
                nil, "the file says it holds \(stated) words but has \(count), more than it says: it was edited or put together by hand")
        }
        if outline.values["reviews"] != nil || (outline.lists[.reviews] ?? 0) > 1 { throw fail(nil, "\"reviews\" is not a list") }
        if let firstBadReview { throw firstBadReview }
        return Checked(wordCount: count, reviews: reviews, settings: try decodeSettings(outline.values["settings"], file: file))
    }

    /// Reads a backup's `settings`: an object whose keys are settings, each an object with
    /// its `value`, the `time` it was set and its `writer`. A setting this MiDiccio knows must
    /// hold a value it accepts; one it does not know (a later version's, a name mistyped) is
    /// left out, as readers leave out keys they do not know: one taken was said to be taken
    /// and did nothing (round 25B #5, #9).
    static func decodeSettings(_ value: Any?, file: String) throws -> [SettingRecord] {
        guard let value else { return [] }
        guard let object = value as? [String: Any] else {
            throw LibraryError.invalidBackup(file: file, location: nil, message: "\"settings\" must be an object")
        }
        return try object.keys.sorted().compactMap { key in
            guard let known = LibrarySetting(rawValue: key) else { return nil }
            func fail(_ message: String) -> LibraryError {
                .invalidBackup(file: file, location: "setting \(key)", message: message)
            }
            guard let setting = object[key] as? [String: Any] else { throw fail("expected an object") }
            guard let text = setting["value"] as? String else { throw fail("\"value\" must be text") }
            guard let timeText = setting["time"] as? String, let time = Timestamp(iso8601: timeText) else {
                throw fail("\"time\" must be an ISO 8601 time")
            }
            guard let writer = setting["writer"] as? String, !writer.isEmpty, writer.utf8.count <= 100 else {
                throw fail("\"writer\" must be a device id")
            }
            do {
                return SettingRecord(key: key, value: try known.validated(text), time: time, writer: writer)
            } catch LibraryError.invalidWord(let error) {
                throw fail("\"value\" " + error.message)
            }
        }
    }

    /// Hands each word of a backup to `onWord` in file order as it is read, and gives its
    /// review history and settings: checking the file as it goes (`check`, whose verdict comes at the
    /// end), or, when `checkedFirst` says it was checked already, as `forEachWord` does.
    static func readWords(
        pieces next: () throws -> [UInt8]?, file: String, checkedFirst: Checked?, _ onWord: (Entry) throws -> Void
    ) throws -> Checked {
        if let checkedFirst {
            try forEachWord(pieces: next, file: file, onWord)
            return checkedFirst
        }
        return try withoutActuallyEscaping(onWord) { try check(pieces: next, file: file, onWord: $0) }
    }

    /// The `wordCount` a backup states before its first word (where MiDiccio writes it),
    /// read from the file's start up to that word; nil when none is stated there (or it is
    /// not a whole number of at least 0), or when that start is not valid JSON.
    static func statedWordCount(pieces next: () throws -> [UInt8]?) -> Int? {
        statedHeader(pieces: next).wordCount
    }

    /// The `wordCount` (as `statedWordCount`) and the `exportedBy` (the id of the device
    /// that wrote the backup, written since the evening of 2026-12-06) a backup states
    /// before its first word; nil for either when it is not stated there.
    static func statedHeader(pieces next: () throws -> [UInt8]?) -> (wordCount: Int?, exportedBy: String?) {
        struct FirstWord: Error {}
        let reader = BackupReader { list, _, _ in
            if list == .words { throw FirstWord() }
        }
        do {
            try reader.read(pieces: next)
        } catch is FirstWord {
        } catch {
            return (nil, nil)
        }
        let count = (reader.outline.values["wordCount"] as? Int).flatMap { $0 >= 0 ? $0 : nil }
        return (count, reader.outline.values["exportedBy"] as? String)
    }

    /// Hands each word of a backup that `check` passed to `body`, in file order, reading
    /// its text as `next` hands it over. A problem found now (the file changed since)
    /// throws as `check` would.
    static func forEachWord(pieces next: () throws -> [UInt8]?, file: String, _ body: (Entry) throws -> Void) throws {
        do {
            try withoutActuallyEscaping(body) { body in
                let reader = BackupReader { list, entry, index in
                    guard list == .words else { return }
                    try body(try decodeEntry(entry, location: "entry \(index + 1)", file: file))
                }
                try reader.read(pieces: next)
            }
        } catch let error as BackupReader.SyntaxError {
            throw LibraryError.invalidBackup(
                file: file, location: "line \(error.line), column \(error.column)",
                message: "not valid JSON (the file may be truncated or corrupt): \(error.reason)")
        }
    }

    /// A word id as its 16 bytes, for the duplicate check of a large backup.
    private struct IDBytes: Hashable {
        var high: UInt64
        var low: UInt64

        init(_ id: WordID) {
            let bytes = id.bytes
            high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
            low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// Reads one review event of a backup's history.
    static func decodeReview(_ entry: Any, location: String, file: String) throws -> ReviewEvent {
        func fail(_ message: String) -> LibraryError {
            .invalidBackup(file: file, location: location, message: message)
        }
        guard let review = entry as? [String: Any] else { throw fail("expected an object") }
        guard let idText = review["word"] as? String, let id = WordID(idText) else { throw fail("\"word\" must be a word id") }
        guard let timeText = review["time"] as? String, let time = Timestamp(iso8601: timeText) else {
            throw fail("\"time\" must be an ISO 8601 time")
        }
        guard let gradeText = review["grade"] as? String, let grade = ReviewGrade(name: gradeText), Int(gradeText) == nil else {
            throw fail("\"grade\" must be again, hard, good or easy")
        }
        guard let device = review["device"] as? String, !device.isEmpty, device.utf8.count <= 100 else {
            throw fail("\"device\" must be a device id")
        }
        let seconds = review["seconds"] as? Int ?? 0
        guard seconds >= 0 else { throw fail("\"seconds\" must be a whole number from 0 to 86400 (a day)") }
        // More than a day is read as a day: a card left on a terminal overnight was
        // recorded so (before the answer was capped), synced everywhere, and every backup
        // holding it was refused whole (found by the exploratory helper, round 14B).
        return ReviewEvent(wordID: id, time: time, grade: grade, device: device, seconds: min(seconds, ReviewEvent.longestSeconds))
    }

    /// Reads one word of a backup's list, with its `times` and its `tagClock` when it has
    /// them: each a time no later than the word's `updatedAt`; a field left out of `times`
    /// counts as changed then. Keys other than the fields' are left alone (a later version
    /// may add some).
    static func decodeEntry(_ entry: Any, location: String, file: String) throws -> Entry {
        let word = try decodeWord(entry, location: location, file: file)
        let tagClock = try decodeTagClock((entry as? [String: Any])?["tagClock"], of: word, location: location, file: file)
        return (word, try decodeTimes((entry as? [String: Any])?["times"], of: word, location: location, file: file), tagClock)
    }

    /// Reads a word's `tagClock`: each time no later than the word's `updatedAt`, each tag
    /// once (by its key, as tags compare); nil when there is none.
    static func decodeTagClock(_ value: Any?, of word: Word, location: String, file: String) throws -> TagClock? {
        guard let value, !(value is JSONNull) else { return nil }
        func fail(_ field: String, _ message: String) -> LibraryError {
            .invalidBackup(file: file, location: location + ", field \"tagClock\(field)\"", message: message)
        }
        func time(_ value: Any?, _ field: String) throws -> Timestamp {
            try fieldTime(value, of: word) { fail(field, $0) }
        }
        guard let object = value as? [String: Any] else { throw fail("", "must be an object with the tags' marks") }
        var clock = TagClock()
        if let floor = object["floor"], !(floor is JSONNull) { clock.floor = try time(floor, ".floor") }
        guard let marks = (object["tags"] ?? [Any]()) as? [Any] else { throw fail(".tags", "must be a list of marks") }
        for (index, item) in marks.enumerated() {
            let field = ".tags[\(index)]"
            guard let mark = item as? [String: Any] else { throw fail(field, "must be an object") }
            guard let form = mark["tag"] as? String, !form.isEmpty else { throw fail(field + ".tag", "must be a tag's text") }
            guard let isPresent = mark["on"] as? Bool else { throw fail(field + ".on", "must be true or false") }
            guard let position = mark["position"] as? Int, position >= 0 else {
                throw fail(field + ".position", "must be a whole number, 0 or more")
            }
            let key = TagSet.key(form)
            guard clock.marks[key] == nil else { throw fail(field + ".tag", "\"\(form.prefix(60))\" is marked twice") }
            clock.marks[key] = TagClock.Mark(
                time: try time(mark["time"], field + ".time"), isPresent: isPresent,
                orderTime: try time(mark["placedAt"], field + ".placedAt"), position: position, form: form)
        }
        return clock
    }

    /// Reads a word's `times`; nil when there are none.
    private static func decodeTimes(_ value: Any?, of word: Word, location: String, file: String) throws -> FieldTimes? {
        guard let value, !(value is JSONNull) else { return nil }
        func fail(_ field: String, _ message: String) -> LibraryError {
            .invalidBackup(file: file, location: location + ", field \"times.\(field)\"", message: message)
        }
        guard let object = value as? [String: Any] else {
            throw LibraryError.invalidBackup(file: file, location: location + ", field \"times\"", message: "must be an object of times")
        }
        var times = FieldTimes(all: word.updatedAt)
        for field in WordField.allCases {
            let key = timesKey(field)
            guard let given = object[key] else { continue }
            times[field] = try fieldTime(given, of: word) { fail(key, $0) }
        }
        return times
    }

    /// A time of `times` or `tagClock`: ISO 8601 in UTC, no later than the word's
    /// `updatedAt`. `fail` makes the error for a message.
    private static func fieldTime(_ value: Any?, of word: Word, _ fail: (String) -> LibraryError) throws -> Timestamp {
        guard let text = value as? String, let time = Timestamp(iso8601: text) else {
            throw fail("must be a UTC time like 2026-11-29T10:00:00.123Z (at most 3 fractional digits)")
        }
        guard time <= word.updatedAt else { throw fail("is later than updatedAt") }
        return time
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
            guard let value = object[key], !(value is JSONNull) else {
                if required { throw fail(key, "missing") }
                return ""
            }
            guard let string = value as? String else { throw fail(key, "must be text") }
            return string
        }
        func list(_ key: String) throws -> [String] {
            guard let value = object[key], !(value is JSONNull) else { return [] }
            guard let strings = value as? [String] else { throw fail(key, "must be a list of text") }
            return strings
        }
        func time(_ key: String, required: Bool) throws -> Timestamp? {
            guard let value = object[key], !(value is JSONNull) else {
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
            content = try raw.validated(tagLimit: WordLimits.heldTagCount, invisibleTermAllowed: true)
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
}
