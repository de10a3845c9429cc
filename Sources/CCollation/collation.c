#include "ccollation.h"
#include <unicode/ucol.h>
#include <unicode/unorm2.h>
#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <stdlib.h>

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

int32_t midiccio_fold(const uint16_t *text, int32_t length, uint16_t *out, int32_t capacity) {
    UErrorCode status = U_ZERO_ERROR;
    const UNormalizer2 *nfd = unorm2_getNFDInstance(&status);
    if (U_FAILURE(status)) return -1;
    // Decomposition can grow the text (at most 4 units per unit for NFD in practice).
    int32_t decomposedCapacity = length * 4 + 16;
    UChar *decomposed = malloc(sizeof(UChar) * decomposedCapacity);
    if (decomposed == NULL) return -1;
    int32_t decomposedLength = unorm2_normalize(nfd, (const UChar *)text, length, decomposed, decomposedCapacity, &status);
    if (U_FAILURE(status)) { free(decomposed); return -1; }
    // Drop combining marks and invisible format characters (zero-width spaces and
    // joiners, the byte order mark, direction controls: category Cf), then fold case on
    // what is left.
    int32_t kept = 0;
    for (int32_t i = 0; i < decomposedLength;) {
        UChar32 c;
        int32_t start = i;
        U16_NEXT(decomposed, i, decomposedLength, c);
        int8_t type = u_charType(c);
        if (type == U_NON_SPACING_MARK || type == U_FORMAT_CHAR) continue;
        for (int32_t j = start; j < i; j++) decomposed[kept++] = decomposed[j];
    }
    int32_t folded = u_strFoldCase((UChar *)out, capacity, decomposed, kept, U_FOLD_CASE_DEFAULT, &status);
    free(decomposed);
    if (U_FAILURE(status) || folded > capacity) return -1;
    return folded;
}
