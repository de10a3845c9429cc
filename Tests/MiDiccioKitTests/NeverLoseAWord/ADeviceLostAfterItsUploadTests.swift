import Foundation
import MiDiccioTesting
import Synchronization
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A device uploads its words, then writes its record naming the file. When the record
/// cannot be written (the connection drops, the cloud's disk is full) and the device is
/// never heard from again (a phone lost or broken), its words sat in the cloud where no
/// device read them: readers go as far as a record says (found by the simulation, once it
/// could lose a device for good). A device now writes its record before its first upload,
/// and each device lists, every two days, the folders of devices silent for two days and reads
/// what their records do not account for.
@Suite("Words a device uploaded before it was lost reach the others")
struct ADeviceLostAfterItsUploadTests {
    /// How long a device is silent before its folders are listed (`SyncEngine.strayFileAge`).
    private static let silent: Int64 = 2 * 86_400_000

    /// A phone and a laptop on one cloud, with everything synced.
    private func phoneAndLaptop(_ directory: URL, cloud: MemoryStorage) throws -> (phone: TestDevice, laptop: TestDevice) {
        let start = CloudBackendFixture.start
        let phone = try TestDevice(
            name: "phone", path: directory.appendingPathComponent("phone.sqlite").path, storage: cloud, clock: ManualClock(start: start))
        let laptop = try TestDevice(
            name: "laptop", path: directory.appendingPathComponent("laptop.sqlite").path, storage: cloud, clock: ManualClock(start: start))
        return (phone, laptop)
    }

    /// A phone and a laptop on one cloud, with a word of the phone's on both.
    private func syncedPhoneAndLaptop(_ directory: URL, cloud: MemoryStorage) throws -> (phone: TestDevice, laptop: TestDevice) {
        let (phone, laptop) = try phoneAndLaptop(directory, cloud: cloud)
        try phone.add("casa")
        try phone.sync()
        try laptop.sync()
        return (phone, laptop)
    }

    /// Makes every write of `device`'s record fail once a file of its has been written.
    private func failRecordAfterUpload(of device: TestDevice) {
        let uploaded = Mutex(false)
        let id = device.id
        device.cloud.beforeWrite = { path in
            if path.hasPrefix("changes/\(id)/") || path.hasPrefix("snapshots/\(id)/") { uploaded.withLock { $0 = true } }
            if path == CloudLayout.devicePath(id), uploaded.withLock({ $0 }) {
                throw CloudError.failed(path: path, reason: "the connection dropped")
            }
        }
    }

    @Test("a word uploaded by a phone whose record then failed, and which was lost, reaches the laptop once the phone is two days silent")
    func lostAfterUpload() throws {
        try withTemporaryDirectory { directory in
            let cloud = MemoryStorage()
            let (phone, laptop) = try syncedPhoneAndLaptop(directory, cloud: cloud)

            phone.clock.advance(by: 1_000)
            let last = try phone.add("perdida", meaning: "uploaded, and then the phone was lost")
            failRecordAfterUpload(of: phone)
            #expect(throws: (any Error).self) { try phone.sync() }
            #expect(cloud.files.keys.contains { $0.hasPrefix("changes/\(phone.id)/") }, "the file is in the cloud")

            laptop.clock.advance(by: 60_000)
            try laptop.sync()
            #expect(try !laptop.has(last), "within two days, the phone may still write its record")
            laptop.clock.advance(by: Self.silent)
            let report = try laptop.sync()
            // Its change files after its snapshot: the one its record names, read before,
            // and the one it does not.
            let phoneFiles = cloud.files.keys.filter { $0.hasPrefix("changes/\(phone.id)/") }
            #expect(report.strayFiles == phoneFiles.count && phoneFiles.count == 2, "\(phoneFiles)")
            #expect(try laptop.word(last).meaning == "uploaded, and then the phone was lost")
            laptop.clock.advance(by: Self.silent)
            #expect(try laptop.sync().strayFiles == 0, "each stray file is read once")
        }
    }

    @Test("a new device writes its record before its first upload, so words it uploads are found even when its last record fails")
    func firstUploadIsAnnounced() throws {
        try withTemporaryDirectory { directory in
            let cloud = MemoryStorage()
            let (phone, laptop) = try phoneAndLaptop(directory, cloud: cloud)
            try laptop.add("casa")
            try laptop.sync()
            let word = try phone.add("nueva", meaning: "the phone's only sync failed at its end")
            let order = Mutex<[String]>([])
            let id = phone.id
            let fail = Mutex(false)
            phone.cloud.beforeWrite = { path in
                guard path.contains(id) else { return }
                order.withLock { $0.append(path) }
                if path.hasPrefix("changes/") || path.hasPrefix("snapshots/") { fail.withLock { $0 = true } }
                if path == CloudLayout.devicePath(id), fail.withLock({ $0 }) { throw CloudError.failed(path: path, reason: "dropped") }
            }
            #expect(throws: (any Error).self) { try phone.sync() }
            #expect(order.withLock { $0.first } == CloudLayout.devicePath(id), "\(order.withLock { $0 })")

            laptop.clock.advance(by: Self.silent + 1_000)
            try laptop.sync()
            #expect(try laptop.word(word).meaning == "the phone's only sync failed at its end")
        }
    }

    @Test("a device that syncs every day is not listed, and between two looks nobody is: a steady sync costs what it did")
    func liveDevicesAreNotListed() throws {
        try withTemporaryDirectory { directory in
            let cloud = MemoryStorage()
            let (phone, laptop) = try syncedPhoneAndLaptop(directory, cloud: cloud)
            for device in [phone, laptop] { device.clock.advance(by: Self.silent) }
            try phone.sync()
            laptop.cloud.resetRequests()
            try laptop.sync()
            let daily = laptop.cloud.requests("list").map(\.path)
            #expect(!daily.contains { $0.contains(phone.id) }, "\(daily)")
            #expect(daily.contains { $0.contains(laptop.id) }, "every two days it lists its own folders too: \(daily)")

            laptop.clock.advance(by: 60_000)
            laptop.cloud.resetRequests()
            try laptop.sync()
            let steady = laptop.cloud.requests("list").map(\.path)
            #expect(steady == [CloudLayout.devicesFolder], "\(steady)")
        }
    }
}
