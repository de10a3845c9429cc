#!/usr/bin/env python3
"""Writes the e-reader databases the import tests read (standard library only).

    python3 Tests/Fixtures/Import/make_fixtures.py

vocab.db and vocab-later.db follow Kindle's Vocabulary Builder tables (WORDS, LOOKUPS,
BOOK_INFO, ...); vocab-later.db is vocab.db after more reading: one more look-up of a
word already there and one new word. vocabulary_builder.sqlite3 follows KOReader's
vocabbuilder plugin, schema version 20240905; vocabulary_builder_2022.sqlite3 its schema
from before 20220608, with the book's title in vocabulary.book_title and no title table.
"""
import os
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
DAY = 86_400_000  # Kindle times are milliseconds since 1970
JAN_2024 = 1_704_067_200_000

KINDLE_SCHEMA = """
CREATE TABLE WORDS (id TEXT PRIMARY KEY NOT NULL UNIQUE, word TEXT, stem TEXT, lang TEXT,
    category INTEGER DEFAULT 0, timestamp INTEGER DEFAULT 0, profileid TEXT);
CREATE TABLE LOOKUPS (id TEXT PRIMARY KEY NOT NULL UNIQUE, word_key TEXT, book_key TEXT,
    dict_key TEXT, pos TEXT, usage TEXT, timestamp INTEGER DEFAULT 0);
CREATE TABLE BOOK_INFO (id TEXT PRIMARY KEY NOT NULL UNIQUE, asin TEXT, guid TEXT, lang TEXT,
    title TEXT, authors TEXT);
CREATE TABLE DICT_INFO (id TEXT PRIMARY KEY NOT NULL UNIQUE, asin TEXT, langin TEXT, langout TEXT);
CREATE TABLE METADATA (id TEXT PRIMARY KEY NOT NULL UNIQUE, dsname TEXT, sscnt INTEGER, profileid TEXT);
CREATE TABLE VERSION (id TEXT PRIMARY KEY NOT NULL UNIQUE, dsname TEXT, value INTEGER);
CREATE INDEX wordprofileid ON WORDS (profileid);
CREATE INDEX lookupwordkey ON LOOKUPS (word_key);
CREATE INDEX lookupbookkey ON LOOKUPS (book_key);
"""

BOOKS = [
    ("hobbit:1", "B0001", "g1", "en", "The Hobbit", "J. R. R. Tolkien"),
    ("process:1", "B0002", "g2", "de", "Der Process", "Franz Kafka"),
]
WORDS = [
    ("en:burrow", "burrow", "burrow", "en"),
    ("en:burrowing", "burrowing", "burrow", "en"),
    ("en:hobbit", "hobbit", "hobbit", "en"),
    ("de:verhaftet", "verhaftet", "verhaften", "de"),
]
LOOKUPS = [
    ("l1", "en:burrow", "hobbit:1", "In a hole in the ground there lived a hobbit, in a burrow.", JAN_2024),
    ("l2", "en:burrowing", "hobbit:1", "They were burrowing\ndeep   under the hill.", JAN_2024 + 31 * DAY),
    ("l3", "en:hobbit", "hobbit:1", "", JAN_2024 + 60 * DAY),
    ("l4", "de:verhaftet", "process:1", "Er wurde eines Morgens verhaftet.", JAN_2024 + 91 * DAY),
]
LATER_WORDS = [("en:wizard", "wizards", "wizard", "en")]
LATER_LOOKUPS = [
    ("l5", "en:burrow", "hobbit:1", "The rabbit went back to its burrow.", JAN_2024 + 120 * DAY),
    ("l6", "en:wizard", "hobbit:1", "Gandalf was a wizard.", JAN_2024 + 121 * DAY),
]


def kindle(name, words, lookups):
    path = os.path.join(HERE, name)
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(KINDLE_SCHEMA)
    db.executemany("INSERT INTO BOOK_INFO VALUES (?, ?, ?, ?, ?, ?)", BOOKS)
    db.executemany(
        "INSERT INTO WORDS VALUES (?, ?, ?, ?, 0, ?, '')",
        [w + (JAN_2024,) for w in words])
    db.executemany(
        "INSERT INTO LOOKUPS VALUES (?, ?, ?, '', '', ?, ?)", lookups)
    db.execute("INSERT INTO VERSION VALUES ('1', 'WordsDB', 1)")
    db.commit()
    db.close()


KOREADER_SCHEMA = """
CREATE TABLE vocabulary (word TEXT NOT NULL UNIQUE, title_id INTEGER, create_time INTEGER NOT NULL,
    review_time INTEGER, due_time INTEGER NOT NULL, review_count INTEGER NOT NULL DEFAULT 0,
    prev_context TEXT, next_context TEXT, streak_count INTEGER NOT NULL DEFAULT 0, highlight TEXT,
    PRIMARY KEY(word));
CREATE TABLE title (id INTEGER NOT NULL UNIQUE, name TEXT UNIQUE, filter INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY(id));
CREATE INDEX due_time_index ON vocabulary(due_time);
CREATE INDEX title_name_index ON title(name);
CREATE INDEX title_id_index ON vocabulary(title_id);
PRAGMA user_version=20240905;
"""
JAN_2024_SECONDS = JAN_2024 // 1000


def koreader():
    path = os.path.join(HERE, "vocabulary_builder.sqlite3")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(KOREADER_SCHEMA)
    db.executemany("INSERT INTO title (id, name) VALUES (?, ?)", [(1, "Moby Dick"), (2, "Short Stories")])
    rows = [
        ("melancholy", 1, JAN_2024_SECONDS, "a sort of ", " settled over him", None),
        ("ephemeral", 2, JAN_2024_SECONDS + 86_400, "the\n", " beauty of it", "Ephemeral"),
        ("lone", 1, JAN_2024_SECONDS + 2 * 86_400, None, None, None),
    ]
    db.executemany(
        """INSERT INTO vocabulary (word, title_id, create_time, due_time, prev_context, next_context, highlight)
           VALUES (?, ?, ?, ?, ?, ?, ?)""",
        [(w, t, c, c + 300, p, n, h) for (w, t, c, p, n, h) in rows])
    db.commit()
    db.close()


def koreader_before_titles():
    path = os.path.join(HERE, "vocabulary_builder_2022.sqlite3")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE IF NOT EXISTS "vocabulary" ("word" TEXT NOT NULL UNIQUE, "book_title" TEXT DEFAULT '',
            "create_time" INTEGER NOT NULL, "review_time" INTEGER, "due_time" INTEGER NOT NULL,
            "review_count" INTEGER NOT NULL DEFAULT 0, "prev_context" TEXT, "next_context" TEXT, PRIMARY KEY("word"));
        PRAGMA user_version=20220522;
    """)
    db.executemany(
        "INSERT INTO vocabulary (word, book_title, create_time, due_time, prev_context, next_context) VALUES (?, ?, ?, ?, ?, ?)",
        [("ephemeral", "Old Book", JAN_2024_SECONDS, JAN_2024_SECONDS + 300, "it was ", " and brief"),
         ("ubiquitous", "Old Book", JAN_2024_SECONDS + 1, JAN_2024_SECONDS + 300, None, None)])
    db.commit()
    db.close()


if __name__ == "__main__":
    kindle("vocab.db", WORDS, LOOKUPS)
    kindle("vocab-later.db", WORDS + LATER_WORDS, LOOKUPS + LATER_LOOKUPS)
    koreader()
    koreader_before_titles()
