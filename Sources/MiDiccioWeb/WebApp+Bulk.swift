import Foundation
import MiDiccioKit

/// Bulk actions on many words at once (the browse table and the Trash page): a tag
/// added or removed, words moved to or out of the Trash, Trash entries deleted
/// permanently, and the undo of the last one. Each is one library transaction.
extension WebApp {
    /// The most ids one bulk request may name.
    static let bulkIDLimit = 100_000
    /// The largest body of a bulk request: `bulkIDLimit` ids (36 characters, quotes and
    /// a comma each), with `requestLimit` to spare.
    static let bulkRequestLimit = bulkIDLimit * 40 + requestLimit

    /// The words a bulk request names: `{"ids": [...]}`, or every match of a search,
    /// `{"select": "matches", "q": QUERY, "filterTag": TAG}` (`filterTag`, since `tag` names the tag
    /// a tag action adds or removes), or every Trash entry whose term
    /// starts with `q`, `{"select": "trash", "q": TERM}`.
    static func bulkTarget(_ body: JSONBody) throws -> BulkTarget {
        switch try body.string("select") {
        case nil:
            let texts = try body.strings("ids") ?? []
            guard !texts.isEmpty else { throw BadRequest(message: "choose words first", field: "ids") }
            guard texts.count <= bulkIDLimit else {
                throw BadRequest(message: "at most \(bulkIDLimit) words at once; choose \"all matches\" instead", field: "ids")
            }
            return .words(
                try texts.map { text throws(BadRequest) in
                    guard let id = WordID(text) else { throw BadRequest(message: "no word with id \(text.prefix(40))", field: "ids") }
                    return id
                })
        case "matches":
            let query = try Self.checkedSearch(body.string("q") ?? "")
            return .matches(query: query, tag: try body.string("filterTag").flatMap { $0.isEmpty ? nil : $0 })
        case "trash":
            let term = try body.string("q") ?? ""
            guard term.count <= WordLimits.termLength else { throw BadRequest(message: "the search is too long", field: "q") }
            return .trash(term: term)
        case let other?:
            throw BadRequest(message: "select must be matches or trash, not \(other.prefix(20))", field: "select")
        }
    }

    /// How many words the page counted for a target that is every match or every Trash
    /// entry (`"expect": N`): the action is refused when the library holds another number
    /// of them by then (words added, changed or deleted elsewhere), so it never acts on
    /// words the person did not see counted. Nil without it (scripts) or for named words.
    static func bulkExpected(_ body: JSONBody, _ target: BulkTarget) throws -> Int? {
        if case .words = target { return nil }
        guard let expected = try body.integer("expect") else { return nil }
        guard expected >= 0 else { throw BadRequest(message: "expect must be a count of words", field: "expect") }
        return expected
    }

    /// `POST api/bulk/selection` with a target: how many words every match or every Trash
    /// entry is now, and the key of which (`WordLibrary.selectionKey`), which the page takes
    /// when a person chooses them all and sends back as `"expectKey"` with the action.
    ///
    /// With `"shown"`, the `mark` of the list the person chose from, words added, changed
    /// or deleted since it was read refuse the choice (409, `listChangedSinceShown`): a
    /// key taken as "Select all" was tapped named the words there then, and a word moved
    /// into the Trash after the page was shown was purged with the others, unseen (found by
    /// the exploratory helper, round 26B #1, #2).
    func bulkSelection(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        let target = try Self.bulkTarget(body)
        let shown = try body.string("shown")
        let (count, key) = try pool.withLibrary { library in
            try library.database.read {
                if let shown, try library.libraryDigest() != shown { throw LibraryError.listChangedSinceShown }
                return try library.selectionKey(target)
            }
        }
        return .json(JSONText.object([("count", String(count)), ("key", JSONText.quote(key))]))
    }

    /// Refuses, before any change, an action on every match or Trash entry whose key the
    /// page sent (`"expectKey"`) when other words are chosen now, even as many: the count
    /// alone let a word renamed out of the matches and another added pass (found by the
    /// exploratory helper, round 8). Nothing without a key (scripts) or for named words.
    static func checkSelection(_ sentKey: String?, _ target: BulkTarget, expected: Int?, in library: WordLibrary) throws {
        guard let sentKey, !sentKey.isEmpty else { return }
        if case .words = target { return }
        let (count, key) = try library.selectionKey(target)
        if key != sentKey { throw LibraryError.selectionChanged(expected: expected ?? count, found: count) }
    }

    /// `POST api/bulk/tag` with a target and `{"tag": TAG, "remove": true|false}`.
    func bulkTag(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        let target = try Self.bulkTarget(body)
        let expected = try Self.bulkExpected(body, target)
        let sentKey = try body.string("expectKey")
        let tag = try body.string("tag") ?? ""
        let remove = try body.bool("remove") ?? false
        return try bulkJob(request, phase: remove ? "Removing the tag" : "Adding the tag") { library, progress in
            try Self.checkSelection(sentKey, target, expected: expected, in: library)
            return Self.encode(
                remove
                    ? try library.removeTag(tag, from: target, expecting: expected, progress: progress)
                    : try library.addTag(tag, to: target, expecting: expected, progress: progress))
        }
    }

    /// `POST api/bulk/trash` (move to the Trash) or `api/bulk/restore` with a target.
    func bulkTrash(_ request: HTTPRequest, restore: Bool) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        let target = try Self.bulkTarget(body)
        let expected = try Self.bulkExpected(body, target)
        let sentKey = try body.string("expectKey")
        return try bulkJob(request, phase: restore ? "Restoring" : "Moving to the Trash") { library, progress in
            try Self.checkSelection(sentKey, target, expected: expected, in: library)
            return Self.encode(
                restore
                    ? try library.restoreFromTrash(target, expecting: expected, progress: progress)
                    : try library.moveToTrash(target, expecting: expected, progress: progress))
        }
    }

    /// Named words' `versions` as the page showed them (`WordLibrary.trashVersion(of:)`), one
    /// for each of `ids`, in order: a purge refuses words changed since. Empty without them.
    static func shownVersions(_ body: JSONBody, _ target: BulkTarget) throws -> [WordID: String] {
        guard case .words(let ids) = target, let versions = try body.strings("versions") else { return [:] }
        guard versions.count == ids.count else { throw BadRequest(message: "versions must give one for each id", field: "versions") }
        // An entry the page has no version of (an empty one) is purged as it is.
        return Dictionary(zip(ids, versions).filter { !$0.1.isEmpty }, uniquingKeysWith: { first, _ in first })
    }

    /// `POST api/bulk/purge` with a target: deleted permanently, no undo (the page asks first).
    /// With `versions` (named words), a word changed since the page showed it refuses the
    /// whole purge (409): an edit another device made to it, pulled by the sync before the
    /// purge, was purged with it on every device (found by the exploratory helper, round
    /// 27B #1).
    func bulkPurge(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        let target = try Self.bulkTarget(body)
        let expected = try Self.bulkExpected(body, target)
        let sentKey = try body.string("expectKey")
        let shown = try Self.shownVersions(body, target)
        return try bulkJob(request, phase: "Deleting permanently") { library, progress in
            try Self.checkSelection(sentKey, target, expected: expected, in: library)
            return JSONText.object([
                ("purged", String(try library.purge(target, expecting: expected, asShown: shown, progress: progress)))
            ])
        }
    }

    /// `POST api/trash/empty`: every word in the Trash deleted permanently (those hidden by
    /// `trash.hideAfterDays` too), as a job the page follows as it does a bulk action's.
    /// With `{"expect": N, "expectKey": K}`, the count and key of the Trash the page showed
    /// (`whole` and `wholeKey` of `api/trash`), a Trash that holds another number, or other
    /// words, is refused (409), purging nothing.
    func emptyTrash(_ request: HTTPRequest) throws -> HTTPResponse {
        // No body (a script's plain POST): nothing to check.
        let body = request.body.isEmpty ? nil : try JSONBody(request.body)
        let expected = try body.flatMap { try Self.bulkExpected($0, .trash(term: "")) }
        let key = try body?.string("expectKey")
        return try bulkJob(request, phase: "Deleting permanently") { library, progress in
            JSONText.object([("purged", String(try library.emptyTrash(expecting: expected, expectingKey: key, progress: progress)))])
        }
    }

    /// `POST api/import/undo`: the last import's words moved to the Trash, as a job the
    /// page follows as it does a bulk action's (100,000 words take seconds).
    /// `POST api/import/undo`, with `{"expect": SOURCE}` (`importUndoSource` of
    /// `api/status`) when the page showed which import it undoes: one made since in a
    /// terminal is not undone in its place (round 14A).
    func undoImport(_ request: HTTPRequest) throws -> HTTPResponse {
        let expected = request.body.isEmpty ? nil : try JSONBody(request.body).string("expect")
        return try bulkJob(request, phase: "Undoing the import") { library, progress in
            JSONText.object(try library.undoImport(progress: progress, expecting: expected).jsonMembers)
        }
    }

    /// `POST api/bulk/undo` with `{"step": N}`: undoes that bulk action, if it is still the
    /// last one (409 otherwise).
    func bulkUndo(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        let step = try body.integer("step")
        return try bulkJob(request, phase: "Undoing") { library, progress in
            Self.encode(try library.undoBulkAction(step: step.map(Int64.init), progress: progress))
        }
    }

    /// Runs one bulk action as a job and answers with the JSON `action` returns: with `key=`
    /// in the address the page can follow it (`GET api/jobs/KEY`, in words), and with
    /// `async=1` too it runs in the background and its request answers 202 at once. A tag on
    /// a quarter of a million words takes about 15 s at a million; without a key it answers
    /// when done, as before.
    ///
    /// It waits for a sync of this app to end first ("Waiting for the sync", then `phase`
    /// again): the page syncs when it opens, and the action would otherwise fail as busy
    /// after 10 s. In the background it also waits for another program writing to the
    /// library (`waitingForOtherWriters`).
    private func bulkJob(
        _ request: HTTPRequest, phase: String, _ action: @escaping @Sendable (WordLibrary, BulkProgress?) throws -> String
    ) throws -> HTTPResponse {
        let key = request.query["key"]
        let inBackground = request.query["async"] == "1"
        return try answerMaybeInBackground(request, key: key) {
            .json(
                try self.jobs.run(key, phase: phase, unit: "words") { (report: (@Sendable (String, Int, Int) -> Void)?) in
                    if !self.syncLock.try() {
                        report?("Waiting for the sync", 0, 0)
                        self.syncLock.lock()
                        report?(phase, 0, 0)
                    }
                    defer { self.syncLock.unlock() }
                    return try self.pool.withLibrary { library in
                        let waiting = inBackground ? report.map { report in { report(Self.waitingForWritersPhase, 0, 0) } } : nil
                        return try Self.waitingForOtherWriters(waiting) {
                            try action(library, report.map { report in { done, total in report(phase, done, total) } })
                        }
                    }
                })
        }
    }

    /// The phase a job in the background shows while another program writes to the library.
    static let waitingForWritersPhase = "Waiting for another program that is writing to the library"

    /// How long a bulk job in the background waits, in all, for other programs to finish
    /// writing to the library before it fails as busy: a `midiccio sync` or import in a
    /// terminal can hold the library for minutes at a million words.
    static let busyWaitLimit: Duration = .seconds(600)

    /// Runs `body`, and again each time it fails because another program holds the
    /// library's write lock (each try has waited SQLite's busy timeout), telling `waiting`
    /// so; for at most `busyWaitLimit`, then the busy error stands. Every bulk action is
    /// one transaction, which a refused try never began, so a try again changes nothing
    /// twice. Without `waiting` (a request that waits for the answer) it fails at once.
    static func waitingForOtherWriters<T>(_ waiting: (() -> Void)?, _ body: () throws -> T) throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: busyWaitLimit)
        while true {
            do {
                return try body()
            } catch LibraryError.storage(let error) where error.isBusy && waiting != nil && clock.now < deadline {
                waiting?()
            }
        }
    }

    private static func encode(_ result: BulkResult) -> String {
        JSONText.object([
            ("action", JSONText.quote(result.action.rawValue)), ("tag", JSONText.optional(result.tag)),
            ("changed", String(result.changed)), ("unchanged", String(result.unchanged)), ("step", String(result.step)),
            ("leftOut", String(result.leftOut)), ("leftOutTerms", JSONText.array(result.leftOutTerms)),
            ("keptSince", String(result.keptSince)), ("keptSinceTerms", JSONText.array(result.keptSinceTerms)),
            ("trashedStudied", String(result.trashedStudied)),
        ])
    }
}
