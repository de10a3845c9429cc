#ifndef MIDICCIO_CSQLITE_SHIM_H
#define MIDICCIO_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import; this gives it a name.
static inline sqlite3_destructor_type midiccio_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Turns on secure_delete-style behaviour is done by PRAGMA; nothing variadic is needed
/// beyond sqlite3_config, which MiDiccio does not call.
#endif
