import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioFiles
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// The WebDAV password lives in a file beside the library that only its owner can read,
/// never in the library, and never appears in a message, a description or a URL.
@Suite("WebDAV credentials are private to their owner and never shown")
struct WebDAVCredentialsTests {
    static let secret = "s3cr3t-Pässwörd-\(UUID().uuidString)"

    /// The temporary library with a WebDAV remote for "ana" and `secret` stored for it.
    static func withStoredPassword(_ temporary: TemporaryLibrary) throws -> (WordLibrary, WebDAVAddress) {
        let library = temporary.library
        let address = try WebDAVAddress.parse("https://cloud.example.com/dav/MiDiccio").address
        try library.setRemote(.webdav(url: address.description, user: "ana"))
        try library.storeWebDAVPassword(Self.secret, for: address, user: "ana")
        return (library, address)
    }

    @Test("the credentials file is created with mode 0600, and replacing a file someone opened up makes it private again")
    func fileMode() throws {
        try withTemporaryLibrary { temporary in
            let (library, address) = try Self.withStoredPassword(temporary)
            #expect(library.credentialsPath == library.path + ".credentials")
            #expect(WebDAVCredentials.permissions(of: library.credentialsPath) == 0o600)

            // A file someone opened up is replaced by a private one.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: library.credentialsPath)
            try library.storeWebDAVPassword(Self.secret + "2", for: address, user: "ana")
            #expect(WebDAVCredentials.permissions(of: library.credentialsPath) == 0o600)
            #expect(try WebDAVCredentials.load(from: library.credentialsPath)?.password == Self.secret + "2")
            // No temporary file is left beside it.
            let siblings = try FileManager.default.contentsOfDirectory(atPath: temporary.directory.path)
            #expect(!siblings.contains { $0.hasSuffix(".tmp") })
        }
    }

    @Test("a secret file found readable by others (copied without its mode) is made private when it is read")
    func looseFileIsMadePrivate() throws {
        try withTemporaryLibrary { temporary in
            let (library, _) = try Self.withStoredPassword(temporary)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: library.credentialsPath)
            #expect(try WebDAVCredentials.load(from: library.credentialsPath)?.password == Self.secret)
            #expect(WebDAVCredentials.permissions(of: library.credentialsPath) == 0o600)

            // The reading the web app's token and the Drive and iCloud sign-in files go through.
            let token = temporary.directory.appendingPathComponent("library.sqlite.serve-token").path
            try Data("abcdefghijklmnopqrstuvwx\n".utf8).write(to: URL(fileURLWithPath: token))
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: token)
            _ = try FileSystem.secretContentsIfPresent(token)
            #expect(WebDAVCredentials.permissions(of: token) == 0o600)
        }
    }

    @Test("the password is never in the library file, only in the credentials file")
    func notInLibrary() throws {
        try withTemporaryLibrary { temporary in
            let (library, _) = try Self.withStoredPassword(temporary)
            _ = try library.add(WordContent(term: "palabra"))
            let bytes = try Data(contentsOf: URL(fileURLWithPath: library.path))
            let wal = (try? Data(contentsOf: URL(fileURLWithPath: library.path + "-wal"))) ?? Data()
            for data in [bytes, wal] { #expect(data.range(of: Data(Self.secret.utf8)) == nil) }
            #expect(try library.remote() == .webdav(url: "https://cloud.example.com/dav/MiDiccio", user: "ana"))
        }
    }

    @Test("the stored password is used for its own address only, and MIDICCIO_WEBDAV_PASSWORD overrides it")
    func whichPassword() throws {
        try withTemporaryLibrary { temporary in
            let (library, address) = try Self.withStoredPassword(temporary)
            #expect(try RemoteConfig.webdavPassword(for: address, libraryPath: library.path, environment: [:]) == Self.secret)
            #expect(
                try RemoteConfig.webdavPassword(
                    for: address, libraryPath: library.path,
                    environment: ["MIDICCIO_WEBDAV_PASSWORD": "from-env"]) == "from-env")
            let other = try WebDAVAddress.parse("https://evil.example.net/dav/MiDiccio").address
            #expect(try RemoteConfig.webdavPassword(for: other, libraryPath: library.path, environment: [:]) == nil)
        }
    }

    @Test("moving the remote to another address or removing it deletes the stored password")
    func forgetOnChange() throws {
        try withTemporaryLibrary { temporary in
            let (library, address) = try Self.withStoredPassword(temporary)
            try library.setRemote(.webdav(url: address.description, user: "ana"))
            #expect(FileManager.default.fileExists(atPath: library.credentialsPath), "same address: kept")
            try library.setRemote(.webdav(url: "https://other.example.com/dav", user: "ana"))
            #expect(!FileManager.default.fileExists(atPath: library.credentialsPath))

            try library.storeWebDAVPassword(Self.secret, for: address, user: "ana")
            try library.setRemote(nil)
            #expect(!FileManager.default.fileExists(atPath: library.credentialsPath))
            try library.storeWebDAVPassword(Self.secret, for: address, user: "ana")
            try library.setRemote(.folder(path: temporary.file("cloud")))
            #expect(!FileManager.default.fileExists(atPath: library.credentialsPath))
        }
    }

    @Test("no description, dump, display name or error of a storage or remote holds the password")
    func neverShown() throws {
        let parsed = try WebDAVAddress.parse("https://ana:\(Self.secret)@cloud.example.com/dav/MiDiccio/")
        #expect(parsed.user == "ana" && parsed.password == Self.secret)
        #expect(parsed.address.description == "https://cloud.example.com/dav/MiDiccio")
        let storage = WebDAVStorage(address: parsed.address, user: "ana", password: Self.secret)
        let credentials = WebDAVCredentials(address: parsed.address.description, user: "ana", password: Self.secret)
        let remote = RemoteConfig.webdav(url: parsed.address.description, user: "ana")
        var dumps = ""
        dump(storage, to: &dumps)
        dump(credentials, to: &dumps)
        dump(parsed.address, to: &dumps)
        dump(remote, to: &dumps)
        let texts = [
            storage.displayName, storage.description, String(describing: storage), String(reflecting: storage),
            credentials.description, String(reflecting: credentials), remote.displayName, "\(remote)",
            String(reflecting: parsed.address), dumps,
        ]
        for text in texts {
            #expect(!text.contains(Self.secret), "\(text)")
        }
        #expect(storage.displayName == "webdav https://cloud.example.com/dav/MiDiccio")
    }

    @Test(
        "a wrong password's error, through a real server, holds neither password",
        .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
    func errorsHoldNoPassword() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("no-leak")
        let storage = server.storage(address, password: Self.secret)
        var messages: [String] = []
        for operation: () throws -> Void in [
            { _ = try storage.read("a") }, { try storage.write("devices/a.json", Data()) },
            { _ = try storage.list("devices") }, { try storage.delete("a") },
        ] {
            do {
                try operation()
                Issue.record("a wrong password was accepted")
            } catch {
                messages.append("\(error)")
                messages.append(String(reflecting: error))
                messages.append(error.localizedDescription)
            }
        }
        for message in messages {
            #expect(!message.contains(Self.secret) && !message.contains(server.password), "\(message)")
            #expect(!message.contains("Basic "), "\(message)")
        }
    }

    @Test(
        "only http and https URLs with a server name are accepted, each refusal saying why",
        arguments: [
            ("ftp://host/dav", "must start with https:// or http://"),
            ("file:///home/ana", "must start with https:// or http://"),
            ("cloud.example.com/dav", "not a URL"),
            ("https:///dav", "no server name"),
            ("https://host/dav?x=1", "query"),
            ("https://host/dav#top", "fragment"),
            ("", "empty"),
        ])
    func invalidAddresses(text: String, reason: String) {
        #expect {
            try WebDAVAddress.parse(text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    /// A folder named "Vocab #1" or "¿Qué?" was refused with no way on (round 20B #9).
    @Test(
        "a URL refused for a # or ? says how to write them as part of a folder's name, and that URL is taken",
        arguments: [
            ("https://nas.local/dav/Vocab #1", "https://nas.local/dav/Vocab %231"),
            ("https://nas.local/dav/¿Qué?/palabras", "https://nas.local/dav/¿Qué%3F/palabras"),
            ("https://ana:secret@nas.local/dav/Vocab #1", "https://nas.local/dav/Vocab %231"),
        ])
    func marksInAFolderName(text: String, meant: String) throws {
        #expect {
            try WebDAVAddress.parse(text)
        } throws: { error in
            "\(error)".contains("# as %23 and ? as %3F (\(meant))") && !"\(error)".contains("secret")
        }
        #expect(try WebDAVAddress.parse(meant).address.decodedPath.hasSuffix(text.hasSuffix("#1") ? "Vocab #1" : "¿Qué?/palabras"))
    }

    @Test(
        "valid addresses are kept with their port and path, without a trailing slash",
        arguments: [
            ("https://cloud.example.com/remote.php/dav/files/ana/MiDiccio/", "https://cloud.example.com/remote.php/dav/files/ana/MiDiccio"),
            ("HTTP://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("https://nas.local:5006/home/Mi%20Diccio", "https://nas.local:5006/home/Mi%20Diccio"),
        ])
    func validAddresses(text: String, expected: String) throws {
        #expect(try WebDAVAddress.parse(text).address.description == expected)
    }

    /// A browser's address bar shows `Mi%20Diccio/ñandú`: the escapes were escaped again
    /// (`Mi%2520Diccio`), and the sync made a second cloud in a folder of that name (round 13C).
    @Test(
        "a folder written raw, escaped, or as an address bar mixes them is one address",
        arguments: [
            "https://nas.local/dav/Mi Diccio/ñandú", "https://nas.local/dav/Mi%20Diccio/%C3%B1and%C3%BA",
            "https://nas.local/dav/Mi%20Diccio/ñandú", "https://nas.local/dav/Mi Diccio/%C3%B1and%C3%BA",
            "https://nas.local/dav/Mi%20Diccio/%c3%b1and%c3%ba",
        ])
    func mixedEscapes(text: String) throws {
        let address = try WebDAVAddress.parse(text).address
        #expect(address.decodedPath == "/dav/Mi Diccio/ñandú", "\(address)")
    }

    @Test("a % that begins no escape is a percent sign in the folder's name")
    func loneSign() throws {
        #expect(try WebDAVAddress.parse("https://nas.local/dav/100% mine").address.decodedPath == "/dav/100% mine")
    }
}
