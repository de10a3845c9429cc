// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

// A target lists every core module it is built over, not only those it imports: a release
// build inlines code across modules (a class's size and fields among it), and SwiftPM
// compiles a target again only when a module it lists changes. A target that reached
// `WordLibrary` through `MiDiccioKit` alone kept the old size of it after a field was
// added, and its binary wrote past each library object it made (2026-12-02).

/// The core's modules up to the sync engine: what the everyday commands are built over.
let coreUpToSync: [Target.Dependency] = [
    "MiDiccioModel", "MiDiccioFiles", "MiDiccioStore", "MiDiccioLibrary", "MiDiccioCloud", "MiDiccioSync",
]
/// The whole core: the above, the clouds reached online, and `MiDiccioKit`, which
/// re-exports them.
let wholeCore: [Target.Dependency] = coreUpToSync + ["MiDiccioOnline", "MiDiccioKit"]

/// How SQLite is linked: on Linux Debian's static library (`libsqlite3-dev` has it), then
/// what it needs (libm, zlib); elsewhere the system's shared one. Every product that links
/// `MiDiccioStore` gets it, so a process holds one SQLite.
let sqliteLinkage: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "-l:libsqlite3.a", "-Xlinker", "-lm", "-Xlinker", "-lz"], .when(platforms: [.linux])),
    .linkedLibrary("sqlite3", .when(platforms: [.macOS, .iOS, .visionOS, .watchOS, .tvOS])),
]

let package = Package(
    name: "MiDiccio",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MiDiccioKit", targets: ["MiDiccioKit"]),
        .executable(name: "midiccio", targets: ["midiccio"]),
        .executable(name: "midiccio-online", targets: ["midiccio-online"]),
        .executable(name: "midiccio-bench", targets: ["MiDiccioBench"]),
    ],
    targets: [
        // SQLite: on Linux its static library is linked into each binary (the module map
        // names no library; `sqliteLinkage` above says how), which takes about a tenth off
        // every command's start (README, "Start-up"); Apple platforms link the system's.
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // minizip and libzstd: reading Anki packages (a zip holding an SQLite collection,
        // zstd-compressed in Anki's current layout; Interchange/AnkiPackage*.swift). minizip
        // needs only zlib; libzip would bring OpenSSL into the everyday `midiccio`.
        .systemLibrary(
            name: "CMinizip",
            pkgConfig: "minizip",
            providers: [.apt(["libminizip-dev"]), .brew(["minizip"])]
        ),
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]
        ),
        // yajl: backups are read as they stream, not parsed whole (Backup/BackupReader.swift).
        .systemLibrary(
            name: "CYajl",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"]), .brew(["yajl"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // libqrencode: the QR code of `midiccio serve --lan`'s pairing address. Only the
        // web server links it, so the everyday `midiccio` never loads it.
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]
        ),
        // libcrypto: random bytes and SHA-256 for the Google sign-in (PKCE). Linux only:
        // Apple platforms have both in the system (GoogleSignIn.swift).
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // libmicrohttpd's own error pages (431, 414, 400), answered with the web app's
        // security headers (Sources/CErrorPages/include/cerrorpages.h says how).
        .target(name: "CErrorPages", dependencies: ["CMicroHTTPD"]),
        .target(
            name: "CCollation",
            dependencies: ["CSQLite"],
            // Linux: the ICU inside the toolchain's Foundation (collation.c says why);
            // elsewhere the system's.
            linkerSettings: [
                .linkedLibrary("_FoundationICU", .when(platforms: [.linux])),
                .linkedLibrary("icui18n", .when(platforms: [.macOS, .iOS])),
                .linkedLibrary("icuuc", .when(platforms: [.macOS, .iOS])),
            ]
        ),
        // The core, bottom to top: each layer imports only those below it, and the
        // compiler refuses the other way (README, "Code layout").
        .target(name: "MiDiccioModel", swiftSettings: strict),
        // statfs(2), which Swift's Glibc module leaves out (Sources/CFileSystem/include says why).
        .target(name: "CFileSystem"),
        .target(name: "MiDiccioFiles", dependencies: ["CFileSystem"], swiftSettings: strict),
        // An FTS5 auxiliary function: search ranks the newest matches from what it gives
        // (Sources/CFullTextRank/include/cfulltextrank.h says what).
        .target(name: "CFullTextRank", dependencies: ["CSQLite"]),
        .target(
            name: "MiDiccioStore", dependencies: ["CSQLite", "CFullTextRank"], swiftSettings: strict,
            linkerSettings: sqliteLinkage),
        .target(
            name: "MiDiccioLibrary",
            dependencies: ["MiDiccioModel", "MiDiccioFiles", "MiDiccioStore", "CCollation", "CMinizip", "CZstd", "CYajl"],
            swiftSettings: strict
        ),
        // Up to MiDiccioSync nothing goes online: the everyday commands link only these
        // (README, "Code layout"). The clouds reached over HTTP are in MiDiccioOnline.
        .target(name: "MiDiccioCloud", dependencies: ["MiDiccioModel", "MiDiccioFiles"], swiftSettings: strict),
        .target(
            name: "MiDiccioSync",
            dependencies: ["MiDiccioModel", "MiDiccioFiles", "MiDiccioStore", "MiDiccioLibrary", "MiDiccioCloud", "CZlib"],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioOnline",
            dependencies: [
                "MiDiccioModel", "MiDiccioFiles", "MiDiccioStore", "MiDiccioLibrary", "MiDiccioCloud", "MiDiccioSync",
                .target(name: "CCrypto", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioKit",
            dependencies: coreUpToSync + ["MiDiccioOnline"],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioTesting",
            dependencies: wholeCore + ["MiDiccioCLICore", "MiDiccioCLI"],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioWeb",
            dependencies: wholeCore + ["CMicroHTTPD", "CQRencode", "CErrorPages"],
            // Compiled into the binary as byte arrays: `midiccio` stays one file, and
            // nothing is read from disk at run time.
            resources: [
                .embedInCode("Resources/index.html"),
                .embedInCode("Resources/app.css"),
                .embedInCode("Resources/app.js"),
                .embedInCode("Resources/sw.js"),
                .embedInCode("Resources/manifest.webmanifest"),
                .embedInCode("Resources/icon.svg"),
                .embedInCode("Resources/offline.html"),
            ],
            swiftSettings: strict
        ),
        // The everyday commands and the command-line framework, without networking.
        .target(
            name: "MiDiccioCLICore",
            dependencies: coreUpToSync,
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioCLI",
            dependencies: wholeCore + ["MiDiccioCLICore", "MiDiccioWeb"],
            swiftSettings: strict
        ),
        // `midiccio`: the everyday commands, with the Swift runtime and Foundation linked in
        // statically so a command starts in a few milliseconds; it hands everything that goes
        // online to `midiccio-online`, its sibling (README, "Start-up").
        .executableTarget(
            name: "midiccio",
            dependencies: coreUpToSync + ["MiDiccioCLICore"],
            swiftSettings: strict,
            // The static Foundation also needs the libraries it is built on, which the
            // modules (compiled against the shared one) do not name. `--no-export-dynamic`
            // undoes the toolchain's `-export-dynamic` for static binaries: nothing loads a
            // plug-in into `midiccio`, and 3,500 fewer exported symbols leave less for the
            // loader to do at each start (README, "Start-up").
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-stdlib", "-Xlinker", "--start-group", "-lFoundation", "-lCoreFoundation", "-l_FoundationICU",
                        "-l_FoundationCShims", "-l_FoundationCollections", "-lFoundationEssentials",
                        "-lFoundationInternationalization", "-Xlinker", "--end-group", "-Xlinker", "--no-export-dynamic",
                    ], .when(platforms: [.linux]))
            ]
        ),
        // `midiccio-online`: every command, the web app, sign-in and sync included.
        .executableTarget(
            name: "midiccio-online",
            dependencies: wholeCore + ["MiDiccioCLICore", "MiDiccioWeb", "MiDiccioCLI"],
            path: "Sources/midiccio-online",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "MiDiccioBench",
            dependencies: wholeCore + [
                "MiDiccioCLICore", "MiDiccioCLI", "MiDiccioWeb", "MiDiccioTesting", "CSQLite", "CZstd", "CCollation",
            ],
            path: "Benchmarks/MiDiccioBench",
            swiftSettings: strict
        ),
        .testTarget(
            name: "MiDiccioKitTests",
            dependencies: wholeCore + ["MiDiccioTesting"],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MiDiccioWebTests",
            dependencies: wholeCore + ["MiDiccioCLICore", "MiDiccioCLI", "MiDiccioWeb", "MiDiccioTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MiDiccioCLITests",
            dependencies: wholeCore + ["MiDiccioCLICore", "MiDiccioWeb", "MiDiccioCLI", "MiDiccioTesting"],
            swiftSettings: strict
        ),
    ]
)
