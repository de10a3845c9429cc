#ifndef MIDICCIO_CSQLITE_SHIM_H
#define MIDICCIO_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import; this gives it a name.
static inline sqlite3_destructor_type midiccio_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Stops SQLite counting the memory it takes (SQLITE_CONFIG_MEMSTATUS): the count puts a
/// process-wide mutex around every allocation and free. sqlite3_config is variadic, which
/// Swift cannot call. It works only before SQLite is first used; after that it
/// gives SQLITE_MISUSE and changes nothing.
static inline int midiccio_sqlite_stop_counting_memory(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
