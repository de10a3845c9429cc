#ifndef MIDICCIO_CZLIB_SHIM_H
#define MIDICCIO_CZLIB_SHIM_H
#include <zlib.h>
#endif
