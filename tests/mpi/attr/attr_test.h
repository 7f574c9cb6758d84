/* Shared by the attribute, info and error handler tests. */
#ifndef METAMPI_TEST_ATTR_H
#define METAMPI_TEST_ATTR_H

#include "../check.h"

/* expr fails with error class cls (other MPIs return codes that only map to the class) */
#define CHECK_ERR(expr, cls)                                                                   \
    do {                                                                                       \
        int rc_ = (expr), class_ = MPI_SUCCESS;                                                \
        if (rc_ != MPI_SUCCESS)                                                                \
            MPI_Error_class(rc_, &class_);                                                     \
        if (class_ != (cls)) {                                                                 \
            fprintf(stderr, "FAIL rank %d %s:%d: %s returned class %d, expected %d\n",         \
                    check_rank_(), __FILE__, __LINE__, #expr, class_, (int)(cls));             \
            fflush(stderr);                                                                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
        }                                                                                      \
    } while (0)

#endif
