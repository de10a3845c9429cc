import Foundation
import MiDiccioTesting

@testable import MiDiccioCloud
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// A model of a file-sync client (Dropbox, Syncthing, iCloud Drive): every device has
/// its own local copy of the MiDiccio folder, and each file written or removed in one
/// copy travels to the others one at a time, in any order, with delays. A removal may
/// arrive before the file that replaced it, a file may be seen half written on its way,
/// and two copies that wrote one name concurrently end with the newer version, the
/// other kept as a "conflicted copy" beside it, as the clients do.
final class FileSyncNetwork {
    /// A version of one path: its bytes (nil: removed), and a stamp ordering versions.
    struct Version {
        var data: Data?
        var stamp: Int
        var origin: Int
    }

    /// One file on its way to one copy.
    struct Transfer {
        var to: Int
        var path: String
        var version: Version
        /// True when the copy sees it half written first.
        var halfFirst: Bool
    }

    private(set) var replicas: [[String: Version]] = []
    /// Copies on a machine that was lost for good: they take nothing more in, and what
    /// their client had not passed on to any other copy is gone.
    private(set) var lost = Set<Int>()
    private var transfers: [Transfer] = []
    private var stamp = 0
    private var conflicts = 0
    /// Told of every delivery (the simulation's trace).
    var onDeliver: ((String) -> Void)?

    /// Adds a copy of the folder: a copy of `source`'s (a cloned machine comes with its
    /// sync folder), or an empty one that the client then fills, file by file, with the
    /// newest version of every file (a new machine). Returns its index.
    func addReplica(copying source: Int? = nil) -> Int {
        replicas.append(source.map { replicas[$0] } ?? [:])
        let index = replicas.count - 1
        var newest: [String: Version] = [:]
        for (other, replica) in replicas.dropLast().enumerated() where !lost.contains(other) {
            for (path, version) in replica where version.stamp > (newest[path]?.stamp ?? -1) { newest[path] = version }
        }
        for (path, version) in newest.sorted(by: { $0.key < $1.key }) where replicas[index][path]?.stamp ?? -1 < version.stamp {
            transfers.append(Transfer(to: index, path: path, version: version, halfFirst: false))
        }
        return index
    }

    /// Loses copy `index` with its machine. A version it wrote that has reached another
    /// copy goes on travelling (the client had sent it to the service); one that reached
    /// no other copy is gone.
    func lose(_ index: Int) {
        lost.insert(index)
        transfers.removeAll { transfer in
            guard transfer.to != index else { return true }
            guard transfer.version.origin == index else { return false }
            return !replicas.indices.contains { other in
                other != index && !lost.contains(other) && (replicas[other][transfer.path]?.stamp ?? -1) >= transfer.version.stamp
            }
        }
    }

    /// The copies not lost.
    var liveReplicas: [Int] { replicas.indices.filter { !lost.contains($0) } }

    /// The files present in copy `index`.
    func files(in index: Int) -> [String: Data] {
        replicas[index].compactMapValues(\.data)
    }

    /// Records a write or removal in copy `origin` and sends it towards the others.
    func change(_ path: String, to data: Data?, in origin: Int, random: inout SeededGenerator) {
        stamp += 1
        let version = Version(data: data, stamp: stamp, origin: origin)
        replicas[origin][path] = version
        for index in replicas.indices where index != origin {
            transfers.append(
                Transfer(
                    to: index, path: path, version: version,
                    halfFirst: data != nil && Int.random(in: 0..<10, using: &random) == 0))
        }
    }

    /// Delivers up to `count` transfers picked at random.
    func deliver(_ count: Int, random: inout SeededGenerator) {
        for _ in 0..<count where !transfers.isEmpty {
            let index = Int.random(in: transfers.indices, using: &random)
            var transfer = transfers[index]
            if transfer.halfFirst, let data = transfer.version.data {
                // The copy sees the file half written; the rest arrives later. (Not over
                // a newer version it holds: a client never does that.)
                if (replicas[transfer.to][transfer.path]?.stamp ?? -1) < transfer.version.stamp - 1 {
                    replicas[transfer.to][transfer.path] = Version(
                        data: data.prefix(data.count / 2), stamp: transfer.version.stamp - 1,
                        origin: transfer.version.origin)
                }
                transfer.halfFirst = false
                transfers[index] = transfer
                continue
            }
            transfers.remove(at: index)
            onDeliver?(
                "deliver \(transfer.path) (\(transfer.version.data?.count ?? -1) bytes, stamp \(transfer.version.stamp)) to \(transfer.to)")
            apply(transfer)
        }
    }

    /// Delivers everything on its way.
    func deliverAll() {
        while !transfers.isEmpty {
            var transfer = transfers.removeFirst()
            transfer.halfFirst = false
            apply(transfer)
        }
    }

    private func apply(_ transfer: Transfer) {
        let current = replicas[transfer.to][transfer.path]
        guard let current, current.stamp >= transfer.version.stamp else {
            replicas[transfer.to][transfer.path] = transfer.version
            return
        }
        // The copy holds a newer version. When it wrote that version itself, without
        // having seen this one, clients keep the loser beside it.
        if current.origin == transfer.to, current.data != nil, let data = transfer.version.data, current.data != data {
            conflicts += 1
            let name = transfer.path + " (conflicted copy \(conflicts))"
            replicas[transfer.to][name] = Version(data: data, stamp: transfer.version.stamp, origin: transfer.version.origin)
        }
    }
}

/// One device's local copy of the folder, as `FolderStorage` would see it, with the
/// simulation's faults in front.
final class ReplicaStorage: SimulationCloud {
    let network: FileSyncNetwork
    let index: Int
    var faults = MemoryStorage.Faults()
    var beforeWrite: ((String) throws -> Void)?
    /// The simulation's generator (for the half-written deliveries), shared.
    let random: SimulationRandomBox

    init(network: FileSyncNetwork, index: Int, random: SimulationRandomBox) {
        self.network = network
        self.index = index
        self.random = random
    }

    var displayName: String { "replica \(index)" }
    var cloudNow: Timestamp? { nil }
    var files: [String: Data] { network.files(in: index) }

    private func checkReachable() throws {
        // The folder is local: "unreachable" here is an unmounted drive.
        if faults.unreachable { throw CloudError.unavailable("the simulated drive is not mounted") }
    }

    func list(_ folder: String) throws -> [CloudEntry] {
        try checkReachable()
        let prefix = folder.isEmpty ? "" : folder + "/"
        return files.compactMap { path, data in
            guard path.hasPrefix(prefix) else { return nil }
            let name = String(path.dropFirst(prefix.count))
            return name.contains("/") ? nil : CloudEntry(name: name, size: data.count)
        }
    }

    func folders(in folder: String) throws -> [String] {
        try checkReachable()
        return CloudPaths.folders(in: folder, holding: files.keys)
    }

    func read(_ path: String) throws -> Data? {
        try checkReachable()
        if let corrupt = faults.corruptReads[path] { return corrupt }
        return files[path]
    }

    func write(_ path: String, _ data: Data) throws {
        try beforeWrite?(path)
        try checkReachable()
        try faults.admitWrite(path, data)
        network.change(path, to: data, in: index, random: &random.generator)
    }

    func create(_ path: String, _ data: Data) throws {
        if files[path] != nil { throw CloudError.exists(path: path) }
        try write(path, data)
    }

    @discardableResult
    func delete(_ path: String) throws -> Bool {
        try checkReachable()
        guard files[path] != nil else { return false }
        network.change(path, to: nil, in: index, random: &random.generator)
        return true
    }
}

/// The simulation's generator, shared by reference with the replicas.
final class SimulationRandomBox {
    var generator: SeededGenerator
    init(_ generator: SeededGenerator) { self.generator = generator }
}
