import Dispatch
import Foundation
import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel
import MiDiccioSync
import Synchronization

/// Product notes: "The app now syncs when you open it." Commands that show words sync
/// first when a remote is set, but never make the user wait more than a few seconds:
/// a cloud that is slow or unreachable only earns a warning.
///
/// Such a command declares `@OptionGroup var syncOnOpen: SyncOnOpen`, which gives it
/// `--offline`, and calls `syncOnOpen.run(context)` before reading the library.
struct SyncOnOpen: ParsableArguments {
    /// How long a command waits for the sync before showing local words.
    package static let patience: TimeInterval = 3
    /// How long a command that decides against other devices' changes (`runOrStop`) waits
    /// for the sync before it: that sync also lists every device's folders, two requests a
    /// device, and with four devices on a cloud answering in 150 ms it never fit in
    /// `patience`, so Empty Trash was refused every time (found by the exploratory helper,
    /// round 21A #5). Its requests still time out after `patience`.
    package static let decisivePatience: TimeInterval = 20

    /// True when --offline was given.
    @Flag(name: "offline", help: "Do not sync first (also: MIDICCIO_OFFLINE=1).") var offline = false

    /// Syncs `context`'s library unless offline (--offline or MIDICCIO_OFFLINE=1) or no
    /// remote is set. Runs on its own connection and thread so a hung cloud cannot block.
    ///
    /// Throws `OnlineNeeded` when this binary cannot reach the remote (`midiccio` syncs
    /// only with a folder), so the command runs in `midiccio-online` instead. `otherwise`
    /// says what the command does when the sync cannot finish in time.
    package func run(_ context: ToolContext, otherwise: String = "showing the words on this device") throws(OnlineNeeded) {
        if let problem = try attempt(context).problem { context.note("warning: \(problem.warning); \(otherwise)") }
    }

    /// `run` for a command that would override or delete for good what other devices did
    /// (a replace restore, an undo, a permanent deletion): when the sync before it cannot
    /// finish, it stops with a `ToolFailure` naming why and `consequence` (what going on
    /// would risk), instead of going on with a warning. The helper of round 8 found `trash
    /// empty --yes` purging, on every device, words another device had restored and edited
    /// while the cloud was away. `--offline` still goes on without a sync.
    ///
    /// So does a sync that found files named in other devices' records that it could not
    /// read yet (a file-sync client still delivering them, or one cut short): one may take
    /// a word out of the Trash or edit it (found by the exploratory helper, round 12C).
    ///
    /// Its sync lists every device's folders for files past its record
    /// (`SyncEngine.findUnnamedFiles`): a device whose record failed after its upload.
    ///
    /// Returns the words this sync found in the Trash with a change this device had not
    /// seen there (`SyncReport.editedTrashedHere`, `trashedEditedHere`): their count and
    /// the first few terms.
    @discardableResult
    package func runOrStop(_ context: ToolContext, consequence: String) throws -> TrashEdited {
        let (problem, unread, trashEdited) = try attempt(context, findUnnamedFiles: true, waiting: Self.decisivePatience)
        let why: String
        let next: String
        if let problem {
            why = "could not sync first (\(problem.reason))"
            // A sync stopped by the guard against mass deletion reached the cloud: waiting
            // does not help (found by the exploratory helper, round 9).
            next =
                problem.massDeletion
                ? "If those deletions are meant, run 'midiccio sync --allow-mass-delete' first, then try again"
                : "Try again once the cloud can be reached"
        } else if !unread.isEmpty {
            why =
                "not every change of \(unread.joined(separator: ", ").shownSafely) has arrived here yet (a sync program may "
                + "still be delivering it, or a file is cut short)"
            next = "Sync again once it has arrived"
        } else {
            return trashEdited
        }
        throw ToolFailure(
            "\(why); nothing was changed: going on now, \(consequence). \(next), or add --offline to go on with this "
                + "device's words as they are")
    }

    /// Syncs as `run` says, printing what the sync says of purges and skipped files; the
    /// reason it did not finish, or nil when it did (or had nothing to do).
    /// With it, the devices whose files named in their records the finished sync has not
    /// read (`SyncReport.unreadFrom`).
    private func attempt(
        _ context: ToolContext, findUnnamedFiles: Bool = false, waiting: TimeInterval = Self.patience
    ) throws(OnlineNeeded) -> (problem: Problem?, unread: [String], trashEdited: TrashEdited) {
        if offline || context.environment["MIDICCIO_OFFLINE"] == "1" { return (nil, [], (0, [], [])) }
        guard let library = try? context.library(), let remote = try? library.remote() else { return (nil, [], (0, [], [])) }
        guard context.remotes.reaches(remote) else { throw OnlineNeeded() }
        let path = library.path
        let environment = context.environment
        let remotes = context.remotes
        let outcome = SyncOutcome()
        OwnThread.start {
            do {
                let connection = try WordLibrary(path: path, create: false, environment: environment)
                // Requests time out as soon as the command stops waiting for them.
                guard let storage = remotes.storage(for: remote, libraryPath: path, environment: environment, timeout: Self.patience)
                else { throw OnlineNeeded() }
                let engine = SyncEngine(library: connection, storage: storage, appVersion: "midiccio \(Tool.version)")
                engine.expectedRemote = remote
                engine.onActivity = { outcome.note($0) }
                engine.findUnnamedFiles = findUnnamedFiles
                let report = try engine.sync()
                outcome.finish(
                    nil,
                    skipped: report.skippedFiles.isEmpty
                        ? nil : "skipped \(report.skippedFiles.count) unreadable cloud file(s); run 'midiccio sync' for details",
                    notes: ToolContext.syncNotes(report, cloud: remote.displayName), unread: report.unreadFrom,
                    trashEdited: (
                        report.editedTrashedHere + report.trashedEditedHere,
                        report.trashChangedTerms, report.trashChangedIDs
                    ))
            } catch {
                var massDeletion = false
                if case SyncError.massDeletion = error { massDeletion = true }
                outcome.finish("\(error)", massDeletion: massDeletion)
            }
        }
        guard outcome.wait(seconds: waiting) else {
            let slow = Self.unfinished(outcome.activity, waited: waiting)
            return (Problem(warning: slow, reason: slow), [], (0, [], []))
        }
        // Everything `midiccio sync` says beside its counts: words another device purged, a
        // purge by trash.autoPurgeDays (a `list` said nothing of it, even when a clock set
        // ahead had set it off: round 8), a cloud started at a mistyped path (round 11).
        for note in outcome.notes { context.note(note) }
        if let skipped = outcome.skipped { context.note("warning: \(skipped)") }
        return (
            outcome.problem.map { Problem(warning: "could not sync (\($0))", reason: $0, massDeletion: outcome.massDeletion) },
            outcome.unread, outcome.trashEdited
        )
    }

    /// Why a sync did not finish: said as a warning by `run`, and as the reason by `runOrStop`.
    private struct Problem {
        /// "could not sync (why)", or why it is slow.
        var warning: String
        /// Why, alone.
        var reason: String
        /// True when the guard against mass deletion stopped the sync.
        var massDeletion = false
    }
}

extension SyncOnOpen {
    /// The words a sync found in the Trash with a change this device had not seen there
    /// (`SyncReport.editedTrashedHere`, `trashedEditedHere`): how many, the first terms, and
    /// every id.
    package typealias TrashEdited = (count: Int, terms: [String], ids: Set<String>)

    /// Why the sync did not finish in time, from what it was doing: still waiting for the
    /// cloud's first answer is a slow cloud; anything further is a sync with much to do
    /// (the first sync of a large library), which a local folder never is slow at.
    package static func unfinished(_ activity: SyncActivity?, waited: TimeInterval = patience) -> String {
        switch activity {
        case nil, .reachingCloud?:
            "the cloud is slow to answer"
        case .downloading?, .merging?, .uploading?, .writingSnapshot?, .tidying?:
            "this sync needs longer than \(Int(waited)) seconds (a first sync of a large library does); run 'midiccio sync' to finish it"
        }
    }
}

/// The result of a background sync, handed from its thread to the command's.
private final class SyncOutcome: Sendable {
    private struct State {
        var problem: String?
        var skipped: String?
        var notes: [String] = []
        var massDeletion = false
        var activity: SyncActivity?
        var unread: [String] = []
        var trashEdited: SyncOnOpen.TrashEdited = (0, [], [])
    }

    private let state = Mutex(State())
    /// Signalled once, when the sync finishes.
    private let finished = DispatchSemaphore(value: 0)

    /// What the sync was doing last.
    var activity: SyncActivity? { state.withLock { $0.activity } }

    /// Why the sync failed, if it did.
    var problem: String? { state.withLock { $0.problem } }

    /// True when the guard against mass deletion stopped it.
    var massDeletion: Bool { state.withLock { $0.massDeletion } }

    /// Cloud files the finished sync skipped, said as a warning, if any.
    var skipped: String? { state.withLock { $0.skipped } }

    /// What the finished sync says beside its counts (`ToolContext.syncNotes`).
    var notes: [String] { state.withLock { $0.notes } }

    /// The devices whose files the finished sync has not all read (`SyncReport.unreadFrom`).
    var unread: [String] { state.withLock { $0.unread } }

    /// The words the finished sync found in the Trash with a change not seen there here.
    var trashEdited: SyncOnOpen.TrashEdited { state.withLock { $0.trashEdited } }

    func note(_ activity: SyncActivity) {
        state.withLock { $0.activity = activity }
    }

    func finish(
        _ problem: String?, skipped: String? = nil, notes: [String] = [], massDeletion: Bool = false, unread: [String] = [],
        trashEdited: SyncOnOpen.TrashEdited = (0, [], [])
    ) {
        state.withLock {
            $0.trashEdited = trashEdited
            $0.problem = problem
            $0.massDeletion = massDeletion
            $0.skipped = skipped
            $0.notes = notes
            $0.unread = unread
        }
        finished.signal()
    }

    /// True when the sync finished within `seconds`.
    func wait(seconds: TimeInterval) -> Bool {
        finished.wait(timeout: .now() + seconds) == .success
    }
}
