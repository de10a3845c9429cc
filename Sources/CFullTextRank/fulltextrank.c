#include "cfulltextrank.h"
#include <stddef.h>

// The same inputs as fts5_aux.c's fts5Bm25Function gathers, without fts5Bm25GetData's
// xQueryPhrase per phrase (a full pass over each phrase's document list).
static void midiccio_match_stats(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int count,
                                 sqlite3_value **weights) {
    int phrases = api->xPhraseCount(fts);
    sqlite3_int64 rows = 0;
    sqlite3_int64 tokens = 0;
    int length = 0;
    int instances = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &length);
    if (rc == SQLITE_OK) rc = api->xInstCount(fts, &instances);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    sqlite3_uint64 size = sizeof(double) * (sqlite3_uint64)(3 + phrases);
    double *stats = sqlite3_malloc64(size);
    if (stats == NULL) {
        sqlite3_result_error_nomem(context);
        return;
    }
    stats[0] = (double)rows;
    stats[1] = (double)tokens;
    stats[2] = (double)length;
    for (int i = 0; i < phrases; i++) stats[3 + i] = 0.0;
    for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
        int phrase = 0;
        int column = 0;
        int offset = 0;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc == SQLITE_OK) stats[3 + phrase] += count > column ? sqlite3_value_double(weights[column]) : 1.0;
    }
    if (rc != SQLITE_OK) {
        sqlite3_free(stats);
        sqlite3_result_error_code(context, rc);
        return;
    }
    sqlite3_result_blob64(context, stats, size, sqlite3_free);
}

int midiccio_register_match_stats(sqlite3 *db) {
    // The documented way to reach the fts5_api of a connection: SELECT fts5(?1) with a
    // pointer bound under the type name "fts5_api_ptr".
    fts5_api *fts5 = NULL;
    sqlite3_stmt *statement = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_pointer(statement, 1, (void *)&fts5, "fts5_api_ptr", NULL);
    rc = sqlite3_step(statement);
    int finalized = sqlite3_finalize(statement);
    if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? SQLITE_ERROR : rc;
    if (finalized != SQLITE_OK) return finalized;
    if (fts5 == NULL || fts5->iVersion < 2) return SQLITE_ERROR;
    return fts5->xCreateFunction(fts5, "midiccio_match_stats", NULL, midiccio_match_stats, NULL);
}
