/* CHECK / EXPECT / FAIL_IF for the C examples: report the failing line and return 1. (An
   example that fails returns at once and leaves its handles and buffers to the operating
   system; a program of yours would release them.) */
#ifndef LATPOLY_EXAMPLES_CHECK_H
#define LATPOLY_EXAMPLES_CHECK_H
#include <stdio.h>
#include "latpoly.h"

/* The call must return LATPOLY_STATUS_OK. */
#define CHECK(call)                                                                  \
    do {                                                                             \
        latpoly_status s_ = (call);                                                  \
        if (s_ != LATPOLY_STATUS_OK) {                                               \
            fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call,          \
                    latpoly_status_message(s_));                                     \
            return 1;                                                                \
        }                                                                            \
    } while (0)

/* The call must return the status `want`. */
#define EXPECT(call, want)                                                           \
    do {                                                                             \
        latpoly_status s_ = (call);                                                  \
        if (s_ != (want)) {                                                          \
            fprintf(stderr, "%s:%d: %s gave %d, expected %d\n", __FILE__, __LINE__,  \
                    #call, (int)s_, (int)(want));                                    \
            return 1;                                                                \
        }                                                                            \
    } while (0)

/* Fails with message `what` when `cond` holds. */
#define FAIL_IF(cond, what)                                                          \
    do {                                                                             \
        if (cond) {                                                                  \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, what);                \
            return 1;                                                                \
        }                                                                            \
    } while (0)

/* Zeroes `len` bytes at `p` with volatile stores (which the compiler keeps): for secret
   bytes before they are released. */
static inline void wipe_bytes(void *p, size_t len) {
    for (volatile unsigned char *w = (volatile unsigned char *)p; len > 0; len--) *w++ = 0;
}

#endif
