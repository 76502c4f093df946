#ifndef CLIBLO_SHIM_H
#define CLIBLO_SHIM_H
#include <lo/lo.h>
#include <stddef.h>
#include <stdint.h>

/// An argument's value, whatever its numeric type (`i`, `h`, `f`, `d`): OSC clients send times as any of them.
/// `ok` is 0 for a type that is not a number.
static inline double CLiblo_number(lo_message m, int i, int *ok) {
    const char *types = lo_message_get_types(m);
    lo_arg **argv = lo_message_get_argv(m);
    *ok = 1;
    switch (types[i]) {
    case 'i': return argv[i]->i;
    case 'h': return (double)argv[i]->h;
    case 'f': return argv[i]->f;
    case 'd': return argv[i]->d;
    default: *ok = 0; return 0;
    }
}

/// An argument's text when it is a string (`s`) or a symbol (`S`); NULL otherwise.
static inline const char *CLiblo_string(lo_message m, int i) {
    const char *types = lo_message_get_types(m);
    if (types[i] != 's' && types[i] != 'S') return NULL;
    return &lo_message_get_argv(m)[i]->s;
}

#endif
