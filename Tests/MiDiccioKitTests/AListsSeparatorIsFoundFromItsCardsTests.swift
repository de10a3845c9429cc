import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// Rule: a list's separator is found from its cards read as CSV is (a quoted cell may hold
/// line breaks), the one that cuts them all alike first, so a cell with a line break or
/// meanings that all hold a comma do not make it read with another separator (found by
/// the exploratory helper, round 11: the header became a word, and cards were cut apart).
@Suite("A list's separator is found from its cards, not its lines")
struct AListsSeparatorIsFoundFromItsCardsTests {
    private func imported(_ text: String, named name: String) throws -> [Word] {
        try withTemporaryLibrary { fixture in
            let path = fixture.file(name)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            _ = try fixture.library.importWords(from: path, options: ImportOptions())
            return try fixture.library.list().sorted { $0.createdAt == $1.createdAt ? $0.term < $1.term : $0.createdAt < $1.createdAt }
        }
    }

    @Test(
        "a cell with a line break (Excel's Alt+Enter) is one cell, whatever the separator",
        arguments: [("vocab.csv", ","), ("vocab.txt", ";"), ("vocab.tsv", "\t")])
    func aCellWithALineBreak(name: String, separator: String) throws {
        let text = "hola\(separator)\"hello\nhi\"\nadiós\(separator)goodbye\ngato\(separator)cat\n"
        let words = try imported(text, named: name)
        #expect(Set(words.map(\.term)) == ["hola", "adiós", "gato"])
        #expect(words.first { $0.term == "hola" }?.meaning == "hello\nhi")
    }

    @Test("a semicolon header with MiDiccio's column names is read as one, past a cell with a line break")
    func aSemicolonHeaderPastALineBreak() throws {
        let text =
            "\u{FEFF}term;meaning;examples\r\nHaus;house;\"Das Haus ist groß.\nIch gehe nach Hause.\"\r\nHund;dog;\"Der Hund bellt.\"\r\n"
        let words = try imported(text, named: "de.csv")
        #expect(Set(words.map(\.term)) == ["Haus", "Hund"])
        #expect(words.first { $0.term == "Haus" }?.examples == ["Das Haus ist groß.", "Ich gehe nach Hause."])
    }

    @Test("a .csv list cut by semicolons whose meanings all hold a comma keeps its meanings whole")
    func semicolonsWithCommasInTheMeanings() throws {
        let text = "\u{FEFF}Haus;house, home\r\nHund;dog, hound\r\nKatze;cat, kitty\r\n"
        let words = try imported(text, named: "de_excel.csv")
        #expect(words.map(\.term) == ["Haus", "Hund", "Katze"])
        #expect(words.map(\.meaning) == ["house, home", "dog, hound", "cat, kitty"])
    }
}
