#ifndef MIDICCIO_CMINIZIP_SHIM_H
#define MIDICCIO_CMINIZIP_SHIM_H
// minizip's unzip API (zlib's contrib/minizip): reading the zip of an Anki package.
// It depends on zlib alone, so the everyday `midiccio` loads no crypto library
// (README, "Start-up"). unzip.h includes zlib.h, whose inflate reads the entries.
#include <unzip.h>

/// inflateInit2 is a macro Swift cannot import: starts `stream` on raw deflate data
/// (no zlib header or checksum), which is how a zip entry holds it.
static inline int midiccio_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}
#endif
