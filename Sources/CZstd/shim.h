#ifndef MIDICCIO_CZSTD_SHIM_H
#define MIDICCIO_CZSTD_SHIM_H
#include <zstd.h>
#endif
