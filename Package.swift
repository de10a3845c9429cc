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
        .target(
            name: "CCollation",
            linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]
        ),
        .target(
            name: "MiDiccioKit",
            dependencies: ["CSQLite", "CCollation", "CZlib"],
            swiftSettings: strict
        ),
        .target(
            name: "MiDiccioCLI",
            dependencies: ["MiDiccioKit"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "midiccio",
            dependencies: ["MiDiccioCLI"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "MiDiccioBench",
            dependencies: ["MiDiccioKit", "MiDiccioCLI"],
            path: "Benchmarks/MiDiccioBench",
            swiftSettings: strict
        ),
        .testTarget(
            name: "MiDiccioKitTests",
            dependencies: ["MiDiccioKit"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MiDiccioCLITests",
            dependencies: ["MiDiccioCLI", "MiDiccioKit"],
            swiftSettings: strict
        ),
    ]
)
