#ifndef MIDICCIO_CZIP_SHIM_H
#define MIDICCIO_CZIP_SHIM_H
#include <zip.h>
#endif
