import MiDiccioTesting
import Synchronization
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Finding a word by id or id prefix")
struct IDPrefixTests {
    /// Ids handed out in order, so tests can make prefixes collide on purpose.
    private static let ids = [
        "3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b",
        "3f2a9c1e-0000-4e6f-9a1b-2c3d4e5f6a7b",
        "abcdef12-3456-4789-8abc-def012345678",
    ].map { WordID($0)! }

    private func withPredictableIDs(_ body: (WordLibrary) throws -> Void) throws {
        try withTemporaryDirectory { directory in
            let next = IDSequence(Self.ids)
            let library = try WordLibrary(
                path: directory.appendingPathComponent("library.sqlite").path,
                clock: ManualClock(), environment: [:], makeID: next.take)
            for term in ["uno", "dos", "tres"] { try library.add(WordContent(term: term)) }
            try body(library)
        }
    }

    @Test("a full id in any case finds its word")
    func fullID() throws {
        try withPredictableIDs { library throws in
            #expect(try library.resolve(Self.ids[0].rawValue.uppercased()).term == "uno")
            #expect(try library.resolve(" \(Self.ids[2].rawValue) ").term == "tres")
        }
    }

    @Test("a unique prefix of six or more characters finds its word", arguments: ["abcdef", "ABCDEF1", "abcdef12-34", "3f2a9c1e-8"])
    func uniquePrefix(prefix: String) throws {
        try withPredictableIDs { library in
            let word = try library.resolve(prefix)
            #expect(word.id.rawValue.hasPrefix(prefix.lowercased()))
        }
    }

    @Test("a prefix shared by several words is ambiguous and lists them")
    func ambiguousPrefix() throws {
        try withPredictableIDs { library in
            let error = #expect(throws: LibraryError.self) { try library.resolve("3f2a9c") }
            guard case .ambiguousID(let prefix, let candidates) = error else {
                Issue.record("expected ambiguousID, got \(String(describing: error))")
                return
            }
            #expect(prefix == "3f2a9c")
            #expect(Set(candidates.map(\.term)) == ["uno", "dos"])
            #expect(error?.description.contains(Self.ids[1].rawValue) == true)
        }
    }

    @Test("when only one of the candidates is in the Trash, asking for the Trash picks it")
    func trashNarrowsCandidates() throws {
        try withPredictableIDs { library in
            try library.delete([Self.ids[1]])
            #expect(try library.resolve("3f2a9c", inTrash: true).term == "dos")
            #expect(try library.resolve("3f2a9c", inTrash: false).term == "uno")
        }
    }

    @Test("a prefix under six characters or unknown is refused", arguments: ["3f2a9", "abc", ""])
    func shortPrefix(prefix: String) throws {
        try withPredictableIDs { library in
            let error = #expect(throws: LibraryError.self) { try library.resolve(prefix) }
            guard case .prefixTooShort = error else {
                Issue.record("expected prefixTooShort, got \(String(describing: error))")
                return
            }
        }
    }

    @Test("a prefix that matches nothing is not found", arguments: ["ffffff", "3f2a9c1e-9", "zzzzzzz"])
    func unknownPrefix(prefix: String) throws {
        try withPredictableIDs { library in
            let error = #expect(throws: LibraryError.self) { try library.resolve(prefix) }
            guard case .wordNotFound = error else {
                Issue.record("expected wordNotFound, got \(String(describing: error))")
                return
            }
        }
    }

    @Test("new ids are random lowercase version 4 UUIDs, never repeated")
    func newIDs() throws {
        try withTemporaryLibrary { fixture in
            var seen = Set<WordID>()
            for index in 0..<200 {
                let id = try fixture.library.add(WordContent(term: "w\(index)")).word.id
                #expect(id.rawValue == id.rawValue.lowercased())
                let characters = Array(id.rawValue)
                #expect(characters[14] == "4")
                #expect("89ab".contains(characters[19]))
                seen.insert(id)
            }
            #expect(seen.count == 200)
        }
    }
}

/// Hands out the given ids in order, then random ones.
final class IDSequence: Sendable {
    private let remaining: Mutex<[WordID]>

    init(_ ids: [WordID]) { remaining = Mutex(ids) }

    func take() -> WordID {
        remaining.withLock { $0.isEmpty ? WordID.random() : $0.removeFirst() }
    }
}
