import Foundation
import MiDiccioFiles
import MiDiccioModel
import MiDiccioStore

/// Everything that can go wrong in a library operation, each with a message that says
/// what was wrong and where.
public enum LibraryError: Error, Sendable, CustomStringConvertible {
    /// The file exists but is not a MiDiccio library; it was not changed.
    case notALibrary(path: String, reason: String)
    /// The library was written by a newer MiDiccio; it was not changed.
    case newerSchema(path: String, version: Int)
    /// The library file could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// The library file an app opened is no longer at its path (moved, renamed, deleted,
    /// or its drive disconnected); it is not made again, empty, in its place.
    case libraryGone(path: String)
    /// Another file was moved into the place of the library file this connection opened
    /// while it was writing (a backup or another computer's copy moved in, a sync
    /// program's rename): the change was rolled back, written to neither file.
    case fileReplaced(path: String)
    /// Another file was moved into the library's place while a program still had the file
    /// that was there open, and that program did not let go of it in time; nothing was
    /// changed.
    case replacedFileStillOpen(path: String)
    /// No word has this id or id prefix.
    case wordNotFound(String)
    /// The word with this id was deleted permanently (purged, here or on another device).
    case wordPurged(String)
    /// The prefix matches several words.
    case ambiguousID(String, candidates: [Word])
    /// An id prefix shorter than the minimum.
    case prefixTooShort(String)
    /// The word's content breaks a rule.
    case invalidWord(WordValidationError)
    /// The term is already in the library and duplicates were refused.
    case duplicateTerm(String, existing: [WordID])
    /// The operation needs the word to be in the Trash (or not).
    case wrongTrashState(WordID, term: String, inTrash: Bool)
    /// Only words in the Trash can be purged.
    case notInTrashForPurge(WordID, term: String)
    /// The word to delete is already in the Trash.
    case alreadyInTrash(WordID, term: String)
    /// A backup file could not be read; nothing was changed.
    case invalidBackup(file: String, location: String?, message: String)
    /// An import file could not be read; nothing was imported.
    case invalidImport(file: String, line: Int?, message: String)
    /// There is no restore to undo.
    case nothingToUndo
    /// The last restore's words were all deleted permanently since (Empty Trash,
    /// trash.autoPurgeDays): nothing of it can be undone. `terms`: the first of them.
    case restoreWordsPurged(count: Int, terms: [String])
    /// There is no import to undo.
    case nothingImportedToUndo
    /// The last import or restore is another than the one the undo was asked for (one made
    /// elsewhere since a page showed it): `now` describes it.
    case undoSourceChanged(now: String)
    /// There is no bulk action to undo (or a later one replaced the one named).
    case nothingBulkToUndo
    /// A bulk action on every match of a search (or every Trash entry) found `found`
    /// words where the person saw `expected`: words were added, changed or deleted
    /// elsewhere meanwhile. Nothing was changed.
    case selectionChanged(expected: Int, found: Int)
    /// Words were added, changed or deleted since the list a person chose "all" from was
    /// read: nothing was chosen.
    case listChangedSinceShown
    /// Words in the Trash chosen to be deleted permanently changed since the page showed
    /// them (`count`, the first few `terms`): an edit another device made before their move
    /// to the Trash reached it, pulled by the sync before the purge, or a change made here by
    /// another program. Nothing was purged.
    case trashChangedSinceShown(count: Int, terms: [String])
    /// A replace restore would move other words to the Trash than its preview listed
    /// (`trashedNow` in all): words were added or deleted since, here or on a device the
    /// sync before it pulled from. Nothing was changed.
    case restoreChangedSincePreview(trashedNow: Int)
    /// The card of the word `term` was answered elsewhere (another tab, window or device)
    /// since it was shown: this answer was not recorded.
    case answeredMeanwhile(term: String)
    /// A file could not be read or written.
    case fileError(path: String, reason: String)
    /// A place in a list or the Trash (`WordLibrary.listPlace`) that is no such place.
    case invalidPlace(String)
    /// SQLite failed underneath; the transaction was rolled back.
    case storage(SQLiteError)
    /// The library holds something it cannot have written (a damaged row); nothing was
    /// changed, and the row is named.
    case damaged(String)
    /// The log a process that stopped abruptly left beside the library file does not fit
    /// the file there now (a backup or an older copy was put in its place); `problem` says
    /// how that shows (the file the log was written for, or SQLite's check). Nothing was
    /// changed.
    case logDoesNotFit(path: String, problem: String)
    /// Bringing a library made by an earlier MiDiccio up to date (from schema `from`) got
    /// as far as schema `reached`, which older builds cannot open, and then failed with
    /// `cause`. No word was changed; the next open goes on from there.
    case upgradeUnfinished(from: Int, reached: Int, cause: String)

    /// `error` as `upgradeUnfinished` (the upgrade reached the newest schema) for a library
    /// whose open brought it up from schema `from`; as it is otherwise.
    static func afterUpgrade(from: Int?, _ error: Error) -> Error {
        guard let from else { return error }
        if case LibraryError.storage(let underneath) = error {
            return LibraryError.upgradeUnfinished(from: from, reached: Migrations.all.count, cause: "\(underneath)")
        }
        return LibraryError.upgradeUnfinished(from: from, reached: Migrations.all.count, cause: "\(error)")
    }

    /// A failure of SQLite as the library's error: `damaged` when SQLite finds the file's
    /// pages inconsistent, else `storage`.
    static func from(_ error: SQLiteError) -> LibraryError {
        guard error.isCorrupt else { return .storage(error) }
        return .damaged(
            "SQLite finds the file's pages inconsistent (\(error.message)); a library file copied while MiDiccio "
                + "was writing it can be torn like this. If this file is such a copy, copy it again with MiDiccio "
                + "closed where it came from, or run 'midiccio backup export' there and restore that backup here. "
                + "If a backup was copied over the library while MiDiccio ran (the web app, a command), MiDiccio's writes "
                + "went into it as it was copied: close MiDiccio and put the backup back again, or move it into place "
                + "(mv) rather than copying over the file, which is safe while MiDiccio runs")
    }

    /// Free bytes under which the temporary folder counts as full for the messages.
    static let nearlyFull: Int64 = 4 << 20

    /// Which disk a full-disk message names, and where to make room: SQLite keeps its
    /// temporary files (a large statement's journal, a sort) in the temporary folder
    /// (`FileSystem.sqliteTemporaryFolder`), often a small disk of its own, so when that one
    /// has almost no room left it is named too (a full /tmp was blamed on the library's
    /// disk, where room made no difference; found by the exploratory helper, round 12B).
    /// `disk` names the library's disk as the message says it; `full` says which is full,
    /// `room` what to do.
    public static func fullDisk(_ disk: String) -> (full: String, room: String) {
        let temporary = FileSystem.sqliteTemporaryFolder
        guard let free = FileSystem.freeBytes(temporary), free < nearlyFull else { return ("\(disk) is full", "free some space there") }
        return (
            "the temporary folder \(temporary) is full (SQLite keeps its temporary files there), or \(disk)",
            "free some space in \(temporary), or set TMPDIR to a folder with room"
        )
    }

    public var description: String {
        switch self {
        case .notALibrary(let path, let reason):
            return "\(path) is not a MiDiccio library (\(reason)); it was left untouched. Choose another file with --library."
        case .newerSchema(let path, let version):
            return "this library was written by a newer MiDiccio (schema \(version)); update MiDiccio (\(path) was left untouched)"
        case .cannotOpen(let path, let reason):
            return "cannot open library \(path): \(reason)"
        case .libraryGone(let path):
            return
                "the library file \(path) is not there any more: it was moved, renamed or deleted while MiDiccio ran, or the drive holding it was disconnected. Nothing was written. Put the file back, or start MiDiccio again with --library and the file's new place."
        case .fileReplaced(let path):
            return
                "the library file \(path) was replaced while this was being written (another file was moved into its place, as a backup put back or a sync program's copy from another computer is): this change was saved in neither file, and the file now there is as it came. Do it again to make it there."
        case .replacedFileStillOpen(let path):
            return
                "another file was moved into the place of the library file \(path) while a program (the web app, a sync or another midiccio command) still had the file that was there open, and it has not let go of it for \(LibraryFile.busyTimeoutSeconds) seconds; nothing was changed. Try again once it has finished, or stop it."
        case .wordNotFound(let id):
            return "no word with id \(id)"
        case .wordPurged(let id):
            return "the word \(id) was deleted permanently (purged, here or on another device); nothing of it is kept"
        case .ambiguousID(let prefix, let candidates):
            let list = candidates.prefix(10).map { "  \($0.id)  \($0.term)" }.joined(separator: "\n")
            return "id prefix \(prefix) matches \(candidates.count) words; use more characters:\n\(list)"
        case .prefixTooShort(let prefix):
            return "id \(prefix) is too short; give the full id or at least 6 characters of it"
        case .invalidWord(let error):
            return error.description
        case .duplicateTerm(let term, let existing):
            return "\"\(term)\" is already in the library (id \(existing.map(\.rawValue).joined(separator: ", "))); nothing added"
        case .wrongTrashState(let id, let term, let inTrash):
            return inTrash
                ? "\"\(term)\" (\(id)) is in the Trash; restore it first"
                : "\"\(term)\" (\(id)) is not in the Trash"
        case .notInTrashForPurge(let id, let term):
            return "\"\(term)\" (\(id)) is not in the Trash; delete it first, then purge it"
        case .alreadyInTrash(let id, let term):
            return "\"\(term)\" (\(id)) is already in the Trash"
        case .invalidBackup(let file, let location, let message):
            return "backup \(file)\(location.map { ", \($0)" } ?? ""): \(message); nothing was changed"
        case .invalidImport(let file, let line, let message):
            return "\(file)\(line.map { ", line \($0)" } ?? ""): \(message); nothing was imported"
        case .nothingToUndo:
            return "there is no restore to undo"
        case .restoreWordsPurged(let count, let terms):
            let named = TermList.named(terms, of: count)
            return "the last restore cannot be undone: the \(count == 1 ? "word" : "\(count) words") it changed "
                + "\(count == 1 ? "was" : "were") deleted permanently since (Empty Trash, or trash.autoPurgeDays): \(named)"
        case .nothingImportedToUndo:
            return "there is no import to undo"
        case .undoSourceChanged(let now):
            return "the last one is now that of \(now), made since this page showed it; nothing was undone (look again, then undo)"
        case .nothingBulkToUndo:
            return "there is nothing to undo: that change was undone already, or a later one replaced it"
        case .selectionChanged(let expected, let found) where expected == found:
            return
                "the words chosen changed meanwhile: as many match now, but not the words as shown (words were added, changed or deleted elsewhere); nothing was changed. Look at the list again, then choose once more."
        case .selectionChanged(let expected, let found):
            return
                "the words chosen changed meanwhile: \(found) \(found == 1 ? "matches" : "match") now, not \(expected) as shown (words were added, changed or deleted elsewhere); nothing was changed. Look at the list again, then choose once more."
        case .trashChangedSinceShown(let count, let terms):
            return
                "\(count == 1 ? "1 word" : "\(count) words") chosen changed since the Trash was shown (an edit from another device, "
                + "or from elsewhere here): \(TermList.named(terms, of: count)); nothing was deleted. The Trash is shown again as it "
                + "is now: look at \(count == 1 ? "it" : "them") (restore a word to keep its change), then choose once more."
        case .listChangedSinceShown:
            return
                "words were added, changed or deleted since this list was shown (elsewhere: another window, a command or a sync); nothing was chosen. It is shown again as it is now: look at it, then choose all once more."
        case .answeredMeanwhile(let term):
            return
                "\u{201C}\(term)\u{201D} was answered meanwhile (in another tab, window or device) since its card was shown; this answer was not recorded, so it is not counted twice"
        case .restoreChangedSincePreview(let trashedNow):
            return
                "the library changed since the preview (words were added or deleted here or on another device): this replace would now move \(trashedNow) \(trashedNow == 1 ? "word" : "words") to the Trash, not the ones the preview listed; nothing was changed. Check the backup again, then restore."
        case .fileError(let path, let reason):
            return "\(path): \(reason)"
        case .damaged(let what):
            return "the library is damaged: \(what); nothing was changed. To get its words back, restore a backup into a new library "
                + "(--library), or, if this library synced, set a new library to the same remote and sync: it gets "
                + "back every word this one had synced"
        case .logDoesNotFit(let path, let problem):
            let name = path.split(separator: "/").last.map(String.init) ?? path
            return
                "the library file \(path) and the log beside it (\(name)-wal) do not fit together: \(problem). This happens when a backup, an older copy or another computer's copy is put in the library's place while MiDiccio was writing to it or after it stopped abruptly (killed, or the power lost), as the log holds the changes made to the file that was there before. Nothing was changed. To open the file now there as it is, move \(name)-wal and \(name)-shm out of its folder (keep them if you may want those changes), then try again."
        case .invalidPlace(let place):
            return "\"\(place)\" is not a place in the list; start again from the top"
        case .upgradeUnfinished(let from, let reached, let cause):
            // "Nothing was changed" was false here: the file had moved on, and the
            // earlier MiDiccio no longer opened it (round 15A).
            return "this library, made by an earlier MiDiccio (library schema \(from)), was being brought up to date and reached "
                + "schema \(reached), which older MiDiccio builds cannot open, when this failed: \(cause). No word was changed; "
                + "run the command again to finish the update"
        case .storage(let error) where error.isBusy:
            // SQLite's "database is locked" does not say who holds it, or what to do.
            return
                "the library is busy: another program (the web app, a sync or another midiccio command) has been writing to it for over \(LibraryFile.busyTimeoutSeconds) seconds; nothing was changed. Try again when it is done (\(error))"
        case .storage(let error) where error.isFull:
            // "database or disk is full" names neither which, nor what to do.
            let full = Self.fullDisk("the disk the library is on")
            return "\(full.full); nothing was changed. \(full.room.prefix(1).uppercased() + full.room.dropFirst()), "
                + "then try again (\(error))"
        case .storage(let error) where error.isReadOnly:
            // SQLite's words came with the statement that met them, SQL and all (round 12B).
            return "the library cannot be written: its file, its folder or its disk is read-only; nothing was changed. Make it "
                + "writable, or copy the library somewhere you can write and use that copy (SQLite error \(error.code): \(error.message))"
        case .storage(let error):
            return "the library could not be updated (nothing was changed): \(error)"
        }
    }
}
