#ifndef MIDICCIO_CCOLLATION_H
#define MIDICCIO_CCOLLATION_H
#include <stdint.h>
#include <sqlite3.h>

// ICU's own headers clash with the copy of ICU inside Foundation, so Swift sees only
// this small interface in plain C types; the ICU calls live in collation.c.

/// An ICU collator that orders text case-insensitively for one locale.
typedef struct midiccio_collator midiccio_collator;

/// Opens a collator for `locale` ("" is the root order); NULL when ICU fails.
midiccio_collator *midiccio_collator_open(const char *locale);

/// Writes the sort key of UTF-16 `text` into `key`; returns the key's full length
/// (including ICU's terminating zero), which may exceed `capacity`.
int32_t midiccio_collator_sort_key(const midiccio_collator *collator, const uint16_t *text,
                                   int32_t length, uint8_t *key, int32_t capacity);

/// Writes the version of the ICU in use ("76.1.0") into `text`, at most `capacity`
/// bytes with the terminating zero. Sort keys and folds may change between versions.
void midiccio_icu_version(char *text, int32_t capacity);

/// Closes a collator from `midiccio_collator_open`.
void midiccio_collator_close(midiccio_collator *collator);

/// Folds UTF-16 `text` for matching (a term's key): compatibility forms to their letters
/// (NFKD: full-width "ＴＯＥＩＣ", ligatures, half-width kana), full case folding, combining
/// marks removed but kana's voicing marks (accents, Greek tonos, Arabic harakat, Hebrew
/// niqqud), invisible format characters (Cf) removed, letters with a stroke to their
/// letter ("ł" to "l", "ø" to "o") and "æ", "œ" to two letters, composed again (NFC).
/// "Café", "CAFE" and "cafe" fold alike, and so do "Łódź" and "lodz". Writes at most
/// `capacity` units to `out` and returns the folded length: when it exceeds `capacity`,
/// nothing was written and a call with that capacity succeeds. -1 when ICU fails.
int32_t midiccio_fold(const uint16_t *text, int32_t length, uint16_t *out, int32_t capacity);

/// `midiccio_fold` computed by ICU over the whole text, never a code point at a time from
/// the cache that `midiccio_fold` uses when it gives the same: for tests that check it does.
int32_t midiccio_fold_whole(const uint16_t *text, int32_t length, uint16_t *out, int32_t capacity);

/// Folds UTF-16 `text` as the search index takes it: as `midiccio_fold`, with a space
/// around each ideograph and kana, so the index holds them one by one and a search finds
/// a word of them inside a longer one as a phrase. Returns as `midiccio_fold` does.
int32_t midiccio_search_fold(const uint16_t *text, int32_t length, uint16_t *out, int32_t capacity);

/// The search text of UTF-8 `text` (as `midiccio_search_fold`), made from the UTF-8 a
/// character at a time, in a buffer to free with `midiccio_free`; its length in
/// `outLength`. NULL when a character's fold may combine with a neighbour, one lies outside
/// the Basic Multilingual Plane, the text is not valid UTF-8, or memory runs out: then
/// `midiccio_search_fold` over its UTF-16 gives it.
uint8_t *midiccio_search_fold_utf8(const uint8_t *text, int32_t length, int32_t *outLength);

/// Frees what `midiccio_search_fold_utf8` returned.
void midiccio_free(void *pointer);

/// Defines the SQL function `midiccio_search_text(text)` on `db`: `midiccio_search_fold`
/// of text that is not plain ASCII, and plain ASCII text as it is (the search index's
/// tokenizer folds its case), so the index gets the same text from SQL as from Swift
/// (`SearchText.fold`). Returns an SQLite result code.
int midiccio_define_search_text(sqlite3 *db);
#endif
