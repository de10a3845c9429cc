import Foundation
import MiDiccioCLICore
import MiDiccioKit
import MiDiccioWeb

/// `midiccio remote set`
struct RemoteSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["remote", "set"],
        abstract: "Sync this library through a folder your cloud keeps in sync, a WebDAV server, Google Drive, or iCloud.",
        discussion: """
            KIND is 'folder', 'webdav', 'gdrive' or 'icloud'.
            folder: any folder that Dropbox, Google Drive for desktop, iCloud Drive, OneDrive, Nextcloud's client or
            Syncthing syncs, or a shared drive. MiDiccio keeps its files in LOCATION, a path.
            webdav: a folder on a WebDAV server (Nextcloud, ownCloud, Synology, a NAS ...). LOCATION is its https://
            (or http://) URL; the folder is made on the first sync if its parent exists. The password is read from
            standard input with --password-stdin and kept in LIBRARY.credentials, readable only by you, never in the
            library; MIDICCIO_WEBDAV_PASSWORD, when set, is used instead.
            gdrive: your own Google Drive, with no LOCATION. The files go to Drive's hidden app data folder, or with
            --folder NAME to a visible folder of that name. Libraries that sync to one place are one word list,
            merged: give each word list its own --folder (on iCloud, its own --zone). You sign in to Google in a
            browser (BROWSER names another program to open it with); with --no-browser, open the printed address on
            any device, then paste the address the browser ends on (http://127.0.0.1:PORT/?code=...; it does not
            load) back here. The OAuth client is yours (README, "Sync through Google Drive"): --client-id, else the
            one built in, else MIDICCIO_GDRIVE_CLIENT_ID; its secret comes from the first line of standard input with
            --client-secret-stdin (before a pasted address), else MIDICCIO_GDRIVE_CLIENT_SECRET. The sign-in is kept
            in LIBRARY.google-drive, readable only by you. Nothing changes here until Google has accepted it.
            icloud: your own iCloud, through CloudKit Web Services, with no LOCATION. The CloudKit container and its
            API token come from --container and --api-token, else MIDICCIO_ICLOUD_CONTAINER and
            MIDICCIO_ICLOUD_API_TOKEN, else the ones built in (README, "Sync through iCloud"); --environment is
            production unless told (or MIDICCIO_ICLOUD_ENVIRONMENT), --zone is MiDiccio unless told. You sign in
            with your Apple Account in a browser; Apple sends it back to the callback address, by default
            http://127.0.0.1:47297/icloud-callback (--callback-url or MIDICCIO_ICLOUD_CALLBACK_URL name another),
            where midiccio waits. That address must be the API token's "Sign-In Callback" in the CloudKit
            Console. With --no-browser, open the printed address on any device, then paste the address the
            browser ends on back here. Apple Accounts with Advanced Data Protection turned on cannot use iCloud
            from the web, so they cannot sync this way. The sign-in is kept in LIBRARY.icloud, readable only by
            you. Nothing changes here until iCloud has accepted it.
            """,
        examples: [
            "midiccio remote set folder ~/Dropbox/MiDiccio --device-name \"Ana's laptop\"",
            "printf '%s\\n' \"$PASSWORD\" | midiccio remote set webdav https://cloud.example.com/remote.php/dav/files/ana/MiDiccio --user ana --password-stdin",
            "midiccio remote set gdrive --client-id 1234-abc.apps.googleusercontent.com --client-secret-stdin < client-secret.txt",
            "midiccio remote set gdrive --folder MiDiccio --no-browser",
            "midiccio remote set icloud --container iCloud.app.midiccio --api-token TOKEN",
        ])

    /// The kinds of remote there are.
    enum Kind: String, CaseIterable, ExpressibleByArgument {
        case folder, webdav, gdrive, icloud

        static func refusal(of text: String, as shownName: String) -> String {
            "unknown remote kind '\(text)'; use: \(allCases.map(\.rawValue).joined(separator: ", "))"
        }
    }

    @Argument(name: "kind", help: "folder, webdav, gdrive or icloud") var kind: Kind
    @Argument(name: "location", help: "The folder's path, or the WebDAV folder's URL (none for gdrive and icloud).") var location: String?
    @Option(name: "device-name", valueName: "name", help: "How other devices see this one (default: the host name).") var deviceName:
        String?
    @Option(name: "user", valueName: "name", help: "webdav: the user name to sign in with.") var user: String?
    @Flag(name: "password-stdin", help: "webdav: read the password from the first line of standard input.") var passwordStdin = false
    @Option(
        name: "folder", valueName: "name",
        help: "gdrive: keep the files in a visible folder of this name in My Drive (default: the hidden app data folder).")
    var driveFolder: String?
    @Option(
        name: "client-id", valueName: "id",
        help: "gdrive: your OAuth client's id (default: the built-in one, else $MIDICCIO_GDRIVE_CLIENT_ID).")
    var clientId: String?
    @Flag(name: "client-secret-stdin", help: "gdrive: read the OAuth client's secret from the first line of standard input.")
    var clientSecretStdin = false
    @Flag(
        name: "no-browser",
        help: "gdrive, icloud: open no browser; print the sign-in address and read back the address the browser ends on.")
    var noBrowser = false
    @Option(
        name: "container", valueName: "id",
        help: "icloud: the CloudKit container (default: $MIDICCIO_ICLOUD_CONTAINER, else the built-in one).")
    var container: String?
    @Option(
        name: "environment", valueName: "name",
        help: "icloud: development or production (default: $MIDICCIO_ICLOUD_ENVIRONMENT, else production).")
    var environment: String?
    @Option(name: "zone", valueName: "name", help: "icloud: the zone in your private database (default: MiDiccio).") var zone: String?
    @Option(
        name: "api-token", valueName: "token",
        help: "icloud: the container's API token (default: $MIDICCIO_ICLOUD_API_TOKEN, else the built-in one).")
    var apiToken: String?
    @Option(
        name: "callback-url", valueName: "url",
        help:
            "icloud: where Apple sends the browser back, the API token's Sign-In Callback (default: http://127.0.0.1:47297/icloud-callback)."
    )
    var callbackUrl: String?

    /// What the arguments ask to set up.
    private struct Target {
        let remote: RemoteConfig
        /// The WebDAV address, when the remote is one.
        let address: WebDAVAddress?
        /// A password written into the URL (moved to the credentials file, never stored in the library).
        let urlPassword: String?
    }

    func validate() throws(UsageError) { _ = try target() }

    private func target() throws(UsageError) -> Target {
        if kind != .gdrive, driveFolder != nil || clientId != nil || clientSecretStdin {
            throw UsageError("--folder, --client-id and --client-secret-stdin are for gdrive remotes only")
        }
        if kind != .gdrive, kind != .icloud, noBrowser {
            throw UsageError("--no-browser is for gdrive and icloud remotes only")
        }
        if kind != .icloud, container != nil || environment != nil || zone != nil || apiToken != nil || callbackUrl != nil {
            throw UsageError("--container, --environment, --zone, --api-token and --callback-url are for icloud remotes only")
        }
        switch kind {
        case .folder:
            guard user == nil, !passwordStdin else {
                throw UsageError("--user and --password-stdin are for webdav remotes only")
            }
            let location = try requiredLocation()
            let absolute = location.hasPrefix("/") ? location : FileManager.default.currentDirectoryPath + "/" + location
            return Target(remote: .folder(path: URL(fileURLWithPath: absolute).standardizedFileURL.path), address: nil, urlPassword: nil)
        case .webdav:
            let location = try requiredLocation()
            let parsed: (address: WebDAVAddress, user: String?, password: String?)
            do {
                parsed = try WebDAVAddress.parse(location)
            } catch {
                throw UsageError(error.message)
            }
            let user = self.user ?? parsed.user
            if let user, user.isEmpty || user.contains(":") {
                throw UsageError("the user name must not be empty or contain ':'")
            }
            if user == nil, passwordStdin || parsed.password != nil {
                throw UsageError("a password needs a user name: add --user NAME")
            }
            return Target(
                remote: .webdav(url: parsed.address.description, user: user), address: parsed.address, urlPassword: parsed.password)
        case .gdrive:
            guard user == nil, !passwordStdin else {
                throw UsageError("--user and --password-stdin are for webdav remotes only; gdrive signs in with Google")
            }
            if let location {
                throw UsageError(
                    "gdrive takes no location ('\(location)'): its files go to the hidden app data folder, or with --folder NAME to a visible folder"
                )
            }
            if let clientId, GoogleOAuthClient(id: clientId, secret: nil, origin: .given) == nil {
                throw UsageError("--client-id must be an OAuth client id such as 1234-abc.apps.googleusercontent.com, not '\(clientId)'")
            }
            // Spaces around the name go, as in the web app's Settings: a name pasted with a
            // space after it made another folder there, and the two devices never met (found
            // by the exploratory helper, round 19A).
            guard let driveFolder = driveFolder?.trimmingCharacters(in: .whitespaces) else {
                return Target(remote: .googleDrive(.appData), address: nil, urlPassword: nil)
            }
            if let problem = GoogleSignIn.problem(withFolderName: driveFolder) { throw UsageError("--folder: \(problem)") }
            return Target(remote: .googleDrive(.folder(driveFolder)), address: nil, urlPassword: nil)
        case .icloud:
            guard user == nil, !passwordStdin else {
                throw UsageError("--user and --password-stdin are for webdav remotes only; icloud signs in with your Apple Account")
            }
            if let location {
                throw UsageError("icloud takes no location ('\(location)'): name the container with --container and the zone with --zone")
            }
            // Only what was given is checked here; what the environment or the build holds
            // is checked when the command runs (help and completion never read it).
            for (field, value) in [
                (ICloudSignInSettings.Field.container, container), (.environment, environment), (.zone, zone), (.apiToken, apiToken),
                (.callbackURL, callbackUrl),
            ] {
                if let value, value.trimmingCharacters(in: .whitespaces).isEmpty {
                    throw UsageError("\(ICloudSignInFlow.flag(field)) is empty")
                }
            }
            let settings = try iCloudFlow.settings(Self.flagsOnlyVariables)
            return Target(remote: .iCloud(settings.database), address: nil, urlPassword: nil)
        }
    }

    /// Stand-ins for the values the checks of given flags do not look at.
    private static let flagsOnlyVariables = [
        ICloudSignInSettings.containerVariable: "iCloud.checked.later", ICloudSignInSettings.apiTokenVariable: "checkedlater",
    ]

    private var iCloudFlow: ICloudSignInFlow {
        ICloudSignInFlow(
            given: (container, environment, zone, apiToken, callbackUrl), pasteBack: noBrowser, deviceName: deviceName)
    }

    private func requiredLocation() throws(UsageError) -> String {
        guard let location else { throw UsageError("missing argument <location>") }
        return location
    }

    /// Makes the MiDiccio folder inside a folder that exists (`FolderStorage.prepare`).
    static func prepareFolder(_ path: String) throws {
        do {
            try FolderStorage.prepare(path)
        } catch {
            throw ToolFailure(error.description)
        }
    }

    func run(_ context: ToolContext) throws {
        let target = try target()
        let remote = target.remote
        if case .googleDrive(let space) = remote {
            let flow = GoogleDriveSignInFlow(
                space: space, clientID: clientId, clientSecretFromInput: clientSecretStdin, pasteBack: noBrowser, deviceName: deviceName)
            try flow.run(context)
            return
        }
        if case .iCloud = remote {
            try iCloudFlow.run(context)
            return
        }
        var password = target.urlPassword
        if passwordStdin {
            // The first line, whatever ends it: Swift takes "\r\n" as one character, so a
            // password file saved on Windows kept its "\r\n" in the password when split at
            // "\n" (found by the exploratory helper, round 7).
            let input = context.io.readInput()
            let text = String(input.split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline).first ?? "")
            guard !text.isEmpty else {
                throw UsageError("--password-stdin read no password from standard input")
            }
            password = text
        }
        if case .folder(let path) = remote { try Self.prepareFolder(path) }
        let library = try context.library()
        if let deviceName { try library.setDeviceName(deviceName) }
        var webDAVPassword: WebDAVPassword?
        if case .webdav(_, let user) = remote, let address = target.address, let password {
            webDAVPassword = WebDAVPassword(password, for: address, user: user)
        }
        let signOut = try library.setRemote(
            remote, endingGoogleSignInWith: GoogleDriveEndpoints.from(environment: context.environment), password: webDAVPassword)
        GoogleDriveSignInFlow.report(signOut, context)
        guard case .webdav(_, let user) = remote, let address = target.address else {
            context.io.write("Remote set to \(remote.displayName). Run 'midiccio sync' to sync now.\n")
            return
        }
        var line = "Remote set to \(remote.displayName)"
        if let user { line += " as \(user)" }
        if password != nil { line += "; the password is in \(library.credentialsPath), readable only by you" }
        context.io.write(line + ". Run 'midiccio sync' to sync now.\n")
        let fromEnvironment = !(context.environment[RemoteConfig.passwordVariable] ?? "").isEmpty
        if user != nil, password == nil, !fromEnvironment, !library.hasStoredWebDAVPassword(for: address.description) {
            context.note("note: no password is stored; give it with --password-stdin or set \(RemoteConfig.passwordVariable)")
        }
        if address.url.scheme == "http", password != nil || fromEnvironment, !Self.isLoopback(address.url.host) {
            context.note("warning: http:// sends the password unencrypted; use https:// unless the server is on a network you trust")
        }
    }

    private static func isLoopback(_ host: String?) -> Bool {
        guard let host else { return false }
        // The whole 127.0.0.0/8 block is this computer too.
        return SecurityPolicy.isLoopback(host) || host.hasPrefix("127.")
    }
}

/// `midiccio remote show`
struct RemoteShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["remote", "show"], abstract: "Show where this library syncs to (never the password).")

    @OptionGroup var output = OutputOptions(help: "Print as JSON.")

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        let remote = try library.remote()
        var user: String?
        var password = "none"
        if case .webdav(let url, let name)? = remote {
            user = name
            if !(context.environment[RemoteConfig.passwordVariable] ?? "").isEmpty {
                password = "from \(RemoteConfig.passwordVariable)"
            } else if library.hasStoredWebDAVPassword(for: url) {
                password = "stored in \(library.credentialsPath)"
            }
        }
        var signIn: (text: String, client: String?)?
        if case .googleDrive? = remote {
            signIn = Self.googleSignIn(library)
        }
        if case .iCloud(let database)? = remote {
            signIn = Self.iCloudSignIn(library, database)
        }
        if output.json {
            var fields = ["\"remote\": \(remote.map { JSONText.quote($0.displayName) } ?? "null")"]
            if case .webdav(let url, _)? = remote {
                fields.append(
                    "\"kind\": \"webdav\", \"url\": \(JSONText.quote(url)), \"user\": \(user.map(JSONText.quote) ?? "null"), "
                        + "\"password\": \(JSONText.quote(password == "none" ? "none" : password.hasPrefix("from") ? "environment" : "stored"))"
                )
            } else if case .folder(let path)? = remote {
                fields.append("\"kind\": \"folder\", \"path\": \(JSONText.quote(path))")
            } else if case .googleDrive(let space)? = remote {
                let folder: String? = if case .folder(let name) = space { name } else { nil }
                fields.append(
                    "\"kind\": \"gdrive\", \"space\": \(JSONText.quote(folder == nil ? "appdata" : "folder")), "
                        + "\"folder\": \(JSONText.optional(folder)), \"signedIn\": \(signIn?.client != nil), "
                        + "\"client\": \(JSONText.optional(signIn?.client))")
            } else if case .iCloud(let database)? = remote {
                fields.append(
                    "\"kind\": \"icloud\", \"container\": \(JSONText.quote(database.container)), "
                        + "\"environment\": \(JSONText.quote(database.environment.rawValue)), \"zone\": \(JSONText.quote(database.zone)), "
                        + "\"signedIn\": \(signIn?.client != nil)")
            }
            fields.append("\"device\": \(JSONText.quote(try library.deviceName()))")
            context.io.write("{\(fields.joined(separator: ", "))}\n")
        } else if let remote {
            var text = "\(remote.displayName) (this device: \(try library.deviceName().shownSafely))\n"
            if case .webdav = remote {
                text += "  user      \(user ?? "none (no sign-in)")\n  password  \(password)\n"
            }
            if let signIn { text += "  sign-in   \(signIn.text)\n" }
            context.io.write(text)
        } else {
            // `remote set gdrive` alone needs an OAuth client built in or in the environment;
            // without one it failed with "no OAuth client" (round 11B, item 10).
            let gdrive =
                GoogleOAuthClient.standard(environment: context.environment) == nil
                ? "midiccio remote set gdrive --client-id ID (README, \"Sync through Google Drive\")" : "midiccio remote set gdrive"
            let icloud =
                ICloudSignInSettings.prefill(variables: context.environment).container == nil
                ? "midiccio remote set icloud --container iCloud.ID --api-token TOKEN (README, \"Sync through iCloud\")"
                : "midiccio remote set icloud"
            context.note(
                "No remote set. Set one with: midiccio remote set folder PATH, or: midiccio remote set webdav URL --user NAME --password-stdin, "
                    + "or: \(gdrive), or: \(icloud)"
            )
        }
    }

    /// How this library is signed in to iCloud, for people, and the signed-in user's
    /// record name ("" when unknown; nil when there is no usable sign-in). Never a token.
    private static func iCloudSignIn(_ library: WordLibrary, _ database: CloudKitDatabase) -> (text: String, client: String?) {
        let path = library.iCloudCredentialsPath
        do {
            guard let stored = try ICloudCredentials.load(from: path), stored.covers(database) else {
                return ("none; sign in with: midiccio remote set icloud", nil)
            }
            let user = stored.userRecordName.map { ", user \($0)" } ?? ""
            return (
                "stored in \(path), readable only by you (\(database.container), \(database.environment.rawValue)\(user))",
                stored.userRecordName ?? ""
            )
        } catch {
            return ("cannot be used: \(error)", nil)
        }
    }

    /// How this library is signed in to Google Drive, for people, and the OAuth client
    /// (nil when there is no usable sign-in). Never a token or the secret.
    private static func googleSignIn(_ library: WordLibrary) -> (text: String, client: String?) {
        let path = library.googleDriveCredentialsPath
        do {
            guard let stored = try GoogleDriveCredentials.load(from: path) else {
                return ("none; sign in with: midiccio remote set gdrive", nil)
            }
            return ("stored in \(path), readable only by you (OAuth client \(stored.clientID))", stored.clientID)
        } catch {
            return ("cannot be used: \(error)", nil)
        }
    }
}

/// `midiccio remote remove`
struct RemoteRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["remote", "remove"], abstract: "Stop syncing this library (its words stay here).")

    func run(_ context: ToolContext) throws {
        guard try context.library().remote() != nil else {
            context.io.write("This library has no remote; nothing was changed.\n")
            return
        }
        let signOut = try context.library().setRemote(
            nil, endingGoogleSignInWith: GoogleDriveEndpoints.from(environment: context.environment))
        context.io.write("This library no longer syncs. Its words are still here.\n")
        GoogleDriveSignInFlow.report(signOut, context)
    }
}

/// `midiccio sync`
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["sync"], abstract: "Sync with the remote now: pull other devices' changes, then upload yours.")

    @Flag(name: "allow-mass-delete", help: "Accept a sync that moves more than half of the library to the Trash.") var allowMassDelete =
        false
    @OptionGroup var output = OutputOptions(help: "Print what the sync did as JSON.")

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        guard let remote = try library.remote() else { throw SyncError.noRemote }
        let engine = SyncEngine(
            library: library, storage: remote.makeStorage(libraryPath: library.path, environment: context.environment),
            appVersion: "midiccio \(Tool.version)")
        engine.expectedRemote = remote
        let counts = try library.counts()
        let firstSync = counts.words + counts.trash == 0
        let progress = context.progressLine(json: output.json)
        defer { progress.finish() }
        engine.onActivity = { activity in progress.show(Self.describe(activity, firstSync: firstSync)) }
        let report = try engine.sync(allowMassDelete: allowMassDelete)
        progress.finish()
        for skipped in report.skippedFiles {
            context.note("warning: skipped \(skipped.path): \(skipped.reason)")
        }
        var notes = ToolContext.syncNotes(report, cloud: remote.displayName)
        // Said by `sync` alone: a command synced on open stops over it, or goes on by the
        // words as they are, and says so (`SyncOnOpen.runOrStop`).
        if let unread = report.unreadNote(cloud: remote.displayName) { notes.append("Note: \(unread.shownSafely).") }
        // After what the sync did, on standard error, with --json too.
        defer { for note in notes { context.note(note) } }
        if output.json {
            let skipped = report.skippedFiles.map {
                JSONText.object([("path", JSONText.quote($0.path)), ("reason", JSONText.quote($0.reason))], spaced: true)
            }
            context.io.write(
                JSONText.object(
                    [
                        ("pulled", String(report.pulled)), ("pushed", String(report.pushed)), ("merged", String(report.merged)),
                        ("skippedFiles", "[" + skipped.joined(separator: ", ") + "]"), ("fullUpload", String(report.fullUpload)),
                        ("snapshotWritten", String(report.snapshotWritten)), ("filesWritten", String(report.filesWritten)),
                        ("bytesWritten", String(report.bytesWritten)), ("filesRemoved", String(report.filesRemoved)),
                        ("purgedElsewhere", String(report.purgedElsewhere)), ("purgedEditedHere", String(report.purgedEditedHere)),
                        ("answersPulled", String(report.answersPulled)), ("answersPushed", String(report.answersPushed)),
                        ("settingsPulled", String(report.settingsPulled)), ("settingsPushed", String(report.settingsPushed)),
                        ("purgesPushed", String(report.purgesPushed)), ("unreadFrom", JSONText.array(report.unreadFrom)),
                        ("purgedTerms", JSONText.array(report.purgedTerms)),
                        ("purgedEditedTerms", JSONText.array(report.purgedEditedTerms)),
                        ("autoPurged", String(report.autoPurged)),
                        ("fullResync", String(report.fullResync)),
                        ("startedOver", String(report.startedOver)),
                        ("overriddenHere", String(report.overriddenHere)),
                        ("overriddenTerms", JSONText.array(report.overriddenTerms)),
                        ("trashedEditedHere", String(report.trashedEditedHere)),
                        ("trashedEditedTerms", JSONText.array(report.trashedEditedTerms)),
                        ("editedTrashedHere", String(report.editedTrashedHere)),
                        ("editedTrashedHereTerms", JSONText.array(report.editedTrashedHereTerms)),
                        // Every note the text mode prints: a script syncing with --json
                        // never learnt that an edit made here lost to a later one, or that
                        // the sync started a new cloud (found by the exploratory helper,
                        // round 13A).
                        ("notes", "[" + notes.map(JSONText.quote).joined(separator: ", ") + "]"),
                        ("temporaryFilesRemoved", String(report.temporaryFilesRemoved)),
                        ("clockAhead", report.clockAhead.map(Self.clockJSON) ?? "null"),
                        ("aheadOfCloudMinutes", report.aheadOfCloud.map { String(($0 + 30_000) / 60_000) } ?? "null"),
                        (
                            "newIdentity",
                            report.newIdentity.map {
                                JSONText.object(
                                    [
                                        ("old", JSONText.quote($0.old)), ("new", JSONText.quote($0.new)),
                                        ("reason", JSONText.quote($0.reason)),
                                    ], spaced: true)
                            } ?? "null"
                        ),
                    ], spaced: true) + "\n")
        } else {
            var line = "Synced with \(remote.displayName): \(report.pulled) pulled, \(report.pushed) pushed, \(report.merged) merged"
            if report.fullUpload { line += " (uploaded every word once)" }
            if let others = report.answersAndSettings { line += "; " + others }
            context.io.write(line + "\n")
        }
    }
}

extension SyncCommand {
    /// A clock found ahead, for `--json`: the device, and how far in whole minutes.
    static func clockJSON(_ clock: ClockAhead) -> String {
        JSONText.object(
            [
                ("device", JSONText.quote(clock.device)), ("deviceId", JSONText.quote(clock.deviceID)),
                ("minutes", String(clock.minutes)),
            ], spaced: true)
    }

    /// What the progress line says while a sync does `activity`; `firstSync` when the
    /// library held no words as the sync began.
    static func describe(_ activity: SyncActivity, firstSync: Bool) -> String {
        let syncing = firstSync ? "First sync" : "Syncing"
        switch activity {
        case .reachingCloud:
            return "\(syncing): waiting for the cloud"
        case .downloading:
            return "\(syncing): downloading"
        case .merging(let words, let done):
            return "\(syncing): merging \(ProgressLine.count(done, of: words))"
        case .uploading(let words, let done):
            // A large change file counts its words as it reads them, then writes itself.
            if done == 0 { return "\(syncing): uploading \(ProgressLine.number(words)) word\(words == 1 ? "" : "s")" }
            return done < words
                ? "\(syncing): uploading \(ProgressLine.count(done, of: words))"
                : "\(syncing): compressing and writing \(ProgressLine.number(words)) words"
        case .writingSnapshot(let words, let done, let fullUpload):
            let head = fullUpload ? "Uploading every word once" : "\(syncing): writing a snapshot"
            return done < words
                ? "\(head): \(ProgressLine.count(done, of: words))"
                : "\(head): compressing and writing \(ProgressLine.number(words)) words"
        case .tidying:
            return "\(syncing): tidying up"
        }
    }
}

/// `midiccio status`
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["status"], abstract: "Show this device, the remote, the last sync, pending changes and every device.")

    @OptionGroup var output = OutputOptions(help: "Print as JSON.")

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        let counts = try library.counts()
        guard let remote = try library.remote() else {
            let pending = try SyncEngine(library: library, storage: missingStorage()).status().pending
            if output.json {
                context.io.write(
                    JSONText.object(
                        [
                            ("device", JSONText.quote(try library.deviceName())), ("remote", "null"),
                            ("words", String(counts.words)), ("trash", String(counts.trash)),
                            ("pending", String(pending)),
                        ], spaced: true) + "\n")
            } else {
                context.io.write(
                    "This device  \(try library.deviceName().shownSafely)\nRemote       none (set one with: midiccio remote set folder PATH)\nWords        \(counts.words), and \(counts.trash) in the Trash\n"
                )
                if let held = try library.autoPurgeHeldNote() { context.note(held.shownSafely + ".") }
            }
            return
        }
        let storage = remote.makeStorage(libraryPath: library.path, environment: context.environment)
        let status = try SyncEngine(library: library, storage: storage, appVersion: "midiccio \(Tool.version)").status()
        if output.json {
            let devices = status.devices.map { device in
                JSONText.object(
                    [
                        ("id", JSONText.quote(device.id)), ("name", JSONText.quote(device.name)),
                        ("app", JSONText.quote(device.app)), ("lastSync", JSONText.time(device.lastSync)),
                        ("agrees", String(device.agrees)), ("thisDevice", String(device.isThisDevice)),
                        ("inactive", String(device.inactive)), ("replacedBy", JSONText.optional(device.replacedBy)),
                        ("copyOf", JSONText.optional(device.copyOf)), ("everythingRead", String(device.everythingRead)),
                        ("clockAhead", device.clockAhead.map(SyncCommand.clockJSON) ?? "null"),
                    ],
                    spaced: true)
            }
            context.io.write(
                JSONText.object(
                    [
                        ("device", JSONText.quote(status.deviceName)), ("deviceId", JSONText.quote(status.deviceID)),
                        ("remote", JSONText.quote(status.remote ?? "")), ("lastSync", JSONText.time(status.lastSync)),
                        ("words", String(counts.words)), ("trash", String(counts.trash)), ("pending", String(status.pending)),
                        ("pendingAnswers", String(status.pendingAnswers)), ("pendingSettings", String(status.pendingSettings)),
                        ("pendingPurges", String(status.pendingPurges)),
                        ("fullUploadPending", String(status.fullUploadPending)), ("cloudProblem", JSONText.optional(status.cloudProblem)),
                        (
                            "lastFailure",
                            status.lastFailure.map {
                                JSONText.object(
                                    [("at", JSONText.quote($0.at.iso8601)), ("message", JSONText.quote($0.message))], spaced: true)
                            } ?? "null"
                        ),
                        ("purgedElsewhere", String(status.purgedElsewhere)), ("purgeMarkers", String(status.purgeMarkers)),
                        ("purgedContentMayRemain", "[" + status.purgedContentRemains.map(JSONText.quote).joined(separator: ", ") + "]"),
                        ("devices", "[" + devices.joined(separator: ", ") + "]"),
                    ], spaced: true) + "\n")
            return
        }
        var text = "This device  \(status.deviceName.shownSafely) (\(status.deviceID.prefix(8)))\n"
        text += "Remote       \(remote.displayName)\n"
        text += "Last sync    \(status.lastSync?.iso8601 ?? "never")\n"
        // A sync since that failed: what it said, until one finishes (round 24B #3).
        if let failure = status.lastFailure {
            text += "Failed       the sync of \(failure.at.iso8601) failed: \(failure.message.shownSafely.oneLine)\n"
        }
        text += "Words        \(counts.words), and \(counts.trash) in the Trash\n"
        text +=
            "Pending      \(status.pending) word\(status.pending == 1 ? "" : "s") to upload"
            + (status.fullUploadPending ? " (the next sync uploads every word once)" : "")
            + (status.pendingAnswers > 0 ? ", \(status.pendingAnswers) study answer\(status.pendingAnswers == 1 ? "" : "s")" : "")
            + (status.pendingSettings > 0 ? ", \(status.pendingSettings) setting\(status.pendingSettings == 1 ? "" : "s")" : "")
            + (status.pendingPurges > 0
                ? ", \(status.pendingPurges) permanent deletion\(status.pendingPurges == 1 ? "" : "s") not sent to the other devices yet"
                : "")
            + "\n"
        if let problem = status.cloudProblem { text += "Cloud        cannot be read: \(problem)\n" }
        if status.purgedElsewhere > 0 {
            let count = status.purgedElsewhere
            text += "Purged       \(count) word\(count == 1 ? " was" : "s were") purged on other devices and removed here\n"
        }
        if status.purgedContentRemains.isEmpty {
            if status.purgeMarkers > 0 { text += "Cloud        no content of purged words remains in the cloud\n" }
        } else {
            text +=
                "Cloud        content of purged words may remain in the cloud: " + status.purgedContentRemains.joined(separator: "; ")
                + "\n"
        }
        text += "Devices\n"
        // Names come from other devices' records: shown, never run by the terminal.
        let labels = status.deviceLabels.map(\.shownSafely.oneLine)
        let width = labels.map(\.count).max() ?? 0
        for (device, label) in zip(status.devices, labels) {
            let agreement =
                device.isThisDevice
                ? "this device"
                : device.replacedBy.map { "a copy of its library goes on as \($0); its files are being taken over" }
                    ?? (device.inactive
                        ? "silent for over \(status.retentionDays) days: it will read everything again when it returns" : nil)
                    ?? status.copyNote(device)
                    ?? (device.agrees
                        ? "in agreement"
                        : device.everythingRead
                            ? "differs (sync both to agree)"
                            : "differs: not every change of it has arrived here yet (sync this device; one still missing then "
                                + "comes once that device syncs again)")
            text += "  \(label.padded(to: width))  last sync \(device.lastSync?.iso8601 ?? "never")  \(agreement)\n"
        }
        for clock in status.devices.compactMap(\.clockAhead) { text += "Warning      \(clock.message.shownSafely.oneLine)\n" }
        context.io.write(text)
    }
}

/// Storage for a library with no remote: status reads only local state through it.
private func missingStorage() -> any CloudStorage {
    UnusableStorage(displayName: "none", error: .unavailable("no remote is set"))
}
