import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: undoing a bulk action (a tag put on or taken off many words, many words moved to
/// or out of the Trash) leaves each word whose change was changed again since, here or on
/// another device and pulled: as `import undo` and `backup undo` keep later edits. The undo
/// took back a tag the phone had put on by hand after the action, brought back a word it
/// had deleted, put back a tag it had taken off, and put into the Trash a word it had
/// edited, on every device (found by the exploratory helper, round 16B).
@Suite("A bulk undo keeps later changes")
struct ABulkUndoKeepsLaterChangesTests {
    /// Two devices sharing three words, "uno", "dos", "tres", tagged `tags`; their ids.
    private func threeWordsOnTwoDevices(_ fixture: SyncFixture, tags: [String] = []) throws -> (TestDevice, TestDevice, [WordID]) {
        let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
        let ids = try ["uno", "dos", "tres"].map { try laptop.add($0, tags: tags) }
        try fixture.syncRounds([laptop, phone])
        return (laptop, phone, ids)
    }

    /// The phone, later, does `change` to the first word and syncs; the laptop pulls it, then
    /// undoes its last bulk action: the result.
    private func changedOnThePhoneThenUndone(
        _ fixture: SyncFixture, _ laptop: TestDevice, _ phone: TestDevice, _ change: () throws -> Void
    ) throws -> BulkResult {
        fixture.advanceClocks(by: 1_000)
        try change()
        try phone.sync()
        fixture.advanceClocks(by: 1_000)
        try laptop.sync()
        let result = try laptop.library.undoBulkAction()
        try fixture.syncRounds([laptop, phone])
        return result
    }

    @Test("a tag put on by hand on another device after a bulk 'Add tag' stays on when the action is undone")
    func tagPutOnByHandStays() throws {
        try withSyncFixture { fixture in
            let (laptop, phone, ids) = try threeWordsOnTwoDevices(fixture)
            _ = try laptop.library.addTag("exam", to: .words(ids))
            let result = try changedOnThePhoneThenUndone(fixture, laptop, phone) {
                _ = try phone.library.edit(ids[0], WordEdit(addTags: ["exam", "mine"]))
            }
            #expect(result.changed == 2 && result.keptSince == 1 && result.keptSinceTerms == ["uno"])
            for device in [laptop, phone] {
                #expect(try device.word(ids[0]).tags == ["exam", "mine"], "\(device.name)")
                #expect(try device.word(ids[1]).tags.isEmpty && device.word(ids[2]).tags.isEmpty, "\(device.name)")
            }
        }
    }

    @Test("another tag put on by hand since does not keep the undone tag: only that tag's own change counts")
    func anotherTagDoesNotHold() throws {
        try withSyncFixture { fixture in
            let (laptop, phone, ids) = try threeWordsOnTwoDevices(fixture)
            _ = try laptop.library.addTag("exam", to: .words(ids))
            let result = try changedOnThePhoneThenUndone(fixture, laptop, phone) {
                _ = try phone.library.edit(ids[0], WordEdit(addTags: ["mine"]))
            }
            #expect(result.changed == 3 && result.keptSince == 0)
            #expect(try phone.word(ids[0]).tags == ["mine"])
        }
    }

    @Test("a tag taken off by hand since a bulk 'Remove tag' stays off when the action is undone")
    func tagTakenOffByHandStaysOff() throws {
        try withSyncFixture { fixture in
            let (laptop, phone, ids) = try threeWordsOnTwoDevices(fixture, tags: ["exam"])
            _ = try laptop.library.removeTag("exam", from: .words(ids))
            let result = try changedOnThePhoneThenUndone(fixture, laptop, phone) {
                _ = try phone.library.edit(ids[0], WordEdit(removeTags: ["exam"]))
            }
            #expect(result.keptSince == 1 && result.changed == 2)
            for device in [laptop, phone] {
                #expect(try device.word(ids[0]).tags.isEmpty && device.word(ids[1]).tags == ["exam"], "\(device.name)")
            }
        }
    }

    @Test("a word deleted by hand since a bulk 'Move to Trash' stays in the Trash when the action is undone")
    func wordDeletedByHandStays() throws {
        try withSyncFixture { fixture in
            let (laptop, phone, ids) = try threeWordsOnTwoDevices(fixture)
            _ = try laptop.library.moveToTrash(.words(ids))
            let result = try changedOnThePhoneThenUndone(fixture, laptop, phone) {
                _ = try phone.library.delete([ids[0]])
            }
            #expect(result.keptSince == 1 && result.changed == 2)
            for device in [laptop, phone] {
                #expect(try device.word(ids[0]).isDeleted && !device.word(ids[1]).isDeleted, "\(device.name)")
            }
        }
    }

    @Test("a word edited since a bulk 'Restore' stays out of the Trash when the action is undone")
    func wordEditedSinceARestoreStaysOut() throws {
        try withSyncFixture { fixture in
            let (laptop, phone, ids) = try threeWordsOnTwoDevices(fixture)
            _ = try laptop.library.delete(ids)
            try fixture.syncRounds([laptop, phone])
            _ = try laptop.library.restoreFromTrash(.words(ids))
            try laptop.sync()
            try phone.sync()
            let result = try changedOnThePhoneThenUndone(fixture, laptop, phone) {
                _ = try phone.library.edit(ids[0], WordEdit(meaning: "edited on the phone"))
            }
            #expect(result.keptSince == 1 && result.changed == 2)
            for device in [laptop, phone] {
                let kept = try device.word(ids[0])
                #expect(!kept.isDeleted && kept.meaning == "edited on the phone", "\(device.name)")
                #expect(try device.word(ids[1]).isDeleted, "\(device.name)")
            }
        }
    }
}
