import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A listing of many files is read in one pass, by namespace and not by prefix; a
/// malformed or hostile PROPFIND answer is an error, never a crash.
@Suite("A PROPFIND answer is read by namespace, and a hostile one is an error, not a crash")
struct WebDAVListingParserTests {
    static let folder = "/dav/MiDiccio/devices"

    static func listing(_ responses: String, prefix: String = "D", namespace: String = "DAV:") -> Data {
        let p = prefix.isEmpty ? "" : prefix + ":"
        let declaration = prefix.isEmpty ? "xmlns=\"\(namespace)\"" : "xmlns:\(prefix)=\"\(namespace)\""
        return Data("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<\(p)multistatus \(declaration)>\(responses)</\(p)multistatus>".utf8)
    }

    static func response(_ href: String, size: Int? = 12, collection: Bool = false, prefix: String = "D") -> String {
        let p = prefix.isEmpty ? "" : prefix + ":"
        let type = collection ? "<\(p)resourcetype><\(p)collection/></\(p)resourcetype>" : "<\(p)resourcetype/>"
        let length = size.map { "<\(p)getcontentlength>\($0)</\(p)getcontentlength>" } ?? ""
        return "<\(p)response><\(p)href>\(href)</\(p)href><\(p)propstat><\(p)prop>\(type)\(length)</\(p)prop>"
            + "<\(p)status>HTTP/1.1 200 OK</\(p)status></\(p)propstat></\(p)response>"
    }

    static func files(_ data: Data, limits: WebDAVListing.Limits = .standard) throws -> [CloudEntry] {
        try WebDAVListing.files(in: data, folderPath: folder, limits: limits)
    }

    // MARK: - Well-formed answers

    @Test("a listing gives the files directly inside the folder with their sizes, without the folder itself or sub-folders")
    func readsFiles() throws {
        let data = Self.listing(
            Self.response("/dav/MiDiccio/devices/", size: 4096, collection: true)
                + Self.response("/dav/MiDiccio/devices/a.json", size: 120)
                + Self.response("/dav/MiDiccio/devices/b.json", size: 0)
                + Self.response("/dav/MiDiccio/devices/old/", collection: true))
        #expect(try Self.files(data) == [CloudEntry(name: "a.json", size: 120), CloudEntry(name: "b.json", size: 0)])
    }

    @Test("the same listing gives the names of the sub-folders directly inside, a collection or an href ending in a slash")
    func readsFolders() throws {
        let data = Self.listing(
            Self.response("/dav/MiDiccio/changes/", size: 4096, collection: true)
                + Self.response("/dav/MiDiccio/changes/a%20b/", collection: true)
                + Self.response("/dav/MiDiccio/changes/c", size: nil, collection: true)
                + Self.response("/dav/MiDiccio/changes/d/", size: nil)
                + Self.response("/dav/MiDiccio/changes/e.chg", size: 9)
                + Self.response("/dav/MiDiccio/other/f/", collection: true))
        let listing = try WebDAVListing.listing(in: data, folderPath: "/dav/MiDiccio/changes")
        #expect(listing.folders == ["a b", "c", "d"])
        #expect(listing.files == [CloudEntry(name: "e.chg", size: 9)])
    }

    @Test(
        "elements are matched by the DAV: namespace whatever their prefix, or with none",
        arguments: ["D", "d", "lp1", ""])
    func anyPrefix(prefix: String) throws {
        let data = Self.listing(Self.response("/dav/MiDiccio/devices/a.json", size: 7, prefix: prefix), prefix: prefix)
        #expect(try Self.files(data) == [CloudEntry(name: "a.json", size: 7)])
    }

    @Test("hrefs may be whole URLs and percent-encoded")
    func hrefForms() throws {
        let data = Self.listing(
            Self.response("https://cloud.example.com/dav/MiDiccio/devices/a%20b.json", size: 3)
                + Self.response("/dav/MiDiccio/devices/c%2Ejson", size: 4))
        #expect(try Self.files(data) == [CloudEntry(name: "a b.json", size: 3), CloudEntry(name: "c.json", size: 4)])
    }

    /// Behind a reverse proxy that maps `/dav/` to `/` without rewriting hrefs, or on a
    /// server that ignores case reached as `/dav/midiccio`, every listing read as empty
    /// and the devices never saw each other's files (round 13C).
    @Test(
        "a server that names the folder otherwise, its own entry listed, is taken at its word; other folders are not",
        arguments: ["/MiDiccio/devices", "/DAV/midiccio/Devices", "https://other.example/MiDiccio/devices"])
    func folderNamedOtherwise(base: String) throws {
        let data = Self.listing(
            Self.response(base + "/", size: 0, collection: true) + Self.response(base + "/a.json", size: 120)
                + Self.response(base + "/old/", collection: true) + Self.response("/elsewhere/devices/x.json"))
        #expect(try Self.files(data) == [CloudEntry(name: "a.json", size: 120)])
        #expect(try WebDAVListing.listing(in: data, folderPath: Self.folder).folders == ["old"])
    }

    @Test("a folder entry whose name is not the folder's own is not taken for it")
    func otherFolderNotTaken() throws {
        let data = Self.listing(Self.response("/dav/Other/", size: 0, collection: true) + Self.response("/dav/Other/a.json"))
        #expect(try Self.files(data).isEmpty)
    }

    @Test("entries with a failed status and entries outside the folder are left out")
    func skipsOthers() throws {
        let gone = "<D:response><D:href>/dav/MiDiccio/devices/gone.json</D:href><D:status>HTTP/1.1 404 Not Found</D:status></D:response>"
        let data = Self.listing(
            gone + Self.response("/elsewhere/x.json") + Self.response("/dav/MiDiccio/devices/deeper/y.json")
                + Self.response("/dav/MiDiccio/devices/ok.json", size: 1))
        #expect(try Self.files(data) == [CloudEntry(name: "ok.json", size: 1)])
    }

    @Test("a size reported in a failed propstat is ignored, and a missing size counts as 0")
    func sizeFromSuccessfulPropstatOnly() throws {
        let response =
            "<D:response><D:href>/dav/MiDiccio/devices/a.json</D:href>"
            + "<D:propstat><D:prop><D:resourcetype/></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>"
            + "<D:propstat><D:prop><D:getcontentlength>999</D:getcontentlength></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>"
            + "</D:response>"
        #expect(try Self.files(Self.listing(response)) == [CloudEntry(name: "a.json", size: 0)])
    }

    @Test("a listing of 20,000 files is read whole")
    func manyFiles() throws {
        let responses = (1...20_000).map { (index: Int) in Self.response("/dav/MiDiccio/devices/\(index).chg", size: index) }.joined()
        let entries = try Self.files(Self.listing(responses))
        #expect(entries.count == 20_000)
        #expect(entries.last == CloudEntry(name: "20000.chg", size: 20_000))
    }

    // MARK: - Hostile and broken answers

    @Test(
        "an answer that is not XML is an error",
        arguments: [
            "", "not xml at all", "{\"json\": true}", "<D:multistatus xmlns:D=\"DAV:\"><D:response>", "<?xml version=\"1.0\"?>",
            "<a><b></a></b>", "\u{0}\u{1}\u{2}binary",
        ])
    func notXML(text: String) {
        #expect(throws: WebDAVListingError.self) { try Self.files(Data(text.utf8)) }
    }

    @Test("elements in another namespace are not WebDAV's, whatever their prefix says")
    func wrongNamespace() {
        // The root is not DAV: multistatus.
        #expect(throws: WebDAVListingError.self) {
            try Self.files(Self.listing(Self.response("/dav/MiDiccio/devices/a.json"), namespace: "urn:not-dav"))
        }
        // A DAV: root whose entries use a "D:" prefix bound to another namespace: no
        // href in DAV:, so the entry is broken.
        let foreign = "<D:response xmlns:D=\"urn:evil\"><D:href>/dav/MiDiccio/devices/a.json</D:href></D:response>"
        let data = Data(
            "<x:multistatus xmlns:x=\"DAV:\"><x:response><D:href xmlns:D=\"urn:evil\">/dav/MiDiccio/devices/a.json</D:href><x:status>HTTP/1.1 200 OK</x:status></x:response>\(foreign)</x:multistatus>"
                .utf8)
        #expect(throws: WebDAVListingError.self) { try Self.files(data) }
    }

    @Test(
        "entries missing their fields are errors",
        arguments: [
            "<D:response><D:propstat><D:prop/><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>",
            "<D:response><D:href>/dav/MiDiccio/devices/a.json</D:href></D:response>",
            "<D:response><D:href>/dav/MiDiccio/devices/a.json</D:href><D:propstat><D:prop/></D:propstat></D:response>",
            "<D:response><D:href>/dav/MiDiccio/devices/a.json</D:href><D:href>/x</D:href><D:status>HTTP/1.1 200 OK</D:status></D:response>",
            "<D:response><D:href>/dav/MiDiccio/devices/a.json</D:href><D:propstat><D:prop><D:getcontentlength>-5</D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>",
            "<D:response><D:href>/dav/MiDiccio/devices/a.json</D:href><D:propstat><D:prop><D:getcontentlength>12kB</D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>",
            "<D:response><D:href>mailto:a@b</D:href><D:status>HTTP/1.1 200 OK</D:status></D:response>",
        ])
    func missingFields(response: String) {
        #expect(throws: WebDAVListingError.self) { try Self.files(Self.listing(response)) }
    }

    @Test("10,000 levels of nesting are refused at the depth limit without exhausting the stack")
    func deepNesting() {
        let depth = 10_000
        let text =
            "<D:multistatus xmlns:D=\"DAV:\">" + String(repeating: "<D:x>", count: depth)
            + String(repeating: "</D:x>", count: depth) + "</D:multistatus>"
        #expect(throws: WebDAVListingError(message: "the listing nests elements deeper than 64 levels")) {
            try Self.files(Data(text.utf8))
        }
    }

    @Test("an answer over the size limit is refused before it is parsed")
    func hugeAnswer() {
        var limits = WebDAVListing.Limits.standard
        limits.maxBytes = 1_048_576
        let responses = String(repeating: Self.response("/dav/MiDiccio/devices/a.json"), count: 10_000)
        #expect(throws: WebDAVListingError.self) { try Self.files(Self.listing(responses), limits: limits) }
    }

    @Test("more entries than the limit are refused")
    func tooManyEntries() {
        var limits = WebDAVListing.Limits.standard
        limits.maxEntries = 100
        let responses = (1...101).map { Self.response("/dav/MiDiccio/devices/\($0).chg") }.joined()
        #expect(throws: WebDAVListingError.self) { try Self.files(Self.listing(responses), limits: limits) }
    }

    @Test("a huge text inside one element is refused")
    func hugeText() {
        let href = "/dav/MiDiccio/devices/" + String(repeating: "a", count: 100_000)
        #expect(throws: WebDAVListingError.self) { try Self.files(Self.listing(Self.response(href))) }
    }

    @Test("a document type with entities (a 'billion laughs') is refused")
    func entityExpansion() {
        var text = "<?xml version=\"1.0\"?><!DOCTYPE m [<!ENTITY a \"aaaaaaaaaa\">"
        for level in 1...9 {
            text +=
                "<!ENTITY \(Character(UnicodeScalar(97 + level)!)) \""
                + String(repeating: "&\(Character(UnicodeScalar(96 + level)!));", count: 10) + "\">"
        }
        text += "]><D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>&j;</D:href></D:response></D:multistatus>"
        #expect(throws: WebDAVListingError.self) { try Self.files(Data(text.utf8)) }
    }

    @Test("text that is not UTF-8, or says it is in another encoding, is an error")
    func notUTF8() {
        var latin1 = [UInt8](Self.listing(Self.response("/dav/MiDiccio/devices/caf\u{E9}.json")))
        latin1 = latin1.flatMap { $0 == 0xC3 ? [] as [UInt8] : [$0 == 0xA9 ? 0xE9 : $0] }
        #expect(throws: WebDAVListingError.self) { try Self.files(Data(latin1)) }
        let declared = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><D:multistatus xmlns:D=\"DAV:\"></D:multistatus>".utf8)
        #expect(throws: WebDAVListingError.self) { try Self.files(declared) }
        let utf16 = Data("<D:multistatus xmlns:D=\"DAV:\"></D:multistatus>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(throws: WebDAVListingError.self) { try Self.files(utf16) }
    }

    @Test("a listing that stops before its end is an error, even where the XML library recovers")
    func truncated() throws {
        let whole = Self.listing(Self.response("/dav/MiDiccio/devices/a.json") + Self.response("/dav/MiDiccio/devices/b.json"))
        #expect(try Self.files(whole).count == 2)
        for length in stride(from: 40, to: whole.count - 1, by: 17) {
            #expect(throws: WebDAVListingError.self, "cut at \(length)") { try Self.files(whole.prefix(length)) }
        }
    }

    @Test("printable characters changed at random never crash the parser", arguments: 1...30)
    func randomText(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed) &* 7_919)
        let valid = Self.listing(
            Self.response("/dav/MiDiccio/devices/a.json") + Self.response("/dav/MiDiccio/devices/b/", collection: true))
        var bytes = [UInt8](valid)
        let alphabet = [UInt8]("<>/:=\"'&;!?#x D-_.0".utf8)
        for _ in 0..<(1 + seed % 6) {
            bytes[Int.random(in: 0..<bytes.count, using: &random)] = alphabet.randomElement(using: &random)!
        }
        _ = try? Self.files(Data(bytes))
    }

    @Test("random bytes never crash the parser", arguments: 1...20)
    func randomBytes(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed))
        let valid = Self.listing(Self.response("/dav/MiDiccio/devices/a.json"))
        var bytes = [UInt8](valid)
        for _ in 0..<(1 + seed % 8) {
            let index = Int.random(in: 0..<bytes.count, using: &random)
            bytes[index] = UInt8.random(in: 0...255, using: &random)
        }
        // Either outcome is fine; what matters is that it returns.
        _ = try? Self.files(Data(bytes))
    }
}
