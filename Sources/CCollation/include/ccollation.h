#ifndef MIDICCIO_CCOLLATION_H
#define MIDICCIO_CCOLLATION_H
#include <stdint.h>

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

/// Folds UTF-16 `text` for matching: canonical decomposition (NFD), combining marks
/// removed, full case folding ("Café" and "CAFE" both become "cafe"). Writes at most
/// `capacity` units to `out` and returns the folded length, or -1 when `capacity` is
/// too small or ICU fails.
int32_t midiccio_fold(const uint16_t *text, int32_t length, uint16_t *out, int32_t capacity);
#endif
