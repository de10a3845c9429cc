#ifndef MIDICCIO_CQRENCODE_SHIM_H
#define MIDICCIO_CQRENCODE_SHIM_H
// libqrencode: the QR code of `midiccio serve`'s pairing address (in the terminal, and
// as an SVG in the web app's Settings).
#include <qrencode.h>
#endif
