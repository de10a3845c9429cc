#ifndef MIDICCIO_CFILESYSTEM_H
#define MIDICCIO_CFILESYSTEM_H
#include <stdint.h>

// Swift's Glibc module leaves out <sys/vfs.h>, so the one call MiDiccio needs from it
// lives in filesystem.c.

/// The type of the file system holding `path` (statfs's `f_type`, a magic number of
/// linux/magic.h), or 0 when it cannot be told (no such path, or not Linux).
int64_t midiccio_file_system_type(const char *path);

#endif
