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

/// Hands SQLite's log (SQLITE_CONFIG_LOG) to `callback`: its notices say, among other
/// things, when a connection rebuilt a WAL's index from the log file itself (recovery,
/// which only the first connection after a crash does). Like the call above, it works
/// only before SQLite is first used.
static inline int midiccio_sqlite_set_log(void (*callback)(void *, int, const char *)) {
    return sqlite3_config(SQLITE_CONFIG_LOG, callback, (void *)0);
}

/// Makes closing `db` leave the WAL as it is instead of copying it into the database
/// file when it is the last connection (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE); variadic too.
static inline int midiccio_sqlite_skip_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
#endif
