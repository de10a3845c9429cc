import MiDiccioModel
import MiDiccioStore

/// The schema history of a library, oldest first. The schema version of a library is
/// the number of migrations applied to it.
enum Migrations {
    static let all: [Migration] = [
        Migration(name: "2026-11-create-words", sql: """
            CREATE TABLE library_info (
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL
            ) WITHOUT ROWID;

            -- Examples and tags hold JSON arrays of strings. Each *_time column is the
            -- time of that field's last change (sync merges per field); pending and
            -- local_change are sync state, written in the same transaction as the edit.
            CREATE TABLE words (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                term TEXT NOT NULL,
                meaning TEXT NOT NULL,
                reading TEXT NOT NULL,
                examples TEXT NOT NULL,
                notes TEXT NOT NULL,
                tags TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                deleted_at INTEGER,
                term_time INTEGER NOT NULL,
                meaning_time INTEGER NOT NULL,
                reading_time INTEGER NOT NULL,
                examples_time INTEGER NOT NULL,
                notes_time INTEGER NOT NULL,
                tags_time INTEGER NOT NULL,
                deleted_time INTEGER NOT NULL,
                pending INTEGER NOT NULL,
                local_change INTEGER NOT NULL,
                term_key TEXT NOT NULL,
                sort_key BLOB NOT NULL
            );
            CREATE INDEX words_live_updated ON words (updated_at DESC) WHERE deleted_at IS NULL;
            CREATE INDEX words_live_created ON words (created_at DESC) WHERE deleted_at IS NULL;
            CREATE INDEX words_live_sort ON words (sort_key) WHERE deleted_at IS NULL;
            CREATE INDEX words_live_term_key ON words (term_key) WHERE deleted_at IS NULL;
            CREATE INDEX words_trash ON words (deleted_at DESC) WHERE deleted_at IS NOT NULL;
            CREATE INDEX words_pending ON words (local_change) WHERE pending = 1;

            CREATE TABLE word_tags (
                tag_key TEXT NOT NULL,
                word_seq INTEGER NOT NULL REFERENCES words (seq) ON DELETE CASCADE,
                tag TEXT NOT NULL,
                PRIMARY KEY (tag_key, word_seq)
            ) WITHOUT ROWID;
            CREATE INDEX word_tags_word ON word_tags (word_seq);

            -- The search index reads its text through this view, so a rebuild sees the
            -- same plain text (one example per line) that the library writes into it.
            CREATE VIEW words_fts_source AS
                SELECT seq, term, reading, meaning,
                       (SELECT group_concat(value, char(10)) FROM json_each(words.examples)) AS examples,
                       notes,
                       (SELECT group_concat(value, ' ') FROM json_each(words.tags)) AS tags
                FROM words;
            CREATE VIRTUAL TABLE words_fts USING fts5 (
                term, reading, meaning, examples, notes, tags,
                content = 'words_fts_source', content_rowid = 'seq',
                tokenize = 'unicode61 remove_diacritics 2',
                prefix = '2 3'
            );

            -- The prior state of every word the last backup restore touched (NULL: the
            -- word did not exist), so `backup undo` can put it back. One step only.
            CREATE TABLE restore_undo (
                word_id TEXT PRIMARY KEY,
                prior TEXT
            ) WITHOUT ROWID;
            """),
        Migration(name: "2026-11-add-sync", sql: """
            -- Which device wrote each field's current value: sync breaks a tie of equal
            -- times by the writer's id, the same way on every device. 0 is this device.
            ALTER TABLE words ADD COLUMN term_by INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE words ADD COLUMN meaning_by INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE words ADD COLUMN reading_by INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE words ADD COLUMN examples_by INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE words ADD COLUMN notes_by INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE words ADD COLUMN tags_by INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE words ADD COLUMN deleted_by INTEGER NOT NULL DEFAULT 0;

            -- Devices this library has heard of; num 0 is this device.
            CREATE TABLE sync_devices (
                num INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                name TEXT NOT NULL DEFAULT '',
                app TEXT NOT NULL DEFAULT '',
                last_sync INTEGER,
                digest TEXT NOT NULL DEFAULT '',
                word_count INTEGER NOT NULL DEFAULT 0
            );

            -- How far this device has read each other device's changes.
            CREATE TABLE sync_cursors (
                device_id TEXT PRIMARY KEY,
                seq INTEGER NOT NULL
            ) WITHOUT ROWID;
            """, afterwards: Migrations.requireFullUpload),
        Migration(name: "2026-11-add-purge", sql: """
            -- A purged word leaves only this marker: its id and when it was purged. The
            -- marker beats every version of the word, so no device can bring it back.
            CREATE TABLE purged (
                id TEXT PRIMARY KEY,
                purged_at INTEGER NOT NULL,
                pending INTEGER NOT NULL,
                by_this_device INTEGER NOT NULL
            ) WITHOUT ROWID;

            -- Library settings that sync (Trash clean-up): last writer wins per key.
            CREATE TABLE settings (
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL,
                time INTEGER NOT NULL,
                writer TEXT NOT NULL,
                pending INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
        Migration(name: "2026-11-faster-search-and-lists", sql: """
            -- Lists page by (time, row) so the first page is an index scan even when many
            -- words share one time (an import gives them all the same).
            DROP INDEX words_live_updated;
            DROP INDEX words_live_created;
            CREATE INDEX words_live_updated ON words (updated_at DESC, seq DESC) WHERE deleted_at IS NULL;
            CREATE INDEX words_live_created ON words (created_at DESC, seq DESC) WHERE deleted_at IS NULL;

            -- The search index holds only words not in the Trash (so a search needs no
            -- filter), without prefix indexes (terms are matched by prefix through
            -- term_key; they made every import several times slower). Examples and tags
            -- are indexed as stored (JSON text; the tokenizer drops its punctuation), so
            -- the library, a rebuild and a delete all hand the index the same text. The
            -- unary + keeps SQLite off the time indexes here, so a rebuild reads rows in
            -- seq order (FTS5 flushes its buffer on every out-of-order row: 7x slower).
            DROP TABLE words_fts;
            DROP VIEW words_fts_source;
            CREATE VIEW words_fts_source AS
                SELECT seq, term, reading, meaning, examples, notes, tags FROM words WHERE +deleted_at IS NULL;
            CREATE VIRTUAL TABLE words_fts USING fts5 (
                term, reading, meaning, examples, notes, tags,
                content = 'words_fts_source', content_rowid = 'seq',
                tokenize = 'unicode61 remove_diacritics 2'
            );
            INSERT INTO words_fts (words_fts, rank) VALUES ('rank', 'bm25(10.0, 6.0, 4.0, 1.0, 1.0, 3.0)');
            INSERT INTO words_fts (words_fts) VALUES ('rebuild');
            """),
    ]

    /// Marks a library that had words before a migration: its next sync uploads every
    /// word once (product notes: the first sync after such an update pulls, merges,
    /// then uploads everything).
    @Sendable static func requireFullUpload(_ database: Database) throws {
        if (try database.integer("SELECT count(*) FROM words") ?? 0) > 0 {
            try database.run("INSERT OR REPLACE INTO library_info (key, value) VALUES ('sync.fullUpload', '1')")
        }
    }
}

