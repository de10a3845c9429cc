import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Importing and exporting CSV, TSV and Anki files")
struct ImportExportTests {
    /// Words chosen to break naive CSV and TSV handling.
    static let awkward: [WordContent] = [
        WordContent(
            term: "say \"hi\"", meaning: "a, b, and c", reading: "tab\there",
            examples: ["He said \"no\", twice.", "Tab\tinside"], notes: "line one\nline two\r\nline three",
            tags: ["quotes", "commas"]),
        WordContent(term: "👩‍👩‍👧", meaning: "family 👪", notes: "emoji with zero-width joiners"),
        WordContent(term: "=SUM(A1:A2)", meaning: "+1", reading: "-1", notes: "@mention"),
        WordContent(term: "\"quoted start", meaning: "ends with a quote\"", notes: "\"\"", tags: ["a"]),
        WordContent(term: "日本語", meaning: "Japanese", reading: "にほんご", examples: ["日本語を話します。"], tags: ["jlpt5"]),
        WordContent(term: "back\\slash", meaning: "semi;colon|pipe", notes: "ends with a comma,"),
        WordContent(term: "café", meaning: "cafe\u{301} decomposed", tags: ["Café"]),
    ]

    private func contents(_ library: WordLibrary) throws -> [WordContent] {
        try library.list(ListQuery(sort: .created)).reversed().map(\.content)
    }

    @Test("a CSV with a header row is imported field by field, all at the clock's time and pending")
    func importsCSV() throws {
        try withTemporaryLibrary { fixture in
            let csv = """
                term,meaning,reading,examples,notes,tags
                hola,hello,O-la,"¡Hola!
                ¿Qué tal?",greeting,basics es
                "casa, grande",big house,,,,
                """
            try writeText(csv, to: fixture.file("words.csv"))
            fixture.clock.advance(by: 77)
            let report = try fixture.library.importSheet(from: fixture.file("words.csv"))
            #expect(report.added == 2)
            let words = try fixture.library.list(ListQuery(sort: .term))
            #expect(
                words.map(\.content) == [
                    WordContent(term: "casa, grande", meaning: "big house"),
                    WordContent(
                        term: "hola", meaning: "hello", reading: "O-la", examples: ["¡Hola!", "¿Qué tal?"],
                        notes: "greeting", tags: ["basics", "es"]),
                ])
            #expect(words.allSatisfy { $0.createdAt == fixture.clock.now() && $0.updatedAt == fixture.clock.now() })
            #expect(try fixture.library.allStored().allSatisfy(\.pending))
            #expect(try fixture.library.search("que tal").count == 1)
        }
    }

    @Test("a TSV in any column order is imported")
    func importsTSV() throws {
        try withTemporaryLibrary { fixture in
            try writeText("tags\tterm\tmeaning\nanimals\tperro\tdog\n\tgato\tcat\n", to: fixture.file("words.tsv"))
            let report = try fixture.library.importSheet(from: fixture.file("words.tsv"), format: .tsv)
            #expect(report.added == 2)
            #expect(
                try fixture.library.list(ListQuery(sort: .term)).map(\.content) == [
                    WordContent(term: "gato", meaning: "cat"),
                    WordContent(term: "perro", meaning: "dog", tags: ["animals"]),
                ])
        }
    }

    @Test("the preview of an import shows a word's tags as the import keeps them: one of each, in any case")
    func previewTagsAsKept() throws {
        try withTemporaryLibrary { fixture in
            try writeText("term\tmeaning\ttags\ncorrer\tto run\tverb Verb VERB común\n", to: fixture.file("words.tsv"))
            var options = ImportOptions()
            options.dryRun = true
            let preview = try fixture.library.importWords(from: fixture.file("words.tsv"), options: options)
            #expect(preview.sample.map(\.tags) == [["verb", "común"]])
            _ = try fixture.library.importSheet(from: fixture.file("words.tsv"), format: .tsv)
            #expect(try fixture.library.list(ListQuery()).map(\.tags) == [["verb", "común"]])
        }
    }

    @Test("an Anki plain-text export is imported with its HTML turned into text and its tags")
    func importsAnki() throws {
        try withTemporaryLibrary { fixture in
            let anki =
                "#separator:tab\n#html:true\n#tags column:3\n"
                + "<b>perro</b>\tdog<br>hound\tanimals spanish::a1\n"
                + "café\tcoffee &amp; more\t\n"
                + "gato\tcat<div>kitten</div>\tanimals\n"
            try writeText(anki, to: fixture.file("deck.txt"))
            let report = try fixture.library.importSheet(from: fixture.file("deck.txt"))
            #expect(report.added == 3)
            let words = try fixture.library.list(ListQuery(sort: .term))
            #expect(words.map(\.term) == ["café", "gato", "perro"])
            #expect(words.map(\.meaning) == ["coffee & more", "cat\nkitten", "dog\nhound"])
            #expect(try fixture.library.list(ListQuery(tag: "ANIMALS")).count == 2)
            #expect(try fixture.library.tags().map(\.tag).sorted() == ["animals", "spanish::a1"])
        }
    }

    @Test(
        "a bad row is reported with its line number and nothing is imported",
        arguments: [
            ("term,meaning\nuno,one\ndos,two\n,three\ncuatro,four\n", 4, "term is empty"),
            ("term,meaning\nuno,\"one\nstill one\"\ndos,two\n\(String(repeating: "x", count: 501)),too long\n", 5, "term"),
            ("term,tags\nuno,ok\ndos,\(String(repeating: "t", count: 65))\n", 3, "tags"),
            ("term,meaning\nuno,one\n\"dos,two\n", 3, "unterminated quoted field"),
            ("term\tmeaning\nuno\tone\ndos\ttwo\ttoo many\n", 3, "3 fields"),
            ("#separator:tab\n#html:false\nuno\tone\n\ttwo\n", 4, "term is empty"),
        ])
    func badRowImportsNothing(text: String, line: Int, mentions: String) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.add(WordContent(term: "existing"))
            let before = try library.snapshot()
            let path = fixture.file("bad.csv")
            try writeText(text, to: path)

            let error = #expect(throws: LibraryError.self) { try library.importSheet(from: path) }
            guard case .invalidImport(let file, let errorLine, let message) = error else {
                Issue.record("expected invalidImport, got \(String(describing: error))")
                return
            }
            #expect(file == path)
            #expect(errorLine == line, "\(message)")
            #expect(message.contains(mentions), "\(message)")
            #expect(error?.description.contains("line \(line)") == true)
            #expect(error?.description.hasSuffix("nothing was imported") == true)
            #expect(try library.snapshot() == before)
        }
    }

    @Test("a file that is not UTF-8 text is refused and nothing is imported")
    func notUTF8() throws {
        try withTemporaryLibrary { fixture in
            let path = fixture.file("latin1.csv")
            try Data([0x74, 0x65, 0x72, 0x6D, 0x0A, 0x63, 0x61, 0x66, 0xE9, 0x0A]).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: LibraryError.self) { try fixture.library.importSheet(from: path) }
            guard case .invalidImport(_, _, let message) = error else {
                Issue.record("expected invalidImport, got \(String(describing: error))")
                return
            }
            #expect(message.contains("UTF-8"))
            #expect(try fixture.library.counts().words == 0)
        }
    }

    @Test("terms already in the library, or twice in the file, are counted and can be skipped", arguments: [false, true])
    func duplicatesOnImport(skip: Bool) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.add(WordContent(term: "Café"))
            try writeText("term\nCAFÉ\nté\nTÉ\nnuevo\n", to: fixture.file("dups.csv"))
            let report = try library.importSheet(from: fixture.file("dups.csv"), skipDuplicates: skip)
            if skip {
                #expect(report.added == 2)
                #expect(report.skippedDuplicates == 2)
                #expect(report.duplicatesAdded == 0)
                #expect(try library.counts().words == 3)
            } else {
                #expect(report.added == 4)
                #expect(report.skippedDuplicates == 0)
                #expect(report.duplicatesAdded == 2)
                #expect(try library.counts().words == 5)
            }
        }
    }

    @Test("export then import gives back every word exactly, awkward text included", arguments: SheetFormat.allCases)
    func roundTrip(format: SheetFormat) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            for content in Self.awkward {
                try library.add(content)
                fixture.clock.advance(by: 1)
            }
            let gone = try library.add(WordContent(term: "in the trash")).word
            try library.delete([gone.id])
            let path = fixture.file("words.\(format.rawValue)")
            #expect(try library.exportSheet(to: path, format: format) == Self.awkward.count)

            let (other, _) = try fixture.sibling("other.sqlite")
            let report = try other.importSheet(from: path, format: format)
            #expect(report.added == Self.awkward.count)
            let original = try contents(library)
            let imported = try contents(other)
            #expect(imported == original)
            // String equality ignores normalisation; the bytes must survive too.
            for (before, after) in zip(original, imported) {
                let fields: (WordContent) -> [[UInt8]] = { content in
                    [content.term, content.meaning, content.reading, content.notes].map { Array($0.utf8) }
                        + content.examples.map { Array($0.utf8) } + content.tags.map { Array($0.utf8) }
                }
                #expect(fields(before) == fields(after), "\(before.term)")
            }

            // Exporting the imported library writes the same file again.
            try other.exportSheet(to: fixture.file("again"), format: format)
            #expect(fileBytes(fixture.file("again")) == fileBytes(path))
        }
    }

    @Test("format detection: a tab in the header line means TSV, otherwise CSV")
    func formatDetection() throws {
        try withTemporaryLibrary { fixture in
            try writeText("term\tmeaning\nuno\tone, two\n", to: fixture.file("a.txt"))
            try writeText("term,meaning\nuno,one\ttwo\n", to: fixture.file("b.txt"))
            _ = try fixture.library.importSheet(from: fixture.file("a.txt"))
            _ = try fixture.library.importSheet(from: fixture.file("b.txt"))
            #expect(try fixture.library.list(ListQuery(sort: .created)).map(\.meaning).sorted() == ["one\ttwo", "one, two"].sorted())
        }
    }
}
