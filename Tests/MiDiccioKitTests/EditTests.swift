import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Editing a word")
struct EditTests {
    @Test(
        "only the fields an edit changes get the edit's time",
        arguments: [
            (WordEdit(term: "hablar"), [WordField.term]),
            (WordEdit(meaning: "to speak"), [.meaning]),
            (WordEdit(reading: "a-BLAR"), [.reading]),
            (WordEdit(examples: ["Hablo español."]), [.examples]),
            (WordEdit(notes: "regular -ar verb"), [.notes]),
            (WordEdit(addTags: ["verbs"]), [.tags]),
            (WordEdit(removeTags: ["es"]), [.tags]),
            (WordEdit(meaning: "to speak", notes: "regular"), [.meaning, .notes]),
            (WordEdit(term: "HABLAR", meaning: "to talk"), [.term]),
        ])
    func onlyChangedFieldsGetNewTimes(edit: WordEdit, changed: [WordField]) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(
                WordContent(
                    term: "Hablar", meaning: "to talk", reading: "ab-LAR",
                    examples: ["Hablamos."], notes: "", tags: ["es"])
            ).word
            let added = fixture.clock.now()
            fixture.clock.advance(by: 90_000)
            let editTime = fixture.clock.now()

            let edited = try library.edit(word.id, edit)
            let stored = try library.required(word.id)
            #expect(stored.word == edited)
            for field in WordField.allCases {
                #expect(stored.times[field] == (changed.contains(field) ? editTime : added), "\(field)")
            }
            #expect(edited.updatedAt == editTime)
            #expect(edited.createdAt == word.createdAt)
            #expect(edited.content == edit.applied(to: word.content))
        }
    }

    @Test(
        "an edit that changes nothing changes no time and does not mark the word pending again",
        arguments: [
            WordEdit(term: "Hablar"),
            WordEdit(term: "  Hablar \n"),
            WordEdit(meaning: "to talk", reading: "ab-LAR"),
            WordEdit(examples: ["Hablamos.", "  "]),
            WordEdit(addTags: ["ES"]),
            WordEdit(removeTags: ["verbs"]),
            WordEdit(),
        ])
    func noOpEditChangesNothing(edit: WordEdit) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(
                WordContent(
                    term: "Hablar", meaning: "to talk", reading: "ab-LAR",
                    examples: ["Hablamos."], tags: ["es"])
            ).word
            try library.markAllUploaded()
            let before = try library.snapshot()
            fixture.clock.advance(by: 90_000)

            let result = try library.edit(word.id, edit)
            #expect(result == word)
            #expect(try library.snapshot() == before)
            #expect(try library.required(word.id).pending == false)
        }
    }

    @Test("an edit made while the clock is behind the word's time is 1 ms after it")
    func clockBehindStillMovesForward() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "hola")).word
            fixture.clock.advance(by: 3_600_000)
            let later = try library.edit(word.id, WordEdit(meaning: "hello"))
            #expect(later.updatedAt == fixture.clock.now())

            // This device's clock falls a day behind (or the edit came from a faster device).
            fixture.clock.set(word.createdAt.adding(-86_400_000))
            let behind = try library.edit(word.id, WordEdit(notes: "greeting"))
            #expect(behind.updatedAt == later.updatedAt.next)
            let stored = try library.required(word.id)
            #expect(stored.times.notes == later.updatedAt.next)
            #expect(stored.times.meaning == later.updatedAt)
            #expect(stored.times.term == word.createdAt)
            #expect(stored.times.newest == stored.word.updatedAt)
        }
    }

    @Test("an edit made when the clock is ahead takes the clock's time")
    func clockAheadTakesNow() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "hola")).word
            fixture.clock.advance(by: 1)
            #expect(try library.edit(word.id, WordEdit(meaning: "hi")).updatedAt == word.updatedAt.next)
            fixture.clock.advance(by: 12_345)
            #expect(try library.edit(word.id, WordEdit(meaning: "hello")).updatedAt == fixture.clock.now())
        }
    }

    @Test("two edits in the same millisecond still give the word newer times")
    func sameMillisecondEdits() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "rápido")).word
            let first = try library.edit(word.id, WordEdit(meaning: "fast"))
            let second = try library.edit(word.id, WordEdit(meaning: "quick"))
            #expect(first.updatedAt == word.updatedAt.next)
            #expect(second.updatedAt == first.updatedAt.next)
            #expect(try library.required(word.id).times.meaning == second.updatedAt)
        }
    }

    @Test("a word in the Trash cannot be edited, and stays as it was")
    func editInTrashRefused() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "basura")).word
            try library.delete([word.id])
            let before = try library.snapshot()
            fixture.clock.advance(by: 1_000)
            let error = #expect(throws: LibraryError.self) { try library.edit(word.id, WordEdit(meaning: "trash")) }
            guard case .wrongTrashState(let id, let term, let inTrash) = error else {
                Issue.record("expected wrongTrashState, got \(String(describing: error))")
                return
            }
            #expect(id == word.id)
            #expect(term == "basura")
            #expect(inTrash)
            #expect(error?.description.contains("restore it first") == true)
            #expect(try library.snapshot() == before)
        }
    }

    @Test("editing an unknown word is refused")
    func editUnknownWord() throws {
        try withTemporaryLibrary { fixture in
            let stranger = WordID.random()
            let error = #expect(throws: LibraryError.self) {
                try fixture.library.edit(stranger, WordEdit(meaning: "x"))
            }
            guard case .wordNotFound(let text) = error else {
                Issue.record("expected wordNotFound, got \(String(describing: error))")
                return
            }
            #expect(text == stranger.rawValue)
        }
    }

    @Test("an edit is trimmed like a new word and replaces examples as a whole")
    func editIsValidated() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "casa", examples: ["Mi casa.", "Tu casa."])).word
            let edited = try library.edit(word.id, WordEdit(meaning: "  house ", examples: [" Su casa. ", ""]))
            #expect(edited.meaning == "house")
            #expect(edited.examples == ["Su casa."])
            #expect(try library.word(word.id) == edited)
        }
    }

    @Test("an edited word is found by its new text and no longer by its old text")
    func editReindexesSearch() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "perro", meaning: "dog", notes: "ladra")).word
            try library.edit(word.id, WordEdit(term: "gato", meaning: "cat", notes: "maúlla"))
            #expect(try library.search("perro").isEmpty)
            #expect(try library.search("dog").isEmpty)
            #expect(try library.search("ladra").isEmpty)
            #expect(try library.search("gato").map(\.id) == [word.id])
            #expect(try library.search("cat").map(\.id) == [word.id])
            #expect(try library.search("maulla").map(\.id) == [word.id])
        }
    }
}
