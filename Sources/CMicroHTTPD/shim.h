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

/// Limits on what one daemon accepts; every field is required (tests shrink them).
struct midiccio_mhd_limits {
    /// Bytes MHD may buffer per connection for the request line and headers.
    size_t memory_limit;
    /// Internal threads serving connections.
    unsigned int threads;
    /// Seconds a connection may stay silent before MHD closes it.
    unsigned int timeout;
    /// Connections open at once, over all clients.
    unsigned int connections;
    /// Connections open at once from one IP address.
    unsigned int per_address;
};

/// Starts a daemon on `listen_fd`, a socket already bound and listening (so its port is
/// known before any request arrives), serving requests on a pool of internal threads.
///
/// `uri_logger` sees each request's URI before MHD decodes it; what it returns is the
/// request's first `*con_cls`. `notify_connection` hears of each connection opened and
/// closed (on the worker thread that owns it, before its socket is closed). `tls_cert`
/// and `tls_key` (PEM text, both or neither) turn on HTTPS. Returns NULL when the daemon cannot start.
static inline struct MHD_Daemon *midiccio_mhd_start(unsigned int flags,
                                                    int listen_fd,
                                                    MHD_AccessHandlerCallback handler,
                                                    void *handler_context,
                                                    MHD_RequestCompletedCallback completed,
                                                    void *completed_context,
                                                    void *(*uri_logger)(void *, const char *, struct MHD_Connection *),
                                                    MHD_NotifyConnectionCallback notify_connection,
                                                    struct midiccio_mhd_limits limits,
                                                    const char *tls_cert,
                                                    const char *tls_key) {
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_OptionItem none[] = {{MHD_OPTION_END, 0, NULL}};
    int with_tls = tls_cert != NULL && tls_key != NULL;
    return MHD_start_daemon(flags | (with_tls ? MHD_USE_TLS : 0), 0, NULL, NULL, handler, handler_context,
                            MHD_OPTION_LISTEN_SOCKET, listen_fd,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_logger, handler_context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify_connection, handler_context,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.memory_limit,
                            MHD_OPTION_THREAD_POOL_SIZE, limits.threads,
                            MHD_OPTION_CONNECTION_TIMEOUT, limits.timeout,
                            MHD_OPTION_CONNECTION_LIMIT, limits.connections,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.per_address,
                            MHD_OPTION_ARRAY, with_tls ? tls : none,
                            MHD_OPTION_END);
}

/// Calls `iterator` for every value of `kind` (headers, query arguments) of a request.
/// Wrapped so Swift sees one fixed signature whatever the library version declares.
static inline int midiccio_mhd_each_value(struct MHD_Connection *connection,
                                          enum MHD_ValueKind kind,
                                          MHD_KeyValueIterator iterator,
                                          void *context) {
    return MHD_get_connection_values(connection, kind, iterator, context);
}

/// The socket of `connection`, or -1.
static inline int midiccio_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/// What `*socket_context` was set to when `connection` opened (NULL when never set).
static inline void *midiccio_mhd_connection_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// A response holding its own copy of `length` bytes at `data`.
static inline struct MHD_Response *midiccio_mhd_response_copying(const void *data, size_t length) {
    // The buffer API is the one every libmicrohttpd version has; MUST_COPY means the
    // Swift buffer may go away as soon as this returns.
    return MHD_create_response_from_buffer(length, (void *)data, MHD_RESPMEM_MUST_COPY);
}

/// A response whose body libmicrohttpd reads from `fd` (`size` bytes from its start) as
/// it sends it; it closes `fd` when the response is destroyed.
static inline struct MHD_Response *midiccio_mhd_response_from_file(uint64_t size, int fd) {
    return MHD_create_response_from_fd64(size, fd);
}

/// MHD_YES and MHD_NO as plain ints: newer headers declare them as an enum, older ones
/// as macros, and the handler's return type differs with them.
static inline int midiccio_mhd_yes(void) { return MHD_YES; }
static inline int midiccio_mhd_no(void) { return MHD_NO; }

#endif
