#include "ccollation.h"
#include <unicode/ucol.h>

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
