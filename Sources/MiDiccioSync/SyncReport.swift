import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel

/// What one sync did.
public struct SyncReport: Hashable, Sendable {
    /// Words changed here by other devices' edits.
    public var pulled = 0
    /// Words uploaded.
    public var pushed = 0
    /// Words edited both here (not yet uploaded) and elsewhere, merged field by field.
    public var merged = 0
    /// Study answers (review events) another device gave that were new here.
    public var answersPulled = 0
    /// Study answers given here, uploaded.
    public var answersPushed = 0
    /// Settings another device changed that took effect here.
    public var settingsPulled = 0
    /// Settings changed here, uploaded.
    public var settingsPushed = 0
    /// Permanent deletions (purges) made here, uploaded: a sync that sent one said "0
    /// pulled, 0 pushed" and nothing more (found by the exploratory helper, round 21A #7).
    public var purgesPushed = 0
    /// Cloud files that could not be read, with why; the rest of the sync went on.
    public var skippedFiles: [SkippedFile] = []
    /// True when this sync uploaded every word once (after an update that needed it).
    public var fullUpload = false
    /// True when this sync wrote a snapshot of the whole library.
    public var snapshotWritten = false
    /// Files written to the cloud, and their total size in bytes.
    public var filesWritten = 0
    /// Total bytes written to the cloud.
    public var bytesWritten = 0
    /// Old change files and snapshots this device removed (compaction).
    public var filesRemoved = 0
    /// Silent devices whose folders held files their records do not name, read this sync
    /// (`SyncEngine.strayFileAge`).
    public var strayFiles = 0
    /// Words removed here because another device purged them (edits made here to them
    /// are discarded: a purge beats every version of a word).
    public var purgedElsewhere = 0
    /// Of `purgedElsewhere`, the words that held a change made here and not uploaded yet,
    /// which went with them (the note said so of every purged word, edited or not).
    public var purgedEditedHere = 0
    /// The terms of the first `purgedNamed` words of `purgedElsewhere`, to name them.
    public var purgedTerms: [String] = []
    /// The terms of the first `purgedNamed` words of `purgedEditedHere`.
    public var purgedEditedTerms: [String] = []
    /// Of `purgedElsewhere`, the words another device's Trash clean-up purged that held
    /// study answers given here and not uploaded yet: answers alone do not keep a word (an
    /// edit does, `keptFromCleanUp`), and they are set aside under the id the word comes
    /// back under. They were told as "discarded (a permanent deletion wins over every
    /// edit)" beside a word the same clean-up kept for its edit (round 23B #2).
    public var purgedStudiedHere = 0
    /// The terms of the first `purgedNamed` words of `purgedStudiedHere`.
    public var purgedStudiedTerms: [String] = []
    /// How many of the words purged elsewhere (and of those edited here) a report names.
    public static let purgedNamed = 5
    /// Words edited here and not synced yet whose edited field a later change from another
    /// device replaced (a later edit there, or a backup restored there, which gives its words
    /// new times): last write wins, and this says so, by name.
    public var overriddenHere = 0
    /// The terms of the first `purgedNamed` words of `overriddenHere`.
    public var overriddenTerms: [String] = []
    /// Words edited here and not synced yet that another device moved to the Trash
    /// meanwhile (a delete there, an import or a restore undone there): the edit is kept,
    /// in the Trash, and this says so, by name.
    public var trashedEditedHere = 0
    /// The terms of the first `purgedNamed` words of `trashedEditedHere`.
    public var trashedEditedTerms: [String] = []
    /// The ids of every one of them (`SyncSession.dropNotesOfWordsOutOfTheTrash`).
    public package(set) var trashedEditedIDs: [String] = []

    /// Every word this sync found in the Trash with a change not seen there here
    /// (`editedTrashedHere`, `trashedEditedHere`): a purge asked about the Trash as it was
    /// refuses them (`trash empty`, `purge`, the web app's Trash).
    public var trashChangedIDs: Set<String> { Set(editedTrashedHereIDs + trashedEditedIDs) }

    /// The terms of the first of `trashChangedIDs`.
    public var trashChangedTerms: [String] {
        Array((editedTrashedHereTerms + trashedEditedTerms).prefix(Self.purgedNamed))
    }
    /// Words moved to the Trash here and not synced yet that another device edited before
    /// that move reached it (an import undone here while a phone edited one of its words):
    /// the edit is in the Trash with the word, and this says so, by name.
    public var editedTrashedHere = 0
    /// The terms of the first `purgedNamed` words of `editedTrashedHere`.
    public var editedTrashedHereTerms: [String] = []
    /// The ids of every one of them, as above.
    public package(set) var editedTrashedHereIDs: [String] = []
    /// Words another device's Trash clean-up purged that held a change made here it never
    /// had (an edit, or a restore from the Trash): kept here under a new id, in the Trash
    /// or out of it as the change leaves them, and sent on (`SyncSession.keepFromCleanUp`).
    public var keptFromCleanUp = 0
    /// The terms of the first `purgedNamed` words of `keptFromCleanUp`.
    public var keptFromCleanUpTerms: [String] = []
    /// Words this sync purged because their time in the Trash ran out
    /// (trash.autoPurgeDays), after the pull: none that another device took out of it.
    public var autoPurged = 0
    /// The devices whose files this sync has not all read (cut short, or not delivered
    /// yet), when words were due to be purged by trash.autoPurgeDays: they wait for a sync
    /// that reads everything, as one of those files may take a word out of the Trash.
    public var autoPurgeWaitsFor: [String] = []
    /// The devices this library synced with through a cloud it has left (within 180 days)
    /// and that have not synced through this one yet, when words were due to be purged by
    /// trash.autoPurgeDays: those they may hold wait, since the deletion has not reached
    /// them (`autoPurgeWaitsElsewhereNote`).
    public var autoPurgeWaitsElsewhere: [String] = []
    /// With `autoPurgeWaitsElsewhere`: the clouds this library left (within 180 days) where
    /// it uploaded and heard from no other device, one of which may have synced there after
    /// it ("folder /path", "Google Drive", "iCloud"): those words wait until another device
    /// syncs here after this library left that cloud, or for 180 days.
    public var autoPurgeWaitsUnheard: [String] = []
    /// True when words due to be purged wait because a backup restore brought them and no
    /// device of the library the backup came from has synced through this cloud since (for
    /// 180 days at most): they may hold the words, seen only in use.
    public var autoPurgeWaitsRestore = false
    /// True when the devices of another cloud that the Trash's clean-up waited for have
    /// synced here: the words in the Trash count their days again from this sync, for them
    /// to see the words there before they go (`autoPurgeDaysRestartedNote`).
    public var autoPurgeDaysRestarted = false
    /// The devices (by name) whose records name files this sync has not read: not
    /// delivered yet by a file-sync client, cut short, or missing. One of them may take a
    /// word out of the Trash or edit it, so a command about to purge or override what
    /// other devices did stops (`SyncOnOpen.runOrStop`), and so does the Trash's clean-up.
    public var unreadFrom: [String] = []
    /// Set when this library and its files in the cloud were found put back from an older
    /// copy: how many of its entries other devices had read that are gone here. They upload
    /// their content again.
    public var putBack: Int64?
    /// The devices found put back from an older copy with their files, whose lost entries
    /// this device had read: this sync uploads every word once for them.
    public var refilledFor: [String] = []
    /// How far this device's clock is ahead of the cloud's (milliseconds), when the back
    /// end tells its clock and it is past `ClockAhead.threshold` behind this one's.
    public var aheadOfCloud: Int64?
    /// True when this device had been silent past the retention period and read
    /// everything again before uploading.
    public var fullResync = false
    /// True when the cloud this device had synced with was found deleted or replaced
    /// (an iCloud zone deleted in Settings), so this device started over there: it read
    /// everything again and uploaded every word once.
    public var startedOver = false
    /// `startedOver` in the first sync after a new sign-in: the cloud held nothing of this
    /// device because it is another account's, not because it was deleted.
    public var startedOverAfterSignIn = false
    /// Set when this library found itself to be a copy of another device (a file copied
    /// to another computer, or put back from a backup) and went on under a new id.
    public var newIdentity: NewIdentity?
    /// True when the cloud held no MiDiccio data, and this sync started it there.
    public var startedCloud = false
    /// True when the cloud's manifest had gone while the devices' files were still there,
    /// and this sync wrote it again.
    public var manifestWrittenAgain = false
    /// True when this library was set back to a cloud it had left, and this sync went on
    /// there from where this device had got to (`SyncSession.takeUpPreviousState`).
    public var previousStateTakenUp = false
    /// True when the cloud holds an older copy of this device's files, as a copy of a cloud
    /// folder made before its last sync in the folder copied has: this sync started afresh
    /// there, knowing them for its own (`SyncSession.takeUpPreviousState`).
    public var olderCopyOfTheCloud = false
    /// The folder this cloud is a copy of, when that folder is still there with this
    /// library's files and this sync took the copy up: the Trash's clean-up waits for the
    /// devices still syncing there (`SyncSession.takeUpPreviousState`).
    public var copyOfFolder: String?
    /// The id this library had in this cloud before it took a new one elsewhere, when this
    /// sync took that id over (`SyncSession.takeUpPreviousState`).
    public var previousIDTakenOver: String?
    /// True when files this device had written were gone from the cloud (emptied, or put
    /// back from an older copy), so this sync read everything again and uploaded every
    /// word once (`SyncSession.resyncIfOwnFilesGone`).
    public var ownFilesGone = false
    /// True when the cloud's manifest held another cloud id than the one this device
    /// found there last, so this sync read everything again and uploaded every word once
    /// (`SyncSession.resyncIfCloudStartedAgain`).
    public var cloudStartedAgain = false
    /// Leftover temporary files of this device's that this sync removed.
    public var temporaryFilesRemoved = 0
    /// Set when another device's clock was found ahead of this device's, or this one's
    /// behind, by more than `ClockAhead.threshold` (the device furthest ahead).
    public var clockAhead: ClockAhead?

    /// Makes an empty report.
    public init() {}
}

/// Another device whose clock is ahead of this device's (or this one's is behind): its
/// record carries a time that far in this device's future. Times
/// are stamped by each device's own clock, so while two clocks disagree an edit made on
/// the device whose clock is ahead wins over a later edit of the same field made
/// elsewhere. Anki refuses to sync past five minutes of skew; MiDiccio syncs, and says so.
public struct ClockAhead: Hashable, Sendable {
    /// The other device's id.
    public var deviceID: String
    /// Its name.
    public var device: String
    /// How far ahead, in milliseconds.
    public var milliseconds: Int64

    /// Less than this is ordinary drift, and said nothing of.
    public static let threshold: Int64 = 5 * 60_000

    /// Makes the finding.
    public init(deviceID: String, device: String, milliseconds: Int64) {
        self.deviceID = deviceID
        self.device = device
        self.milliseconds = milliseconds
    }

    /// The clock of the device that wrote `record`, when it was past `threshold` ahead of
    /// `now` (this device's clock) as it wrote it.
    static func of(_ record: DeviceRecord, now: Int64) -> ClockAhead? {
        let ahead = record.lastSync.milliseconds - now
        return ahead > threshold ? ClockAhead(deviceID: record.device, device: record.name, milliseconds: ahead) : nil
    }

    /// How far, in whole minutes (rounded).
    public var minutes: Int64 { (milliseconds + 30_000) / 60_000 }

    /// How far, for people: "about 62 minutes", "about 3 hours", "about 400 days".
    public var amount: String {
        if minutes < 120 { return "about \(minutes) minutes" }
        let hours = (minutes + 30) / 60
        if hours < 48 { return "about \(hours) hours" }
        return "about \((hours + 12) / 24) days"
    }

    /// What it means and what to do, for people.
    public var message: String {
        "\(device)'s clock is \(amount) ahead of this device's, or this device's clock is behind. "
            + "Until the clocks agree, an edit made on the device whose clock is ahead wins over a later edit of the "
            + "same field made on the other. Check the date, time and time zone settings of both."
    }
}

extension SyncReport {
    /// What `putBack` and `refilledFor` mean, for people; nil when neither is set.
    public var putBackNote: String? {
        var parts: [String] = []
        if let lost = putBack {
            parts.append(
                "this library was put back from an older copy together with its files in the cloud (a computer restored "
                    + "from a backup?): other devices had read \(lost) \(lost == 1 ? "change" : "changes") of it that are "
                    + "gone here. They upload what those held again, so its words come back here at their next sync")
        }
        if !refilledFor.isEmpty {
            parts.append(
                "\(refilledFor.joined(separator: ", ")) was put back from an older copy together with its files in the "
                    + "cloud: this device uploaded every word again, so no device loses what was written there since")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// What `autoPurgeWaitsFor` means, for people; nil when it is empty.
    public var autoPurgeWaitsNote: String? {
        guard !autoPurgeWaitsFor.isEmpty else { return nil }
        return "the Trash's clean-up (trash.autoPurgeDays) waits: not every change of \(autoPurgeWaitsFor.joined(separator: ", ")) "
            + "has arrived here yet, and one may take a word out of the Trash. It runs at a sync that finds them all"
    }

    /// What `unreadFrom` means, for people; nil when it is empty. A sync that could not
    /// read a file another device's record names said nothing of it: a change file put in
    /// Google Drive's Trash left a word of that device missing here in silence (found by
    /// the exploratory helper, round 26A #4).
    public func unreadNote(cloud: String) -> String? {
        guard !unreadFrom.isEmpty else { return nil }
        let one = unreadFrom.count == 1
        return "not every change of \(unreadFrom.joined(separator: ", ")) has arrived here yet: a file named in "
            + "\(one ? "its record" : "their records") is not in \(cloud), or could not be read (a sync program may still be "
            + "delivering it, or it was removed, perhaps to a trash). What it holds comes here when the file arrives, or once "
            + "\(one ? "that device syncs" : "they sync") again (\(one ? "it is" : "they are") asked to upload it anew) and this "
            + "device after"
    }

    /// What `autoPurgeWaitsElsewhere` and `autoPurgeWaitsUnheard` mean, for people; nil
    /// when both are empty.
    public var autoPurgeWaitsElsewhereNote: String? {
        let restore =
            "the Trash's clean-up (trash.autoPurgeDays) waits for words a backup restore brought: the devices of the library "
            + "the backup came from may not have seen them go to the Trash, and may have edited them. It runs once one of "
            + "them syncs through this cloud, or 180 days after the restore"
        guard !autoPurgeWaitsElsewhere.isEmpty || !autoPurgeWaitsUnheard.isEmpty else { return autoPurgeWaitsRestore ? restore : nil }
        var who: [String] = []
        if !autoPurgeWaitsElsewhere.isEmpty { who.append(autoPurgeWaitsElsewhere.joined(separator: ", ")) }
        if !autoPurgeWaitsUnheard.isEmpty {
            who.append("any device of \(autoPurgeWaitsUnheard.joined(separator: ", ")) that synced there after this library")
        }
        var note =
            "the Trash's clean-up (trash.autoPurgeDays) waits for devices of another cloud that this library, or a device "
            + "syncing here, synced with: \(who.joined(separator: ", and ")) may not have seen the words go to the Trash, and "
            + "may have edited them. It runs 180 days after they were last heard from at the latest"
        if !autoPurgeWaitsElsewhere.isEmpty { note += ", sooner once each device named syncs through this cloud" }
        if !autoPurgeWaitsUnheard.isEmpty {
            // Said whole: the condition's precedence cut it to ", sooner." (round 17A G10).
            let when = " once another device syncs through this cloud after this library left that one"
            note += autoPurgeWaitsElsewhere.isEmpty ? ", sooner" + when : " (for the others," + when + ")"
        }
        return note
    }

    /// What `autoPurgeDaysRestarted` means, for people; nil when it is not set.
    public var autoPurgeDaysRestartedNote: String? {
        guard autoPurgeDaysRestarted else { return nil }
        return "the devices of another cloud that the Trash's clean-up (trash.autoPurgeDays) waited for have synced here: "
            + "the words in the Trash count their days again from now, so those devices see them there before they go"
    }

    /// What `aheadOfCloud` means, for people; nil when it is not set.
    public var aheadOfCloudNote: String? {
        aheadOfCloud.map { ahead in
            "this computer's clock is \(ClockAhead(deviceID: "", device: "", milliseconds: ahead).amount) ahead of the cloud's, "
                + "or the cloud server's clock is behind (a home server not set by the network can be). Until they agree, the "
                + "Trash's clean-up (trash.autoPurgeDays) counts days by the earlier of the two, and if this computer's clock is "
                + "the wrong one, its edits win over later edits made on other devices. Check this computer's date, time and "
                + "time zone, and the server's."
        }
    }
}

/// A library that went on under a new device id, and why.
public struct NewIdentity: Hashable, Sendable, Codable {
    /// The id it had.
    public var old: String
    /// The id it has now.
    public var new: String
    /// What showed it was a copy.
    public var reason: String

    /// What happened, for people: why, and that nothing was lost or written over.
    public var message: String {
        "This library is a copy of another library file (\(reason)). It goes on as a new device (\(new.prefix(8))): it read "
            + "everything of the old id (\(old.prefix(8))) and uploaded every word once; nothing was written over."
    }
}

/// What a sync that stopped had already saved, so its message can say so exactly.
public struct SyncKept: Hashable, Sendable {
    /// Words changed here by other devices' edits, saved.
    public var pulled = 0
    /// Words removed here because other devices purged them, saved.
    public var purged = 0
    /// Words uploaded, when the upload was saved (nil: it was not).
    public var pushed: Int?
    /// Words changed here that wait for the next sync to upload them.
    public var pending = 0
    /// True when this sync gave the library a new device id (a copy).
    public var newIdentity = false

    /// Makes an empty account.
    public init() {}

    /// True when nothing was saved here.
    public var isEmpty: Bool { pulled == 0 && purged == 0 && pushed == nil && !newIdentity }

    /// What was kept, for people.
    public var summary: String {
        var parts: [String] = []
        if pulled > 0 { parts.append("\(Self.words(pulled)) changed on other devices \(pulled == 1 ? "was" : "were") saved here") }
        if purged > 0 { parts.append("\(Self.words(purged)) purged elsewhere \(purged == 1 ? "was" : "were") removed here") }
        if newIdentity { parts.append("this library took a new device id (it is a copy of another)") }
        if let pushed, pushed > 0 { parts.append("\(Self.words(pushed)) \(pushed == 1 ? "was" : "were") uploaded") }
        if pending > 0 {
            parts.append("\(Self.words(pending)) changed here \(pending == 1 ? "waits" : "wait") to be uploaded")
        } else if pushed == nil {
            parts.append("no change made here was lost")
        }
        // An upload of no word (a purge, settings, study answers) that went through before
        // the sync stopped: "Kept: ." said nothing (found by the exploratory helper, round 14C).
        if parts.isEmpty { parts.append("what was changed here (no word among it) was uploaded") }
        return parts.joined(separator: "; ")
    }

    private static func words(_ count: Int) -> String { count == 1 ? "1 word" : "\(count) words" }
}

/// A cloud file a sync could not use.
public struct SkippedFile: Hashable, Sendable {
    /// Its path in the cloud folder.
    public var path: String
    /// Why it was skipped.
    public var reason: String
}

/// Why a sync stopped. Each step of a sync commits with its data, so a sync that stops
/// leaves the library whole: words already pulled stay, nothing is half-applied, pending
/// words stay pending, and the next sync resumes.
public enum SyncError: Error, Sendable, CustomStringConvertible {
    /// Another sync of this library is running.
    case busy
    /// No remote is set for this library.
    case noRemote
    /// The library's remote changed (to `now`) while this sync waited for another.
    case remoteChanged(now: String)
    /// The cloud folder was written by a newer MiDiccio format.
    case cloudTooNew(version: Int)
    /// The cloud folder's manifest cannot be read now (a file still arriving, or
    /// damaged); nothing was changed and the next sync tries again.
    case badManifest(String)
    /// Sync's own saved state in the library cannot be read.
    case damagedState(String)
    /// The sync would take too many words out of the library at once: `count` of the
    /// `of` outside the Trash, `purged` of them deleted permanently (another device
    /// purged them) and the rest moved to the Trash; `by` names the devices that did it,
    /// the one that took most words first.
    case massDeletion(count: Int, of: Int, purged: Int, by: [String] = [])
    /// The cloud failed before anything was saved here.
    case cloud(CloudError)
    /// The sync stopped part way (the cloud or the library failed) after saving some of
    /// its work here; `kept` says exactly what.
    case stopped(cause: any Error, kept: SyncKept)

    /// A mass-deletion stop in words, with `keep` as the way to keep the words first
    /// (for a purge, which cannot be undone) and `goOn` as the way to let the sync go on;
    /// nil for any other error.
    public func massDeletionMessage(keep: String, goOn: String) -> String? {
        guard case .massDeletion(let count, let total, let purged, let devices) = self else { return nil }
        // Who did it, so that an import undone or a bulk delete on one's own laptop is told
        // from an accident (round 14A).
        let named = devices.isEmpty ? "another device" : Self.listed(devices)
        guard purged > 0 else {
            return "this sync would move \(count) of your \(total) words to the Trash, as \(named) did; nothing was changed. "
                + "If that is what you want, \(goOn)"
        }
        // Said as it is: a purge cannot be undone, so the way back is a backup first.
        return "this sync would take \(count) of your \(total) words away: "
            + (purged == count
                ? "\(named) deleted them permanently, and they would be deleted permanently here"
                // Devices pass on the purges they learnt, so which one purged is not told
                // apart from who passed it on; the one list named a device for what another
                // did, and read garbled (round 16B).
                : "\(purged) deleted permanently on another device (and so here too), and \(count - purged) moved to the Trash "
                    + "(by \(named))")
            + "; nothing was changed. If that was a mistake, keep them first with \(keep). To go on, \(goOn)"
    }

    /// "LAPTOP", "LAPTOP and PHONE", "LAPTOP, PHONE and 2 other devices".
    private static func listed(_ names: [String]) -> String {
        let shown = names.prefix(names.count > 3 ? 2 : 3)
        let rest = names.count - shown.count
        if rest > 0 { return shown.joined(separator: ", ") + " and \(rest) other devices" }
        return shown.count == 1 ? shown[0] : shown.dropLast().joined(separator: ", ") + " and " + shown.last!
    }

    public var description: String {
        switch self {
        case .busy:
            "another sync of this library is running; try again in a moment"
        case .noRemote:
            "no remote is set; set one with: midiccio remote set folder PATH"
        case .remoteChanged(let now):
            "this library was set to sync with \(now) while this sync waited for another; nothing was changed here. Sync "
                + "again to sync with it"
        case .cloudTooNew(let version):
            "this cloud copy was written by a newer MiDiccio; update to keep syncing (the cloud uses format \(version), this "
                + "MiDiccio format \(CloudManifest.currentVersion); 'midiccio --version' says which a build writes). Your words on "
                + "this device are kept."
        case .badManifest(let reason):
            "the cloud folder's \(CloudLayout.manifestPath) cannot be read now (\(reason)); nothing was changed here, the next sync will try again. "
                + "If it goes on failing (the file was damaged, not still arriving), remove \(CloudLayout.manifestPath) from the cloud folder: "
                + "the next sync writes it again from the devices' own files, and no word is lost"
        case .damagedState(let reason):
            "this library's sync state cannot be read (\(reason)); nothing was changed. Set the remote again to start over with this cloud"
        case .massDeletion:
            massDeletionMessage(keep: "midiccio backup export FILE", goOn: "run: midiccio sync --allow-mass-delete") ?? ""
        case .cloud(.signInNeeded(let message)):
            // Trying again cannot help until the user signs in.
            "\(message); nothing was changed here"
        case .cloud(.unauthorized(let reason)) where reason.utf8.firstRange(of: RemoteConfig.passwordVariable.utf8) != nil:
            // The variable's own advice: storing the password again cannot help.
            "\(CloudError.unauthorized(reason)); nothing was changed here"
        case .cloud(.unauthorized(let reason)):
            // A refused password stays refused: trying again cannot help until it is set again.
            "\(CloudError.unauthorized(reason)); nothing was changed here. Syncing waits until the cloud lets this device in again "
                + "(for WebDAV, set the user name and password again: midiccio remote set webdav URL --user NAME "
                + "--password-stdin, or Settings in the web app)"
        case .cloud(.notThere(let reason)):
            // A missing folder stays missing: trying again cannot help until the address changes.
            "\(CloudError.notThere(reason)); nothing was changed here"
        case .cloud(let error):
            "\(error); nothing was changed here, the next sync will try again"
        case .stopped(let cause, let kept):
            "the sync stopped: \(Self.plain(cause)). Kept: \(kept.summary). The next sync goes on from here"
        }
    }
}

extension SyncError {
    /// An error's text without claims about the library that a stopped sync replaces
    /// with its own account.
    fileprivate static func plain(_ error: any Error) -> String {
        if case LibraryError.storage(let storage) = error {
            if storage.isFull {
                let full = LibraryError.fullDisk("the disk the library is on")
                return "\(full.full) (\(full.room), then sync again): \(storage)"
            }
            return "the library could not be updated: \(storage)"
        }
        return "\(error)"
    }
}

/// The sync state of this library and of every device seen in the cloud.
public struct SyncStatus: Sendable {
    /// One device as seen in the cloud.
    public struct Device: Hashable, Sendable {
        /// Its id.
        public var id: String
        /// Its name.
        public var name: String
        /// Its MiDiccio version.
        public var app: String
        /// When it last wrote its record.
        public var lastSync: Timestamp?
        /// True when its library digest equals this device's.
        public var agrees: Bool
        /// True for this device.
        public var isThisDevice: Bool
        /// True when it has been silent past the retention period.
        public var inactive: Bool = false
        /// The name of the device that took over its files (a copy of its library that
        /// went on under a new id), if one did.
        public var replacedBy: String?
        /// How far its clock was ahead of this device's when it last wrote its record,
        /// when past `ClockAhead.threshold`.
        public var clockAhead: ClockAhead?
        /// The id of a library it is a copy of, when both took over one id and it has been
        /// silent for `SyncEngine.strayFileAge`: this device's (it is another copy of this
        /// library's file, or this library itself before it was put back from a backup
        /// again), or the other device's that synced after it. An earlier self never syncs
        /// again, and differs for good.
        public var copyOf: String?
        /// True when this device has read every file it wrote.
        public var everythingRead = false
    }

    /// For people, when `device` is a copy of another (`Device.copyOf`) whose words
    /// differ from this device's: what it is, and whether all it uploaded is here.
    public func copyNote(_ device: Device) -> String? {
        guard let original = device.copyOf, !device.agrees, !device.isThisDevice else { return nil }
        let whose =
            original == deviceID
            ? "another copy of this library, or this library before it was put back, silent: "
            : "a copy of the same library as \(devices.firstIndex { $0.id == original }.map { deviceLabels[$0] } ?? String(original.prefix(8))), "
                + "silent: "
        return whose
            + (device.everythingRead
                ? "what its record names is here (it differs until it syncs again, for good if it never does)"
                : "its record names words this device has not read yet (sync this device)")
    }

    /// Each device's name for people, in the order of `devices`: its name, followed by
    /// the start of its id when another device has the same name (a library copied to a
    /// second laptop keeps the computer's name: two "vm" told nothing apart).
    public var deviceLabels: [String] {
        var named: [String: Int] = [:]
        for device in devices { named[device.name, default: 0] += 1 }
        return devices.map { device in
            (named[device.name] ?? 0) > 1 ? "\(device.name) (\(device.id.prefix(8)))" : device.name
        }
    }

    /// This device's id.
    public var deviceID: String
    /// This device's name.
    public var deviceName: String
    /// The remote, for people (no credentials).
    public var remote: String?
    /// When this device last synced.
    public var lastSync: Timestamp?
    /// Words changed here and not uploaded yet.
    public var pending: Int
    /// Study answers given here and not uploaded yet.
    public var pendingAnswers = 0
    /// Settings changed here and not uploaded yet.
    public var pendingSettings = 0
    /// Permanent deletions (purges) made here and not uploaded yet: the other devices do
    /// not know of them.
    public var pendingPurges = 0
    /// True when the next sync uploads every word once.
    public var fullUploadPending: Bool
    /// Every device in the cloud (this one included), from a fresh look when the cloud
    /// could be reached, else from the last sync.
    public var devices: [Device]
    /// Why the cloud could not be read, if it could not.
    public var cloudProblem: String?
    /// When the last sync with this remote failed and what it said, while no sync has
    /// finished since.
    public var lastFailure: (at: Timestamp, message: String)?
    /// Words removed here because another device purged them.
    public var purgedElsewhere: Int = 0
    /// Purge markers this library holds.
    public var purgeMarkers: Int = 0
    /// Why content of purged words may still be in the cloud; empty when it cannot be.
    public var purgedContentRemains: [String] = []
    /// After this many days of silence a device counts as inactive (the retention).
    public var retentionDays = 180
}

extension SyncReport {
    /// What a sync moved besides words, for people, or nil when nothing: "study answers: 2
    /// received, 1 sent; settings: 1 sent; permanent deletions: 1 sent" (only the kinds that
    /// moved; permanent deletions received are told in `purgeNote`).
    public var answersAndSettings: String? {
        func kind(_ name: String, _ received: Int, _ sent: Int) -> String? {
            guard received > 0 || sent > 0 else { return nil }
            let parts = [received > 0 ? "\(received) received" : nil, sent > 0 ? "\(sent) sent" : nil]
            return "\(name): " + parts.compactMap(\.self).joined(separator: ", ")
        }
        let kinds = [
            kind("study answers", answersPulled, answersPushed), kind("settings", settingsPulled, settingsPushed),
            kind("permanent deletions", 0, purgesPushed),
        ]
        let said = kinds.compactMap(\.self)
        return said.isEmpty ? nil : said.joined(separator: "; ")
    }

    /// What a sync says of words another device purged, or nil when it removed none here:
    /// how many, the first few by name, and which of them held edits made here and not
    /// synced yet, which went with them. The command line says it after every sync (one a
    /// command runs first too), and the web app after its syncs.
    public var purgeNote: String? {
        guard purgedElsewhere > 0 else { return nil }
        let count = purgedElsewhere, edited = purgedEditedHere
        // A sync that stopped leaves its count to the next, not its names (`SyncState.untold`).
        var note =
            "\(count) word\(count == 1 ? " was" : "s were") purged on another device and removed here"
            + (purgedTerms.isEmpty ? "" : ": " + TermList.named(purgedTerms, of: count))
        // Which of the purged words a part of the note speaks of: "it", "they", or "2 of them (...)".
        func which(_ part: Int, _ terms: [String]) -> String {
            part == count
                ? (count == 1 ? "it" : "they") : "\(part) of them" + (terms.isEmpty ? "" : " (\(TermList.named(terms, of: part)))")
        }
        if edited > 0 {
            note +=
                "; \(which(edited, purgedEditedTerms)) had edits (or study answers) made here and not synced yet, which were "
                + "discarded (a permanent deletion wins over every edit)"
        }
        if purgedStudiedHere > 0 {
            note +=
                "; \(which(purgedStudiedHere, purgedStudiedTerms)) had study answers given here and not synced yet: the Trash's "
                + "clean-up on another device deleted \(purgedStudiedHere == 1 ? "it" : "them"), which answers alone do not stop "
                + "(an edit would have); the answers are set aside, and come back with the word if a backup restored with "
                + "--replace brings it back"
        }
        return note
    }

    /// What a sync says of edits made here and not synced yet that a later change from
    /// another device replaced, or nil when there were none. A replace restore on another
    /// device gave every word a new time and so beat such an edit, and the sync of the
    /// device that made it said nothing (found by the exploratory helper, round 8). With
    /// them, such words another device moved to the Trash meanwhile (`trashedEditedHere`):
    /// an import undone there took one with its edit out of sight, silently (round 16B).
    /// And the words another device's Trash clean-up purged that are kept here with a change
    /// made since (`keptFromCleanUp`).
    public var overriddenNote: String? {
        var notes: [String] = []
        if overriddenHere > 0 {
            let count = overriddenHere
            notes.append(
                "\(count) word\(count == 1 ? "" : "s") edited here and not synced yet "
                    + "\(count == 1 ? "was" : "were") changed later on another device (an edit there, or a backup restored there), "
                    + "and the later change won: " + TermList.named(overriddenTerms, of: count))
        }
        if trashedEditedHere > 0 {
            let count = trashedEditedHere
            notes.append(
                "\(count) word\(count == 1 ? "" : "s") edited (or studied) here "
                    + "\(count == 1 ? "was" : "were") moved to the Trash on another device that had not had the change: "
                    + TermList.named(trashedEditedTerms, of: count) + "; the changes are kept there, restore "
                    + (count == 1 ? "it" : "them") + " from the Trash to keep " + (count == 1 ? "it" : "them"))
        }
        if keptFromCleanUp > 0 {
            let count = keptFromCleanUp
            let it = count == 1 ? "it" : "them"
            notes.append(
                "\(count) word\(count == 1 ? "" : "s") changed here "
                    + "\(count == 1 ? "was" : "were") deleted permanently on another device by its Trash clean-up "
                    + "(trash.autoPurgeDays), which had not seen the change: " + TermList.named(keptFromCleanUpTerms, of: count)
                    + "; \(count == 1 ? "it is kept here with the change as a new word" : "they are kept here with the changes as new words")"
                    + ", which the other devices get too (in the Trash when the deletion came after the change: restore \(it) "
                    + "from the Trash to keep \(it))")
        }
        if editedTrashedHere > 0 {
            let count = editedTrashedHere
            notes.append(
                "\(count) word\(count == 1 ? "" : "s") moved to the Trash here \(count == 1 ? "was" : "were") edited (or studied) on "
                    + "another device before that reached it: " + TermList.named(editedTrashedHereTerms, of: count)
                    + "; the edits (and answers) are in the Trash with " + (count == 1 ? "it" : "them") + ", restore "
                    + (count == 1 ? "it" : "them") + " to keep " + (count == 1 ? "it" : "them"))
        }
        return notes.isEmpty ? nil : notes.joined(separator: ". ")
    }

    /// What this sync found of the cloud and of this device's place in it that the person
    /// should know, a sentence each, in the order to say them: the command line prints them
    /// as notes and the web app shows them after a sync. `cloud` is the remote's name as
    /// shown.
    public func cloudNotes(cloud: String) -> [String] {
        var notes: [String] = []
        if ownFilesGone {
            notes.append(
                "Files this device had written were gone from \(cloud) (removed, perhaps to a trash; the folder emptied; or put back from an older copy), so this sync read everything again and uploaded every word once."
            )
        }
        if cloudStartedAgain {
            notes.append(
                "The MiDiccio data in \(cloud) was started again since this device last synced (emptied, then started by another device; or two devices started it at the same moment, and the other one's start was kept), so this sync read everything again and uploaded every word once."
            )
        }
        if let folder = copyOfFolder {
            // Not "synced with it before": a copy of the folder it synced with (round 18A).
            let goesOn = previousStateTakenUp ? ": this library goes on in the copy from where it had got to, and its" : "; this library's"
            notes.append(
                "\(cloud) is a copy of folder \(folder), which is still there\(goesOn) Trash's clean-up waits for the devices of that folder until they sync here."
            )
        } else if previousStateTakenUp {
            notes.append("This library synced with \(cloud) before: it went on from where it had got to there.")
        }
        if olderCopyOfTheCloud {
            notes.append(
                "\(cloud) holds an older copy of this device's files (a copy of the folder it synced with, made before its last sync there): this sync took them for its own and uploaded every word once."
            )
        }
        if let old = previousIDTakenOver {
            notes.append(
                "This library synced with \(cloud) before, as device \(old.prefix(8)), and has had another id since: it takes that device's files over, reads them, and removes them once its own snapshot holds their words."
            )
        }
        if manifestWrittenAgain {
            notes.append(
                "The cloud's \(CloudLayout.manifestPath) had been removed (the devices' files were still there), so this sync wrote it again."
            )
        }
        if fullResync { notes.append("This device had not synced for a long time, so it read everything again before uploading.") }
        if startedOver && startedOverAfterSignIn {
            notes.append(
                "\(cloud) holds nothing of this device since it was signed in again (another account than before?), so this device started over there: it read everything and uploaded every word once. Starting over deleted no word here: what it read was merged as any sync merges."
            )
        } else if startedOver {
            notes.append(
                "The MiDiccio data in \(cloud) had been deleted or replaced, so this device started over there: it read everything again and uploaded every word once. Starting over deleted no word here: what it read was merged as any sync merges."
            )
        }
        return notes
    }
}
