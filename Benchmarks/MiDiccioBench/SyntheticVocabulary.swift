import Foundation
import MiDiccioKit
import MiDiccioTesting

// MARK: - Seeded draws

/// The draws the generated vocabulary needs, on MiDiccioKit's seeded generator (the same
/// SplitMix64 the simulation replays), so any seed gives the same words everywhere.
extension SeededGenerator {
    /// A number in `0..<bound` (`bound` > 0), by Lemire's multiply-high reduction; the
    /// bias (at most bound / 2^64) is irrelevant here and keeps every draw one call.
    mutating func next(below bound: Int) -> Int {
        Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool {
        next(below: 100) < percent
    }

    /// One element of a non-empty array.
    mutating func pick<T>(_ elements: [T]) -> T {
        elements[next(below: elements.count)]
    }
}

// MARK: - Vocabulary

/// A deterministic, realistic-looking Spanish vocabulary list of any size.
///
/// Row `i` depends only on the seed and `i` (each row has its own generator), so a
/// benchmark can write a million rows as a stream and later ask for row 73,512 again to
/// build queries, without keeping the rows in memory.
struct SyntheticVocabulary {
    /// The seed every row derives from.
    let seed: UInt64

    /// Makes the vocabulary of `seed`.
    init(seed: UInt64) {
        self.seed = seed
    }

    /// Row `index` (0-based): a term of Spanish-like syllables (about a quarter with an
    /// accent or ñ, some of two words), a meaning of 2–6 English words, a syllabified
    /// reading, 0–2 example sentences, sometimes notes and 0–3 tags from a pool of 30.
    func row(_ index: Int) -> SheetRow {
        var random = SeededGenerator(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        var words: [[String]] = [Self.syllables(&random)]
        if random.chance(12) { words.append(Self.syllables(&random)) }
        let term = words.map { $0.joined() }.joined(separator: " ")
        let reading = words.map(Self.reading).joined(separator: " ")

        let meaningLength = 2 + random.next(below: 5)
        let meaning = (0..<meaningLength).map { _ in random.pick(Self.englishWords) }.joined(separator: " ")

        let exampleRoll = random.next(below: 100)
        let exampleCount = exampleRoll < 35 ? 0 : exampleRoll < 80 ? 1 : 2
        let examples = (0..<exampleCount).map { _ in Self.example(of: term, &random) }

        var notes = ""
        if random.chance(25) {
            notes = random.pick(Self.noteTemplates)
                .replacingOccurrences(of: "%term", with: term)
                .replacingOccurrences(of: "%n", with: String(1 + random.next(below: 24)))
        }

        let tagRoll = random.next(below: 100)
        let tagCount = tagRoll < 20 ? 0 : tagRoll < 60 ? 1 : tagRoll < 85 ? 2 : 3
        let tags = Self.tags(tagCount, &random)
        return SheetRow(term: term, meaning: meaning, reading: reading, examples: examples, notes: notes, tags: tags)
    }

    /// Row `index` with every field filled, as issue 12's "realistic words": a meaning of
    /// about 80 characters, two examples, two tags, and one term in ten in CJK characters
    /// (with a kana reading); the rest as `row` makes them (accents, readings, notes).
    func fullRow(_ index: Int) -> SheetRow {
        var row = row(index)
        var random = SeededGenerator(seed: seed ^ 0x5EED_F011 ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
        if random.chance(10) {
            row.term = (0..<(2 + random.next(below: 3))).map { _ in random.pick(Self.cjkCharacters) }.joined()
            row.reading = (0..<(3 + random.next(below: 4))).map { _ in random.pick(Self.kana) }.joined()
        }
        var meaning = ""
        while meaning.count < 76 {
            meaning += (meaning.isEmpty ? "" : " ") + random.pick(Self.englishWords)
        }
        row.meaning = meaning
        row.examples = (0..<2).map { _ in Self.example(of: row.term, &random) }
        row.tags = Self.tags(2, &random)
        return row
    }

    /// Writes rows `0..<count` (`fullRow`s when `full`) as a MiDiccio TSV file (via
    /// `WordSheet.write`), in chunks so memory stays flat whatever the count; returns the
    /// file size in bytes.
    func writeSheet(count: Int, to path: String, full: Bool = false) throws -> Int {
        try writeSheet(rows: 0..<count, to: path, full: full).bytes
    }

    /// Writes rows from `rows`, with the header, as `writeSheet(count:)` does, stopping
    /// before a chunk of rows that would take the file past `maxBytes`; returns the file
    /// size and the row after the last one written.
    func writeSheet(
        rows: Range<Int>, to path: String, full: Bool = false, maxBytes: Int = .max
    ) throws -> (bytes: Int, end: Int) {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let file = FileHandle(forWritingAtPath: path)
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? file.close() }
        let chunkSize = 2_000
        var written = 0
        for start in stride(from: rows.lowerBound, to: rows.upperBound, by: chunkSize) {
            let chunk = (start..<min(rows.upperBound, start + chunkSize)).map { full ? fullRow($0) : row($0) }
            var text = WordSheet.write(chunk, format: .tsv)
            // Every chunk starts with the header row; only the file's first one keeps it.
            if start > rows.lowerBound, let endOfHeader = text.firstIndex(of: "\n") {
                text.removeSubrange(...endOfHeader)
            }
            let data = Data(text.utf8)
            if start > rows.lowerBound, written + data.count > maxBytes { return (written, start) }
            try file.write(contentsOf: data)
            written += data.count
        }
        return (written, rows.upperBound)
    }

    /// Imports rows `0..<count` into `library` from TSV sheets written in `folder`, each
    /// under the import's size limit (a million words with every field filled take
    /// 200 MB), one import after another.
    func importWords(count: Int, into library: WordLibrary, sheetsIn folder: String, full: Bool = false) throws {
        var start = 0
        var part = 0
        while start < count {
            let sheet = folder + "/words-\(part).tsv"
            let end = try writeSheet(rows: start..<count, to: sheet, full: full, maxBytes: ImportLimits.fileBytes - (1 << 20)).end
            _ = try library.importSheet(from: sheet, format: .tsv)
            try? FileManager.default.removeItem(atPath: sheet)
            start = end
            part += 1
        }
    }

    // MARK: Building blocks

    /// An example sentence holding `term`.
    private static func example(of term: String, _ random: inout SeededGenerator) -> String {
        random.pick(exampleTemplates).replacingOccurrences(of: "%", with: term)
    }

    /// `count` different tags from the pool, in the order drawn.
    private static func tags(_ count: Int, _ random: inout SeededGenerator) -> [String] {
        var tags: [String] = []
        while tags.count < count {
            let tag = random.pick(Self.tags)
            if !tags.contains(tag) { tags.append(tag) }
        }
        return tags
    }

    /// One word of 2–4 syllables (mostly 3–4); sometimes capitalised, sometimes with one accented vowel
    /// or an ñ, which is what makes accent-insensitive search matter.
    private static func syllables(_ random: inout SeededGenerator) -> [String] {
        // Mostly three or four syllables: two-syllable words are few in a real list, and
        // 60² combinations would make thousands of accidental duplicates at 100,000 words.
        let roll = random.next(below: 100)
        let count = roll < 8 ? 2 : roll < 55 ? 3 : 4
        var parts = (0..<count).map { _ in random.pick(plainSyllables) }
        if random.chance(22) {
            let position = parts.count >= 2 ? parts.count - 2 : 0
            parts[position] = accented(parts[position])
        } else if random.chance(5) {
            let position = random.next(below: parts.count)
            parts[position] = parts[position].replacingOccurrences(of: "n", with: "ñ")
        }
        if random.chance(3) {
            parts[0] = parts[0].prefix(1).uppercased() + parts[0].dropFirst()
        }
        return parts
    }

    /// The syllable with its last vowel accented (`ca` → `cá`).
    private static func accented(_ syllable: String) -> String {
        let marks: [Character: Character] = ["a": "á", "e": "é", "i": "í", "o": "ó", "u": "ú"]
        var characters = Array(syllable)
        if let position = characters.lastIndex(where: { marks[$0] != nil }) {
            characters[position] = marks[characters[position]]!
        }
        return String(characters)
    }

    /// Syllables joined by `·`, the stressed one (accented, else the penultimate) in
    /// capitals: `pa·LA·bra`.
    private static func reading(_ syllables: [String]) -> String {
        let marked = syllables.lastIndex { $0.contains(where: { "áéíóú".contains($0) }) }
        let stressed = marked ?? max(0, syllables.count - 2)
        return syllables.enumerated().map { $0.offset == stressed ? $0.element.uppercased() : $0.element.lowercased() }
            .joined(separator: "·")
    }

    private static let plainSyllables = [
        "pa", "la", "bra", "ca", "ma", "te", "ri", "so", "lo", "ne", "mi", "da", "to", "re", "sa", "co",
        "di", "na", "po", "ve", "ga", "ro", "le", "ta", "ba", "que", "chi", "llo", "rra", "cion", "jo", "zu",
        "fe", "gue", "es", "al", "en", "tro", "pla", "cre", "gri", "blan", "mien", "tras", "sol", "mar",
        "pen", "cu", "vi", "lu", "ho", "ja", "ce", "ti", "dor", "bo", "gu", "fi", "ra", "nu",
    ]

    private static let englishWords = [
        "a", "the", "to", "of", "small", "big", "old", "new", "house", "window", "door", "kitchen", "street",
        "river", "mountain", "tree", "flower", "bread", "cheese", "water", "coffee", "milk", "apple", "orange",
        "run", "walk", "speak", "eat", "drink", "sleep", "write", "read", "open", "close", "buy", "sell",
        "quickly", "slowly", "often", "never", "always", "here", "there", "today", "tomorrow", "yesterday",
        "happy", "sad", "tired", "angry", "bright", "dark", "warm", "cold", "heavy", "light", "loud", "quiet",
        "friend", "mother", "father", "brother", "sister", "child", "teacher", "doctor", "neighbour", "king",
        "car", "train", "boat", "ticket", "money", "market", "shop", "price", "bill", "pocket", "shirt",
        "shoe", "hat", "coat", "rain", "snow", "wind", "sun", "cloud", "storm", "morning", "evening", "night",
        "week", "year", "hour", "minute", "something", "someone", "nothing", "everything", "kind", "way",
        "place", "thing", "time", "work", "game", "song", "story", "letter", "word", "question", "answer",
        "wooden", "broken", "empty", "full", "clean", "dirty", "sweet", "bitter", "salty", "spicy", "soft",
        "hard", "round", "sharp", "narrow", "wide", "deep", "to be", "to have", "to get", "to make", "to go",
    ]

    private static let exampleTemplates = [
        "Necesito un % para mañana.",
        "¿Dónde está el %?",
        "Ayer compré una % en el mercado.",
        "Mi abuela siempre decía «%».",
        "No sé qué significa %.",
        "La % de la casa es muy bonita.",
        "Vamos a % esta tarde con los niños.",
        "Es un % muy común en el norte.",
        "¿Has visto mi %? No lo encuentro.",
        "El profesor explicó la palabra % dos veces.",
    ]

    private static let noteTemplates = [
        "Irregular in the preterite.",
        "False friend: not what the English look-alike means.",
        "Heard in chapter %n of the podcast.",
        "Plural: %terms.",
        "Mostly used in informal speech.",
        "Feminine despite ending in -o.",
        "Compare with the word from lesson %n.",
        "My teacher says %term sounds old-fashioned.",
    ]

    private static let cjkCharacters = Array("日本語学生先火水木金土山川田中大小人口手目耳花雨雪風空海道店駅車電話時間今年月週朝夜食飲見聞読書話")
        .map(String.init)

    private static let kana = Array("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわん").map(String.init)

    private static let tags = [
        "noun", "verb", "adjective", "adverb", "phrase", "idiom", "slang", "formal", "informal", "food",
        "travel", "work", "family", "home", "weather", "body", "health", "money", "time", "school",
        "nature", "emotions", "A1", "A2", "B1", "B2", "C1", "mexico", "spain", "argentina",
    ]
}
