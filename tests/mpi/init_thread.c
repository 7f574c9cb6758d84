/* MPI_Init_thread reports honestly: every level is provided as asked (SERIALIZED at most by a
 * library built without thread support, -DMETAMPI_THREADS=OFF); MPI_Query_thread,
 * MPI_Is_thread_main and MPI_INFO_ENV's thread_level agree. */
#include "check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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
    /* MPI-3.1 §9.2: MPI_INFO_ENV's thread_level is the level the program required */
    static const char *const names[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
    char value[MPI_MAX_INFO_VAL + 1];
    int found = 0;
    CHECK_RC(MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL, value, &found),
             MPI_SUCCESS);
    CHECK(found && required >= MPI_THREAD_SINGLE && required <= MPI_THREAD_MULTIPLE);
    CHECK(strcmp(value, names[required - MPI_THREAD_SINGLE]) == 0);
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
