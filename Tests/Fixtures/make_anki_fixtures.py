#!/usr/bin/env python3
"""Writes the Anki package fixtures in Tests/Fixtures/Anki/ (committed; run again only to
change them).

    python3 -m venv /tmp/anki-fixtures
    /tmp/anki-fixtures/bin/pip install genanki anki
    /tmp/anki-fixtures/bin/python Tests/Fixtures/make_anki_fixtures.py

Made with genanki 0.13.1 and anki 26.9.3. The good packages:

- words.apkg: genanki, the legacy layout (collection.anki2, schema 11, models and decks as
  JSON in `col`). Two note types, three decks, HTML, sounds and images.
- words.colpkg: anki, the current layout (collection.anki21b, zstd-compressed, schema 18
  with the notetypes, fields and decks tables, plus the dummy collection.anki2 Anki writes
  for old versions).
- words-latest.apkg: the same collection exported by anki as a deck package in the
  current layout.

The hostile ones, each refused by `midiccio import`: a truncated zip, a zip without a
collection, a collection that is not SQLite, an SQLite file that is not Anki's, broken
UTF-8 in a note, a deflate bomb, a zip whose header hides the real size, and a zstd bomb.
"""

import os
import shutil
import sqlite3
import struct
import tempfile
import zipfile
import zlib

import genanki

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "Anki")
MIB = 1024 * 1024


def legacy_package(path):
    basic = genanki.Model(
        1607392319,
        "Basic (MiDiccio fixture)",
        fields=[{"name": "Front"}, {"name": "Back"}],
        templates=[{"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr id=answer>{{Back}}"}],
    )
    vocabulary = genanki.Model(
        1607392320,
        "Vocabulary",
        fields=[{"name": "Word"}, {"name": "Meaning"}, {"name": "Reading"}, {"name": "Example"}],
        templates=[{"name": "Recognise", "qfmt": "{{Word}}", "afmt": "{{FrontSide}}<hr id=answer>{{Meaning}}"}],
    )
    verbs = genanki.Deck(2059400110, "Spanish::Verbs")
    nouns = genanki.Deck(2059400111, "Spanish::Nouns")
    japanese = genanki.Deck(2059400112, "Japanese Vocab")
    # Fixed guids keep the file the same from one run to the next (apart from times).
    verbs.add_note(genanki.Note(basic, ["hablar", "to <b>speak</b>[sound:hablar.mp3]"], tags=["verb", "a1"], guid="g-hablar"))
    verbs.add_note(genanki.Note(basic, ["comer", "to eat<br>to have lunch"], tags=["verb"], guid="g-comer"))
    nouns.add_note(genanki.Note(basic, ['<img src="casa.jpg">', "house"], tags=["noun"], guid="g-casa"))
    nouns.add_note(genanki.Note(basic, ["<div>perro</div>", "dog&nbsp;&amp; hound"], tags=[], guid="g-perro"))
    japanese.add_note(
        genanki.Note(
            vocabulary,
            ["犬", "dog", "いぬ", '犬が好きです。<img src="inu.jpg">[sound:inu.mp3]'],
            tags=["animal", "JLPT::N5"],
            guid="g-inu",
        )
    )
    japanese.add_note(genanki.Note(vocabulary, ["猫", "cat", "ねこ", ""], tags=["animal"], guid="g-neko"))
    genanki.Package([verbs, nouns, japanese]).write_to_file(path, timestamp=1_764_000_000)


def current_collection(directory):
    from anki.collection import Collection

    col = Collection(os.path.join(directory, "collection.anki2"))
    food = col.decks.id("French::Food")
    review = col.decks.id("French::Review")
    basic = col.models.by_name("Basic")
    reversed_type = col.models.by_name("Basic (and reversed card)")

    def add(notetype, fields, tags, deck):
        note = col.new_note(notetype)
        for name, value in fields.items():
            note[name] = value
        note.tags = tags
        col.add_note(note, deck)
        return note

    add(basic, {"Front": "pain", "Back": "bread [sound:pain.mp3]"}, ["food"], food)
    add(basic, {"Front": "fromage", "Back": "<i>cheese</i>"}, ["food", "dairy"], food)
    apple = add(reversed_type, {"Front": "pomme", "Back": "apple"}, [], food)
    # The reverse card lives in another deck: the word gets both decks as tags.
    for card in apple.cards():
        if card.ord == 1:
            card.did = review
            col.update_card(card)
    return col


def current_packages(colpkg_path, apkg_path):
    from anki.collection import DeckIdLimit, ExportAnkiPackageOptions

    directory = tempfile.mkdtemp(prefix="midiccio-anki-fixture-")
    try:
        col = current_collection(directory)
        options = ExportAnkiPackageOptions(with_scheduling=False, with_deck_configs=False, with_media=False, legacy=False)
        col.export_anki_package(out_path=apkg_path, options=options, limit=DeckIdLimit(col.decks.id("French")))
        col.export_collection_package(colpkg_path, include_media=False, legacy=False)
        col.close()
    finally:
        shutil.rmtree(directory)


def zip_with(path, entries, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in entries:
            archive.writestr(name, data)


def lying_zip(path, name, data, claimed_size):
    """A one-entry zip whose headers claim `claimed_size` bytes for `data` (deflated)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = compressor.compress(data) + compressor.flush()
    crc = zlib.crc32(data)
    encoded = name.encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(packed), claimed_size, len(encoded), 0)
    central = struct.pack(
        "<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(packed), claimed_size, len(encoded), 0, 0, 0, 0, 0, 0
    )
    directory_offset = len(local) + len(encoded) + len(packed)
    directory = central + encoded
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(directory), directory_offset, 0)
    with open(path, "wb") as file:
        file.write(local + encoded + packed + directory + end)


def zstd_zeros(size):
    """A zstd frame of `size` zero bytes made of RLE blocks: four bytes a 128 KiB block."""
    block = 128 * 1024
    frame = bytearray(b"\x28\xb5\x2f\xfd")
    frame += bytes([0x00, (17 - 10) << 3])  # no content size; a 128 KiB window
    left = size
    while left > 0:
        count = min(block, left)
        left -= count
        header = (1 if left == 0 else 0) | (1 << 1) | (count << 3)
        frame += header.to_bytes(3, "little") + b"\x00"
    return bytes(frame)


def sqlite_bytes(statements):
    directory = tempfile.mkdtemp(prefix="midiccio-anki-fixture-")
    try:
        path = os.path.join(directory, "db")
        connection = sqlite3.connect(path)
        connection.executescript(statements)
        connection.close()
        with open(path, "rb") as file:
            return file.read()
    finally:
        shutil.rmtree(directory)


def edited_package(good_apkg, path, statement, parameters=()):
    """`good_apkg` with `statement` run on its collection, written to `path`."""
    directory = tempfile.mkdtemp(prefix="midiccio-anki-fixture-")
    try:
        with zipfile.ZipFile(good_apkg) as archive:
            archive.extractall(directory)
        collection = os.path.join(directory, "collection.anki2")
        connection = sqlite3.connect(collection)
        connection.execute(statement, parameters)
        connection.commit()
        connection.close()
        with open(collection, "rb") as file:
            zip_with(path, [("collection.anki2", file.read()), ("media", b"{}")])
    finally:
        shutil.rmtree(directory)


def broken_utf8_package(good_apkg, path):
    # "h\xc3(" is not UTF-8: a lead byte followed by no continuation byte.
    edited_package(good_apkg, path, "UPDATE notes SET flds = CAST(X'68C3281F646F67' AS TEXT) WHERE guid = 'g-comer'")


def long_note_package(good_apkg, path):
    """words.apkg with one note whose Front is longer than a term may be (700 characters):
    that note is left out and counted, the others imported."""
    front = "La {{c1::fotos\u00edntesis}} es el proceso " + "largo " * 110
    edited_package(good_apkg, path, "UPDATE notes SET flds = ? || char(31) || 'a long paragraph' WHERE guid = 'g-comer'", (front,))


def placeholder_only_package(current_apkg, path):
    """words-latest.apkg without its collection.anki21b: the placeholder collection.anki2
    current Anki writes for its older versions is left alone ("Please update ...")."""
    with zipfile.ZipFile(current_apkg) as archive:
        entries = [(info.filename, archive.read(info)) for info in archive.infolist() if info.filename != "collection.anki21b"]
    zip_with(path, entries)


def main():
    os.makedirs(OUT, exist_ok=True)
    out = lambda name: os.path.join(OUT, name)  # noqa: E731

    legacy_package(out("words.apkg"))
    current_packages(out("words.colpkg"), out("words-latest.apkg"))

    with open(out("words.apkg"), "rb") as file:
        whole = file.read()
    with open(out("truncated.apkg"), "wb") as file:
        file.write(whole[: len(whole) // 2])
    zip_with(out("no-collection.apkg"), [("media", b"{}"), ("notes.txt", b"hund\tdog\n")])
    zip_with(out("fake-collection.apkg"), [("collection.anki2", b"This is not an SQLite database.\n" * 64), ("media", b"{}")])
    not_anki = sqlite_bytes("CREATE TABLE words (term TEXT, meaning TEXT); INSERT INTO words VALUES ('hund', 'dog');")
    zip_with(out("not-anki.apkg"), [("collection.anki2", not_anki), ("media", b"{}")])
    broken_utf8_package(out("words.apkg"), out("broken-utf8.apkg"))
    long_note_package(out("words.apkg"), out("long-note.apkg"))
    placeholder_only_package(out("words-latest.apkg"), out("placeholder-only.apkg"))
    zip_with(out("deflate-bomb.apkg"), [("collection.anki2", bytes(40 * MIB)), ("media", b"{}")])
    lying_zip(out("lying-size.apkg"), "collection.anki2", bytes(40 * MIB), 65536)
    zip_with(out("zstd-bomb.colpkg"), [("collection.anki21b", zstd_zeros(2048 * MIB)), ("media", b"")])

    for name in sorted(os.listdir(OUT)):
        print(f"{os.path.getsize(out(name)):>9,}  {name}")


if __name__ == "__main__":
    main()
