#include "ccollation.h"

#if defined(__linux__)
// On Linux, the ICU inside the toolchain's Foundation (`_FoundationICU`, which prefixes
// every entry point with `swift_`) is used rather than Debian's libicu: the static
// Foundation of `midiccio` carries it already, and loading the system's ICU libraries
// as well cost a millisecond at every start. Debian's headers still describe the calls:
// ICU's C API is stable, only its names change. A library remembers which ICU computed
// its sort keys (midiccio_icu_version) and computes them again when that changes.
#define U_DISABLE_RENAMING 1
#define ucol_open swift_ucol_open
#define ucol_setStrength swift_ucol_setStrength
#define ucol_getSortKey swift_ucol_getSortKey
#define ucol_close swift_ucol_close
#define unorm2_getNFKDInstance swift_unorm2_getNFKDInstance
#define unorm2_getNFCInstance swift_unorm2_getNFCInstance
#define unorm2_normalize swift_unorm2_normalize
#define u_charType swift_u_charType
#define u_strFoldCase swift_u_strFoldCase
#define u_getVersion swift_u_getVersion
#define u_getCombiningClass swift_u_getCombiningClass
#define u_getIntPropertyValue swift_u_getIntPropertyValue
#endif

#include <unicode/ucol.h>
#include <unicode/unorm2.h>
#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/uversion.h>
#include <unicode/utf8.h>
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>

void midiccio_icu_version(char *text, int32_t capacity) {
    UVersionInfo version;
    u_getVersion(version);
    snprintf(text, (size_t)capacity, "%u.%u.%u", version[0], version[1], version[2]);
}

midiccio_collator *midiccio_collator_open(const char *locale) {
    UErrorCode status = U_ZERO_ERROR;
    UCollator *collator = ucol_open(locale, &status);
    if (U_FAILURE(status) || collator == NULL) return NULL;
    // Secondary strength: accents still break ties, case never does.
    ucol_setStrength(collator, UCOL_SECONDARY);
    return (midiccio_collator *)collator;
}

int32_t midiccio_collator_sort_key(const midiccio_collator *collator, const uint16_t *text,
                                   int32_t length, uint8_t *key, int32_t capacity) {
    return ucol_getSortKey((const UCollator *)collator, (const UChar *)text, length, key, capacity);
}

void midiccio_collator_close(midiccio_collator *collator) {
    ucol_close((UCollator *)collator);
}

// The letters folded to another that no decomposition reaches: a stroke or a bar through
// the letter (ł, ø, đ, ħ, ŧ, ɨ, ƶ, ǥ, ƀ), the dotless i, and two ligatures written as
// two letters. Searches and duplicates then take "lodz" for "Łódź" and "kobenhavn" for
// "København", as they take "cafe" for "café". Lower case only: the text is folded first.
static int32_t fold_letter(UChar32 c, UChar *out) {
    switch (c) {
    case 0x0142: out[0] = 'l'; return 1;
    case 0x00F8: out[0] = 'o'; return 1;
    case 0x0111: out[0] = 'd'; return 1;
    case 0x0127: out[0] = 'h'; return 1;
    case 0x0167: out[0] = 't'; return 1;
    case 0x0131: case 0x0268: out[0] = 'i'; return 1;
    case 0x01B6: out[0] = 'z'; return 1;
    case 0x01E5: out[0] = 'g'; return 1;
    case 0x0180: out[0] = 'b'; return 1;
    case 0x00E6: out[0] = 'a'; out[1] = 'e'; return 2;
    case 0x0153: out[0] = 'o'; out[1] = 'e'; return 2;
    default: return 0;
    }
}

// Kana's voicing marks (゛ and ゜ as they combine: が is か with U+3099) are letters of
// their own in Japanese, not accents: がっこう (school) and かっこう (cuckoo) stay apart.
static int keeps_mark(UChar32 c) { return c == 0x3099 || c == 0x309A; }

// Ideographs and kana, written without spaces between words: the search text puts each
// on its own, so a word is found inside a compound (試験 in 日本語能力試験) as a phrase.
static int stands_alone(UChar32 c) {
    return (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF)
        || (c >= 0x20000 && c <= 0x3FFFF) || (c >= 0x3041 && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF)
        || c == 0x3005 || c == 0x3006;
}

// Whether the search text puts a space before code point `c`, given whether one is owed
// (the character before stands alone) and whether the text so far ends in one (or is
// empty); updates what is owed. The one rule of both search folds, UTF-16 and UTF-8.
static int space_before(UChar32 c, int *spaceOwed, int endsInSpace) {
    int alone = stands_alone(c);
    int space = c != ' ' && (alone || *spaceOwed) && !endsInSpace;
    *spaceOwed = c != ' ' && alone;
    return space;
}

// One ICU call over UTF-16 text that, given too small a buffer, says how long its result is.
typedef int32_t (*icu_step)(const void *with, const UChar *text, int32_t length, UChar *out, int32_t capacity,
                            UErrorCode *status);

static int32_t normalize_step(const void *form, const UChar *text, int32_t length, UChar *out, int32_t capacity,
                              UErrorCode *status) {
    return unorm2_normalize((const UNormalizer2 *)form, text, length, out, capacity, status);
}

// Folds case fully ("Straße" to "strasse").
static int32_t fold_case_step(const void *unused, const UChar *text, int32_t length, UChar *out, int32_t capacity,
                              UErrorCode *status) {
    (void)unused;
    return u_strFoldCase(out, capacity, text, length, U_FOLD_CASE_DEFAULT, status);
}

// Runs `step` into a new buffer (freed by the caller), a larger one when the first is too
// small; NULL when ICU fails.
static UChar *stepped(icu_step step, const void *with, const UChar *text, int32_t length, int32_t *outLength) {
    int32_t capacity = length * 3 + 16;
    for (int attempt = 0; attempt < 2; attempt++) {
        UChar *out = malloc(sizeof(UChar) * (size_t)capacity);
        if (out == NULL) return NULL;
        UErrorCode status = U_ZERO_ERROR;
        int32_t made = step(with, text, length, out, capacity, &status);
        if (status == U_BUFFER_OVERFLOW_ERROR) {
            free(out);
            capacity = made + 1;
            continue;
        }
        if (U_FAILURE(status)) { free(out); return NULL; }
        *outLength = made;
        return out;
    }
    return NULL;
}

// The fold of `text` (see ccollation.h) without spaces, by ICU over the whole text, in a
// new buffer freed by the caller; NULL when ICU fails or memory runs out.
static UChar *folded_whole(const UChar *text, int32_t length, int32_t *outLength) {
    UErrorCode status = U_ZERO_ERROR;
    const UNormalizer2 *nfkd = unorm2_getNFKDInstance(&status);
    const UNormalizer2 *nfc = unorm2_getNFCInstance(&status);
    if (U_FAILURE(status)) return NULL;
    // Compatibility forms to their letters (ＴＯＥＩＣ, ﬁ, ｶ), accents apart; case folded;
    // decomposed again, as folding case can compose.
    int32_t decomposedLength = 0, foldedLength = 0, markedLength = 0;
    UChar *decomposed = stepped(normalize_step, nfkd, text, length, &decomposedLength);
    if (decomposed == NULL) return NULL;
    UChar *caseless = stepped(fold_case_step, NULL, decomposed, decomposedLength, &foldedLength);
    free(decomposed);
    if (caseless == NULL) return NULL;
    UChar *marked = stepped(normalize_step, nfkd, caseless, foldedLength, &markedLength);
    free(caseless);
    if (marked == NULL) return NULL;
    // Combining marks (accents, Greek tonos, Cyrillic ё's dots, Arabic harakat, Hebrew
    // niqqud) and invisible format characters (Cf: soft hyphens, zero-width spaces and
    // joiners, the byte order mark, direction controls) dropped; letters of fold_letter
    // folded (at most two units each, so the text grows at most twice).
    UChar *kept = malloc(sizeof(UChar) * (size_t)(markedLength * 2 + 1));
    if (kept == NULL) { free(marked); return NULL; }
    int32_t keptLength = 0;
    for (int32_t i = 0; i < markedLength;) {
        int32_t start = i;
        UChar32 c;
        U16_NEXT(marked, i, markedLength, c);
        int8_t type = u_charType(c);
        if ((type == U_NON_SPACING_MARK && !keeps_mark(c)) || type == U_FORMAT_CHAR) continue;
        int32_t letters = fold_letter(c, kept + keptLength);
        if (letters > 0) {
            keptLength += letters;
            continue;
        }
        for (int32_t j = start; j < i; j++) kept[keptLength++] = marked[j];
    }
    free(marked);
    // Composed again (が, Hangul syllables), so text typed either way folds alike.
    UChar *composed = stepped(normalize_step, nfc, kept, keptLength, outLength);
    free(kept);
    return composed;
}

// What one code point of the Basic Multilingual Plane folds to, alone: computed once by
// `folded_whole` and kept (`fold_cache`). `alone` is false when the result holds a
// character that may combine with a neighbour (a combining class other than 0, or one
// NFC may compose with the character before it: kana's voicing marks, Hangul's vowel
// and final jamo, the vowel signs of some Indic scripts): text holding one is folded whole.
typedef struct {
    uint8_t length;
    uint8_t alone;
    UChar units[];
} fold_entry;

static _Atomic(fold_entry *) fold_cache[0x10000];

static fold_entry *fold_of(UChar unit) {
    fold_entry *entry = atomic_load_explicit(&fold_cache[unit], memory_order_acquire);
    if (entry != NULL) return entry;
    int32_t length = 0;
    UChar *result = folded_whole(&unit, 1, &length);
    if (result == NULL || length > 255) {
        free(result);
        return NULL;
    }
    entry = malloc(sizeof(fold_entry) + sizeof(UChar) * (size_t)length);
    if (entry == NULL) {
        free(result);
        return NULL;
    }
    entry->length = (uint8_t)length;
    entry->alone = 1;
    memcpy(entry->units, result, sizeof(UChar) * (size_t)length);
    free(result);
    for (int32_t i = 0; i < length;) {
        UChar32 c;
        U16_NEXT(entry->units, i, length, c);
        if (u_getCombiningClass(c) != 0 || u_getIntPropertyValue(c, UCHAR_NFC_QUICK_CHECK) != UNORM_YES) entry->alone = 0;
    }
    fold_entry *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&fold_cache[unit], &expected, entry, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(entry);
        return expected;
    }
    return entry;
}

// The fold of `text` one code point at a time, from `fold_cache`: the same as
// `folded_whole` when every code point is in the Basic Multilingual Plane and folds to
// characters that stand alone (the decompositions, case folds, removals and letters of
// `folded_whole` act on one code point at a time; only composition joins neighbours, and
// text whose folds compose nothing is composed already). NULL when it cannot say, or
// memory runs out: the caller folds the text whole. Four passes of ICU over each field
// made an import of 100,000 words with accents a sixth slower.
static UChar *folded_by_code_point(const UChar *text, int32_t length, int32_t *outLength) {
    int32_t capacity = length * 2 + 16;
    UChar *out = malloc(sizeof(UChar) * (size_t)capacity);
    if (out == NULL) return NULL;
    int32_t made = 0;
    for (int32_t i = 0; i < length; i++) {
        UChar unit = text[i];
        if (U16_IS_SURROGATE(unit)) { free(out); return NULL; }
        if (unit < 0x80) {
            out[made++] = (unit >= 'A' && unit <= 'Z') ? (UChar)(unit + 0x20) : unit;
        } else {
            fold_entry *entry = fold_of(unit);
            if (entry == NULL || !entry->alone) { free(out); return NULL; }
            if (made + entry->length > capacity) {
                capacity = (made + entry->length) * 2;
                UChar *larger = realloc(out, sizeof(UChar) * (size_t)capacity);
                if (larger == NULL) { free(out); return NULL; }
                out = larger;
            }
            memcpy(out + made, entry->units, sizeof(UChar) * entry->length);
            made += entry->length;
        }
    }
    *outLength = made;
    return out;
}

// The fold of `text` (see ccollation.h) in a new buffer, freed by the caller; NULL when
// ICU fails or memory runs out. `spaced`: with a space around each ideograph and kana.
static UChar *folded(const UChar *text, int32_t length, int spaced, int32_t *outLength) {
    int32_t composedLength = 0;
    UChar *composed = folded_by_code_point(text, length, &composedLength);
    if (composed == NULL) composed = folded_whole(text, length, &composedLength);
    if (composed == NULL || !spaced) {
        *outLength = composedLength;
        return composed;
    }
    UChar *out = malloc(sizeof(UChar) * (size_t)(composedLength * 3 + 1));
    if (out == NULL) { free(composed); return NULL; }
    int32_t made = 0;
    int spaceOwed = 0;
    for (int32_t i = 0; i < composedLength;) {
        int32_t start = i;
        UChar32 c;
        U16_NEXT(composed, i, composedLength, c);
        if (space_before(c, &spaceOwed, made == 0 || out[made - 1] == ' ')) out[made++] = ' ';
        for (int32_t j = start; j < i; j++) out[made++] = composed[j];
    }
    free(composed);
    *outLength = made;
    return out;
}

static int32_t fold_into(const uint16_t *text, int32_t length, uint16_t *out, int32_t capacity, int spaced) {
    int32_t made = 0;
    UChar *result = folded((const UChar *)text, length, spaced, &made);
    if (result == NULL) return -1;
    if (made <= capacity) {
        for (int32_t i = 0; i < made; i++) out[i] = result[i];
    }
    free(result);
    return made;
}

int32_t midiccio_fold(const uint16_t *text, int32_t length, uint16_t *out, int32_t capacity) {
    return fold_into(text, length, out, capacity, 0);
}

int32_t midiccio_fold_whole(const uint16_t *text, int32_t length, uint16_t *out, int32_t capacity) {
    int32_t made = 0;
    UChar *result = folded_whole((const UChar *)text, length, &made);
    if (result == NULL) return -1;
    if (made <= capacity) memcpy(out, result, sizeof(UChar) * (size_t)made);
    free(result);
    return made;
}

int32_t midiccio_search_fold(const uint16_t *text, int32_t length, uint16_t *out, int32_t capacity) {
    return fold_into(text, length, out, capacity, 1);
}

// midiccio_search_text(text): the text as the search index takes it. Plain ASCII text is
// given back as it is (the tokenizer folds its case); NULL stays NULL.
// A growing UTF-8 buffer for `search_folded_utf8`.
typedef struct {
    unsigned char *bytes;
    int length, capacity;
    int spaceOwed;
} utf8_out;

// Appends code point `c` to `out`, with the spaces of the search text around ideographs
// and kana (as `folded` puts them). False when memory runs out.
static int append_spaced(utf8_out *out, UChar32 c) {
    if (out->length + 8 > out->capacity) {
        int capacity = out->capacity * 2 + 16;
        unsigned char *larger = realloc(out->bytes, (size_t)capacity);
        if (larger == NULL) return 0;
        out->bytes = larger;
        out->capacity = capacity;
    }
    if (space_before(c, &out->spaceOwed, out->length == 0 || out->bytes[out->length - 1] == ' ')) {
        out->bytes[out->length++] = ' ';
    }
    UBool failed = 0;
    U8_APPEND((uint8_t *)out->bytes, out->length, out->capacity, c, failed);
    return !failed;
}

// The search text of UTF-8 `text` (`midiccio_search_fold`), made from the UTF-8 as it is,
// a code point at a time from `fold_cache`, into a new buffer freed by the caller. NULL
// when a code point's fold may combine with a neighbour, one is outside the Basic
// Multilingual Plane, the text is not valid UTF-8, or memory runs out: the caller folds
// it whole. Converting each field to UTF-16 and back, for the import of 100,000 words with
// accents, cost as much as the fold.
static unsigned char *search_folded_utf8(const unsigned char *text, int length, int *outLength) {
    utf8_out out = {malloc((size_t)length + 16), 0, length + 16, 0};
    if (out.bytes == NULL) return NULL;
    for (int i = 0; i < length;) {
        UChar32 c;
        U8_NEXT(text, i, length, c);
        int ok = 1;
        if (c < 0 || c > 0xFFFF) {
            ok = 0;
        } else if (c < 0x80) {
            ok = append_spaced(&out, (c >= 'A' && c <= 'Z') ? c + 0x20 : c);
        } else {
            fold_entry *entry = fold_of((UChar)c);
            if (entry == NULL || !entry->alone) {
                ok = 0;
            } else {
                for (int32_t j = 0; ok && j < entry->length;) {
                    UChar32 folded;
                    U16_NEXT(entry->units, j, entry->length, folded);
                    ok = append_spaced(&out, folded);
                }
            }
        }
        if (!ok) {
            free(out.bytes);
            return NULL;
        }
    }
    *outLength = out.length;
    return out.bytes;
}

uint8_t *midiccio_search_fold_utf8(const uint8_t *text, int32_t length, int32_t *outLength) {
    int made = 0;
    unsigned char *result = search_folded_utf8(text, length, &made);
    *outLength = made;
    return result;
}

void midiccio_free(void *pointer) { free(pointer); }

static void search_text_function(sqlite3_context *context, int count, sqlite3_value **arguments) {
    (void)count;
    sqlite3_value *value = arguments[0];
    if (sqlite3_value_type(value) != SQLITE_TEXT) {
        sqlite3_result_value(context, value);
        return;
    }
    const unsigned char *utf8 = sqlite3_value_text(value);
    int bytes = sqlite3_value_bytes(value);
    int ascii = 1;
    for (int i = 0; i < bytes; i++) {
        if (utf8[i] >= 0x80) {
            ascii = 0;
            break;
        }
    }
    if (ascii) {
        sqlite3_result_value(context, value);
        return;
    }
    int foldedBytes = 0;
    unsigned char *fast = search_folded_utf8(utf8, bytes, &foldedBytes);
    if (fast != NULL) {
        sqlite3_result_text(context, (const char *)fast, foldedBytes, free);
        return;
    }
    const UChar *utf16 = sqlite3_value_text16(value);
    int32_t length = sqlite3_value_bytes16(value) / 2;
    int32_t made = 0;
    UChar *result = folded(utf16, length, 1, &made);
    if (result == NULL) {
        sqlite3_result_error(context, "midiccio_search_text: ICU could not fold the text", -1);
        return;
    }
    sqlite3_result_text16(context, result, made * 2, free);
}

int midiccio_define_search_text(sqlite3 *db) {
    return sqlite3_create_function_v2(db, "midiccio_search_text", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                      NULL, search_text_function, NULL, NULL, NULL);
}
