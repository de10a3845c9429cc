import Foundation
import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel

// Step 4 of a sync: upload pending words, purge markers and settings.
//
// Every file this device writes gets a name with a random part, is noted in sync's
// state as in flight before the write, and as written (with the words marked uploaded)
// in one transaction after it. A sync that stops in between finds the in-flight note
// next time and checks the cloud: the file is there (it counts) or it is not (its
// number is used again, under a new name).
extension SyncSession {
    /// Uploads what is pending; true when a file was written. After an update or a move
    /// to another cloud (`fullUpload`), every word goes up once, as a snapshot, after
    /// pulling, so newer cloud data is never overwritten by older local data.
    func upload() throws -> Bool {
        try recoverInFlightWrite()
        // Pending answers are held from being taken back before they are read for the
        // file, until the file is settled: one taken back as its file went up stayed
        // counted everywhere else (round 14B). Let go at once when there are none.
        let answersWaiting = try store.hasPendingReviewEvents()
        let heldBefore = try store.library.answersBeingSent()
        if answersWaiting || heldBefore {
            try commit { _ in try store.holdAnswersForSending(answersWaiting) }
        }
        // Counted, not loaded: a full upload after an import of a million words reads
        // them once, for the snapshot.
        let pendingCount = try store.pendingCount()
        let markers = try store.markers(pendingOnly: true)
        let settings = try store.settings(pendingOnly: true)
        var events = try store.reviewEvents(pendingOnly: true)
        // An answer given between the look and the read: held now, and read again under the hold.
        if !events.isEmpty && !answersWaiting {
            try commit { _ in try store.holdAnswersForSending(true) }
            events = try store.reviewEvents(pendingOnly: true)
        }
        guard state.fullUpload || pendingCount > 0 || !markers.isEmpty || !settings.isEmpty || !events.isEmpty else {
            if answersWaiting { try commit { _ in try store.holdAnswersForSending(false) } }
            return false
        }
        announce(.uploading(words: pendingCount))
        // After the numbers this id used before it started afresh here, if it did.
        let seq = max(state.lastSeq, state.numberedThrough ?? 0) + 1
        let fullUpload = state.fullUpload
        let file: SyncState.OwnFile
        let markerPosition: Int64?
        let uploaded: SyncStore.Uploaded
        do {
            (file, markerPosition, uploaded) = try writePending(
                seq: seq, fullUpload: fullUpload, pendingCount: pendingCount, markers: markers, settings: settings, events: events)
        } catch let error as CloudError where error.nothingWritten {
            // The cloud refused the file (403, a read-only folder, a full quota): the answers
            // in it went nowhere, so they can be taken back again. They stayed held, and the
            // Study page's sync held them again each time, so Undo said "synced already" of
            // an answer no device had (round 20A #9).
            if answersWaiting || !events.isEmpty { try? commit { _ in try store.holdAnswersForSending(false) } }
            throw error
        }
        try commit { next in
            // The words, markers and settings stay pending until the record naming the file
            // is out (`publishRecordIfNeeded`): no device reads a file before its record
            // names it. They were marked uploaded here, and a device whose record could not
            // be written then (a 503, a lock another WebDAV client held) said "1 word was
            // uploaded" while none could see it, and was not told when another device's
            // Empty Trash purged the word it had taken out of the Trash and edited (round
            // 20B #11). Should the record fail, the next sync sends them again.
            // A snapshot holds every event, these included; answers in a written file are not
            // taken back (another device may find the file before its record: `findStrayFiles`).
            try store.markReviewEventsUploaded(events)
            try store.holdAnswersForSending(false)
            next.lastSeq = seq
            next.files.append(file)
            next.inflight = nil
            if fullUpload { next.snapshot = file }
            if let markerPosition { next.snapshotMarkers = markerPosition }
            next.fullUpload = false
        }
        awaitingRecord = SentAwaitingRecord(words: uploaded, markers: markers, settings: settings, count: report.pushed)
        report.answersPushed += events.count
        report.settingsPushed += settings.count
        report.purgesPushed += markers.count
        return true
    }

    /// Writes what is pending as file `seq`: every word as a snapshot after an update or a
    /// move to another cloud (`fullUpload`), else a change file. Returns the file, the
    /// marker position a snapshot honours, and which words it took.
    private func writePending(
        seq: Int64, fullUpload: Bool, pendingCount: Int, markers: [PurgeMarker], settings: [SettingRecord], events: [ReviewEvent]
    ) throws -> (SyncState.OwnFile, Int64?, SyncStore.Uploaded) {
        if fullUpload {
            let snapshot = try writeSnapshot(seq: seq, fullUpload: true)
            report.fullUpload = true
            report.pushed = try store.wordCount()
            return (snapshot.file, snapshot.markerPosition, .everyWordThrough(snapshot.lastChange))
        }
        if pendingCount > engine.largeUploadThreshold {
            let written = try writeLargeChangeFile(seq: seq, markers: markers, settings: settings, events: events)
            report.pushed = written.words
            return (written.file, nil, .pendingThrough(written.lastChange))
        }
        let pending = try store.pending()
        let batch = SyncBatch(
            kind: .changes, device: deviceID, seq: seq, records: pending.map(\.record),
            markers: markers, settings: settings, events: events)
        let file = try writeOwnFile(.changes, seq: seq, bytes: .memory(BatchCodec.encode(batch)))
        report.pushed = pending.count
        return (file, nil, .words(pending))
    }

    /// What an upload sent, marked uploaded once the record naming its file is out
    /// (`publishRecordIfNeeded`).
    struct SentAwaitingRecord {
        /// The words the file took.
        var words: SyncStore.Uploaded
        /// The purge markers in it.
        var markers: [PurgeMarker]
        /// The settings in it.
        var settings: [SettingRecord]
        /// How many words it holds (for the failure message: `SyncKept.pushed`).
        var count: Int
    }

    /// Marks what `upload` sent as uploaded, in the transaction that notes the record
    /// naming its file as written. A word edited while its upload was in flight has a
    /// newer change number and stays pending; so does a setting set again.
    func markSentAsUploaded() throws {
        guard let sent = awaitingRecord else { return }
        try store.markUploaded(sent.words)
        try store.markMarkersUploaded(sent.markers)
        try store.markSettingsUploaded(sent.settings)
    }

    /// Settles a write a previous sync started and did not note as done.
    private func recoverInFlightWrite() throws {
        guard let inflight = state.inflight else { return }
        var written = false
        // The answers in a file that was written are on other devices already: no longer
        // pending here, and never taken back.
        var sentAnswers: [ReviewEvent] = []
        do {
            if let data = try storage.read(inflight.path) {
                // Only a whole file counts; a damaged one of ours is removed and its
                // number used again.
                if let batch = try? BatchCodec.decode(data, formatVersion: engine.formatVersion) {
                    written = true
                    sentAnswers = batch.events.filter { $0.device == deviceID }
                } else {
                    try storage.delete(inflight.path)
                }
            }
        } catch CloudError.unreadable {
            written = false
        }
        // The stopped write may have left its temporary file behind.
        tidyWanted = true
        try commit { next in
            if written {
                try store.markReviewEventsUploaded(sentAnswers)
                next.lastSeq = max(next.lastSeq, inflight.seq)
                next.files.append(inflight)
                if inflight.kind == .snapshot && inflight.seq >= next.snapshotSeq { next.snapshot = inflight }
            }
            next.inflight = nil
        }
    }

    /// Writes one file of this device's under a fresh name, noting it in flight first.
    func writeOwnFile(_ kind: CloudLayout.Kind, seq: Int64, bytes: CloudBytes) throws -> SyncState.OwnFile {
        try prepareToWrite()
        var attempts = 0
        while true {
            let entry = CloudLayout.Entry(seq: seq, nonce: nonce(), kind: kind)
            let file = SyncState.OwnFile(path: CloudLayout.path(entry, of: deviceID), seq: seq, kind: kind)
            try commit { $0.inflight = file }
            do {
                try storage.create(file.path, bytes: bytes)
            } catch CloudError.exists where attempts < 3 {
                // Sixteen random hex digits that someone else already used: try others.
                attempts += 1
                continue
            }
            report.filesWritten += 1
            report.bytesWritten += bytes.count
            return file
        }
    }

    /// Writes the pending words as change file `seq`, encoded and compressed one word at a
    /// time as they are read, in one read transaction with the newest change it holds,
    /// so words changed later stay pending. Many changed words (a tag put on 100,000 of a
    /// million) went up as a snapshot of the whole library before, which every other
    /// device then read and looked up word by word: pulling a tag on 10,000 of 100,000
    /// words took 1.5–1.8 s that way, 0.7 s as a change file.
    private func writeLargeChangeFile(
        seq: Int64, markers: [PurgeMarker], settings: [SettingRecord], events: [ReviewEvent]
    ) throws -> (file: SyncState.OwnFile, words: Int, lastChange: Int64) {
        let (bytes, words, lastChange) = try store.read {
            let words = try store.pendingCount()
            var file = BatchFileWriter(
                kind: .changes, device: deviceID, seq: seq, cursors: [:], writers: try store.writerIDs(), records: words,
                formatVersion: SyncBatch.formatVersion(markers: markers, settings: settings, events: events),
                spillFrom: CloudBytes.fileFrom)
            try store.forEachPending(
                progress: { read in if read < words { self.announce(.uploading(words: words, done: read)) } },
                { try file.append($0.record) })
            announce(.uploading(words: words, done: words))
            return (try file.finishBytes(markers: markers, settings: settings, events: events), words, try store.lastPendingChange())
        }
        return (try writeOwnFile(.changes, seq: seq, bytes: bytes), words, lastChange)
    }

    /// A snapshot as `writeSnapshot` wrote it.
    typealias WrittenSnapshot = (file: SyncState.OwnFile, markerPosition: Int64, lastChange: Int64)

    /// Writes the whole library as snapshot `seq` (covering this device's entries up to
    /// `seq`), read in one transaction so words, markers and cursors agree. Returns the
    /// file, the marker position it honours, and the newest local change it holds (words
    /// changed later stay pending). Announces how far it has read (`writingSnapshot`);
    /// `fullUpload` says it is this device's upload of every word once.
    func writeSnapshot(seq: Int64, fullUpload: Bool = false) throws -> WrittenSnapshot {
        // Encoded and compressed word by word as they are read; the compressed file goes on
        // in a temporary file past a megabyte (`CloudBytes.fileFrom`), and is copied or
        // uploaded from there: a snapshot of a million words never sits whole in memory.
        let (bytes, position, lastChange) = try store.read {
            let total = try store.recordCount()
            announce(.writingSnapshot(words: total, done: 0, fullUpload: fullUpload))
            let markers = try store.markers(pendingOnly: false), settings = try store.settings(pendingOnly: false)
            let events = try store.reviewEvents(pendingOnly: false)
            var file = BatchFileWriter(
                kind: .snapshot, device: deviceID, seq: seq, cursors: state.cursors, writers: try store.writerIDs(),
                records: total, formatVersion: SyncBatch.formatVersion(markers: markers, settings: settings, events: events),
                spillFrom: CloudBytes.fileFrom)
            try store.forEachRecord(
                progress: { read in self.announce(.writingSnapshot(words: total, done: read, fullUpload: fullUpload)) },
                { try file.append($0) })
            announce(.writingSnapshot(words: total, done: total, fullUpload: fullUpload))
            return (
                try file.finishBytes(markers: markers, settings: settings, events: events), try store.markerPosition(),
                try store.lastPendingChange()
            )
        }
        let file = try writeOwnFile(.snapshot, seq: seq, bytes: bytes)
        report.snapshotWritten = true
        return (file, position, lastChange)
    }
}
