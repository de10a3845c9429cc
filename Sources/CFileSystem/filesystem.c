#include "cfilesystem.h"

#ifdef __linux__
#include <sys/vfs.h>

int64_t midiccio_file_system_type(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return 0;
    return (int64_t)info.f_type;
}
#else
int64_t midiccio_file_system_type(const char *path) {
    (void)path;
    return 0;
}
#endif
