#ifndef MIDICCIO_CYAJL_SHIM_H
#define MIDICCIO_CYAJL_SHIM_H
// yajl: an event-driven JSON parser in C that takes its text in pieces, so a backup of
// any size is read without holding it (Backup/BackupReader.swift).
#include <yajl/yajl_parse.h>
#endif
