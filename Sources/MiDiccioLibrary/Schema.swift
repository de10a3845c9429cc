import MiDiccioModel
import MiDiccioStore

/// The schema history of a library, oldest first. The schema version of a library is
/// the number of migrations applied to it.
extension WordLibrary {
    /// The schema this MiDiccio writes: its number of migrations (`PRAGMA user_version`
    /// of a library it has opened). A newer library is refused (`LibraryError.newerSchema`).
    public static var schemaVersion: Int { Migrations.all.count }
}

enum Migrations {
    static let all: [Migration] = [
        Migration(
            name: "2026-11-create-words",
            sql: """
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
        Migration(
            name: "2026-11-add-sync",
            sql: """
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
        Migration(
            name: "2026-11-add-purge",
            sql: """
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
        Migration(
            name: "2026-11-faster-search-and-lists",
            sql: """
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
                INSERT INTO words_fts (words_fts, rank) VALUES ('rank', 'bm25(\(SearchRanking.bm25Weights))');
                INSERT INTO words_fts (words_fts) VALUES ('rebuild');
                """),
        Migration(
            name: "2026-12-typed-sync-state",
            sql: """
                -- Sync keeps its state as one typed value (MiDiccioSync's SyncState), saved in
                -- one place. The string keys and cursors it kept before are handed over once,
                -- under "legacy", and read by SyncState's decoder only.
                CREATE TABLE sync_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    value TEXT NOT NULL
                );
                INSERT INTO sync_state (id, value)
                    SELECT 1, json_object(
                        'legacy', (SELECT json_group_object(key, value) FROM library_info
                                   WHERE key LIKE 'sync.%' AND key NOT IN ('sync.digest', 'sync.fullUpload')),
                        'legacyCursors', (SELECT json_group_object(device_id, seq) FROM sync_cursors))
                    WHERE EXISTS (SELECT 1 FROM library_info WHERE key LIKE 'sync.%' AND key NOT IN ('sync.digest', 'sync.fullUpload'))
                       OR EXISTS (SELECT 1 FROM sync_cursors);
                DELETE FROM library_info WHERE key LIKE 'sync.%' AND key NOT IN ('sync.digest', 'sync.fullUpload');
                DELETE FROM library_info WHERE key = 'library.createdAt';
                DROP TABLE sync_cursors;

                -- Never read: a device's name, app and state live in its cloud record.
                ALTER TABLE sync_devices DROP COLUMN name;
                ALTER TABLE sync_devices DROP COLUMN app;
                ALTER TABLE sync_devices DROP COLUMN last_sync;
                ALTER TABLE sync_devices DROP COLUMN digest;
                ALTER TABLE sync_devices DROP COLUMN word_count;

                -- When this device first saw the word in the Trash, by its own clock: automatic
                -- purging counts from here, never from a time another device's clock stamped.
                -- Words already in the Trash start counting now.
                ALTER TABLE words ADD COLUMN trash_seen_at INTEGER;
                UPDATE words SET trash_seen_at = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
                    WHERE deleted_at IS NOT NULL;
                CREATE INDEX words_trash_seen ON words (trash_seen_at) WHERE trash_seen_at IS NOT NULL;

                -- The order in which this device learnt each purge marker: a position in its own
                -- log, which a marker arriving late with an old purge time still advances.
                ALTER TABLE purged ADD COLUMN seen INTEGER NOT NULL DEFAULT 0;
                UPDATE purged SET seen = ordered.position
                    FROM (SELECT id, row_number() OVER (ORDER BY purged_at, id) AS position FROM purged) AS ordered
                    WHERE ordered.id = purged.id;
                CREATE INDEX purged_seen ON purged (seen);
                """),
        Migration(
            name: "2026-12-cloud-cache",
            sql: """
                -- What a cloud back end keeps between syncs (Google Drive's file ids and change
                -- token), for the remote named in `remote`. Only a cache: emptied when the
                -- remote changes, never synced, never in a backup.
                CREATE TABLE cloud_cache (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    remote TEXT NOT NULL,
                    value BLOB NOT NULL
                );
                """),
        Migration(
            name: "2026-12-import-undo",
            sql: """
                -- The words the last import added, so `import undo` can move them to the
                -- Trash. One step only; never synced (the Trash moves are).
                CREATE TABLE import_undo (
                    word_id TEXT PRIMARY KEY
                ) WITHOUT ROWID;
                """),
        Migration(
            name: "2026-12-tag-counts-and-trash-search",
            sql: """
                -- How many words outside the Trash carry each tag, kept by triggers, so every
                -- path that writes words or tags (a save, an import, sync, a restore, a purge)
                -- keeps it true and the tag list never counts the library (440 ms at 100,000
                -- words). `tag` is the first-sorting spelling seen since the tag appeared.
                CREATE TABLE tag_counts (
                    tag_key TEXT PRIMARY KEY,
                    tag TEXT NOT NULL,
                    count INTEGER NOT NULL
                ) WITHOUT ROWID;
                INSERT INTO tag_counts (tag_key, tag, count)
                    SELECT t.tag_key, min(t.tag), count(*) FROM word_tags t JOIN words w ON w.seq = t.word_seq
                    WHERE w.deleted_at IS NULL GROUP BY t.tag_key;

                CREATE TRIGGER tag_counts_tag_added AFTER INSERT ON word_tags
                    WHEN (SELECT deleted_at FROM words WHERE seq = new.word_seq) IS NULL
                BEGIN
                    INSERT INTO tag_counts (tag_key, tag, count) VALUES (new.tag_key, new.tag, 1)
                        ON CONFLICT (tag_key) DO UPDATE SET count = count + 1, tag = min(tag, excluded.tag);
                END;
                CREATE TRIGGER tag_counts_tag_removed AFTER DELETE ON word_tags
                    WHEN EXISTS (SELECT 1 FROM words WHERE seq = old.word_seq AND deleted_at IS NULL)
                BEGIN
                    UPDATE tag_counts SET count = count - 1 WHERE tag_key = old.tag_key;
                    DELETE FROM tag_counts WHERE tag_key = old.tag_key AND count <= 0;
                END;
                -- A purged word's tags go first, while the word still says whether it counted.
                CREATE TRIGGER tag_counts_word_purged BEFORE DELETE ON words
                BEGIN
                    DELETE FROM word_tags WHERE word_seq = old.seq;
                END;
                CREATE TRIGGER tag_counts_word_trashed AFTER UPDATE OF deleted_at ON words
                    WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL
                BEGIN
                    UPDATE tag_counts SET count = count - 1
                        WHERE tag_key IN (SELECT tag_key FROM word_tags WHERE word_seq = new.seq);
                    DELETE FROM tag_counts
                        WHERE count <= 0 AND tag_key IN (SELECT tag_key FROM word_tags WHERE word_seq = new.seq);
                END;
                CREATE TRIGGER tag_counts_word_restored AFTER UPDATE OF deleted_at ON words
                    WHEN old.deleted_at IS NOT NULL AND new.deleted_at IS NULL
                BEGIN
                    INSERT INTO tag_counts (tag_key, tag, count)
                        SELECT tag_key, tag, 1 FROM word_tags WHERE word_seq = new.seq
                        ON CONFLICT (tag_key) DO UPDATE SET count = count + 1, tag = min(tag, excluded.tag);
                END;

                -- The Trash page finds terms by how they start (148 ms at 100,000 words without).
                CREATE INDEX words_trash_term_key ON words (term_key) WHERE deleted_at IS NOT NULL;
                """),
        Migration(
            name: "2026-12-add-reviews",
            sql: """
                -- Review events: one row per answer, immutable, synced as they are (issue 15).
                -- A word's schedule is derived from its events, never synced. Kept while the
                -- word is in the Trash (they come back with it); removed with a purge.
                CREATE TABLE reviews (
                    word_id TEXT NOT NULL,
                    time INTEGER NOT NULL,
                    device TEXT NOT NULL,
                    grade INTEGER NOT NULL,
                    seconds INTEGER NOT NULL,
                    pending INTEGER NOT NULL,
                    PRIMARY KEY (word_id, time, device, grade)
                ) WITHOUT ROWID;
                CREATE INDEX reviews_time ON reviews (time);
                CREATE INDEX reviews_pending ON reviews (time) WHERE pending = 1;

                -- Only a cache of what the events give, for building the queue quickly:
                -- never synced, never in a backup, rebuilt whenever events or the
                -- scheduler's settings change.
                CREATE TABLE study_cache (
                    word_id TEXT PRIMARY KEY,
                    state INTEGER NOT NULL,
                    due INTEGER NOT NULL,
                    first_review INTEGER NOT NULL,
                    reviews INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX study_cache_due ON study_cache (due);
                CREATE INDEX study_cache_first ON study_cache (first_review);
                """),
        Migration(
            name: "2026-12-add-words-studied",
            sql: """
                -- Local only (never synced, never in a backup): 1 when the word has a row in
                -- study_cache. The partial index lists the never-studied words in creation
                -- order, so the study queue finds its new words without scanning the
                -- studied ones. A 0 with a cache row only costs a check (the queue still
                -- tests study_cache); code setting or clearing a cache row keeps it true.
                ALTER TABLE words ADD COLUMN studied INTEGER NOT NULL DEFAULT 0;
                UPDATE words SET studied = 1 WHERE id IN (SELECT word_id FROM study_cache);
                CREATE INDEX words_new ON words (created_at, seq) WHERE deleted_at IS NULL AND studied = 0;
                """),
        Migration(
            name: "2026-12-term-key-ignores-invisible-characters",
            sql: "",
            afterwards: { database in
                // Term keys now leave out invisible format characters (zero-width spaces,
                // direction controls), so duplicates that only differ by them are found.
                // Only terms with non-ASCII text can change; the key is local (never synced),
                // so no upload follows.
                let rows = try database.prepare("SELECT seq, term, term_key FROM words WHERE term GLOB '*[^ -~]*'").rows {
                    ($0.int64(0), $0.text(1), $0.text(2))
                }
                let update = try database.prepare("UPDATE words SET term_key = ? WHERE seq = ?")
                for (seq, term, key) in rows where TermKey.fold(term) != key {
                    try database.run(update, [.text(TermKey.fold(term)), .integer(seq)])
                }
            }),
        Migration(
            name: "2026-12-bulk-undo",
            sql: """
                -- The last bulk action (a tag added to or removed from many words, many words
                -- moved to or out of the Trash) and what each word it changed held before,
                -- so it can be undone in one step. Never synced: the undo's edits are.
                CREATE TABLE bulk_undo_action (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    step INTEGER NOT NULL,
                    action TEXT NOT NULL,
                    tag TEXT,
                    changed INTEGER NOT NULL,
                    undone INTEGER NOT NULL
                );
                CREATE TABLE bulk_undo (
                    word_id TEXT PRIMARY KEY,
                    prior_tags TEXT
                ) WITHOUT ROWID;
                """),
        Migration(
            name: "2026-12-restore-undo-keeps-later-edits",
            sql: """
                -- Each word's time as the last restore left it: undoing the restore keeps a
                -- word whose time has moved since (an edit made after the restore).
                ALTER TABLE restore_undo ADD COLUMN restored_updated_at INTEGER;
                """),
        Migration(
            name: "2026-12-compact-reviews",
            sql: """
                -- Review events keyed compactly: the word id as its 16 bytes (which sort as
                -- its text does) and the device as a number of review_devices. As text, a new
                -- device's first sync of a million events wrote 250 MB, the time index alone
                -- 85 bytes an event (issue 15). Numbers here are never changed: an event's
                -- device stays the same when this library takes a new device id.
                CREATE TABLE review_devices (
                    num INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE
                );
                CREATE TABLE reviews_compact (
                    word BLOB NOT NULL,
                    time INTEGER NOT NULL,
                    device INTEGER NOT NULL,
                    grade INTEGER NOT NULL,
                    seconds INTEGER NOT NULL,
                    pending INTEGER NOT NULL,
                    PRIMARY KEY (word, time, device, grade)
                ) WITHOUT ROWID;
                INSERT INTO review_devices (id) SELECT DISTINCT device FROM reviews ORDER BY device;
                """,
            afterwards: { database in
                // Copied in Swift: the SQLite of Debian 12 has no unhex().
                let insert = try database.prepare(
                    "INSERT OR IGNORE INTO reviews_compact (word, time, device, grade, seconds, pending) VALUES (?, ?, ?, ?, ?, ?)")
                try database.prepare(
                    """
                    SELECT r.word_id, r.time, d.num, r.grade, r.seconds, r.pending
                    FROM reviews r JOIN review_devices d ON d.id = r.device ORDER BY r.word_id
                    """
                ).forEachRow { row in
                    guard let id = WordID(row.text(0)) else { return }
                    try database.run(
                        insert,
                        [
                            .blob(id.bytes), .integer(row.int64(1)), .integer(row.int64(2)), .integer(row.int64(3)),
                            .integer(row.int64(4)), .integer(row.int64(5)),
                        ])
                }
                try database.execute(
                    """
                    DROP TABLE reviews;
                    ALTER TABLE reviews_compact RENAME TO reviews;
                    CREATE INDEX reviews_time ON reviews (time);
                    CREATE INDEX reviews_pending ON reviews (time) WHERE pending = 1;
                    """)
            }),
        Migration(
            name: "2026-12-terms-search-index",
            sql: """
                -- The terms alone, indexed as the search index indexes them. A search finds the
                -- terms holding the query's words here: in the term column of the whole index,
                -- FTS5 reads every column's entries of those words first, which at a million
                -- words was a third of a two-word search. A tenth the size of the whole index.
                CREATE VIRTUAL TABLE terms_fts USING fts5 (
                    term,
                    content = 'words_fts_source', content_rowid = 'seq',
                    tokenize = 'unicode61 remove_diacritics 2'
                );
                INSERT INTO terms_fts (terms_fts) VALUES ('rebuild');
                """),
        Migration(
            name: "2026-12-tag-clock",
            sql: """
                -- When each tag was put on the word or taken off, and its place (TagClock):
                -- '' when every tag was written at tags_time in the list's order, as nearly
                -- all are; NULL for a list written whole at tags_time, as every list before
                -- this column was (the tags it leaves out were taken off then); else JSON
                -- (WordLibrary.storedTagClock). Sync merges tags one at a time with it.
                ALTER TABLE words ADD COLUMN tag_clock TEXT;
                """),
        Migration(
            name: "2026-12-tag-keys-composed",
            sql: "",
            afterwards: { database in
                // Tag keys are now in composed form (TagSet.key), so a tag typed "café" and
                // one pasted as e and an accent are one tag in the tag list and for
                // `list --tag`. Only tags with non-ASCII text can change. Each row moves to
                // its new key through the tag rows' triggers, which keep the tag counts true;
                // a word that carried both forms keeps one row. The keys are local (never
                // synced), so no upload follows.
                let rows = try database.prepare("SELECT tag_key, word_seq, tag FROM word_tags WHERE tag GLOB '*[^ -~]*'").rows {
                    ($0.text(0), $0.int64(1), $0.text(2))
                }
                let remove = try database.prepare("DELETE FROM word_tags WHERE tag_key = ? AND word_seq = ?")
                let insert = try database.prepare("INSERT OR IGNORE INTO word_tags (tag_key, word_seq, tag) VALUES (?, ?, ?)")
                for (key, seq, tag) in rows where !TagSet.key(tag).utf8.elementsEqual(key.utf8) {
                    try database.run(remove, [.text(key), .integer(seq)])
                    try database.run(insert, [.text(TagSet.key(tag)), .integer(seq), .text(tag)])
                }
            }),
        Migration(
            name: "2026-12-restore-undo-field-times",
            sql: """
                -- Each field's time as the last restore left it (milliseconds, comma-separated
                -- in the order of WordField): undoing the restore keeps a word any of whose
                -- fields changed since. A restore takes fields with the backup's own times, so
                -- an edit pulled since can leave the word's time as it was.
                ALTER TABLE restore_undo ADD COLUMN restored_times TEXT;
                """),
        Migration(
            name: "2026-12-restore-undo-tags",
            sql: """
                -- The tag list as the last restore left it (JSON): undoing the restore takes
                -- off the tags it put on and puts back those it took off, and keeps a tag
                -- another device put on since, which the tags' time may not show.
                ALTER TABLE restore_undo ADD COLUMN restored_tags TEXT;
                """),
        Migration(
            name: "2026-12-imported-lookups",
            sql: """
                -- Every Kindle and KOReader look-up this library imported, by a fingerprint of
                -- its term key and sentence (no text), and the import that brought it: the
                -- same vocab.db imported again leaves out a look-up whose word was deleted
                -- permanently, or had its term or sentence edited, since. Local: not synced.
                CREATE TABLE imported_lookups (
                    fingerprint INTEGER PRIMARY KEY,
                    import INTEGER NOT NULL
                );
                CREATE INDEX imported_lookups_by_import ON imported_lookups (import);
                """),
        Migration(
            name: "2026-12-imported-lookups-before",
            sql: "",
            afterwards: noteLookupsImportedBefore),
        Migration(
            name: "2026-12-writers-know-the-schema",
            sql: """
                -- Every write of MiDiccio changes library_info. A process that does not know
                -- the file's schema, the function the triggers call missing (a MiDiccio from
                -- before these triggers) or refusing it (an older one than the schema), cannot
                -- write: left running across an update, it went on writing as its schema knew
                -- (Database.defineSchemaGuard).
                CREATE TRIGGER library_info_insert_guard BEFORE INSERT ON library_info
                BEGIN SELECT \(Database.schemaGuardFunction)(user_version) FROM pragma_user_version; END;
                CREATE TRIGGER library_info_update_guard BEFORE UPDATE ON library_info
                BEGIN SELECT \(Database.schemaGuardFunction)(user_version) FROM pragma_user_version; END;
                CREATE TRIGGER library_info_delete_guard BEFORE DELETE ON library_info
                BEGIN SELECT \(Database.schemaGuardFunction)(user_version) FROM pragma_user_version; END;
                """),
        Migration(
            name: "2026-12-old-lists-floor-at-last-pull",
            sql: "",
            afterwards: floorOldListsAtLastPull),
        Migration(
            name: "2026-12-restored-from-elsewhere",
            sql: """
                -- The words a backup restore brought or changed (their ids): the backup may be
                -- another device's, so the Trash's clean-up leaves them while their change here
                -- is not sent, as it leaves every word another device may hold. Local: not synced.
                CREATE TABLE restored_from_elsewhere (id TEXT PRIMARY KEY) WITHOUT ROWID;
                """),
        Migration(
            name: "2026-12-bulk-undo-keeps-later-changes",
            sql: """
                -- The time the last bulk action gave what it changed in each word (the tag's
                -- mark, the Trash flag): its undo leaves a word whose change has a later time
                -- (made since, here or on another device), as the other undos keep later edits.
                ALTER TABLE bulk_undo ADD COLUMN done_at INTEGER;
                """),
        Migration(
            name: "2026-12-clean-up-markers",
            sql: """
                -- For a marker the Trash's clean-up left (trash.autoPurgeDays), the times of
                -- the version it purged: when it went to the Trash, and its newest field. A
                -- device holding the word with a newer change keeps that change (NULL: a
                -- person's purge, which beats every version).
                ALTER TABLE purged ADD COLUMN clean_up_trashed_at INTEGER;
                ALTER TABLE purged ADD COLUMN clean_up_newest INTEGER;
                """),
        Migration(
            name: "2026-12-search-in-every-script",
            sql: """
                -- The search indexes hold each field folded (SearchText: the marks of every
                -- script, invisible characters, compatibility forms, ideographs and kana one
                -- by one), no longer the fields as written through a view of the words: they
                -- are contentless, fed the folded text by the library. Any SQLite still reads
                -- them, with its own tokenizer. They are filled again when the library is
                -- opened next, with the term keys (WordLibrary.refreshTermKeys), so their
                -- version is forgotten here.
                DROP TABLE words_fts;
                DROP TABLE terms_fts;
                DROP VIEW words_fts_source;
                CREATE VIRTUAL TABLE words_fts USING fts5 (
                    term, reading, meaning, examples, notes, tags,
                    content = '', tokenize = 'unicode61 remove_diacritics 2'
                );
                INSERT INTO words_fts (words_fts, rank) VALUES ('rank', 'bm25(\(SearchRanking.bm25Weights))');
                CREATE VIRTUAL TABLE terms_fts USING fts5 (
                    term, content = '', tokenize = 'unicode61 remove_diacritics 2'
                );
                DELETE FROM library_info WHERE key = 'collation.icu';
                """),
        Migration(
            name: "2026-12-restore-undo-keeps-sync-state",
            sql: """
                -- The sync state of each word before the last restore: each field's time, then
                -- each field's writer, then 1 or 0 for pending (numbers, comma-separated, in the
                -- order of WordField), and its tag clock (NULL: a list written whole). Undoing a
                -- restore no sync has sent yet puts these back with the values, as if it had not
                -- been made: an edit another device made before it wins again. NULL: undo data
                -- from before, undone with new times.
                ALTER TABLE restore_undo ADD COLUMN prior_sync TEXT;
                ALTER TABLE restore_undo ADD COLUMN prior_tag_clock TEXT;
                -- 1 for a word a replace gave a new time and nothing else (its values are the
                -- backup's already): its undo has values to put back only while unsent.
                ALTER TABLE restore_undo ADD COLUMN retimed INTEGER NOT NULL DEFAULT 0;
                -- The fields (bit i: the i-th of WordField) another device's record holds at the
                -- time the restore gave them, written by that device: the restore brought a copy
                -- of that device's own change, which the undo leaves as it is.
                ALTER TABLE restore_undo ADD COLUMN held_elsewhere INTEGER NOT NULL DEFAULT 0;
                """),
        Migration(
            name: "2026-12-review-key-holds-seconds",
            sql: """
                -- An answer is told apart by its seconds too: two copies of one library file
                -- (one id until a sync notices) that answered a word alike in one millisecond
                -- made one event, and one answer was lost on every device (found by the
                -- exploratory helper, round 23B #4). Seconds are kept within a day, as every
                -- way in now keeps them, so one event never comes in twice with two values.
                CREATE TABLE reviews_keyed (
                    word BLOB NOT NULL,
                    time INTEGER NOT NULL,
                    device INTEGER NOT NULL,
                    grade INTEGER NOT NULL,
                    seconds INTEGER NOT NULL,
                    pending INTEGER NOT NULL,
                    PRIMARY KEY (word, time, device, grade, seconds)
                ) WITHOUT ROWID;
                INSERT INTO reviews_keyed (word, time, device, grade, seconds, pending)
                    SELECT word, time, device, grade, min(max(seconds, 0), \(ReviewEvent.longestSeconds)), pending FROM reviews;
                DROP TABLE reviews;
                ALTER TABLE reviews_keyed RENAME TO reviews;
                CREATE INDEX reviews_time ON reviews (time);
                CREATE INDEX reviews_pending ON reviews (time) WHERE pending = 1;
                """,
            afterwards: { database in
                // Answers alike but for their seconds made one here before: a library that has
                // answers and has synced reads every file again once, and takes in the other
                // (found by the exploratory helper, round 25A #2).
                let studied = try database.integer("SELECT EXISTS (SELECT 1 FROM reviews)") == 1
                let synced = try database.integer("SELECT EXISTS (SELECT 1 FROM sync_state)") == 1
                if studied && synced {
                    try database.run("INSERT OR REPLACE INTO library_info (key, value) VALUES (?, '1')", [.text(readAgainKey)])
                }
            }),
    ]

    /// The `library_info` key an update sets for the next sync to read every file of the
    /// cloud again once (`SyncStore.readAgainRequested`).
    package static let readAgainKey = "sync.readAgain"

    /// Puts the floor of each tag list an older MiDiccio wrote here and did not send yet at
    /// that MiDiccio's last finished sync, rather than at the list's own time: a tag another
    /// device put on the word after that sync never reached the list, and stays; a tag it
    /// had pulled and left out still comes off. An older MiDiccio refused by the cloud's
    /// newer format (it cannot pull) wrote such lists until updated, and the first sync
    /// after the update took a tag another device had added, there and on every device,
    /// silently (found by the exploratory helper, round 15A). A library that never synced
    /// has nothing to keep.
    @Sendable static func floorOldListsAtLastPull(_ database: Database) throws {
        let state =
            try database.prepare(
                "SELECT coalesce(json_extract(value, '$.state.lastSync'), json_extract(value, '$.legacy.\"sync.lastSync\"')) "
                    + "FROM sync_state WHERE id = 1 AND json_valid(value)"
            )
            .rows([]) { $0.optionalText(0) }.first ?? nil
        guard let lastPull = state.flatMap({ Int64($0) }) else { return }
        let update = try database.prepare("UPDATE words SET tag_clock = ? WHERE seq = ?")
        try database.prepare(
            "SELECT seq, tags, tags_time FROM words WHERE tag_clock IS NULL AND pending = 1 AND tags_time > ? AND created_at <= ?"
        ).rows([.integer(lastPull), .integer(lastPull)]) { row in (row.int64(0), row.text(1), row.int64(2)) }
            .forEach { seq, tags, time in
                // The list as that MiDiccio knew the word at its last sync: its tags on from just
                // after it, so a tag another device took off since stays off (it was on the
                // list only as it had been); in the list's order, from the list's time.
                let written = Timestamp(milliseconds: time)
                var clock = TagClock(floor: Timestamp(milliseconds: lastPull))
                for (index, tag) in JSONText.stringArray(tags).enumerated() {
                    clock.marks[TagSet.key(tag)] = TagClock.Mark(
                        time: Timestamp(milliseconds: lastPull + 1), isPresent: true, orderTime: written, position: index, form: tag)
                }
                try update.bind([WordLibrary.storedTagClock(clock, tagsTime: written), .integer(seq)])
                try update.runBound()
            }
    }

    /// Notes, as `imported_lookups` of no import (0), the look-ups the Kindle and KOReader
    /// words hold (tagged `kindle` or `koreader`, in the Trash too): one per example, or the
    /// term alone. Imported before the library noted look-ups, such a word deleted
    /// permanently or edited after the update came back with the next import of the same
    /// vocab.db (found by the exploratory helper, round 15A). A look-up noted so is one the
    /// import leaves out anyway while the word holds it; `import undo` never forgets it.
    @Sendable static func noteLookupsImportedBefore(_ database: Database) throws {
        let insert = try database.prepare("INSERT OR IGNORE INTO imported_lookups (fingerprint, import) VALUES (?, 0)")
        try database.prepare(
            """
            SELECT term_key, examples FROM words
            WHERE seq IN (SELECT word_seq FROM word_tags WHERE tag_key IN ('\(KindleVocabulary.tag)', '\(KOReaderVocabulary.tag)'))
            """
        ).forEachRow { row in
            let key = row.text(0)
            let examples = JSONText.stringArray(row.text(1))
            for sentence in examples.isEmpty ? [""] : examples {
                try database.run(insert, [.integer(ImportedLookups.fingerprint(termKey: key, sentence: sentence))])
            }
        }
    }

    /// Marks a library that had words before a migration: its next sync uploads every
    /// word once (product notes: the first sync after such an update pulls, merges,
    /// then uploads everything).
    @Sendable static func requireFullUpload(_ database: Database) throws {
        if (try database.integer("SELECT count(*) FROM words") ?? 0) > 0 {
            try database.run("INSERT OR REPLACE INTO library_info (key, value) VALUES ('sync.fullUpload', '1')")
        }
    }
}
