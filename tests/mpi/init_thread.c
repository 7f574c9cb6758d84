/* MPI_Init_thread reports honestly: every level is provided as asked (SERIALIZED at most by a
 * library built without thread support, -DMETAMPI_THREADS=OFF). */
#include "check.h"

#include <pthread.h>
#include <stdlib.h>

static void *other_thread(void *arg)
{
    int *flag = arg;
    MPI_Is_thread_main(flag);
    return NULL;
}

int main(int argc, char **argv)
{
    int required = argc > 1 ? atoi(argv[1]) : MPI_THREAD_MULTIPLE;
    int provided = -1, queried = -1;
    CHECK_RC(MPI_Init_thread(&argc, &argv, required, &provided), MPI_SUCCESS);
    int expected = required;
#ifdef METAMPI_THREADS_OFF
    if (expected > MPI_THREAD_SERIALIZED)
        expected = MPI_THREAD_SERIALIZED;
#endif
    CHECK(provided == expected);
    CHECK_RC(MPI_Query_thread(&queried), MPI_SUCCESS);
    CHECK(queried == provided);
    if (provided >= MPI_THREAD_SERIALIZED) {
        int flag = -1;
        pthread_t t;
        CHECK(pthread_create(&t, NULL, other_thread, &flag) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK(flag == 0);
    }
    CHECK_RC(MPI_Finalize(), MPI_SUCCESS);
    return 0;
}
