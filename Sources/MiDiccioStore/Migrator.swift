/// One named, append-only schema change. Never edit or reorder a shipped migration:
/// add a new one.
package struct Migration: Sendable {
    /// A stable name, recorded in the database once applied ("2026-11-create-words").
    package let name: String
    /// The SQL that performs the change.
    package let sql: String
    /// Runs after `sql`, inside the same transaction (data fix-ups that need Swift).
    package var afterwards: (@Sendable (Database) throws -> Void)?

    /// Makes a migration.
    package init(name: String, sql: String, afterwards: (@Sendable (Database) throws -> Void)? = nil) {
        self.name = name
        self.sql = sql
        self.afterwards = afterwards
    }
}

/// Applies migrations in order, each in its own transaction, recording each by name in
/// `schema_migrations` and counting them in `PRAGMA user_version`.
package enum Migrator {
    /// Creates the bookkeeping table of a new database.
    package static func prepare(_ database: Database) throws {
        try database.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) WITHOUT ROWID")
    }

    /// The names of the migrations already applied.
    package static func appliedNames(_ database: Database) throws -> [String] {
        try database.prepare("SELECT name FROM schema_migrations").rows { $0.text(0) }
    }

    /// Applies every migration of `migrations` not applied yet. Each runs in its own
    /// transaction and is checked inside it, so two processes opening one database never
    /// both apply it; a failure keeps the previous schema. `now` is the time recorded.
    /// `tick`, when given, is called now and then while a migration runs (`tickEvery`).
    package static func migrate(
        _ database: Database, _ migrations: [Migration], now: () -> Int64, tick: (() -> Void)? = nil
    ) throws {
        for (index, migration) in migrations.enumerated() {
            try database.write {
                let applied = try database.integer("SELECT count(*) FROM schema_migrations WHERE name = ?", [.text(migration.name)]) ?? 0
                guard applied == 0 else { return }
                try database.withTicks(every: tickEvery, tick) {
                    try database.execute(migration.sql)
                    try migration.afterwards?(database)
                }
                try database.run(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                    [.text(migration.name), .integer(now())])
                // Never lower: a migration missing from among later ones (a file another
                // MiDiccio set back) leaves the version the later ones gave.
                let current = try database.integer("PRAGMA user_version") ?? 0
                if index + 1 > current { try database.execute("PRAGMA user_version = \(index + 1)") }
            }
        }
        // Every one applied: the newest version, whichever ran last.
        try database.write {
            let current = try database.integer("PRAGMA user_version") ?? 0
            guard current < migrations.count, try Set(appliedNames(database)).isSuperset(of: migrations.map(\.name)) else { return }
            try database.execute("PRAGMA user_version = \(migrations.count)")
        }
    }

    /// SQLite virtual-machine steps between two ticks of `migrate`: building the index of
    /// terms over a million words ticked 192 times in about 4 s, often enough for a progress
    /// line, at no cost worth measuring.
    package static let tickEvery: Int32 = 100_000
}
