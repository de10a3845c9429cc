import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Anki plain-text export import")
struct AnkiTextImportTests {
    // MARK: - Realistic exports

    @Test("a tab-separated HTML export with a tags column becomes plain rows")
    func tabSeparatedHTMLExport() throws {
        let text = """
            #separator:tab
            #html:true
            #tags column:3
            <b>perro</b>\tdog<br>hound\tanimals spanish::a1
            gato\tcat&nbsp;&amp;&nbsp;kitten\tanimals
            "<div>casa</div>"\t"<div>house</div><div>home &lt;3</div>"\tplaces
            caf&#233;\tcoffee &#x2615; &quot;to go&quot; &#39;n&apos; more\t

            """
        let rows = try WordSheet.read(text, format: nil)
        #expect(
            rows == [
                SheetRow(line: 4, term: "perro", meaning: "dog\nhound", tags: ["animals", "spanish::a1"]),
                SheetRow(line: 5, term: "gato", meaning: "cat & kitten", tags: ["animals"]),
                SheetRow(line: 6, term: "casa", meaning: "house\nhome <3", tags: ["places"]),
                SheetRow(line: 7, term: "café", meaning: "coffee ☕ \"to go\" 'n' more"),
            ])
    }

    @Test("an HTML export leaves sounds out of the words; a note of an image alone is refused with the way out")
    func mediaInAnHTMLExport() throws {
        let text = """
            #separator:tab
            #html:true
            perro [sound:perro.mp3]\tdog<img src="dog.jpg">

            """
        #expect(try WordSheet.read(text, format: nil) == [SheetRow(line: 3, term: "perro", meaning: "dog")])
        let imageOnly = """
            #separator:tab
            #html:true
            gato\tcat
            <img src="cat.jpg">\tcat picture

            """
        #expect {
            try WordSheet.read(imageOnly, format: nil)
        } throws: { error in
            "\(error)".contains("line 4: term is empty once its HTML is read as text (an image or a sound only)")
                && "\(error)".contains("Anki package (.apkg)")
        }
    }

    @Test("a comma-separated export with quoted fields keeps commas and quotes")
    func commaSeparatedExport() throws {
        // Raw string, because the doubled quotes would otherwise end the literal.
        let text = #"""
            #separator:Comma
            #html:false
            "hola, amigo","hello, friend",greetings
            "dijo ""sí""","said ""yes""",
            a<b>b</b>,&amp;,"multi
            line"

            """#
        let rows = try WordSheet.read(text, format: nil)
        #expect(
            rows == [
                SheetRow(line: 3, term: "hola, amigo", meaning: "hello, friend", notes: "greetings"),
                SheetRow(line: 4, term: "dijo \"sí\"", meaning: "said \"yes\""),
                SheetRow(line: 5, term: "a<b>b</b>", meaning: "&amp;", notes: "multi\nline"),
            ])
    }

    @Test("named columns map by synonym and unknown ones become labelled notes")
    func namedColumns() throws {
        let text = """
            #separator:tab
            #html:false
            #columns:Word\tDefinition\tKana\tSentence\tPart of speech\tExtra\tTags
            食べる\tto eat\tたべる\t毎日ご飯を食べる。\tverb\tIchidan\tjlpt5 verbs
            飲む\tto drink\tのむ\t\t\t\t

            """
        let rows = try WordSheet.read(text, format: nil)
        #expect(
            rows == [
                SheetRow(
                    line: 4,
                    term: "食べる",
                    meaning: "to eat",
                    reading: "たべる",
                    examples: ["毎日ご飯を食べる。"],
                    notes: "Part of speech: verb\nIchidan",
                    tags: ["jlpt5", "verbs"]
                ),
                SheetRow(line: 5, term: "飲む", meaning: "to drink", reading: "のむ"),
            ])
    }

    @Test("guid, notetype and deck columns are ignored and the rest map in order")
    func specialColumnsIgnored() throws {
        let text = """
            #separator:tab
            #html:true
            #guid column:1
            #notetype column:2
            #deck column:3
            #tags column:6
            Xy7!a`bC\tBasic (and reversed card)\tSpanish::Animals\tel perro\tthe dog\tanimals leech\tbarks<br>a lot
            q:Zp3^k\tBasic\tSpanish\tel gato\tthe cat\t\t

            """
        let rows = try WordSheet.read(text, format: nil)
        #expect(
            rows == [
                SheetRow(line: 7, term: "el perro", meaning: "the dog", notes: "barks\na lot", tags: ["animals", "leech"]),
                SheetRow(line: 8, term: "el gato", meaning: "the cat"),
            ])
    }

    // MARK: - Header lines

    @Test(
        "every documented separator name and a literal character are understood",
        arguments: [
            ("tab", "\t"), ("Tab", "\t"), ("Comma", ","), ("comma", ","), ("Semicolon", ";"),
            ("Space", " "), ("Pipe", "|"), ("Colon", ":"), ("/", "/"), ("\t", "\t"),
        ]
    )
    func separatorNames(name: String, separator: String) throws {
        let text = "#separator:\(name)\nuno\(separator)one\(separator)extra\n"
        let rows = try WordSheet.read(text, format: nil)
        #expect(rows == [SheetRow(line: 2, term: "uno", meaning: "one", notes: "extra")])
    }

    @Test("an unusable separator is an error on its header line")
    func badSeparator() {
        let error = #expect(throws: SheetError.self) {
            try WordSheet.read("#html:false\n#separator:Hash\nuno\tone\n", format: nil)
        }
        #expect(error?.line == 2)
        #expect(error?.message.hasPrefix("unsupported #separator \"Hash\"") == true)
    }

    @Test("a bad column number or html flag is an error on its header line")
    func badHeaderValues() {
        #expect(throws: SheetError(line: 2, message: "#tags column must be a column number starting at 1, not \"0\"")) {
            try WordSheet.read("#separator:tab\n#tags column:0\nuno\tone\n", format: nil)
        }
        #expect(throws: SheetError(line: 1, message: "#html must be true or false, not \"yes\"")) {
            try WordSheet.read("#html:yes\nuno\tone\n", format: nil)
        }
    }

    @Test("unknown header keys are ignored and the default separator is tab")
    func defaultsAndUnknownKeys() throws {
        let text = "\u{FEFF}\n#notetype:Basic\n#deck:Spanish\n#if matches:update current\nuno\tone, more\n"
        let rows = try WordSheet.read(text, format: nil)
        #expect(rows == [SheetRow(line: 5, term: "uno", meaning: "one, more")])
    }

    @Test("an explicit format still honours Anki headers", arguments: SheetFormat.allCases)
    func explicitFormatHonoursHeaders(format: SheetFormat) throws {
        let text = "#separator:Semicolon\n#html:true\nuno;<i>one</i>\n"
        let rows = try WordSheet.read(text, format: format)
        #expect(rows == [SheetRow(line: 3, term: "uno", meaning: "one")])
    }

    @Test("without #separator an explicit format supplies the separator")
    func explicitFormatSuppliesSeparator() throws {
        let rows = try WordSheet.read("#html:false\nuno,one\tstill one\n", format: .csv)
        #expect(rows == [SheetRow(line: 2, term: "uno", meaning: "one\tstill one")])
    }

    @Test("a first line starting with # but not shaped like #key:value is not an Anki header")
    func hashWithoutKeyValue() {
        let error = #expect(throws: SheetError.self) {
            try WordSheet.read("#1 fan: me\nuno\tone\n", format: nil)
        }
        #expect(error?.message.hasPrefix("expected a header row") == true)
    }

    // MARK: - Rows

    @Test("positional columns after the first two are appended to notes, one per line")
    func positionalExtras() throws {
        let text = "#separator:Pipe\nuno|one| first extra ||second extra\n"
        let rows = try WordSheet.read(text, format: nil)
        #expect(rows.first?.notes == "first extra\nsecond extra")
    }

    @Test("a second column naming the term is kept as a labelled note")
    func duplicateNamedTerm() throws {
        let text = "#separator:tab\n#columns:Front\tBack\tWord\nuno\tone\tun\n"
        let rows = try WordSheet.read(text, format: nil)
        #expect(rows == [SheetRow(line: 3, term: "uno", meaning: "one", notes: "Word: un")])
    }

    @Test("a tag longer than MiDiccio's limit is shortened as an Anki package's is, not a refusal of the file")
    func longTagShortened() throws {
        let long = "Languages::French::Grammar_and_usage::Verbs::Irregular_verbs_of_the_first_conjugation"
        let text = "#separator:tab\n#html:false\n#tags column:3\nuno\tone\t\(long) verbs\n"
        let rows = try WordSheet.read(text, format: nil)
        #expect(rows.map(\.tags) == [[AnkiPackage.shortened(long), "verbs"]])
        #expect(AnkiPackage.shortened(long).count <= WordLimits.tagLength)
    }

    @Test("a note with an empty term is an error naming its line")
    func emptyTerm() {
        let text = "#separator:tab\n#html:true\nuno\tone\n\n<br>\tsomething\n"
        #expect(throws: SheetError(line: 5, message: "term is empty")) {
            try WordSheet.read(text, format: nil)
        }
    }

    @Test("an unterminated quote in an Anki export reports the line it opened on")
    func unterminatedQuote() {
        let text = "#separator:Comma\nuno,one\ndos,\"two\n"
        #expect(throws: SheetError(line: 3, message: "unterminated quoted field")) {
            try WordSheet.read(text, format: nil)
        }
    }

    // MARK: - HTML

    @Test(
        "HTML is reduced to plain text with line breaks",
        arguments: [
            ("a<br>b<BR/>c<br />d", "a\nb\nc\nd"),
            ("<p>one</p><p>two</p>", "one\ntwo"),
            ("first<div>second</div>", "first\nsecond"),
            ("a<br><br>b", "a\n\nb"),
            ("<span style=\"color: red\">red</span> <!-- note -->wine", "red wine"),
            ("a < b &unknown; &#0; & c", "a < b &unknown; &#0; & c"),
            ("&lt;b&gt;literal&lt;/b&gt;", "<b>literal</b>"),
            ("&nbsp;spaced&nbsp;", "spaced"),
            ("e&#769; &#X1F600;", "e\u{301} 😀"),
            // Named entities of Latin-1 and typography (round 11: they stayed as written).
            ("caf&eacute; &mdash; l&rsquo;eau &iexcl;s&iacute;! &yuml; &euro;", "café — l’eau ¡sí! ÿ €"),
            // Other blocks break the line; cells are parted; a ruby's reading in brackets.
            ("<ul><li>to go</li><li>to leave</li></ul>", "to go\nto leave"),
            ("<h1>ir</h1>to go<hr>irse", "ir\nto go\nirse"),
            ("<table><tr><td>yo</td><td>voy</td></tr><tr><td>tú</td><td>vas</td></tr></table>", "yo voy\ntú vas"),
            ("<ruby>漢字<rt>かんじ</rt></ruby>", "漢字(かんじ)"),
            ("<ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp></ruby>", "漢(かん)"),
            // The text of a style sheet or a script is no word.
            ("<style>.card { color: red }</style>rojo<script>alert(1)</script>", "rojo"),
            ("<STYLE>never closed", ""),
        ]
    )
    func htmlToPlainText(html: String, plain: String) {
        #expect(Array(WordSheet.plainText(fromHTML: html).unicodeScalars) == Array(plain.unicodeScalars))
    }
}
