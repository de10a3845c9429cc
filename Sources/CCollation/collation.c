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
#define unorm2_getNFDInstance swift_unorm2_getNFDInstance
#define unorm2_normalize swift_unorm2_normalize
#define u_charType swift_u_charType
#define u_strFoldCase swift_u_strFoldCase
#define u_getVersion swift_u_getVersion
#endif

#include <unicode/ucol.h>
#include <unicode/unorm2.h>
#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/uversion.h>
#include <stdio.h>
#include <stdlib.h>

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
