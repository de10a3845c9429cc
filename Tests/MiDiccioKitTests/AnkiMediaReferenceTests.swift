import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary

@Suite("Media in Anki notes")
struct AnkiMediaReferenceTests {
    @Test(
        "sounds, images, audio and video are left out of the text and counted",
        arguments: [
            ("to speak[sound:hablar.mp3]", "to speak", 1),
            ("<img src=\"a.jpg\"> dog <IMG SRC='b.png'/>", "dog", 2),
            ("[sound:a.mp3][sound:b.ogg] two", "two", 2),
            ("<audio controls src=\"x.ogg\"></audio>listen<video src=\"y.mp4\">", "listen", 2),
            ("<b>bold</b> &amp; plain", "bold & plain", 0),
            ("[sound: never closed", "[sound: never closed", 0),
            ("<imgur>not an image</imgur>", "not an image", 0),
        ])
    func mediaReferences(field: String, text: String, dropped: Int) {
        let result = AnkiPackage.plainText(ofField: field)
        #expect(result.text == text)
        #expect(result.droppedMedia == dropped)
    }

    @Test("the import reports how many media references it left out")
    func reported() throws {
        try withTemporaryLibrary { temporary in
            let report = try temporary.library.importWords(from: ankiFixture("words.apkg"))
            // [sound:hablar.mp3], <img src="casa.jpg">, <img src="inu.jpg"> and [sound:inu.mp3].
            #expect(report.droppedMediaReferences == 4)
        }
    }
}
