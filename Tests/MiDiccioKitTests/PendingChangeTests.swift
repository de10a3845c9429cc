import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Sync (next) uploads pending words; every local change must mark its word pending and
/// take a new value of the library's change counter, in the same transaction.
@Suite("Local changes are pending until synced")
struct PendingChangeTests {
    @Test("a new word is pending with the next change number")
    func addMarksPending() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let first = try library.add(WordContent(term: "uno")).word
            let second = try library.add(WordContent(term: "dos")).word
            let a = try library.required(first.id), b = try library.required(second.id)
            #expect(a.pending && b.pending)
            #expect(a.localChange >= 1)
            #expect(b.localChange == a.localChange + 1)
        }
    }

    @Test("every save, delete and restore marks the word pending again and bumps its change number")
    func everyLocalChangeMarksPending() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let id = try library.add(WordContent(term: "uno")).word.id
            var last = try library.required(id).localChange
            let steps: [(String, () throws -> Void)] = [
                ("edit", { try library.edit(id, WordEdit(meaning: "one")) }),
                ("add tag", { try library.edit(id, WordEdit(addTags: ["num"])) }),
                ("delete", { try library.delete([id]) }),
                ("restore", { try library.restore([id]) }),
                ("edit again", { try library.edit(id, WordEdit(term: "Uno")) }),
            ]
            for (name, step) in steps {
                try library.markAllUploaded()
                #expect(try library.required(id).pending == false)
                fixture.clock.advance(by: 1)
                try step()
                let stored = try library.required(id)
                #expect(stored.pending, "\(name)")
                #expect(stored.localChange > last, "\(name)")
                last = stored.localChange
            }
        }
    }

    @Test("the change counter is shared by all words and survives reopening the library")
    func counterIsLibraryWide() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a")).word.id
            let b = try library.add(WordContent(term: "b")).word.id
            try library.edit(a, WordEdit(meaning: "x"))
            let reopened = try WordLibrary(path: fixture.path, clock: fixture.clock, environment: [:])
            try reopened.edit(b, WordEdit(meaning: "y"))
            let changes = try [a, b].map { try reopened.required($0).localChange }
            #expect(changes[1] == changes[0] + 1)
            #expect(Set(try reopened.allStored().map(\.localChange)).count == 2)
        }
    }

    @Test("a failed change does not mark anything pending or use up a change number")
    func failedChangeLeavesSyncStateAlone() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a")).word.id
            let b = try library.add(WordContent(term: "b")).word.id
            try library.delete([b])
            try library.markAllUploaded()
            let before = try library.snapshot()
            #expect(throws: LibraryError.self) { try library.delete([a, b]) }
            #expect(throws: LibraryError.self) { try library.edit(a, WordEdit(term: " ")) }
            #expect(try library.snapshot() == before)
            // The next real change takes the very next number.
            try library.edit(a, WordEdit(meaning: "m"))
            let highest = before.words.map(\.localChange).max() ?? 0
            #expect(try library.required(a).localChange == highest + 1)
        }
    }
}
