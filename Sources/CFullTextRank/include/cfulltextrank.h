#ifndef MIDICCIO_CFULLTEXTRANK_H
#define MIDICCIO_CFULLTEXTRANK_H
#include <sqlite3.h>

/// Adds the FTS5 auxiliary function `midiccio_match_stats(fts_table, weight, ...)` to
/// `db`: for the current match, a blob of native doubles holding the table's row count,
/// its total token count, the row's token count, then per phrase of the query the hits
/// in the row, each weighted by its column's weight (1 for columns without one). These
/// are the inputs of FTS5's bm25() except each phrase's document count (its IDF), which
/// bm25() finds by running the phrase again over the whole table: the caller decides
/// whether it needs them. Returns an SQLite result code.
int midiccio_register_match_stats(sqlite3 *db);

#endif
