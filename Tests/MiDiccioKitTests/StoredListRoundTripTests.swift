import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Examples and tags are stored as JSON arrays of strings and read back on every word
/// read; whatever is written must come back exactly, through the fast reader or not.
@Suite("Stored examples and tags come back exactly")
struct StoredListRoundTripTests {
    @Test(
        "an array written for the store reads back unchanged",
        arguments: [
            [String](), ["plain"], ["a", "b", "c"], ["with \"quotes\""], ["back\\slash"], ["tab\there"],
            ["line\nbreak", "carriage\rreturn"], ["control \u{01} char"], ["line separator \u{2028} here"],
            ["emoji 👩‍👩‍👧", "café", "猫"], ["", "empty first"], [",", "[", "]", "\""],
        ])
    func roundTrip(items: [String]) {
        #expect(JSONText.stringArray(JSONText.array(items)) == items)
    }

    @Test("the reader agrees with Foundation's JSON parser on what it writes")
    func agreesWithFoundation() throws {
        let items = ["a \"b\" c", "d\\e", "f\ng", "h\u{7}i", "ünï"]
        let text = JSONText.array(items)
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String]
        #expect(parsed == items)
        #expect(JSONText.stringArray(text) == items)
    }

    @Test("text that is not an array of strings reads as no items", arguments: ["", "[", "[1]", "{\"a\":1}", "[\"open"])
    func malformed(text: String) {
        #expect(JSONText.stringArray(text).isEmpty)
    }
}
