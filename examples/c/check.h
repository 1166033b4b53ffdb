/* CHECK / EXPECT / FAIL_IF for the C examples: report the failing line and return 1. */
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

#endif
