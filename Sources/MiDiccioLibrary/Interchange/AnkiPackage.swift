import Foundation
import MiDiccioModel

// MARK: - Public types

/// Why an Anki package could not be read, in words for the person who chose the file.
public struct AnkiPackageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong (the file's own name is added by the caller).
    public var message: String

    /// Makes an error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// The words of an Anki package (`.apkg`, one or more decks, or `.colpkg`, a whole
/// collection), read as the rows a spreadsheet import makes.
///
/// A package is a zip holding an SQLite collection: `collection.anki21b` (zstd-compressed,
/// Anki 2.1.50 and later), else `collection.anki21`, else `collection.anki2`. Current Anki
/// writes both the first and a dummy `collection.anki2` that asks to update Anki, so the
/// newest one present is the one read. Media files are never read.
public struct AnkiPackage: Sendable {
    /// One note as a row, with its id in the collection for messages.
    public struct Note: Sendable, Equatable {
        /// The note's id in the collection.
        public var id: Int64
        /// The word it becomes (`line` stays 0).
        public var row: SheetRow
    }

    /// How much a package may unpack to; checked while unpacking, because the sizes a zip
    /// states may lie.
    public struct Limits: Sendable {
        /// The most bytes the collection may unpack to (512 MiB: a deck of a million
        /// notes is a few hundred MiB).
        public var collectionBytes = 512 * 1024 * 1024
        /// The most bytes out for each byte in, once past `ratioFreeBytes`: SQLite files
        /// of real decks pack 2 to 20 times; a bomb, a thousand times or more.
        public var ratio = 200
        /// Output up to this size is never a bomb, whatever its ratio (16 MiB: an almost
        /// empty collection packs very small).
        public var ratioFreeBytes = 16 * 1024 * 1024

        /// The default limits.
        public init() {}

        /// `512 MiB`, `16 KiB`, `300 bytes`.
        static func describe(bytes: Int) -> String {
            if bytes >= 1024 * 1024 { return "\(bytes / (1024 * 1024)) MiB" }
            if bytes >= 1024 { return "\(bytes / 1024) KiB" }
            return "\(bytes) bytes"
        }
    }

    /// The collection file read (`collection.anki21b` ...).
    public var collectionName: String
    /// Its schema version (11 for the legacy layout, 18 for current Anki).
    public var schema: Int
    /// The notes that have a term, oldest first.
    public var notes: [Note]
    /// `[sound:...]`, `<img>`, `<audio>` and `<video>` references left out of the words.
    public var droppedMediaReferences: Int
    /// Notes left out because their term field holds no text (an image only, say).
    public var notesWithoutTerm: Int

    /// The rows, in note order.
    public var rows: [SheetRow] { notes.map(\.row) }
}

// MARK: - Reading

extension AnkiPackage {
    /// The collection names a package may hold, the one to read first.
    static let collectionNames = ["collection.anki21b", "collection.anki21", "collection.anki2"]

    /// True when the zip at `path` holds an Anki collection (how `ImportFormat.detect`
    /// recognises a package by its content); a file that is no readable zip throws.
    static func holdsCollection(at path: String) throws(AnkiPackageError) -> Bool {
        let zip = try AnkiZip(path: path)
        return collectionNames.contains { zip.entry(named: $0) != nil }
    }

    /// Reads the package at `path`.
    ///
    /// `fields` lists choices of the term's field and the meaning's (names compared
    /// ignoring case, as Anki does): each note type takes the first choice whose fields it
    /// has, and a note type with notes that fits none is an error. Empty takes the first
    /// two fields of each note type. Every other non-empty
    /// field goes to the notes as `Name: value`. HTML becomes text as in the plain-text
    /// import; media references are dropped and counted. Each deck of a note's cards
    /// becomes a tag (`AnkiPackage.tag(deck:)`), after the note's own tags.
    /// The collection is unpacked into a private folder in `temporaryFolder` (the system's
    /// temporary folder by default), removed before this returns or throws.
    public static func read(
        from path: String, fields: [[String]] = [], limits: Limits = Limits(), temporaryFolder: String? = nil
    ) throws(AnkiPackageError) -> AnkiPackage {
        let words = try Words(from: path, fields: fields, limits: limits, temporaryFolder: temporaryFolder)
        var notes: [Note] = []
        do {
            try words.forEachNote { notes.append($0) }
        } catch let error as AnkiPackageError {
            throw error
        } catch {
            throw AnkiPackageError("\(words.collectionName) inside the package cannot be read (\(error))")
        }
        return AnkiPackage(
            collectionName: words.collectionName, schema: words.schema, notes: notes,
            droppedMediaReferences: words.droppedMediaReferences, notesWithoutTerm: words.notesWithoutTerm)
    }

    /// The words of a package, read from its collection one note at a time: what an
    /// import writes while it reads (a package of 300,000 notes read whole took 290 MB).
    ///
    /// Made as `read` describes; the unpacked collection stays in its private temporary
    /// folder until this is released.
    final class Words: ImportedRows, @unchecked Sendable {
        /// The collection file read (`collection.anki21b` ...).
        let collectionName: String
        /// Its schema version.
        let schema: Int
        /// How many notes the collection holds (those without a term included).
        let estimatedRows: Int
        /// Media references left out of the notes read so far.
        private(set) var droppedMediaReferences = 0
        /// Notes without a term left out so far.
        private(set) var notesWithoutTerm = 0
        /// Notes left out so far because they cannot be a word (a field past its limit:
        /// a Cloze paragraph as the term, a long explanation), and why the first one was.
        private(set) var notesOverLimit = 0
        private(set) var firstNoteOverLimit: String?
        private let package: String
        private let fields: [[String]]
        private let folder: String
        private let collection: AnkiCollection

        /// Unpacks the collection of the package at `path` and opens it.
        init(from path: String, fields: [[String]], limits: Limits, temporaryFolder: String?) throws(AnkiPackageError) {
            let zip = try AnkiZip(path: path)
            try checkVersion(zip)
            guard let entry = collectionNames.lazy.compactMap({ zip.entry(named: $0) }).first else {
                throw AnkiPackageError(
                    "the zip holds no Anki collection (collection.anki2, collection.anki21 or collection.anki21b), "
                        + "so it is not an Anki package")
            }
            folder = try makePrivateTemporaryFolder(in: temporaryFolder)
            do {
                let copy = folder + "/collection.sqlite"
                try AnkiCollectionExtraction(zip: zip, entry: entry, zstdCompressed: entry.name.hasSuffix("b"), limits: limits)
                    .write(to: copy)
                collection = try AnkiCollection(path: copy, name: entry.name)
            } catch {
                try? FileManager.default.removeItem(atPath: folder)
                throw error
            }
            collectionName = entry.name
            schema = Int(collection.schema)
            estimatedRows = collection.noteCount
            package = path
            self.fields = fields
        }

        deinit { removeUnpacked() }

        /// Removes the unpacked collection, once nothing reads it any more: an import calls
        /// it as it ends. Left to `deinit` alone, a process that ended while its reading
        /// thread still held this (a refused import, a dry run) left a copy of the person's
        /// whole collection in the temporary folder (round 14A). SQLite may leave a journal
        /// beside the collection: the whole folder goes.
        func removeUnpacked() {
            try? FileManager.default.removeItem(atPath: folder)
        }

        /// Hands each note that has a term to `body` as a word, oldest first; notes
        /// without a term and media references are counted and left out. A problem with
        /// the collection throws `AnkiPackageError`.
        func forEachNote(_ body: (Note) throws -> Void) throws {
            var chosenFields: [Int64: (term: Int, meaning: Int?)] = [:]
            try collection.forEachNote { note in
                guard let type = collection.noteTypes[note.typeID] else {
                    throw AnkiPackageError(
                        "\(collectionName): note \(note.id) has a note type (\(note.typeID)) the collection does not define")
                }
                let chosen: (term: Int, meaning: Int?)
                if let known = chosenFields[note.typeID] {
                    chosen = known
                } else {
                    chosen = try choose(fields, in: type)
                    chosenFields[note.typeID] = chosen
                }

                var texts: [String] = []
                for field in note.fields {
                    let (text, dropped) = plainText(ofField: field)
                    texts.append(text)
                    droppedMediaReferences += dropped
                }
                func value(_ ordinal: Int?) -> String { ordinal.map { $0 < texts.count ? texts[$0] : "" } ?? "" }

                let term = value(chosen.term)
                guard !term.isEmpty else {
                    notesWithoutTerm += 1
                    return
                }
                var noteLines: [String] = []
                for (ordinal, text) in texts.enumerated() where ordinal != chosen.term && ordinal != chosen.meaning && !text.isEmpty {
                    let label = ordinal < type.fields.count ? type.fields[ordinal] : "Field \(ordinal + 1)"
                    noteLines.append("\(label): \(text)")
                }
                var tags = note.tags.map(shortened)
                for deckID in note.deckIDs {
                    if let deck = collection.decks[deckID], let tag = tag(deck: deck, id: deckID) { tags.append(tag) }
                }
                let row = SheetRow(term: term, meaning: value(chosen.meaning), notes: noteLines.joined(separator: "\n"), tags: tags)
                // A note no word can hold is left out and counted, as one without a term is:
                // the person cannot edit a shared deck, and the one note refused it whole
                // (found by the exploratory helper, round 14A).
                do {
                    _ = try WordContent(term: row.term, meaning: row.meaning, notes: row.notes, tags: row.tags)
                        .validated(tagLimit: WordLimits.heldTagCount)
                } catch {
                    notesOverLimit += 1
                    if firstNoteOverLimit == nil {
                        let shown = term.count > 40 ? String(term.prefix(40)) + "…" : term
                        firstNoteOverLimit = "note \(note.id), \u{201C}\(shown)\u{201D}: \(error)"
                    }
                    return
                }
                try body(Note(id: note.id, row: row))
            }
        }

        /// Each note's word (`forEachNote`); a problem with the package is an import error
        /// about its file.
        func forEachRow(_ body: (SheetRow) throws -> Void) throws {
            do {
                try forEachNote { try body($0.row) }
            } catch let error as AnkiPackageError {
                throw LibraryError.invalidImport(file: package, line: nil, message: error.message)
            }
        }
    }

    /// Refuses a package whose `meta` entry (current Anki) announces a layout newer than
    /// the three this reader knows. `meta` is a protocol buffer whose field 1 is the version.
    private static func checkVersion(_ zip: AnkiZip) throws(AnkiPackageError) {
        guard let entry = zip.entry(named: "meta") else { return }
        var bytes: [UInt8] = []
        try zip.read(entry) { (chunk) throws(AnkiPackageError) in
            guard bytes.count + chunk.count <= 1024 else { throw AnkiPackageError("the package's meta entry is too large to be Anki's") }
            bytes += chunk
        }
        // Field 1, varint: key byte 0x08, then the version (1 legacy, 2 legacy 2, 3 latest).
        guard bytes.count >= 2, bytes[0] == 0x08 else { return }
        let version = bytes[1]
        guard version & 0x80 == 0, version <= 3 else {
            throw AnkiPackageError("the package was written by a newer Anki, in a layout MiDiccio does not know yet")
        }
    }

    // MARK: - Notes to words

    /// The ordinals of the term's and the meaning's fields in `type`.
    private static func choose(
        _ choices: [[String]], in type: AnkiCollection.NoteType
    ) throws(AnkiPackageError) -> (term: Int, meaning: Int?) {
        guard !choices.isEmpty else { return (0, type.fields.count > 1 ? 1 : nil) }
        for names in choices where !names.isEmpty {
            let ordinals = names.compactMap { name in type.fields.firstIndex { $0.lowercased() == name.lowercased() } }
            if ordinals.count == names.count { return (ordinals[0], ordinals.count > 1 ? ordinals[1] : nil) }
        }
        let asked = choices.map { $0.joined(separator: ",") }.joined(separator: " or ")
        throw AnkiPackageError(
            "note type \"\(type.name)\" has no fields \(asked) (its fields: \(type.fields.joined(separator: ", "))); "
                + "add a --fields for it, or leave --fields out to take the first two fields of each note type")
    }

    /// A field's text: media references out (counted), then HTML to text as the
    /// plain-text import does it.
    static func plainText(ofField field: String) -> (text: String, droppedMedia: Int) {
        // Most fields hold neither `[` nor `<`, so no media reference: the searches below go
        // through a string search, which was a quarter of an import's time.
        var hasBracket = false
        var hasTag = false
        for byte in field.utf8 {
            if byte == UInt8(ascii: "[") { hasBracket = true } else if byte == UInt8(ascii: "<") { hasTag = true }
        }
        guard hasBracket || hasTag else { return (WordSheet.plainText(fromHTML: field), 0) }
        var dropped = 0
        var rest = Substring(field)
        var kept = ""
        while hasBracket, let start = rest.firstRange(of: "[sound:") {
            guard let end = rest[start.upperBound...].firstIndex(of: "]") else { break }
            kept += rest[..<start.lowerBound]
            rest = rest[rest.index(after: end)...]
            dropped += 1
        }
        kept += rest
        // The tags themselves vanish in the HTML conversion; here they are only counted.
        let lowered = hasTag ? kept.lowercased() : ""
        for tag in ["<img", "<audio", "<video"] where hasTag {
            var search = lowered[...]
            while let found = search.firstRange(of: tag) {
                let next = search[found.upperBound...].first
                if next == nil || next == ">" || next == "/" || next!.isWhitespace { dropped += 1 }
                search = search[found.upperBound...]
            }
        }
        return (WordSheet.plainText(fromHTML: kept), dropped)
    }

    /// The tag a deck gives its words: its full name with `::` kept between the parts
    /// (`Spanish::Verbs`, the form Anki uses for nested tags too), spaces made `_`. Anki's
    /// own deck, Default (id 1), gives none: it says nothing about the words.
    static func tag(deck parts: [String], id: Int64) -> String? {
        if id == 1 && parts == ["Default"] { return nil }
        let cleaned = parts.map { part in
            String(part.split(whereSeparator: { $0.isWhitespace }).joined(separator: "_"))
        }.filter { !$0.isEmpty }
        guard !cleaned.isEmpty else { return nil }
        return shortened(cleaned.joined(separator: "::"))
    }

    /// A tag longer than MiDiccio's limit keeps its first `::` part (the top deck, often
    /// the language) and its last parts that fit (the most specific ones), `…` between
    /// them: `French::…::Irregular_verbs`. When not even the first and the last fit, its
    /// first characters and 8 hexadecimal digits of the whole tag, so two long tags never
    /// become one. Keeping the last parts alone made `French::…` and `Spanish::…` decks with
    /// the same long tail one tag, their language gone (found by the exploratory helper,
    /// round 11).
    static func shortened(_ tag: String) -> String {
        let limit = WordLimits.tagLength
        guard tag.count > limit else { return tag }
        let parts = tag.components(separatedBy: "::")
        // Two parts that do not fit together do not fit with `…` between them either.
        if parts.count > 2 {
            var last: [String] = []
            for part in parts.dropFirst().reversed() {
                let candidate = ([parts[0], "…"] + [part] + last).joined(separator: "::")
                guard candidate.count <= limit else { break }
                last.insert(part, at: 0)
            }
            if !last.isEmpty { return ([parts[0], "…"] + last).joined(separator: "::") }
        }
        return String(tag.prefix(limit - 9)) + "~" + FNV1a.hash(tag.utf8).sixteenHexDigits.prefix(8)
    }
}
