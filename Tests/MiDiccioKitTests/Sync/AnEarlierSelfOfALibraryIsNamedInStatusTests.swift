import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioSync

/// A library put back twice from one backup goes on under a third id; the id it used in
/// between never syncs again. Status showed that id as "differs (sync both to agree)" on
/// every device, for good, though there was nothing left to sync (found by the
/// exploratory helper). It now says what that device is, and that all it uploaded is here.
@Suite("Status names an earlier self of a library for what it is")
struct AnEarlierSelfOfALibraryIsNamedInStatusTests {
    @Test("put back twice: the id used in between, silent two days, is 'this library before it was put back', on both devices")
    func putBackTwice() throws {
        try withBackend(.folder) { fixture in
            let (laptop, phone, backup) = try fixture.laptopAndPhoneWithABackup(first: "uno")
            try laptop.add("dos")
            try fixture.syncRounds([laptop, phone])

            try laptop.restoreLibraryFile(from: backup)
            try laptop.add("tres")
            try fixture.syncRounds([laptop, phone])
            let between = laptop.id
            try laptop.restoreLibraryFile(from: backup)
            try phone.add("cuatro")
            try fixture.syncRounds([laptop, phone], 4)
            #expect(laptop.id != between)
            #expect(try laptop.terms() == ["cuatro", "dos", "tres", "uno"])
            #expect(try laptop.everyWord() == phone.everyWord())

            let soon = try laptop.engine.status()
            #expect(soon.devices.first { $0.id == between }?.copyOf == nil, "within two days it may yet sync: told as any device")
            fixture.advanceClocks(by: 2 * 86_400_000)
            try fixture.syncRounds([laptop, phone], 1)
            let own = try laptop.engine.status()
            let seen = try #require(own.devices.first { $0.id == between })
            #expect(!seen.agrees, "it never syncs again, so it never agrees")
            #expect(seen.copyOf == laptop.id && seen.everythingRead)
            let note = try #require(own.copyNote(seen))
            let expected = "another copy of this library, or this library before it was put back, silent: what its record names is here"
            #expect(note.hasPrefix(expected))

            let fromPhone = try phone.engine.status()
            let seenByPhone = try #require(fromPhone.devices.first { $0.id == between })
            #expect(seenByPhone.copyOf == laptop.id && seenByPhone.everythingRead)
            let label = try #require(fromPhone.devices.firstIndex { $0.id == laptop.id }.map { fromPhone.deviceLabels[$0] })
            let phoneNote = try #require(fromPhone.copyNote(seenByPhone))
            #expect(phoneNote.hasPrefix("a copy of the same library as \(label), silent: what its record names is here"))
            let current = try #require(fromPhone.devices.first { $0.id == laptop.id })
            #expect(current.copyOf == nil && current.agrees && fromPhone.copyNote(current) == nil, "the laptop itself is shown as before")
        }
    }

    @Test("a device that only lags behind is no copy, and is shown as before")
    func laggingDeviceIsNoCopy() throws {
        try withBackend(.folder) { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            try laptop.add("uno")
            try fixture.syncRounds([laptop, phone])
            try laptop.add("dos")
            try laptop.sync()
            let status = try laptop.engine.status()
            let seen = try #require(status.devices.first { $0.id == phone.id })
            #expect(!seen.agrees && seen.copyOf == nil && status.copyNote(seen) == nil)
        }
    }

    @Test("two laptops made by copying one file, both in use, are told as any devices when they differ")
    func liveCopiesAreToldAsAnyDevice() throws {
        try withBackend(.folder) { fixture in
            let laptop = try fixture.device("laptop")
            try laptop.add("uno")
            try laptop.sync()
            let second = try fixture.copy(of: laptop, as: "second")
            try second.library.setDeviceName("second laptop")
            try fixture.syncRounds([laptop, second], 3)
            for _ in 0..<3 {
                fixture.advanceClocks(by: 86_400_000)
                try fixture.syncRounds([laptop, second], 1)
            }
            try second.add("dos")
            try second.sync()
            let status = try laptop.engine.status()
            let seen = try #require(status.devices.first { $0.id == second.id })
            #expect(!seen.agrees && seen.copyOf == nil && status.copyNote(seen) == nil, "\(seen)")
        }
    }
}
