import Foundation
import MiDiccioLibrary
import MiDiccioModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `study` object of `show --json`: the schedule derived from the word's events.
func studyJSON(_ schedule: StudySchedule) -> String {
    JSONText.schedule(schedule, spaced: true)
}

extension ReviewGrade: ExpressibleByArgument {
    package init?(argument text: String) { self.init(name: text) }
    package static var expectation: String { "again, hard, good or easy (or 1-4)" }
    package static var valueName: String? { "grade" }
}

/// `midiccio review`
struct ReviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["review"], abstract: "Answer a word: again, hard, good or easy (for scripts; 'study' is for people).",
        discussion: "Records the answer as a review event, which syncs to your other devices, and prints when the word is due.",
        examples: ["midiccio review 3f2a9c good", "midiccio review 3f2a9c again --json"])

    @Argument(name: "id", help: "The word's id or a unique prefix of at least 6 characters.") var id: String
    @Argument(name: "grade", help: ReviewGrade.expectation) var grade: ReviewGrade
    @Option(name: "seconds", help: "How long the answer took, in seconds.", range: 0...86_400) var seconds = 0
    @OptionGroup var output = OutputOptions(help: "Print the word's new schedule as JSON.")

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        let word = try library.resolve(id, inTrash: false)
        let schedule = try library.review(word.id, grade: grade, seconds: seconds)
        if output.json {
            context.io.write(studyJSON(schedule) + "\n")
        } else {
            let due = schedule.due?.iso8601 ?? "now"
            context.io.write("\"\(word.term.shownSafely)\": \(grade.name); due \(due) (\(schedule.state.rawValue))\n")
        }
    }
}

/// `midiccio due`
struct DueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["due"], abstract: "List the words to study now: those due, then new ones within today's limit.",
        examples: ["midiccio due", "midiccio due --tag verbs --json"])

    @Option(name: "tag", short: "t", help: "Only words with this tag.") var tag: String?
    @Option(name: "new", help: "New words to include, instead of what is left of study.newPerDay today.", range: 0...9_999) var new: Int?
    @OptionGroup var output = OutputOptions(help: "Print the words with their schedules as JSON.")

    func validate() throws(UsageError) { try refuseBlankTag(tag) }

    func run(_ context: ToolContext) throws {
        let queue = try context.library().studyQueue(tag: tag, newLimit: new)
        if !output.json, queue.cards.isEmpty, try noWordTagged(tag, context) { return }
        if output.json {
            let items = queue.cards.map { card in
                JSONText.object(
                    [
                        ("id", JSONText.quote(card.word.id.rawValue)), ("term", JSONText.quote(card.word.term)),
                        ("study", studyJSON(card.schedule)),
                    ], spaced: true)
            }
            context.io.write("[" + items.joined(separator: ",\n ") + "]\n")
            return
        }
        if queue.cards.isEmpty {
            if queue.dueBeyondLimit > 0 {
                context.io.write(Self.limitReached(queue.dueBeyondLimit) + "\n")
                return
            }
            context.io.write("Nothing to study now" + (queue.nextDue.map { "; next at \($0.iso8601)" } ?? "") + ".\n")
            return
        }
        for card in queue.cards {
            let when = card.schedule.due?.iso8601 ?? "new"
            context.io.write("\(card.word.id.rawValue.prefix(8))  \(when.padded(to: 24))  \((card.word.term).shownSafely)\n")
        }
    }

    /// Today's review limit reached with `count` words due still.
    static func limitReached(_ count: Int) -> String {
        "Today's review limit is reached: \(counted(count, "more word")) due. "
            + "Raise it with: midiccio config set study.reviewsPerDay N (or come back tomorrow)."
    }
}

/// `midiccio stats`
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["stats"], abstract: "Show study progress: reviews a day, the due forecast, true retention, words by state.",
        examples: ["midiccio stats", "midiccio stats --json"])

    @OptionGroup var output = OutputOptions(help: "Print the figures as JSON.")

    func run(_ context: ToolContext) throws {
        let stats = try context.library().studyStats()
        let counts = StudyState.allCases.map { ($0.rawValue, String(stats.counts[$0] ?? 0)) }
        if output.json {
            func days(_ list: [StudyStats.Day]) -> String {
                "["
                    + list.map { JSONText.object([("day", JSONText.quote($0.start.iso8601)), ("count", String($0.count))]) }
                    .joined(separator: ",") + "]"
            }
            context.io.write(
                JSONText.object(
                    [
                        ("reviewsPerDay", days(stats.reviewsPerDay)), ("forecast", days(stats.forecast)),
                        ("trueRetention", stats.trueRetention.map { String($0) } ?? "null"),
                        ("retentionAnswers", String(stats.retentionAnswers)), ("counts", JSONText.object(counts)),
                    ], spaced: true) + "\n")
            return
        }
        func bars(_ title: String, _ list: [StudyStats.Day], label: (Int) -> String) -> String {
            let most = max(1, list.map(\.count).max() ?? 0)
            var text = title + "\n"
            for (index, day) in list.enumerated() {
                let length = day.count == 0 ? 0 : max(1, day.count * 30 / most)
                text +=
                    "  " + label(index).padded(to: 10) + String(repeating: " ", count: max(0, 6 - String(day.count).count))
                    + String(day.count) + "  " + String(repeating: "#", count: length) + "\n"
            }
            return text
        }
        var text = bars("Reviews a day (last 30 days)", stats.reviewsPerDay) { LocalDay.date(stats.reviewsPerDay[$0].start) }
        text += bars("Due (next 14 days)", stats.forecast) { $0 == 0 ? "today" : "+\($0) d" }
        let retention = stats.trueRetention.map { Self.percent($0) } ?? "-"
        text += "True retention (30 days): \(retention) of \(stats.retentionAnswers) answers\n"
        text += "Words: " + counts.map { "\($0.1) \($0.0)" }.joined(separator: ", ") + "\n"
        context.io.write(text)
    }

    /// A fraction as a percentage with one decimal ("87.5 %"), to the nearest tenth.
    static func percent(_ fraction: Double) -> String {
        let tenths = Int((fraction * 1000).rounded())
        return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10) %"
    }
}

/// `midiccio study`
struct StudyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["study"], abstract: "Study the words due now, one at a time, in the terminal.",
        discussion: """
            Shows a term; Space (or Enter) reveals the meaning, reading, examples and notes; 1 again, 2 hard, 3 good,
            4 easy; u undoes the last answer (after the last card too); q stops. New words come after due ones, within study.newPerDay a day.
            """,
        examples: ["midiccio study", "midiccio study --tag verbs --new 5", "midiccio study --reverse"])

    @Option(name: "tag", short: "t", help: "Only words with this tag.") var tag: String?
    @Flag(name: "reverse", help: "Show the meaning and ask for the term.") var reverse = false
    @Option(name: "new", help: "New words this session, instead of what is left of study.newPerDay today.", range: 0...9_999) var new: Int?

    func validate() throws(UsageError) { try refuseBlankTag(tag) }

    func run(_ context: ToolContext) throws {
        let keys = KeyReader(context.io)
        defer { keys.restore() }
        // The library is open only while a step reads or writes it, never while the session
        // waits for a key: a backup put in its place, or a restore in the web app, meanwhile
        // is the library the next answer goes to (README, "Putting a backup in the library's
        // place").
        func key() -> Character? {
            context.closeLibrary()
            return keys.next()
        }
        if try noWordTagged(tag, context) { return }
        var session = StudySessionState(library: context.library, tag: tag, newLimit: new)
        let out = context.io
        var answered = 0
        // The answers this session gave, the last one last: `u` takes back these alone,
        // never one given by another program meanwhile or in an earlier session.
        var given: [ReviewEvent] = []
        // Whether a `u` found the session's answers synced already: a `u` after it said "no
        // answer was given in this session" (round 16B).
        var syncedAlready = false
        // Takes back the session's last answer; true when it did.
        func undo() throws -> Bool {
            guard let last = given.popLast() else {
                out.write(
                    syncedAlready
                        ? "  Nothing to undo: the answers given before were synced already, and other devices count them.\n"
                        : "  Nothing to undo: no answer was given in this session.\n")
                return false
            }
            let undone: Bool
            do {
                undone = try context.library().undoReview(last)
            } catch LibraryError.storage(let error) where error.isBusy {
                given.append(last)
                out.write(Self.busyNote(press: "u"))
                return false
            }
            guard undone else {
                // Its word purged meanwhile (Empty Trash elsewhere): "synced already" was said,
                // with no remote set (found by the exploratory helper, round 20A #2).
                if try context.library().word(last.wordID) == nil {
                    out.write("  Not undone: that word was deleted permanently meanwhile (elsewhere), and its answers with it.\n")
                    return false
                }
                out.write("  Not undone: that answer was synced already, or a sync is sending it, and other devices count it.\n")
                given.removeAll()
                syncedAlready = true
                return false
            }
            answered -= 1
            session.undone(last.wordID, reviews: try context.library().reviewEvents(of: last.wordID).count)
            let term = try context.library().word(last.wordID)?.term ?? ""
            out.write("  Undone: \(term.shownSafely) (\(last.grade.name)).\n")
            session.reload()
            return true
        }
        while true {
            guard let card = try session.next() else {
                // The session's last answer can still be taken back, as on the Study page: the
                // session ended at once after it (round 23B #9).
                // One refused (its word purged meanwhile, the library busy) asks again while
                // answers before it can still be taken back (round 25B #10: it ended the session).
                if !given.isEmpty {
                    out.write("\nNo more cards for now.  u: undo the last answer   any other key: finish\n")
                    if key() == "u", try undo() || !given.isEmpty { continue }
                }
                let queue = try context.library().studyQueue(tag: tag, newLimit: 0)
                let next =
                    queue.dueBeyondLimit > 0
                    ? " " + DueCommand.limitReached(queue.dueBeyondLimit) : queue.nextDue.map { " Come back at \(Self.clock($0))." } ?? ""
                out.write("\nDone: \(answered) answered." + next + "\n")
                return
            }
            let word = card.word
            out.write("\n" + (reverse ? (word.meaning.isEmpty ? "(no meaning)" : (word.meaning).shownSafely) : (word.term).shownSafely))
            out.write("   [\(card.schedule.state.rawValue)]\n  Space: show   q: quit\n")
            let shown = Date()
            var undone = false
            reveal: while true {
                guard let key = key() else { return }
                switch key {
                case " ", "\n", "\r": break reveal
                case "q": return
                case "u":
                    if try undo() {
                        undone = true
                        break reveal
                    }
                default: continue
                }
            }
            if undone { continue }
            // The word as it is now: edited elsewhere (the web app, a sync) while its card was
            // shown, its answer is the new text, said so, and the grade goes to what was seen.
            let current = try context.library().word(word.id)
            // Moved to the Trash or deleted for good meanwhile: nothing to grade (it said
            // "changed elsewhere", then refused the grade: round 14B).
            guard let current, !current.isDeleted else {
                out.write("  Skipped: \((word.term).shownSafely) was deleted meanwhile (elsewhere).\n")
                session.reload()
                continue
            }
            if !current.hasSameContent(as: word) {
                out.write("  (changed elsewhere meanwhile; shown as it is now)\n")
                // The side the card showed, as it is now: studying --reverse, the meaning
                // edited meanwhile was never shown (round 20A #1).
                let front = reverse ? current.meaning : current.term
                if front != (reverse ? word.meaning : word.term) {
                    out.write("  " + (front.isEmpty ? "(no meaning)" : front).shownSafely + "\n")
                }
                out.write(Self.back(current, reverse: reverse))
            } else {
                out.write(Self.back(word, reverse: reverse))
            }
            out.write("  1 again   2 hard   3 good   4 easy   u undo   q quit\n")
            answer: while true {
                guard let key = key() else { return }
                switch key {
                case "1", "2", "3", "4":
                    let grade = ReviewGrade(rawValue: Int(String(key))!)!
                    let seconds = Int(Date().timeIntervalSince(shown).rounded())
                    do {
                        // The answers the card had when shown: one given meanwhile in another
                        // window, tab or device makes this grade a second answer (round 14B).
                        let (event, schedule) = try context.library().answer(
                            word.id, grade: grade, seconds: seconds, expectingReviews: card.schedule.reviews)
                        given.append(event)
                        session.answered(card)
                        answered += 1
                        out.write("  \(grade.name): due \(schedule.due.map { Self.clock($0) } ?? "-")\n")
                    } catch LibraryError.answeredMeanwhile {
                        out.write(
                            "  Not recorded: \((word.term).shownSafely) was answered meanwhile elsewhere (another window or device).\n")
                    } catch LibraryError.wordNotFound, LibraryError.wrongTrashState {
                        // Deleted, or gone with a restored backup, while the card was shown.
                        out.write("  Not recorded: \((word.term).shownSafely) is no longer in the library (deleted meanwhile).\n")
                    } catch LibraryError.storage(let error) where error.isBusy {
                        // Another program (an import, a sync) held the library past the wait:
                        // the card stays, and the session with it, for the grade again.
                        out.write(Self.busyNote(press: "the grade"))
                        continue
                    }
                    session.reload()
                    break answer
                case "u":
                    if try undo() { break answer }
                case "q": return
                default: continue
                }
            }
        }
    }

    /// What a grade or an undo refused as the library is busy says (`key`: what to press
    /// again): nothing is lost.
    static func busyNote(press key: String) -> String {
        "  Not recorded yet: another program (an import, a sync) is writing to the library. Press \(key) again in a moment, or q to stop.\n"
    }

    /// The rest of the card, escaped for the terminal.
    static func back(_ word: Word, reverse: Bool) -> String {
        var lines: [String] = []
        lines.append("  " + (reverse ? (word.term).shownSafely : (word.meaning).shownSafely))
        if !word.reading.isEmpty { lines.append("  reading: " + (word.reading).shownSafely) }
        for example in word.examples { lines.append("  - " + (example).shownSafely) }
        if !word.notes.isEmpty { lines.append("  notes: " + (word.notes).shownSafely) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A time as the local HH:MM, with the date when it is not today (the C library's
    /// local time: `DateFormatter` lives in the part of Foundation the everyday binary leaves
    /// out, README "Start-up").
    static func clock(_ time: Timestamp, now: Timestamp = SystemClock().now()) -> String {
        let parts = LocalDay.parts(time)
        let today = LocalDay.parts(now)
        let clock = LocalDay.twoDigits(parts.tm_hour) + ":" + LocalDay.twoDigits(parts.tm_min)
        if parts.tm_year == today.tm_year && parts.tm_yday == today.tm_yday { return clock }
        return LocalDay.date(time) + " " + clock
    }
}

/// The queue a study session works through, built again after every answer (a word in
/// learning comes back when due within the session).
struct StudySessionState {
    /// The library, opened for each step.
    let library: () throws -> WordLibrary
    let tag: String?
    var newLimit: Int?
    var cards: [StudyCard] = []
    var loaded = false

    init(library: @escaping () throws -> WordLibrary, tag: String?, newLimit: Int?) {
        self.library = library
        self.tag = tag
        self.newLimit = newLimit
    }

    mutating func reload() {
        loaded = false
    }

    /// The words this session gave their first answer (--new counts them).
    private(set) var newAnswered = Set<WordID>()

    /// The next card, or nil when nothing is due.
    mutating func next() throws -> StudyCard? {
        if !loaded {
            // --new counts for the session: new words answered in it use it up. Counted as
            // answered here, not as today's count less the count at the start: past
            // midnight that went below the start, and the session took more new words than
            // --new said (found by the exploratory helper, round 20A #5).
            let limit = newLimit.map { max(0, $0 - newAnswered.count) }
            cards = try library().studyQueue(tag: tag, newLimit: limit).cards
            loaded = true
        }
        return cards.first
    }

    /// Notes an answer given to `card` in this session.
    mutating func answered(_ card: StudyCard) {
        if card.schedule.reviews == 0 { newAnswered.insert(card.word.id) }
    }

    /// Notes that this session's answer to `id` was taken back, leaving it `reviews` answers.
    mutating func undone(_ id: WordID, reviews: Int) {
        if reviews == 0 { newAnswered.remove(id) }
    }
}

/// Keys typed at the terminal, one at a time (raw mode), or the characters of standard
/// input when it is not a terminal (scripts and tests), read as they come.
final class KeyReader {
    private let io: TerminalIO
    #if canImport(Glibc) || canImport(Darwin)
    private var saved = termios()
    private var raw = false
    /// Puts the keys back in raw mode when the session is brought back with `fg` after
    /// Ctrl-Z: the shell gives the terminal its own settings while the session is stopped,
    /// and keys then echoed and waited for Enter (found by the exploratory helper, round 14B).
    private var resumed: (any DispatchSourceSignal)?
    #endif

    init(_ io: TerminalIO) {
        self.io = io
        #if canImport(Glibc) || canImport(Darwin)
        if io.inputIsTerminal, tcgetattr(0, &saved) == 0 {
            var settings = saved
            settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
            raw = tcsetattr(0, TCSANOW, &settings) == 0
            if raw {
                // SIGCONT continues the process whatever its disposition; ignored, it is
                // delivered to this source only.
                signal(SIGCONT, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: SIGCONT, queue: .global())
                source.setEventHandler {
                    var again = settings
                    tcsetattr(0, TCSANOW, &again)
                }
                source.resume()
                resumed = source
            }
        }
        #endif
    }

    /// The next key; nil at the end of input or on Ctrl-D.
    func next() -> Character? {
        guard let key = io.readKey(), key != "\u{04}" else { return nil }
        return key
    }

    /// Puts the terminal back as it was.
    func restore() {
        #if canImport(Glibc) || canImport(Darwin)
        resumed?.cancel()
        resumed = nil
        if raw {
            signal(SIGCONT, SIG_DFL)
            tcsetattr(0, TCSANOW, &saved)
        }
        raw = false
        #endif
    }
}

/// Says so when no word outside the Trash has `tag` (a tag mistyped: "Done: 0 answered."
/// and "Nothing to study now." read as the tag's words all done, round 20A #6), as `list
/// --tag` does; true when it did.
func noWordTagged(_ tag: String?, _ context: ToolContext) throws -> Bool {
    guard let tag, try context.library().tagCount(tag) == 0 else { return false }
    context.io.write("No words tagged \"\(tag)\".\n")
    return true
}
