import CCollation
import MiDiccioStore

/// The text the search index holds, and the words of a query, in one form: every field
/// folded as a term's key is (`TermKey.fold`: case, accents and marks of every script,
/// invisible characters, compatibility forms, letters with a stroke), with each ideograph
/// and kana on its own. The index is contentless: it holds this text's words only, fed
/// from Swift (`fold`, a word at a time) and from SQL (`midiccio_search_text`, in bulk),
/// which give the same text; FTS5's own tokenizer (unicode61) splits it into words.
///
/// Before, the index took each field as written and unicode61 removed the accents of
/// Latin letters only: "ανθρωπος" did not find "ο άνθρωπος", nor "елка" "ёлка", nor a
/// word holding a soft hyphen the same word without it, nor 試験 "日本語能力試験".
enum SearchText {
    /// `text` as the search index takes it. Plain ASCII text is as it is: the tokenizer
    /// folds its case.
    static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        // From the UTF-8 as it is, a character at a time, as `midiccio_search_text` makes
        // it (a change of a word's tags folds its six fields twice: through UTF-16 that
        // was most of a tag put on 10,000 words); else through UTF-16 and ICU.
        var text = text
        let fast: String? = text.withUTF8 { bytes in
            var length: Int32 = 0
            guard let folded = midiccio_search_fold_utf8(bytes.baseAddress, Int32(bytes.count), &length) else { return nil }
            defer { midiccio_free(folded) }
            return String(decoding: UnsafeBufferPointer(start: folded, count: Int(length)), as: UTF8.self)
        }
        return fast ?? TermKey.folded(text, by: midiccio_search_fold) ?? text
    }

    /// The search index's columns, in its order, as SQL over a row of `words`: what
    /// `WordLibrary.searchValues` gives for the row's word (examples and tags as their
    /// JSON text; the tokenizer drops its punctuation).
    static let columns = ["term", "reading", "meaning", "examples", "notes", "tags"]
        .map { "midiccio_search_text(\($0))" }.joined(separator: ", ")

    /// Defines `midiccio_search_text(text)`, the same fold in SQL, on `database`.
    static func define(on database: Database) throws {
        let code = midiccio_define_search_text(database.handle)
        guard code == 0 else { throw SQLiteError(code: code, message: "midiccio_search_text could not be defined") }
    }
}
