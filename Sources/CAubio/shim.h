#ifndef CAUBIO_SHIM_H
#define CAUBIO_SHIM_H
#include <aubio/aubio.h>
#endif
