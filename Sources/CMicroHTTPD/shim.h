#ifndef MIDICCIO_CMICROHTTPD_SHIM_H
#define MIDICCIO_CMICROHTTPD_SHIM_H
// microhttpd.h needs these types declared first (it says so in its header comment).
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

// Swift cannot call C variadic functions, so every variadic call MiDiccio makes is
// spelled out here once, with a fixed argument list.

/// Starts a daemon bound to exactly `address` (127.0.0.1, ::1 or the host given with
/// --token), serving requests on a pool of `threads` internal threads.
///
/// `memory_limit` caps what MHD buffers per connection for headers (bodies are handed
/// to the access handler in pieces and limited there); `timeout` closes idle
/// connections after that many seconds. Returns NULL when the daemon cannot start
/// (typically: the port is taken).
static inline struct MHD_Daemon *midiccio_mhd_start(unsigned int flags,
                                                    const struct sockaddr *address,
                                                    MHD_AccessHandlerCallback handler,
                                                    void *handler_context,
                                                    MHD_RequestCompletedCallback completed,
                                                    void *completed_context,
                                                    size_t memory_limit,
                                                    unsigned int threads,
                                                    unsigned int timeout) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                            MHD_OPTION_END);
}

/// The port the daemon listens on: the one the kernel chose when asked for port 0.
static inline uint16_t midiccio_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// Calls `iterator` for every value of `kind` (headers, query arguments) of a request.
/// Wrapped so Swift sees one fixed signature whatever the library version declares.
static inline int midiccio_mhd_each_value(struct MHD_Connection *connection,
                                          enum MHD_ValueKind kind,
                                          MHD_KeyValueIterator iterator,
                                          void *context) {
    return MHD_get_connection_values(connection, kind, iterator, context);
}

/// A response holding its own copy of `length` bytes at `data`.
static inline struct MHD_Response *midiccio_mhd_response_copying(const void *data, size_t length) {
    // The buffer API is the one every libmicrohttpd version has; MUST_COPY means the
    // Swift buffer may go away as soon as this returns.
    return MHD_create_response_from_buffer(length, (void *)data, MHD_RESPMEM_MUST_COPY);
}

/// MHD_YES and MHD_NO as plain ints: newer headers declare them as an enum, older ones
/// as macros, and the handler's return type differs with them.
static inline int midiccio_mhd_yes(void) { return MHD_YES; }
static inline int midiccio_mhd_no(void) { return MHD_NO; }

#endif
