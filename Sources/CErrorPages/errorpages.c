#define _GNU_SOURCE
#include "cerrorpages.h"

#include <dlfcn.h>
#include <stdatomic.h>

typedef enum MHD_Result (*queue_function)(struct MHD_Connection *, unsigned int, struct MHD_Response *);

static _Atomic(midiccio_mhd_error_page_maker) page_maker = NULL;

/// libmicrohttpd's own MHD_queue_response: the next definition after this program's.
static queue_function library_queue(void) {
    static _Atomic(queue_function) found = NULL;
    queue_function function = atomic_load(&found);
    if (function == NULL) {
        function = (queue_function)dlsym(RTLD_NEXT, "MHD_queue_response");
        if (function == NULL) {
            void *library = dlopen("libmicrohttpd.so.12", RTLD_LAZY | RTLD_NOLOAD);
            if (library != NULL) function = (queue_function)dlsym(library, "MHD_queue_response");
        }
        atomic_store(&found, function);
    }
    return function;
}

void midiccio_mhd_set_error_page_maker(midiccio_mhd_error_page_maker maker) { atomic_store(&page_maker, maker); }

enum MHD_Result midiccio_mhd_queue(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response) {
    queue_function function = library_queue();
    if (function == NULL || function == MHD_queue_response) return MHD_NO;
    return function(connection, status, response);
}

/// Reached only from inside libmicrohttpd (MiDiccio queues through midiccio_mhd_queue):
/// its own error pages.
enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status_code,
                                   struct MHD_Response *response) {
    queue_function function = library_queue();
    if (function == NULL || function == MHD_queue_response) return MHD_NO;
    midiccio_mhd_error_page_maker maker = atomic_load(&page_maker);
    struct MHD_Response *page = maker == NULL ? NULL : maker(connection, status_code);
    if (page == NULL) return function(connection, status_code, response);
    enum MHD_Result result = function(connection, status_code, page);
    MHD_destroy_response(page);
    return result;
}
