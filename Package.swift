// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "MiDiccio",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MiDiccioKit", targets: ["MiDiccioKit"]),
        .executable(name: "midiccio", targets: ["midiccio"]),
        .executable(name: "midiccio-bench", targets: ["MiDiccioBench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // libcrypto: random bytes and SHA-256 for the Google sign-in (PKCE). Linux only:
        // Apple platforms have both in the system (GoogleSignIn.swift).
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "CCollation",
            linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]
        ),
        // The core, bottom to top: each layer imports only those below it, and the
        // compiler refuses the other way (README, "Code layout").
        .target(name: "MiDiccioModel", swiftSettings: strict),
        .target(name: "MiDiccioFiles", swiftSettings: strict),
        .target(name: "MiDiccioStore", dependencies: ["CSQLite"], swiftSettings: strict),
        .target(
            name: "MiDiccioLibrary",
            dependencies: ["MiDiccioModel", "MiDiccioFiles", "MiDiccioStore", "CCollation"],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioCloud",
            dependencies: ["MiDiccioModel", "MiDiccioFiles", .target(name: "CCrypto", condition: .when(platforms: [.linux]))],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioSync",
            dependencies: ["MiDiccioModel", "MiDiccioFiles", "MiDiccioLibrary", "MiDiccioCloud", "CZlib"],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioKit",
            dependencies: ["MiDiccioModel", "MiDiccioLibrary", "MiDiccioCloud", "MiDiccioSync"],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioTesting",
            dependencies: ["MiDiccioKit", "MiDiccioCLI"],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioWeb",
            dependencies: ["MiDiccioKit", "CMicroHTTPD"],
            // Compiled into the binary as byte arrays: `midiccio` stays one file, and
            // nothing is read from disk at run time.
            resources: [
                .embedInCode("Resources/index.html"),
                .embedInCode("Resources/app.css"),
                .embedInCode("Resources/app.js"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioCLI",
            dependencies: ["MiDiccioKit", "MiDiccioWeb"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "midiccio",
            dependencies: ["MiDiccioCLI"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "MiDiccioBench",
            dependencies: ["MiDiccioKit", "MiDiccioCLI", "MiDiccioWeb", "MiDiccioTesting"],
            path: "Benchmarks/MiDiccioBench",
            swiftSettings: strict
        ),
        .testTarget(
            name: "MiDiccioKitTests",
            dependencies: [
                "MiDiccioKit", "MiDiccioModel", "MiDiccioStore", "MiDiccioLibrary", "MiDiccioCloud", "MiDiccioSync",
                "MiDiccioTesting",
            ],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MiDiccioWebTests",
            dependencies: ["MiDiccioWeb", "MiDiccioKit", "MiDiccioTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MiDiccioCLITests",
            dependencies: ["MiDiccioCLI", "MiDiccioKit", "MiDiccioTesting"],
            swiftSettings: strict
        ),
    ]
)
