import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// A Kindle or KOReader look-up is tagged with its book's title, cut to a tag's 64
/// characters: the two volumes of one edition became one tag (round 14A).
@Suite("Two books whose long titles start alike get two tags")
struct TwoBooksWhoseLongTitlesStartAlikeGetTwoTagsTests {
    @Test("a title longer than a tag keeps its start and a short hash of the whole; a short one is as before")
    func longTitles() {
        let first = KindleVocabulary.tagText("The Complete Works of William Shakespeare Annotated Edition Volume One: Comedies")
        let second = KindleVocabulary.tagText("The Complete Works of William Shakespeare Annotated Edition Volume Two: Tragedies")
        #expect(first != second)
        for tag in [first, second] {
            #expect(tag.count == WordLimits.tagLength, "\(tag)")
            #expect(tag.hasPrefix("The-Complete-Works-of-William-Shakespeare-Annotated-Edi~"), "\(tag)")
            #expect(!tag.contains(" "))
        }
        // The same title gives the same tag on every import and every device.
        #expect(first == KindleVocabulary.tagText("The Complete Works of William Shakespeare Annotated Edition Volume One: Comedies"))
        #expect(KindleVocabulary.tagText("Moby  Dick\n") == "Moby-Dick")
        let exactly = String(repeating: "a", count: WordLimits.tagLength)
        #expect(KindleVocabulary.tagText(exactly) == exactly)
    }
}
