#ifndef MIDICCIO_CERRORPAGES_H
#define MIDICCIO_CERRORPAGES_H
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// libmicrohttpd 0.9.75 answers some requests itself, before the application sees them
// (431 for headers past its per-connection buffer, 414, 400 for a broken request), with
// a bare page and no way for the application to add headers. It queues those pages
// through its exported MHD_queue_response, which a program can provide itself: this
// target's definition takes its place in the whole process, hands libmicrohttpd's own
// pages to `midiccio_mhd_error_page` for an answer of the program's making, and passes
// everything else on to libmicrohttpd's function.

/// Makes the answer sent instead of libmicrohttpd's own page with `status` on
/// `connection`, or returns NULL to send libmicrohttpd's page. The caller destroys it.
typedef struct MHD_Response *(*midiccio_mhd_error_page_maker)(struct MHD_Connection *connection, unsigned int status);

/// Sets the maker of error pages, for every daemon in the process (NULL: none).
void midiccio_mhd_set_error_page_maker(midiccio_mhd_error_page_maker maker);

/// Queues `response` as MHD_queue_response does; the program's own answers go through
/// here, so they are never taken for libmicrohttpd's pages.
enum MHD_Result midiccio_mhd_queue(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response);

#endif
